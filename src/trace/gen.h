/* heapreplay — seeded, deterministic synthetic game-like traces (public API).
 *
 * hr_gen() builds an in-memory trace that looks like a game engine's
 * allocation stream. The same options (scenario, seed, events, timestamps,
 * threads) always produce a byte-identical trace. The timestamp option draws
 * from its own random stream, so it changes only the timestamps. For the
 * single-threaded scenarios (level_load ... session) --threads only relabels:
 * it changes the `thread` field, never the events, and an object is freed on
 * the thread that allocated it. For the threaded scenarios (jobs, stream,
 * queue; hr_gen_threaded() == 1) --threads is the structure: it sets the
 * roles below, so the events themselves differ with the thread count and
 * objects are freed on other threads (cross-thread frees; none when
 * threads == 1). Every thread index 0..threads-1 appears in every trace, and
 * every trace is valid in trace order (alloc before free, ids reused only
 * after their free; an id may be reused on another thread).
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
 * Threaded (T = threads; workers' events interleave round-robin in chunks of
 * 1-4 events, one plausible concurrent order; frames on thread 0, ~16.7 ms
 * apart with --timestamps; no heap push/pop):
 *   jobs        a job system: thread 0 is the main thread, 1..T-1 workers (T == 1:
 *               all on thread 0). Per frame main allocates one 64-192 B descriptor
 *               per job (freed by main at frame end); each worker runs 2-6 jobs, a
 *               job makes 2-6 blocks of 16-256 B (70% <= 64 B) or 512 B-4 KiB (8%):
 *               3 in 5 are outputs freed by main at the end of this frame or the
 *               next (cross-thread), the rest temporaries the worker frees LIFO.
 *   stream      a streaming thread T-1 (0 when T == 1) loads assets: a 4-63 KiB
 *               read buffer it frees itself, 64 KiB-4 MiB data (log-uniform) and
 *               1-3 64-512 B headers, all freed by thread 0 2-8 frames later
 *               (cross-thread); threads 0 and 1..T-2 churn small blocks of their own.
 *   queue       producers 0..T/2-1, consumers T/2..T-1 (T == 1: thread 0 both;
 *               T == 2: 0 produces, 1 consumes). Messages of 32 B-2 KiB, 1 in 3
 *               grown by reallocs on the producer, are freed by a consumer 4-400
 *               events after they are queued (cross-thread); consumers also
 *               allocate and free LIFO scratch blocks of their own.
 */
#ifndef HEAPREPLAY_GEN_H
#define HEAPREPLAY_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HR_GEN_MIN_EVENTS  1000ull
#define HR_GEN_MAX_EVENTS  2000000000ull
#define HR_GEN_MAX_THREADS 64u

typedef struct hr_gen_options {
    const char *scenario;   /* "level_load", "frame_loop", "particles", "strings", "session",
                             * "jobs", "stream", "queue" */
    uint64_t    seed;       /* same seed + options => byte-identical trace */
    uint64_t    events;     /* approximate target number of events (>= 1000), met within 10% */
    int         timestamps; /* 1: synthetic monotonically increasing ns timestamps */
    uint32_t    threads;    /* 1..HR_GEN_MAX_THREADS: events spread over this many thread ids
                             * (all of them appear). Single-threaded scenarios: an object
                             * is freed on the thread that allocated it. Threaded ones:
                             * the thread roles above. Heap push/pop, frame and mark
                             * events are on thread 0 */
} hr_gen_options_t;

/* session, seed 1, 100000 events, no timestamps, 1 thread */
hr_gen_options_t hr_gen_default(void);

/* Generates into `out`, which is (re)initialised first: pass an empty or fresh
 * trace. The result has been checked with hr_trace_validate (n_ids, n_threads,
 * peak_live and op_counts are filled). Returns 0, or -1 with a one-line
 * message in err (unknown scenario, bad options, out of memory); `out` is
 * then empty. */
int hr_gen(const hr_gen_options_t *opt, hr_trace_t *out, hr_error_t *err);

/* The same trace as hr_gen, written to f in the binary format while it is
 * generated (byte-identical to hr_trace_write_binary of hr_gen's trace):
 * memory follows the live objects, not the event count. The scenario runs
 * twice: a first pass encodes without writing to learn the header and the
 * string table (they precede the records), the second writes; f needs no
 * seek (a pipe will do). info receives the counts (n_events, n_ids,
 * n_threads, peak_live, op_counts) and no events. Returns 0, or -1 with a
 * one-line message in err (f may then hold a partial trace). */
int hr_gen_write(const hr_gen_options_t *opt, FILE *f, hr_trace_t *info, hr_error_t *err);

/* NULL-terminated list of scenario names. */
const char *const *hr_gen_scenarios(void);

/* One line describing a scenario (for `heapreplay gen --list`); NULL if unknown. */
const char *hr_gen_describe(const char *scenario);

/* 1 when --threads shapes the scenario (jobs, stream, queue: roles and
 * cross-thread frees), 0 when it only relabels events, -1 if unknown. */
int hr_gen_threaded(const char *scenario);

#ifdef __cplusplus
}
#endif
#endif
