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
 * the allocator's.
 *
 * Publishing a dependency is on the hot path (jobs: a quarter of all events),
 * so it is a plain release store followed by a read of a sleeper count (one
 * of HR_SLEEP_BUCKETS, chosen by the word's slot), not an atomic exchange (a
 * full barrier that stalled every post: 40 % of a 2-thread tcmalloc replay's
 * time). That is a Dekker pattern (store
 * word, load count / increment count, load word), which needs a full barrier
 * on both sides; the poster's half is paid by the rare sleeper instead: it
 * increments the count, then calls membarrier(PRIVATE_EXPEDITED), which runs
 * a full barrier on every running thread of the process, then reads the word
 * once more and sleeps on it. Either the poster's store is visible to that
 * read, or its later read of the count sees the sleeper and wakes the word
 * (a futex wait on a word whose value changed returns at once). Without
 * membarrier the poster issues the full fence itself. The counts are
 * bucketed so that a post wakes (a syscall) only when someone sleeps on a
 * word of its bucket: with more threads than cores someone nearly always
 * sleeps, and one shared count made every post a futex_wake (17 % of a
 * 4-thread replay on 2 cores). */
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/hmem.h"
#include "base/order.h"
#include "base/sysinfo.h"
#include "replay/engine_int.h"
#include "replay/engine_ops.h"
#include "replay/paced.h"
#include "replay/sched.h"
#include "replay/warmstop.h"

#define HR_SPIN_ROUNDS 2000u          /* pauses before sleeping on a dependency */
#define HR_YIELD_ROUNDS 16u           /* then sched_yield()s before sleeping */
#define HR_SLEEP_BUCKETS 256u         /* sleeper counts, by slot (header) */
/* Below this many events per synced event, a stream runs the per-event loop
 * (stream_loop_t) rather than the serial loop between synced events
 * (stretch_loop), which copies the run state in and out per stretch. */
#define HR_STRETCH_MIN 16u

/* The dependency wait's policy (tests set 0, 0 to sleep at once). */
static uint32_t g_spin_rounds = HR_SPIN_ROUNDS, g_yield_rounds = HR_YIELD_ROUNDS;

void hr_threads_set_wait_policy(uint32_t spins, uint32_t yields) {
    g_spin_rounds = spins;
    g_yield_rounds = yields;
}

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
    _Atomic uint32_t          *sleepers; /* HR_SLEEP_BUCKETS: threads asleep on a seq word */
    int                        fence;   /* no membarrier: posters fence themselves */
    void                     **inst;    /* per thread (all equal when shared) */
    _Atomic uint32_t          *lock;    /* per instance, 16 words apart */
    int                        shared;  /* HR_CAP_THREAD_SAFE: one instance */
    uint64_t                   lap_t0;  /* pacing origin (CLOCK_MONOTONIC) */
    const hr_paced_map_t      *map;     /* the paced memory lap's timeline, or NULL */
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

/* Asks the kernel for the sleeper's half of the barrier (header); 0 when it
 * can be had, else the posters must fence. */
static int membarrier_ready(void) {
    static int state; /* 0 unknown, 1 registered, -1 unavailable */
    if (!state)
        state = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 1 : -1;
    return state > 0 ? 0 : -1;
}

/* The slow part of wait_word: spins first, then sleeps (header: the barrier
 * protocol). Counts the wait and its spin/sleep time. */
