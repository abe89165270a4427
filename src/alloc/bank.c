/* hr_bank: Orx orxBank semantics (see src/alloc/bank.h). Our own C
 * code: one block per segment = header + used-cell bitmap + cells,
 * segments chained, lowest free cell first.
 *
 * What keeps alloc and free O(1) (a chain walk made a bank with many
 * segments cost O(segments) per op, 200-600 ns/op on level_load and the
 * freeciv trace), none of it changing which cell is handed out or what is
 * counted:
 *  - `nonfull`, one bit per segment in chain order, set while it has a free
 *    cell: alloc finds the first segment with a free cell at or after the
 *    hint by scanning 64 segments per word instead of visiting each one;
 *  - `sum` in each segment's header, one bit per group of bitmap words with
 *    a free cell: the lowest free cell is two count-trailing-zeros away,
 *    where a scan over the words branched once per word it passed;
 *  - regions: the bank's segments side by side, `stride` apart, in address
 *    regions of its own (the first for at least 4 MiB of segments, each
 *    next twice the last, at most 2 GiB), so free finds a cell's segment by
 *    a subtraction and a multiply. A hash of address windows did it before:
 *    a probe loop of dependent loads on every free. A region is mapped
 *    untouched: its pages are faulted in as segments are made in it, as
 *    were the blocks the segments were carved from before.
 */
#include "alloc/bank.h"

#include "alloc/segcache.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The header bytes the footprint counts (see the struct). */
#define BANK_HEADER_BYTES offsetof(hr_bank_t, by_index)

_Static_assert(sizeof(hr_bank_segment_t) == HR_BANK_SEG_HDR, "the map follows the header");
/* The footprint's figures are those of the bank before its lookup tables. */
_Static_assert(BANK_HEADER_BYTES == 96, "bank header bytes counted");

/* The first region holds at least this many bytes of segments; no region
 * is larger than BANK_REGION_MAX while the stride is below it, so that an
 * offset in a region divides by a multiply (hr_bank_div). */
#define BANK_REGION_MIN ((size_t)4 << 20)
#define BANK_REGION_MAX ((size_t)1 << 31)

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
    uint64_t *nf = realloc(b->nonfull, cap / 64 * sizeof *nf);
    if (!nf)
        return -1;
    memset(nf + b->cap / 64, 0, (cap - b->cap) / 64 * sizeof *nf);
    b->nonfull = nf;
    b->cap = cap;
    return 0;
}

/* The hint and its index together. */
static void set_hint(hr_bank_t *b, hr_bank_segment_t *s) {
    b->hint = s;
    b->hint_index = s ? s->index : UINT_MAX;
}

/* Room for one more segment at the end of the last region: a new region
 * when it is full (twice the last one); -1 when out of memory. */
static int region_room(hr_bank_t *b) {
    hr_bank_region_t *r = b->nregions ? &b->regions[b->nregions - 1] : NULL;
    if (r && r->bytes - r->used >= b->stride)
        return 0;
    if (b->nregions == HR_BANK_REGIONS)
        return -1;
    size_t n = r ? 2 * r->bytes : (BANK_REGION_MIN + b->stride - 1) / b->stride * b->stride;
    if (n < b->stride || (r && n < r->bytes))
        return -1; /* overflow */
    if (b->stride_inv && n > BANK_REGION_MAX) /* offsets stay below 2^32 */
        n = r ? r->bytes : b->stride;
    char *base = hr_segcache_get(n);
    if (!base)
        return -1;
    r = &b->regions[b->nregions++];
    r->base = base;
    r->bytes = n;
    r->used = 0;
    return 0;
}

