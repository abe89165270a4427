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

#include "backends/inhouse.h"
#include "heapreplay/sizeclass.h"

typedef struct hr_sizeclass_be {
    hr_inhouse_t    ih; /* first: the shared adapter's part */
    hr_sizeclass_t *a;
} hr_sizeclass_be_t;

_Static_assert(sizeof(hr_sizeclass_stats_t) <= HR_INHOUSE_STATS_MAX, "stats buffer");

static const hr_inhouse_class_t sizeclass_class;

static void *sizeclass_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"max", NULL};
    hr_sizeclass_options_t o = hr_sizeclass_default();
    uint64_t v[1] = {o.max_class};
    if (hr_inhouse_parse("sizeclass", cfg, keys, v, "max=POW2", err) != 0)
        return NULL;
    o.max_class = (size_t)v[0];
    hr_sizeclass_be_t *b = hr_inhouse_new(&sizeclass_class, sizeof *b, err);
    if (!b)
        return NULL;
    if (!(b->a = hr_sizeclass_create(&o))) {
        hr_error_set(err, "sizeclass: bad max=%zu (expected a power of two >= %zu)", o.max_class,
                     sizeof(void *));
        hr_inhouse_destroy(b);
        return NULL;
    }
    return b;
}

static void *sizeclass_native_alloc(void *self, size_t size, size_t align, const char **why) {
    hr_sizeclass_be_t *b = self;
    if (align > 16) {
        *why = "align";
        return NULL;
    }
    return hr_sizeclass_alloc(b->a, size);
}

static void *sizeclass_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap;
    return hr_inhouse_alloc(self, size, align, sizeclass_native_alloc);
}

static int sizeclass_native_free(void *self, void *ptr, size_t size) {
    hr_sizeclass_be_t *b = self;
    hr_sizeclass_free(b->a, ptr, size);
    return 1;
}

static void sizeclass_free(void *self, void *ptr, size_t size) {
    hr_inhouse_free(self, ptr, size, sizeclass_native_free);
}

static uint64_t sizeclass_footprint(void *self) {
    hr_sizeclass_be_t *b = self;
    return hr_sizeclass_footprint(b->a);
}

static size_t sizeclass_usable_size(void *self, void *ptr, size_t size) {
    (void)ptr;
    hr_sizeclass_be_t *b = self;
    size_t r = hr_sizeclass_round(b->a, size);
    return r ? r : size;
}

static void sizeclass_stats_of(void *self, void *st) {
    hr_sizeclass_be_t *b = self;
    hr_sizeclass_stats(b->a, st);
}

static int64_t sizeclass_check(void *self) {
    hr_sizeclass_be_t *b = self;
    return hr_sizeclass_check(b->a);
}

static void sizeclass_destroy(void *self) {
    hr_sizeclass_be_t *b = self;
    hr_sizeclass_destroy(b->a);
}

static const hr_inhouse_field_t sizeclass_fields[] = {
    HR_IH_HEAD_ALL,
    HR_IH_STAT("internal_waste", hr_sizeclass_stats_t, internal_waste),
    HR_IH_STAT("cached_bytes", hr_sizeclass_stats_t, cached_bytes),
    HR_IH_STAT("large_live", hr_sizeclass_stats_t, large_live),
    HR_IH_STAT("large_bytes", hr_sizeclass_stats_t, large_bytes),
    HR_IH_STAT("list_hits", hr_sizeclass_stats_t, hits),
    HR_IH_STAT("list_misses", hr_sizeclass_stats_t, misses),
    {NULL, 0, 0},
};

static const hr_inhouse_class_t sizeclass_class = {
    .name = "sizeclass",
    .stats = sizeclass_stats_of,
    .fields = sizeclass_fields,
    .check = sizeclass_check,
    .footprint = sizeclass_footprint,
    .usable = sizeclass_usable_size,
    .destroy = sizeclass_destroy,
};

const hr_backend_t hr_backend_sizeclass = {
    .name = "sizeclass",
    .description = "power-of-two free lists 8 B..32 KiB over malloc (Orx article's proposal)",
    .caps = HR_CAP_NEEDS_SIZE_ON_FREE | HR_CAP_ALIGNED,
    .create = sizeclass_create,
    .alloc = sizeclass_alloc,
    .free = sizeclass_free,
    HR_INHOUSE_BACKEND_FNS,
};
