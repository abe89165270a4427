/* Threaded scenarios: jobs (a job system), stream (a streaming thread) and
 * queue (producer/consumer message queues), the input of the threaded replay.
 *
 * Unlike the other scenarios, --threads shapes these: it decides the roles
 * (main, workers, streamer, producers, consumers) and which thread frees an
 * object, so there are cross-thread frees (a free on a thread other than the
 * one that allocated the id). Everything here draws from g->rng only, so the
 * same options still give a byte-identical trace.
 *
 * Concurrency is modelled by a round-robin scheduler over "actors" (a role
 * on one thread; with one thread several actors share thread 0): each round
 * every busy actor emits a chunk of 1..4 events, so the trace order is one
 * plausible interleaving of threads running at once. The trace is valid in
 * that order (alloc before free, ids reused only after their free); the
 * replay engine makes a free wait for its alloc on another thread.
 *
 * Budget: the scheduler stops new work once hr_gen_more() says the rest of
 * the budget is needed to free what is live; actors then only free. It never
 * stops before every actor has had one chunk, so every thread index appears
 * (the replay creates one OS thread per recorded thread). */
#include "trace/gen_int.h"

#include <string.h>

#define MAX_ACTORS (HR_GEN_MAX_THREADS + 1)
#define CHUNK_MAX  4u
/* one chunk adds <= 4 events and <= 4 live objects; + a frame mark */
#define CHUNK_RESERVE (2u * CHUNK_MAX + 4u)

/* Emits at most one event for `actor`; returns 0 when the actor has nothing
 * left to do (it is then skipped until the next sched_run). `stop`: the
 * budget is spent, only free. */
typedef int (*actor_step_fn)(gen_t *g, void *ctx, uint32_t actor, int stop);

typedef struct sched {
    uint32_t n;                   /* actors */
    uint16_t thread[MAX_ACTORS];  /* the thread each actor runs on */
    uint8_t  started[MAX_ACTORS]; /* had its first chunk (its thread appeared) */
    uint32_t n_started;
    int      stop;                /* sticky: set once the budget is spent */
} sched_t;

/* Round-robin chunks until every actor is idle, or for `rounds` rounds when
 * rounds > 0 (actors that never idle: the queue scenario). */
static void sched_run(gen_t *g, sched_t *s, actor_step_fn step, void *ctx, uint32_t rounds) {
    uint8_t busy[MAX_ACTORS];
    uint32_t n_busy = s->n;
    memset(busy, 1, sizeof busy);
    for (uint32_t r = 0; n_busy && (!rounds || r < rounds) && !g->oom; r++)
        for (uint32_t a = 0; a < s->n && !g->oom; a++) {
            if (!busy[a])
                continue;
            if (!s->stop && s->n_started == s->n && !hr_gen_more(g, CHUNK_RESERVE))
                s->stop = 1;
            uint32_t chunk = 1 + gen_below(&g->rng, CHUNK_MAX);
            for (uint32_t k = 0; k < chunk; k++)
                if (!step(g, ctx, a, s->stop)) {
                    busy[a] = 0;
                    n_busy--;
                    break;
                }
            if (!s->started[a]) {
                s->started[a] = 1;
                s->n_started++;
            }
        }
}

static void sched_add(sched_t *s, uint16_t thread) {
    if (s->n < MAX_ACTORS)
        s->thread[s->n++] = thread;
}

/* Frees every id in `v` (random order) on `thread` and empties it. */
static void free_all_on(gen_t *g, gen_vec_t *v, uint16_t thread) {
    while (v->n && !g->oom)
        hr_gen_free_on(g, gen_vec_take(v, gen_below(&g->rng, (uint32_t)v->n)), thread, 0);
}

/* A LIFO stack of temporaries (job scratch, consumer scratch). */
#define LIFO_MAX 8
typedef struct lifo {
    uint32_t id[LIFO_MAX];
    uint32_t sp;
} lifo_t;

/* ---- jobs ------------------------------------------------------------------
 * Thread 0 is the main thread; threads 1..T-1 are workers (T == 1: the one
 * worker is thread 0 too). Per frame the main thread allocates one descriptor
 * per job (64-192 B); each worker runs its 2..6 jobs one after another. A job makes
 * 2..6 blocks: 3 in 5 are outputs, freed by the main thread at the end of this
 * frame (3 in 5) or of the next one, the rest temporaries the worker frees
 * LIFO before the job ends. The main thread frees the descriptors at the end
 * of the frame. */