static __attribute__((noinline)) void wait_slow(pool_t *p, uint32_t slot, uint32_t want,
                                                tstat_t *st) {
    _Atomic uint32_t *w = &p->seq[slot], *sleepers = &p->sleepers[slot % HR_SLEEP_BUCKETS];
    st->waits++;
    uint64_t t0 = hr_now_ns(), c0 = hr_thread_cpu_ns();
    for (uint32_t i = 0; i < g_spin_rounds + g_yield_rounds; i++) {
        if (i < g_spin_rounds)
            cpu_pause();
        else
            sched_yield(); /* more threads than cores: the one we wait for may be ready to run here */
        if (atomic_load_explicit(w, memory_order_acquire) >= want) {
            st->spin_ns += hr_now_ns() - t0;
            st->spin_cpu_ns += hr_thread_cpu_ns() - c0;
            return;
        }
    }
    uint64_t t1 = hr_now_ns();
    st->spin_ns += t1 - t0;
    st->spin_cpu_ns += hr_thread_cpu_ns() - c0;
    atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
    if (!p->fence)
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    for (uint32_t v; (v = atomic_load_explicit(w, memory_order_acquire)) < want;)
        futex_wait(w, v);
    atomic_fetch_sub_explicit(sleepers, 1, memory_order_relaxed);
    st->sleep_ns += hr_now_ns() - t1;
}

/* Waits until seq[slot] reaches `want`: one load when the dependency is met. */
static inline void wait_word(pool_t *p, uint32_t slot, uint32_t want, tstat_t *st) {
    if (__builtin_expect(atomic_load_explicit(&p->seq[slot], memory_order_acquire) < want, 0))
        wait_slow(p, slot, want, st);
}

