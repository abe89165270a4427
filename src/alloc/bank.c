/* hr_bank: Orx orxBank semantics (see src/alloc/bank.h). Our own C
 * code: one allocation per segment = header + used-cell bitmap + cells,
 * segments chained, lowest free cell first.
 *
 * Side tables keep alloc and free off the chain walk that made a bank with
 * many segments cost O(segments) per op (level_load, the freeciv trace:
 * 200-600 ns/op):
 *  - `nonfull`, one bit per segment in chain order, set while it has a free
 *    cell: alloc finds the first segment with a free cell at or after the
 *    hint by scanning 64 segments per word instead of visiting each one;
 *  - `wins`, address windows of at least half a segment -> the segments
 *    overlapping them (3 at most per segment, a hash table): free (and
 *    owns/next) finds the segment of a cell in O(1). A binary search over
 *    `by_addr` did it before, and its dependent loads were a quarter of a
 *    free on particles; `by_addr` (sorted by address) stays for check(),
 *    which proves the segments distinct with it.
 * None of them changes which cell is handed out or what is counted. */
#include "alloc/bank.h"

#include "alloc/segcache.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The header bytes the footprint counts (see the struct). */
#define BANK_HEADER_BYTES offsetof(hr_bank_t, by_index)

hr_bank_options_t hr_bank_default(void) {
    hr_bank_options_t o = {16, 256, 1};
    return o;
}

static size_t round16(size_t x) { return (x + 15) & ~(size_t)15; }

static uint64_t footprint_of(const hr_bank_t *b) {
    return BANK_HEADER_BYTES + b->segments * b->seg_bytes;
}

static void set_nonfull(hr_bank_t *b, unsigned i, int on) {
    uint64_t bit = (uint64_t)1 << (i % 64);
    if (on)
        b->nonfull[i / 64] |= bit;
    else
        b->nonfull[i / 64] &= ~bit;
}

/* Room in the side tables for one more segment; -1 when out of memory. */
static int tables_grow(hr_bank_t *b) {
    if (b->segments < b->cap)
        return 0;
    size_t cap = b->cap ? b->cap * 2 : 64; /* a multiple of 64: whole bitmap words */
    hr_bank_segment_t **bi = realloc(b->by_index, cap * sizeof *bi);
    if (!bi)
        return -1;
    b->by_index = bi;
    hr_bank_segment_t **ba = realloc(b->by_addr, cap * sizeof *ba);
    if (!ba)
        return -1;
    b->by_addr = ba;
    uint64_t *nf = realloc(b->nonfull, cap / 64 * sizeof *nf);
    if (!nf)
        return -1;
    memset(nf + b->cap / 64, 0, (cap - b->cap) / 64 * sizeof *nf);
    b->nonfull = nf;
    b->cap = cap;
    return 0;
}

/* Inserts s into by_addr (segments are added rarely: a memmove is fine). */
static void addr_insert(hr_bank_t *b, hr_bank_segment_t *s) {
    size_t lo = 0, hi = b->segments;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b->by_addr[mid] < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(b->by_addr + lo + 1, b->by_addr + lo, (b->segments - lo) * sizeof *b->by_addr);
    b->by_addr[lo] = s;
}

/* Enters s under each address window it overlaps (room is there). */
static void wins_add(hr_bank_t *b, hr_bank_segment_t *s) {
    uintptr_t lo = (uintptr_t)s >> b->win_shift;
    uintptr_t hi = ((uintptr_t)s + b->seg_bytes - 1) >> b->win_shift;
    for (uintptr_t w = lo; w <= hi; w++) {
        size_t h = hr_bank_win_slot(b, w);
        while (b->wins[h].key)
            h = (h + 1) & (b->wins_cap - 1);
        b->wins[h].key = w + 1;
        b->wins[h].seg = s;
        b->wins_used++;
    }
}

/* The window table refilled from the chain, in place. */
static void wins_refill(hr_bank_t *b) {
    memset(b->wins, 0, b->wins_cap * sizeof *b->wins);
    b->wins_used = 0;
    for (hr_bank_segment_t *s = b->first; s; s = s->next)
        wins_add(b, s);
}

/* The window table remade with `cap` slots; -1 when out of memory (the old
 * table stays). */
static int wins_rebuild(hr_bank_t *b, size_t cap) {
    struct hr_bank_win *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    free(b->wins);
    b->wins = t;
    b->wins_cap = cap;
    wins_refill(b);
    return 0;
}

