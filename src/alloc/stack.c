/* hr_stack: Box2D b2StackAllocator semantics with always-on checks (see
 * src/alloc/stack.h). Our own C code after the published behaviour:
 * per-request malloc fallback, LIFO free of the top entry, index / allocation /
 * max allocation bookkeeping. */
#include "alloc/stack.h"

#include <stdlib.h>
#include <string.h>

#include "alloc/chunk.h"

hr_stack_options_t hr_stack_default(void) {
    hr_stack_options_t o = {HR_STACK_BOX2D_SIZE, HR_STACK_BOX2D_ENTRIES, 16};
    return o;
}

static int is_pow2(size_t x) { return x && (x & (x - 1)) == 0; }

static uint64_t footprint_of(const hr_stack_t *s) {
    return (uint64_t)s->opt.buffer_size + (uint64_t)s->opt.max_entries * sizeof(hr_stack_entry_t) +
           s->malloc_bytes;
}

hr_stack_t *hr_stack_create(const hr_stack_options_t *opt) {
    hr_stack_options_t o = opt ? *opt : hr_stack_default();
    if (o.max_entries <= 0 || !is_pow2(o.granule) || o.buffer_size % o.granule)
        return NULL;
    hr_stack_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->opt = o;
    s->entries = calloc((size_t)o.max_entries, sizeof *s->entries);
    void *buf = NULL;
    if (o.buffer_size && posix_memalign(&buf, o.granule > 16 ? o.granule : 16, o.buffer_size) != 0)
        buf = NULL;
    if (!s->entries || (o.buffer_size && !buf)) {
        free(s->entries);
        free(buf);
        free(s);
        return NULL;
    }
    s->data = buf;
    s->peak_footprint = footprint_of(s);
    return s;
}

void hr_stack_destroy(hr_stack_t *s) {
    if (!s)
        return;
    for (int i = 0; i < s->entry_count; i++)
        if (s->entries[i].used_malloc)
            free(s->entries[i].data);
    free(s->entries);
    free(s->data);
    free(s);
}

/* Where a block of `size` bytes aligned to `align` would start in the buffer:
 * its padding in *pad and its span (padding + size rounded up to the granule)
 * in *span. 0 when it does not fit in what is left above index. Written so
 * that nothing overflows for any size_t: a size near 2^64 used to wrap
 * index + span back into the buffer and be served there. */
static int buffer_fits(const hr_stack_t *s, size_t size, size_t align, size_t *pad,
                       size_t *span) {
    size_t g = s->opt.granule, room = s->opt.buffer_size - s->index;
    if (size > room)
        return 0;
    uintptr_t at = (uintptr_t)(s->data + s->index);
    *pad = align > g ? (size_t)((align - (at & (align - 1))) & (align - 1)) : 0;
    size_t rounded = (size + g - 1) & ~(g - 1); /* <= buffer_size: no wrap */
    if (rounded > room || *pad > room - rounded)
        return 0;
    *span = *pad + rounded;
    return 1;
}

/* The Box2D per-request malloc entry, aligned as asked (malloc gives 16). */
static int push_malloc(hr_stack_t *s, hr_stack_entry_t *e, size_t size, size_t align) {
    void *p = hr_chunk_malloc(size, align);
    if (!p)
        return HR_STACK_ENOMEM;
    e->data = p;
    e->used_malloc = 1;
    e->span = 0;
    e->pad = 0;
    s->malloc_bytes += hr_chunk_usable(size);
    s->malloc_entries++;
    s->malloc_total++;
    uint64_t fp = footprint_of(s);
    if (fp > s->peak_footprint)
        s->peak_footprint = fp;
    return HR_STACK_OK;
}

