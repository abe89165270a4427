/* "marker": hr_marker (marker stack with aligned bump allocation) as a replay
 * backend.
 *
 * -a marker[:SIZE] or marker:size=SIZE,align=N   (default 1M, align 16)
 * Frame semantics: at each trace frame event the stack is released to the
 * marker taken at the previous frame event, then a marker is taken again.
 * Blocks allocated before the first frame event therefore stay (level data);
 * every later block lives until the end of its frame. A free of a block in
 * the buffer does nothing (the frame release reclaims it): counted as a
 * native op and as violation "free_noop". Counted and served by fallback:
 *   "overflow"  the request does not fit in what is left of the buffer;
 *   "align"     the alignment is not a power of two.
 * "released_live" counts blocks still live (not freed by the trace) when
 * their frame was released: the trace's objects that outlive a frame.
 */
#include <stdlib.h>

#include "alloc/chunk.h"
#include "backends/inhouse.h"
#include "heapreplay/marker.h"

typedef struct hr_marker_be {
    hr_inhouse_t     ih;            /* first: the shared adapter's part */
    hr_marker_t     *m;
    hr_marker_mark_t frame_mark;
    int              have_mark;
    char            *base;          /* buffer start: frame blocks are >= base + mark */
    int64_t          frame_live;    /* blocks of this frame not yet freed */
    uint64_t         frames, released_live, free_noop;
} hr_marker_be_t;

_Static_assert(sizeof(hr_marker_stats_t) <= HR_INHOUSE_STATS_MAX, "stats buffer");

static const hr_inhouse_class_t marker_class;

static void *marker_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"size", "align", NULL};
    hr_marker_options_t o = hr_marker_default();
    uint64_t v[2] = {o.size, o.default_align};
    if (hr_inhouse_parse("marker", cfg, keys, v, "SIZE or size=BYTES,align=POW2", err) != 0)
        return NULL;
    o.size = (size_t)v[0];
    o.default_align = (size_t)v[1];
    hr_marker_be_t *b = hr_inhouse_new(&marker_class, sizeof *b, err);
    if (!b)
        return NULL;
    if (!(b->m = hr_marker_create(&o))) {
        hr_error_set(err, "marker: cannot create a %zu-byte stack (align %zu must be a power of two)",
                     o.size, o.default_align);
        hr_inhouse_destroy(b);
        return NULL;
    }
    b->base = hr_marker_base(b->m);
    return b;
}

static void *marker_native_alloc(void *self, size_t size, size_t align, const char **why) {
    hr_marker_be_t *b = self;
    if (align & (align - 1)) {
        *why = "align";
        return NULL;
    }
    void *p = hr_marker_alloc(b->m, size, align);
    if (!p) {
        *why = "overflow";
        return NULL;
    }
    if (b->have_mark)
        b->frame_live++;
    return p;
}

static void *marker_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap;
    return hr_inhouse_alloc(self, size, align, marker_native_alloc);
}

/* A block in the buffer: nothing to do (the frame release reclaims it), a
 * native op that is also violation "free_noop". */
static int marker_native_free(void *self, void *ptr, size_t size) {
    (void)size;
    hr_marker_be_t *b = self;
    hr_fallback_violation(&b->ih.fb, "free_noop");
    b->free_noop++;
    if (b->have_mark && (char *)ptr >= b->base + b->frame_mark.head && b->frame_live > 0)
        b->frame_live--;
    return 1;
}

static void marker_free(void *self, void *ptr, size_t size) {
    hr_inhouse_free(self, ptr, size, marker_native_free);
}

static void marker_frame(void *self, uint64_t n) {
    (void)n;
    hr_marker_be_t *b = self;
    if (b->have_mark) {
        hr_marker_release(b->m, b->frame_mark);
        b->released_live += (uint64_t)b->frame_live;
        b->frame_live = 0;
    }
    b->frame_mark = hr_marker_get(b->m);
    b->have_mark = 1;
    b->frames++;
}

static void marker_stats_of(void *self, void *st) {
    hr_marker_be_t *b = self;
    hr_marker_stats(b->m, st);
}

static uint64_t marker_footprint(void *self) {
    hr_marker_stats_t st;
    marker_stats_of(self, &st);
    return st.head.footprint;
}

static size_t marker_usable_size(void *self, void *ptr, size_t size) {
    hr_marker_be_t *b = self;
    return hr_marker_owns(b->m, ptr) ? size : hr_chunk_usable(size);
}

static int64_t marker_check(void *self) {
    hr_marker_be_t *b = self;
    return hr_marker_check(b->m);
}

static void marker_destroy(void *self) {
    hr_marker_be_t *b = self;
    hr_marker_destroy(b->m);
}

static const hr_inhouse_field_t marker_fields[] = {
    HR_IH_HEAD("live_bytes", live_bytes),
    HR_IH_HEAD("footprint", footprint),
    HR_IH_HEAD("high_water", high_water),
    HR_IH_HEAD("objects", objects),
    HR_IH_HEAD("largest_free", largest_free),
    HR_IH_STAT("padding", hr_marker_stats_t, padding),
    HR_IH_SELF("frames", hr_marker_be_t, frames),
    HR_IH_STAT("releases", hr_marker_stats_t, releases),
    HR_IH_SELF("released_live", hr_marker_be_t, released_live),
    HR_IH_SELF("free_noop", hr_marker_be_t, free_noop),
    {NULL, 0, 0},
};

static const hr_inhouse_class_t marker_class = {
    .name = "marker",
    .stats = marker_stats_of,
    .fields = marker_fields,
    .check = marker_check,
    .footprint = marker_footprint,
    .usable = marker_usable_size,
    .destroy = marker_destroy,
};

const hr_backend_t hr_backend_marker = {
    .name = "marker",
    .description = "marker stack: aligned bump, frame marks release to the previous frame's marker",
    .caps = HR_CAP_LIFO_ONLY | HR_CAP_ALIGNED | HR_CAP_FRAMES,
    .create = marker_create,
    .alloc = marker_alloc,
    .free = marker_free,
    .frame = marker_frame,
    HR_INHOUSE_BACKEND_FNS,
};
