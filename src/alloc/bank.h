/* hr_bank: fixed-size cell banks with Orx orxBank semantics.
 *
 * A bank hands out cells of one size. Cells come in segments of N cells;
 * when every cell is in use a new segment is appended, or allocation fails
 * (NULL) when the bank was created not expandable. Allocation returns the
 * lowest free cell (first segment in chain order, lowest index in it), so
 * the sequence of addresses is deterministic. Used cells can be iterated in
 * the same order. Compact frees empty segments at the tail of the chain (the
 * first segment always stays). A free of a pointer that is no cell of the
 * bank, or of a free cell, is refused and the bank left unchanged.
 *
 * Orx's orxBank (code/src/memory/orxBank.c, rewritten in September 2020 and
 * unchanged in what it hands out since; the 2014-2020 version before it
 * too) keeps a bitmap of its cells, 1 = free, and allocates the lowest set
 * bit of the first segment whose free count is not 0, with a scan over the
 * segments' counts and then over the segment's map words; free finds a
 * cell's index in a tag word before the cell (its release build does not
 * check it; its debug build asserts the cell was used). This bank keeps
 * that order and checks every free.
 *
 * Deviation from Orx, in layout, not in order: the cells of consecutive
 * segments lie side by side in address regions of the bank's own (no tag
 * word, no header between them: segment s's cell k is cell s * N + k of the
 * bank), and the used-cell bitmap of the whole bank is one array beside
 * them. Since segments come in chain order, "the lowest free cell of the
 * first non-full segment" is the lowest free cell of the bank: the lowest set
 * bit of that bitmap, found through a summary word (a bit per bitmap word
 * with a free cell) and a hint (no summary word before it has a bit): two
 * count-trailing-zeros. A free is the cell's offset divided by the cell size
 * (a multiply) and a bit set. The footprint still counts a segment as Orx
 * lays it out (header, bitmap, cells), see hr_bank_footprint.
 * Cell data starts 16-byte aligned in the first region, so cells whose size
 * is a multiple of 16 are aligned like malloc's blocks. Regions come from
 * and go back to src/alloc/segcache.h.
 */
#ifndef HEAPREPLAY_BANK_H
#define HEAPREPLAY_BANK_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    HR_BANK_OK = 0,
    HR_BANK_ENOTOWNED = -1, /* free of a pointer that is no cell of the bank */
    HR_BANK_EFREE = -2,     /* free of a cell that is already free */
    HR_BANK_ECORRUPT = -3,  /* check(): an invariant does not hold */
};

typedef struct hr_bank_options {
    size_t   cell_size;         /* bytes per cell (> 0) */
    unsigned cells_per_segment; /* N (> 0, Orx: u16) */
    int      expandable;        /* 1: add segments when full; 0: fail */
} hr_bank_options_t;

/* cell_size 16, 256 cells per segment, expandable. */
hr_bank_options_t hr_bank_default(void);

typedef struct hr_bank_stats {
    /* head: the shared figures (src/alloc/alloc_stats.h); here:
     *   live_bytes      used cells * cell size
     *   footprint       bank header + every segment (Orx's layout)
     *   high_water      peak live_bytes
     *   objects         used cells
     *   largest_free    cell size if a cell is free, else 0 */
    hr_alloc_stats_t head;
    uint64_t segments;
    uint64_t peak_segments;
    uint64_t free_cells;
} hr_bank_stats_t;

typedef struct hr_bank hr_bank_t;

/* An address region of the bank's: whole segments of cells, side by side.
 * The first region holds at least 4 MiB of cells, each next one twice the
 * last (at most 2 GiB). */
typedef struct hr_bank_region {
    char  *base;
    size_t bytes;  /* size of the region */
    size_t used;   /* bytes holding segments: their count * N * cell size */
    size_t first;  /* the bank's index of the region's first cell */
} hr_bank_region_t;

#define HR_BANK_REGIONS 40 /* doubling from 4 MiB: more than any address space */

/* The bank's state, here only so that the hot paths below inline into the
 * replay backend (one call per op, as malloc is): its fields are bank.c's
 * business. The first fields are the hot ones: the common alloc and free
 * read them only. */
