/* "marker": hr_marker (marker stack with aligned bump allocation) as a replay
 * backend.
 *
 * -a marker[:SIZE] or marker:size=SIZE,align=N   (default 1M, align 16)
 * Frame semantics: at each trace frame event the stack is released as far
 * down as the trace allows, then a marker is taken again. Blocks allocated
 * before the first frame event stay (level data). A block the trace still
 * holds is never released under it: a game's frame allocator would hand that
 * memory to the next frame while the object is still in use (a bug the replay
 * must not hide: --verify reports it as an overlap), so the release stops just
 * above the highest block still live, and that block's memory is held until
 * the trace frees it and a later frame releases past it. A free of a block in
 * the buffer does nothing by itself (a frame release reclaims it): counted as
 * a native op and as violation "free_noop". Counted and served by fallback:
 *   "overflow"  the request does not fit in what is left of the buffer;
 *   "align"     the alignment is not a power of two.
 * "outlived_frame" counts blocks still live when their frame ended: the
 * trace's objects that a pure frame allocator would have overwritten.
 */
#include <stdlib.h>

#include "alloc/chunk.h"
#include "backends/inhouse.h"
#include "alloc/marker.h"

/* A block allocated after the first frame event, in address order, with the
 * stack's state just after it (the release point that keeps it). */
typedef struct held {
    char            *p;
    hr_marker_mark_t after;
    int              live;
} held_t;

typedef struct hr_marker_be {
    hr_inhouse_t     ih;            /* first: the shared adapter's part */
    hr_marker_t     *m;
    hr_marker_mark_t frame_mark, level_mark;
    int              have_mark;
    char            *base;          /* buffer start: frame blocks are >= base + mark */
    int64_t          frame_live;    /* blocks of this frame not yet freed */
    held_t          *held;          /* frame blocks not yet released, ascending */
    size_t           n_held, cap_held;
    uint64_t         frames, outlived, free_noop, held_peak;
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
    /* a zero-byte block takes one byte: two live blocks (malloc(0),
     * calloc(0, n)) must not share an address, as the other allocators' do not */
    void *p = hr_marker_alloc(b->m, size ? size : 1, align);
    if (!p) {
        *why = "overflow";
        return NULL;
    }
    if (b->have_mark) {
        if (b->n_held == b->cap_held) {
            size_t cap = b->cap_held ? b->cap_held * 2 : 256;
            held_t *h = realloc(b->held, cap * sizeof *h);
            if (!h) { /* cannot track it: undo, and let the fallback serve it */
                *why = "overflow";
                hr_marker_release(b->m, b->n_held ? b->held[b->n_held - 1].after : b->frame_mark);
                return NULL;
            }
            b->held = h;
            b->cap_held = cap;
        }
        b->held[b->n_held++] = (held_t){p, hr_marker_get(b->m), 1};
        if (b->n_held > b->held_peak)
            b->held_peak = b->n_held;
        b->frame_live++;
    }
    return p;
}

/* The tracked block at p, or NULL (level data, or not a block of ours). */
static held_t *find_held(hr_marker_be_t *b, const void *p) {
    size_t lo = 0, hi = b->n_held;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((const char *)b->held[mid].p < (const char *)p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->n_held && b->held[lo].p == p ? &b->held[lo] : NULL;
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
    held_t *h = find_held(b, ptr);
    if (h && h->live) {
        h->live = 0;
        if ((char *)ptr >= b->base + b->frame_mark.head && b->frame_live > 0)
            b->frame_live--;
    }
    return 1;
}

/* Whether p lies in the marker's buffer: its own block (a fallback block
 * never does). */
static int marker_owns(const void *self, const void *p) {
    return hr_marker_owns(((const hr_marker_be_t *)self)->m, p);
}

static void marker_free(void *self, void *ptr, size_t size) {
    hr_inhouse_free_owned(self, ptr, size, marker_owns, marker_native_free);
}

/* Releases down to just above the highest block still live (to the level
 * data when none is), then takes the next frame's marker. */
static void marker_frame(void *self, uint64_t n) {
    (void)n;
    hr_marker_be_t *b = self;
    if (!b->have_mark) {
        b->level_mark = hr_marker_get(b->m);
    } else {
        while (b->n_held && !b->held[b->n_held - 1].live)
            b->n_held--;
        hr_marker_release(b->m, b->n_held ? b->held[b->n_held - 1].after : b->level_mark);
        b->outlived += (uint64_t)b->frame_live;
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
    (void)self, (void)ptr; /* the adapter answers for fallback blocks */
    return size;
}

static int64_t marker_check(void *self) {
    hr_marker_be_t *b = self;
    return hr_marker_check(b->m);
}

static void marker_destroy(void *self) {
    hr_marker_be_t *b = self;
    hr_marker_destroy(b->m);
    free(b->held);
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
    HR_IH_SELF("outlived_frame", hr_marker_be_t, outlived),
    HR_IH_SELF("held_peak", hr_marker_be_t, held_peak),
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
    .owns = marker_owns,
};

const hr_backend_t hr_backend_marker = {
    .name = "marker",
    .description = "marker stack: aligned bump, frame marks release down to the highest live block",
    .caps = HR_CAP_LIFO_ONLY | HR_CAP_ALIGNED | HR_CAP_FRAMES,
    .create = marker_create,
    .alloc = marker_alloc,
    .free = marker_free,
    .frame = marker_frame,
    HR_INHOUSE_BACKEND_FNS,
};
