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
 * non-full segments and a hash of address windows make both O(1);
 * segments come from and go back to src/alloc/segcache.h.
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
 * fields are bank.c's business. */
typedef struct hr_bank_segment {
    struct hr_bank_segment *next;
    uint64_t *map;       /* bit i set = cell i in use */
    char     *cells;
    unsigned  nfree;
    unsigned  index;     /* position in the chain (0 = first) */
} hr_bank_segment_t;

struct hr_bank {
    hr_bank_options_t  opt;
    hr_bank_segment_t *first, *last;
    hr_bank_segment_t *hint;   /* no segment before it has a free cell */
    size_t   map_words, seg_bytes, cells_off;
    uint64_t used, high_water_cells, segments, peak_segments;
    /* The lookup tables (last: the footprint counts the bank's header up to
     * here, as it did before they existed; they are the replay's index into
     * the bank, 16 B + 1 bit per segment and the window table below, up to
     * 96 B per segment: not memory the design holds). */
    hr_bank_segment_t **by_index; /* [segments], chain order */
    hr_bank_segment_t **by_addr;  /* [segments], sorted by address */
    uint64_t *nonfull;            /* bit i: by_index[i] has a free cell */
    size_t   cap;                 /* entries of the three tables above (bits: cap) */
    uint64_t cell_inv;            /* 2^64 / cell_size rounded up; 0: divide */
    /* Address windows of 2^win_shift bytes -> the segments that overlap
     * them (a segment spans at most 3), open addressing, key window + 1
     * (0: empty slot): free finds a cell's segment in O(1). */
    struct hr_bank_win { uintptr_t key; hr_bank_segment_t *seg; } *wins;
    size_t   wins_cap, wins_used; /* slots (a power of two), entries */
    unsigned win_shift;
};

/* The first slot to probe for window w. */
static inline size_t hr_bank_win_slot(const hr_bank_t *b, uintptr_t w) {
    return (size_t)(((uint64_t)w * 0x9E3779B97F4A7C15ull) >> 32) & (b->wins_cap - 1);
}

hr_bank_t *hr_bank_create(const hr_bank_options_t *opt); /* NULL opt = defaults */
void hr_bank_destroy(hr_bank_t *b);

/* The out-of-line parts of hr_bank_alloc and hr_bank_free (bank.c). */
void *hr_bank_alloc_slow(hr_bank_t *b);
void hr_bank_now_nonfull(hr_bank_t *b, hr_bank_segment_t *s);

/* Takes the lowest free cell of s, which has one. */
static inline void *hr_bank_take(hr_bank_t *b, hr_bank_segment_t *s) {
    size_t w = 0;
    while (!~s->map[w]) /* nfree > 0: a word with a free cell exists, and the
                         * lowest zero bit is a cell (tail bits lie above) */
        w++;
    unsigned bit = (unsigned)__builtin_ctzll(~s->map[w]);
    s->map[w] |= (uint64_t)1 << bit;
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
 * the bank: the entries of p's address window, each a segment that overlaps
 * it, until one holds p among its cells. */
static inline hr_bank_segment_t *hr_bank_owner(const hr_bank_t *b, const void *p, size_t *cell) {
    const char *q = p;
    uintptr_t key = ((uintptr_t)q >> b->win_shift) + 1;
    size_t span = (size_t)b->opt.cells_per_segment * b->opt.cell_size;
    hr_bank_segment_t *s;
    for (size_t h = hr_bank_win_slot(b, key - 1);; h = (h + 1) & (b->wins_cap - 1)) {
        const struct hr_bank_win *e = &b->wins[h];
        if (!e->key)
            return NULL;
        s = e->seg;
        if (e->key == key && q >= s->cells && q < s->cells + span)
            break;
    }
    size_t off = (size_t)(q - s->cells), i;
    if (b->cell_inv) /* a multiply instead of a 64-bit divide (exact: off < 2^32) */
        i = (size_t)(((unsigned __int128)b->cell_inv * off) >> 64);
    else
        i = off / b->opt.cell_size;
    if (off != i * b->opt.cell_size)
        return NULL;
    *cell = i;
    return s;
}

/* HR_BANK_OK, HR_BANK_ENOTOWNED or HR_BANK_EFREE (state unchanged on error). */
static inline int hr_bank_free(hr_bank_t *b, void *p) {
    size_t cell;
    hr_bank_segment_t *s = hr_bank_owner(b, p, &cell);
    if (!s)
        return HR_BANK_ENOTOWNED;
    uint64_t bit = (uint64_t)1 << (cell % 64);
    if (!(s->map[cell / 64] & bit))
        return HR_BANK_EFREE;
    s->map[cell / 64] &= ~bit;
    if (s->nfree++ == 0)
        hr_bank_now_nonfull(b, s);
    b->used--;
    if (!b->hint || s->index < b->hint->index)
        b->hint = s;
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
