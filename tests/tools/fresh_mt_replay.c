/* fresh_mt_replay: the multithreaded replay an allocator engineer would write
 * by hand, as the reference heapreplay's threaded figures are checked
 * against. The multithreaded twin of fresh_replay.c.
 *
 *   fresh_mt_replay [--warm-time S | --warm-laps N] FLATFILE
 *
 * FLATFILE is a flat event file (tests/tools/flat_events.h, made by
 * tests/tools/dump_events); select the allocator with LD_PRELOAD.
 *
 * Contract:
 * - One OS thread per recorded thread, created once before the cold lap and
 *   kept for every lap; recorded thread 0 runs on the process's main thread
 *   (glibc gives it the main arena, as the real program's main thread has).
 *   Each replays its own records in file order.
 * - Blocks, not ids: every alloc, calloc and realloc creates a new block
 *   numbered in file order, with its own cell (pointer, size, ready flag), so
 *   no cell is ever reused and no name creates a dependency. A block consumed
 *   (freed or realloc'd) on another thread than the one that created it is a
 *   hand-off: its creator sets the ready flag after the op (a plain store),
 *   the consumer waits for the flag first. Nothing else is ordered between
 *   threads. Waiting follows the same policy as heapreplay's (spin 2000
 *   pauses, then 16 sched_yield()s, then sleep on a futex) with a protocol of
 *   its own: the sleeper marks the cell and sleeps with a 200 us timeout; the
 *   poster reads the mark after its store, with no fence, so a wake-up can
 *   be missed in a narrow race and is then made up by the timeout. This is worked out once, before the
 *   laps, by one walk over the file; it shares no code with heapreplay's
 *   scheduler (src/replay/sched.c), which is what it checks.
 * - Nothing of its own comes from malloc: the file is mmapped, the per-thread
 *   records, cells and lap tables are anonymous mmaps, thread stacks come
 *   from pthread_create (mmap), the output is a stack buffer and write(2).
 * - Touch policy "first" as fresh_replay: one byte per 4 KiB step of a new
 *   block and of a realloc's grown part; calloc'd blocks are not touched.
 * - Laps: a cold lap (the first in a fresh process), then warm laps until
 *   --warm-time seconds (default 0.5; 0 = none) of wall time, or exactly
 *   --warm-laps N. Between laps, not timed: the blocks the trace leaves live
 *   are freed on the main thread and the ready flags cleared. A lap's wall
 *   time runs from the first thread's start to the last thread's end (as
 *   heapreplay's threads.ops_per_s); its CPU time is every thread's
 *   CLOCK_THREAD_CPUTIME_ID less the time it spent spinning and yielding
 *   for a hand-off (sleeping takes no CPU).
 *
 * Output: one line of JSON on stdout:
 *   threads, ops, blocks, handoffs (cross-thread consumptions per lap),
 *   cold_wall_s, cold_cpu_s, cold_ops_per_s          the cold lap
 *   wall_s, cpu_s, ops_per_s, ns_per_op (CPU / ops)   the median warm lap
 *                                                     (null without one)
 *   warm_laps, waits (hand-offs that found the flag unset, summed over the
 *   laps), failed_allocs (cold lap), malloc_provider.
 * Exit 0, or 2 on bad usage or a bad file. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "flat_events.h"

#define MT_MAX_THREADS 256u
#define MT_MAX_LAPS    (1u << 16)
#define MT_SPINS       2000u /* pauses, */
#define MT_YIELDS      16u   /* then sched_yield()s before sleeping */

enum { MT_WAIT = 1, MT_POST = 2 };

/* One record as a thread replays it: the blocks it consumes and creates. */
typedef struct mt_rec {
    uint8_t  op, flags;
    uint16_t pad;
    uint32_t align;
    uint32_t blk; /* block created (alloc, calloc, realloc) or freed (free) */
    uint32_t aux; /* realloc: the block it consumes; calloc: element count */
    uint64_t size;
    uint64_t osz; /* realloc: the size of the block it consumes */
} mt_rec_t;

