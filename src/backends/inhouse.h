/* One adapter for the in-house allocators' backends (be_stack.c,
 * be_marker.c, be_block.c, be_bank.c, be_sizeclass.c).
 *
 * Each of those backends keeps an hr_inhouse_t as the FIRST member of its
 * state and describes itself with one const hr_inhouse_class_t. The adapter
 * then supplies the shape they share:
 *  - alloc: the allocator's hook tries the request natively; a refusal (NULL
 *    with the violation kind) is served by system malloc, counted, and the
 *    block remembered in a pointer set so that free, usable_size and destroy
 *    know it is a fallback block (unless the class tells its own blocks by
 *    address: `owns` below); an oversize one is not remembered: its
 *    size tells it apart, and the backend's free and usable_size answer it
 *    (bank, sizeclass), which keeps the set's upkeep off the fallback path;
 *  - free: a fallback block goes back to malloc; anything else is the hook's;
 *  - footprint, usable_size, destroy: fallback bytes added, fallback blocks
 *    in the set answered and released here, the rest asked of the class
 *    (an oversize block still live at destroy is the caller's: the engine
 *    frees every live block before it destroys an instance);
 *  - stats: fallback figures, then the class's fields by table (the head of
 *    its stats struct, src/alloc/alloc_stats.h, under the key names that
 *    allocator has always used, in its order), then "check".
 * alloc and free are static inline so that the hooks, passed as constants,
 * are called directly: the adapter adds no indirect call to a replayed op.
 * Also here: the "key=value,key=value" option parser of their create(). */
#ifndef HR_BACKENDS_INHOUSE_H
#define HR_BACKENDS_INHOUSE_H

#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "backends/fallback.h"
#include "base/emit.h"
#include "base/ptrmap.h"
#include "alloc/alloc_stats.h"

/* Buckets of the fallback set's filter (hr_inhouse_t.fb_hits): a power of
 * two; 4 KiB of counts, so with n fallback blocks live about n / 4096 of the
 * allocator's own frees look in the set. */
#define HR_INHOUSE_FB_BUCKETS 4096

/* The largest in-house stats struct (checked in each be_*.c). */
#define HR_INHOUSE_STATS_MAX 512

/* One uint64_t figure of the stats output: read at `offset` in the class's
 * stats struct, or in the backend's own state when `in_self` is set. */
typedef struct hr_inhouse_field {
    const char *key;
    uint16_t    offset;
    uint8_t     in_self;
} hr_inhouse_field_t;

#define HR_IH_HEAD(key, field) {key, offsetof(hr_alloc_stats_t, field), 0}
#define HR_IH_STAT(key, type, field) {key, offsetof(type, field), 0}
#define HR_IH_SELF(key, type, field) {key, offsetof(type, field), 1}
/* The whole head in order under the field names (block, sizeclass). */
#define HR_IH_HEAD_ALL                                                        \
    HR_IH_HEAD("live_bytes", live_bytes), HR_IH_HEAD("footprint", footprint), \
    HR_IH_HEAD("high_water", high_water),                                     \
    HR_IH_HEAD("peak_footprint", peak_footprint),                             \
    HR_IH_HEAD("objects", objects), HR_IH_HEAD("largest_free", largest_free)

typedef struct hr_inhouse_class {
    const char *name;
    /* Fills the allocator's stats struct (hr_alloc_stats_t head first). */
    void (*stats)(void *self, void *st);
    /* Emitted in order; "footprint" (the head's) includes fallback bytes. */
    const hr_inhouse_field_t *fields; /* ends with a NULL key */
    /* Optional: emitted after the fallback figures, before the fields. */
    void (*emit_pre)(void *self, hr_emit_t *em);
    /* Optional: emitted after the fields, before "check". */
    void (*emit_post)(void *self, const void *st, hr_emit_t *em);
    int64_t (*check)(void *self);
    uint64_t (*footprint)(void *self);          /* without fallback bytes */
    /* Optional: whether ptr is a live block of the allocator's own, told by
     * its address with no table (a buffer's range, its few entries). When
     * set, the adapter keeps no set of fallback blocks: a block the
     * allocator does not own is a fallback one, and the backend's free sends
     * it to hr_inhouse_free_owned. Why: stack and marker serve nearly every
     * op of a real program by fallback (32 entries, a 1 MiB buffer), and the
     * set's insert and remove per op, in a table of every live block, were
     * 55 ns of stack's 87 ns per op on the freeciv trace, against 30 for
     * glibc alone: harness work, not the allocator's. */
    int (*owns)(const void *self, const void *ptr);
    size_t (*usable)(void *self, void *ptr, size_t size); /* non-fallback blocks */
    void (*destroy)(void *self);                /* the allocator only */
} hr_inhouse_class_t;

