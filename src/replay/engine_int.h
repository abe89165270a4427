/* Engine internals shared by engine.c (the loops) and engine_emit.c (the
 * result object). Not part of any public API. */
#ifndef HR_REPLAY_ENGINE_INT_H
#define HR_REPLAY_ENGINE_INT_H

#include "replay/engine.h"
#include "replay/latency.h"
#include "replay/series.h"
#include "trace/packed.h"

#define HR_HEAP_DEPTH 64

/* One id's block: pointer and requested size side by side, so a free touches
 * one cache line of the slot table, not two. */
typedef struct hr_slot {
    void    *p;
    uint64_t size;
} hr_slot_t;

/* The trace's heap stack, apart from run_t so that run_t holds only scalars
 * and pointers: a local copy of it then lives in registers in the op loop. */
typedef struct heapstack {
    int32_t heaps[HR_HEAP_DEPTH];
    int     n;
} heapstack_t;

typedef struct hr_access_state hr_access_state_t; /* engine_access.h */

/* A time process's copy of a decoded trace's memory ops for the lean lap
 * (engine.c, hr_run_lap_timed): made by the first lap that may use it,
 * released by hr_lean_free. tried: the copy was considered (ev NULL: none). */
typedef struct hr_lean {
    hr_event_t *ev;
    size_t      n, bytes;
    int         tried;
} hr_lean_t;
void hr_lean_free(hr_lean_t *l);

typedef struct run {
    /* hot fields first: copied from the backend so the op loop does one
     * indirect call per op and no double indirection */
    void *(*alloc)(void *self, size_t size, size_t align, int32_t heap);
    void  (*free)(void *self, void *ptr, size_t size);
    /* the rarer hooks, cached too (NULL when the backend has none) */
    void *(*realloc)(void *self, void *ptr, size_t old_size, size_t new_size, int32_t heap);
    void  (*frame)(void *self, uint64_t n);
    void  (*heap_push)(void *self, uint32_t heap, const char *name);
    void  (*heap_pop)(void *self, uint32_t heap, const char *name);
    int32_t             top;      /* heap on top of the trace's heap stack, -1 none */
    const hr_trace_t   *t;
    const hr_backend_t *be;
    void               *inst;
    hr_slot_t          *slots;    /* n_ids: live pointer + requested size, one line */
    heapstack_t        *hs;
    hr_touch_t          touch;
    uint64_t            touch_cap; /* 0: every byte the policy would touch */
    uint64_t            pend;     /* --touch recorded: 1 + the bytes of a `touched`
                                   * record for the next block made; 0: none */
    hr_access_t         access;   /* the access model (access.h) */
    hr_access_state_t  *acc;      /* its ring and generator (harness memory) when on */
    int                 libc;     /* call malloc/free directly (hr_sys_is_plain);
                                   * set only in engine.c's throughput loop */
    uint64_t            failed;   /* allocations that returned NULL */
    uint64_t            first_failed;
    uint64_t            empty_frees; /* free/realloc of an id with no block: its
                                      * alloc failed or (threads) did not run first */
    size_t              i;        /* current event index */
    hr_lean_t          *lean;     /* time laps: where the lean lap's events are
                                   * kept (NULL: every lap walks every event) */
    const hr_event_t   *win;      /* the events being replayed start here ... */
    uint64_t            win_base; /* ... at this trace index (hr_evwin_t) */
} run_t;

