/* The replay engine: runs one trace against one backend instance, in the
 * current process, and emits one result object (docs/REPORT_SCHEMA.md).
 *
 * Every sample of a (trace, allocator) pair is made of fresh processes, one
 * per mode (child.c starts them; the report builder joins their objects):
 *  - HR_MODE_TIME: the cold lap (the first replay of the trace in a fresh
 *    process: what a level load or a short tool run sees), then warm laps
 *    (the trace again, on a fresh instance each time, until warmstop.h says
 *    stop: the median lap known closely enough, or opt->warm_time_s has
 *    passed: a game's steady state). No per-op instrumentation: wall and
 *    thread-CPU time per lap; CPU time is the ranking figure.
 *  - HR_MODE_MEASURE: one instrumented lap in a fresh process: every op timed
 *    with the cycle counter (latency histogram, ns/op per op type, worst
 *    frame), ops during which the thread was switched out counted as stalls
 *    and kept out of those figures, memory tracked after every op: live
 *    requested bytes, the backend's exact footprint (in-house) or allocator
 *    statistics and RSS sampled at bounded intervals of time (external).
 *  - HR_MODE_VERIFY: one untimed lap that checks every pointer returned
 *    (alignment, overlap with live blocks, content): replay/verify.h.
 *  - HR_MODE_COUNT: one lap whose allocator calls go through the counted
 *    wrappers (replay/counter.h): a deterministic instruction count.
 * Nothing the harness needs (slot table, measurement state, verify
 * structures) comes from malloc: base/hmem.h says why.
 * The loops neither hash nor allocate: ids index a flat slot array. The trace
 * is validated before (hr_trace_validate), so they need no lifetime checks.
 */
#ifndef HR_REPLAY_ENGINE_H
#define HR_REPLAY_ENGINE_H

#include <stdint.h>

#include "backends/backend.h"
#include "backends/extstats.h"
#include "backends/spec.h"
#include "trace/trace.h"
#include "base/emit.h"
#include "replay/access.h"

/* External allocators: allocator statistics (which may walk the heap) are
 * read at most this often, and never more often than keeps their cost under
 * 1/HR_SAMPLE_COST_SHARE of the lap. */
#define HR_SAMPLE_INTERVAL_US 1000
#define HR_SAMPLE_COST_SHARE  8

/* recorded: as first, but a block with a `touched` record (trace.h) gets the
 * bytes the program used, measured at capture. */
typedef enum hr_touch { HR_TOUCH_NONE = 0, HR_TOUCH_FIRST, HR_TOUCH_ALL, HR_TOUCH_RECORDED } hr_touch_t;

typedef enum hr_replay_mode {
    HR_MODE_MEASURE = 0,
    HR_MODE_TIME,
    HR_MODE_VERIFY,
    HR_MODE_COUNT,
    HR_MODE__COUNT
} hr_replay_mode_t;

/* How the timed laps run a trace recorded on several threads (sched.h). */
typedef enum hr_threads_mode {
    HR_THREADS_AUTO = 0, /* recorded when the trace has more than one thread */
    HR_THREADS_RECORDED, /* one OS thread per recorded thread */
    HR_THREADS_SERIAL,   /* every event on one thread, in trace order */
} hr_threads_mode_t;

/* How the replay processes hold a trace's events (--event-form): decoded
 * (hr_event_t, 24 bytes each, 32 with a timestamp), or packed (trace/packed.h,
 * ~4 bytes, decoded in windows of 4 k events outside the timed stretches;
 * a threaded replay's scheduler cuts its per-thread streams from them); auto
 * packs a plain binary file of at least HR_FORM_AUTO_EVENTS events. Traces
 * with pools (lowered by the parent) are always decoded. */
typedef enum hr_event_form {
    HR_FORM_AUTO,
    HR_FORM_DECODED,
    HR_FORM_PACKED,
} hr_event_form_t;
#define HR_FORM_AUTO_EVENTS ((uint64_t)4 << 20)
const char *hr_event_form_name(hr_event_form_t f);
int hr_event_form_parse(const char *s, hr_event_form_t *out);

