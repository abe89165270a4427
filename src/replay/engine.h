/* The replay engine: runs one trace against one backend instance, in the
 * current process, and emits one result object (docs/REPORT_SCHEMA.md).
 *
 * A replay is two passes over the same decoded events:
 *  1. the measurement pass times every op with the cycle counter (latency
 *     histogram, ns/op per op type, worst frame) and tracks memory after every
 *     op: live requested bytes, the backend's exact footprint (in-house) or a
 *     sample of allocator stats and RSS every HR_SAMPLE_EVERY ops and at each
 *     frame mark (external allocators), internal slop;
 *  2. the throughput pass replays the trace with no per-op instrumentation
 *     and gives wall/CPU time and ops/s.
 * Neither loop hashes or allocates: ids index a flat slot array. The trace is
 * validated before (hr_trace_validate), so the loops need no lifetime checks.
 */
#ifndef HR_REPLAY_ENGINE_H
#define HR_REPLAY_ENGINE_H

#include <stdint.h>

#include "backends/backend.h"
#include "backends/extstats.h"
#include "heapreplay/trace.h"
#include "base/emit.h"

#define HR_SAMPLE_EVERY 1024

typedef enum hr_touch { HR_TOUCH_NONE = 0, HR_TOUCH_FIRST, HR_TOUCH_ALL } hr_touch_t;

typedef struct hr_replay_options {
    hr_touch_t  touch;        /* what the replay writes into each new block */
    uint64_t    budget;       /* 0 = none; else first op whose footprint exceeds it */
    double      timeout_s;    /* per child process */
    int         repeat;       /* child processes per (trace, allocator) */
    int         passes;       /* throughput passes per child (best is kept) */
    const char *heap_config;  /* routed heap config file, or NULL */
    const char *library;      /* worker: file that provides malloc (dladdr) */
} hr_replay_options_t;

hr_replay_options_t hr_replay_options_default(void);
const char *hr_touch_name(hr_touch_t t);
int hr_touch_parse(const char *s, hr_touch_t *out);


/* Replays `t` on a fresh instance of `be` and writes the result object (no
 * surrounding document) to `em`. `ext` is NULL for in-house backends.
 * Returns 0, or -1 if the backend could not be created (an "error" result is
 * still written). */
int hr_replay_one(const hr_trace_t *t, const char *trace_name, const char *digest,
                  const hr_backend_t *be, const char *spec, const hr_extstats_t *ext,
                  const hr_replay_options_t *opt, hr_emit_t *em);

/* Opens a result object and writes the fields every result has: trace,
 * trace_digest, allocator, status, runs (1), touch, and library when known.
 * Also used for results made without a replay (crash, timeout, refusal). */
void hr_result_head(hr_emit_t *em, const char *trace, const char *digest, const char *spec,
                    const char *status, const hr_replay_options_t *opt);

/* Only the throughput pass, in this process (benchmarks): wall ns of the
 * fastest of opt->passes replays. */
int hr_replay_time(const hr_trace_t *t, const hr_backend_t *be, const char *spec,
                   const hr_replay_options_t *opt, uint64_t *wall_ns);

#endif
