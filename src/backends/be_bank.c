/* "bank": hr_bank (Orx orxBank semantics) as a replay backend, one bank per
 * cell size.
 *
 * -a bank[:round=0,cells=N,max=4096]
 *   round  how a request picks its cell size:
 *          0 (default) — a small set of cells: powers of two with a midpoint,
 *            16 32 48 64 96 128 192 256 384 512 768 1024 1536 2048 3072 4096
 *            (each a multiple of 16, so every cell is 16-aligned; at most a
 *            third of a cell is rounding slop above 32 B). An engine keeps a
 *            bank per object type, so a few dozen banks at most; one bank per
 *            16-byte step made a trace with many sizes touch up to 256 banks,
 *            each holding its own mostly empty segment (frame_loop: 15.6 MiB
 *            held for 369 KiB live);
 *          N (a power of two >= 8) — the earlier mapping: the request rounded
 *            up to a multiple of N, one bank per step (-a bank:round=16 is
 *            the earlier default);
 *   cells  cells per segment (default: auto = 256 cells, fewer for cells
 *          above 256 B so a segment stays near 64 KiB, at least 4);
 *   max    the largest cell size (default 4096; with round=N a multiple of
 *          N; by default requests whose cell would exceed it are oversize).
 * A bank is created (expandable) the first time its cell size is needed; a
 * 0-byte request takes the smallest cell. Counted and served by fallback:
 *   "oversize"  size above the largest cell;
 *   "align"     alignment above what the cell gives (16 at most, less when a
 *               cell size is an odd multiple of a round below 16; align 0
 *               asks for the cell's natural alignment);
 * and "bad_free" counts frees the bank refused (not a cell / already free).
 * (The CLI splits -a lists at commas, so one option per spec there.)
 */
#include <stdlib.h>
#include <string.h>

#include "alloc/chunk.h"
#include "backends/inhouse.h"
#include "alloc/bank.h"

#define BY16_MAX 4096 /* the largest request the hot paths' table serves */

typedef struct hr_bank_be {
    hr_inhouse_t ih;        /* first: the shared adapter's part */
    hr_bank_t  **banks;     /* [nbanks], index = bank_index(size) */
    size_t       nbanks, round; /* round 0: the geometric cells */
    size_t       max_cell;  /* the largest cell: above it a request is oversize */
    unsigned     round_shift, cells;
    size_t      *made;      /* [nmade]: indexes of the banks created so far */
    size_t       nmade;
    /* The hot paths' bank lookup: by16[(size + 15) / 16] is the bank of a
     * request of `size` bytes up to fast_max (hr_bank_vacant until created:
     * no NULL test on the hot paths, its cells none), one load
     * instead of the cell's index and the bank's pointer. Every 16-byte step
     * lies in one bank when every cell is a multiple of 16 (the geometric
     * cells, round >= 16); fast_max is 0 otherwise (round=8). */
    size_t       fast_max;
    hr_bank_t   *by16[BY16_MAX / 16 + 1];
} hr_bank_be_t;

_Static_assert(sizeof(hr_bank_stats_t) <= HR_INHOUSE_STATS_MAX, "stats buffer");

static const hr_inhouse_class_t bank_class;

/* The geometric cells: index 0 = 16, 1 = 32, then for each power of two
 * 2^k (k >= 6) its midpoint 3 * 2^(k-2) at 2(k-6)+2 and 2^k at 2(k-6)+3. */
static size_t geo_index(size_t size) {
    if (size <= 16)
        return 0;
    if (size <= 32)
        return 1;
    unsigned k = 64u - (unsigned)__builtin_clzll((unsigned long long)size - 1); /* size <= 2^k */
    return 2 * (size_t)(k - 6) + 2 + (size > ((size_t)3 << (k - 2)));
}

static size_t geo_cell(size_t i) {
    if (i < 2)
        return (size_t)16 << i;
    unsigned k = (unsigned)(i - 2) / 2 + 6;
    return (i - 2) % 2 ? (size_t)1 << k : (size_t)3 << (k - 2);
}