static hr_bank_segment_t *segment_new(hr_bank_t *b) {
    hr_bank_segment_t *s = NULL;
    /* At most half the window slots used, with room for one more segment's
     * 3 windows. */
    if (2 * (b->wins_used + 3) > b->wins_cap &&
        wins_rebuild(b, b->wins_cap ? 2 * b->wins_cap : 64) != 0)
        return NULL;
    if (tables_grow(b) != 0 || !(s = hr_segcache_get(b->seg_bytes)))
        return NULL;
    memset(s, 0, b->cells_off); /* header + bitmap; cells stay as they are */
    s->map = (uint64_t *)((char *)s + round16(sizeof *s));
    s->cells = (char *)s + b->cells_off;
    s->nfree = b->opt.cells_per_segment;
    s->index = b->last ? b->last->index + 1 : 0;
    if (b->last)
        b->last->next = s;
    else
        b->first = s;
    b->last = s;
    if (!b->hint)
        b->hint = s;
    addr_insert(b, s);
    wins_add(b, s);
    b->by_index[s->index] = s;
    set_nonfull(b, s->index, 1);
    if (++b->segments > b->peak_segments)
        b->peak_segments = b->segments;
    return s;
}

hr_bank_t *hr_bank_create(const hr_bank_options_t *opt) {
    hr_bank_options_t o = opt ? *opt : hr_bank_default();
    if (o.cell_size == 0 || o.cells_per_segment == 0)
        return NULL;
    hr_bank_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->opt = o;
    b->map_words = (o.cells_per_segment + 63) / 64;
    b->cells_off = round16(sizeof(hr_bank_segment_t)) + round16(b->map_words * 8);
    b->seg_bytes = b->cells_off + (size_t)o.cells_per_segment * o.cell_size;
    /* Lemire's fastdiv: floor(n * ceil(2^64 / d) / 2^64) == n / d for every
     * 32-bit n and d, so owner() divides by a multiply when the cells span
     * less than 4 GiB. */
    if ((uint64_t)o.cells_per_segment * o.cell_size < ((uint64_t)1 << 32) && o.cell_size > 1)
        b->cell_inv = UINT64_MAX / o.cell_size + 1;
    /* Windows no smaller than half a segment: a segment overlaps 3 at most. */
    b->win_shift = 63u - (unsigned)__builtin_clzll((unsigned long long)b->seg_bytes);
    /* Like orxBank_Create, the first segment is made at once. */
    if (!segment_new(b)) {
        hr_bank_destroy(b);
        return NULL;
    }
    return b;
}

void hr_bank_destroy(hr_bank_t *b) {
    if (!b)
        return;
    for (hr_bank_segment_t *s = b->first, *n; s; s = n) {
        n = s->next;
        hr_segcache_put(s, b->seg_bytes);
    }
    free(b->by_index);
    free(b->by_addr);
    free(b->nonfull);
    free(b->wins);
    free(b);
}

/* The first segment with a free cell at or after the hint (none before it
 * has one), or NULL when every segment is full. */
static hr_bank_segment_t *first_nonfull(const hr_bank_t *b) {
    if (!b->hint)
        return NULL;
    if (b->hint->nfree)
        return b->hint;
    size_t words = (b->segments + 63) / 64, w = b->hint->index / 64;
    uint64_t bits = b->nonfull[w] & (~(uint64_t)0 << (b->hint->index % 64));
    while (!bits && ++w < words)
        bits = b->nonfull[w];
    return bits ? b->by_index[w * 64 + (size_t)__builtin_ctzll(bits)] : NULL;
}

/* The rest of hr_bank_alloc (bank.h): the hint segment is full, so the
 * first non-full one after it, or a new segment. */
void *hr_bank_alloc_slow(hr_bank_t *b) {
    hr_bank_segment_t *s = first_nonfull(b);
    if (!s) {
        if (!b->opt.expandable || !(s = segment_new(b)))
            return NULL;
    }
    b->hint = s;
    return hr_bank_take(b, s);
}

/* The rest of hr_bank_free (bank.h): the cell's segment was full. */
void hr_bank_now_nonfull(hr_bank_t *b, hr_bank_segment_t *s) { set_nonfull(b, s->index, 1); }

int hr_bank_owns(const hr_bank_t *b, const void *p) {
    size_t cell;
    return hr_bank_owner(b, p, &cell) != NULL;
}