typedef struct measure {
    hr_latency_t lat;
    uint64_t     cyc[HR_OP__COUNT], cnt[HR_OP__COUNT];
    uint64_t     frame_cyc, worst_frame_cyc, worst_frame_index, frames;
    uint64_t     raw_frame_cyc, raw_worst_frame_cyc, raw_max_cyc; /* stalls included */
    uint64_t     op_cyc;       /* every op but the stalled ones */
    uint64_t     lap_wall_ns;  /* the whole instrumented lap, sampling included */
    uint64_t     stall_ops, stall_frames, stall_cyc;
    uint64_t     stall_thr_cyc;    /* ops longer than this are checked */
    uint64_t     switches;         /* context switches at the last check */
    int          frame_stalled;    /* the current frame holds a stalled op */
    uint64_t     live, peak_live, fp, peak_fp, fp_at_peak_live, live_at_peak_fp;
    int64_t      slop, slop_at_peak_live;
    uint64_t     rss_base, peak_rss;
    int          ext_ok;       /* the allocator reports a footprint */
    uint64_t     next_sample_cyc;  /* external: next time-driven sample */
    uint64_t     min_gap_cyc;      /* external: least cycles between samples (cost bound) */
    uint64_t     last_sample_cyc;
    uint64_t     next_live_sample; /* external: also sample when live passes it */
    uint64_t     samples;
    uint64_t     budget_fail_at;
    uint64_t     budget_fail_frame; /* the number of the play frame holding the failing op
                                     * (its closing frame op's NUM; after the last frame
                                     * op: that op's NUM + 1) */
    int          budget_frame_open; /* budget_fail_frame waits for the next frame op */
    int32_t      budget_fail_heap;  /* top of the heap stack then, -1 none */
    int          have_budget_fail;
    uint64_t     cur_frame;    /* frame marks before the current op */
    uint64_t     failed, first_failed; /* allocations that returned NULL */
    /* The load: the events before the first frame op (docs/METRICS.md,
     * "Frames and the load"), its allocator time (with the first frame op's
     * own) and its peaks; load_done once the first frame op ran. */
    int          load_done;
    uint64_t     load_events, load_allocs, load_bytes, load_cyc, load_peak_live, load_peak_fp;
    uint64_t     last_frame_num; /* NUM of the last frame op */
    /* Series (series.h): fixed-size, inside this harness-memory struct, so
     * recording them allocates nothing. rss: the last sample above the
     * baseline; sampled: RSS is sampled (external and RSS-footprint rows). */
    uint64_t     rss;
    int          rss_sampled;
    hr_spoint_t  pending;      /* the last event's point, not yet added */
    int          pending_set;
    unsigned     pending_nch;  /* channels that may have changed (series.h) */
    uint64_t     point_samples; /* external samples at the previous point */
    hr_mseries_t mem;          /* live, footprint[, rss] per event */
    hr_fseries_t frame_series; /* allocator cycles per frame (stalls left out) */
    hr_fseries_t alloc_series; /* blocks made per frame (the trace's own) */
    uint64_t     frame_allocs; /* blocks made in the current frame */
} measure_t;

/* The time mode's laps (thread CPU and wall ns). */
typedef struct laps {
    uint64_t cold_wall, cold_cpu;
    uint64_t warm_wall, warm_cpu; /* the median warm lap */
    uint64_t n_warm;
} laps_t;

/* The count mode's figures. */
typedef struct count {
    const char *source;     /* "perf" or "callgrind" */
    uint64_t    calls;      /* allocator calls counted */
    uint64_t    insns;      /* perf: instructions in them; callgrind: read by the parent */
    int         have_insns;
    uint64_t    faults, major_faults; /* page faults of the lap (replay/kcount.h) */
} count_t;

/* One replay thread's figures: one lap's, or summed over the warm laps. */
typedef struct tstat {
    uint64_t cpu_ns;   /* thread CPU time of its stream */
    uint64_t spin_ns;  /* wall time spent spinning (and yielding) on dependencies */
    /* This thread's CPU time in those spins, not allocator work: what its CPU
     * figure leaves out. Not spin_ns: with more threads than cores a spinning
     * thread yields and the wall time it waits is mostly the other threads'
     * (git pack-objects' 3 threads on one core: spin_ns 43 ms in a lap of
     * 32 ms wall, and the warm CPU figure came out 0). */
    uint64_t spin_cpu_ns;
    uint64_t sleep_ns; /* spent asleep on dependencies */
    uint64_t waits;    /* events that found their dependency not yet met */
    uint64_t empty_frees, failed; /* run_t's, for this stream */
    uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC around its stream (one lap) */
} tstat_t;

/* A thread's allocator work: its CPU time less the CPU it spent spinning on
 * dependencies (the lap's CPU figure sums it over the threads; the report's
 * per-thread figure is it per op). */
static inline uint64_t hr_tstat_work_ns(const tstat_t *s) {
    return s->cpu_ns > s->spin_cpu_ns ? s->cpu_ns - s->spin_cpu_ns : 0;
}

/* The threaded time mode's figures beside laps_t (threads.c). */
typedef struct thr_result {
    uint32_t n;            /* recorded threads = replay threads */
    uint64_t cold_wall;    /* the cold lap: first start to last end */
    uint64_t cross_frees;  /* from the schedule */
    uint32_t locked;       /* in-house instances that took a lock */
    double   pace;
    tstat_t  cold_sum;     /* the cold lap, summed over the threads */
    tstat_t *warm;         /* per thread, summed over the warm laps (n_warm) */
    uint64_t n_warm;
    const struct hr_sched *sched;
} thr_result_t;

