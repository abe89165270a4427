/* "bank": hr_bank (Orx orxBank semantics) as a replay backend, one bank per
 * rounded cell size.
 *
 * -a bank[:round=16,cells=N,max=4096]
 *   round  cell sizes are the request rounded up to a multiple of this
 *          (a power of two >= 8; default 16, malloc's alignment);
 *   cells  cells per segment (default: auto = 256 cells, fewer for cells
 *          above 256 B so a segment stays near 64 KiB, at least 4; with 256
 *          for every size, one segment per touched size up to 4 KiB would
 *          hold ~130 MiB before a single cell is reused);
 *   max    the largest cell size (default 4096, a multiple of round).
 * A bank is created (expandable) the first time its cell size is needed; a
 * 0-byte request takes the smallest cell. Counted and served by fallback:
 *   "oversize"  size above max;
 *   "align"     alignment above what the cell gives (16 at most, less when a
 *               cell size is an odd multiple of a round below 16; align 0
 *               asks for the cell's natural alignment);
 * and "bad_free" counts frees the bank refused (not a cell / already free).
 */
#include <stdlib.h>
#include <string.h>

#include "backends/inhouse.h"
#include "heapreplay/bank.h"

typedef struct hr_bank_be {
    hr_inhouse_t ih;        /* first: the shared adapter's part */
    hr_bank_t  **banks;     /* [max / round], index = cell / round - 1 */
    size_t       nbanks, round;
    unsigned     round_shift, cells;
    uint64_t     footprint; /* sum of the banks' footprints */
} hr_bank_be_t;

_Static_assert(sizeof(hr_bank_stats_t) <= HR_INHOUSE_STATS_MAX, "stats buffer");

static const hr_inhouse_class_t bank_class;

static void *bank_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"round", "cells", "max", NULL};
    uint64_t v[3] = {16, 0, 4096}; /* cells 0 = auto */
    if (hr_inhouse_parse("bank", cfg, keys, v, "round=POW2,cells=N,max=BYTES", err) != 0)
        return NULL;
    if (v[0] < 8 || (v[0] & (v[0] - 1)) || v[1] > 65535 || v[2] < v[0] ||
        v[2] % v[0] || v[2] > (1u << 24)) {
        hr_error_set(err, "bank: bad options round=%llu cells=%llu max=%llu (expected round a power"
                     " of two >= 8, cells <= 65535 (0 = auto), max a multiple of round <= 16M)",
                     (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2]);
        return NULL;
    }
    hr_bank_be_t *b = hr_inhouse_new(&bank_class, sizeof *b, err);
    if (!b)
        return NULL;
    b->round = (size_t)v[0];
    b->round_shift = (unsigned)__builtin_ctzll(v[0]);
    b->cells = (unsigned)v[1];
    b->nbanks = (size_t)(v[2] / v[0]);
    if (!(b->banks = calloc(b->nbanks, sizeof *b->banks))) {
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
    size_t i = size ? (size - 1) >> b->round_shift : 0;
    if (i >= b->nbanks) {
        *why = "oversize";
        return NULL;
    }
    if (align > cell_align((i + 1) << b->round_shift)) {
        *why = "align";
        return NULL;
    }
    hr_bank_t *bk = b->banks[i];
    if (!bk) {
        hr_bank_options_t o = hr_bank_default();
        o.cell_size = (i + 1) << b->round_shift;
        o.cells_per_segment = b->cells ? b->cells : auto_cells(o.cell_size);
        if (!(bk = b->banks[i] = hr_bank_create(&o)))
            return NULL;
        b->footprint += hr_bank_footprint(bk);
    }
    uint64_t before = hr_bank_footprint(bk);
    void *p = hr_bank_alloc(bk);
    if (p)
        b->footprint += hr_bank_footprint(bk) - before;
    return p;
}

static void *bank_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap;
    return hr_inhouse_alloc(self, size, align, bank_native_alloc);
}

static int bank_native_free(void *self, void *ptr, size_t size) {
    hr_bank_be_t *b = self;
    size_t i = size ? (size - 1) >> b->round_shift : 0;
    if (i >= b->nbanks || !b->banks[i] || hr_bank_free(b->banks[i], ptr) != HR_BANK_OK) {
        hr_fallback_violation(&b->ih.fb, "bad_free");
        return 0;
    }
    return 1;
}

static void bank_free(void *self, void *ptr, size_t size) {
    hr_inhouse_free(self, ptr, size, bank_native_free);
}

static uint64_t bank_footprint(void *self) {
    hr_bank_be_t *b = self;
    return b->footprint;
}

static size_t bank_usable_size(void *self, void *ptr, size_t size) {
    (void)ptr;
    hr_bank_be_t *b = self;
    return size ? ((size - 1) | (b->round - 1)) + 1 : b->round;
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
    .description = "Orx orxBank: one bank of fixed cells per 16 B size step, chained segments",
    .caps = HR_CAP_NEEDS_SIZE_ON_FREE | HR_CAP_FIXED_CELL | HR_CAP_ALIGNED,
    .create = bank_create,
    .alloc = bank_alloc,
    .free = bank_free,
    HR_INHOUSE_BACKEND_FNS,
};