void *hr_bank_next(const hr_bank_t *b, const void *cell) {
    hr_bank_segment_t *s = b->first;
    size_t i = 0;
    if (cell) {
        if (!(s = hr_bank_owner(b, cell, &i)))
            return NULL;
        i++;
    }
    for (; s; s = s->next, i = 0)
        for (; i < b->opt.cells_per_segment; i++)
            if (s->map[i / 64] & ((uint64_t)1 << (i % 64)))
                return s->cells + i * b->opt.cell_size;
    return NULL;
}

unsigned hr_bank_compact(hr_bank_t *b) {
    /* Keep everything up to the last segment with a used cell (and always
     * the first segment); free the empty tail. */
    hr_bank_segment_t *keep = b->first;
    for (hr_bank_segment_t *s = b->first; s; s = s->next)
        if (s->nfree < b->opt.cells_per_segment)
            keep = s;
    /* by_addr keeps the segments that stay, in their order (before the
     * tail is freed: the test reads their headers). */
    size_t j = 0;
    for (size_t i = 0; i < b->segments; i++)
        if (b->by_addr[i]->index <= keep->index)
            b->by_addr[j++] = b->by_addr[i];
    unsigned n = 0;
    for (hr_bank_segment_t *s = keep->next, *nx; s; s = nx) {
        nx = s->next;
        if (b->hint == s)
            b->hint = NULL;
        set_nonfull(b, s->index, 0);
        hr_segcache_put(s, b->seg_bytes);
        b->segments--;
        n++;
    }
    keep->next = NULL;
    b->last = keep;
    wins_refill(b); /* the freed segments' windows out */
    if (!b->hint) /* it pointed into the freed tail: every kept segment is full */
        b->hint = keep->nfree ? keep : NULL;
    return n;
}

uint64_t hr_bank_footprint(const hr_bank_t *b) { return footprint_of(b); }

size_t hr_bank_cell_size(const hr_bank_t *b) { return b->opt.cell_size; }

void hr_bank_stats(const hr_bank_t *b, hr_bank_stats_t *st) {
    memset(st, 0, sizeof *st);
    st->head.live_bytes = b->used * b->opt.cell_size;
    st->head.footprint = footprint_of(b);
    st->head.high_water = b->high_water_cells * b->opt.cell_size;
    st->head.peak_footprint = BANK_HEADER_BYTES + b->peak_segments * b->seg_bytes;
    st->head.objects = b->used;
    st->segments = b->segments;
    st->peak_segments = b->peak_segments;
    st->free_cells = b->segments * b->opt.cells_per_segment - b->used;
    st->head.largest_free = st->free_cells ? b->opt.cell_size : 0;
}

int hr_bank_check(const hr_bank_t *b) {
    uint64_t used = 0, nseg = 0;
    unsigned n = b->opt.cells_per_segment;
    int hint_seen = 0;
    for (hr_bank_segment_t *s = b->first; s; s = s->next, nseg++) {
        unsigned ones = 0;
        for (size_t w = 0; w < b->map_words; w++)
            ones += (unsigned)__builtin_popcountll(s->map[w]);
        if (n % 64 && (s->map[b->map_words - 1] >> (n % 64)))
            return HR_BANK_ECORRUPT; /* bits beyond the last cell */
        if (ones + s->nfree != n || s->index != nseg || ((uintptr_t)s->cells & 15))
            return HR_BANK_ECORRUPT;
        if (nseg >= b->cap || b->by_index[nseg] != s ||
            !(b->nonfull[nseg / 64] >> (nseg % 64) & 1) != !s->nfree)
            return HR_BANK_ECORRUPT; /* the lookup tables disagree with the chain */
        if (s == b->hint)
            hint_seen = 1;
        else if (!hint_seen && s->nfree)
            return HR_BANK_ECORRUPT; /* a free cell before the hint */
        if (!s->next && s != b->last)
            return HR_BANK_ECORRUPT;
        size_t c0;
        if (hr_bank_owner(b, s->cells, &c0) != s || c0 != 0)
            return HR_BANK_ECORRUPT; /* the window table misses it */
        used += ones;
    }
    /* Segments are separate allocations of seg_bytes each: no overlap unless
     * the allocator below is broken; the counts are what can drift. */
    if (used != b->used || nseg != b->segments || (b->hint && !hint_seen))
        return HR_BANK_ECORRUPT;
    for (size_t i = 0; i < nseg; i++) /* sorted, and every segment once */
        if ((i && b->by_addr[i - 1] >= b->by_addr[i]) || b->by_addr[i]->index >= nseg ||
            b->by_index[b->by_addr[i]->index] != b->by_addr[i])
            return HR_BANK_ECORRUPT;
    return HR_BANK_OK;
}
