/* Internals of the synthetic trace generator (src/trace/gen*.c).
 *
 * gen_t owns the output trace, the random streams, the dense id allocator and
 * the per-id bookkeeping. Scenario code only calls the hr_gen_* emitters
 * below, so every trace is valid by construction (hr_gen still validates at
 * the end).
 *
 * Three independent xoshiro256** streams keep options orthogonal: `rng` drives
 * the events, `trng` the thread choice and `tsrng` the timestamps, so turning
 * timestamps or threads on never changes which events are generated. The
 * exception is the threaded scenarios (gen_threads.c): there the thread count
 * is the structure, drawn from `rng` (they never call hr_gen_thread). */
#ifndef HR_TRACE_GEN_INT_H
#define HR_TRACE_GEN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/gen.h"
#include "trace/trace.h"

typedef struct gen_rng {
    uint64_t s[4];
} gen_rng_t;

uint64_t hr_gen_rng_next(gen_rng_t *r);

/* Uniform in [0, n) (n < 2^32; multiply-shift, bias below 2^-32). */
static inline uint32_t gen_below(gen_rng_t *r, uint32_t n) {
    return (uint32_t)(((hr_gen_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}
/* Uniform in [lo, hi]. */
static inline uint64_t gen_range(gen_rng_t *r, uint64_t lo, uint64_t hi) {
    return lo + hr_gen_rng_next(r) % (hi - lo + 1);
}
/* 1 with probability num/den. */
static inline int gen_chance(gen_rng_t *r, uint32_t num, uint32_t den) {
    return gen_below(r, den) < num;
}
/* Log-uniform integer in [lo, hi] (integer-only: power-of-two octave, then
 * uniform inside it), so small sizes are as common as large ones per octave. */
uint64_t hr_gen_logsize(gen_rng_t *r, uint64_t lo, uint64_t hi);

/* A growable array of ids (or any uint32). Failures set *oom. */
typedef struct gen_vec {
    uint32_t *v;
    size_t    n, cap;
} gen_vec_t;
void hr_gen_vec_push(gen_vec_t *vec, uint32_t x, int *oom);
static inline uint32_t gen_vec_take(gen_vec_t *vec, size_t i) { /* swap-remove */
    uint32_t x = vec->v[i];
    vec->v[i] = vec->v[--vec->n];
    return x;
}
void hr_gen_vec_free(gen_vec_t *vec);

#define GEN_HEAP_DEPTH 16
/* Events per chunk when streaming (hr_gen_write): 1.5 MiB of events. */
#define GEN_CHUNK 65536

typedef struct gen {
    hr_trace_t *t;
    gen_rng_t   rng, trng, tsrng;
    uint64_t    target;     /* requested events */
    uint32_t    threads, rr;
    int         timestamps;
    uint64_t    now;        /* ns, when timestamps */
    uint64_t    last_frame; /* `now` at the last frame event */
    uint64_t    frame_no;
    int         oom;
    /* dense ids: a LIFO stack of freed ids, reused most-recent first */
    gen_vec_t   free_ids;
    uint32_t    next_id, cap_ids;
    uint64_t   *size;       /* requested bytes per live id */
    uint16_t   *thr;        /* thread that allocated the id */
    uint64_t    n_live;
    /* heap stack (names as string indexes) so pops always match */
    uint32_t    heap[GEN_HEAP_DEPTH];
    int         depth;
    uint16_t    small_type[48]; /* a per-seed table of small struct sizes */
    /* Streaming (hr_gen_write): t holds at most `chunk` events; when full,
     * sink() takes them (0, or -1 to stop: sets oom's twin `failed`) and t is
     * emptied. `done` counts the events handed over so far. */
    int       (*sink)(struct gen *g);
    void       *sink_ctx;
    uint64_t    done;
    size_t      chunk;
    int         failed;
} gen_t;

/* Events generated so far (handed to the sink or still in t). */
static inline uint64_t hr_gen_n(const gen_t *g) { return g->done + g->t->n_events; }

/* A thread for a new object or job: 0..threads-1 round robin for the first
 * `threads` calls (every thread id appears), then random. */
uint16_t hr_gen_thread(gen_t *g);

uint32_t hr_gen_alloc(gen_t *g, uint64_t size, uint32_t align, uint16_t thread);
uint32_t hr_gen_calloc(gen_t *g, uint32_t n, uint64_t esize, uint16_t thread);
void     hr_gen_realloc(gen_t *g, uint32_t id, uint64_t size); /* keeps the id */
void     hr_gen_free(gen_t *g, uint32_t id, int with_size); /* on the allocating thread */
/* Free on any thread (a cross-thread free when `thread` != the allocator's). */
void     hr_gen_free_on(gen_t *g, uint32_t id, uint16_t thread, int with_size);
void     hr_gen_push(gen_t *g, const char *heap);
void     hr_gen_pop(gen_t *g); /* pops the top heap */
void     hr_gen_mark(gen_t *g, const char *name);
void     hr_gen_frame(gen_t *g); /* frame(frame_no++); time idles to >= 1/60 s after the last */
void     hr_gen_wait(gen_t *g, uint64_t ns); /* extra time before the next event (I/O) */

/* Budget: 1 while events so far + one free per live object + reserve stay
 * below the target, i.e. while there is room to keep going and still end clean. */
static inline int hr_gen_more(const gen_t *g, uint64_t reserve) {
    return hr_gen_n(g) + g->n_live + reserve < g->target;
}
/* A small-object size (16..256 B) from the per-seed struct table (skewed). */
uint64_t hr_gen_small(gen_t *g);

/* ---- reusable building blocks (gen_play.c) ------------------------------ */

/* One physics solver job: strictly LIFO temporaries on one thread; `big`
 * makes the live stack exceed 100 KiB (Box2D's stack allocator size). */
void hr_gen_frame_job(gen_t *g, int big);

typedef struct gen_particles {
    gen_vec_t live;
    uint32_t  target_pop;
} gen_particles_t;
void hr_gen_particles_step(gen_t *g, gen_particles_t *p); /* one frame's spawns/deaths */
void hr_gen_particles_clear(gen_t *g, gen_particles_t *p); /* frees all, random order */

typedef struct gen_strings {
    gen_vec_t live;    /* finished objects, freed in random order */
    gen_vec_t growing; /* pairs (id, steps left | mode << 31) */
    uint32_t  target_pop;
} gen_strings_t;
void hr_gen_strings_step(gen_t *g, gen_strings_t *s); /* one operation */
void hr_gen_strings_clear(gen_t *g, gen_strings_t *s);

/* Scenarios. */
void hr_gen_scn_level_load(gen_t *g);
void hr_gen_scn_frame_loop(gen_t *g);
void hr_gen_scn_particles(gen_t *g);
void hr_gen_scn_strings(gen_t *g);
void hr_gen_scn_session(gen_t *g);
/* Threaded scenarios (gen_threads.c): --threads sets their roles. */
void hr_gen_scn_jobs(gen_t *g);
void hr_gen_scn_stream(gen_t *g);
void hr_gen_scn_queue(gen_t *g);

#endif
