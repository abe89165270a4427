/* "stack": hr_stack (Box2D b2StackAllocator semantics) as a replay backend.
 *
 * -a stack[:size=100K,entries=32,granule=16]
 * Native: requests pushed on the stack (buffer or the stack's own per-request
 * malloc, both Box2D behaviour) and LIFO frees of the top entry. Counted and
 * served by fallback:
 *   "entry_limit"   a push with every entry in use -> system malloc;
 *   "align"         align above the granule -> system malloc;
 *   "non_lifo_free" a free of a live entry that is not the top: the block is
 *                   marked dead and popped when it reaches the top (the
 *                   stack cannot release it earlier), counted as a fallback op;
 *   "out_of_memory" the stack's own malloc refused a request that does not
 *                   fit the buffer (e.g. a size near 2^64): the system
 *                   fallback is tried, and its failure counted by the engine
 *                   (failed_allocs). The buffer is never used for it.
 * Alignment: every block is aligned as asked, or for a plain request as
 * malloc aligns it (min(16, largest power of two <= size)); with granule=1
 * the buffer is padded before the block (see needed_align).
 */
#include <stdlib.h>
#include <string.h>

#include "alloc/chunk.h"
#include "backends/inhouse.h"
#include "alloc/stack.h"

typedef struct hr_stack_be {
    hr_inhouse_t  ih;       /* first: the shared adapter's part */
    hr_stack_t   *s;
    size_t        granule;
    int           ndead;
    void        **dead;     /* live entries freed out of order (< max_entries) */
    uint64_t      peak_dead;
} hr_stack_be_t;

_Static_assert(sizeof(hr_stack_stats_t) <= HR_INHOUSE_STATS_MAX, "stats buffer");

static const hr_inhouse_class_t stack_class;

static void *stack_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"size", "entries", "granule", NULL};
    hr_stack_options_t o = hr_stack_default();
    uint64_t v[3] = {o.buffer_size, (uint64_t)o.max_entries, o.granule};
    if (hr_inhouse_parse("stack", cfg, keys, v, "size=BYTES,entries=N,granule=POW2", err) != 0)
        return NULL;
    o.buffer_size = (size_t)v[0];
    o.max_entries = v[1] > 1u << 20 ? 0 : (int)v[1];
    o.granule = (size_t)v[2];
    hr_stack_be_t *b = hr_inhouse_new(&stack_class, sizeof *b, err);
    if (!b)
        return NULL;
    b->s = hr_stack_create(&o);
    b->dead = calloc(o.max_entries > 0 ? (size_t)o.max_entries : 1, sizeof *b->dead);
    b->granule = o.granule;
    if (!b->s || !b->dead) {
        hr_error_set(err, "stack: cannot create (size=%zu entries=%d granule=%zu: granule must be"
                     " a power of two dividing size, entries > 0)",
                     o.buffer_size, o.max_entries, o.granule);
        hr_inhouse_destroy(b);
        return NULL;
    }
    return b;
}

/* The alignment a block must have: the requested one, or for a plain request
 * malloc's rule min(16, largest power of two <= size) (what --verify checks).
 * With granule >= 16 every block already has it; with granule = 1 the stack
 * pads the buffer before the block (hr_stack_alloc_aligned), so Box2D's
 * byte-exact advance is kept for sizes and no block comes back misaligned. */
static size_t needed_align(size_t size, size_t align) {
    if (align)
        return align;
    if (size >= 16)
        return 16;
    return size ? (size_t)1 << (63 - __builtin_clzll((unsigned long long)size)) : 1;
}

static void *stack_native_alloc(void *self, size_t size, size_t align, const char **why) {
    hr_stack_be_t *b = self;
    if (align > (b->granule > 16 ? b->granule : 16)) {
        *why = "align";
        return NULL;
    }
    void *p;
    size = size ? size : 1; /* two live zero-byte blocks must not share an address */
    int rc = hr_stack_alloc_aligned(b->s, size, needed_align(size, align), &p);
    if (rc == HR_STACK_OK)
        return p;
    if (rc == HR_STACK_EFULL)
        *why = "entry_limit";
    return NULL; /* ENOMEM: "out_of_memory" (a request malloc cannot serve) */
}

/* Everything but the common case below: the adapter's path. */
static __attribute__((noinline)) void *stack_alloc_rest(void *self, size_t size, size_t align) {
    return hr_inhouse_alloc(self, size, align, stack_native_alloc);
}

/* The common case, what stack_native_alloc does for a request of at most
 * 8-byte alignment, a power of two (its needed alignment then at most 16,
 * which a granule of 16 or more gives with no padding) that fits in the
 * buffer, inline with one tail call for the rest: the function then saves
 * no registers. */
static inline __attribute__((always_inline)) void *stack_alloc_as(void *self, size_t size,
                                                                  size_t align, const int counted) {
    hr_stack_be_t *b = self;
    void *p;
    if (__builtin_expect(align <= 8 && !(align & (align - 1)) && size && b->granule >= 16, 1) &&
        (p = hr_stack_push_fits(b->s, size)) != NULL) {
        if (counted)
            hr_fallback_native(&b->ih.fb);
        return p;
    }
    return stack_alloc_rest(self, size, align);
}

/* stack_alloc, and stack_alloc_timed without the native-op count (Box2D's
 * own allocation and its peak stay: b2StackAllocator keeps them). */
