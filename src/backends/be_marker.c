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
#include "backends/backend.h"
#include "backends/seed_util.h"
#include "heapreplay/marker.h"

typedef struct hr_marker_be {
    hr_marker_t     *m;
    hr_seed_fb_t     f;
    hr_marker_mark_t frame_mark;
    int              have_mark;
    char            *base;          /* buffer start: frame blocks are >= base + mark */
    int64_t          frame_live;    /* blocks of this frame not yet freed */
    uint64_t         frames, released_live, free_noop;
} hr_marker_be_t;

static void *marker_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"size", "align", NULL};
    hr_marker_options_t o = hr_marker_default();
    uint64_t v[2] = {o.size, o.default_align};
    const char *bad = NULL;
    if (cfg && cfg->arg && hr_seed_parse_kv(cfg->arg, keys, v, &bad) != 0) {
        hr_error_set(err, "marker: bad option at '%s' (expected SIZE or size=BYTES,align=POW2)",
                     bad);
        return NULL;
    }
    o.size = (size_t)v[0];
    o.default_align = (size_t)v[1];
    hr_marker_be_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    if (!(b->m = hr_marker_create(&o))) {
        hr_error_set(err, "marker: cannot create a %zu-byte stack (align %zu must be a power of two)",
                     o.size, o.default_align);
        free(b);
        return NULL;
    }
    b->base = hr_marker_base(b->m);
    return b;
}

static void *marker_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap;
    hr_marker_be_t *b = self;
    if (align & (align - 1))
        return hr_seed_fb_alloc(&b->f, size, align, "align");
    void *p = hr_marker_alloc(b->m, size, align);
    if (!p)
        return hr_seed_fb_alloc(&b->f, size, align, "overflow");
    hr_fallback_native(&b->f.fb);
    if (b->have_mark)
        b->frame_live++;
    return p;
}

static void marker_free(void *self, void *ptr, size_t size) {
    (void)size;
    hr_marker_be_t *b = self;
    if (!ptr || hr_seed_fb_free(&b->f, ptr, size))
        return;
    hr_fallback_native(&b->f.fb);
    hr_fallback_violation(&b->f.fb, "free_noop");
    b->free_noop++;
    if (b->have_mark && (char *)ptr >= b->base + b->frame_mark.head && b->frame_live > 0)
        b->frame_live--;
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

static uint64_t marker_footprint(void *self) {
    hr_marker_be_t *b = self;
    hr_marker_stats_t st;
    hr_marker_stats(b->m, &st);
    return st.footprint + b->f.fb.bytes_held;
}

static size_t marker_usable_size(void *self, void *ptr, size_t size) {
    hr_marker_be_t *b = self;
    return hr_marker_owns(b->m, ptr) ? size : hr_chunk_usable(size);
}

static void marker_stats(void *self, hr_emit_t *em) {
    hr_marker_be_t *b = self;
    hr_marker_stats_t st;
    hr_marker_stats(b->m, &st);
    hr_fallback_emit(&b->f.fb, em);
    hr_emit_u64(em, "live_bytes", st.live_bytes);
    hr_emit_u64(em, "footprint", st.footprint + b->f.fb.bytes_held);
    hr_emit_u64(em, "high_water", st.high_water);
    hr_emit_u64(em, "objects", st.objects);
    hr_emit_u64(em, "largest_free", st.largest_free);
    hr_emit_u64(em, "padding", st.padding);
    hr_emit_u64(em, "frames", b->frames);
    hr_emit_u64(em, "releases", st.releases);
    hr_emit_u64(em, "released_live", b->released_live);
    hr_emit_u64(em, "free_noop", b->free_noop);
    hr_emit_i64(em, "check", hr_marker_check(b->m));
}

static void marker_destroy(void *self) {
    hr_marker_be_t *b = self;
    if (!b)
        return;
    hr_marker_destroy(b->m);
    hr_seed_fb_release(&b->f);
    free(b);
}

const hr_backend_t hr_backend_marker = {
    .name = "marker",
    .description = "marker stack: aligned bump, frame marks release to the previous frame's marker",
    .caps = HR_CAP_LIFO_ONLY | HR_CAP_ALIGNED | HR_CAP_FRAMES,
    .create = marker_create,
    .alloc = marker_alloc,
    .free = marker_free,
    .frame = marker_frame,
    .footprint = marker_footprint,
    .usable_size = marker_usable_size,
    .stats = marker_stats,
    .destroy = marker_destroy,
};