typedef struct job_worker {
    uint32_t jobs_left, allocs_left;
    lifo_t   tmp;
} job_worker_t;

typedef struct jobs {
    job_worker_t w[MAX_ACTORS];
    gen_vec_t    out, prev, desc; /* this frame's outputs, last frame's, descriptors */
} jobs_t;

/* 16-256 B, mostly <= 64 B; 1 in 12 is 512 B-4 KiB (a bigger result). */
static uint64_t job_size(gen_t *g) {
    uint32_t r = gen_below(&g->rng, 100);
    if (r < 70)
        return 16 + 8 * gen_below(&g->rng, 7);
    if (r < 92)
        return 72 + 8 * gen_below(&g->rng, 24);
    return hr_gen_logsize(&g->rng, 512, 4096) & ~(uint64_t)15;
}

static int job_step(gen_t *g, void *ctx, uint32_t a, int stop) {
    jobs_t *j = ctx;
    job_worker_t *w = &j->w[a];
    uint16_t th = g->threads > 1 ? (uint16_t)(a + 1) : 0;
    for (;;) {
        if (w->allocs_left && !stop && (w->tmp.sp == 0 || gen_chance(&g->rng, 2, 3))) {
            w->allocs_left--;
            uint32_t id = hr_gen_alloc(g, job_size(g), 0, th);
            if (w->tmp.sp < LIFO_MAX && gen_chance(&g->rng, 2, 5))
                w->tmp.id[w->tmp.sp++] = id;
            else
                hr_gen_vec_push(&j->out, id, &g->oom);
            return 1;
        }
        if (w->tmp.sp) {
            hr_gen_free(g, w->tmp.id[--w->tmp.sp], 0);
            return 1;
        }
        if (!w->jobs_left || stop)
            return 0;
        w->jobs_left--;
        w->allocs_left = 2 + gen_below(&g->rng, 5);
    }
}

/* Deals the frame's jobs to the workers and allocates their descriptors on
 * the main thread. Frame 0 gives every worker a job (every thread appears);
 * later frames shrink when the budget runs low, so small targets are met. */
static void jobs_deal(gen_t *g, jobs_t *j, uint32_t workers, int first) {
    uint64_t n = 0, used = hr_gen_n(g) + g->n_live;
    uint64_t cap = used < g->target ? (g->target - used) / 16 : 0;
    for (uint32_t a = 0; a < workers; a++)
        n += 2 + gen_below(&g->rng, 5); /* 2..6 jobs per worker */
    if (n > cap)
        n = cap;
    if (n < (first ? workers : 1))
        n = first ? workers : 1;
    uint32_t start = gen_below(&g->rng, workers);
    for (uint64_t k = 0; k < n; k++) {
        j->w[(start + k) % workers].jobs_left++;
        hr_gen_vec_push(&j->desc, hr_gen_alloc(g, 64 + 16 * gen_below(&g->rng, 9), 0, 0),
                        &g->oom);
    }
}

/* End of frame on the main thread: last frame's deferred outputs, then 3 in 5
 * of this frame's (the rest wait a frame), then the descriptors. */
static void jobs_retire(gen_t *g, jobs_t *j) {
    free_all_on(g, &j->prev, 0);
    while (j->out.n && !g->oom) {
        uint32_t id = gen_vec_take(&j->out, gen_below(&g->rng, (uint32_t)j->out.n));
        if (gen_chance(&g->rng, 3, 5))
            hr_gen_free_on(g, id, 0, 0);
        else
            hr_gen_vec_push(&j->prev, id, &g->oom);
    }
    free_all_on(g, &j->desc, 0);
}

void hr_gen_scn_jobs(gen_t *g) {
    jobs_t j;
    sched_t s;
    memset(&j, 0, sizeof j);
    memset(&s, 0, sizeof s);
    uint32_t workers = g->threads > 1 ? g->threads - 1 : 1;
    for (uint32_t a = 0; a < workers; a++)
        sched_add(&s, g->threads > 1 ? (uint16_t)(a + 1) : 0);
    hr_gen_mark(g, "jobs_begin");
    for (int first = 1; (first || (!s.stop && hr_gen_more(g, CHUNK_RESERVE))) && !g->oom;
         first = 0) {
        jobs_deal(g, &j, workers, first);
        sched_run(g, &s, job_step, &j, 0);
        for (uint32_t a = 0; a < workers; a++) /* jobs dropped when the budget ran out */
            j.w[a].jobs_left = 0;
        jobs_retire(g, &j);
        hr_gen_frame(g);
    }
    free_all_on(g, &j.prev, 0);
    hr_gen_mark(g, "jobs_end");
    hr_gen_vec_free(&j.out);
    hr_gen_vec_free(&j.prev);
    hr_gen_vec_free(&j.desc);
}