struct hr_bank {
    uint64_t *map;          /* bit i: cell i is free (Orx's sense); 0 past the segments */
    uint64_t *sum;          /* bit j of word k: map word 64k + j has a free cell */
    char     *base0;        /* regions[0].base: the cells the fast paths serve */
    size_t    cells0;       /* cells in regions[0] */
    size_t    cell;         /* opt.cell_size */
    uint64_t  cell_inv;     /* the inverse of cell's odd part modulo 2^64 */
    uint64_t  used;         /* cells in use */
    uint32_t  hint;         /* no sum word below it has a bit set */
    uint32_t  cell_shift;   /* cell's trailing zero bits */
    /* (the fields above: one cache line, all the common alloc and free read
     * but the high water below) */
    uint64_t  high_water_cells;
    hr_bank_options_t opt;
    uint64_t  segments, peak_segments;
    size_t    map_cap;      /* map words allocated (a multiple of 64) */
    size_t    seg_bytes;    /* a segment as Orx lays it out: the footprint's unit */
    unsigned  nregions;
    hr_bank_region_t regions[HR_BANK_REGIONS];
};

/* n / d when d divides n, else a number above (2^64 - 1) / d, with d =
 * odd << shift and inv the inverse of odd modulo 2^64: the product n * inv
 * is exact for every multiple of odd and keeps n's trailing zero bits, so
 * rotating it right by shift yields n / d for a multiple of d, and moves a
 * non-zero low bit to the top otherwise (the divisibility test compilers
 * use for a constant divisor). One compare against a bound below
 * 2^64 / d then tells a cell from any other offset, including a negative
 * one. */
static inline size_t hr_bank_exact_div(size_t n, uint64_t inv, unsigned shift) {
    uint64_t q = (uint64_t)n * inv;
    return (size_t)(shift ? q >> shift | q << (64 - shift) : q);
}

/* The index of x's lowest set bit, x != 0, as a 64-bit value: GCC's
 * __builtin_ctzll returns an int, which it zeroes a register for and then
 * sign-extends (three instructions for one, twice on every alloc). */
static inline uint64_t hr_bank_ctz(uint64_t x) {
#if defined(__x86_64__) && defined(__GNUC__)
    uint64_t r;
    __asm__("rep; bsfq %1, %0" : "=r"(r) : "rm"(x) : "cc"); /* tzcnt; bsf where there is none */
    return r;
#else
    return (uint64_t)__builtin_ctzll(x);
#endif
}

hr_bank_t *hr_bank_create(const hr_bank_options_t *opt); /* NULL opt = defaults */

/* A bank of no cells, for a lookup table's empty places, so that its users
 * need no NULL test: hr_bank_ready() is 0 and hr_bank_index0() SIZE_MAX for
 * it, and no other function may be called on it. */
extern hr_bank_t hr_bank_vacant;
void hr_bank_destroy(hr_bank_t *b);

/* The out-of-line parts of the paths below (bank.c): alloc when no summary
 * word at or after the hint has a bit (a scan on, or a new segment); the
 * address of a cell beyond the first region; free of a pointer beyond it. */
void *hr_bank_alloc_slow(hr_bank_t *b);
void *hr_bank_cell_far(const hr_bank_t *b, size_t i);
int hr_bank_free_far(hr_bank_t *b, void *p);

/* The summary word at the hint: not 0 when the bank has a free cell there,
 * and then hr_bank_take(b, it) serves (the word passed on, not read
 * twice). */
static inline uint64_t hr_bank_ready(const hr_bank_t *b) { return b->sum[b->hint]; }

/* Takes the lowest free cell; s = hr_bank_ready(b), not 0. Its one rare
 * call comes last, so that a caller inlining this keeps no registers across
 * it. `counted` 0 leaves out the used-cell count and its peak, which only
 * the statistics read: a timed lap's instance, whose statistics nothing
 * reads (hr_bank_stats and hr_bank_check are then wrong for the bank). The
 * cell taken is the same either way. Pass a constant. */
