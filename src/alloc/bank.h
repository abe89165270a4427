/* hr_bank: fixed-size cell banks with Orx orxBank semantics.
 *
 * A bank hands out cells of one size. Cells live in segments of N cells; each
 * segment is one system allocation holding its header, a bitmap of used cells
 * and the cells. Segments are chained; when every cell is in use a new
 * segment is appended, or allocation fails (NULL) when the bank was created
 * not expandable. Allocation returns the lowest free cell (first segment in
 * chain order, lowest index in it), so the sequence of addresses is
 * deterministic. Used cells can be iterated in the same order. Compact frees
 * empty segments at the tail of the chain (the first segment always stays).
 *
 * Deviation from Orx: cell data starts 16-byte aligned inside each segment, so
 * cells whose size is a multiple of 16 are aligned like malloc's blocks.
 * Costs: alloc and free do not walk the chain (Orx does): a bitmap of
 * non-full segments, a summary word over each segment's bitmap and the
 * segments' places side by side in regions of the bank's own make both
 * O(1); regions come from and go back to src/alloc/segcache.h.
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
     *   footprint       bank header + every segment allocation
     *   high_water      peak live_bytes
     *   objects         used cells
     *   largest_free    cell size if a cell is free, else 0 */
    hr_alloc_stats_t head;
    uint64_t segments;
    uint64_t peak_segments;
    uint64_t free_cells;
} hr_bank_stats_t;

typedef struct hr_bank hr_bank_t;

/* The bank's state, here only so that the hot paths below inline into the
 * replay backend (one call per op, as malloc is, instead of three): its
 * fields are bank.c's business.
 *
 * A segment is its 32-byte header, the used-cell bitmap (`map`, at
 * HR_BANK_SEG_HDR) and the cells (at cells_off). `sum` summarises the
 * bitmap: bit k is set while map words [k << sum_shift, (k + 1) << sum_shift)
 * are not all ones, so alloc finds the lowest free cell with two count-
 * trailing-zeros instead of a scan over the words. */
typedef struct hr_bank_segment {
    struct hr_bank_segment *next;
    char     *cells;
    uint64_t  sum;       /* bit k: word group k of the map has a zero bit */
    unsigned  nfree;
    unsigned  index;     /* position in the chain (0 = first) */
} hr_bank_segment_t;

#define HR_BANK_SEG_HDR 32 /* sizeof(hr_bank_segment_t), 16-rounded: where the map starts */

/* A bank's segments lie side by side, `stride` bytes apart, in address
 * regions of its own (one, until it outgrows it; each next region twice the
 * last), so that the segment of a cell is its offset in the region divided
 * by the stride: no search. */
typedef struct hr_bank_region {
    char  *base;
    size_t bytes;  /* size of the region */
    size_t used;   /* bytes holding segments: their count * stride */
} hr_bank_region_t;

#define HR_BANK_REGIONS 40 /* doubling from 4 MiB: more than any address space */

struct hr_bank {
    hr_bank_options_t  opt;
    hr_bank_segment_t *first, *last;
    hr_bank_segment_t *hint;   /* no segment before it has a free cell */
    size_t   map_words, seg_bytes, cells_off;
    uint64_t used, high_water_cells, segments, peak_segments;
    /* The lookup tables (last: the footprint counts the bank's header up to
     * here, as it did before they existed; they are the replay's index into
     * the bank, 8 B + 1 bit per segment and the region list: not memory the
     * design holds). */
    hr_bank_segment_t **by_index; /* [segments], chain order */
    uint64_t *nonfull;            /* bit i: by_index[i] has a free cell */
    size_t   cap;                 /* entries of the two tables above (bits: cap) */
    size_t   stride, span;        /* seg_bytes rounded to 16; the cells' bytes */
    uint64_t cell_inv;            /* 2^64 / cell_size rounded up; 0: divide */
    uint64_t stride_inv;          /* 2^64 / stride rounded up */
    unsigned sum_shift;           /* log2 of the map words per `sum` bit */
    unsigned hint_index;          /* hint->index; UINT_MAX when hint is NULL */
    unsigned nregions;
    hr_bank_region_t regions[HR_BANK_REGIONS];
};

static inline uint64_t *hr_bank_map(const hr_bank_segment_t *s) {
    return (uint64_t *)((char *)(uintptr_t)s + HR_BANK_SEG_HDR);
}

/* floor(n / d) by a multiply with inv = ceil(2^64 / d) (Lemire's fastdiv:
 * exact for n and d below 2^32), or by a divide when inv is 0. The bank
 * sets an inv only where every n it divides is below 2^32. */
static inline size_t hr_bank_div(size_t n, size_t d, uint64_t inv) {
    if (!inv)
        return n / d;
    return (size_t)(((unsigned __int128)inv * n) >> 64);
}

hr_bank_t *hr_bank_create(const hr_bank_options_t *opt); /* NULL opt = defaults */
void hr_bank_destroy(hr_bank_t *b);