/* ---- stream ----------------------------------------------------------------
 * Thread T-1 is the streamer (thread 0 when T == 1). It loads requests of 1..3
 * assets: a read buffer (4 KiB to < 64 KiB, freed by the streamer), the asset's data
 * (64 KiB-4 MiB, log-uniform) and 1..3 small headers (64-512 B). The main thread 0 uses
 * an asset for 2..8 frames, then frees its blocks: cross-thread frees of
 * large blocks. Threads 1..T-2 and the main thread churn small blocks of
 * their own (same-thread frees). Streamed bytes stay under STREAM_CAP. */
#define STREAM_CAP   (40ull << 20) /* live asset data: peak live stays < 64 MiB */
#define STREAM_START (24ull << 20) /* no new request above this */
#define POOL_MAX     48
#define ASSET_PARTS  4             /* data + up to 3 headers */

typedef struct stream {
    gen_vec_t pool[MAX_ACTORS]; /* each churning actor's own live blocks */
    uint32_t  quota[MAX_ACTORS];
    gen_vec_t assets;           /* pairs (id, frame it expires in), freed by main */
    uint64_t  bytes;            /* live asset data */
    uint32_t  assets_left;      /* of the current request */
    uint32_t  tmp, parts[ASSET_PARTS], n_parts, headers_left;
    int       loading;          /* tmp is live: an asset is being read */
} stream_t;

/* Small-block churn on the actor's own thread; returns 0 when its quota is
 * used up (or, once stopped, when its pool is empty). */
static int churn_step(gen_t *g, gen_vec_t *pool, uint32_t *quota, uint16_t th, int stop) {
    if (stop || !*quota) {
        if (!stop || !pool->n)
            return 0;
        hr_gen_free(g, gen_vec_take(pool, gen_below(&g->rng, (uint32_t)pool->n)), 0);
        return 1;
    }
    --*quota;
    if (pool->n == 0 || (pool->n < POOL_MAX && gen_chance(&g->rng, 1, 2)))
        hr_gen_vec_push(pool, hr_gen_alloc(g, hr_gen_small(g), 0, th), &g->oom);
    else
        hr_gen_free(g, gen_vec_take(pool, gen_below(&g->rng, (uint32_t)pool->n)), 0);
    return 1;
}

/* Main thread: free one expired asset block, or churn. */
static int stream_main_step(gen_t *g, stream_t *st, int stop) {
    for (size_t i = 0; i + 1 < st->assets.n; i += 2)
        if (st->assets.v[i + 1] <= g->frame_no) {
            uint32_t id = st->assets.v[i];
            st->assets.v[i] = st->assets.v[st->assets.n - 2];
            st->assets.v[i + 1] = st->assets.v[st->assets.n - 1];
            st->assets.n -= 2;
            if (g->size[id] >= 65536)
                st->bytes -= g->size[id];
            hr_gen_free_on(g, id, 0, 0);
            return 1;
        }
    return churn_step(g, &st->pool[0], &st->quota[0], 0, stop);
}

/* The read finished: free the buffer, hand the asset's blocks to main. */
static void stream_finish(gen_t *g, stream_t *st) {
    uint32_t expire = (uint32_t)g->frame_no + 2 + gen_below(&g->rng, 7);
    hr_gen_free(g, st->tmp, 0);
    for (uint32_t k = 0; k < st->n_parts; k++) {
        hr_gen_vec_push(&st->assets, st->parts[k], &g->oom);
        hr_gen_vec_push(&st->assets, expire, &g->oom);
    }
    st->loading = 0;
}

static int stream_loader_step(gen_t *g, stream_t *st, uint16_t th, int stop) {
    if (!st->loading) {
        if (!st->assets_left || stop)
            return 0;
        st->assets_left--;
        st->loading = 1;
        st->n_parts = 0;
        st->headers_left = 1 + gen_below(&g->rng, 3);
        st->tmp = hr_gen_alloc(g, hr_gen_logsize(&g->rng, 4096, 65535) & ~(uint64_t)15, 0, th);
        return 1;
    }
    if (stop || (st->n_parts && !st->headers_left)) {
        stream_finish(g, st);
        return 1;
    }
    uint64_t sz = 64 + 16 * gen_below(&g->rng, 29); /* a header: 64-512 B */
    if (st->n_parts == 0) {                         /* the data first */
        sz = hr_gen_logsize(&g->rng, 65536, 4u << 20) & ~(uint64_t)4095;
        if (st->bytes + sz > STREAM_CAP)
            sz = 65536;
        st->bytes += sz;
    } else {
        st->headers_left--;
    }
    st->parts[st->n_parts++] = hr_gen_alloc(g, sz, 0, th);
    return 1;
}