static inline void post_word(pool_t *p, uint32_t slot, uint32_t val) {
    _Atomic uint32_t *w = &p->seq[slot];
    atomic_store_explicit(w, val, memory_order_release);
    if (p->fence)
        atomic_thread_fence(memory_order_seq_cst);
    else
        atomic_signal_fence(memory_order_seq_cst); /* the sleeper's membarrier is the fence */
    if (atomic_load_explicit(&p->sleepers[slot % HR_SLEEP_BUCKETS], memory_order_relaxed))
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
 * the factor, after the lap's start; on the paced memory lap, for its time
 * on the compressed timeline (paced.h). */
static void pace_to(const pool_t *p, uint64_t ts) {
    uint64_t rel = ts > p->s->ts0 ? ts - p->s->ts0 : 0;
    hr_paced_wait_until(p->lap_t0 + (p->map ? hr_paced_rel(p->map, ts)
                                            : (uint64_t)((double)rel * p->opt->pace)));
}

/* The op of an event on a block another thread's instance owns: on that
 * instance, under its lock. Out of line (in-house allocators only, and rare),
 * on a copy of the run state so the loop's copy stays in registers. */
static __attribute__((noinline)) void foreign_op(pool_t *p, run_t *lr, const hr_event_t *ev,
                                                 uint16_t owner) {
    run_t r = *lr;
    r.inst = p->inst[owner];
    lock_inst(inst_lock(p, owner));
    dispatch(&r, ev);
    unlock_inst(inst_lock(p, owner));
    r.inst = lr->inst;
    *lr = r;
}

/* An event with a sync record: its waits, its op (foreign_op when the block
 * belongs to another thread's instance; under its own instance's lock when
 * `locked`), its posts. Inlined into the stream loops: a job system's
 * streams have a sync record on every second event or so. */
static inline __attribute__((always_inline)) void synced_op(tctx_t *c, run_t *r,
                                                            const hr_event_t *ev,
                                                            const hr_sync_t *sy, int locked) {
    pool_t *p = c->p;
    if (sy->wait_slot != HR_SCHED_NONE)
        wait_word(p, sy->wait_slot, sy->wait_seq, &c->st);
    if (__builtin_expect(sy->foreign && !p->shared, 0)) {
        foreign_op(p, r, ev, sy->owner);
    } else if (locked) {
        lock_inst(inst_lock(p, c->k));
        dispatch(r, ev);
        unlock_inst(inst_lock(p, c->k));
    } else {
        dispatch(r, ev);
    }
    if (sy->post_slot != HR_SCHED_NONE)
        post_word(p, sy->post_slot, sy->post_seq);
}

/* The per-event stream loop: locked or paced streams, and streams dense in
 * synced events (a flag test per event); `locked` and `paced` are constants
 * in each instance of it. */
static inline __attribute__((always_inline)) void stream_loop_t(tctx_t *c, run_t *r, int locked,
                                                                int paced) {
    const hr_stream_t *st = &c->p->s->s[c->k];
    const hr_event_t *ev = st->ev, *end = ev + st->n;
    const hr_sync_t *sy = st->sync;
    /* As in the serial loop (engine.c): a local copy whose address does not
     * escape stays in registers across the allocator calls (synced_op is
     * inlined; only foreign_op, out of line, works on a copy). */
    run_t lr = *r;
    for (; ev < end; ev++) {
        if (paced)
            pace_to(c->p, st->ts[ev - st->ev]);
        if (__builtin_expect(ev->flags & HR_EVF_SYNC, 0)) {
            synced_op(c, &lr, ev, sy++, locked);
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
    r.t = &c->view;
    hr_run_bind(&r, p->be);
    hr_run_use_timed(&r); /* the threaded laps are timed laps */
    r.inst = p->inst[c->k];
    r.slots = p->slots;
    r.hs = &c->hs;
    r.touch = p->opt->touch;
    r.touch_cap = p->opt->touch_cap;
    c->hs.n = 0;
    int locked = p->s->s[c->k].locked && !p->shared;
    int paced = (p->opt->pace > 0 || p->map) && p->s->s[c->k].ts;
    memset(&c->st, 0, sizeof c->st);
    c->st.start_ns = hr_now_ns();
    uint64_t cpu0 = hr_thread_cpu_ns();
    const hr_stream_t *st = &p->s->s[c->k];
    if (locked || paced)
        stream_loop_t(c, &r, locked, paced);
    else if (st->n_sync * HR_STRETCH_MIN > st->n)
        stream_loop_t(c, &r, 0, 0); /* short stretches: a flag test per event is cheaper */
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
    /* one 64-byte line per instance lock, then the sleeper counts */
    p->lock = hm(((size_t)s->n * 16 + HR_SLEEP_BUCKETS) * sizeof *p->lock, &p->lock_bytes);
    p->fence = membarrier_ready() != 0;
    if (!p->ctx || !p->slots || !p->seq || !p->inst || !p->lock) {
        hr_error_set(err, "threaded replay: out of memory for %u threads", s->n);
        return -1;
    }
    p->sleepers = &p->lock[(size_t)s->n * 16];
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
static int lap_open(pool_t *p, const hr_run_alloc_t *a, hr_error_t *err) {
    memset((void *)p->seq, 0, p->seq_bytes);
    for (uint32_t k = 0; k < p->s->n; k++) {
        p->inst[k] = k && p->shared ? p->inst[0] : hr_run_create(p->t, a, p->opt, err);
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
        c += hr_tstat_work_ns(st);
        tstat_t *out[2] = {sum ? &sum[k] : NULL, total};
        for (int j = 0; j < 2; j++)
            if (out[j]) {
                out[j]->cpu_ns += st->cpu_ns, out[j]->spin_ns += st->spin_ns;
                out[j]->spin_cpu_ns += st->spin_cpu_ns;
                out[j]->sleep_ns += st->sleep_ns, out[j]->waits += st->waits;
                out[j]->empty_frees += st->empty_frees, out[j]->failed += st->failed;
            }
    }
    *wall = last - first;
    *cpu = c;
}

static uint64_t median(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, hr_cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The cold lap, then warm laps until warmstop.h says stop (at least one). */
static int laps_loop(pool_t *p, const hr_run_alloc_t *a, laps_t *laps, thr_result_t *tr,
                     hr_error_t *err) {
    size_t bytes = 2 * HR_MAX_WARM_LAPS * sizeof(uint64_t);
    uint64_t *walls = hr_hmem_alloc(bytes, HR_HMEM_POPULATE), *cpus = walls + HR_MAX_WARM_LAPS;
    hr_warmstop_opts_t so = hr_warmstop_default(p->opt->warm_stop, p->opt->warm_time_s);
    hr_warmstop_t ws;
    if (!walls || hr_warmstop_open(&ws, &so) != 0) {
        hr_hmem_free(walls, bytes);
        hr_error_set(err, "out of memory for the lap table");
        return -1;
    }
    uint64_t n = 0;
    int rc = lap_open(p, a, err);
    if (rc == 0) {
        for (uint32_t k = 0; k < p->s->n; k++) /* as the serial cold lap (engine_int.h) */
            hr_events_prewalk_range(p->s->s[k].ev, p->s->s[k].n);
        lap_run(p, &laps->cold_wall, &laps->cold_cpu, NULL, &tr->cold_sum);
        tr->cold_wall = laps->cold_wall;
    }
    lap_close(p);
    while (rc == 0) {
        uint64_t w, c;
        if ((rc = lap_open(p, a, err)) == 0)
            lap_run(p, &w, &c, tr->warm, NULL);
        lap_close(p);
        if (rc != 0)
            break;
        if (n < HR_MAX_WARM_LAPS)
            walls[n] = w, cpus[n] = c;
        n++;
        if (hr_warmstop_lap(&ws, w, c))
            break;
    }
    if (rc == 0) {
        size_t k = n < HR_MAX_WARM_LAPS ? (size_t)n : HR_MAX_WARM_LAPS;
        laps->n_warm = tr->n_warm = n;
        laps->warm_wall = median(walls, k);
        laps->warm_cpu = median(cpus, k);
    }
    hr_warmstop_close(&ws);
    hr_hmem_free(walls, bytes);
    return rc;
}

int hr_threads_laps(const hr_trace_t *t, const hr_run_alloc_t *a,
                    const hr_replay_options_t *opt, laps_t *laps, thr_result_t *tr,
                    hr_error_t *err) {
    const hr_backend_t *be = a->spec->be;
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
    tr->pace = opt->pace > 0 && hr_trace_has_ts(t) ? opt->pace : 0;
    for (uint32_t k = 0; k < s->n; k++)
        tr->locked += (uint32_t)(s->s[k].locked && !(be->caps & HR_CAP_THREAD_SAFE));
    tr->warm = hr_hmem_alloc(s->n * sizeof *tr->warm, 0);
    pool_t *p = hr_hmem_alloc(sizeof *p, 0);
    int rc = -1;
    if (!tr->warm || !p)
        hr_error_set(err, "threaded replay: out of memory");
    else if (pool_open(p, s, t, be, opt, err) == 0)
        rc = laps_loop(p, a, laps, tr, err);
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

/* The paced memory lap on threads (paced.h): the pool and schedule of the
 * time mode, one lap whose streams wait on the compressed timeline. */
int hr_threads_paced_lap(const hr_trace_t *t, const hr_run_alloc_t *a,
                         const hr_replay_options_t *opt, const hr_paced_map_t *map,
                         hr_error_t *err) {
    if (t->n_threads > HR_MAX_REPLAY_THREADS) {
        hr_error_set(err, "the trace has %u threads, at most %u can be replayed on threads",
                     t->n_threads, HR_MAX_REPLAY_THREADS);
        return -1;
    }
    hr_sched_t *s = hr_hmem_alloc(sizeof *s, 0);
    pool_t *p = hr_hmem_alloc(sizeof *p, 0);
    int rc = -1;
    if (!s || !p)
        hr_error_set(err, "threaded replay: out of memory");
    else if (hr_sched_build(s, t, err) == 0) {
        if (pool_open(p, s, t, a->spec->be, opt, err) == 0) {
            uint64_t wall, cpu;
            p->map = map;
            if ((rc = lap_open(p, a, err)) == 0)
                lap_run(p, &wall, &cpu, NULL, NULL);
            lap_close(p);
        }
        pool_close(p);
        hr_sched_free(s);
    }
    hr_hmem_free(p, sizeof *p);
    hr_hmem_free(s, sizeof *s);
    return rc;
}