/* geo_index of 0..4096 (the default cells), looked up on every op instead
 * of computed; filled before main(). */
#define GEO_TABLE_MAX 4096
static unsigned char geo_table[GEO_TABLE_MAX + 1];

__attribute__((constructor)) static void geo_table_fill(void) {
    for (size_t n = 0; n <= GEO_TABLE_MAX; n++)
        geo_table[n] = (unsigned char)geo_index(n);
}

/* The bank index of a request; >= nbanks when it is oversize. */
static inline size_t bank_index(const hr_bank_be_t *b, size_t size) {
    if (!b->round)
        return size > b->max_cell ? b->nbanks
               : size <= GEO_TABLE_MAX ? geo_table[size] : geo_index(size);
    return size ? (size - 1) >> b->round_shift : 0;
}

static size_t bank_cell(const hr_bank_be_t *b, size_t i) {
    return b->round ? (i + 1) << b->round_shift : geo_cell(i);
}

static void *bank_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"round", "cells", "max", NULL};
    uint64_t v[3] = {0, 0, 4096}; /* round 0 = geometric, cells 0 = auto */
    if (hr_inhouse_parse("bank", cfg, keys, v, "round=0|POW2,cells=N,max=BYTES", err) != 0)
        return NULL;
    int linear = v[0] != 0;
    if ((linear && (v[0] < 8 || (v[0] & (v[0] - 1)) || v[2] % v[0])) || v[2] < 16 ||
        v[1] > 65535 || v[2] > (1u << 24)) {
        hr_error_set(err, "bank: bad options round=%llu cells=%llu max=%llu (expected round 0 or"
                     " a power of two >= 8, cells <= 65535 (0 = auto), max 16..16M, a multiple of"
                     " round)",
                     (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2]);
        return NULL;
    }
    hr_bank_be_t *b = hr_inhouse_new(&bank_class, sizeof *b, err);
    if (!b)
        return NULL;
    b->round = (size_t)v[0];
    b->round_shift = linear ? (unsigned)__builtin_ctzll(v[0]) : 0;
    b->cells = (unsigned)v[1];
    /* Geometric: the cells up to max (geo_index(max) when max is a cell). */
    b->nbanks = linear ? (size_t)(v[2] / v[0])
                       : geo_index((size_t)v[2]) + (geo_cell(geo_index((size_t)v[2])) <= v[2]);
    b->max_cell = bank_cell(b, b->nbanks - 1);
    b->fast_max = b->round && b->round < 16 ? 0 : b->max_cell < BY16_MAX ? b->max_cell : BY16_MAX;
    for (size_t j = 0; j <= BY16_MAX / 16; j++)
        b->by16[j] = &hr_bank_vacant;
    b->banks = calloc(b->nbanks, sizeof *b->banks);
    b->made = calloc(b->nbanks, sizeof *b->made);
    if (!b->banks || !b->made) {
        hr_inhouse_destroy(b);
        return NULL;
    }
    return b;
}

static unsigned auto_cells(size_t cell) {
    size_t n = ((size_t)64 << 10) / cell;
    return n > 256 ? 256 : n < 4 ? 4 : (unsigned)n;
}

static size_t cell_align(size_t cell) {
    size_t a = cell & (~cell + 1); /* lowest set bit */
    return a > 16 ? 16 : a;
}

static void *bank_native_alloc(void *self, size_t size, size_t align, const char **why) {
    hr_bank_be_t *b = self;
    size_t i = bank_index(b, size);
    if (i >= b->nbanks) {
        *why = hr_inhouse_oversize;
        return NULL;
    }
    if (align > 8 && align > cell_align(bank_cell(b, i))) { /* every cell is 8-aligned */
        *why = "align";
        return NULL;
    }
    hr_bank_t *bk = b->banks[i];
    if (!bk) {
        hr_bank_options_t o = hr_bank_default();
        o.cell_size = bank_cell(b, i);
        o.cells_per_segment = b->cells ? b->cells : auto_cells(o.cell_size);
        if (!(bk = b->banks[i] = hr_bank_create(&o)))
            return NULL;
        b->made[b->nmade++] = i;
        for (size_t j = 0; j * 16 <= b->fast_max; j++) /* j: sizes 16j - 15 .. 16j (0: 0) */
            if (bank_index(b, j * 16) == i)
                b->by16[j] = bk;
    }
    return hr_bank_alloc(bk);
}

