/* "sizeclass": hr_sizeclass (the Orx article's proposal, SGI STL style) as a
 * replay backend.
 *
 * -a sizeclass[:max=128,refill=20,min=16]
 *   max     the largest class, a power of two (default 128 B: free lists only
 *           for small sizes, as the article and SGI STL have them); classes
 *           are the powers of two min, 2 min, ... max;
 *   refill  blocks carved from one malloc'd chunk when a list is empty
 *           (default 20, SGI's refill count);
 *   min     the smallest class (default 16: blocks 16-aligned as this
 *           interface promises for align 0; min=8 adds the 8-byte class,
 *           whose blocks are only 8-aligned).
 * (The CLI splits -a lists at commas, so one option per spec there.)
 * The wider range this backend had before is -a sizeclass:max=32K (with
 * refill=1 also its one malloc per miss; every chunk is now charged what
 * glibc holds for it, src/alloc/sizeclass.h).
 * Native: requests up to max (rounded up to their class). Counted and served
 * by the fallback (system malloc, charged by glibc's chunk arithmetic):
 *   "oversize"  a request above max (the article's "larger sizes go to
 *               malloc": counted so the native share says how much of the
 *               trace the free lists cover);
 *   "align"     alignment above 16, or above the class (with min=8, a request
 *               of <= 8 bytes asking for 16: 8-byte blocks are 8-aligned).
 * internal_waste in the stats is the rounding slop of live blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc/chunk.h"
#include "backends/inhouse.h"
#include "alloc/sizeclass.h"

#define CLS8_MAX 4096 /* the largest request the hot paths' table serves */

typedef struct hr_sizeclass_be {
    hr_inhouse_t    ih; /* first: the shared adapter's part */
    hr_sizeclass_t *a;
    /* The hot paths' class lookup: cls8[(size + 7) / 8] is the class of a
     * request of `size` bytes up to fast_max (the smaller of max_class and
     * CLS8_MAX), one load instead of a count-leading-zeros and its
     * adjustments. Classes are powers of two of at least 8 bytes, so every
     * 8-byte step lies in one class. */
    size_t          fast_max;
    unsigned char   cls8[CLS8_MAX / 8 + 1];
} hr_sizeclass_be_t;

_Static_assert(sizeof(hr_sizeclass_stats_t) <= HR_INHOUSE_STATS_MAX, "stats buffer");

static const hr_inhouse_class_t sizeclass_class;

static void *sizeclass_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"max", "refill", "min", NULL};
    hr_sizeclass_options_t o = hr_sizeclass_default();
    uint64_t v[3] = {o.max_class, o.refill, o.min_class};
    if (hr_inhouse_parse("sizeclass", cfg, keys, v, "max=POW2,refill=N,min=POW2", err) != 0)
        return NULL;
    o.max_class = v[0] > ((uint64_t)1 << 30) ? 0 : (size_t)v[0];
    o.refill = v[1] > 65535 ? 0 : (unsigned)v[1];
    o.min_class = v[2] > ((uint64_t)1 << 30) || v[2] == 0 ? 1 : (size_t)v[2];
    hr_sizeclass_be_t *b = hr_inhouse_new(&sizeclass_class, sizeof *b, err);
    if (!b)
        return NULL;
    if (!(b->a = hr_sizeclass_create(&o))) {
        hr_error_set(err, "sizeclass: bad options max=%llu refill=%llu min=%llu (expected powers"
                     " of two %zu <= min <= max <= 1G, refill 1..65535)",
                     (unsigned long long)v[0], (unsigned long long)v[1],
                     (unsigned long long)v[2], sizeof(void *));
        hr_inhouse_destroy(b);
        return NULL;
    }
    b->fast_max = o.max_class < CLS8_MAX ? o.max_class : CLS8_MAX;
    for (size_t j = 0; j * 8 <= b->fast_max; j++) /* j: sizes 8j - 7 .. 8j (0: 0) */
        b->cls8[j] = (unsigned char)hr_sizeclass_class_of(b->a, j * 8);
    return b;
}

/* Whether a request of class c (>= 0) may take its class's alignment:
 * every class is at least min_class >= 8 bytes, a power of two. */
static inline int align_ok(const hr_sizeclass_t *sc, int c, size_t align) {
    return align <= 8 || (align <= 16 && align <= ((size_t)1 << (c + (int)sc->min_shift)));
}

static void *sizeclass_native_alloc(void *self, size_t size, size_t align, const char **why) {
    hr_sizeclass_be_t *b = self;
    int c = hr_sizeclass_class_of(b->a, size);
    if (c < 0) {
        *why = hr_inhouse_oversize;
        return NULL;
    }
    if (!align_ok(b->a, c, align)) {
        *why = "align";
        return NULL;
    }
    return hr_sizeclass_alloc_in(b->a, c, size);
}

static __attribute__((noinline)) void *sizeclass_alloc_rest(void *self, size_t size,
                                                            size_t align) {
    return hr_inhouse_alloc(self, size, align, sizeclass_native_alloc);
}

/* The common case (the class found once, inline; its list not empty) here,
 * with one tail call for the rest (the adapter's path): the function then
 * saves no registers. A call to hr_sizeclass_round and the class found
 * again inside the alloc, and the pushes and pops, were a fifth of an op
 * (callgrind). */