static hr_bank_segment_t *segment_new(hr_bank_t *b) {
    if (tables_grow(b) != 0 || region_room(b) != 0)
        return NULL;
    hr_bank_region_t *r = &b->regions[b->nregions - 1];
    hr_bank_segment_t *s = (hr_bank_segment_t *)(r->base + r->used);
    r->used += b->stride;
    memset(s, 0, b->cells_off); /* header + bitmap; cells stay as they are */
    s->cells = (char *)s + b->cells_off;
    size_t groups = ((b->map_words - 1) >> b->sum_shift) + 1; /* 1..64 */
    s->sum = groups == 64 ? ~(uint64_t)0 : ((uint64_t)1 << groups) - 1;
    s->nfree = b->opt.cells_per_segment;
    s->index = b->last ? b->last->index + 1 : 0;
    if (b->last)
        b->last->next = s;
    else
        b->first = s;
    b->last = s;
    if (!b->hint)
        set_hint(b, s);
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
    b->span = (size_t)o.cells_per_segment * o.cell_size;
    b->seg_bytes = b->cells_off + b->span;
    b->stride = round16(b->seg_bytes);
    /* stride >= 48: no wrap; a stride above the largest region: divide */
    b->stride_inv = b->stride < BANK_REGION_MAX ? UINT64_MAX / b->stride + 1 : 0;
    b->hint_index = UINT_MAX;
    while (((b->map_words - 1) >> b->sum_shift) + 1 > 64) /* 64 groups at most */
        b->sum_shift++;
    /* Lemire's fastdiv: floor(n * ceil(2^64 / d) / 2^64) == n / d for every
     * 32-bit n and d, so owner() divides by a multiply when the cells span
     * less than 4 GiB. */
    if ((uint64_t)o.cells_per_segment * o.cell_size < ((uint64_t)1 << 32) && o.cell_size > 1)
        b->cell_inv = UINT64_MAX / o.cell_size + 1;
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
    for (unsigned i = 0; i < b->nregions; i++)
        hr_segcache_put(b->regions[i].base, b->regions[i].bytes);
    free(b->by_index);
    free(b->nonfull);
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
    set_hint(b, s);
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
            if (hr_bank_map(s)[i / 64] & ((uint64_t)1 << (i % 64)))
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
    /* The tail's segments are the last in the last regions: their places
     * there are given up, and a region left empty (never the first) goes
     * back to the cache. */
    unsigned n = 0;
    for (hr_bank_segment_t *s = keep->next; s; s = s->next) {
        if (b->hint == s)
            set_hint(b, NULL);
        set_nonfull(b, s->index, 0);
        b->segments--;
        n++;
    }
    for (unsigned k = 0; k < n; k++) {
        hr_bank_region_t *r = &b->regions[b->nregions - 1];
        r->used -= b->stride;
        if (!r->used && b->nregions > 1) {
            hr_segcache_put(r->base, r->bytes);
            b->nregions--;
        }
    }
    keep->next = NULL;
    b->last = keep;
    if (!b->hint) /* it pointed into the freed tail: every kept segment is full */
        set_hint(b, keep->nfree ? keep : NULL);
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

/* Whether s's summary word has exactly the bits of its groups with a zero. */
static int sum_agrees(const hr_bank_t *b, const hr_bank_segment_t *s) {
    const uint64_t *map = hr_bank_map(s);
    uint64_t want = 0;
    for (size_t w = 0; w < b->map_words; w++)
        if (~map[w])
            want |= (uint64_t)1 << (w >> b->sum_shift);
    return want == s->sum;
}

/* Whether s is the next place of the regions walked in chain order: region
 * *r, at byte *at (both advanced). */
static int in_place(const hr_bank_t *b, const hr_bank_segment_t *s, unsigned *r, size_t *at) {
    if (*r < b->nregions && *at == b->regions[*r].used) {
        ++*r;
        *at = 0;
    }
    if (*r >= b->nregions || (const char *)s != b->regions[*r].base + *at)
        return 0;
    *at += b->stride;
    return 1;
}

int hr_bank_check(const hr_bank_t *b) {
    uint64_t used = 0, nseg = 0;
    unsigned n = b->opt.cells_per_segment, r = 0;
    size_t at = 0;
    int hint_seen = 0;
    for (hr_bank_segment_t *s = b->first; s; s = s->next, nseg++) {
        const uint64_t *map = hr_bank_map(s);
        unsigned ones = 0;
        for (size_t w = 0; w < b->map_words; w++)
            ones += (unsigned)__builtin_popcountll(map[w]);
        if (n % 64 && (map[b->map_words - 1] >> (n % 64)))
            return HR_BANK_ECORRUPT; /* bits beyond the last cell */
        if (ones + s->nfree != n || s->index != nseg || ((uintptr_t)s->cells & 15) ||
            !sum_agrees(b, s))
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
        if (!in_place(b, s, &r, &at) || hr_bank_owner(b, s->cells, &c0) != s || c0 != 0)
            return HR_BANK_ECORRUPT; /* not where the regions say */
        used += ones;
    }
    /* Every region but the last is full up to its used bytes, which end at
     * the last segment of the chain. */
    if (used != b->used || nseg != b->segments || (b->hint && !hint_seen) ||
        b->hint_index != (b->hint ? b->hint->index : UINT_MAX) ||
        r + 1 != b->nregions || at != b->regions[r].used)
        return HR_BANK_ECORRUPT;
    return HR_BANK_OK;
}