HR_TIMED_ALLOC_PAIR(stack_alloc)

static int dead_take(hr_stack_be_t *b, const void *p) {
    for (int i = 0; i < b->ndead; i++)
        if (b->dead[i] == p) {
            b->dead[i] = b->dead[--b->ndead];
            return 1;
        }
    return 0;
}

static int stack_native_free(void *self, void *ptr, size_t size) {
    (void)size;
    hr_stack_be_t *b = self;
    int i = hr_stack_find(b->s, ptr);
    if (i < 0)
        return 0; /* not ours: nothing to count */
    if (i != hr_stack_entry_count(b->s) - 1) {
        hr_fallback_violation(&b->ih.fb, "non_lifo_free");
        b->ih.fb.fallback_ops++;
        b->dead[b->ndead++] = ptr;
        if ((uint64_t)b->ndead > b->peak_dead)
            b->peak_dead = (uint64_t)b->ndead;
        return 0;
    }
    hr_stack_free(b->s, ptr);
    /* Pop the entries that were freed out of order and are now on top. */
    void *top;
    while (b->ndead && (top = hr_stack_top(b->s)) && dead_take(b, top))
        hr_stack_free(b->s, top);
    return 1;
}

/* Whether p is a live entry's data: in the buffer (no other live block can
 * be there), or one of the entries the stack's own malloc served (searched
 * only while there are some). */
static int stack_owns(const void *self, const void *p) {
    const hr_stack_t *s = ((const hr_stack_be_t *)self)->s;
    if ((uintptr_t)p - (uintptr_t)s->data < s->opt.buffer_size)
        return 1;
    return s->malloc_entries && hr_stack_find(s, p) >= 0;
}

static __attribute__((noinline)) void stack_free_rest(void *self, void *ptr, size_t size) {
    hr_inhouse_free_owned(self, ptr, size, stack_owns, stack_native_free);
}

/* The common case as in stack_alloc: the block is the top entry, in the
 * buffer, and no entry freed out of order waits under it. A live fallback
 * block is never the top entry's data (two live blocks), so ownership is
 * asked only after a miss. */
static inline __attribute__((always_inline)) void stack_free_as(void *self, void *ptr, size_t size,
                                                               const int counted) {
    hr_stack_be_t *b = self;
    if (__builtin_expect(!b->ndead && ptr && hr_stack_pop_top(b->s, ptr), 1)) {
        if (counted)
            hr_fallback_native(&b->ih.fb);
        return;
    }
    stack_free_rest(self, ptr, size);
}

HR_TIMED_FREE_PAIR(stack_free)

static void stack_stats_of(void *self, void *st) {
    hr_stack_be_t *b = self;
    hr_stack_stats(b->s, st);
}

static uint64_t stack_footprint(void *self) {
    hr_stack_stats_t st;
    stack_stats_of(self, &st);
    return st.head.footprint;
}

static size_t stack_usable_size(void *self, void *ptr, size_t size) {
    hr_stack_be_t *b = self;
    const hr_stack_entry_t *e = hr_stack_entry(b->s, hr_stack_find(b->s, ptr));
    if (!e)
        return hr_chunk_usable(size);
    return e->used_malloc ? hr_chunk_usable(e->size) : e->span - e->pad;
}

static void stack_emit_post(void *self, const void *st, hr_emit_t *em) {
    (void)st;
    hr_stack_be_t *b = self;
    hr_emit_u64(em, "dead_entries", (uint64_t)b->ndead);
    hr_emit_u64(em, "peak_dead_entries", b->peak_dead);
}

static int64_t stack_check(void *self) {
    hr_stack_be_t *b = self;
    return hr_stack_check(b->s);
}

static void stack_destroy(void *self) {
    hr_stack_be_t *b = self;
    hr_stack_destroy(b->s);
    free(b->dead);
}

static const hr_inhouse_field_t stack_fields[] = {
    HR_IH_HEAD("live_bytes", live_bytes),
    HR_IH_HEAD("footprint", footprint),
    HR_IH_HEAD("max_allocation", high_water),
    HR_IH_HEAD("peak_footprint", peak_footprint),
    HR_IH_HEAD("entries", objects),
    HR_IH_STAT("index", hr_stack_stats_t, index),
    HR_IH_HEAD("largest_free", largest_free),
    HR_IH_STAT("malloc_entries", hr_stack_stats_t, malloc_entries),
    HR_IH_STAT("malloc_requests", hr_stack_stats_t, malloc_total),
    {NULL, 0, 0},
};

static const hr_inhouse_class_t stack_class = {
    .name = "stack",
    .stats = stack_stats_of,
    .fields = stack_fields,
    .emit_post = stack_emit_post,
    .check = stack_check,
    .footprint = stack_footprint,
    .usable = stack_usable_size,
    .destroy = stack_destroy,
    .owns = stack_owns,
};

const hr_backend_t hr_backend_stack = {
    .name = "stack",
    .description = "Box2D b2StackAllocator: 100 KiB LIFO buffer, 32 entries, malloc when full",
    .caps = HR_CAP_LIFO_ONLY | HR_CAP_ALIGNED,
    .create = stack_create,
    .alloc = stack_alloc,
    .free = stack_free,
    .alloc_timed = stack_alloc_timed,
    .free_timed = stack_free_timed,
    HR_INHOUSE_BACKEND_FNS,
};
