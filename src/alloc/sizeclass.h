/* hr_sizeclass: power-of-two size-class free lists over malloc (the proposal
 * at the end of an article on the Orx engine's memory module, in the manner of SGI STL's
 * node allocator which the article points to).
 *
 * Classes. The article asks for free lists "only for very small sizes" and,
 * to keep the lists few, at powers of two ("4, 8, 16, 32, 64 ...; a 9-byte
 * request gets 16"): so classes are powers of two, NOT SGI's 8-byte steps.
 * They run from min_class up to max_class, by default 128 B (SGI's
 * __MAX_BYTES). min_class is 16 by default, not the article's 4 or 8: a
 * block must hold the free-list pointer (8) and, as malloc's blocks and the
 * replay backends' contract (src/backends/backend.h: 16 on x86-64), be
 * 16-aligned; min_class = 8 gives the 8-byte class (8-aligned blocks, what
 * malloc's rule min(16, size) asks of them, not the backend contract). A
 * request is rounded up to its class.
 *
 * Refill. An empty list is refilled with `refill` blocks (default 20, SGI's
 * refill count) carved from ONE malloc'd chunk: a 16-byte chunk header (the
 * chain of the class's chunks, so that trim and destroy can give them back)
 * followed by refill x class bytes, so blocks of 16 B and more are 16-aligned
 * (8-byte blocks 8-aligned). (SGI's chunk_alloc takes twice that plus a
 * growing extra into a pool shared by the classes; one chunk per refill is
 * the simpler reading the project adopted.) refill = 1 with max_class = 32 KiB
 * is the earlier behaviour: one malloc per miss, up to 32 KiB.
 *
 * Footprint. Every block taken from malloc (each chunk, each large block) is
 * charged what glibc holds for that request by its chunk arithmetic
 * (src/alloc/chunk.h, hr_chunk_usable: the same charge as the in-house
 * backends' fallback blocks), never the bytes handed out: a chunk costs its
 * header and glibc's rounding, and the blocks of a chunk are charged as soon
 * as the chunk is taken, live or not.
 *
 * free() needs the size (there is no block header) and pushes the block on
 * its class list: memory goes back to the system only by hr_sizeclass_trim()
 * (chunks whose every block is cached) or destroy. Requests above max_class
 * go straight to malloc/free here (the replay backend sends them to its
 * counted fallback instead, as "oversize"). The rounding waste (class -
 * requested) over live blocks is reported as internal_waste.
 */
#ifndef HEAPREPLAY_SIZECLASS_H
#define HEAPREPLAY_SIZECLASS_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HR_SIZECLASS_MAX_CLASSES 40
#define HR_SIZECLASS_SGI_MAX 128  /* SGI STL __MAX_BYTES */
#define HR_SIZECLASS_SGI_REFILL 20 /* SGI STL refill(): 20 nodes */
#define HR_SIZECLASS_CHUNK_HEADER 16

enum {
    HR_SIZECLASS_OK = 0,
    HR_SIZECLASS_ECORRUPT = -1,
};

typedef struct hr_sizeclass_options {
    size_t   max_class; /* largest class, a power of two >= min_class, <= 1 GiB (128) */
    unsigned refill;    /* blocks per malloc'd chunk, 1..65535 (20) */
    size_t   min_class; /* smallest class, a power of two >= sizeof(void *); 0 = 16 (16) */
} hr_sizeclass_options_t;

hr_sizeclass_options_t hr_sizeclass_default(void);

typedef struct hr_sizeclass_stats {
    /* head: the shared figures (src/alloc/alloc_stats.h); here:
     *   live_bytes      requested bytes live
     *   footprint       chunks + large blocks, each charged hr_chunk_usable()
     *                   of its malloc request
     *   high_water      peak live_bytes
     *   objects         live blocks, small and large
     *   largest_free    largest class with a cached block, 0 if none */
    hr_alloc_stats_t head;
    uint64_t internal_waste;  /* sum of (class - requested) over live small blocks */
    uint64_t cached_bytes;    /* bytes on the free lists */
    uint64_t large_live, large_bytes; /* large blocks live and their requested bytes */
    uint64_t hits, misses;    /* small allocations served from a list / by a refill */
    uint64_t chunks;          /* chunks held */
    int      nclasses;
} hr_sizeclass_stats_t;

