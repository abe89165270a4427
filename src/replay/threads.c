/* The threaded time mode: one OS thread per recorded thread, each replaying
 * its stream of the schedule (sched.h: the ordering model and the in-house
 * instance rule).
 *
 * The threads are created once, before the cold lap, and serve every lap:
 * the recorded thread 0 (a program's main thread) runs on this process's main
 * thread, the others on pthreads. A lap starts when the main thread bumps the
 * lap generation and ends when the last stream is done; its wall time runs
 * from the first thread's start to the last thread's end. Between laps (not
 * timed) the instances are closed and recreated and the dependency words
 * reset, as the serial time mode does. Waiting: spin with a pause for a short
 * while, then sleep on a futex; spinning is counted as the harness's CPU, not
 * the allocator's. */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/hmem.h"
#include "base/sysinfo.h"
#include "replay/engine_int.h"
#include "replay/engine_ops.h"
#include "replay/sched.h"

#define HR_SPIN_ROUNDS 2000u          /* pauses before sleeping on a dependency */
#define HR_SLEEPER     0x80000000u    /* seq word: someone sleeps on it */

typedef struct pool pool_t;

/* One replay thread; padded so that two threads' hot fields never share a
 * cache line. */
typedef struct tctx {
    pool_t      *p;
    uint32_t     k;
    pthread_t    th;
    hr_trace_t   view;   /* the trace as its stream: events, count, strings */
    heapstack_t  hs;
    tstat_t      st;     /* the current lap */
    char         pad[64];
} tctx_t;

struct pool {
    const hr_sched_t          *s;
    const hr_trace_t          *t;
    const hr_backend_t        *be;
    const hr_replay_options_t *opt;
    tctx_t                    *ctx;
    hr_slot_t                 *slots;   /* shared: ids cross threads */
    _Atomic uint32_t          *seq;     /* per id (sched.h) */
    void                     **inst;    /* per thread (all equal when shared) */
    _Atomic uint32_t          *lock;    /* per instance, 16 words apart */
    int                        shared;  /* HR_CAP_THREAD_SAFE: one instance */
    uint64_t                   lap_t0;  /* pacing origin (CLOCK_MONOTONIC) */
    _Atomic uint32_t           go;      /* lap generation */
    _Atomic uint32_t           done;    /* streams finished in this lap */
    _Atomic int                quit;
    size_t                     ctx_bytes, slot_bytes, seq_bytes, inst_bytes, lock_bytes;
};