/* The hr_backend_t functions every in-house backend takes from the adapter
 * (designated initialisers inside its const struct). */
#define HR_INHOUSE_BACKEND_FNS                                                  \
    .footprint = hr_inhouse_footprint, .usable_size = hr_inhouse_usable,        \
    .stats = hr_inhouse_stats, .destroy = hr_inhouse_destroy

typedef struct hr_inhouse {
    const hr_inhouse_class_t *cls;
    hr_fallback_t             fb;
    /* Live fallback blocks of a size the allocator serves (refused for their
     * alignment or for want of memory): a free of such a size must look
     * here first. Oversize ones are not kept: a free of a size the
     * allocator refuses is of a fallback block (the engine frees with the
     * size it allocated), and the backend sends it to
     * hr_inhouse_fb_free_oversize. */
    hr_ptrmap_t               fb_set;
    /* A counting filter over fb_set: HR_INHOUSE_FB_BUCKETS bytes of harness
     * memory (base/hmem.h), mapped with the first block put in the set, NULL
     * before. fb_hits[bucket(p)] counts the blocks of the set whose address
     * falls in p's bucket; 255 sticks (a count that went on must not reach 0
     * with blocks of its bucket live), and such a bucket is searched while
     * the set is not empty. A pointer whose bucket counts 0 is no fallback
     * block, so a free of the allocator's own block while fallback blocks
     * are live tests one byte, and the branch goes the same way nearly every
     * time. The test before it (a mask of the low address bits every block
     * in the set has clear) let through every pointer as aligned as the
     * set's blocks and, both outcomes common, was mispredicted: on
     * game_session's blocks up to 640 B (68 blocks refused for their 64-byte
     * alignment, live for long) block's free searched the set for one free in
     * four and took 0.15 mispredicted branches per op, and block ran at 1.19x
     * mimalloc's time with 0.84x its instructions. Out of line, in place of
     * the mask: 4 KiB more in this struct moved the state of the backends
     * that embed it (bank 8 % slower on frame_loop) and a calloc'd one
     * changed what the allocator under test held. */
    uint8_t                  *fb_hits;
} hr_inhouse_t;

/* The filter bucket of an address: its 16-byte granule modulo the table
 * (the allocators' blocks spread evenly over the granules of any 64 KiB; an
 * 8-aligned block sharing a granule with a fallback block, sizeclass's min=8,
 * costs only a search of the set). */
static inline size_t hr_inhouse_bucket(const void *ptr) {
    return ((uintptr_t)ptr >> 4) & (HR_INHOUSE_FB_BUCKETS - 1);
}

/* Whether ptr cannot be a block of fb_set (none live, or none in its filter
 * bucket): its free needs no search of the set. */
static inline int hr_inhouse_not_fb(const hr_inhouse_t *ih, const void *ptr) {
    return !ih->fb_set.n || !ih->fb_hits[hr_inhouse_bucket(ptr)];
}

/* Whether ptr is a live block of fb_set (searched only when it may be). */
static inline int hr_inhouse_is_fb(const hr_inhouse_t *ih, const void *ptr) {
    return !hr_inhouse_not_fb(ih, ptr) && hr_ptrmap_has(&ih->fb_set, (uintptr_t)ptr);
}