typedef struct hr_sizeclass hr_sizeclass_t;

/* The allocator's state, here only so that the hot paths below inline into
 * the replay backend (one call per op, as malloc is, instead of two): its
 * fields are sizeclass.c's business. */
typedef struct hr_sc_node { struct hr_sc_node *next; } hr_sc_node_t;

/* The head of every chunk: the class's chain. 16 bytes so that the blocks
 * after it keep malloc's 16-byte alignment (classes >= 16). */
typedef struct hr_sc_chunk {
    struct hr_sc_chunk *next;
    uint64_t            unused;
} hr_sc_chunk_t;

struct hr_sizeclass {
    hr_sizeclass_options_t opt;
    int            nclasses;
    unsigned       min_shift;
    hr_sc_node_t  *lists[HR_SIZECLASS_MAX_CLASSES];
    hr_sc_chunk_t *chunks[HR_SIZECLASS_MAX_CLASSES];  /* chain of the class's chunks */
    uint64_t       nchunks[HR_SIZECLASS_MAX_CLASSES];
    uint64_t       cached[HR_SIZECLASS_MAX_CLASSES];  /* blocks on the list */
    uint64_t       charge[HR_SIZECLASS_MAX_CLASSES];  /* footprint of one chunk */
    uint64_t       live_bytes, high_water, footprint, peak_footprint;
    uint64_t       large_live, large_bytes, large_charged, hits, misses;
};

static inline unsigned hr_sizeclass_log2_ceil(size_t x) {
    return x <= 1 ? 0 : 64u - (unsigned)__builtin_clzll(x - 1);
}

/* The class index of a request, -1 above max_class. */
static inline int hr_sizeclass_class_of(const hr_sizeclass_t *sc, size_t size) {
    if (size > sc->opt.max_class)
        return -1;
    unsigned s = hr_sizeclass_log2_ceil(size);
    return s <= sc->min_shift ? 0 : (int)(s - sc->min_shift);
}

/* NULL = defaults; NULL on bad options or out of memory. */
hr_sizeclass_t *hr_sizeclass_create(const hr_sizeclass_options_t *opt);
/* Frees every chunk (live small blocks with them) and the allocator. Live
 * large blocks are the caller's (they came from malloc). */
void hr_sizeclass_destroy(hr_sizeclass_t *sc);

/* Smallest class size holding `size` (size 0 -> the smallest class), or 0
 * when size is above max_class. */
size_t hr_sizeclass_round(const hr_sizeclass_t *sc, size_t size);
/* The malloc request of one refill chunk of class `cls` (a class size):
 * header + refill * cls. */
size_t hr_sizeclass_chunk_request(const hr_sizeclass_t *sc, size_t cls);

/* The common case of alloc and free (a small block, a non-empty list) is
 * the inline pop and push below; the rest (a refill, a large block) is the
 * out-of-line part in sizeclass.c. */
void *hr_sizeclass_alloc_slow(hr_sizeclass_t *sc, size_t size);
void hr_sizeclass_free_slow(hr_sizeclass_t *sc, void *p, size_t size);

/* The pop of a request of class c (>= 0) from its list; NULL, with nothing
 * done, when the list is empty. No call: a caller inlining it and
 * tail-calling its own slow path saves no registers. `counted` 0 leaves out
 * the figures only the statistics read (cached blocks, hits, live bytes and
 * their peak): for a timed lap's instance, whose statistics nothing reads
 * (hr_sizeclass_stats, _check and _trim are then wrong for it); the block
 * popped is the same. Pass a constant. */
