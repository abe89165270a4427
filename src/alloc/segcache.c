/* hr_segcache: see src/alloc/segcache.h. */
#include "alloc/segcache.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* One list per block size; the in-house allocators use a handful of sizes
 * (a bank segment size per cell size, block's chunk size). A size that
 * finds no list slot is served by malloc and freed on put. */
#define SEGCACHE_LISTS 64
/* New blocks are carved from slabs mapped this large (or one block's size). */
#define SEGCACHE_SLAB ((size_t)4 << 20)

typedef struct seg_free { struct seg_free *next; } seg_free_t;

static struct {
    size_t      size;
    seg_free_t *head;
} lists[SEGCACHE_LISTS];
static char       *slab_next, *slab_end; /* the unused rest of the last slab */
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void take_lock(void) {
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

static void drop_lock(void) { atomic_flag_clear_explicit(&lock, memory_order_release); }

/* The list slot of size n, made when `make` and one is free; -1 if none. */
static int slot_of(size_t n, int make) {
    for (int i = 0; i < SEGCACHE_LISTS; i++) {
        if (lists[i].size == n)
            return i;
        if (!lists[i].size) {
            if (!make)
                return -1;
            lists[i].size = n;
            return i;
        }
    }
    return -1;
}

/* n bytes (a multiple of 16) carved from the slabs; NULL when out of memory. */
static void *carve(size_t n) {
    if ((size_t)(slab_end - slab_next) < n) {
        size_t len = n > SEGCACHE_SLAB ? (n + 4095) & ~(size_t)4095 : SEGCACHE_SLAB;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        slab_next = m; /* the rest of the previous slab is left unused */
        slab_end = (char *)m + len;
    }
    void *p = slab_next;
    slab_next += n;
    return p;
}

void *hr_segcache_get(size_t n) {
    size_t sz = (n + 15) & ~(size_t)15;
    if (sz < sizeof(seg_free_t) || sz < n)
        sz = 16;
    void *p = NULL;
    take_lock();
    int i = slot_of(sz, 1);
    if (i >= 0) {
        if ((p = lists[i].head) != NULL)
            lists[i].head = lists[i].head->next;
        else
            p = carve(sz);
    }
    drop_lock();
    if (i < 0 && posix_memalign(&p, 16, sz) != 0)
        return NULL;
    return p;
}

void hr_segcache_put(void *p, size_t n) {
    if (!p)
        return;
    size_t sz = (n + 15) & ~(size_t)15;
    if (sz < sizeof(seg_free_t) || sz < n)
        sz = 16;
    take_lock();
    int i = slot_of(sz, 0);
    if (i >= 0) {
        ((seg_free_t *)p)->next = lists[i].head;
        lists[i].head = p;
    }
    drop_lock();
    if (i < 0)
        free(p); /* it came from malloc: its size had no list */
}
