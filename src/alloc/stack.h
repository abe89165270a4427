/* hr_stack: a LIFO stack allocator with Box2D b2StackAllocator semantics.
 *
 * One buffer (default 100 KiB) serves requests in strict LIFO order; at most
 * max_entries (default 32) blocks are live, each recorded as an entry
 * {data, size, used_malloc}. A request that does not fit in what is left of
 * the buffer is served by malloc, decided per request, so buffer and malloc
 * entries interleave. Only the top entry may be freed. index (buffer bytes in
 * use), allocation (bytes in use, buffer + malloc) and max_allocation (the
 * high-water mark of allocation, Box2D's GetMaxAllocation) are tracked.
 *
 * Unlike Box2D, where these are debug asserts, the entry-limit and LIFO checks
 * are always on and reported as error codes; the allocator's state is left
 * unchanged by a refused operation.
 *
 * Deviation from Box2D: the buffer advances in multiples of `granule` (default
 * 16) so every block is aligned like malloc's; granule = 1 gives Box2D's exact
 * arithmetic (m_index += size). Entry sizes are recorded as requested.
 * hr_stack_alloc_aligned() also honours an alignment: when the next buffer
 * address is not aligned enough (only possible when align > granule), the
 * block starts after a padding that belongs to its entry (part of its span,
 * released with it). This is how the replay backend keeps granule = 1 blocks
 * aligned as malloc would align them, rather than handing out misaligned
 * blocks or sending every such request to malloc.
 *
 * Sizes: any size_t. The fit test cannot overflow; a request that does not
 * fit in the buffer (up to ~2^64) takes the malloc path, and when malloc
 * cannot serve it the push is refused (ENOMEM) with nothing changed.
 */
#ifndef HEAPREPLAY_STACK_H
#define HEAPREPLAY_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HR_STACK_BOX2D_SIZE (100 * 1024) /* b2_stackSize */
#define HR_STACK_BOX2D_ENTRIES 32        /* b2_maxStackEntries */

enum {
    HR_STACK_OK = 0,
    HR_STACK_ENOMEM = -1,   /* malloc failed */
    HR_STACK_EFULL = -2,    /* max_entries blocks already live */
    HR_STACK_ENOTTOP = -3,  /* free of a pointer that is not the top entry */
    HR_STACK_EEMPTY = -4,   /* free with no live entry */
    HR_STACK_ECORRUPT = -5, /* check(): an invariant does not hold */
    HR_STACK_EALIGN = -6,   /* alloc_aligned(): align not 0 or a power of two */
};

typedef struct hr_stack_options {
    size_t buffer_size; /* bytes of the LIFO buffer (Box2D: 100 KiB) */
    int    max_entries; /* live blocks at most (Box2D: 32) */
    size_t granule;     /* buffer advance rounding, power of two (16; 1 = Box2D) */
} hr_stack_options_t;

hr_stack_options_t hr_stack_default(void);

typedef struct hr_stack_entry {
    char  *data;
    size_t size;        /* as requested */
    size_t span;        /* buffer bytes consumed (pad + size rounded to granule), 0 if malloc */
    size_t pad;         /* alignment padding before data inside span, 0 if malloc */
    int    used_malloc;
} hr_stack_entry_t;

typedef struct hr_stack_stats {
    /* head: the shared figures (src/alloc/alloc_stats.h); here:
     *   live_bytes      = allocation: requested bytes of live entries
     *   footprint       buffer + entry table + live malloc entries, each charged
 *                   what glibc holds for its request (src/alloc/chunk.h,
 *                   hr_chunk_usable: the charge of fallback blocks)
     *   high_water      = max_allocation
     *   objects         live entries
     *   largest_free    buffer bytes left above index */
    hr_alloc_stats_t head;
    uint64_t index;           /* buffer bytes in use (Box2D m_index) */
    uint64_t malloc_entries;  /* live entries served by malloc */
    uint64_t malloc_total;    /* requests ever served by malloc */
} hr_stack_stats_t;

typedef struct hr_stack hr_stack_t;

