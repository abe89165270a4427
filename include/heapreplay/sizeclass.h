/* hr_sizeclass: power-of-two size-class caches over malloc (the proposal at
 * the end of the Orx memory article, in the manner of SGI STL's node
 * allocator).
 *
 * Classes are the powers of two from the smallest that holds a free-list
 * pointer (8 on 64-bit) up to max_class (default 32 KiB). A request is rounded
 * up to its class; a free block of that class is reused if one is cached,
 * otherwise one block of the class size is taken from malloc. free() needs the
 * size (there is no header) and pushes the block onto its class list: memory
 * goes back to the system only by hr_sizeclass_trim() or destroy. Requests
 * above max_class go straight to malloc/free. The rounding waste (class size -
 * requested) over live blocks is reported as internal_waste.
 */
#ifndef HEAPREPLAY_SIZECLASS_H
#define HEAPREPLAY_SIZECLASS_H

#include <stddef.h>
#include <stdint.h>

#include "heapreplay/alloc_stats.h"

#define HR_SIZECLASS_MAX_CLASSES 40

enum {
    HR_SIZECLASS_OK = 0,
    HR_SIZECLASS_ECORRUPT = -1,
};

typedef struct hr_sizeclass_options {
    size_t max_class; /* largest class, a power of two >= sizeof(void *) (32 KiB) */
} hr_sizeclass_options_t;

hr_sizeclass_options_t hr_sizeclass_default(void);

typedef struct hr_sizeclass_stats {
    /* head: the shared figures (heapreplay/alloc_stats.h); here:
     *   live_bytes      requested bytes live
     *   footprint       class blocks taken from malloc (live + cached) + large
     *   high_water      peak live_bytes
     *   objects         live blocks, small and large
     *   largest_free    largest class with a cached block, 0 if none */
    hr_alloc_stats_t head;
    uint64_t internal_waste;  /* sum of (class - requested) over live small blocks */
    uint64_t cached_bytes;    /* bytes on the free lists */
    uint64_t large_live, large_bytes;
    uint64_t hits, misses;    /* small allocations served from a list / by malloc */
    int      nclasses;
} hr_sizeclass_stats_t;

typedef struct hr_sizeclass hr_sizeclass_t;

hr_sizeclass_t *hr_sizeclass_create(const hr_sizeclass_options_t *opt); /* NULL = defaults */
/* Frees cached blocks. Live blocks are the caller's (they came from malloc). */
void hr_sizeclass_destroy(hr_sizeclass_t *sc);

/* Smallest class size holding `size` (size 0 -> the smallest class), or 0
 * when size is above max_class. */
size_t hr_sizeclass_round(const hr_sizeclass_t *sc, size_t size);

void *hr_sizeclass_alloc(hr_sizeclass_t *sc, size_t size);
void hr_sizeclass_free(hr_sizeclass_t *sc, void *p, size_t size);
/* Returns every cached block to malloc; returns the bytes released. */
uint64_t hr_sizeclass_trim(hr_sizeclass_t *sc);

/* Bytes held from the system now (O(1)): the stats' footprint. */
uint64_t hr_sizeclass_footprint(const hr_sizeclass_t *sc);

void hr_sizeclass_stats(const hr_sizeclass_t *sc, hr_sizeclass_stats_t *st);
/* Free lists hold distinct, pointer-aligned blocks, no cycles, and per class
 * taken = live + cached: 0 or HR_SIZECLASS_ECORRUPT. */
int hr_sizeclass_check(const hr_sizeclass_t *sc);

#endif