/* What a replay's instances are made from: the parsed spec (its backend,
 * options, parts) and, for a composition, the trace's routing plan, made
 * once per replay (compose.c) and shared by every instance. */
typedef struct hr_run_alloc {
    const hr_alloc_spec_t       *spec;
    const struct hr_route_plan  *plan; /* compositions only, else NULL */
} hr_run_alloc_t;

typedef struct result {
    const hr_trace_t           *t;
    const char                 *trace_name, *digest, *spec; /* spec: its text */
    const hr_backend_t         *be;
    const hr_run_alloc_t       *alloc;
    const hr_extstats_t        *ext;
    const hr_replay_options_t  *opt;
    const measure_t            *m;     /* measure mode; NULL otherwise */
    const laps_t               *laps;  /* time mode; NULL otherwise */
    const struct hr_verify     *verify; /* verify mode; NULL otherwise */
    const count_t              *count; /* count mode; NULL otherwise */
    const thr_result_t         *thr;   /* threaded time mode; NULL otherwise */
    run_t                      *r;     /* open instance at the end of the trace, or NULL */
    const struct hr_paced_result *paced; /* measure mode: its memory lap (paced.h) */
} result_t;

/* Writes the whole result object (status ok). */
void hr_result_emit(const result_t *res, hr_emit_t *em);
/* engine_series.c: the "series" object of a measured result (res->m). */
void hr_series_emit(const result_t *res, hr_emit_t *em);
/* Writes a result object whose status is not ok, with a one-line message. */
void hr_result_emit_error(const result_t *res, hr_emit_t *em, const char *status, const char *msg);

/* engine.c: instance lifetime and the op switch, shared with the measure
 * pass (engine_measure.c). */
/* A fresh instance of a->spec->be configured for `t` (the spec's options or
 * parts and plan, heap names, largest alignment), or NULL with err set. */
void *hr_run_create(const hr_trace_t *t, const hr_run_alloc_t *a,
                    const hr_replay_options_t *opt, hr_error_t *err);
int hr_run_open(run_t *r, const hr_trace_t *t, const hr_run_alloc_t *a,
                const hr_replay_options_t *opt, hr_error_t *err);
/* r->be and the backend's calls copied into r (the op loops read them
 * there), no heap on top: what every run starts with, hr_run_open's and a
 * threaded replay's streams'. */
void hr_run_bind(run_t *r, const hr_backend_t *be);
/* Makes r call the backend's timed alloc, free and realloc where it has
 * them (backend.h): for the timed laps and the count lap, whose results
 * report no stats of the instance (the measure and verify laps keep the
 * counted entries). */
void hr_run_use_timed(run_t *r);
/* Frees what the trace left live (not timed); destroys the instance when
 * `destroy`; releases the slot table. */
void hr_run_close(run_t *r, int destroy);
void hr_run_dispatch(run_t *r, const hr_event_t *ev);
/* The touch policy on [from, to) of a block (engine.c). */
void hr_run_touch_made(run_t *r, void *p, uint64_t from, uint64_t to, int zeroed);
/* The access model around one op (engine_access.h), for the slow laps. */
void hr_run_access_before(run_t *r, const hr_event_t *ev);
void hr_run_access_after(run_t *r, const hr_event_t *ev);

/* engine_slow.c: the untimed laps. The verify lap stops at the first
 * violation (returning -1; what is live is then abandoned, not freed
 * through the broken allocator), else frees (and checks) what the trace
 * leaves live and returns 0; the count lap returns the allocator calls it
 * made through the counted wrappers. */
struct hr_verify;
int hr_verify_lap(run_t *r, struct hr_verify *v);
uint64_t hr_count_lap(run_t *r);

/* threads.c: the threaded time mode's laps (laps_t as time_laps fills it,
 * with the summed CPU of every thread less its spinning). `tr->warm` is
 * harness memory released by hr_threads_done. */
int hr_threads_laps(const hr_trace_t *t, const hr_run_alloc_t *a,
                    const hr_replay_options_t *opt, laps_t *laps, thr_result_t *tr,
                    hr_error_t *err);
void hr_threads_done(thr_result_t *tr);

/* threads.c: a dependency wait spins `spins` pauses, then yields `yields`
 * times, then sleeps (default 2000, 16; tests use 0, 0 to reach the sleep). */
void hr_threads_set_wait_policy(uint32_t spins, uint32_t yields);

/* compose.c: the routing plan of a composition's parts on trace t
 * (backends/compose.h; text names it in messages), harness memory released
 * by hr_compose_plan_free (NULL: nothing); or NULL with err set. */
