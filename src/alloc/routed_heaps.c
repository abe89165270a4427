/* The heap kinds of the routed manager: static (bump), tracking (malloc +
 * pointer hash) and dlheap (heapreplay/dlheap.h), behind one dispatch. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "alloc/chunk.h"
#include "alloc/routed_int.h"

/* ---- tracking: the pointer hash ---------------------------------------- */

static inline size_t track_hash(const void *p, size_t cap) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 29;
    return (size_t)x & (cap - 1);
}

static size_t track_find(const hr_tracking_heap_t *t, const void *p) {
    if (!t->cap)
        return SIZE_MAX;
    for (size_t i = track_hash(p, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (t->slots[i].p == p)
            return i;
        if (!t->slots[i].p)
            return SIZE_MAX;
    }
}

static void track_put(hr_track_slot_t *slots, size_t cap, const hr_track_slot_t *s) {
    size_t i = track_hash(s->p, cap);
    while (slots[i].p)
        i = (i + 1) & (cap - 1);
    slots[i] = *s;
}

static int track_grow(hr_tracking_heap_t *t) {
    size_t ncap = t->cap ? t->cap * 2 : 1024;
    hr_track_slot_t *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].p)
            track_put(ns, ncap, &t->slots[i]);
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
    return 0;
}

/* Removes slot i and shifts the following run back so probes stay intact. */
static void track_erase(hr_tracking_heap_t *t, size_t i) {
    size_t mask = t->cap - 1;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!t->slots[j].p)
            break;
        size_t home = track_hash(t->slots[j].p, t->cap);
        /* move j into the hole at i unless its home lies cyclically in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    memset(&t->slots[i], 0, sizeof t->slots[i]);
    t->count--;
}

static void *tracking_alloc(hr_tracking_heap_t *t, size_t size, size_t align) {
    if ((t->count + 1) * 2 > t->cap && track_grow(t) != 0)
        return NULL;
    size_t extra = align > 16 ? align : 0;
    if (size > SIZE_MAX - extra - 1)
        return NULL;
    void *raw = malloc(size + extra ? size + extra : 1);
    if (!raw)
        return NULL;
    hr_track_slot_t s = {raw, raw, hr_chunk_usable(size + extra), 0};
    s.usable = s.held - extra;
    if (extra) /* round up within the slack; never past raw + align - 16 */
        s.p = (void *)(((uintptr_t)raw + extra - 1) & ~(uintptr_t)(extra - 1));
    void *p = s.p;
    track_put(t->slots, t->cap, &s);
    t->count++;
    t->bytes += s.held;
    if (t->bytes > t->high_water)
        t->high_water = t->bytes;
    return p;
}

static int tracking_free(hr_tracking_heap_t *t, void *p) {
    size_t i = track_find(t, p);
    if (i == SIZE_MAX)
        return -1;
    void *raw = t->slots[i].raw;
    t->bytes -= t->slots[i].held;
    track_erase(t, i);
    free(raw);
    return 0;
}

/* ---- static: bump in a fixed region -------------------------------------- */

static void *static_alloc(hr_static_heap_t *s, size_t size, size_t align) {
    size_t a = align > 16 ? align : 16;
    uintptr_t p = ((uintptr_t)s->cur + a - 1) & ~(uintptr_t)(a - 1);
    size_t n = (size + 15) & ~(size_t)15;
    if (n == 0)
        n = 16;
    if (p > (uintptr_t)s->end || (uintptr_t)s->end - p < n || size > SIZE_MAX - 16)
        return NULL;
    s->cur = (unsigned char *)p + n;
    s->allocations++;
    return (void *)p;
}

/* ---- dispatch -------------------------------------------------------------- */

int hr_heap_open(hr_heap_t *h, const char *name, hr_heap_kind_t kind, uint64_t size,
                 hr_error_t *err) {
    memset(h, 0, sizeof *h);
    h->name = name;
    h->kind = kind;
    h->size = size;
    if (kind == HR_HEAP_TRACKING) {
        h->u.tr.budget = size;
        return 0;
    }
    if (kind != HR_HEAP_STATIC && kind != HR_HEAP_DLHEAP)
        return 0;
    void *m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        hr_error_set(err, "routed: heap '%s': cannot reserve %llu bytes: %s", name,
                     (unsigned long long)size, strerror(errno));
        return -1;
    }
    h->region = m;
    h->region_len = (size_t)size;
    if (kind == HR_HEAP_STATIC) {
        h->u.st.base = h->u.st.cur = m;
        h->u.st.end = (unsigned char *)m + size;
    } else if (hr_dlheap_init(&h->u.dl, m, (size_t)size) != 0) {
        munmap(m, (size_t)size);
        hr_error_set(err, "routed: heap '%s': region of %llu bytes is too small", name,
                     (unsigned long long)size);
        return -1;
    }
    return 0;
}