/* A zeroed backend state of `size` bytes whose first member is the
 * hr_inhouse_t, bound to cls; NULL (err set) when out of memory. */
void *hr_inhouse_new(const hr_inhouse_class_t *cls, size_t size, hr_error_t *err);

/* Parses cfg->arg ("k1=v1,k2=v2"; a bare value sets keys[0]) into vals
 * (sizes: "123", "16K", "1M", "2G"). 0, or -1 with err "NAME: bad option at
 * 'ITEM' (expected USAGE)". No arg: 0, vals untouched. */
int hr_inhouse_parse(const char *name, const hr_backend_config_t *cfg,
                     const char *const *keys, uint64_t *vals, const char *usage,
                     hr_error_t *err);

/* The violation kind of a request above the sizes an allocator serves:
 * the hooks set *why to this very string, which the adapter tells apart by
 * its address. */
extern const char hr_inhouse_oversize[];

/* A fallback block: violation `why` (a string literal) counted, the block
 * remembered unless `why` is hr_inhouse_oversize or the class has `owns`;
 * NULL when malloc fails. */
void *hr_inhouse_fb_alloc(hr_inhouse_t *ih, size_t size, size_t align, const char *why);

/* Frees a fallback block of a size the allocator refuses (an oversize one:
 * not in the set). Only backends that refuse by size call it. */
static inline void hr_inhouse_fb_free_oversize(hr_inhouse_t *ih, void *ptr, size_t size) {
    hr_fallback_free(&ih->fb, ptr, size);
}

/* Frees ptr when it is a live fallback block: 1, else 0. Out of line, so
 * that a native free (no fallback block live, or not one of them) keeps the
 * inline path free of the set's code and the registers it needs. */
int hr_inhouse_fb_free(hr_inhouse_t *ih, void *ptr, size_t size);

/* Native attempt of an allocator: the block, or NULL with *why set to the
 * violation kind (preset to "out_of_memory"). */
typedef void *(*hr_inhouse_alloc_fn)(void *self, size_t size, size_t align, const char **why);
/* Native free of a block that is not a fallback one: 1 when it counts as a
 * native op, 0 when the hook counted it otherwise (a violation). */
typedef int (*hr_inhouse_free_fn)(void *self, void *ptr, size_t size);

static inline void *hr_inhouse_alloc(void *self, size_t size, size_t align,
                                     hr_inhouse_alloc_fn native) {
    hr_inhouse_t *ih = self;
    const char *why = "out_of_memory";
    void *p = native(self, size, align, &why);
    if (!p)
        return hr_inhouse_fb_alloc(ih, size, align, why);
    hr_fallback_native(&ih->fb);
    return p;
}

/* hr_inhouse_free for a class with `owns` (passed here as a constant, like
 * the hook): a block it does not own goes back to malloc, any other to the
 * hook. */
typedef int (*hr_inhouse_owns_fn)(const void *self, const void *ptr);
static inline void hr_inhouse_free_owned(void *self, void *ptr, size_t size,
                                         hr_inhouse_owns_fn owns, hr_inhouse_free_fn native) {
    hr_inhouse_t *ih = self;
    if (!ptr)
        return;
    if (!owns(self, ptr)) {
        hr_fallback_free(&ih->fb, ptr, size);
        return;
    }
    if (native(self, ptr, size))
        hr_fallback_native(&ih->fb);
}

static inline void hr_inhouse_free(void *self, void *ptr, size_t size, hr_inhouse_free_fn native) {
    hr_inhouse_t *ih = self;
    if (!ptr)
        return;
    if (!hr_inhouse_not_fb(ih, ptr) && hr_inhouse_fb_free(ih, ptr, size))
        return;
    if (native(self, ptr, size))
        hr_fallback_native(&ih->fb);
}

/* hr_backend_t entries shared by the in-house backends. */
uint64_t hr_inhouse_footprint(void *self);
size_t   hr_inhouse_usable(void *self, void *ptr, size_t size);
void     hr_inhouse_stats(void *self, hr_emit_t *em);
void     hr_inhouse_destroy(void *self);

#endif
