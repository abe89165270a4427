/* Tests for the threaded gen scenarios (jobs, stream, queue) at 1, 2, 4 and
 * 16 threads: validity, dense thread indexes, determinism, the event budget,
 * timestamps, and each scenario's thread roles, measured by walking the trace
 * with an id -> thread array (who allocated each live id). */
#include <stdlib.h>
#include <string.h>

#include "hr_test.h"
#include "trace/gen.h"
#include "trace/trace.h"

static const char *const threaded[] = {"jobs", "stream", "queue"};
static const uint32_t thread_counts[] = {1, 2, 4, 16};
#define N_THREADED (sizeof threaded / sizeof threaded[0])
#define N_COUNTS   (sizeof thread_counts / sizeof thread_counts[0])

static int gen(const char *scn, uint64_t events, uint64_t seed, uint32_t threads, int ts,
               hr_trace_t *t) {
    hr_gen_options_t o = hr_gen_default();
    hr_error_t err = {{0}};
    o.scenario = scn;
    o.events = events;
    o.seed = seed;
    o.threads = threads;
    o.timestamps = ts;
    int rc = hr_gen(&o, t, &err);
    if (rc != 0)
        printf("# hr_gen(%s, %u threads): %s\n", scn, threads, err.msg);
    return rc;
}

/* What a walk of the trace in order finds. A free (or realloc) is cross-thread
 * when the event that gave the id its current block was on another thread. */
typedef struct walk {
    uint64_t frees, cross;          /* free events; cross-thread frees + reallocs */
    uint64_t cross_not_main;        /* cross-thread frees on a thread other than 0 */
    uint64_t cross_on_producer;     /* queue: cross frees on threads < T/2 */
    uint64_t reallocs_off_producer; /* queue: reallocs on threads >= T/2 */
    uint64_t large_streamed;        /* >= 64 KiB, allocated on T-1, freed on 0 */
    uint64_t large_other;           /* >= 64 KiB blocks with any other pair of threads */
    uint64_t worker_events, worker_switches; /* consecutive events on two workers */
    uint64_t non_mem_off_main;      /* frame/mark/push/pop on a thread other than 0 */
    uint32_t threads_seen;
} walk_t;

static void walk(const hr_trace_t *t, uint32_t threads, walk_t *w) {
    uint16_t *owner = calloc(t->n_ids ? t->n_ids : 1, sizeof *owner);
    uint64_t *size = calloc(t->n_ids ? t->n_ids : 1, sizeof *size);
    uint8_t seen[HR_GEN_MAX_THREADS] = {0};
    int last_worker = -1;
    memset(w, 0, sizeof *w);
    for (size_t i = 0; owner && size && i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (ev->thread < HR_GEN_MAX_THREADS && !seen[ev->thread]) {
            seen[ev->thread] = 1;
            w->threads_seen++;
        }
        if (!hr_op_is_mem(ev->op)) {
            w->non_mem_off_main += ev->thread != 0;
            continue;
        }
        if (ev->thread > 0) { /* on a worker (jobs' sense): count switches */
            w->worker_events++;
            w->worker_switches += last_worker > 0 && last_worker != ev->thread;
            last_worker = ev->thread;
        }
        if (ev->op == HR_OP_FREE || ev->op == HR_OP_REALLOC) {
            uint32_t old = ev->op == HR_OP_FREE ? ev->id : ev->aux;
            int cross = owner[old] != ev->thread;
            w->frees += ev->op == HR_OP_FREE;
            w->cross += cross;
            w->cross_not_main += cross && ev->thread != 0;
            w->cross_on_producer += cross && threads > 1 && ev->thread < threads / 2;
            w->reallocs_off_producer +=
                ev->op == HR_OP_REALLOC && threads > 1 && ev->thread >= threads / 2;
            if (ev->op == HR_OP_FREE && size[old] >= 65536) {
                int streamed = owner[old] == threads - 1 && ev->thread == 0;
                w->large_streamed += streamed;
                w->large_other += !streamed;
            }
        }
        if (hr_op_creates_block(ev->op)) {
            owner[ev->id] = ev->thread;
            size[ev->id] = hr_event_bytes(ev);
        }
    }
    free(owner);
    free(size);
}

