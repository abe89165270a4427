/* "block": hr_block (Box2D b2BlockAllocator semantics) as a replay backend.
 *
 * -a block[:chunk=16K,inc=128]
 * Native: sizes 1..640 from the 14 classes, larger sizes from the allocator's
 * own malloc path (Box2D behaviour, reported as large_*). A 0-byte request is
 * served as 1 byte (Box2D would return NULL). The trace's recorded size is
 * passed on free, as b2BlockAllocator::Free requires. Counted and served by
 * fallback: "align" (alignment above 16, the blocks' natural alignment).
 */
#include <stdlib.h>

#include "alloc/chunk.h"
#include "backends/backend.h"
#include "backends/seed_util.h"
#include "heapreplay/block.h"

typedef struct hr_block_be {
    hr_block_t  *a;
    hr_seed_fb_t f;
} hr_block_be_t;

static void *block_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"chunk", "inc", NULL};
    hr_block_options_t o = hr_block_default();
    uint64_t v[2] = {o.chunk_size, (uint64_t)o.chunk_array_inc};
    const char *bad = NULL;
    if (cfg && cfg->arg && hr_seed_parse_kv(cfg->arg, keys, v, &bad) != 0) {
        hr_error_set(err, "block: bad option at '%s' (expected chunk=BYTES,inc=N)", bad);
        return NULL;
    }
    o.chunk_size = (size_t)v[0];
    o.chunk_array_inc = v[1] > 1u << 20 ? 0 : (int)v[1];
    hr_block_be_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    if (!(b->a = hr_block_create(&o))) {
        hr_error_set(err, "block: cannot create (chunk=%zu must be >= 640 and a multiple of 16,"
                     " inc=%d > 0)", o.chunk_size, o.chunk_array_inc);
        free(b);
        return NULL;
    }
    return b;
}

static void *block_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap;
    hr_block_be_t *b = self;
    if (align > 16)
        return hr_seed_fb_alloc(&b->f, size, align, "align");
    void *p = hr_block_alloc(b->a, size ? size : 1);
    if (!p)
        return hr_seed_fb_alloc(&b->f, size, align, "out_of_memory");
    hr_fallback_native(&b->f.fb);
    return p;
}

static void block_free(void *self, void *ptr, size_t size) {
    hr_block_be_t *b = self;
    if (!ptr || hr_seed_fb_free(&b->f, ptr, size))
        return;
    hr_block_free(b->a, ptr, size ? size : 1);
    hr_fallback_native(&b->f.fb);
}

static uint64_t block_footprint(void *self) {
    hr_block_be_t *b = self;
    return hr_block_footprint(b->a) + b->f.fb.bytes_held;
}

static size_t block_usable_size(void *self, void *ptr, size_t size) {
    hr_block_be_t *b = self;
    if (hr_seed_fb_owns(&b->f, ptr))
        return hr_chunk_usable(size);
    return hr_block_usable(size ? size : 1);
}

static void block_stats(void *self, hr_emit_t *em) {
    hr_block_be_t *b = self;
    hr_block_stats_t st;
    hr_block_stats(b->a, &st);
    hr_fallback_emit(&b->f.fb, em);
    hr_emit_u64(em, "live_bytes", st.live_bytes);
    hr_emit_u64(em, "footprint", st.footprint + b->f.fb.bytes_held);
    hr_emit_u64(em, "high_water", st.high_water);
    hr_emit_u64(em, "peak_footprint", st.peak_footprint);
    hr_emit_u64(em, "objects", st.objects);
    hr_emit_u64(em, "largest_free", st.largest_free);
    hr_emit_u64(em, "chunks", st.chunk_count);
    hr_emit_u64(em, "chunk_space", st.chunk_space);
    hr_emit_u64(em, "large_live", st.large_live);
    hr_emit_u64(em, "large_bytes", st.large_bytes);
    hr_emit_u64(em, "internal_waste", st.internal_waste);
    hr_emit_arr_begin(em, "classes");
    for (int c = 0; c < HR_BLOCK_NUM_CLASSES; c++) {
        hr_emit_obj_begin(em, NULL);
        hr_emit_u64(em, "size", hr_block_class_sizes[c]);
        hr_emit_u64(em, "live", st.class_live[c]);
        hr_emit_u64(em, "free", st.class_free[c]);
        hr_emit_obj_end(em);
    }
    hr_emit_arr_end(em);
    hr_emit_i64(em, "check", hr_block_check(b->a));
}

static void block_destroy(void *self) {
    hr_block_be_t *b = self;
    if (!b)
        return;
    hr_block_destroy(b->a);
    hr_seed_fb_release(&b->f);
    free(b);
}

const hr_backend_t hr_backend_block = {
    .name = "block",
    .description = "Box2D b2BlockAllocator: 14 classes 16..640 B in 16 KiB chunks, malloc above",
    .caps = HR_CAP_NEEDS_SIZE_ON_FREE | HR_CAP_ALIGNED,
    .create = block_create,
    .alloc = block_alloc,
    .free = block_free,
    .footprint = block_footprint,
    .usable_size = block_usable_size,
    .stats = block_stats,
    .destroy = block_destroy,
};