static void futex_wait(_Atomic uint32_t *w, uint32_t v) {
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w) {
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static inline void cpu_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Waits until the low 31 bits of *w reach `want`; spins first, then sets the
 * sleeper bit and sleeps. Counts the wait and its spin/sleep time. */
static void wait_word(_Atomic uint32_t *w, uint32_t want, tstat_t *st) {
    uint32_t v = atomic_load_explicit(w, memory_order_acquire);
    if ((v & ~HR_SLEEPER) >= want)
        return;
    st->waits++;
    uint64_t t0 = hr_now_ns();
    for (uint32_t i = 0; i < HR_SPIN_ROUNDS; i++) {
        cpu_pause();
        if ((atomic_load_explicit(w, memory_order_acquire) & ~HR_SLEEPER) >= want) {
            st->spin_ns += hr_now_ns() - t0;
            return;
        }
    }
    uint64_t t1 = hr_now_ns();
    st->spin_ns += t1 - t0;
    for (;;) {
        v = atomic_load_explicit(w, memory_order_acquire);
        if ((v & ~HR_SLEEPER) >= want)
            break;
        if (!(v & HR_SLEEPER) &&
            !atomic_compare_exchange_weak_explicit(w, &v, v | HR_SLEEPER, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        futex_wait(w, v | HR_SLEEPER);
    }
    st->sleep_ns += hr_now_ns() - t1;
}

static void post_word(_Atomic uint32_t *w, uint32_t val) {
    if (atomic_exchange_explicit(w, val, memory_order_release) & HR_SLEEPER)
        futex_wake(w);
}

static void lock_inst(_Atomic uint32_t *l) {
    for (uint32_t i = 0; atomic_exchange_explicit(l, 1, memory_order_acquire); i++) {
        while (atomic_load_explicit(l, memory_order_relaxed))
            if (++i % 256 == 0)
                sched_yield(); /* the holder may have lost its core */
            else
                cpu_pause();
    }
}

static void unlock_inst(_Atomic uint32_t *l) { atomic_store_explicit(l, 0, memory_order_release); }

static inline _Atomic uint32_t *inst_lock(pool_t *p, uint32_t k) { return &p->lock[(size_t)k * 16]; }

/* Pacing: wait for the event's recorded time since the first event, times
 * the factor, after the lap's start. */
static void pace_to(const pool_t *p, uint64_t ts) {
    uint64_t rel = ts > p->s->ts0 ? ts - p->s->ts0 : 0;
    uint64_t target = p->lap_t0 + (uint64_t)((double)rel * p->opt->pace);
    for (uint64_t now = hr_now_ns(); now < target; now = hr_now_ns()) {
        if (target - now > 200000) {
            struct timespec ts_ = {0, (long)(target - now - 100000)};
            nanosleep(&ts_, NULL);
        } else {
            cpu_pause();
        }
    }
}

/* An event with a sync record: its waits, its op (on the owner's instance,
 * under its lock, when the block belongs to another thread's instance), its
 * posts. */
static void synced_op(tctx_t *c, run_t *r, const hr_event_t *ev, const hr_sync_t *sy, int locked) {
    pool_t *p = c->p;
    for (int k = 0; k < 2; k++)
        if (sy->wait_slot[k] != HR_SCHED_NONE)
            wait_word(&p->seq[sy->wait_slot[k]], sy->wait_seq[k], &c->st);
    if (sy->foreign && !p->shared) {
        void *own = r->inst;
        r->inst = p->inst[sy->owner];
        lock_inst(inst_lock(p, sy->owner));
        dispatch(r, ev);
        unlock_inst(inst_lock(p, sy->owner));
        r->inst = own;
    } else if (locked) {
        lock_inst(inst_lock(p, c->k));
        dispatch(r, ev);
        unlock_inst(inst_lock(p, c->k));
    } else {
        dispatch(r, ev);
    }
    for (int k = 0; k < 2; k++)
        if (sy->post_slot[k] != HR_SCHED_NONE)
            post_word(&p->seq[sy->post_slot[k]], sy->post_seq[k]);
}

/* The stream loop of locked or paced streams (each op checked); `locked`
 * and `paced` are constants in each instance of it. */
static inline __attribute__((always_inline)) void stream_loop_t(tctx_t *c, run_t *r, int locked,
                                                                int paced) {
    const hr_stream_t *st = &c->p->s->s[c->k];
    const hr_event_t *ev = st->ev, *end = ev + st->n;
    const hr_sync_t *sy = st->sync;
    /* As in the serial loop (engine.c): a local copy whose address does not
     * escape stays in registers across the allocator calls; the rare synced
     * events work on a second copy. */
    run_t lr = *r;
    for (; ev < end; ev++) {
        if (paced)
            pace_to(c->p, st->ts[ev - st->ev]);
        if (__builtin_expect(ev->flags & HR_EVF_SYNC, 0)) {
            run_t tmp = lr;
            synced_op(c, &tmp, ev, sy++, locked);
            lr = tmp;
        } else if (locked) {
            lock_inst(inst_lock(c->p, c->k));
            dispatch(&lr, ev);
            unlock_inst(inst_lock(c->p, c->k));
        } else {
            dispatch(&lr, ev);
        }
    }
    *r = lr;
}

/* The common stream (no lock, no pacing): the serial loop itself
 * (hr_run_range) over the stretches between synced events, each of which
 * waits, runs and publishes here. A stream with no cross-thread chain is one
 * stretch: it runs exactly the serial code. */
static void stretch_loop(tctx_t *c, run_t *r) {
    const hr_stream_t *st = &c->p->s->s[c->k];
    const hr_event_t *ev = st->ev;
    uint64_t from = 0;
    for (uint64_t k = 0; k < st->n_sync; k++) {
        const hr_sync_t *sy = &st->sync[k];
        hr_run_range(r, ev + from, ev + sy->at);
        synced_op(c, r, ev + sy->at, sy, 0);
        from = sy->at + 1;
    }
    hr_run_range(r, ev + from, ev + st->n);
}

#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-jump-tables")))
#endif
static void run_stream(tctx_t *c) {
    pool_t *p = c->p;
    run_t r;
    memset(&r, 0, sizeof r);
    r.alloc = p->be->alloc;
    r.free = p->be->free;
    r.frame = p->be->frame;
    r.heap_push = p->be->heap_push;
    r.heap_pop = p->be->heap_pop;
    r.top = -1;
    r.t = &c->view;
    r.be = p->be;
    r.inst = p->inst[c->k];
    r.slots = p->slots;
    r.hs = &c->hs;
    r.touch = p->opt->touch;
    c->hs.n = 0;
    int locked = p->s->s[c->k].locked && !p->shared, paced = p->opt->pace > 0 && p->s->s[c->k].ts;
    memset(&c->st, 0, sizeof c->st);
    c->st.start_ns = hr_now_ns();
    uint64_t cpu0 = hr_thread_cpu_ns();
    if (locked || paced)
        stream_loop_t(c, &r, locked, paced);
    else
        stretch_loop(c, &r);
    c->st.cpu_ns = hr_thread_cpu_ns() - cpu0;
    c->st.end_ns = hr_now_ns();
    c->st.empty_frees = r.empty_frees;
    c->st.failed = r.failed;
}

/* A pool thread: waits for each lap generation, runs its stream, reports. */
static void *thread_main(void *arg) {
    tctx_t *c = arg;
    pool_t *p = c->p;
    uint32_t seen = 0;
    for (;;) {
        uint32_t g;
        for (uint32_t i = 0; (g = atomic_load_explicit(&p->go, memory_order_acquire)) == seen; i++)
            if (i < HR_SPIN_ROUNDS)
                cpu_pause();
            else
                futex_wait(&p->go, seen);
        seen = g;
        if (atomic_load_explicit(&p->quit, memory_order_acquire))
            return NULL;
        run_stream(c);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_acq_rel);
        futex_wake(&p->done);
    }
}

/* ---- pool and laps -------------------------------------------------------- */

#define HR_MAX_REPLAY_THREADS 1024u
#define HR_MAX_WARM_LAPS      4096u

static void *hm(size_t n, size_t *keep) {
    *keep = n ? n : 1;
    return hr_hmem_alloc(*keep, HR_HMEM_POPULATE);
}

static int pool_open(pool_t *p, const hr_sched_t *s, const hr_trace_t *t, const hr_backend_t *be,
                     const hr_replay_options_t *opt, hr_error_t *err) {
    memset(p, 0, sizeof *p);
    p->s = s, p->t = t, p->be = be, p->opt = opt;
    p->shared = (be->caps & HR_CAP_THREAD_SAFE) != 0;
    p->ctx = hm(s->n * sizeof *p->ctx, &p->ctx_bytes);
    p->slots = hm((size_t)s->n_slots * sizeof *p->slots, &p->slot_bytes);
    p->seq = hm((size_t)s->n_slots * sizeof *p->seq, &p->seq_bytes);
    p->inst = hm(s->n * sizeof *p->inst, &p->inst_bytes);
    p->lock = hm((size_t)s->n * 16 * sizeof *p->lock, &p->lock_bytes);
    if (!p->ctx || !p->slots || !p->seq || !p->inst || !p->lock) {
        hr_error_set(err, "threaded replay: out of memory for %u threads", s->n);
        return -1;
    }
    for (uint32_t k = 0; k < s->n; k++) {
        tctx_t *c = &p->ctx[k];
        c->p = p;
        c->k = k;
        c->view = *t;
        c->view.events = s->s[k].ev;
        c->view.n_events = s->s[k].n;
    }
    for (uint32_t k = 1; k < s->n; k++)
        if (pthread_create(&p->ctx[k].th, NULL, thread_main, &p->ctx[k]) != 0) {
            hr_error_set(err, "threaded replay: cannot create thread %u of %u", k, s->n);
            atomic_store(&p->quit, 1); /* stop the ones that started */
            atomic_fetch_add(&p->go, 1);
            futex_wake(&p->go);
            for (uint32_t j = 1; j < k; j++)
                pthread_join(p->ctx[j].th, NULL);
            return -1;
        }
    return 0;
}

static void pool_close(pool_t *p) {
    if (p->ctx && p->s->n > 1 && !atomic_load(&p->quit)) {
        atomic_store(&p->quit, 1);
        atomic_fetch_add(&p->go, 1);
        futex_wake(&p->go);
        for (uint32_t k = 1; k < p->s->n; k++)
            pthread_join(p->ctx[k].th, NULL);
    }
    hr_hmem_free(p->ctx, p->ctx_bytes);
    hr_hmem_free(p->slots, p->slot_bytes);
    hr_hmem_free(p->seq, p->seq_bytes);
    hr_hmem_free(p->inst, p->inst_bytes);
    hr_hmem_free(p->lock, p->lock_bytes);
}

/* Fresh instances for a lap: one, or one per thread (not timed). */
static int lap_open(pool_t *p, const char *spec, hr_error_t *err) {
    memset((void *)p->seq, 0, p->seq_bytes);
    for (uint32_t k = 0; k < p->s->n; k++) {
        p->inst[k] = k && p->shared ? p->inst[0] : hr_run_create(p->t, p->be, spec, p->opt, err);
        if (!p->inst[k])
            return -1;
    }
    return 0;
}

/* Frees what the trace left live on the instance that owns it, destroys the
 * instances (not timed). */
static void lap_close(pool_t *p) {
    for (uint32_t id = 0; id < p->s->n_slots; id++)
        if (p->slots[id].p) {
            void *inst = p->inst[p->shared ? 0 : p->s->owner_end[id]];
            p->be->free(inst, p->slots[id].p, p->slots[id].size);
            p->slots[id].p = NULL;
        }
    for (uint32_t k = 0; k < p->s->n; k++) {
        if (p->inst[k] && !(k && p->shared))
            p->be->destroy(p->inst[k]);
        p->inst[k] = NULL;
    }
}

/* One lap on every thread: wall (first start to last end) and CPU (every
 * thread's, less its spinning); per-thread figures added to `sum`. */
static void lap_run(pool_t *p, uint64_t *wall, uint64_t *cpu, tstat_t *sum, tstat_t *total) {
    uint32_t n = p->s->n;
    atomic_store_explicit(&p->done, 0, memory_order_release);
    p->lap_t0 = hr_now_ns();
    atomic_fetch_add_explicit(&p->go, 1, memory_order_acq_rel);
    if (n > 1)
        futex_wake(&p->go);
    run_stream(&p->ctx[0]);
    uint32_t d;
    for (uint32_t i = 0; (d = atomic_load_explicit(&p->done, memory_order_acquire)) < n - 1; i++)
        if (i < HR_SPIN_ROUNDS)
            cpu_pause();
        else
            futex_wait(&p->done, d);
    uint64_t first = UINT64_MAX, last = 0, c = 0;
    for (uint32_t k = 0; k < n; k++) {
        const tstat_t *st = &p->ctx[k].st;
        first = st->start_ns < first ? st->start_ns : first;
        last = st->end_ns > last ? st->end_ns : last;
        c += st->cpu_ns > st->spin_ns ? st->cpu_ns - st->spin_ns : 0;
        tstat_t *out[2] = {sum ? &sum[k] : NULL, total};
        for (int j = 0; j < 2; j++)
            if (out[j]) {
                out[j]->cpu_ns += st->cpu_ns, out[j]->spin_ns += st->spin_ns;
                out[j]->sleep_ns += st->sleep_ns, out[j]->waits += st->waits;
                out[j]->empty_frees += st->empty_frees, out[j]->failed += st->failed;
            }
    }
    *wall = last - first;
    *cpu = c;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The cold lap, then warm laps until opt->warm_time_s of lap wall time. */
static int laps_loop(pool_t *p, const char *spec, laps_t *laps, thr_result_t *tr,
                     hr_error_t *err) {
    size_t bytes = 2 * HR_MAX_WARM_LAPS * sizeof(uint64_t);
    uint64_t *walls = hr_hmem_alloc(bytes, HR_HMEM_POPULATE), *cpus = walls + HR_MAX_WARM_LAPS;
    if (!walls) {
        hr_error_set(err, "out of memory for the lap table");
        return -1;
    }
    uint64_t budget = (uint64_t)(p->opt->warm_time_s * 1e9), spent = 0, n = 0;
    int rc = lap_open(p, spec, err);
    if (rc == 0) {
        lap_run(p, &laps->cold_wall, &laps->cold_cpu, NULL, &tr->cold_sum);
        tr->cold_wall = laps->cold_wall;
    }
    lap_close(p);
    while (rc == 0) {
        uint64_t w, c;
        if ((rc = lap_open(p, spec, err)) == 0)
            lap_run(p, &w, &c, tr->warm, NULL);
        lap_close(p);
        if (rc != 0)
            break;
        if (n < HR_MAX_WARM_LAPS)
            walls[n] = w, cpus[n] = c;
        n++;
        spent += w;
        if (spent >= budget)
            break;
    }
    if (rc == 0) {
        size_t k = n < HR_MAX_WARM_LAPS ? (size_t)n : HR_MAX_WARM_LAPS;
        laps->n_warm = tr->n_warm = n;
        laps->warm_wall = median(walls, k);
        laps->warm_cpu = median(cpus, k);
    }
    hr_hmem_free(walls, bytes);
    return rc;
}

int hr_threads_laps(const hr_trace_t *t, const hr_backend_t *be, const char *spec,
                    const hr_replay_options_t *opt, laps_t *laps, thr_result_t *tr,
                    hr_error_t *err) {
    memset(laps, 0, sizeof *laps);
    memset(tr, 0, sizeof *tr);
    if (t->n_threads > HR_MAX_REPLAY_THREADS) {
        hr_error_set(err, "threaded replay: the trace has %u threads, at most %u can be replayed "
                          "on threads (use --threads serial)", t->n_threads, HR_MAX_REPLAY_THREADS);
        return -1;
    }
    hr_sched_t *s = hr_hmem_alloc(sizeof *s, 0);
    if (!s || hr_sched_build(s, t, err) != 0) {
        hr_hmem_free(s, sizeof *s);
        return -1;
    }
    tr->sched = s;
    tr->n = s->n;
    tr->cross_frees = s->cross_frees;
    tr->pace = opt->pace > 0 && t->ts ? opt->pace : 0;
    for (uint32_t k = 0; k < s->n; k++)
        tr->locked += (uint32_t)(s->s[k].locked && !(be->caps & HR_CAP_THREAD_SAFE));
    tr->warm = hr_hmem_alloc(s->n * sizeof *tr->warm, 0);
    pool_t *p = hr_hmem_alloc(sizeof *p, 0);
    int rc = -1;
    if (!tr->warm || !p)
        hr_error_set(err, "threaded replay: out of memory");
    else if (pool_open(p, s, t, be, opt, err) == 0)
        rc = laps_loop(p, spec, laps, tr, err);
    if (p)
        pool_close(p);
    hr_hmem_free(p, sizeof *p);
    return rc;
}

void hr_threads_done(thr_result_t *tr) {
    if (tr->sched) {
        hr_hmem_free(tr->warm, tr->n * sizeof *tr->warm);
        hr_sched_free((hr_sched_t *)tr->sched);
        hr_hmem_free((void *)tr->sched, sizeof(hr_sched_t));
    }
    memset(tr, 0, sizeof *tr);
}
