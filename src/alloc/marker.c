/* hr_marker: aligned bump allocation with markers and destructor callbacks
 * (see src/alloc/marker.h). */
#include "alloc/marker.h"

#include <stdlib.h>
#include <string.h>

typedef struct hr_marker_dtor {
    void             *obj;
    hr_marker_dtor_fn fn;
    void             *ctx;
} hr_marker_dtor_t;

struct hr_marker {
    hr_marker_options_t opt;
    char             *base;
    hr_marker_mark_t  cur;       /* head, ndtors, objects, live */
    size_t            padding;   /* alignment bytes below the head */
    hr_marker_dtor_t *dtors;
    size_t            dtor_cap;
    size_t            high_water;
    uint64_t          peak_footprint, releases, dtors_run;
};

static int is_pow2(size_t x) { return x && (x & (x - 1)) == 0; }

uintptr_t hr_align_up_mask(uintptr_t x, size_t align) {
    uintptr_t mask = (uintptr_t)align - 1;
    return (x + mask) & ~mask;
}

uintptr_t hr_align_up_mod(uintptr_t x, size_t align) {
    uintptr_t y = x + (uintptr_t)align - 1;
    return y - y % align;
}

hr_marker_options_t hr_marker_default(void) {
    hr_marker_options_t o = {(size_t)1 << 20, 16};
    return o;
}

static uint64_t footprint_of(const hr_marker_t *m) {
    return (uint64_t)m->opt.size + m->dtor_cap * sizeof(hr_marker_dtor_t);
}

hr_marker_t *hr_marker_create(const hr_marker_options_t *opt) {
    hr_marker_options_t o = opt ? *opt : hr_marker_default();
    if (!is_pow2(o.default_align))
        return NULL;
    hr_marker_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->opt = o;
    /* The buffer is 4096-aligned so offsets and addresses align alike (up to
     * 4096): the replay's frame sequence then behaves the same run to run. */
    void *b = NULL;
    if (posix_memalign(&b, 4096, o.size ? o.size : 1) != 0) {
        free(m);
        return NULL;
    }
    m->base = b;
    m->peak_footprint = footprint_of(m);
    return m;
}

void hr_marker_destroy(hr_marker_t *m) {
    if (!m)
        return;
    hr_marker_release_all(m);
    free(m->dtors);
    free(m->base);
    free(m);
}

static int push_dtor(hr_marker_t *m, void *obj, hr_marker_dtor_fn fn, void *ctx) {
    if (m->cur.ndtors == m->dtor_cap) {
        size_t cap = m->dtor_cap ? m->dtor_cap * 2 : 16;
        hr_marker_dtor_t *d = realloc(m->dtors, cap * sizeof *d);
        if (!d)
            return -1;
        m->dtors = d;
        m->dtor_cap = cap;
        uint64_t fp = footprint_of(m);
        if (fp > m->peak_footprint)
            m->peak_footprint = fp;
    }
    m->dtors[m->cur.ndtors++] = (hr_marker_dtor_t){obj, fn, ctx};
    return 0;
}

void *hr_marker_alloc_dtor(hr_marker_t *m, size_t size, size_t align, hr_marker_dtor_fn fn,
                           void *ctx) {
    if (align == 0)
        align = m->opt.default_align;
    if (!is_pow2(align))
        return NULL;
    uintptr_t head = (uintptr_t)m->base + m->cur.head;
    uintptr_t p = hr_align_up_mask(head, align);
    size_t off = (size_t)(p - (uintptr_t)m->base);
    if (p < head || off > m->opt.size || m->opt.size - off < size)
        return NULL;
    if (fn && push_dtor(m, (void *)p, fn, ctx) != 0)
        return NULL;
    m->padding += (size_t)(p - head);
    m->cur.head = off + size;
    m->cur.objects++;
    m->cur.live += size;
    if (m->cur.head > m->high_water)
        m->high_water = m->cur.head;
    return (void *)p;
}

void *hr_marker_alloc(hr_marker_t *m, size_t size, size_t align) {
    return hr_marker_alloc_dtor(m, size, align, NULL, NULL);
}

hr_marker_mark_t hr_marker_get(const hr_marker_t *m) { return m->cur; }

static void run_dtors_down_to(hr_marker_t *m, size_t n) {
    while (m->cur.ndtors > n) {
        hr_marker_dtor_t *d = &m->dtors[--m->cur.ndtors];
        d->fn(d->obj, d->ctx);
        m->dtors_run++;
    }
}

int hr_marker_release(hr_marker_t *m, hr_marker_mark_t mk) {
    if (mk.head > m->cur.head || mk.ndtors > m->cur.ndtors || mk.objects > m->cur.objects ||
        mk.live > m->cur.live)
        return HR_MARKER_EINVAL;
    run_dtors_down_to(m, mk.ndtors);
    /* Padding below the marker = head - live bytes there (blocks are packed
     * head to tail, so everything that is not a block is padding). */
    m->padding = mk.head - mk.live;
    m->cur = mk;
    m->releases++;
    return HR_MARKER_OK;
}

void hr_marker_release_all(hr_marker_t *m) {
    hr_marker_mark_t zero = {0, 0, 0, 0};
    hr_marker_release(m, zero);
}

void *hr_marker_base(const hr_marker_t *m) { return m->base; }

int hr_marker_owns(const hr_marker_t *m, const void *p) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)m->base;
    return a >= b && a < b + m->opt.size;
}

void hr_marker_stats(const hr_marker_t *m, hr_marker_stats_t *st) {
    memset(st, 0, sizeof *st);
    st->head.live_bytes = m->cur.live;
    st->head.footprint = footprint_of(m);
    st->head.high_water = m->high_water;
    st->head.peak_footprint = m->peak_footprint;
    st->head.objects = m->cur.objects;
    st->head.largest_free = m->opt.size - m->cur.head;
    st->used = m->cur.head;
    st->padding = m->padding;
    st->releases = m->releases;
    st->dtors_run = m->dtors_run;
}

int hr_marker_check(const hr_marker_t *m) {
    if (m->cur.head > m->opt.size || m->cur.live + m->padding != m->cur.head ||
        m->cur.ndtors > m->cur.objects || m->cur.ndtors > m->dtor_cap ||
        m->high_water < m->cur.head || (m->cur.objects == 0 && m->cur.head != 0))
        return HR_MARKER_ECORRUPT;
    uintptr_t prev = (uintptr_t)m->base;
    for (size_t i = 0; i < m->cur.ndtors; i++) {
        uintptr_t o = (uintptr_t)m->dtors[i].obj;
        if (o < prev || o > (uintptr_t)m->base + m->cur.head || !m->dtors[i].fn)
            return HR_MARKER_ECORRUPT;
        prev = o;
    }
    return HR_MARKER_OK;
}
