/* hr_bank: Orx orxBank semantics (see src/alloc/bank.h). Our own C code:
 * segments of N cells side by side in address regions, one used-cell bitmap
 * for the bank, lowest free cell first.
 *
 * What keeps alloc and free O(1) and short (a chain walk made a bank with
 * many segments cost O(segments) per op, 200-600 ns/op on level_load and the
 * freeciv trace; per-segment headers with their own bitmaps cost two
 * divisions, a region search and three counters per free), none of it
 * changing which cell is handed out or what is counted:
 *  - the cells of segment s are cells s * N .. s * N + N - 1 of the bank, so
 *    the first non-full segment's lowest free cell is the bank's lowest free
 *    cell: the lowest set bit of one bitmap (1 = free, as Orx's map);
 *  - `sum`, a bit per bitmap word with a free cell, and `hint`, the first
 *    summary word that may have one: the lowest free cell is two
 *    count-trailing-zeros away, where a scan over the words (Orx's) branched
 *    once per word it passed; the hint moves on in the slow path only;
 *  - regions: the cells of the first region (at least 4 MiB of them) are at
 *    base0 + index * cell size, so free divides the offset by the cell size
 *    (a multiply) and checks the remainder; the later regions' cells (a bank
 *    that outgrew 4 MiB) take an out-of-line search over the regions;
 *  - the per-segment free counts Orx keeps are not kept: nothing but stats
 *    and compact read them, and those count the bitmap when asked.
 * A region is mapped untouched: its pages are faulted in as cells are
 * written, and nothing of the bank's own lies in them.
 */
#include "alloc/bank.h"

#include "alloc/segcache.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The bank header bytes the footprint counts: Orx's bank as it was counted
 * from the start (options, chain, counters); the lookup state (bitmap,
 * summary, regions) is the replay's index into the bank, not memory the
 * design holds. */
#define BANK_HEADER_BYTES 96
/* A segment as Orx lays it out, for the footprint: a 32-byte header, its
 * used-cell bitmap (64-bit words), each rounded to 16, then the cells. */
#define BANK_SEG_HDR 32

_Static_assert(offsetof(hr_bank_t, high_water_cells) == 64, "the hot fields fill one cache line");

/* The first region holds at least this many bytes of cells; no region is
 * larger than BANK_REGION_MAX unless one segment is. */
#define BANK_REGION_MIN ((size_t)4 << 20)
#define BANK_REGION_MAX ((size_t)1 << 31)

/* Its bitmap and summary: one word, 0 (no free cell); cells0 0, so no
 * pointer is a cell of it. */
static uint64_t vacant_words[1];
hr_bank_t hr_bank_vacant = {.map = vacant_words, .sum = vacant_words};

hr_bank_options_t hr_bank_default(void) {
    hr_bank_options_t o = {16, 256, 1};
    return o;
}

static size_t round16(size_t x) { return (x + 15) & ~(size_t)15; }

static uint64_t footprint_of(const hr_bank_t *b) {
    return BANK_HEADER_BYTES + b->segments * b->seg_bytes;
}

/* The bytes of one segment's cells. */
static size_t span_of(const hr_bank_t *b) { return (size_t)b->opt.cells_per_segment * b->cell; }

/* Cells the segments hold: bits of the map that may be set. */
static size_t capacity(const hr_bank_t *b) { return (size_t)b->segments * b->opt.cells_per_segment; }

/* Room in the bitmap for `cells` cells (whole summary words); -1 when out of memory. */
static int map_grow(hr_bank_t *b, size_t cells) {
    size_t words = (cells + 63) / 64;
    if (words <= b->map_cap)
        return 0;
    size_t cap = b->map_cap ? b->map_cap : 64;
    while (cap < words)
        cap *= 2; /* a multiple of 64: whole summary words */
    uint64_t *m = realloc(b->map, cap * sizeof *m);
    if (!m)
        return -1;
    memset(m + b->map_cap, 0, (cap - b->map_cap) * sizeof *m);
    b->map = m;
    uint64_t *s = realloc(b->sum, cap / 64 * sizeof *s);
    if (!s)
        return -1;
    memset(s + b->map_cap / 64, 0, (cap - b->map_cap) / 64 * sizeof *s);
    b->sum = s;
    b->map_cap = cap;
    return 0;
}