const struct hr_route_plan *hr_compose_plan_new(const hr_trace_t *t, const hr_compose_spec_t *sp,
                                                const char *text, hr_error_t *err);
void hr_compose_plan_free(const struct hr_route_plan *plan);

/* The events of a trace a window at a time: the whole array of a decoded
 * trace in one window, or up to HR_EVWIN events of a packed one
 * (trace/packed.h) decoded into harness memory (a buffer kept for the
 * process; a second window open at the same time gets its own). next: 1 with
 * ev, n and base (the trace index of ev[0]) set, 0 after the last event (or
 * on a damaged packed buffer, which hr_trace_map's writer never produces).
 * The threaded scheduler (sched.c) reads them too, to cut per-thread
 * streams. 4 k events (96 KiB decoded): small enough to stay in the cache
 * beside the allocator's data between two timed stretches (engine.c,
 * hr_run_lap_timed). */
#define HR_EVWIN 4096
typedef struct hr_evwin {
    const hr_trace_t *t;
    hr_unpack_t       up;
    hr_event_t       *buf;   /* packed: HR_EVWIN events, harness memory */
    uint64_t         *tsbuf; /* packed, opened with timestamps: HR_EVWIN of them */
    int               own;   /* buf is this window's own, freed by close */
    int               done;
    const hr_event_t *ev;
    const uint64_t   *ts;    /* the window's timestamps (open_ts, when the trace has them) */
    size_t            n;
    uint64_t          base;
} hr_evwin_t;
int hr_evwin_open(hr_evwin_t *w, const hr_trace_t *t, hr_error_t *err);
/* The same with each window's timestamps in ts (NULL when the trace has none). */
int hr_evwin_open_ts(hr_evwin_t *w, const hr_trace_t *t, hr_error_t *err);
/* Whether t carries timestamps (decoded: its ts array; packed: in the records). */
static inline int hr_trace_has_ts(const hr_trace_t *t) {
    return t->ts != NULL || (t->packed && (t->flags & HR_TRACEF_TIMESTAMPS));
}
int hr_evwin_next(hr_evwin_t *w);
void hr_evwin_close(hr_evwin_t *w);
/* Event i of t, decoded or packed (for messages: a packed trace is decoded
 * from its start). 0, or -1 when there is no such event. */
int hr_trace_event_at(const hr_trace_t *t, uint64_t i, hr_event_t *ev);

/* engine.c: the uninstrumented lap (time mode) and the instrumented one.
 * One lap with its op loop timed (wall and thread-CPU ns): a packed trace's
 * windows are decoded between the timed stretches, outside the timing. */
void hr_run_lap_timed(run_t *r, uint64_t *wall, uint64_t *cpu);
/* Reads every event once, outside any timing, before a cold lap: a program
 * that starts replaying has its events in cache as it just loaded them (the
 * fresh reference program's validation walk does the same). Without it the
 * cold lap also paid the harness's own first read of the event array from
 * memory: +0.5-1.5 ns/op on the 98 k-event particles trace, up to 1.19x the
 * fresh program's cold figure (results/fresh-agreement.md). */
void hr_events_prewalk(const hr_trace_t *t);
void hr_events_prewalk_range(const hr_event_t *ev, size_t n);
/* The same loop over [from, to) (threads.c: the stretches between synced
 * events of a stream). */
void hr_run_range(run_t *r, const hr_event_t *from, const hr_event_t *to);
void hr_measure_pass(run_t *r, measure_t *m, const hr_extstats_t *ext,
                     const hr_replay_options_t *opt);

/* engine_measure.c: the instrumented lap's bookkeeping, all outside the
 * timed region of each op. */
void hr_measure_begin(measure_t *m, run_t *r, const hr_extstats_t *ext,
                      const hr_replay_options_t *opt);
int64_t hr_measure_live_delta(const run_t *r, const hr_event_t *ev);
/* Slop around one op: sign -1 before it (blocks it removes), +1 after. */
void hr_measure_slop(measure_t *m, const run_t *r, const hr_event_t *ev, int sign);
/* One op took d cycles: latency, per-op time, frames, stalls. */
void hr_measure_op(measure_t *m, const hr_event_t *ev, uint64_t d);
/* Memory after an op; `now` is the cycle counter after it. */
void hr_measure_track(measure_t *m, const run_t *r, const hr_extstats_t *ext,
                      const hr_replay_options_t *opt, uint64_t now);
void hr_measure_end(measure_t *m, run_t *r, const hr_extstats_t *ext,
                    const hr_replay_options_t *opt);

#endif