/* The out-of-line parts of hr_bank_alloc and hr_bank_free (bank.c). */
void *hr_bank_alloc_slow(hr_bank_t *b);
void hr_bank_now_nonfull(hr_bank_t *b, hr_bank_segment_t *s);

/* Whether the map words of w's group are all ones (w's word is). */
static inline int hr_bank_group_full(const hr_bank_t *b, const uint64_t *map, size_t w) {
    if (!b->sum_shift)
        return 1;
    size_t g = (w >> b->sum_shift) << b->sum_shift, end = g + ((size_t)1 << b->sum_shift);
    for (; g < end && g < b->map_words; g++)
        if (~map[g])
            return 0;
    return 1;
}

/* Takes the lowest free cell of s, which has one. */
static inline void *hr_bank_take(hr_bank_t *b, hr_bank_segment_t *s) {
    uint64_t *map = hr_bank_map(s);
    /* nfree > 0: the lowest group with a zero bit holds a free cell (the
     * last word's tail bits stay clear but lie above every cell) */
    size_t w = (size_t)__builtin_ctzll(s->sum) << b->sum_shift;
    while (!~map[w]) /* only in a group of several words */
        w++;
    unsigned bit = (unsigned)__builtin_ctzll(~map[w]);
    map[w] |= (uint64_t)1 << bit;
    if (!~map[w] && hr_bank_group_full(b, map, w))
        s->sum &= ~((uint64_t)1 << (w >> b->sum_shift));
    if (--s->nfree == 0)
        b->nonfull[s->index / 64] &= ~((uint64_t)1 << (s->index % 64));
    if (++b->used > b->high_water_cells)
        b->high_water_cells = b->used;
    return s->cells + (w * 64 + bit) * b->opt.cell_size;
}

/* Lowest free cell, or NULL (not expandable and full, or out of memory).
 * The hint is the first segment with a free cell when it has one. */
static inline void *hr_bank_alloc(hr_bank_t *b) {
    hr_bank_segment_t *s = b->hint;
    if (!s || !s->nfree)
        return hr_bank_alloc_slow(b);
    return hr_bank_take(b, s);
}

/* The segment holding cell p (and its index), or NULL when p is no cell of
 * the bank: the region holding p (the newest, largest first), then p's
 * offset in it divided by the stride and by the cell size. */
static inline hr_bank_segment_t *hr_bank_owner(const hr_bank_t *b, const void *p, size_t *cell) {
    const hr_bank_region_t *r = &b->regions[b->nregions - 1];
    size_t off;
    for (;; r--) {
        off = (size_t)((uintptr_t)p - (uintptr_t)r->base);
        if (off < r->used)
            break;
        if (r == b->regions)
            return NULL;
    }
    size_t soff = hr_bank_div(off, b->stride, b->stride_inv) * b->stride;
    size_t coff = off - soff - b->cells_off; /* wraps when p lies in the header */
    if (coff >= b->span)
        return NULL;
    size_t i = hr_bank_div(coff, b->opt.cell_size, b->cell_inv);
    if (coff != i * b->opt.cell_size)
        return NULL;
    *cell = i;
    return (hr_bank_segment_t *)(r->base + soff);
}

/* Whether cell `cell` of s is in use. */
static inline int hr_bank_in_use(const hr_bank_segment_t *s, size_t cell) {
    return (int)(hr_bank_map(s)[cell / 64] >> (cell % 64) & 1);
}

/* The bank's part of a free once the checks passed: cell `cell` of s, in
 * use, made free. The rare call comes last, so that a caller inlining this
 * keeps no registers across it. */
static inline void hr_bank_release(hr_bank_t *b, hr_bank_segment_t *s, size_t cell) {
    hr_bank_map(s)[cell / 64] &= ~((uint64_t)1 << (cell % 64));
    s->sum |= (uint64_t)1 << ((cell / 64) >> b->sum_shift);
    b->used--;
    if (s->index < b->hint_index) {
        b->hint = s;
        b->hint_index = s->index;
    }
    if (s->nfree++ == 0)
        hr_bank_now_nonfull(b, s);
}

/* HR_BANK_OK, HR_BANK_ENOTOWNED or HR_BANK_EFREE (state unchanged on error). */
static inline int hr_bank_free(hr_bank_t *b, void *p) {
    size_t cell;
    hr_bank_segment_t *s = hr_bank_owner(b, p, &cell);
    if (!s)
        return HR_BANK_ENOTOWNED;
    if (!hr_bank_in_use(s, cell))
        return HR_BANK_EFREE;
    hr_bank_release(b, s, cell);
    return HR_BANK_OK;
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
/* Per segment: free count = zero bits of the bitmap, unused tail bits clear;
 * total used = the bank's counter; segments do not overlap. */
int hr_bank_check(const hr_bank_t *b);

#ifdef __cplusplus
}
#endif
#endif