/* Everything but the common case below: the adapter's path (a bank to
 * create, no free cell at the hint, a fallback). */
static __attribute__((noinline)) void *bank_alloc_rest(void *self, size_t size, size_t align) {
    return hr_inhouse_alloc(self, size, align, bank_native_alloc);
}

/* The common case, what bank_native_alloc and the adapter do when the
 * request's bank exists and has a free cell at its hint, with its one call
 * (a cell beyond the bank's first region) a tail call: the function then
 * saves no registers (their pushes and pops were a sixth of an op on
 * particles, callgrind). */
static inline __attribute__((always_inline)) void *bank_alloc_as(void *self, size_t size,
                                                                 size_t align, const int counted) {
    hr_bank_be_t *b = self;
    hr_bank_t *bk;
    uint64_t s;
    if (__builtin_expect(size <= b->fast_max && align <= 8 &&
                         (s = hr_bank_ready(bk = b->by16[(size + 15) >> 4])), 1)) {
        if (counted)
            hr_fallback_native(&b->ih.fb);
        return hr_bank_take_as(bk, s, counted);
    }
    return bank_alloc_rest(self, size, align);
}

/* bank_alloc, and bank_alloc_timed without the native-op count, the used
 * cells and their peak. */
HR_TIMED_ALLOC_PAIR(bank_alloc)

static int bank_native_free(void *self, void *ptr, size_t size) {
    hr_bank_be_t *b = self;
    size_t i = bank_index(b, size);
    if (i >= b->nbanks || !b->banks[i] || hr_bank_free(b->banks[i], ptr) != HR_BANK_OK) {
        hr_fallback_violation(&b->ih.fb, "bad_free");
        return 0;
    }
    return 1;
}

/* The rest of bank_free: a cell beyond the bank's first region (found
 * there, it is no fallback block: those come from malloc, never from a
 * bank's regions); else an oversize block is a fallback one, not in the
 * adapter's set; any other goes the adapter's way. */
static __attribute__((noinline)) void bank_free_rest(void *self, void *ptr, size_t size) {
    hr_bank_be_t *b = self;
    size_t i = bank_index(b, size);
    if (i < b->nbanks && b->banks[i] && hr_bank_free_far(b->banks[i], ptr) == HR_BANK_OK) {
        hr_fallback_native(&b->ih.fb);
        return;
    }
    if (i >= b->nbanks)
        hr_inhouse_fb_free_oversize(&b->ih, ptr, size);
    else
        hr_inhouse_free(self, ptr, size, bank_native_free);
}

/* The common case as in bank_alloc: the block a used cell of its size's
 * bank's first region. Found there, it is no fallback block whatever
 * fallback blocks are live, so the adapter's search of their set, which
 * every free paid while one was live (82-100 % of the frees on frame_loop,
 * game_session, level_load), comes only after a miss. */
static inline __attribute__((always_inline)) void bank_free_as(void *self, void *ptr, size_t size,
                                                               const int counted) {
    hr_bank_be_t *b = self;
    size_t cell;
    hr_bank_t *bk;
    if (__builtin_expect(size <= b->fast_max && (bk = b->by16[(size + 15) >> 4], 1) &&
                         (cell = hr_bank_index0(bk, ptr)) != SIZE_MAX &&
                         hr_bank_release_as(bk, cell, counted), 1)) {
        if (counted)
            hr_fallback_native(&b->ih.fb);
        return;
    }
    bank_free_rest(self, ptr, size);
}

HR_TIMED_FREE_PAIR(bank_free)

/* Summed when asked (the measuring lap asks after each op; the timed laps
 * never do), so that an allocation does not pay for it. */
static uint64_t bank_footprint(void *self) {
    hr_bank_be_t *b = self;
    uint64_t fp = 0;
    for (size_t k = 0; k < b->nmade; k++)
        fp += hr_bank_footprint(b->banks[b->made[k]]);
    return fp;
}

