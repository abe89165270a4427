/* The paced memory lap (docs/METRICS.md, "Memory lap: paced or fast").
 *
 * The measure lap replays the events back to back: a trace recorded over
 * 20 s runs in a fraction of a second, so an allocator's time-based release
 * (jemalloc's decay, mimalloc's purge delay) never happens as it did in the
 * program, and the lap's peak RSS is not the program's. The paced lap
 * replays the same events on a fresh instance with each event waiting for
 * its recorded time since the first event (per recorded thread when the
 * trace is replayed on threads), on a compressed timeline: an idle gap (no
 * event of any thread) longer than HR_PACED_IDLE_CAP_NS is cut to it, since
 * every time-based release of the allocators heapreplay knows is due by
 * then; shorter gaps are kept whole. Its peak RSS becomes memory.peak_rss.
 *
 * It runs in a process of its own, a fresh worker that runs the paced lap
 * alone and sends back its peak RSS: the measure lap and every other figure
 * of the row are those of a worker that never ran it, and the paced lap's
 * process starts as fresh as the program did. In a replay (child.c) the
 * paced lap runs once per row, not per sample: before a trace's timed
 * processes, the paced laps of all its rows start together as one batch
 * (they sleep almost all the time), and each of the row's measure workers
 * gets that lap's figures (HR_PACED_GIVEN). A measure lap run outside the
 * replay's processes (no HR_PACED_GIVEN) runs its own paced lap first, in a
 * fork of itself (exec of the worker's own arguments in a worker). */
#ifndef HR_REPLAY_PACED_H
#define HR_REPLAY_PACED_H

#include <stdint.h>

#include "base/metrics.h"
#include "replay/engine_int.h"

/* An idle gap is cut to this: the longest default time-based release of
 * the allocators in use (jemalloc's dirty_decay_ms, 10 s) plus 2 s for
 * its decay epochs and the next op that acts on it. */
#define HR_PACED_IDLE_CAP_NS 12000000000ull
/* auto paces traces whose compressed duration is at most this. */
#define HR_PACED_AUTO_MAX_S 10.0
/* RSS samples during the paced lap, one per this many microseconds. */
#define HR_PACED_SAMPLE_US 1000u
/* At most this many cut gaps; later gaps are kept whole (a trace with
 * more than 4096 idle gaps of 12 s is longer than auto would pace). */
#define HR_PACED_MAX_CUTS 4096u

/* The compressed timeline: recorded ns -> ns since the lap's start. */
typedef struct hr_paced_cut {
    uint64_t lo;     /* the last timestamp before the gap */
    uint64_t at;     /* the first timestamp after it */
    uint64_t before; /* ns cut by the earlier gaps */
} hr_paced_cut_t;

typedef struct hr_paced_map {
    uint64_t        ts0;        /* the first event's timestamp */
    uint64_t        recorded_ns; /* last - first timestamp */
    uint64_t        paced_ns;   /* the same on the compressed timeline */
    uint32_t        n_cuts;
    hr_paced_cut_t *cut;        /* harness memory, HR_PACED_MAX_CUTS */
} hr_paced_map_t;

/* Builds the timeline of a trace with timestamps (one walk over its events
 * in trace order). 0, or -1 with err set (out of memory). */
int hr_paced_map_build(hr_paced_map_t *m, const hr_trace_t *t, hr_error_t *err);
void hr_paced_map_free(hr_paced_map_t *m);
/* Where the event recorded at ts runs, in ns after the lap's start. */
uint64_t hr_paced_rel(const hr_paced_map_t *m, uint64_t ts);
/* Sleeps (then spins the last 0.1 ms) until CLOCK_MONOTONIC reaches target. */
void hr_paced_wait_until(uint64_t target_ns);

/* What the memory lap of a measured row was. */
typedef struct hr_paced_result {
    int         paced;        /* 1: the paced lap ran and gave peak_rss */
    const char *note;         /* why not, when it did not (static text) */
    char        why[192];     /* the note when it is made at run time */
    uint64_t    peak_rss;     /* the child's peak RSS during the lap, bytes */
    uint64_t    lap_ns;       /* its wall time */
    uint64_t    recorded_ns, paced_ns;
    int         threaded;     /* paced per recorded thread */
    int         only;         /* this process exists for the paced lap alone
                               * (its message is written): no measure lap */
} hr_paced_result_t;

/* What a paced lap's process sends back on its pipe (HR_PACED_FD). */
typedef struct hr_paced_msg {
    int      rc;       /* 0: the lap ran; else msg says why not */
    uint64_t peak_rss, lap_ns;
    char     msg[160];
} hr_paced_msg_t;

/* The longest HR_PACED_GIVEN text (hr_paced_given_text). */
#define HR_PACED_GIVEN_MAX 256

/* Whether a measured row of spec gets the paced lap: opt->memory_lap, the
 * trace's timestamps (map: its timeline, NULL when it has none) and the
 * allocator. 1: paced; 0: fast, with out->note saying why when asked for
 * one (out->why holds a note made here). Sets out->recorded_ns and paced_ns
 * from map. The one rule of the parent (child.c: which rows get a paced
 * process) and of the measure worker. */
int hr_paced_choose(const hr_trace_t *t, const hr_alloc_spec_t *spec,
                    const hr_replay_options_t *opt, const hr_paced_map_t *map,
                    hr_paced_result_t *out);

/* The text a row's measure workers get in HR_PACED_GIVEN from the process
 * that ran the row's paced lap: its message (got: a whole one was read),
 * how it ended (waitpid status; timed_out: killed after timeout_s). */
void hr_paced_given_text(const hr_paced_msg_t *m, int got, int status, int timed_out,
                         double timeout_s, char *buf, size_t cap);

/* Chooses the memory lap of a measured row (hr_paced_choose) and, when it
 * is paced, takes the figures of the row's paced lap from HR_PACED_GIVEN
 * or else runs the lap in a forked child. Never fails the row: a paced lap
 * that cannot run leaves paced 0 and a note. */
void hr_paced_memory(const hr_trace_t *t, const hr_run_alloc_t *a,
                     const hr_replay_options_t *opt, hr_paced_result_t *out);

/* The worker's arguments (argv[0] "__worker"), for the paced lap's own
 * worker process; a process that never sets them forks without exec. */
void hr_paced_worker_argv(int argc, char **argv);

/* The memory figures the paced lap decides (memory.lap, memory.peak_rss,
 * memory.peak_rss_fast, memory.paced_lap_s, memory.lap_note), over the
 * measure lap's in v (engine_emit.c). p NULL: the fast lap's, no note. */
void hr_paced_values(const hr_paced_result_t *p, hr_mval_t *v);

/* threads.c: one paced lap on one OS thread per recorded thread, each
 * stream waiting for its events' times on map; fresh instances, closed
 * after. 0, or -1 with err set. */
int hr_threads_paced_lap(const hr_trace_t *t, const hr_run_alloc_t *a,
                         const hr_replay_options_t *opt, const hr_paced_map_t *map,
                         hr_error_t *err);

#endif
