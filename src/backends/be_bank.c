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

#include "alloc/chunk.h"
#include "backends/backend.h"
#include "backends/seed_util.h"
#include "heapreplay/bank.h"

typedef struct hr_bank_be {
    hr_bank_t  **banks;     /* [max / round], index = cell / round - 1 */
    size_t       nbanks, round;
    unsigned     round_shift, cells;
    uint64_t     footprint; /* sum of the banks' footprints */
    hr_seed_fb_t f;
} hr_bank_be_t;

static void *bank_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"round", "cells", "max", NULL};
    uint64_t v[3] = {16, 0, 4096}; /* cells 0 = auto */
    const char *bad = NULL;
    if (cfg && cfg->arg && hr_seed_parse_kv(cfg->arg, keys, v, &bad) != 0) {
        hr_error_set(err, "bank: bad option at '%s' (expected round=POW2,cells=N,max=BYTES)", bad);
        return NULL;
    }
    if (v[0] < 8 || (v[0] & (v[0] - 1)) || v[1] > 65535 || v[2] < v[0] ||
        v[2] % v[0] || v[2] > (1u << 24)) {
        hr_error_set(err, "bank: bad options round=%llu cells=%llu max=%llu (expected round a power"
                     " of two >= 8, cells <= 65535 (0 = auto), max a multiple of round <= 16M)",
                     (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2]);
        return NULL;
    }
    hr_bank_be_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->round = (size_t)v[0];
    b->round_shift = (unsigned)__builtin_ctzll(v[0]);
    b->cells = (unsigned)v[1];
    b->nbanks = (size_t)(v[2] / v[0]);
    if (!(b->banks = calloc(b->nbanks, sizeof *b->banks))) {
        free(b);
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

static void *bank_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap;
    hr_bank_be_t *b = self;
    size_t i = size ? (size - 1) >> b->round_shift : 0;
    if (i >= b->nbanks)
        return hr_seed_fb_alloc(&b->f, size, align, "oversize");
    if (align > cell_align((i + 1) << b->round_shift))
        return hr_seed_fb_alloc(&b->f, size, align, "align");
    hr_bank_t *bk = b->banks[i];
    if (!bk) {
        hr_bank_options_t o = hr_bank_default();
        o.cell_size = (i + 1) << b->round_shift;
        o.cells_per_segment = b->cells ? b->cells : auto_cells(o.cell_size);
        if (!(bk = b->banks[i] = hr_bank_create(&o)))
            return hr_seed_fb_alloc(&b->f, size, align, "out_of_memory");
        b->footprint += hr_bank_footprint(bk);
    }
    uint64_t before = hr_bank_footprint(bk);
    void *p = hr_bank_alloc(bk);
    if (!p)
        return hr_seed_fb_alloc(&b->f, size, align, "out_of_memory");
    b->footprint += hr_bank_footprint(bk) - before;
    hr_fallback_native(&b->f.fb);
    return p;
}

static void bank_free(void *self, void *ptr, size_t size) {
    hr_bank_be_t *b = self;
    if (!ptr || hr_seed_fb_free(&b->f, ptr, size))
        return;
    size_t i = size ? (size - 1) >> b->round_shift : 0;
    if (i >= b->nbanks || !b->banks[i] || hr_bank_free(b->banks[i], ptr) != HR_BANK_OK) {
        hr_fallback_violation(&b->f.fb, "bad_free");
        return;
    }
    hr_fallback_native(&b->f.fb);
}

static uint64_t bank_footprint(void *self) {
    hr_bank_be_t *b = self;
    return b->footprint + b->f.fb.bytes_held;
}

static size_t bank_usable_size(void *self, void *ptr, size_t size) {
    hr_bank_be_t *b = self;
    if (hr_seed_fb_owns(&b->f, ptr))
        return hr_chunk_usable(size);
    return size ? ((size - 1) | (b->round - 1)) + 1 : b->round;
}

static void bank_stats(void *self, hr_emit_t *em) {
    hr_bank_be_t *b = self;
    hr_bank_stats_t t = {0}, st;
    int bad = 0;
    hr_fallback_emit(&b->f.fb, em);
    hr_emit_arr_begin(em, "banks");
    for (size_t i = 0; i < b->nbanks; i++) {
        if (!b->banks[i])
            continue;
        hr_bank_stats(b->banks[i], &st);
        bad |= hr_bank_check(b->banks[i]) != 0;
        hr_emit_obj_begin(em, NULL);
        hr_emit_u64(em, "cell_size", hr_bank_cell_size(b->banks[i]));
        hr_emit_u64(em, "segments", st.segments);
        hr_emit_u64(em, "peak_segments", st.peak_segments);
        hr_emit_u64(em, "used_cells", st.objects);
        hr_emit_u64(em, "peak_bytes", st.high_water);
        hr_emit_obj_end(em);
        t.live_bytes += st.live_bytes;
        t.footprint += st.footprint;
        t.high_water += st.high_water;
        t.objects += st.objects;
        t.segments += st.segments;
        t.free_cells += st.free_cells;
        if (st.largest_free > t.largest_free)
            t.largest_free = st.largest_free;
    }
    hr_emit_arr_end(em);
    hr_emit_u64(em, "live_bytes", t.live_bytes);
    hr_emit_u64(em, "footprint", t.footprint + b->f.fb.bytes_held);
    hr_emit_u64(em, "sum_bank_high_water", t.high_water);
    hr_emit_u64(em, "objects", t.objects);
    hr_emit_u64(em, "segments", t.segments);
    hr_emit_u64(em, "free_cells", t.free_cells);
    hr_emit_u64(em, "largest_free", t.largest_free);
    hr_emit_i64(em, "check", bad ? HR_BANK_ECORRUPT : HR_BANK_OK);
}

static void bank_destroy(void *self) {
    hr_bank_be_t *b = self;
    if (!b)
        return;
    for (size_t i = 0; i < b->nbanks; i++)
        hr_bank_destroy(b->banks[i]);
    free(b->banks);
    hr_seed_fb_release(&b->f);
    free(b);
}

const hr_backend_t hr_backend_bank = {
    .name = "bank",
    .description = "Orx orxBank: one bank of fixed cells per 16 B size step, chained segments",
    .caps = HR_CAP_NEEDS_SIZE_ON_FREE | HR_CAP_FIXED_CELL | HR_CAP_ALIGNED,
    .create = bank_create,
    .alloc = bank_alloc,
    .free = bank_free,
    .footprint = bank_footprint,
    .usable_size = bank_usable_size,
    .stats = bank_stats,
    .destroy = bank_destroy,
};