void hr_heap_close(hr_heap_t *h) {
    if (h->kind == HR_HEAP_TRACKING) {
        hr_tracking_heap_t *t = &h->u.tr;
        for (size_t i = 0; i < t->cap; i++)
            free(t->slots[i].raw);
        free(t->slots);
    }
    if (h->region)
        munmap(h->region, h->region_len);
    memset(h, 0, sizeof *h);
}

void *hr_heap_alloc(hr_heap_t *h, size_t size, size_t align) {
    switch (h->kind) {
    case HR_HEAP_STATIC:   return static_alloc(&h->u.st, size, align);
    case HR_HEAP_TRACKING: return tracking_alloc(&h->u.tr, size, align);
    case HR_HEAP_DLHEAP:   return hr_dlheap_alloc(&h->u.dl, size, align);
    default:               return NULL;
    }
}

int hr_heap_free(hr_heap_t *h, void *p) {
    switch (h->kind) {
    case HR_HEAP_STATIC:   return 1; /* freeing is not provided: a counted no-op */
    case HR_HEAP_TRACKING: return tracking_free(&h->u.tr, p);
    case HR_HEAP_DLHEAP:   return hr_dlheap_free(&h->u.dl, p);
    default:               return -1;
    }
}

int hr_heap_can_free(const hr_heap_t *h, const void *p) {
    switch (h->kind) {
    case HR_HEAP_STATIC:
        return (const unsigned char *)p >= h->u.st.base && (const unsigned char *)p < h->u.st.cur;
    case HR_HEAP_TRACKING: return track_find(&h->u.tr, p) != SIZE_MAX;
    case HR_HEAP_DLHEAP:   return hr_dlheap_owns(&h->u.dl, p);
    default:               return 0;
    }
}

size_t hr_heap_usable(const hr_heap_t *h, const void *p) {
    switch (h->kind) {
    case HR_HEAP_STATIC: return 0; /* no headers: block sizes are not recorded */
    case HR_HEAP_TRACKING: {
        size_t i = track_find(&h->u.tr, p);
        return i == SIZE_MAX ? 0 : h->u.tr.slots[i].usable;
    }
    case HR_HEAP_DLHEAP: return hr_dlheap_usable(&h->u.dl, p);
    default:             return 0;
    }
}

void hr_heap_status(const hr_heap_t *h, hr_heap_status_t *st) {
    memset(st, 0, sizeof *st);
    switch (h->kind) {
    case HR_HEAP_STATIC:
        st->total_free = st->largest_free = (uint64_t)(h->u.st.end - h->u.st.cur);
        st->objects = h->u.st.allocations;
        st->high_water = (uint64_t)(h->u.st.cur - h->u.st.base);
        break;
    case HR_HEAP_TRACKING: {
        const hr_tracking_heap_t *t = &h->u.tr;
        uint64_t left = t->budget > t->bytes ? t->budget - t->bytes : 0;
        st->total_free = st->largest_free = left;
        st->objects = t->count;
        st->high_water = t->high_water;
        break;
    }
    case HR_HEAP_DLHEAP: hr_dlheap_status(&h->u.dl, st); break;
    default: break;
    }
}

uint64_t hr_heap_free_total(const hr_heap_t *h) {
    switch (h->kind) {
    case HR_HEAP_STATIC:   return (uint64_t)(h->u.st.end - h->u.st.cur);
    case HR_HEAP_TRACKING:
        if (!h->u.tr.budget)
            return UINT64_MAX;
        return h->u.tr.budget > h->u.tr.bytes ? h->u.tr.budget - h->u.tr.bytes : 0;
    case HR_HEAP_DLHEAP:
        return h->u.dl.free_bytes - h->u.dl.free_chunks * HR_DLHEAP_HEADER;
    default:               return 0;
    }
}

uint64_t hr_heap_held(const hr_heap_t *h) {
    if (h->kind == HR_HEAP_TRACKING)
        return h->u.tr.bytes;
    return h->region_len;
}
