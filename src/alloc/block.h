/* hr_block: a small-object allocator with Box2D b2BlockAllocator semantics.
 *
 * 14 size classes {16,32,64,96,128,160,192,224,256,320,384,448,512,640}; a
 * request is mapped to the smallest class that holds it through a lookup table
 * indexed by size. A class with an empty free list takes a new chunk (16 KiB),
 * split entirely into blocks of that class and threaded onto its free list.
 * The chunk array grows by 128 entries at a time. Requests above 640 bytes go
 * to malloc. free() needs the size (the block carries no header). Chunk memory
 * is returned to the system only by hr_block_clear() and hr_block_destroy().
 * Like Box2D, a request of 0 bytes returns NULL and a free of 0 bytes does
 * nothing.
 */
#ifndef HEAPREPLAY_BLOCK_H
#define HEAPREPLAY_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HR_BLOCK_NUM_CLASSES 14      /* b2_blockSizes */
#define HR_BLOCK_MAX_SIZE 640        /* b2_maxBlockSize */
#define HR_BLOCK_CHUNK_SIZE (16 * 1024) /* b2_chunkSize */
#define HR_BLOCK_CHUNK_ARRAY_INC 128 /* b2_chunkArrayIncrement */

enum {
    HR_BLOCK_OK = 0,
    HR_BLOCK_ECORRUPT = -1,
};

typedef struct hr_block_options {
    size_t chunk_size;      /* bytes per chunk (Box2D: 16 KiB), >= 640, multiple of 16 */
    int    chunk_array_inc; /* chunk array growth step (Box2D: 128) */
} hr_block_options_t;

hr_block_options_t hr_block_default(void);

typedef struct hr_block_stats {
    /* head: the shared figures (src/alloc/alloc_stats.h); here:
     *   live_bytes      requested bytes live (small and large)
     *   footprint       chunks + chunk array + live large blocks
     *   high_water      peak live_bytes
     *   objects         live blocks, small and large
     *   largest_free    largest class with a free block, 0 if none */
    hr_alloc_stats_t head;
    uint64_t chunk_count, chunk_space;
    uint64_t large_live, large_bytes; /* blocks > 640 B currently from malloc */
    uint64_t internal_waste; /* class size - requested, over live small blocks */
    uint64_t class_live[HR_BLOCK_NUM_CLASSES];
    uint64_t class_free[HR_BLOCK_NUM_CLASSES];
} hr_block_stats_t;

typedef struct hr_block hr_block_t;

/* The allocator's state, here only so that the hot paths below inline into
 * the replay backend (one call per op, as malloc is, instead of two): its
 * fields are block.c's business. */
typedef struct hr_block_free { struct hr_block_free *next; } hr_block_free_t;

typedef struct hr_block_chunk {
    size_t block_size;
    char  *blocks;
} hr_block_chunk_t;

struct hr_block {
    hr_block_options_t opt;
    hr_block_chunk_t *chunks;
    int               chunk_count, chunk_space;
    hr_block_free_t  *free_lists[HR_BLOCK_NUM_CLASSES];
    uint64_t          class_live[HR_BLOCK_NUM_CLASSES];
    uint64_t          class_blocks[HR_BLOCK_NUM_CLASSES]; /* blocks carved, per class */
    uint64_t          live_bytes, high_water, peak_footprint;
    uint64_t          large_live, large_bytes;
};

/* size -> class index for 1..640 (Box2D's s_blockSizeLookup), filled before
 * main() and by hr_block_create(). */
extern unsigned char hr_block_size_map[HR_BLOCK_MAX_SIZE + 1];

/* The class sizes in order (Box2D's b2_blockSizes). */
extern const size_t hr_block_class_sizes[HR_BLOCK_NUM_CLASSES];
/* Class index for 1..640 through the lookup table; -1 for 0 or > 640. */
int hr_block_class_of(size_t size);

hr_block_t *hr_block_create(const hr_block_options_t *opt); /* NULL opt = defaults */
void hr_block_destroy(hr_block_t *b); /* frees chunks (large blocks are the caller's) */

/* Box2D's Allocate and Free. The common case (a small block, a non-empty
 * free list) is the inline pop and push below; the rest (size 0, a large
 * block, a new chunk) is the out-of-line part in block.c. */
void *hr_block_alloc_slow(hr_block_t *b, size_t size);
void hr_block_free_slow(hr_block_t *b, void *p, size_t size);

/* The pop of a small request (1..640) from its class list; NULL, with
 * nothing done, when the list is empty. No call: a caller inlining it and
 * tail-calling its own slow path saves no registers. `counted` 0 leaves out
 * the figures only the statistics read (live blocks per class, live bytes
 * and their peak): for a timed lap's instance, whose statistics nothing
 * reads (hr_block_stats is then wrong for it); the block popped is the
 * same. Pass a constant. */
static inline __attribute__((always_inline)) void *hr_block_pop_as(hr_block_t *b, size_t size,
                                                                   const int counted) {
    int c = hr_block_size_map[size];
    hr_block_free_t *blk = b->free_lists[c];
    if (!blk)
        return NULL;
    b->free_lists[c] = blk->next;
    if (counted) {
        b->class_live[c]++;
        b->live_bytes += size;
        if (b->live_bytes > b->high_water) /* the footprint did not move */
            b->high_water = b->live_bytes;
    }
    return blk;
}

static inline void *hr_block_pop(hr_block_t *b, size_t size) { return hr_block_pop_as(b, size, 1); }

static inline void *hr_block_alloc(hr_block_t *b, size_t size) {
    void *p = size - 1 < HR_BLOCK_MAX_SIZE ? hr_block_pop(b, size) : NULL; /* 0 wraps */
    return p ? p : hr_block_alloc_slow(b, size);
}

/* The push of a small block (size 1..640, p not NULL) onto its class list;
 * `counted` as in hr_block_pop_as. */
static inline __attribute__((always_inline)) void hr_block_push_as(hr_block_t *b, void *p,
                                                                   size_t size, const int counted) {
    int c = hr_block_size_map[size];
    hr_block_free_t *blk = p;
    blk->next = b->free_lists[c];
    b->free_lists[c] = blk;
    if (counted) {
        b->class_live[c]--;
        b->live_bytes -= size;
    }
}

static inline void hr_block_push(hr_block_t *b, void *p, size_t size) {
    hr_block_push_as(b, p, size, 1);
}

static inline void hr_block_free(hr_block_t *b, void *p, size_t size) {
    if (size - 1 >= HR_BLOCK_MAX_SIZE || !p)
        hr_block_free_slow(b, p, size);
    else
        hr_block_push(b, p, size);
}
/* Frees every chunk; all small blocks become invalid (Box2D Clear). */
void hr_block_clear(hr_block_t *b);

/* Usable bytes of a block of `size`: its class size, or size when large. */
size_t hr_block_usable(size_t size);
/* 1 if p lies inside one of the chunks (linear in the chunk count). */
int hr_block_owns(const hr_block_t *b, const void *p);

/* Bytes held from the system now (O(1)): the stats' footprint. */
uint64_t hr_block_footprint(const hr_block_t *b);

void hr_block_stats(const hr_block_t *b, hr_block_stats_t *st);
/* Every free-list block lies on a block boundary of a chunk of its class,
 * appears once, and per class free + live = blocks in its chunks. */
int hr_block_check(const hr_block_t *b);

#ifdef __cplusplus
}
#endif
#endif
