/* The heap kinds of the routed manager: static (bump), tracking (malloc +
 * pointer map) and dlheap (src/alloc/dlheap.h), behind one dispatch. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "alloc/chunk.h"
#include "alloc/routed_int.h"

/* ---- tracking: malloc'ed blocks in a pointer map ------------------------- */

static void *tracking_alloc(hr_tracking_heap_t *t, size_t size, size_t align) {
    size_t extra = align > 16 ? align : 0;
    if (size > SIZE_MAX - extra - 1)
        return NULL;
    void *raw = malloc(size + extra ? size + extra : 1);
    if (!raw)
        return NULL;
    void *p = raw;
    if (extra) /* round up within the slack; never past raw + align - 16 */
        p = (void *)(((uintptr_t)raw + extra - 1) & ~(uintptr_t)(extra - 1));
    hr_track_block_t *blk = hr_ptrmap_put(&t->blocks, (uintptr_t)p, NULL);
    if (!blk) {
        free(raw);
        return NULL;
    }
    blk->raw = raw;
    blk->held = hr_chunk_usable(size + extra);
    blk->usable = blk->held - extra;
    t->bytes += blk->held;
    if (t->bytes > t->high_water)
        t->high_water = t->bytes;
    return p;
}

static int tracking_free(hr_tracking_heap_t *t, void *p) {
    hr_track_block_t blk;
    if (!hr_ptrmap_remove(&t->blocks, (uintptr_t)p, &blk))
        return -1;
    t->bytes -= blk.held;
    free(blk.raw);
    return 0;
}

static const hr_track_block_t *tracking_find(const hr_tracking_heap_t *t, const void *p) {
    return hr_ptrmap_get(&t->blocks, (uintptr_t)p);
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
        hr_ptrmap_init(&h->u.tr.blocks, sizeof(hr_track_block_t));
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
        uint64_t p;
        void *blk;
        for (size_t it = 0; (it = hr_ptrmap_next(&h->u.tr.blocks, it, &p, &blk));)
            free(((hr_track_block_t *)blk)->raw);
        hr_ptrmap_free(&h->u.tr.blocks);
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
    case HR_HEAP_TRACKING: return tracking_find(&h->u.tr, p) != NULL;
    case HR_HEAP_DLHEAP:   return hr_dlheap_owns(&h->u.dl, p);
    default:               return 0;
    }
}

size_t hr_heap_usable(const hr_heap_t *h, const void *p) {
    switch (h->kind) {
    case HR_HEAP_STATIC: return 0; /* no headers: block sizes are not recorded */
    case HR_HEAP_TRACKING: {
        const hr_track_block_t *blk = tracking_find(&h->u.tr, p);
        return blk ? blk->usable : 0;
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
        st->objects = t->blocks.n;
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
