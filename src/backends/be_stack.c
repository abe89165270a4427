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
 *                   stack cannot release it earlier), counted as a fallback op.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc/chunk.h"
#include "backends/backend.h"
#include "backends/seed_util.h"
#include "heapreplay/stack.h"

typedef struct hr_stack_be {
    hr_stack_t   *s;
    hr_seed_fb_t  f;
    size_t        granule;
    int           ndead;
    void        **dead;     /* live entries freed out of order (< max_entries) */
    uint64_t      peak_dead;
} hr_stack_be_t;

static void stack_destroy(void *self);

static void *stack_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const keys[] = {"size", "entries", "granule", NULL};
    hr_stack_options_t o = hr_stack_default();
    uint64_t v[3] = {o.buffer_size, (uint64_t)o.max_entries, o.granule};
    const char *bad = NULL;
    if (cfg && cfg->arg && hr_seed_parse_kv(cfg->arg, keys, v, &bad) != 0) {
        hr_error_set(err, "stack: bad option at '%s' (expected size=BYTES,entries=N,granule=POW2)",
                     bad);
        return NULL;
    }
    o.buffer_size = (size_t)v[0];
    o.max_entries = v[1] > 1u << 20 ? 0 : (int)v[1];
    o.granule = (size_t)v[2];
    hr_stack_be_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->s = hr_stack_create(&o);
    b->dead = calloc(o.max_entries > 0 ? (size_t)o.max_entries : 1, sizeof *b->dead);
    b->granule = o.granule;
    if (!b->s || !b->dead) {
        hr_error_set(err, "stack: cannot create (size=%zu entries=%d granule=%zu: granule must be"
                     " a power of two dividing size, entries > 0)",
                     o.buffer_size, o.max_entries, o.granule);
        stack_destroy(b);
        return NULL;
    }
    return b;
}

static void *stack_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap;
    hr_stack_be_t *b = self;
    if (align > (b->granule > 16 ? b->granule : 16)) {
        return hr_seed_fb_alloc(&b->f, size, align, "align");
    }
    void *p;
    int rc = hr_stack_alloc(b->s, size, &p);
    if (rc == HR_STACK_OK) {
        hr_fallback_native(&b->f.fb);
        return p;
    }
    return hr_seed_fb_alloc(&b->f, size, align,
                            rc == HR_STACK_EFULL ? "entry_limit" : "out_of_memory");
}

static int dead_take(hr_stack_be_t *b, const void *p) {
    for (int i = 0; i < b->ndead; i++)
        if (b->dead[i] == p) {
            b->dead[i] = b->dead[--b->ndead];
            return 1;
        }
    return 0;
}

static void stack_free(void *self, void *ptr, size_t size) {
    hr_stack_be_t *b = self;
    if (!ptr)
        return;
    int i = hr_stack_find(b->s, ptr);
    if (i < 0) {
        hr_seed_fb_free(&b->f, ptr, size);
        return;
    }
    if (i != hr_stack_entry_count(b->s) - 1) {
        hr_fallback_violation(&b->f.fb, "non_lifo_free");
        b->f.fb.fallback_ops++;
        b->dead[b->ndead++] = ptr;
        if ((uint64_t)b->ndead > b->peak_dead)
            b->peak_dead = (uint64_t)b->ndead;
        return;
    }
    hr_stack_free(b->s, ptr);
    hr_fallback_native(&b->f.fb);
    /* Pop the entries that were freed out of order and are now on top. */
    void *top;
    while (b->ndead && (top = hr_stack_top(b->s)) && dead_take(b, top))
        hr_stack_free(b->s, top);
}

static uint64_t stack_footprint(void *self) {
    hr_stack_be_t *b = self;
    hr_stack_stats_t st;
    hr_stack_stats(b->s, &st);
    return st.footprint + b->f.fb.bytes_held;
}

static size_t stack_usable_size(void *self, void *ptr, size_t size) {
    hr_stack_be_t *b = self;
    const hr_stack_entry_t *e = hr_stack_entry(b->s, hr_stack_find(b->s, ptr));
    if (!e)
        return hr_chunk_usable(size);
    return e->used_malloc ? e->size : e->span;
}

static void stack_stats(void *self, hr_emit_t *em) {
    hr_stack_be_t *b = self;
    hr_stack_stats_t st;
    hr_stack_stats(b->s, &st);
    hr_fallback_emit(&b->f.fb, em);
    hr_emit_u64(em, "live_bytes", st.live_bytes);
    hr_emit_u64(em, "footprint", st.footprint + b->f.fb.bytes_held);
    hr_emit_u64(em, "max_allocation", st.high_water);
    hr_emit_u64(em, "peak_footprint", st.peak_footprint);
    hr_emit_u64(em, "entries", st.objects);
    hr_emit_u64(em, "index", st.index);
    hr_emit_u64(em, "largest_free", st.largest_free);
    hr_emit_u64(em, "malloc_entries", st.malloc_entries);
    hr_emit_u64(em, "malloc_requests", st.malloc_total);
    hr_emit_u64(em, "dead_entries", (uint64_t)b->ndead);
    hr_emit_u64(em, "peak_dead_entries", b->peak_dead);
    hr_emit_i64(em, "check", hr_stack_check(b->s));
}

static void stack_destroy(void *self) {
    hr_stack_be_t *b = self;
    if (!b)
        return;
    hr_stack_destroy(b->s);
    hr_seed_fb_release(&b->f);
    free(b->dead);
    free(b);
}

const hr_backend_t hr_backend_stack = {
    .name = "stack",
    .description = "Box2D b2StackAllocator: 100 KiB LIFO buffer, 32 entries, malloc when full",
    .caps = HR_CAP_LIFO_ONLY | HR_CAP_ALIGNED,
    .create = stack_create,
    .alloc = stack_alloc,
    .free = stack_free,
    .footprint = stack_footprint,
    .usable_size = stack_usable_size,
    .stats = stack_stats,
    .destroy = stack_destroy,
};