/* Marks cells [lo, hi) free or clear (not a cell), with their summary bits. */
static void mark_range(hr_bank_t *b, size_t lo, size_t hi, int is_free) {
    for (size_t i = lo; i < hi;) {
        size_t n = 64 - i % 64 < hi - i ? 64 - i % 64 : hi - i; /* bits in this word */
        uint64_t bits = (n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1) << (i % 64);
        uint64_t *m = &b->map[i / 64];
        *m = is_free ? *m | bits : *m & ~bits;
        uint64_t sbit = (uint64_t)1 << (i / 64 % 64);
        b->sum[i / 64 / 64] = *m ? b->sum[i / 64 / 64] | sbit : b->sum[i / 64 / 64] & ~sbit;
        i += n;
    }
}

/* The first-region fields the fast paths read, from regions[0]. */
static void sync_first(hr_bank_t *b) {
    b->base0 = b->regions[0].base;
    b->cells0 = b->regions[0].used / b->cell;
}

/* Room for one more segment at the end of the last region: a new region
 * when it is full (twice the last one); -1 when out of memory. */
static int region_room(hr_bank_t *b) {
    size_t span = span_of(b);
    hr_bank_region_t *r = b->nregions ? &b->regions[b->nregions - 1] : NULL;
    if (r && r->bytes - r->used >= span)
        return 0;
    if (b->nregions == HR_BANK_REGIONS)
        return -1;
    size_t n = r ? 2 * r->bytes : (BANK_REGION_MIN + span - 1) / span * span;
    if (n < span || (r && n < r->bytes))
        return -1; /* overflow */
    if (r && n > BANK_REGION_MAX)
        n = r->bytes;
    char *base = hr_segcache_get(n);
    if (!base)
        return -1;
    hr_bank_region_t *nr = &b->regions[b->nregions++];
    nr->base = base;
    nr->bytes = n;
    nr->used = 0;
    nr->first = r ? r->first + r->used / b->cell : 0;
    return 0;
}

/* Appends a segment: its cells made free. -1 when out of memory. */
static int segment_new(hr_bank_t *b) {
    size_t lo = capacity(b), hi = lo + b->opt.cells_per_segment;
    if (map_grow(b, hi) != 0 || region_room(b) != 0)
        return -1;
    b->regions[b->nregions - 1].used += span_of(b);
    if (b->nregions == 1)
        sync_first(b);
    mark_range(b, lo, hi, 1);
    if (++b->segments > b->peak_segments)
        b->peak_segments = b->segments;
    return 0;
}