/* The allocator's state, here only so that the common push and pop below
 * inline into the replay backend (one call per op, as malloc is): its
 * fields are stack.c's business. */
struct hr_stack {
    hr_stack_options_t opt;
    char             *data;        /* the buffer (Box2D m_data) */
    size_t            index;       /* m_index: buffer bytes in use */
    size_t            allocation;  /* m_allocation: requested bytes live */
    size_t            max_allocation;
    hr_stack_entry_t *entries;     /* m_entries[max_entries] */
    int               entry_count;
    uint64_t          malloc_bytes;   /* charge of live malloc entries (hr_chunk_usable) */
    uint64_t          malloc_entries;
    uint64_t          malloc_total;
    uint64_t          peak_footprint;
};

/* hr_stack_alloc_aligned's common case: a block of `size` bytes that fits
 * in the buffer at its index with no padding (alignment at most the
 * granule) and an entry free; NULL, with nothing done, otherwise. */
static inline void *hr_stack_push_fits(hr_stack_t *s, size_t size) {
    size_t g = s->opt.granule, room = s->opt.buffer_size - s->index;
    size_t rounded = (size + g - 1) & ~(g - 1);
    if (s->entry_count >= s->opt.max_entries || size > room || rounded > room)
        return NULL;
    hr_stack_entry_t *e = &s->entries[s->entry_count++];
    e->data = s->data + s->index;
    e->size = size;
    e->span = rounded;
    e->pad = 0;
    e->used_malloc = 0;
    s->index += rounded;
    if ((s->allocation += size) > s->max_allocation)
        s->max_allocation = s->allocation;
    return e->data;
}

/* hr_stack_free's common case: p is the top entry's data, in the buffer;
 * 0 with nothing done otherwise. */
static inline int hr_stack_pop_top(hr_stack_t *s, const void *p) {
    if (!s->entry_count)
        return 0;
    hr_stack_entry_t *e = &s->entries[s->entry_count - 1];
    if (e->data != p || e->used_malloc)
        return 0;
    s->index -= e->span;
    s->allocation -= e->size;
    s->entry_count--;
    return 1;
}

/* NULL opt = defaults. Returns NULL on bad options or out of memory. */
hr_stack_t *hr_stack_create(const hr_stack_options_t *opt);
/* Frees the buffer and any malloc entries still live. */
void hr_stack_destroy(hr_stack_t *s);

/* Pushes a block of `size` bytes: *out = its address. Returns HR_STACK_OK,
 * HR_STACK_EFULL (entry limit) or HR_STACK_ENOMEM. size 0 is a valid entry. */
int hr_stack_alloc(hr_stack_t *s, size_t size, void **out);
/* The same, the block aligned to `align` (0 or a power of two; 0 or anything
 * up to the granule adds nothing): padded in the buffer, or posix_memalign'd
 * on the malloc path when align > 16. HR_STACK_EALIGN on a bad align. */
int hr_stack_alloc_aligned(hr_stack_t *s, size_t size, size_t align, void **out);
/* Pops the top entry, which must be p: HR_STACK_OK, ENOTTOP or EEMPTY. */
int hr_stack_free(hr_stack_t *s, void *p);

/* Index of the live entry whose data is p (0 = bottom), or -1. */
int hr_stack_find(const hr_stack_t *s, const void *p);
/* The top entry's data, or NULL if empty. */
void *hr_stack_top(const hr_stack_t *s);
int hr_stack_entry_count(const hr_stack_t *s);
const hr_stack_entry_t *hr_stack_entry(const hr_stack_t *s, int i);
/* Box2D's GetMaxAllocation. */
size_t hr_stack_max_allocation(const hr_stack_t *s);

void hr_stack_stats(const hr_stack_t *s, hr_stack_stats_t *st);
/* Verifies entries lie in order inside the buffer without overlap, index and
 * allocation equal the sums over entries, alignment to granule: 0 or
 * HR_STACK_ECORRUPT. */
int hr_stack_check(const hr_stack_t *s);

#ifdef __cplusplus
}
#endif
#endif
