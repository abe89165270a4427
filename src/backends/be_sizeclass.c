/* "sizeclass": hr_sizeclass (power-of-two free lists over malloc, the Orx
 * article's proposal) as a replay backend.
 *
 * -a sizeclass[:max=32K]
 * Native: every request (classes 8..max rounded up, larger ones straight to
 * malloc, both the allocator's own behaviour). Counted and served by
 * fallback: "align" (alignment above 16, what malloc gives the class blocks).
 * internal_waste in the stats is the rounding slop of live blocks.
 */
#include <stdlib.h>

#include "alloc/chunk.h"
#include "backends/backend.h"
#include "backends/seed_util.h"
#include "heapreplay/sizeclass.h"

typedef struct hr_sizeclass_be {
    hr_sizeclass_t *a;
    hr_seed_fb_t    f;
} hr_sizeclass_be_t;

static void *sizeclass_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"max", NULL};
    hr_sizeclass_options_t o = hr_sizeclass_default();
    uint64_t v[1] = {o.max_class};
    const char *bad = NULL;
    if (cfg && cfg->arg && hr_seed_parse_kv(cfg->arg, keys, v, &bad) != 0) {
        hr_error_set(err, "sizeclass: bad option at '%s' (expected max=POW2)", bad);
        return NULL;
    }
    o.max_class = (size_t)v[0];
    hr_sizeclass_be_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    if (!(b->a = hr_sizeclass_create(&o))) {
        hr_error_set(err, "sizeclass: bad max=%zu (expected a power of two >= %zu)", o.max_class,
                     sizeof(void *));
        free(b);
        return NULL;
    }
    return b;
}

static void *sizeclass_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap;
    hr_sizeclass_be_t *b = self;
    if (align > 16)
        return hr_seed_fb_alloc(&b->f, size, align, "align");
    void *p = hr_sizeclass_alloc(b->a, size);
    if (!p)
        return hr_seed_fb_alloc(&b->f, size, align, "out_of_memory");
    hr_fallback_native(&b->f.fb);
    return p;
}

static void sizeclass_free(void *self, void *ptr, size_t size) {
    hr_sizeclass_be_t *b = self;
    if (!ptr || hr_seed_fb_free(&b->f, ptr, size))
        return;
    hr_sizeclass_free(b->a, ptr, size);
    hr_fallback_native(&b->f.fb);
}

static uint64_t sizeclass_footprint(void *self) {
    hr_sizeclass_be_t *b = self;
    return hr_sizeclass_footprint(b->a) + b->f.fb.bytes_held;
}

static size_t sizeclass_usable_size(void *self, void *ptr, size_t size) {
    hr_sizeclass_be_t *b = self;
    if (hr_seed_fb_owns(&b->f, ptr))
        return hr_chunk_usable(size);
    size_t r = hr_sizeclass_round(b->a, size);
    return r ? r : size;
}

static void sizeclass_stats(void *self, hr_emit_t *em) {
    hr_sizeclass_be_t *b = self;
    hr_sizeclass_stats_t st;
    hr_sizeclass_stats(b->a, &st);
    hr_fallback_emit(&b->f.fb, em);
    hr_emit_u64(em, "live_bytes", st.live_bytes);
    hr_emit_u64(em, "footprint", st.footprint + b->f.fb.bytes_held);
    hr_emit_u64(em, "high_water", st.high_water);
    hr_emit_u64(em, "peak_footprint", st.peak_footprint);
    hr_emit_u64(em, "objects", st.objects);
    hr_emit_u64(em, "largest_free", st.largest_free);
    hr_emit_u64(em, "internal_waste", st.internal_waste);
    hr_emit_u64(em, "cached_bytes", st.cached_bytes);
    hr_emit_u64(em, "large_live", st.large_live);
    hr_emit_u64(em, "large_bytes", st.large_bytes);
    hr_emit_u64(em, "list_hits", st.hits);
    hr_emit_u64(em, "list_misses", st.misses);
    hr_emit_i64(em, "check", hr_sizeclass_check(b->a));
}

static void sizeclass_destroy(void *self) {
    hr_sizeclass_be_t *b = self;
    if (!b)
        return;
    hr_sizeclass_destroy(b->a);
    hr_seed_fb_release(&b->f);
    free(b);
}

const hr_backend_t hr_backend_sizeclass = {
    .name = "sizeclass",
    .description = "power-of-two free lists 8 B..32 KiB over malloc (Orx article's proposal)",
    .caps = HR_CAP_NEEDS_SIZE_ON_FREE | HR_CAP_ALIGNED,
    .create = sizeclass_create,
    .alloc = sizeclass_alloc,
    .free = sizeclass_free,
    .footprint = sizeclass_footprint,
    .usable_size = sizeclass_usable_size,
    .stats = sizeclass_stats,
    .destroy = sizeclass_destroy,
};