hr_bank_t *hr_bank_create(const hr_bank_options_t *opt) {
    hr_bank_options_t o = opt ? *opt : hr_bank_default();
    if (o.cell_size == 0 || o.cells_per_segment == 0)
        return NULL;
    hr_bank_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->opt = o;
    b->cell = o.cell_size;
    size_t map_words = (o.cells_per_segment + 63) / 64;
    b->seg_bytes = round16(BANK_SEG_HDR) + round16(map_words * 8) + span_of(b);
    b->cell_shift = (uint32_t)__builtin_ctzll((unsigned long long)b->cell);
    uint64_t odd = (uint64_t)b->cell >> b->cell_shift, inv = odd;
    for (int k = 0; k < 5; k++) /* Newton: each step doubles the bits inv is right in */
        inv *= 2 - odd * inv;
    b->cell_inv = inv;
    /* Like orxBank_Create, the first segment is made at once. */
    if (segment_new(b) != 0) {
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
    free(b->map);
    free(b->sum);
    free(b);
}

/* The rest of hr_bank_alloc (bank.h): the hint's summary word is empty. The
 * first summary word after it with a bit, or a new segment. */
void *hr_bank_alloc_slow(hr_bank_t *b) {
    size_t words = b->map_cap / 64, k = b->hint;
    while (k < words && !b->sum[k])
        k++;
    if (k == words) {
        if (!b->opt.expandable || segment_new(b) != 0)
            return NULL;
        k = (capacity(b) - b->opt.cells_per_segment) / 64 / 64; /* the new segment's first word */
    }
    b->hint = (uint32_t)k;
    return hr_bank_take(b, b->sum[k]);
}

/* Region holding cell i (beyond the first region's cells). */
void *hr_bank_cell_far(const hr_bank_t *b, size_t i) {
    unsigned r = b->nregions - 1;
    while (i < b->regions[r].first)
        r--;
    return b->regions[r].base + (i - b->regions[r].first) * b->cell;
}

/* The bank's index of the cell at p in any region, or SIZE_MAX. */
static size_t index_of(const hr_bank_t *b, const void *p) {
    for (unsigned r = 0; r < b->nregions; r++) {
        const hr_bank_region_t *g = &b->regions[r];
        size_t off = (size_t)((uintptr_t)p - (uintptr_t)g->base);
        if (off < g->used)
            return off % b->cell ? SIZE_MAX : g->first + off / b->cell;
    }
    return SIZE_MAX;
}

/* The rest of hr_bank_free (bank.h): p is no cell of the first region. */
int hr_bank_free_far(hr_bank_t *b, void *p) {
    size_t i = index_of(b, p);
    if (i == SIZE_MAX)
        return HR_BANK_ENOTOWNED;
    return hr_bank_release(b, i) ? HR_BANK_OK : HR_BANK_EFREE;
}

int hr_bank_owns(const hr_bank_t *b, const void *p) { return index_of(b, p) != SIZE_MAX; }

void *hr_bank_next(const hr_bank_t *b, const void *cell) {
    size_t i = 0, cap = capacity(b);
    if (cell) {
        if ((i = index_of(b, cell)) == SIZE_MAX)
            return NULL;
        i++;
    }
    for (; i < cap; i++)
        if (hr_bank_in_use(b, i))
            return hr_bank_cell_far(b, i); /* any region */
    return NULL;
}

/* Whether segment s has no used cell. */
static int segment_empty(const hr_bank_t *b, size_t s) {
    size_t lo = s * b->opt.cells_per_segment, hi = lo + b->opt.cells_per_segment;
    for (size_t i = lo; i < hi; i++)
        if (hr_bank_in_use(b, i))
            return 0;
    return 1;
}

unsigned hr_bank_compact(hr_bank_t *b) {
    /* Keep everything up to the last segment with a used cell (and always
     * the first segment); free the empty tail: its cells are no cells any
     * more, its places in the last regions are given up, and a region left
     * empty (never the first) goes back to the cache. */
    size_t keep = (size_t)b->segments - 1;
    while (keep > 0 && segment_empty(b, keep))
        keep--;
    unsigned n = (unsigned)(b->segments - 1 - keep);
    mark_range(b, (keep + 1) * b->opt.cells_per_segment, capacity(b), 0);
    for (unsigned k = 0; k < n; k++) {
        hr_bank_region_t *r = &b->regions[b->nregions - 1];
        r->used -= span_of(b);
        if (!r->used && b->nregions > 1) {
            hr_segcache_put(r->base, r->bytes);
            b->nregions--;
        }
    }
    b->segments -= n;
    sync_first(b);
    if (b->hint >= b->map_cap / 64 || !b->sum[b->hint]) /* it may have pointed into the tail */
        b->hint = 0;
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
    st->free_cells = capacity(b) - b->used;
    st->head.largest_free = st->free_cells ? b->opt.cell_size : 0;
}

/* Whether the regions hold the segments in order: each region's first cell
 * follows the last one's, each but the last full of segments, their cells
 * the bank's capacity, the fast paths' copy of the first one current. */
static int regions_agree(const hr_bank_t *b) {
    size_t span = span_of(b), cells = 0;
    for (unsigned r = 0; r < b->nregions; r++) {
        const hr_bank_region_t *g = &b->regions[r];
        if (g->first != cells || g->used % span || g->used > g->bytes ||
            (r + 1 < b->nregions && g->bytes - g->used >= span) || !g->used ||
            ((uintptr_t)g->base & 15))
            return 0;
        cells += g->used / b->cell;
    }
    return cells == capacity(b) && b->base0 == b->regions[0].base &&
           b->cells0 == b->regions[0].used / b->cell;
}

int hr_bank_check(const hr_bank_t *b) {
    size_t cap = capacity(b), words = b->map_cap / 64, used = 0;
    if (!b->nregions || !regions_agree(b) || b->hint >= words || (cap + 63) / 64 > b->map_cap)
        return HR_BANK_ECORRUPT;
    for (size_t w = 0; w < b->map_cap; w++) {
        uint64_t m = b->map[w];
        size_t lo = w * 64;
        if (lo + 64 > cap) /* bits past the segments: clear */
            m &= lo >= cap ? 0 : ((uint64_t)1 << (cap - lo)) - 1;
        if (m != b->map[w] || !(b->sum[w / 64] >> (w % 64) & 1) != !m)
            return HR_BANK_ECORRUPT;
        if (lo < cap)
            used += (lo + 64 > cap ? cap - lo : 64) - (size_t)__builtin_popcountll(m);
    }
    for (size_t k = 0; k < b->hint; k++)
        if (b->sum[k])
            return HR_BANK_ECORRUPT; /* a free cell before the hint */
    if (used != b->used || b->segments > b->peak_segments)
        return HR_BANK_ECORRUPT;
    return HR_BANK_OK;
}
