/* Child processes for replays (see child.c) and the worker entry point. */
#ifndef HR_REPLAY_CHILD_H
#define HR_REPLAY_CHILD_H

#include "backends/spec.h"
#include "trace/trace.h"
#include "replay/engine.h"

/* 1 in an AddressSanitizer build: its runtime provides malloc in every
 * process. In-house allocators replay on top of it (the engine, --verify
 * and the allocators are then checked by the sanitizer; the figures are not
 * comparable with a normal build's); external allocators cannot, and their
 * rows are an "error" saying so, without a process. */
#if defined(__SANITIZE_ADDRESS__)
#define HR_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HR_ASAN_BUILD 1
#endif
#endif
#ifndef HR_ASAN_BUILD
#define HR_ASAN_BUILD 0
#endif

/* argv[0] of every re-executed process (worker, start-up probe): a fixed
 * name, so that nothing the allocator under test sees depends on where
 * heapreplay is installed (child.c says how it did). */
#define HR_WORKER_ARGV0 "heapreplay"

typedef struct hr_child_job {
    const hr_trace_t          *trace;      /* decoded */
    int                        trace_fd;   /* the same, shared (trace/shared.h): workers map it */
    const char                *trace_name; /* as shown in reports */
    const char                *digest;
    const hr_alloc_spec_t     *spec;       /* parsed; its text goes to the worker and the result */
    const hr_replay_options_t *opt;
    const char                *self_exe;   /* this program, for re-exec */
    hr_replay_mode_t           mode;       /* what the process does (opt->mode is ignored) */
    const char                *count_out;  /* count mode under callgrind: its output file */
    uint64_t                   mem_limit;  /* anonymous RSS bytes (memlimit.h); 0: none */
} hr_child_job_t;

typedef void (*hr_child_progress_fn)(const hr_child_job_t *job, int index, void *ctx);
#define HR_CHILD_TICK_MS 500 /* progress is called again this often while a job runs */

/* SIGINT, SIGTERM and SIGHUP stop hr_child_run_all: the running replay
 * process is killed and no further one starts. hr_child_interrupted() is
 * then the signal (0 before). Every replay process dies with heapreplay
 * whatever kills it (PR_SET_PDEATHSIG on the server and on each worker). */
void hr_child_trap_signals(void);
int hr_child_interrupted(void);

/* Runs every job in its own process and stores its result object, one line of
 * JSON (malloc'd), in results[i]: the process's own, or one made here with
 * status "crashed" (+ "signal"), "timeout", "oom" (over job->mem_limit: the
 * figure in "error") or "error" (no result, or one that is not a JSON
 * object with a status: never a missing row). Replay processes run
 * one after another, each a freshly executed worker (a fresh program for the
 * allocator under test, in-house or external), started from one server
 * process forked before the first job.
 * `progress` (may be NULL) is called with `ctx` as each job starts, then
 * about every HR_CHILD_TICK_MS while it runs (same job and index). Returns 0, or -1 if
 * no process could be started, 1 when interrupted (hr_child_trap_signals):
 * the jobs that had ended have their result, the others NULL. */
int hr_child_run_all(const hr_child_job_t *jobs, int n, char **results,
                     hr_child_progress_fn progress, void *ctx);

/* `heapreplay __worker --fd N --trace-fd F --spec S --mode M --name NAME
 * [--touch T] [--budget B] [--warm-time S] [--stall-us U]`: the re-executed
 * replay process of every allocator. Verifies with dladdr that `malloc`
 * comes from the library named in $HEAPREPLAY_EXPECT_LIB (libc when empty;
 * in an AddressSanitizer build in-house allocators accept the sanitizer's)
 * and refuses to report otherwise; maps the shared trace and writes its
 * result on the result pipe N (close-on-exec, never its standard output,
 * which the allocator may print to) through a stream whose buffer is
 * harness memory, so that nothing of the harness is allocated through the
 * allocator under test. */
int hr_worker_main(int argc, char **argv);

#endif
