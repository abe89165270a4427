/* Synthetic trace generator: PRNG, dense ids, event emitters, the scenario
 * table and hr_gen() itself. The scenarios live in gen_level.c (level_load,
 * session), gen_play.c (frame_loop, particles, strings) and gen_threads.c
 * (jobs, stream, queue); see src/trace/gen.h for the contract. */
#include "trace/gen_int.h"

#include "trace/format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- PRNG: splitmix64 seeding, xoshiro256** ------------------------------ */

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void gen_rng_seed(gen_rng_t *r, uint64_t seed) {
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t hr_gen_rng_next(gen_rng_t *r) {
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint64_t hr_gen_logsize(gen_rng_t *r, uint64_t lo, uint64_t hi) {
    int a = 63 - __builtin_clzll(lo), b = 63 - __builtin_clzll(hi);
    int k = a + (int)gen_below(r, (uint32_t)(b - a + 1));
    uint64_t base = 1ull << k, v = base + (hr_gen_rng_next(r) & (base - 1));
    return v < lo ? lo : v > hi ? hi : v;
}

void hr_gen_vec_push(gen_vec_t *vec, uint32_t x, int *oom) {
    if (vec->n == vec->cap) {
        size_t cap = vec->cap ? vec->cap * 2 : 64;
        uint32_t *v = realloc(vec->v, cap * sizeof *v);
        if (!v) {
            *oom = 1;
            return;
        }
        vec->v = v;
        vec->cap = cap;
    }
    vec->v[vec->n++] = x;
}

void hr_gen_vec_free(gen_vec_t *vec) {
    free(vec->v);
    memset(vec, 0, sizeof *vec);
}

/* ---- emitters ----------------------------------------------------------- */

uint16_t hr_gen_thread(gen_t *g) {
    if (g->threads <= 1)
        return 0;
    if (g->rr < g->threads)
        return (uint16_t)g->rr++;
    return (uint16_t)gen_below(&g->trng, g->threads);
}

void hr_gen_wait(gen_t *g, uint64_t ns) {
    if (g->timestamps)
        g->now += ns;
}

/* Hands t's events to the sink and empties t (streaming only). */
static void flush(gen_t *g) {
    if (g->sink(g) != 0) {
        g->failed = 1;
        g->oom = 1; /* stops the scenario as running out of memory does */
    }
    g->done += g->t->n_events;
    g->t->n_events = 0;
}

static void emit(gen_t *g, uint8_t op, uint8_t flags, uint16_t thread, uint32_t id,
                 uint32_t aux, uint32_t align, uint64_t size) {
    hr_event_t ev = {op, flags, thread, id, aux, align, size};
    int rc;
    if (g->timestamps) {
        g->now += 15 + gen_below(&g->tsrng, 120); /* strictly increasing */
        rc = hr_trace_push_ts(g->t, &ev, g->now);
    } else {
        rc = hr_trace_push(g->t, &ev);
    }
    if (rc != 0)
        g->oom = 1;
    else if (g->sink && g->t->n_events == g->chunk && !g->failed)
        flush(g);
}

static uint32_t new_id(gen_t *g) {
    if (g->free_ids.n)
        return g->free_ids.v[--g->free_ids.n];
    if (g->next_id == g->cap_ids) {
        uint32_t cap = g->cap_ids ? g->cap_ids * 2 : 1024;
        uint64_t *s = realloc(g->size, cap * sizeof *s);
        if (s)
            g->size = s;
        uint16_t *t = realloc(g->thr, cap * sizeof *t);
        if (t)
            g->thr = t;
        if (!s || !t) {
            g->oom = 1;
            return 0;
        }
        g->cap_ids = cap;
    }
    return g->next_id++;
}

static uint32_t take_id(gen_t *g, uint64_t bytes, uint16_t thread) {
    uint32_t id = new_id(g);
    if (g->oom)
        return 0;
    g->size[id] = bytes;
    g->thr[id] = thread;
    g->n_live++;
    return id;
}

uint32_t hr_gen_alloc(gen_t *g, uint64_t size, uint32_t align, uint16_t thread) {
    uint32_t id = take_id(g, size, thread);
    emit(g, HR_OP_ALLOC, align ? HR_EVF_HAS_OPT : 0, thread, id, 0, align, size);
    return id;
}

uint32_t hr_gen_calloc(gen_t *g, uint32_t n, uint64_t esize, uint16_t thread) {
    uint32_t id = take_id(g, (uint64_t)n * esize, thread);
    emit(g, HR_OP_CALLOC, 0, thread, id, n, 0, esize);
    return id;
}

void hr_gen_realloc(gen_t *g, uint32_t id, uint64_t size) {
    if (g->oom)
        return;
    g->size[id] = size;
    emit(g, HR_OP_REALLOC, 0, g->thr[id], id, id, 0, size);
}

void hr_gen_free_on(gen_t *g, uint32_t id, uint16_t thread, int with_size) {
    if (g->oom)
        return;
    emit(g, HR_OP_FREE, with_size ? HR_EVF_HAS_OPT : 0, thread, id, 0, 0,
         with_size ? g->size[id] : 0);
    g->n_live--;
    hr_gen_vec_push(&g->free_ids, id, &g->oom);
}

void hr_gen_free(gen_t *g, uint32_t id, int with_size) {
    if (!g->oom)
        hr_gen_free_on(g, id, g->thr[id], with_size);
}

static uint32_t str_index(gen_t *g, const char *name) {
    int64_t i = hr_trace_intern(g->t, name);
    if (i < 0)
        g->oom = 1;
    return i < 0 ? 0 : (uint32_t)i;
}

void hr_gen_push(gen_t *g, const char *heap) {
    uint32_t s = str_index(g, heap);
    if (g->depth < GEN_HEAP_DEPTH)
        g->heap[g->depth] = s;
    g->depth++;
    emit(g, HR_OP_HEAP_PUSH, 0, 0, 0, s, 0, 0);
}

void hr_gen_pop(gen_t *g) {
    if (g->depth <= 0)
        return;
    g->depth--;
    emit(g, HR_OP_HEAP_POP, 0, 0, 0, g->heap[g->depth < GEN_HEAP_DEPTH ? g->depth : 0], 0, 0);
}

void hr_gen_mark(gen_t *g, const char *name) {
    emit(g, HR_OP_MARK, 0, 0, 0, str_index(g, name), 0, 0);
}

void hr_gen_frame(gen_t *g) {
    const uint64_t period = 16666667; /* 60 Hz */
    if (g->timestamps) {
        /* a frame lasts at least one period after the previous frame mark:
         * idle until just before the tick (a long load simply delays it) */
        uint64_t tick = g->last_frame + period;
        if (g->now + 200 < tick)
            g->now = tick - 200;
    }
    emit(g, HR_OP_FRAME, 0, 0, 0, 0, 0, g->frame_no++);
    g->last_frame = g->now;
}

uint64_t hr_gen_small(gen_t *g) {
    uint32_t n = (uint32_t)(sizeof g->small_type / sizeof g->small_type[0]);
    return g->small_type[gen_below(&g->rng, gen_below(&g->rng, n) + 1)];
}

/* ---- scenario table and entry point ------------------------------------- */

typedef struct scenario {
    const char *name, *desc;
    void (*run)(gen_t *g);
    int clean;    /* every object freed at the end */
    int threaded; /* --threads shapes the scenario (roles, cross-thread frees) */
} scenario_t;

static const scenario_t scenarios[] = {
    {"level_load",
     "boot objects in engine heaps, then level loads (push/pop of Level* heaps, Temp "
     "decompression buffers, 16 B-4 MiB assets) and reverse-order unloads; boot objects stay live",
     hr_gen_scn_level_load, 0, 0},
    {"frame_loop",
     "60 Hz frames of strictly LIFO solver temporaries (64 B-24 KiB, some frames > 100 KiB) "
     "plus a few long-lived objects; frame N marks",
     hr_gen_scn_frame_loop, 1, 0},
    {"particles",
     "fixed-size 32/48/64/96/128 B particle/entity churn: bursts of spawns, random-order "
     "deaths, a steady population of thousands; frame marks",
     hr_gen_scn_particles, 1, 0},
    {"strings",
     "strings and arrays growing by realloc (x1.5/x2 and +small), calloc'd arrays, aligned "
     "(16-4096) allocations, frees in random order",
     hr_gen_scn_strings, 1, 0},
    {"session",
     "a game session: boot, level 1 load, frames (Temp solver stacks, particles, strings, "
     "LevelZone streaming), unload, level 2, frames, shutdown",
     hr_gen_scn_session, 1, 0},
    {"jobs",
     "job system: main thread 0 allocates job descriptors per frame, workers 1..T-1 run "
     "jobs (16-256 B, some 512 B-4 KiB); outputs freed by the main thread (cross-thread), "
     "temporaries LIFO by the worker",
     hr_gen_scn_jobs, 1, 1},
    {"stream",
     "streaming: thread T-1 loads assets (64 KiB-4 MiB + small headers) that main thread 0 "
     "frees 2-8 frames later (cross-thread); threads 1..T-2 and 0 churn small blocks",
     hr_gen_scn_stream, 1, 1},
    {"queue",
     "producer/consumer queues: producers allocate (and realloc-grow) 32 B-2 KiB messages, "
     "a consumer thread frees each after 4-400 events; consumers churn LIFO scratch",
     hr_gen_scn_queue, 1, 1},
};
#define N_SCENARIOS (sizeof scenarios / sizeof scenarios[0])

const char *const *hr_gen_scenarios(void) {
    static const char *names[N_SCENARIOS + 1];
    if (!names[0])
        for (size_t i = 0; i < N_SCENARIOS; i++)
            names[i] = scenarios[i].name;
    return names;
}

static const scenario_t *find_scenario(const char *name) {
    for (size_t i = 0; name && i < N_SCENARIOS; i++)
        if (strcmp(scenarios[i].name, name) == 0)
            return &scenarios[i];
    return NULL;
}

const char *hr_gen_describe(const char *scenario) {
    const scenario_t *s = find_scenario(scenario);
    return s ? s->desc : NULL;
}

int hr_gen_threaded(const char *scenario) {
    const scenario_t *s = find_scenario(scenario);
    return s ? s->threaded : -1;
}

/* "a, b, c" from the scenario table, for error messages (fits hr_error_t:
 * the names are short and few; a longer list is cut, never overflowed). */
static const char *scenario_list(char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < N_SCENARIOS && len < cap; i++) {
        int n = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", scenarios[i].name);
        if (n < 0)
            break;
        len += (size_t)n;
    }
    return buf;
}

hr_gen_options_t hr_gen_default(void) {
    hr_gen_options_t o = {"session", 1, 100000, 0, 1};
    return o;
}

static int check_options(const hr_gen_options_t *opt, hr_error_t *err) {
    char names[192];
    if (!opt || !opt->scenario) {
        hr_error_set(err, "gen: no scenario given (expected one of: %s)",
                     scenario_list(names, sizeof names));
        return -1;
    }
    if (!find_scenario(opt->scenario)) {
        hr_error_set(err, "gen: unknown scenario '%.200s' (expected one of: %s)", opt->scenario,
                     scenario_list(names, sizeof names));
        return -1;
    }
    if (opt->events < HR_GEN_MIN_EVENTS || opt->events > HR_GEN_MAX_EVENTS) {
        hr_error_set(err, "gen: --events %llu out of range (expected %llu..%llu)",
                     (unsigned long long)opt->events, HR_GEN_MIN_EVENTS, HR_GEN_MAX_EVENTS);
        return -1;
    }
    if (opt->threads < 1 || opt->threads > HR_GEN_MAX_THREADS) {
        hr_error_set(err, "gen: --threads %u out of range (expected 1..%u)", opt->threads,
                     HR_GEN_MAX_THREADS);
        return -1;
    }
    return 0;
}

/* Room for `cap` events (and timestamps): the whole trace for hr_gen (the
 * budget logic stays within +10%, so a 10 M event trace never holds two
 * copies while doubling), one chunk when streaming. */
static int reserve(hr_trace_t *t, size_t cap, int timestamps) {
    t->events = malloc(cap * sizeof *t->events);
    if (!t->events)
        return -1;
    t->cap_events = cap;
    if (timestamps) {
        t->ts = malloc(cap * sizeof *t->ts);
        if (!t->ts)
            return -1;
        t->flags |= HR_TRACEF_TIMESTAMPS;
    }
    return 0;
}

static void gen_init(gen_t *g, const hr_gen_options_t *opt, hr_trace_t *out) {
    memset(g, 0, sizeof *g);
    g->t = out;
    g->target = opt->events;
    g->threads = opt->threads;
    g->timestamps = opt->timestamps != 0;
    gen_rng_seed(&g->rng, opt->seed);
    gen_rng_seed(&g->trng, opt->seed ^ 0x7468726561647321ull);
    gen_rng_seed(&g->tsrng, opt->seed ^ 0x74696d657374616dull);
    for (size_t i = 0; i < sizeof g->small_type / sizeof g->small_type[0]; i++)
        g->small_type[i] = (uint16_t)(16 + 8 * gen_below(&g->rng, 31)); /* 16..256 */
}

/* Runs scenario s into `out` (already holding any pre-interned strings):
 * the whole trace when sink is NULL, else in chunks handed to sink (the last,
 * partial one included). 0, or -1 with err; *n_events is the total. */
static int gen_run(const hr_gen_options_t *opt, const scenario_t *s, hr_trace_t *out,
                   int (*sink)(gen_t *), void *ctx, uint64_t *n_events, hr_error_t *err) {
    gen_t g;
    gen_init(&g, opt, out);
    g.sink = sink;
    g.sink_ctx = ctx;
    g.chunk = sink ? GEN_CHUNK : (size_t)(opt->events + opt->events / 10 + 1024);
    if (reserve(out, g.chunk, g.timestamps) != 0)
        g.oom = 1;
    else
        s->run(&g);
    if (sink && !g.oom && out->n_events)
        flush(&g);
    *n_events = hr_gen_n(&g);
    int bad = g.oom || g.depth != 0 || (s->clean && g.n_live != 0);
    uint64_t live = g.n_live;
    int depth = g.depth, oom = g.oom, failed = g.failed;
    hr_gen_vec_free(&g.free_ids);
    free(g.size);
    free(g.thr);
    if (!bad)
        return 0;
    if (failed) /* the sink has set err */
        ;
    else if (oom)
        hr_error_set(err, "gen: %s: out of memory at %llu events", s->name,
                     (unsigned long long)*n_events);
    else
        hr_error_set(err, "gen: %s: internal error (%llu objects live, heap depth %d)", s->name,
                     (unsigned long long)live, depth);
    return -1;
}

int hr_gen(const hr_gen_options_t *opt, hr_trace_t *out, hr_error_t *err) {
    hr_trace_init(out);
    if (check_options(opt, err) != 0)
        return -1;
    const scenario_t *s = find_scenario(opt->scenario);
    uint64_t n;
    char name[64];
    snprintf(name, sizeof name, "gen:%s", s->name);
    if (gen_run(opt, s, out, NULL, NULL, &n, err) != 0 || hr_trace_validate(out, name, err) != 0) {
        hr_trace_free(out);
        return -1;
    }
    return 0;
}

/* ---- streaming: hr_gen_write -------------------------------------------- */

typedef struct gen_stream {
    hr_validator_t *vd; /* the counting pass only */
    hr_binenc_t    *enc;
    hr_error_t     *err;
    const char     *name;
} gen_stream_t;

/* One chunk: validated on the counting pass (the peak and counts of the
 * header and summary), encoded on both. */
static int gen_sink(gen_t *g) {
    gen_stream_t *st = g->sink_ctx;
    hr_trace_t *t = g->t;
    if (st->vd && hr_validator_step(st->vd, t->events, t->n_events,
                                    (const char *const *)t->strings, t->n_strings, st->err) != 0)
        return -1;
    errno = 0;
    if (hr_binenc_put(st->enc, t->events, g->timestamps ? t->ts : NULL, t->n_events) != 0) {
        hr_error_set(st->err, "%s: cannot encode or write the trace: %s", st->name,
                     strerror(errno ? errno : EIO));
        return -1;
    }
    return 0;
}

/* The header (event count, ids, peak, record bytes) and the string table
 * come before the records, so the scenario runs twice: a counting pass that
 * writes nothing learns them and its strings, the second (same options, same
 * events) interns the strings in the same order and writes. */
int hr_gen_write(const hr_gen_options_t *opt, FILE *f, hr_trace_t *info, hr_error_t *err) {
    hr_trace_init(info);
    if (check_options(opt, err) != 0)
        return -1;
    const scenario_t *s = find_scenario(opt->scenario);
    char name[64];
    snprintf(name, sizeof name, "gen:%s", s->name);
    hr_trace_t t, w;
    hr_trace_init(&t);
    hr_trace_init(&w);
    gen_stream_t cnt = {hr_validator_new(opt->events, name), hr_binenc_open(NULL, opt->timestamps),
                      err, name};
    gen_stream_t out = {NULL, hr_binenc_open(f, opt->timestamps), err, name};
    uint64_t n1 = 0, n2 = 0;
    int rc = cnt.vd && cnt.enc && out.enc ? 0 : -1;
    if (rc != 0)
        hr_error_set(err, "gen: %s: out of memory", s->name);
    if (rc == 0)
        rc = gen_run(opt, s, &t, gen_sink, &cnt, &n1, err);
    if (rc == 0 && (rc = hr_validator_end(cnt.vd, err)) == 0)
        hr_validator_result(cnt.vd, info);
    for (uint32_t i = 0; rc == 0 && i < t.n_strings; i++)
        if (hr_trace_intern(&w, t.strings[i]) < 0) {
            hr_error_set(err, "gen: %s: out of memory", s->name);
            rc = -1;
        }
    if (rc == 0 && hr_binenc_header(cnt.enc, info->peak_live, &w, f) != 0) {
        hr_error_set(err, "%s: cannot write the header: %s", name, strerror(errno ? errno : EIO));
        rc = -1;
    }
    if (rc == 0)
        rc = gen_run(opt, s, &w, gen_sink, &out, &n2, err);
    if (rc == 0 && (n1 != n2 || hr_binenc_bytes(cnt.enc) != hr_binenc_bytes(out.enc))) {
        hr_error_set(err, "gen: %s: internal error (the writing pass differs from the counting "
                     "pass)", s->name);
        rc = -1;
    }
    info->n_events = (size_t)n1;
    hr_binenc_free(cnt.enc);
    hr_binenc_free(out.enc);
    if (cnt.vd)
        hr_validator_free(cnt.vd);
    hr_trace_free(&t);
    hr_trace_free(&w);
    return rc;
}