static int stream_step(gen_t *g, void *ctx, uint32_t a, int stop) {
    stream_t *st = ctx;
    uint32_t last = g->threads > 1 ? g->threads - 1 : 1; /* the loader actor */
    if (a == 0)
        return stream_main_step(g, st, stop);
    if (a == last)
        return stream_loader_step(g, st, g->threads > 1 ? (uint16_t)(g->threads - 1) : 0, stop);
    return churn_step(g, &st->pool[a], &st->quota[a], (uint16_t)a, stop);
}

void hr_gen_scn_stream(gen_t *g) {
    stream_t st;
    sched_t s;
    memset(&st, 0, sizeof st);
    memset(&s, 0, sizeof s);
    /* actors: 0 main, 1..T-2 churners (thread = actor), then the loader */
    for (uint32_t a = 0; a + 1 < g->threads; a++)
        sched_add(&s, (uint16_t)a);
    sched_add(&s, (uint16_t)(g->threads - 1));
    if (g->threads == 1)
        sched_add(&s, 0); /* main and loader share thread 0 */
    hr_gen_mark(g, "stream_begin");
    for (int first = 1; (first || (!s.stop && hr_gen_more(g, CHUNK_RESERVE))) && !g->oom;
         first = 0) {
        for (uint32_t a = 0; a < s.n; a++)
            st.quota[a] = a == 0 ? 8 + gen_below(&g->rng, 17) : 8 + gen_below(&g->rng, 33);
        if (!st.assets_left && st.bytes < STREAM_START && (first || gen_chance(&g->rng, 1, 2)))
            st.assets_left = 1 + gen_below(&g->rng, 3);
        sched_run(g, &s, stream_step, &st, 0);
        hr_gen_frame(g);
    }
    hr_gen_mark(g, "stream_end");
    while (st.assets.n && !g->oom) { /* shutdown: main frees what is still loaded */
        hr_gen_free_on(g, st.assets.v[st.assets.n - 2], 0, 0);
        st.assets.n -= 2;
    }
    for (uint32_t a = 0; a < s.n; a++) {
        free_all_on(g, &st.pool[a], s.thread[a]);
        hr_gen_vec_free(&st.pool[a]);
    }
    hr_gen_vec_free(&st.assets);
}

/* ---- queue -----------------------------------------------------------------
 * Producers 0..P-1 and consumers P..T-1 with P = T/2 (T == 2: thread 0
 * produces, thread 1 consumes; T == 1: thread 0 does both). A producer
 * allocates a message (32 B-2 KiB); 1 in 3 starts at 32-512 B and grows by
 * 1..3 reallocs on the producer (x1.5 or x2, up to 2 KiB) before it is queued.
 * A queued message becomes ready 4..400 events later (log-uniform); the next
 * consumer to look takes the ready message due first and frees it: a
 * cross-thread free. Consumers also push/pop small LIFO scratch blocks of
 * their own when idle. A frame mark on thread 0 every QUEUE_ROUNDS rounds. */
#define QUEUE_ROUNDS  8
#define SCRATCH_MAX   4
#define MSG_MAX       2048u

typedef struct queue {
    uint32_t  producers;           /* actors 0..producers-1 produce */
    uint32_t  building[MAX_ACTORS], grows_left[MAX_ACTORS]; /* UINT32_MAX: none */
    lifo_t    scratch[MAX_ACTORS];
    gen_vec_t heap;                /* min-heap of pairs (due event index, id) */
} queue_t;

static void pair_swap(uint32_t *v, size_t i, size_t j) {
    uint32_t d = v[2 * i], id = v[2 * i + 1];
    v[2 * i] = v[2 * j];
    v[2 * i + 1] = v[2 * j + 1];
    v[2 * j] = d;
    v[2 * j + 1] = id;
}

/* Queues `id`; due fits 32 bits because events <= HR_GEN_MAX_EVENTS < 2^31. */
static void queue_put(gen_t *g, queue_t *q, uint32_t id) {
    uint32_t due = (uint32_t)(hr_gen_n(g) + hr_gen_logsize(&g->rng, 4, 400));
    hr_gen_vec_push(&q->heap, due, &g->oom);
    hr_gen_vec_push(&q->heap, id, &g->oom);
    if (g->oom)
        return;
    for (size_t i = q->heap.n / 2 - 1; i > 0 && q->heap.v[2 * ((i - 1) / 2)] > q->heap.v[2 * i];
         i = (i - 1) / 2)
        pair_swap(q->heap.v, i, (i - 1) / 2);
}