/* 16 bytes: every allocation writes a fresh cell, so the cell is the
 * reference's own memory traffic per op (24-byte cells with the size cost
 * ~0.5 ns/op at one thread against tests/tools/fresh_replay's slots). */
typedef struct mt_cell {
    void            *p;
    _Atomic uint32_t ready;
    _Atomic uint32_t sleeper; /* a consumer sleeps on `ready` */
} mt_cell_t;

typedef struct mt_thread {
    pthread_t  th;
    mt_rec_t  *rec;
    uint64_t   n;
    uint64_t   start, end, cpu, spin_ns, waits, failed;
    uint64_t   sleeps, timeouts; /* futex sleeps, and those ended by the timeout */
    char       pad[64];
} mt_thread_t;

static mt_cell_t        *g_cell;
static mt_thread_t      *g_thr;
static uint32_t          g_nthr;
static pthread_barrier_t g_start, g_end;
static _Atomic int       g_quit;
static uint64_t          g_sleeps, g_timeouts; /* over every lap */

static uint64_t mt_now(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *mt_map(size_t bytes) {
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static inline void mt_touch(void *p, uint64_t from, uint64_t to) {
    for (uint64_t off = from; off < to; off += 4096)
        ((volatile char *)p)[off] = 1;
}

static inline void mt_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void mt_wait(mt_thread_t *t, mt_cell_t *c) {
    if (atomic_load_explicit(&c->ready, memory_order_acquire))
        return;
    uint64_t t0 = mt_now(CLOCK_MONOTONIC);
    t->waits++;
    uint32_t i = 0;
    for (; i < MT_SPINS + MT_YIELDS && !atomic_load_explicit(&c->ready, memory_order_acquire); i++) {
        if (i < MT_SPINS)
            mt_pause();
        else
            sched_yield();
    }
    t->spin_ns += mt_now(CLOCK_MONOTONIC) - t0; /* spinning is CPU; sleeping is not */
    if (i < MT_SPINS + MT_YIELDS)
        return;
    atomic_store(&c->sleeper, 1);
    struct timespec to = {0, 200000};
    t->sleeps++;
    while (!atomic_load_explicit(&c->ready, memory_order_acquire))
        if (syscall(SYS_futex, &c->ready, FUTEX_WAIT_PRIVATE, 0, &to, NULL, 0) != 0 &&
            errno == ETIMEDOUT)
            t->timeouts++;
    atomic_store_explicit(&c->sleeper, 0, memory_order_relaxed);
}

/* One thread's records, in order. Loop state in locals: the allocator calls
 * could change anything global, so fields of *t would be reloaded and stored
 * around every call. */
static void mt_run(mt_thread_t *t) {
    mt_cell_t *cell = g_cell;
    const mt_rec_t *r = t->rec, *end = r + t->n;
    uint64_t failed = 0;
    for (; r < end; r++) {
        mt_cell_t *c = &cell[r->blk];
        void *p;
        switch (r->op) {
        case HR_FLAT_FREE:
            if (r->flags & MT_WAIT)
                mt_wait(t, c);
            free(c->p);
            c->p = NULL;
            continue;
        case HR_FLAT_ALLOC:
            if (r->align > 16) {
                if (posix_memalign(&p, r->align, r->size) != 0)
                    p = NULL;
            } else {
                p = malloc(r->size);
            }
            if (p)
                mt_touch(p, 0, r->size);
            break;
        case HR_FLAT_CALLOC:
            p = calloc(r->aux, r->size);
            break;
        default: { /* HR_FLAT_REALLOC */
            mt_cell_t *o = &cell[r->aux];
            if (r->flags & MT_WAIT)
                mt_wait(t, o);
            uint64_t osz = o->p ? r->osz : 0;
            p = realloc(o->p, r->size);
            if (p)
                mt_touch(p, osz, r->size);
            else if (r->size)
                free(o->p);
            o->p = NULL;
            break;
        }
        }
        c->p = p;
        failed += p == NULL;
        if (r->flags & MT_POST) {
            atomic_store_explicit(&c->ready, 1, memory_order_release);
            if (atomic_load_explicit(&c->sleeper, memory_order_relaxed))
                syscall(SYS_futex, &c->ready, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        }
    }
    t->failed = failed;
}

static void mt_lap(mt_thread_t *t) {
    t->waits = t->spin_ns = t->failed = t->sleeps = t->timeouts = 0;
    t->start = mt_now(CLOCK_MONOTONIC);
    uint64_t c0 = mt_now(CLOCK_THREAD_CPUTIME_ID);
    mt_run(t);
    t->cpu = mt_now(CLOCK_THREAD_CPUTIME_ID) - c0;
    t->end = mt_now(CLOCK_MONOTONIC);
}

static void *mt_main(void *arg) {
    mt_thread_t *t = arg;
    for (;;) {
        pthread_barrier_wait(&g_start);
        if (atomic_load(&g_quit))
            return NULL;
        mt_lap(t);
        pthread_barrier_wait(&g_end);
    }
}

/* Where each record goes (per-thread arrays), with its blocks and hand-off
 * flags: one walk in file order. `cur` maps a live id to its block, `maker`
 * a block to (thread << 32 | record index) of the record that created it.
 * Returns the number of blocks, or 0 on a record that consumes an id that is
 * not live. */
static uint32_t mt_plan(const hr_flat_event_t *ev, uint64_t n, uint32_t n_ids, uint64_t *handoffs) {
    uint32_t *cur = mt_map((size_t)n_ids * 4);
    uint64_t *maker = mt_map((size_t)(n + 1) * 8);
    uint64_t *fill = mt_map(MT_MAX_THREADS * 8);
    uint32_t blocks = 1; /* block 0: "none" */
    if (!cur || !maker || !fill)
        return 0;
    for (uint64_t i = 0; i < n; i++) {
        const hr_flat_event_t *e = &ev[i];
        mt_rec_t *r = &g_thr[e->thread].rec[fill[e->thread]];
        uint32_t consumed = e->op == HR_FLAT_FREE ? e->id : e->op == HR_FLAT_REALLOC ? e->aux : n_ids;
        r->op = (uint8_t)e->op;
        r->align = e->align;
        r->aux = e->aux; /* calloc's count; a realloc's block below */
        r->size = e->size;
        if (consumed < n_ids) {
            uint32_t b = cur[consumed];
            if (!b)
                return 0;
            cur[consumed] = 0;
            uint64_t m = maker[b];
            mt_rec_t *mk = &g_thr[m >> 32].rec[(uint32_t)m];
            if ((uint32_t)(m >> 32) != e->thread) { /* a hand-off */
                mk->flags |= MT_POST;
                r->flags |= MT_WAIT;
                ++*handoffs;
            }
            if (e->op == HR_FLAT_FREE) {
                r->blk = b;
            } else {
                r->aux = b;
                r->osz = mk->op == HR_FLAT_CALLOC ? (uint64_t)mk->aux * mk->size : mk->size;
            }
        }
        if (e->op != HR_FLAT_FREE) {
            if (cur[e->id])
                return 0; /* created over a live id */
            cur[e->id] = blocks;
            maker[blocks] = (uint64_t)e->thread << 32 | fill[e->thread];
            r->blk = blocks++;
        }
        fill[e->thread]++;
    }
    munmap(cur, (size_t)n_ids * 4);
    munmap(maker, (size_t)(n + 1) * 8);
    munmap(fill, MT_MAX_THREADS * 8);
    return blocks;
}

/* Frees what the trace left live, clears the flags (between laps). */
static void mt_reset(uint32_t blocks) {
    for (uint32_t b = 1; b < blocks; b++) {
        free(g_cell[b].p);
        g_cell[b].p = NULL;
        atomic_store_explicit(&g_cell[b].ready, 0, memory_order_relaxed);
        atomic_store_explicit(&g_cell[b].sleeper, 0, memory_order_relaxed);
    }
}

/* One lap on every thread: wall, CPU less spinning, waits, failures. */
static void mt_lap_all(uint64_t *wall, uint64_t *cpu, uint64_t *waits, uint64_t *failed) {
    pthread_barrier_wait(&g_start);
    mt_lap(&g_thr[0]);
    pthread_barrier_wait(&g_end);
    uint64_t first = UINT64_MAX, last = 0;
    *cpu = 0;
    for (uint32_t k = 0; k < g_nthr; k++) {
        mt_thread_t *t = &g_thr[k];
        first = t->start < first ? t->start : first;
        last = t->end > last ? t->end : last;
        *cpu += t->cpu > t->spin_ns ? t->cpu - t->spin_ns : 0;
        *waits += t->waits;
        g_sleeps += t->sleeps;
        g_timeouts += t->timeouts;
        *failed += t->failed;
    }
    *wall = last - first;
}

/* Maps and checks the file; sets *ev, *h. */
static int mt_open(const char *path, const hr_flat_event_t **ev, hr_flat_header_t *h) {
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(path);
        return -1;
    }
    const char *map = (uint64_t)st.st_size < sizeof *h ? MAP_FAILED
        : mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (map != MAP_FAILED)
        memcpy(h, map, sizeof *h);
    if (map == MAP_FAILED || memcmp(h->magic, HR_FLAT_MAGIC, sizeof h->magic) != 0 ||
        h->rec_size != sizeof(hr_flat_event_t) ||
        h->n_events > ((uint64_t)st.st_size - sizeof *h) / sizeof(hr_flat_event_t) ||
        h->n_events >= UINT32_MAX) {
        fprintf(stderr, "%s: not a flat event file (bad magic, record size or length)\n", path);
        return -1;
    }
    *ev = (const hr_flat_event_t *)(map + sizeof *h);
    for (uint64_t i = 0; i < h->n_events; i++) {
        const hr_flat_event_t *e = &(*ev)[i];
        if (e->id >= h->n_ids || (e->op == HR_FLAT_REALLOC && e->aux >= h->n_ids) ||
            e->op > HR_FLAT_FREE || e->thread >= MT_MAX_THREADS) {
            fprintf(stderr, "%s: record %llu: bad op, id or thread\n", path, (unsigned long long)i);
            return -1;
        }
        if (e->thread >= g_nthr)
            g_nthr = e->thread + 1u;
    }
    if (!g_nthr)
        g_nthr = 1;
    return 0;
}

/* Per-thread record arrays sized by a counting walk. */
static int mt_alloc_threads(const hr_flat_event_t *ev, uint64_t n) {
    g_thr = mt_map(g_nthr * sizeof *g_thr);
    if (!g_thr)
        return -1;
    for (uint64_t i = 0; i < n; i++)
        g_thr[ev[i].thread].n++;
    for (uint32_t k = 0; k < g_nthr; k++)
        if (!(g_thr[k].rec = mt_map(g_thr[k].n * sizeof(mt_rec_t))))
            return -1;
    return 0;
}

int main(int argc, char **argv) {
    double warm_time;
    long warm_fixed;
    const char *path;
    if (hr_flat_args(argc, argv, "fresh_mt_replay", (long)MT_MAX_LAPS, &warm_time, &warm_fixed,
                     &path) != 0)
        return 2;
    const hr_flat_event_t *ev;
    hr_flat_header_t h;
    if (mt_open(path, &ev, &h) != 0)
        return 2;
    uint64_t handoffs = 0;
    if (mt_alloc_threads(ev, h.n_events) != 0) {
        perror("mmap");
        return 2;
    }
    uint32_t blocks = mt_plan(ev, h.n_events, h.n_ids, &handoffs);
    if (!blocks) {
        fprintf(stderr, "%s: a record frees an id that is not live, or creates a live one\n", path);
        return 2;
    }
    g_cell = mt_map((size_t)blocks * sizeof *g_cell);
    uint64_t *lap_wall = mt_map(MT_MAX_LAPS * 8), *lap_cpu = mt_map(MT_MAX_LAPS * 8);
    if (!g_cell || !lap_wall || !lap_cpu || pthread_barrier_init(&g_start, NULL, g_nthr) != 0 ||
        pthread_barrier_init(&g_end, NULL, g_nthr) != 0) {
        perror("fresh_mt_replay: setup");
        return 2;
    }
    for (uint32_t k = 1; k < g_nthr; k++)
        if (pthread_create(&g_thr[k].th, NULL, mt_main, &g_thr[k]) != 0) {
            perror("pthread_create");
            return 2;
        }

    uint64_t cold_wall, cold_cpu, waits = 0, failed = 0, ignored = 0;
    mt_lap_all(&cold_wall, &cold_cpu, &waits, &failed);
    mt_reset(blocks);
    size_t laps = 0;
    const uint64_t warm_ns = (uint64_t)(warm_time * 1e9), w0 = mt_now(CLOCK_MONOTONIC);
    while (laps < MT_MAX_LAPS && (warm_fixed >= 0 ? laps < (size_t)warm_fixed
                                                  : mt_now(CLOCK_MONOTONIC) - w0 < warm_ns)) {
        mt_lap_all(&lap_wall[laps], &lap_cpu[laps], &waits, &ignored);
        mt_reset(blocks);
        laps++;
    }
    atomic_store(&g_quit, 1);
    pthread_barrier_wait(&g_start);
    for (uint32_t k = 1; k < g_nthr; k++)
        pthread_join(g_thr[k].th, NULL);
    double mw = laps ? hr_flat_median(lap_wall, laps) : 0;
    double mc = laps ? hr_flat_median(lap_cpu, laps) : 0;
    double ops = h.n_events ? (double)h.n_events : 1;

    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    const char *prov = sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "?";
    char out[4096], w[4][32];
    if (laps) {
        snprintf(w[0], sizeof w[0], "%.9f", mw / 1e9);
        snprintf(w[1], sizeof w[1], "%.9f", mc / 1e9);
        snprintf(w[2], sizeof w[2], "%.1f", ops / (mw / 1e9));
        snprintf(w[3], sizeof w[3], "%.4f", mc / ops);
    } else {
        for (int k = 0; k < 4; k++)
            strcpy(w[k], "null");
    }
    int len = snprintf(out, sizeof out,
        "{\"program\":\"fresh_mt_replay\",\"threads\":%u,\"ops\":%llu,\"blocks\":%u,"
        "\"handoffs\":%llu,\"cold_wall_s\":%.9f,\"cold_cpu_s\":%.9f,\"cold_ops_per_s\":%.1f,"
        "\"wall_s\":%s,\"cpu_s\":%s,\"ops_per_s\":%s,\"ns_per_op\":%s,\"warm_laps\":%zu,"
        "\"waits\":%llu,\"sleeps\":%llu,\"sleep_timeouts\":%llu,\"failed_allocs\":%llu,\"malloc_provider\":\"%s\"}\n",
        g_nthr, (unsigned long long)h.n_events, blocks - 1, (unsigned long long)handoffs,
        (double)cold_wall / 1e9, (double)cold_cpu / 1e9,
        cold_wall ? ops / ((double)cold_wall / 1e9) : 0.0, w[0], w[1], w[2], w[3], laps,
        (unsigned long long)waits, (unsigned long long)g_sleeps,
        (unsigned long long)g_timeouts, (unsigned long long)failed, strchr(prov, '"') ? "?" : prov);
    return len > 0 && (size_t)len < sizeof out && write(1, out, (size_t)len) == len ? 0 : 2;
}
