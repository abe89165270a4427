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

#include "backends/inhouse.h"
#include "alloc/block.h"

typedef struct hr_block_be {
    hr_inhouse_t ih; /* first: the shared adapter's part */
    hr_block_t  *a;
} hr_block_be_t;

_Static_assert(sizeof(hr_block_stats_t) <= HR_INHOUSE_STATS_MAX, "stats buffer");

static const hr_inhouse_class_t block_class;

static void *block_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"chunk", "inc", NULL};
    hr_block_options_t o = hr_block_default();
    uint64_t v[2] = {o.chunk_size, (uint64_t)o.chunk_array_inc};
    if (hr_inhouse_parse("block", cfg, keys, v, "chunk=BYTES,inc=N", err) != 0)
        return NULL;
    o.chunk_size = (size_t)v[0];
    o.chunk_array_inc = v[1] > 1u << 20 ? 0 : (int)v[1];
    hr_block_be_t *b = hr_inhouse_new(&block_class, sizeof *b, err);
    if (!b)
        return NULL;
    if (!(b->a = hr_block_create(&o))) {
        hr_error_set(err, "block: cannot create (chunk=%zu must be >= 640 and a multiple of 16,"
                     " inc=%d > 0)", o.chunk_size, o.chunk_array_inc);
        hr_inhouse_destroy(b);
        return NULL;
    }
    return b;
}

static void *block_native_alloc(void *self, size_t size, size_t align, const char **why) {
    hr_block_be_t *b = self;
    if (align > 16) {
        *why = "align";
        return NULL;
    }
    return hr_block_alloc(b->a, size ? size : 1);
}

static __attribute__((noinline)) void *block_alloc_rest(void *self, size_t size, size_t align) {
    return hr_inhouse_alloc(self, size, align, block_native_alloc);
}

/* The common case (a small request, its class list not empty) here, with
 * one tail call for the rest (the adapter's path): the function then saves
 * no registers, whose pushes and pops were a seventh of an op (callgrind). */
static inline __attribute__((always_inline)) void *block_alloc_as(void *self, size_t size,
                                                                  size_t align, const int counted) {
    hr_block_be_t *b = self;
    void *p;
    if (__builtin_expect(size - 1 < HR_BLOCK_MAX_SIZE && align <= 16, 1) &&
        (p = hr_block_pop_as(b->a, size, counted)) != NULL) {
        if (counted)
            hr_fallback_native(&b->ih.fb);
        return p;
    }
    return block_alloc_rest(self, size, align);
}

HR_TIMED_ALLOC_PAIR(block_alloc) /* and block_alloc_timed: the pop without its counts */

static int block_native_free(void *self, void *ptr, size_t size) {
    hr_block_be_t *b = self;
    hr_block_free(b->a, ptr, size ? size : 1);
    return 1;
}

static __attribute__((noinline)) void block_free_rest(void *self, void *ptr, size_t size) {
    hr_inhouse_free(self, ptr, size, block_native_free);
}

/* As block_alloc: a small block that cannot be a fallback one (block has
 * no oversize refusals: each of its fallback blocks, refused for its
 * alignment, may have any size, and only its address tells it apart). */
static inline __attribute__((always_inline)) void block_free_as(void *self, void *ptr, size_t size,
                                                                const int counted) {
    hr_block_be_t *b = self;
    if (__builtin_expect(hr_inhouse_not_fb(&b->ih, ptr) && size - 1 < HR_BLOCK_MAX_SIZE && ptr, 1)) {
        if (counted)
            hr_fallback_native(&b->ih.fb);
        hr_block_push_as(b->a, ptr, size, counted);
        return;
    }
    block_free_rest(self, ptr, size);
}

HR_TIMED_FREE_PAIR(block_free)

static uint64_t block_footprint(void *self) {
    hr_block_be_t *b = self;
    return hr_block_footprint(b->a);
}

static size_t block_usable_size(void *self, void *ptr, size_t size) {
    (void)self, (void)ptr;
    return hr_block_usable(size ? size : 1);
}

static void block_stats_of(void *self, void *st) {
    hr_block_be_t *b = self;
    hr_block_stats(b->a, st);
}

static void block_emit_classes(void *self, const void *stats, hr_emit_t *em) {
    (void)self;
    const hr_block_stats_t *st = stats;
    hr_emit_arr_begin(em, "classes");
    for (int c = 0; c < HR_BLOCK_NUM_CLASSES; c++) {
        hr_emit_obj_begin(em, NULL);
        hr_emit_u64(em, "size", hr_block_class_sizes[c]);
        hr_emit_u64(em, "live", st->class_live[c]);
        hr_emit_u64(em, "free", st->class_free[c]);
        hr_emit_obj_end(em);
    }
    hr_emit_arr_end(em);
}

static int64_t block_check(void *self) {
    hr_block_be_t *b = self;
    return hr_block_check(b->a);
}

static void block_destroy(void *self) {
    hr_block_be_t *b = self;
    hr_block_destroy(b->a);
}

static const hr_inhouse_field_t block_fields[] = {
    HR_IH_HEAD_ALL,
    HR_IH_STAT("chunks", hr_block_stats_t, chunk_count),
    HR_IH_STAT("chunk_space", hr_block_stats_t, chunk_space),
    HR_IH_STAT("large_live", hr_block_stats_t, large_live),
    HR_IH_STAT("large_bytes", hr_block_stats_t, large_bytes),
    HR_IH_STAT("internal_waste", hr_block_stats_t, internal_waste),
    {NULL, 0, 0},
};

static const hr_inhouse_class_t block_class = {
    .name = "block",
    .stats = block_stats_of,
    .fields = block_fields,
    .emit_post = block_emit_classes,
    .check = block_check,
    .footprint = block_footprint,
    .usable = block_usable_size,
    .destroy = block_destroy,
};

const hr_backend_t hr_backend_block = {
    .name = "block",
    .description = "Box2D b2BlockAllocator: 14 classes 16..640 B in 16 KiB chunks, malloc above",
    .caps = HR_CAP_NEEDS_SIZE_ON_FREE | HR_CAP_ALIGNED,
    .create = block_create,
    .alloc = block_alloc,
    .free = block_free,
    .alloc_timed = block_alloc_timed,
    .free_timed = block_free_timed,
    HR_INHOUSE_BACKEND_FNS,
};