int hr_stack_alloc_aligned(hr_stack_t *s, size_t size, size_t align, void **out) {
    *out = NULL;
    if (align & (align - 1))
        return HR_STACK_EALIGN;
    if (s->entry_count >= s->opt.max_entries)
        return HR_STACK_EFULL;
    hr_stack_entry_t *e = &s->entries[s->entry_count];
    size_t pad, span;
    if (buffer_fits(s, size, align, &pad, &span)) {
        e->data = s->data + s->index + pad;
        e->used_malloc = 0;
        e->span = span;
        e->pad = pad;
        s->index += span;
    } else {
        /* Does not fit: served by malloc, decided for this request only. A
         * request malloc cannot serve (near 2^64) is refused, nothing changed. */
        int rc = push_malloc(s, e, size, align);
        if (rc != HR_STACK_OK)
            return rc;
    }
    e->size = size;
    s->allocation += size;
    if (s->allocation > s->max_allocation)
        s->max_allocation = s->allocation;
    s->entry_count++;
    *out = e->data;
    return HR_STACK_OK;
}

int hr_stack_alloc(hr_stack_t *s, size_t size, void **out) {
    return hr_stack_alloc_aligned(s, size, 0, out);
}

int hr_stack_free(hr_stack_t *s, void *p) {
    if (s->entry_count == 0)
        return HR_STACK_EEMPTY;
    hr_stack_entry_t *e = &s->entries[s->entry_count - 1];
    if (e->data != p)
        return HR_STACK_ENOTTOP;
    if (e->used_malloc) {
        free(p);
        s->malloc_bytes -= hr_chunk_usable(e->size);
        s->malloc_entries--;
    } else {
        s->index -= e->span;
    }
    s->allocation -= e->size;
    s->entry_count--;
    return HR_STACK_OK;
}

int hr_stack_find(const hr_stack_t *s, const void *p) {
    for (int i = s->entry_count - 1; i >= 0; i--)
        if (s->entries[i].data == p)
            return i;
    return -1;
}

void *hr_stack_top(const hr_stack_t *s) {
    return s->entry_count ? s->entries[s->entry_count - 1].data : NULL;
}

int hr_stack_entry_count(const hr_stack_t *s) { return s->entry_count; }

const hr_stack_entry_t *hr_stack_entry(const hr_stack_t *s, int i) {
    return i >= 0 && i < s->entry_count ? &s->entries[i] : NULL;
}

size_t hr_stack_max_allocation(const hr_stack_t *s) { return s->max_allocation; }

void hr_stack_stats(const hr_stack_t *s, hr_stack_stats_t *st) {
    memset(st, 0, sizeof *st);
    st->head.live_bytes = s->allocation;
    st->head.footprint = footprint_of(s);
    st->head.high_water = s->max_allocation;
    st->head.peak_footprint = s->peak_footprint;
    st->head.objects = (uint64_t)s->entry_count;
    st->head.largest_free = s->opt.buffer_size - s->index;
    st->index = s->index;
    st->malloc_entries = s->malloc_entries;
    st->malloc_total = s->malloc_total;
}

int hr_stack_check(const hr_stack_t *s) {
    size_t index = 0, allocation = 0, mbytes = 0, ment = 0;
    if (s->entry_count < 0 || s->entry_count > s->opt.max_entries)
        return HR_STACK_ECORRUPT;
    for (int i = 0; i < s->entry_count; i++) {
        const hr_stack_entry_t *e = &s->entries[i];
        if (e->used_malloc) {
            if (!e->data || e->span || e->pad)
                return HR_STACK_ECORRUPT;
            mbytes += hr_chunk_usable(e->size);
            ment++;
        } else {
            /* Buffer entries are contiguous (each after its padding), in push
             * order, granule-aligned. */
            if (e->data != s->data + index + e->pad || e->span < e->pad ||
                e->span - e->pad < e->size || (e->span - e->pad) % s->opt.granule ||
                ((uintptr_t)e->data & (s->opt.granule - 1)))
                return HR_STACK_ECORRUPT;
            index += e->span;
        }
        allocation += e->size;
    }
    if (index != s->index || index > s->opt.buffer_size || allocation != s->allocation ||
        mbytes != s->malloc_bytes || ment != s->malloc_entries ||
        s->allocation > s->max_allocation)
        return HR_STACK_ECORRUPT;
    return HR_STACK_OK;
}