/* Removes and returns the id due first. */
static uint32_t queue_take(queue_t *q) {
    uint32_t *v = q->heap.v, id = v[1];
    size_t n = q->heap.n / 2 - 1, i = 0;
    v[0] = v[2 * n];
    v[1] = v[2 * n + 1];
    q->heap.n -= 2;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && v[2 * l] < v[2 * m])
            m = l;
        if (r < n && v[2 * r] < v[2 * m])
            m = r;
        if (m == i)
            return id;
        pair_swap(v, i, m);
        i = m;
    }
}

static int producer_step(gen_t *g, queue_t *q, uint32_t a, uint16_t th, int stop) {
    uint32_t id = q->building[a];
    if (id != UINT32_MAX) { /* growing: realloc on the producer, then queue */
        uint64_t sz = g->size[id];
        if (!stop && q->grows_left[a] && sz < MSG_MAX) {
            uint64_t nsz = gen_chance(&g->rng, 1, 2) ? sz + sz / 2 : sz * 2;
            hr_gen_realloc(g, id, nsz > MSG_MAX ? MSG_MAX : (nsz + 7) & ~(uint64_t)7);
            if (--q->grows_left[a] && nsz < MSG_MAX)
                return 1;
        }
        q->building[a] = UINT32_MAX;
        queue_put(g, q, id);
        return 1;
    }
    if (stop)
        return 0;
    if (gen_chance(&g->rng, 1, 3)) {
        q->building[a] = hr_gen_alloc(g, hr_gen_logsize(&g->rng, 32, 512) & ~(uint64_t)7, 0, th);
        q->grows_left[a] = 1 + gen_below(&g->rng, 3);
    } else {
        queue_put(g, q, hr_gen_alloc(g, hr_gen_logsize(&g->rng, 32, MSG_MAX) & ~(uint64_t)7, 0, th));
    }
    return 1;
}

/* Scratch first (half the time), then a ready message, else new scratch.
 * Once stopped every queued message counts as ready (the queues drain). */
static int consumer_step(gen_t *g, queue_t *q, uint32_t a, uint16_t th, int stop) {
    lifo_t *sc = &q->scratch[a];
    int ready = q->heap.n && (stop || q->heap.v[0] <= hr_gen_n(g));
    if (sc->sp && (sc->sp == SCRATCH_MAX || (!ready && stop) || gen_chance(&g->rng, 1, 2))) {
        hr_gen_free(g, sc->id[--sc->sp], 0);
        return 1;
    }
    if (ready) {
        hr_gen_free_on(g, queue_take(q), th, 0);
        return 1;
    }
    if (stop)
        return 0;
    sc->id[sc->sp++] = hr_gen_alloc(g, 16 + 8 * gen_below(&g->rng, 31), 0, th);
    return 1;
}

static int queue_step(gen_t *g, void *ctx, uint32_t a, int stop) {
    queue_t *q = ctx;
    uint16_t th = g->threads > 1 ? (uint16_t)a : 0;
    return a < q->producers ? producer_step(g, q, a, th, stop) : consumer_step(g, q, a, th, stop);
}

void hr_gen_scn_queue(gen_t *g) {
    queue_t q;
    sched_t s;
    memset(&q, 0, sizeof q);
    memset(&s, 0, sizeof s);
    memset(q.building, 0xff, sizeof q.building);
    q.producers = g->threads > 1 ? g->threads / 2 : 1;
    for (uint32_t a = 0; a < (g->threads > 1 ? g->threads : 2); a++)
        sched_add(&s, g->threads > 1 ? (uint16_t)a : 0);
    hr_gen_mark(g, "queue_begin");
    for (int first = 1; (first || (!s.stop && hr_gen_more(g, CHUNK_RESERVE))) && !g->oom;
         first = 0) {
        sched_run(g, &s, queue_step, &q, QUEUE_ROUNDS);
        hr_gen_frame(g);
    }
    s.stop = 1; /* drain: producers queue what they hold, consumers free it all */
    do
        sched_run(g, &s, queue_step, &q, 0);
    while (q.heap.n && !g->oom);
    hr_gen_mark(g, "queue_end");
    hr_gen_vec_free(&q.heap);
}
