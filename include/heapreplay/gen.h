/* heapreplay — seeded, deterministic synthetic game-like traces (public API).
 *
 * hr_gen() builds an in-memory trace that looks like a game engine's
 * allocation stream. The same options (scenario, seed, events, timestamps,
 * threads) always produce a byte-identical trace; the thread and timestamp
 * options draw from their own random streams, so they change only the
 * `thread` field and the timestamps, never the events themselves.
 *
 * Scenarios (see hr_gen_describe() and docs in src/trace/gen.c):
 *   level_load  persistent boot objects + level loads/unloads over named heaps
 *               (the boot objects in Persistent/AudioPersistent/Music/Debug/
 *               Special stay alive at the end: the only non-clean trace)
 *   frame_loop  per-frame strictly LIFO solver temporaries + a few long-lived
 *   particles   fixed-size (32/48/64/96/128 B) spawn/death churn; its frees
 *               carry the size (the optional field), other scenarios' do not
 *   strings     realloc growth (realloc keeps the id: realloc(i, i, size)),
 *               calloc'd arrays, aligned allocations (16..4096)
 *   session     level 1 load, play frames, streaming, unload, level 2, ...
 */
#ifndef HEAPREPLAY_GEN_H
#define HEAPREPLAY_GEN_H

#include <stdint.h>

#include "heapreplay/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HR_GEN_MIN_EVENTS  1000ull
#define HR_GEN_MAX_EVENTS  2000000000ull
#define HR_GEN_MAX_THREADS 64u

typedef struct hr_gen_options {
    const char *scenario;   /* "level_load", "frame_loop", "particles", "strings", "session" */
    uint64_t    seed;       /* same seed + options => byte-identical trace */
    uint64_t    events;     /* approximate target number of events (>= 1000), met within 10% */
    int         timestamps; /* 1: synthetic monotonically increasing ns timestamps */
    uint32_t    threads;    /* 1..HR_GEN_MAX_THREADS: events spread over this many thread ids;
                             * an object is freed on the thread that allocated it; heap
                             * push/pop, frame and mark events are on thread 0 */
} hr_gen_options_t;

/* session, seed 1, 100000 events, no timestamps, 1 thread */
hr_gen_options_t hr_gen_default(void);

/* Generates into `out`, which is (re)initialised first: pass an empty or fresh
 * trace. The result has been checked with hr_trace_validate (n_ids, n_threads,
 * peak_live and op_counts are filled). Returns 0, or -1 with a one-line
 * message in err (unknown scenario, bad options, out of memory); `out` is
 * then empty. */
int hr_gen(const hr_gen_options_t *opt, hr_trace_t *out, hr_error_t *err);

/* NULL-terminated list of scenario names. */
const char *const *hr_gen_scenarios(void);

/* One line describing a scenario (for `heapreplay gen --list`); NULL if unknown. */
const char *hr_gen_describe(const char *scenario);

#ifdef __cplusplus
}
#endif
#endif
