/* Test-only backend "mtcheck" (hidden from "all"): a thread-safe allocator
 * that checks the ordering a threaded replay promises (replay/sched.h).
 *
 * Every block carries a state word: LIVE from just before alloc returns,
 * DEAD once freed. A free or realloc of a block that is not LIVE — freed
 * before its alloc completed and published, or freed twice — is counted as a
 * violation. Freed blocks are quarantined (not released) until the instance
 * is destroyed, so a stale pointer still reads as DEAD instead of as some
 * other block. alloc busy-waits a pseudo-random few hundred nanoseconds to
 * widen the windows in which a missing wait would show. The counters are
 * process-wide (hr_mtcheck_counts) because the time mode emits no native
 * statistics. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"

enum { MT_LIVE = 0x4c495645u, MT_DEAD = 0x44454144u };

typedef struct mt_hdr {
    _Atomic uint32_t state;
    uint32_t         pad;
    struct mt_hdr   *next; /* quarantine list */
} mt_hdr_t;

typedef struct mtcheck {
    pthread_mutex_t lock;
    mt_hdr_t       *quarantine;
} mtcheck_t;

static _Atomic uint64_t mt_allocs, mt_frees, mt_bad;

void hr_mtcheck_counts(uint64_t out[3]) {
    out[0] = atomic_load(&mt_allocs);
    out[1] = atomic_load(&mt_frees);
    out[2] = atomic_load(&mt_bad);
}

void hr_mtcheck_reset(void) {
    atomic_store(&mt_allocs, 0);
    atomic_store(&mt_frees, 0);
    atomic_store(&mt_bad, 0);
}

static void *mt_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    (void)cfg, (void)err;
    mtcheck_t *m = calloc(1, sizeof *m);
    if (m)
        pthread_mutex_init(&m->lock, NULL);
    return m;
}

static void jitter(uintptr_t seed) {
    unsigned n = ((uint32_t)(seed >> 4) * 2654435761u) >> 24; /* 0..255 */
    for (volatile unsigned i = 0; i < n; i++)
        ;
}

static void *mt_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)self, (void)align, (void)heap;
    mt_hdr_t *h = malloc(sizeof *h + (size ? size : 1));
    if (!h)
        return NULL;
    jitter((uintptr_t)h);
    atomic_store_explicit(&h->state, MT_LIVE, memory_order_release);
    atomic_fetch_add(&mt_allocs, 1);
    return h + 1;
}

static void mt_free(void *self, void *ptr, size_t size) {
    (void)size;
    mtcheck_t *m = self;
    mt_hdr_t *h = (mt_hdr_t *)ptr - 1;
    atomic_fetch_add(&mt_frees, 1);
    if (atomic_exchange_explicit(&h->state, MT_DEAD, memory_order_acq_rel) != MT_LIVE) {
        atomic_fetch_add(&mt_bad, 1);
        return; /* already quarantined */
    }
    pthread_mutex_lock(&m->lock);
    h->next = m->quarantine;
    m->quarantine = h;
    pthread_mutex_unlock(&m->lock);
}

static void *mt_realloc(void *self, void *ptr, size_t old_size, size_t new_size, int32_t heap) {
    void *p = mt_alloc(self, new_size, 0, heap);
    if (p) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        mt_free(self, ptr, old_size);
    }
    return p;
}

static void mt_destroy(void *self) {
    mtcheck_t *m = self;
    for (mt_hdr_t *h = m->quarantine, *n; h; h = n) {
        n = h->next;
        free(h);
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
}

const hr_backend_t hr_backend_mtcheck = {
    .name = "mtcheck",
    .description = "test only: thread-safe, counts frees of blocks not live (threaded replay order)",
    .caps = HR_CAP_TEST_ONLY | HR_CAP_THREAD_SAFE | HR_CAP_REALLOC,
    .create = mt_create, .alloc = mt_alloc, .free = mt_free, .realloc = mt_realloc,
    .destroy = mt_destroy,
};