static inline __attribute__((always_inline)) void *hr_bank_take_as(hr_bank_t *b, uint64_t s,
                                                                   const int counted) {
    size_t k = b->hint;
    uint64_t *sum = b->sum, *map = b->map;
    size_t w = k * 64 + hr_bank_ctz(s);
    uint64_t m = map[w];
    size_t i = w * 64 + hr_bank_ctz(m);
    map[w] = m &= m - 1;
    /* Word w's summary bit (s's lowest) cleared when w just filled, without
     * a branch: on particles a quarter of the allocs fill their word, in no
     * order a predictor learns (that branch was nearly all of the bank's
     * mispredicted branches, callgrind --branch-sim). */
    sum[k] = s & (s - (m == 0));
    if (counted) {
        uint64_t used = b->used + 1;
        b->used = used;
        if (used > b->high_water_cells)
            b->high_water_cells = used;
    }
    if (i >= b->cells0)
        return hr_bank_cell_far(b, i);
    return b->base0 + i * b->cell;
}

static inline void *hr_bank_take(hr_bank_t *b, uint64_t s) { return hr_bank_take_as(b, s, 1); }

/* Lowest free cell, or NULL (not expandable and full, or out of memory). */
static inline void *hr_bank_alloc(hr_bank_t *b) {
    uint64_t s = hr_bank_ready(b);
    if (!s)
        return hr_bank_alloc_slow(b);
    return hr_bank_take(b, s);
}

/* The bank's index of the cell at p in the first region, or SIZE_MAX when p
 * is no cell there (outside it, or not at a cell's start). */
static inline size_t hr_bank_index0(const hr_bank_t *b, const void *p) {
    size_t i = hr_bank_exact_div((size_t)((uintptr_t)p - (uintptr_t)b->base0), b->cell_inv,
                                 b->cell_shift);
    return i < b->cells0 ? i : SIZE_MAX;
}

/* Whether cell i (below the segments' end) is in use. */
static inline int hr_bank_in_use(const hr_bank_t *b, size_t i) {
    return !(b->map[i / 64] >> (i % 64) & 1);
}

/* The bank's part of a free of cell i (below the segments' end): made free
 * if it is in use (1), else 0 and nothing changed. The bitmap word is read
 * once for the test and the update. `counted` as in hr_bank_take_as. */
static inline __attribute__((always_inline)) int hr_bank_release_as(hr_bank_t *b, size_t i,
                                                                    const int counted) {
    size_t w = i / 64;
    uint64_t *wp = b->map + w, m = *wp;
    if (m >> (i % 64) & 1)
        return 0;
    *wp = m | (uint64_t)1 << (i % 64);
    b->sum[w / 64] |= (uint64_t)1 << (w % 64);
    if (w / 64 < b->hint)
        b->hint = (uint32_t)(w / 64);
    if (counted)
        b->used--;
    return 1;
}

static inline int hr_bank_release(hr_bank_t *b, size_t i) { return hr_bank_release_as(b, i, 1); }

/* HR_BANK_OK, HR_BANK_ENOTOWNED or HR_BANK_EFREE (state unchanged on error). */
static inline int hr_bank_free(hr_bank_t *b, void *p) {
    size_t i = hr_bank_index0(b, p);
    if (i == SIZE_MAX)
        return hr_bank_free_far(b, p);
    return hr_bank_release(b, i) ? HR_BANK_OK : HR_BANK_EFREE;
}

/* Used cells in allocation order: pass NULL to get the first; NULL at the end. */
void *hr_bank_next(const hr_bank_t *b, const void *cell);
/* Frees empty segments at the tail of the chain; returns how many. */
unsigned hr_bank_compact(hr_bank_t *b);

size_t hr_bank_cell_size(const hr_bank_t *b);
int hr_bank_owns(const hr_bank_t *b, const void *p);

/* Bytes held from the system now (O(1)): the stats' footprint. */
uint64_t hr_bank_footprint(const hr_bank_t *b);

void hr_bank_stats(const hr_bank_t *b, hr_bank_stats_t *st);
/* Bitmap bits past the segments clear, the summary and hint agree with the
 * bitmap, used = the cells whose bit is clear, regions hold the segments in
 * order without overlap. */
int hr_bank_check(const hr_bank_t *b);

#ifdef __cplusplus
}
#endif
#endif