static inline __attribute__((always_inline)) void *
hr_sizeclass_pop_as(hr_sizeclass_t *sc, int c, size_t size, const int counted) {
    hr_sc_node_t *p = sc->lists[c];
    if (!p)
        return NULL;
    sc->lists[c] = p->next;
    if (counted) {
        sc->cached[c]--;
        sc->hits++;
        sc->live_bytes += size;
        if (sc->live_bytes > sc->high_water) /* the footprint did not move */
            sc->high_water = sc->live_bytes;
    }
    return p;
}

static inline void *hr_sizeclass_pop(hr_sizeclass_t *sc, int c, size_t size) {
    return hr_sizeclass_pop_as(sc, c, size, 1);
}

/* hr_sizeclass_alloc of a request whose class c (-1: above max_class) the
 * caller has found already. */
static inline void *hr_sizeclass_alloc_in(hr_sizeclass_t *sc, int c, size_t size) {
    void *p = c < 0 ? NULL : hr_sizeclass_pop(sc, c, size);
    return p ? p : hr_sizeclass_alloc_slow(sc, size);
}

static inline void *hr_sizeclass_alloc(hr_sizeclass_t *sc, size_t size) {
    return hr_sizeclass_alloc_in(sc, hr_sizeclass_class_of(sc, size), size);
}

/* The push of block p (not NULL) of class c (>= 0) onto its list;
 * `counted` as in hr_sizeclass_pop_as. */
static inline __attribute__((always_inline)) void
hr_sizeclass_push_as(hr_sizeclass_t *sc, int c, void *p, size_t size, const int counted) {
    hr_sc_node_t *n = p;
    n->next = sc->lists[c];
    sc->lists[c] = n;
    if (counted) {
        sc->cached[c]++;
        sc->live_bytes -= size;
    }
}

static inline void hr_sizeclass_push(hr_sizeclass_t *sc, int c, void *p, size_t size) {
    hr_sizeclass_push_as(sc, c, p, size, 1);
}

static inline void hr_sizeclass_free(hr_sizeclass_t *sc, void *p, size_t size) {
    if (!p)
        return;
    int c = hr_sizeclass_class_of(sc, size);
    if (c < 0)
        hr_sizeclass_free_slow(sc, p, size);
    else
        hr_sizeclass_push(sc, c, p, size);
}
/* A request resized in its block: old and new sizes of one class (c >= 0),
 * so only the live bytes move. */
static inline void hr_sizeclass_resize(hr_sizeclass_t *sc, size_t old_size, size_t new_size) {
    sc->live_bytes += new_size - old_size; /* unsigned: wraps back when smaller */
    if (sc->live_bytes > sc->high_water)
        sc->high_water = sc->live_bytes;
}

/* SGI STL's reallocate: old and new sizes of one class keep the block where
 * it is; both above max_class is realloc of the large block; otherwise a new
 * block, the common bytes copied, the old one freed. p not NULL, old_size its
 * request. NULL when out of memory (p is then still allocated). */
void *hr_sizeclass_realloc(hr_sizeclass_t *sc, void *p, size_t old_size, size_t new_size);

/* Returns to malloc every chunk whose blocks are all cached (and unlinks its
 * blocks from the list); returns the footprint released. */
uint64_t hr_sizeclass_trim(hr_sizeclass_t *sc);

/* Bytes held from the system now (O(1)): the stats' footprint. */
uint64_t hr_sizeclass_footprint(const hr_sizeclass_t *sc);

void hr_sizeclass_stats(const hr_sizeclass_t *sc, hr_sizeclass_stats_t *st);
/* Free lists hold distinct blocks, each at a block boundary inside a chunk of
 * its class, no cycles; per class taken = chunks * refill >= cached; the
 * footprint is the sum of the charges: 0 or HR_SIZECLASS_ECORRUPT. */
int hr_sizeclass_check(const hr_sizeclass_t *sc);

#ifdef __cplusplus
}
#endif
#endif
