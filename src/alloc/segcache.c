/* hr_segcache: see src/alloc/segcache.h. */
#include "alloc/segcache.h"

#include <stdatomic.h>
#include <stdlib.h>

/* One list per block size; the in-house allocators use a handful of sizes
 * (a bank segment size per cell size, block's chunk size). A size that
 * finds no list slot is simply not cached. */
#define SEGCACHE_LISTS 32

typedef struct seg_free { struct seg_free *next; } seg_free_t;

static struct {
    size_t      size;
    seg_free_t *head;
} lists[SEGCACHE_LISTS];
static size_t      cached_bytes;
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void take_lock(void) {
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

static void drop_lock(void) { atomic_flag_clear_explicit(&lock, memory_order_release); }

void *hr_segcache_get(size_t n) {
    void *p = NULL;
    take_lock();
    for (int i = 0; i < SEGCACHE_LISTS && lists[i].size; i++)
        if (lists[i].size == n && lists[i].head) {
            p = lists[i].head;
            lists[i].head = lists[i].head->next;
            cached_bytes -= n;
            break;
        }
    drop_lock();
    if (!p && posix_memalign(&p, 16, n < sizeof(seg_free_t) ? sizeof(seg_free_t) : n) != 0)
        return NULL;
    return p;
}

void hr_segcache_put(void *p, size_t n) {
    if (!p)
        return;
    take_lock();
    if (cached_bytes + n <= HR_SEGCACHE_MAX_BYTES)
        for (int i = 0; i < SEGCACHE_LISTS; i++)
            if (lists[i].size == n || !lists[i].size) {
                lists[i].size = n;
                ((seg_free_t *)p)->next = lists[i].head;
                lists[i].head = p;
                cached_bytes += n;
                p = NULL;
                break;
            }
    drop_lock();
    free(p); /* not cached: over the cap, or no list left for its size */
}
