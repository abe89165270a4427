/* The run plan of a replay: traces x allocator specs x samples x modes, and
 * its execution. Every (trace, spec, sample) is a measure process and a time
 * process; a cell (trace, spec) may add one verify and one count process.
 * A trace's processes run one after another, specs interleaved within each
 * sample (A B A B ...) so that phases of a shared host hit them alike; the
 * verify processes come first (a violation they find is the row's status
 * even when the timed processes then crash), the count ones last. Each
 * process is bounded by opt->timeout_s and by a memory limit made from
 * opt->mem_limit and the trace's peak (replay/memlimit.h). --shard leaves some
 * cells out: the caller decides which (the assignment lives with the report
 * merge) and hands the plan the mask.
 *
 * hr_replay_run() reads and shares each trace once (packed straight from a
 * large binary file, or decoded, prepared by the caller's hook (pool
 * lowering) and shared; the parent then maps the shared copy too), runs its
 * processes (child.h), reads a callgrind count from callgrind's file into
 * the count line, and hands every cell's result lines to the caller's hook:
 * the report is built above this layer. */
#ifndef HR_REPLAY_PLAN_H
#define HR_REPLAY_PLAN_H

#include "backends/spec.h"
#include "replay/child.h"
#include "replay/engine.h"
#include "trace/trace.h"

typedef struct hr_replay_plan {
    const char *const         *paths;  /* borrowed */
    int                        npaths;
    const hr_alloc_spec_t     *specs;  /* borrowed */
    int                        nspecs;
    const hr_replay_options_t *opt;    /* borrowed: repeat, verify, count, event_form */
    int                        rep, verify, count;
    unsigned char             *mine;   /* [trace * nspecs + spec]: this run replays the cell */
    int                        ncells; /* cells replayed */
    int                        decoded_only; /* the prepare hook needs decoded events (pools) */
    int                        quiet;  /* no notes on stderr */
    const char                *self_exe; /* this program, re-executed as each worker */
} hr_replay_plan_t;

/* Fills *p (borrowing paths, specs and opt). mine: the cells of this run
 * (NULL: every cell); copied. The caller then sets decoded_only, quiet and
 * self_exe. 0, or -1 when out of memory. */
int hr_replay_plan_init(hr_replay_plan_t *p, const char *const *paths, int npaths,
                        const hr_alloc_spec_t *specs, int nspecs, const hr_replay_options_t *opt,
                        const unsigned char *mine);
void hr_replay_plan_free(hr_replay_plan_t *p);
/* Processes per cell, and in all. */
int hr_replay_plan_cell_jobs(const hr_replay_plan_t *p);
int hr_replay_plan_total_jobs(const hr_replay_plan_t *p);
/* Within one trace's nspecs specs: the job of (spec, sample, mode) (sample
 * is 0 for verify and count). */
int hr_replay_plan_job(const hr_replay_plan_t *p, int nspecs, int spec, int sample,
                       hr_replay_mode_t mode);

/* What the cell hook gets: the cell, its finished samples (both lines of
 * each; after an interruption only the samples whose processes all ended)
 * and its verify and count lines (NULL when not asked or not ended). */
typedef struct hr_replay_cell {
    int                      trace, spec; /* indices into the plan */
    const char              *path;
    const hr_alloc_spec_t   *alloc;
    const hr_program_time_t *program;     /* the trace's recorded program time */
    const char              *command;     /* its recorded command (format 1.8), or NULL */
    int                      n;           /* samples below */
    const char             **measure, **time;
    const char              *verify, *count;
    int                      partial;     /* fewer samples than asked, or verify/count missing */
    int                      stop;        /* the signal that interrupted the run, or 0 */
} hr_replay_cell_t;

typedef struct hr_replay_hooks {
    void *ctx;
    /* The decoded trace before it is shared (e.g. its pools lowered); NULL:
     * none. 0, or -1 with err set (the run stops: bad input). */
    int (*prepare)(void *ctx, hr_trace_t *t, const char *path, hr_error_t *err);
    /* After prepare's trace is released (e.g. its pool figures). */
    void (*release)(void *ctx);
    /* Each cell with at least one finished sample, in spec order. 0; 1 to
     * stop after this trace (the result could not be added: a failed row);
     * 2 to stop the run (out of memory: an error, exit 2). */
    int (*cell)(void *ctx, const hr_replay_cell_t *c);
    /* Progress: before a trace's n processes, during each (child.h), after. */
    void (*jobs_begin)(void *ctx, int n);
    hr_child_progress_fn progress;
    void (*jobs_end)(void *ctx, int n);
} hr_replay_hooks_t;

/* Runs the plan's cells. Returns 0, 1 when a trace's processes could not
 * be started or a cell hook failed, 2 after bad input (a trace that cannot
 * be read; the message is on stderr and the run stops there). *stop is the
 * signal that interrupted the run (child.h), or 0. */
int hr_replay_run(const hr_replay_plan_t *p, const hr_replay_hooks_t *h, int *stop);

#endif