static size_t bank_usable_size(void *self, void *ptr, size_t size) {
    (void)ptr;
    hr_bank_be_t *b = self;
    size_t i = bank_index(b, size);
    return i < b->nbanks ? bank_cell(b, i) : hr_chunk_usable(size); /* oversize: fallback */
}

/* Totals over the banks; high_water is the sum of the banks' own peaks
 * (emitted as "sum_bank_high_water"), largest_free the largest. */
static void bank_totals(void *self, void *out) {
    hr_bank_be_t *b = self;
    hr_bank_stats_t *t = out, st;
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < b->nbanks; i++) {
        if (!b->banks[i])
            continue;
        hr_bank_stats(b->banks[i], &st);
        t->head.live_bytes += st.head.live_bytes;
        t->head.footprint += st.head.footprint;
        t->head.high_water += st.head.high_water;
        t->head.objects += st.head.objects;
        t->segments += st.segments;
        t->free_cells += st.free_cells;
        if (st.head.largest_free > t->head.largest_free)
            t->head.largest_free = st.head.largest_free;
    }
}

static void bank_emit_banks(void *self, hr_emit_t *em) {
    hr_bank_be_t *b = self;
    hr_bank_stats_t st;
    hr_emit_arr_begin(em, "banks");
    for (size_t i = 0; i < b->nbanks; i++) {
        if (!b->banks[i])
            continue;
        hr_bank_stats(b->banks[i], &st);
        hr_emit_obj_begin(em, NULL);
        hr_emit_u64(em, "cell_size", hr_bank_cell_size(b->banks[i]));
        hr_emit_u64(em, "segments", st.segments);
        hr_emit_u64(em, "peak_segments", st.peak_segments);
        hr_emit_u64(em, "used_cells", st.head.objects);
        hr_emit_u64(em, "peak_bytes", st.head.high_water);
        hr_emit_obj_end(em);
    }
    hr_emit_arr_end(em);
}

static int64_t bank_check(void *self) {
    hr_bank_be_t *b = self;
    for (size_t i = 0; i < b->nbanks; i++)
        if (b->banks[i] && hr_bank_check(b->banks[i]) != 0)
            return HR_BANK_ECORRUPT;
    return HR_BANK_OK;
}

static void bank_destroy(void *self) {
    hr_bank_be_t *b = self;
    for (size_t i = 0; b->banks && i < b->nbanks; i++)
        hr_bank_destroy(b->banks[i]);
    free(b->banks);
    free(b->made);
}

static const hr_inhouse_field_t bank_fields[] = {
    HR_IH_HEAD("live_bytes", live_bytes),
    HR_IH_HEAD("footprint", footprint),
    HR_IH_HEAD("sum_bank_high_water", high_water),
    HR_IH_HEAD("objects", objects),
    HR_IH_STAT("segments", hr_bank_stats_t, segments),
    HR_IH_STAT("free_cells", hr_bank_stats_t, free_cells),
    HR_IH_HEAD("largest_free", largest_free),
    {NULL, 0, 0},
};

static const hr_inhouse_class_t bank_class = {
    .name = "bank",
    .stats = bank_totals,
    .fields = bank_fields,
    .emit_pre = bank_emit_banks,
    .check = bank_check,
    .footprint = bank_footprint,
    .usable = bank_usable_size,
    .destroy = bank_destroy,
};

const hr_backend_t hr_backend_bank = {
    .name = "bank",
    .description = "Orx orxBank: banks of fixed cells 16 B..4 KiB (powers of two and midpoints),"
                   " chained segments; round=16 for a bank per 16 B step",
    .caps = HR_CAP_NEEDS_SIZE_ON_FREE | HR_CAP_FIXED_CELL | HR_CAP_ALIGNED,
    .create = bank_create,
    .alloc = bank_alloc,
    .free = bank_free,
    .alloc_timed = bank_alloc_timed,
    .free_timed = bank_free_timed,
    HR_INHOUSE_BACKEND_FNS,
};