static inline __attribute__((always_inline)) void *
sizeclass_alloc_as(void *self, size_t size, size_t align, const int counted) {
    hr_sizeclass_be_t *b = self;
    void *p;
    if (__builtin_expect(size <= b->fast_max && align <= 8, 1) &&
        (p = hr_sizeclass_pop_as(b->a, b->cls8[(size + 7) >> 3], size, counted)) != NULL) {
        if (counted)
            hr_fallback_native(&b->ih.fb);
        return p;
    }
    return sizeclass_alloc_rest(self, size, align);
}

HR_TIMED_ALLOC_PAIR(sizeclass_alloc) /* and sizeclass_alloc_timed: the pop without its counts */

static int sizeclass_native_free(void *self, void *ptr, size_t size) {
    hr_sizeclass_be_t *b = self;
    hr_sizeclass_free(b->a, ptr, size);
    return 1;
}

/* The rest of sizeclass_free: an oversize block is a fallback one, not in
 * the adapter's set; a small one goes the adapter's way. */
static __attribute__((noinline)) void sizeclass_free_rest(void *self, void *ptr, size_t size) {
    hr_sizeclass_be_t *b = self;
    if (hr_sizeclass_class_of(b->a, size) < 0)
        hr_inhouse_fb_free_oversize(&b->ih, ptr, size);
    else
        hr_inhouse_free(self, ptr, size, sizeclass_native_free);
}

/* As sizeclass_alloc: a small block that cannot be a fallback block of a
 * small size (the adapter's set holds only those: an oversize block is never
 * freed with a small size; hr_inhouse_not_fb). Before, every free of strings
 * searched the set while its oversize blocks, 58 % of its ops, were live. */
static inline __attribute__((always_inline)) void sizeclass_free_as(void *self, void *ptr,
                                                                    size_t size, const int counted) {
    hr_sizeclass_be_t *b = self;
    if (__builtin_expect(hr_inhouse_not_fb(&b->ih, ptr) && size <= b->fast_max && ptr, 1)) {
        if (counted)
            hr_fallback_native(&b->ih.fb);
        hr_sizeclass_push_as(b->a, b->cls8[(size + 7) >> 3], ptr, size, counted);
        return;
    }
    sizeclass_free_rest(self, ptr, size);
}

HR_TIMED_FREE_PAIR(sizeclass_free)

/* SGI STL's reallocate (hr_sizeclass_realloc) for the blocks the lists
 * serve: old and new sizes of one class keep the block where it is (a
 * native op); any other realloc is the engine's way, a new block, the copy
 * and the old one freed. Oversize blocks are the fallback's and move the
 * same way. (SGI calls realloc for two large sizes, but glibc's realloc
 * takes no block from its thread cache: strings ran at 1.23x mimalloc with
 * it, 1.17x without, medians of 5 interleaved rounds.) A fallback block of
 * a small size (refused for its alignment) always moves: it is malloc's,
 * not a class block. Before, strings (57 % reallocs) paid an alloc, a copy
 * and a free for each, most of them inside their class. */
static inline int class_of_be(const hr_sizeclass_be_t *b, size_t size) {
    return size <= b->fast_max ? b->cls8[(size + 7) >> 3] : hr_sizeclass_class_of(b->a, size);
}

static inline __attribute__((always_inline)) void *
sizeclass_realloc_as(void *self, void *ptr, size_t osz, size_t nsz, const int counted) {
    hr_sizeclass_be_t *b = self;
    int c = class_of_be(b, osz);
    if (c >= 0 && c == class_of_be(b, nsz) && !hr_inhouse_is_fb(&b->ih, ptr)) {
        if (counted) {
            hr_fallback_native(&b->ih.fb);
            hr_sizeclass_resize(b->a, osz, nsz);
        }
        return ptr;
    }
    void *p = sizeclass_alloc_as(self, nsz, 0, counted);
    if (p) {
        memcpy(p, ptr, osz < nsz ? osz : nsz);
        sizeclass_free_as(self, ptr, osz, counted);
    }
    return p;
}

static void *sizeclass_realloc(void *self, void *ptr, size_t osz, size_t nsz, int32_t heap) {
    (void)heap;
    return sizeclass_realloc_as(self, ptr, osz, nsz, 1);
}

/* The timed laps': a resize in place changes nothing but the counts. */
static void *sizeclass_realloc_timed(void *self, void *ptr, size_t osz, size_t nsz, int32_t heap) {
    (void)heap;
    return sizeclass_realloc_as(self, ptr, osz, nsz, 0);
}

static uint64_t sizeclass_footprint(void *self) {
    hr_sizeclass_be_t *b = self;
    return hr_sizeclass_footprint(b->a);
}

static size_t sizeclass_usable_size(void *self, void *ptr, size_t size) {
    (void)ptr;
    hr_sizeclass_be_t *b = self;
    size_t r = hr_sizeclass_round(b->a, size);
    return r ? r : hr_chunk_usable(size); /* oversize: a fallback block */
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
    HR_IH_STAT("chunks", hr_sizeclass_stats_t, chunks),
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
    .description = "power-of-two free lists 16..128 B, 20 blocks per malloc'd chunk, larger to"
                   " malloc (Orx article's proposal, SGI STL style; max=32K widens)",
    .caps = HR_CAP_NEEDS_SIZE_ON_FREE | HR_CAP_ALIGNED | HR_CAP_REALLOC,
    .create = sizeclass_create,
    .alloc = sizeclass_alloc,
    .free = sizeclass_free,
    .alloc_timed = sizeclass_alloc_timed,
    .free_timed = sizeclass_free_timed,
    .realloc = sizeclass_realloc,
    .realloc_timed = sizeclass_realloc_timed,
    HR_INHOUSE_BACKEND_FNS,
};