/* Per scenario and thread count: valid, dense, deterministic, and the roles. */
static void check_one(const char *scn, uint32_t n) {
    hr_trace_t a, b, c;
    hr_error_t err = {{0}};
    if (gen(scn, 60000, 7, n, 0, &a) != 0) {
        HR_CHECK(0);
        return;
    }
    HR_CHECK(hr_trace_validate(&a, scn, &err) == 0);
    HR_CHECK_EQ_U64(a.n_threads, n);
    char da[17], db[17], dc[17];
    hr_trace_digest(&a, da);
    if (gen(scn, 60000, 7, n, 0, &b) == 0 && gen(scn, 60000, 8, n, 0, &c) == 0) {
        hr_trace_digest(&b, db);
        hr_trace_digest(&c, dc);
        HR_CHECK_STR(da, db);          /* same options: the same trace */
        HR_CHECK(strcmp(da, dc) != 0); /* another seed: another trace */
        hr_trace_free(&b);
        hr_trace_free(&c);
    } else {
        HR_CHECK(0);
    }
    walk_t w;
    walk(&a, n, &w);
    printf("# %s --threads %u: %zu events, %llu frees, %llu cross-thread (%.1f%%), "
           "%llu large streamed\n", scn, n, a.n_events, (unsigned long long)w.frees,
           (unsigned long long)w.cross, w.frees ? 100.0 * (double)w.cross / (double)w.frees : 0.0,
           (unsigned long long)w.large_streamed);
    HR_CHECK_EQ_U64(w.threads_seen, n);
    HR_CHECK_EQ_U64(w.non_mem_off_main, 0);
    if (n == 1)
        HR_CHECK_EQ_U64(w.cross, 0);
    if (strcmp(scn, "jobs") == 0) {
        if (n > 1)
            HR_CHECK(w.cross * 10 > w.frees);
        HR_CHECK_EQ_U64(w.cross_not_main, 0); /* only main frees others' blocks */
        if (n > 2) /* workers' events interleave in chunks, not one worker at a time */
            HR_CHECK(w.worker_switches * 10 > w.worker_events);
    } else if (strcmp(scn, "queue") == 0) {
        if (n > 1)
            HR_CHECK(w.cross * 10 > w.frees);
        HR_CHECK_EQ_U64(w.cross_on_producer, 0); /* consumers free the messages */
        HR_CHECK_EQ_U64(w.reallocs_off_producer, 0);
        HR_CHECK(a.op_counts[HR_OP_REALLOC] > 100);
    } else { /* stream: the streamer's large blocks die on the main thread */
        HR_CHECK(w.large_streamed > 50);
        HR_CHECK_EQ_U64(w.large_other, 0);
        if (n > 1)
            HR_CHECK_EQ_U64(w.cross_not_main, 0);
        HR_CHECK(a.peak_live < (64ull << 20));
    }
    hr_trace_free(&a);
}

static void test_threaded_scenarios(void) {
    for (size_t s = 0; s < N_THREADED; s++)
        for (size_t k = 0; k < N_COUNTS; k++)
            check_one(threaded[s], thread_counts[k]);
}

/* --threads is the structure: 2 threads differ from 1 beyond the labels. */
static void test_threads_shape_events(void) {
    for (size_t s = 0; s < N_THREADED; s++) {
        hr_trace_t a, b;
        HR_CHECK_EQ_I64(hr_gen_threaded(threaded[s]), 1);
        if (gen(threaded[s], 20000, 3, 1, 0, &a) != 0 || gen(threaded[s], 20000, 3, 4, 0, &b) != 0) {
            HR_CHECK(0);
            continue;
        }
        size_t diff = a.n_events != b.n_events;
        for (size_t i = 0; !diff && i < a.n_events; i++)
            diff = a.events[i].op != b.events[i].op || a.events[i].size != b.events[i].size;
        HR_CHECK(diff);
        hr_trace_free(&a);
        hr_trace_free(&b);
    }
    HR_CHECK_EQ_I64(hr_gen_threaded("session"), 0);
    HR_CHECK_EQ_I64(hr_gen_threaded("nope"), -1);
}

/* Within 10% of the target, every thread present even at the minimum size
 * with the most threads. */
static void test_threaded_budget(void) {
    static const uint64_t targets[] = {1000, 1700, 12345, 150000};
    static const uint32_t ns[] = {1, 2, 4, 16, HR_GEN_MAX_THREADS};
    for (size_t s = 0; s < N_THREADED; s++)
        for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
                hr_trace_t t;
                if (gen(threaded[s], targets[i], 1 + k, ns[k], 0, &t) != 0) {
                    HR_CHECK(0);
                    continue;
                }
                double r = (double)t.n_events / (double)targets[i];
                if (r < 0.9 || r > 1.1)
                    printf("# %s --threads %u: %zu events for a target of %llu\n", threaded[s],
                           ns[k], t.n_events, (unsigned long long)targets[i]);
                HR_CHECK(r >= 0.9 && r <= 1.1);
                walk_t w;
                walk(&t, ns[k], &w);
                HR_CHECK_EQ_U64(w.threads_seen, ns[k]);
                hr_trace_free(&t);
            }
}

/* Timestamps increase strictly and frame marks are >= 16 ms apart. */
static void test_threaded_timestamps(void) {
    for (size_t s = 0; s < N_THREADED; s++) {
        hr_trace_t t;
        if (gen(threaded[s], 30000, 2, 4, 1, &t) != 0 || !t.ts) {
            HR_CHECK(0);
            continue;
        }
        size_t bad = 0, frames = 0, short_frames = 0;
        uint64_t last = 0;
        for (size_t i = 0; i < t.n_events; i++) {
            bad += i && t.ts[i] <= t.ts[i - 1];
            if (t.events[i].op == HR_OP_FRAME) {
                short_frames += frames && t.ts[i] - last < 16000000;
                last = t.ts[i];
                frames++;
            }
        }
        HR_CHECK_EQ_U64(bad, 0);
        HR_CHECK(frames > 10);
        HR_CHECK_EQ_U64(short_frames, 0);
        hr_trace_free(&t);
    }
}

/* The error text lists every scenario, from the table. */
static void test_unknown_lists_all(void) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_gen_options_t o = hr_gen_default();
    o.scenario = "teapot";
    HR_CHECK(hr_gen(&o, &t, &err) == -1);
    for (const char *const *s = hr_gen_scenarios(); *s; s++)
        HR_CHECK(strstr(err.msg, *s) != NULL);
    HR_CHECK(strstr(err.msg, "queue") != NULL);
}

int main(void) {
    HR_RUN(test_threaded_scenarios);
    HR_RUN(test_threads_shape_events);
    HR_RUN(test_threaded_budget);
    HR_RUN(test_threaded_timestamps);
    HR_RUN(test_unknown_lists_all);
    return hr_test_done();
}