typedef struct hr_replay_options {
    hr_touch_t  touch;        /* what the replay writes into each new block */
    uint64_t    touch_cap;    /* first/all: only a block's first touch_cap bytes (0 = all) */
    hr_access_t access;       /* the program's use of its blocks between ops (access.h) */
    uint64_t    budget;       /* 0 = none; else first op whose footprint exceeds it */
    double      timeout_s;    /* per child process */
    uint64_t    mem_limit;    /* per child process, anonymous RSS bytes: 0 = the
                               * default for the trace, HR_MEM_LIMIT_NONE = none
                               * (replay/memlimit.h) */
    int         repeat;       /* samples per (trace, allocator) */
    double      warm_time_s;  /* warm_stop 0: warm laps run until this much wall time
                               * (>= 1 lap); else the stopping rule's cap (warmstop.h) */
    double      warm_stop;    /* stop once the median lap is known to +-this fraction
                               * (warmstop.h); 0: the fixed budget warm_time_s */
    double      stall_us;     /* ops slower than this are checked for a context switch */
    int         verify;       /* add a verify process per (trace, allocator) */
    int         count;        /* hr_count_mode_t: add a counting process (0: none) */
    int         threads;      /* hr_threads_mode_t (time mode) */
    int         event_form;   /* hr_event_form_t: how the parent shares the events */
    double      pace;         /* 0: no pacing; else wait for each event's recorded
                               * time since the first, times this factor */
    int         memory_lap;   /* hr_memory_lap_t (replay/paced.h): the lap whose peak
                               * RSS a measured row reports */
    const char *heap_config;  /* routed heap config file, or NULL */
    const char *library;      /* worker: file that provides malloc (dladdr) */
    hr_replay_mode_t mode;    /* what this process does */
} hr_replay_options_t;

/* --memory-lap: which lap gives the RSS figures of a measured row
 * (replay/paced.h, docs/METRICS.md "Memory lap: paced or fast"). */
typedef enum hr_memory_lap {
    HR_MEMLAP_AUTO = 0, /* paced when the trace has timestamps and its
                         * compressed duration is <= HR_PACED_AUTO_MAX_S, for the C library and external allocators */
    HR_MEMLAP_FAST,     /* the measure lap (back to back) */
    HR_MEMLAP_PACED,    /* paced whenever the trace has timestamps */
} hr_memory_lap_t;
const char *hr_memory_lap_name(hr_memory_lap_t m);
/* "auto", "fast" or "paced"; 0, or -1 for anything else. */
int hr_memory_lap_parse(const char *s, hr_memory_lap_t *out);

hr_replay_options_t hr_replay_options_default(void);
const char *hr_touch_name(hr_touch_t t);
/* "none", "first" or "all", the last two optionally ":SIZE" (bytes, or with
 * a K, M or G suffix; > 0): touch only the first SIZE bytes of each block. */
int hr_touch_parse(const char *s, hr_touch_t *out, uint64_t *cap);
/* The policy as hr_touch_parse reads it ("first", "first:64K"), in buf. */
const char *hr_touch_spec(hr_touch_t t, uint64_t cap, char *buf, size_t n);
const char *hr_replay_mode_name(hr_replay_mode_t m);
const char *hr_threads_mode_name(hr_threads_mode_t m);
int hr_threads_mode_parse(const char *s, hr_threads_mode_t *out);
/* 1 when the time mode of `t` under `opt` runs one OS thread per recorded thread. */
int hr_threads_on(const hr_trace_t *t, const hr_replay_options_t *opt);
int hr_replay_mode_parse(const char *s, hr_replay_mode_t *out);

/* Replays `t` on fresh instances of spec->be as opt->mode says and writes
 * the result object (no surrounding document) to `em`; a composition's
 * routing plan is made here, once for every instance. `ext` is NULL for
 * in-house backends. Returns 0, or -1 if the backend could not be created
 * (an "error" result is still written). */
int hr_replay_spec(const hr_trace_t *t, const char *trace_name, const char *digest,
                   const hr_alloc_spec_t *spec, const hr_extstats_t *ext,
                   const hr_replay_options_t *opt, hr_emit_t *em);
/* The same for spec text replayed on `be` (hr_alloc_spec_bind: unit tests
 * and benches pass backends of their own). */
int hr_replay_one(const hr_trace_t *t, const char *trace_name, const char *digest,
                  const hr_backend_t *be, const char *spec, const hr_extstats_t *ext,
                  const hr_replay_options_t *opt, hr_emit_t *em);

/* One uninstrumented lap of `t` on a fresh instance of `be` (spec text as
 * for hr_replay_one; not a composition), in this process
 * (bench/micro/bench_overhead.c): wall ns of the op loop only. 0, or -1 when the
 * backend could not be created. */
int hr_replay_time(const hr_trace_t *t, const hr_backend_t *be, const char *spec,
                   const hr_replay_options_t *opt, uint64_t *wall_ns);

/* Opens a result object and writes the fields every result has: trace,
 * trace_digest, allocator, status, runs (1), touch, and library when known.
 * Also used for results made without a replay (crash, timeout, refusal). */
void hr_result_head(hr_emit_t *em, const char *trace, const char *digest, const char *spec,
                    const char *status, const hr_replay_options_t *opt);

#endif
