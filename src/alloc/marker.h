/* hr_marker: a marker stack allocator (the game-engine StackAllocator of the
 * article on stack allocators and alignment this allocator follows, after "Game
 * Engine Architecture" 5.2).
 *
 * One buffer; allocation bumps a head pointer up after aligning it to a power
 * of two. Memory is never freed one block at a time: hr_marker_get() records
 * the head, hr_marker_release() moves the head back to a recorded marker and
 * hr_marker_release_all() back to the start. Blocks allocated with a
 * destructor have it run on release, newest first (reverse allocation order).
 *
 * Two align-up methods are exported because the marker-stack article this
 * allocator follows compares them: the mask
 * method (x + a-1) & ~(a-1) and the modulo method x + a-1 - (x + a-1) % a.
 * They give the same address for every power-of-two a. (The article's first
 * variant added a - (x & (a-1)), one whole unit too many when x is already
 * aligned; we use the exact form, which is what its second variant computes.)
 */
#ifndef HEAPREPLAY_MARKER_H
#define HEAPREPLAY_MARKER_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    HR_MARKER_OK = 0,
    HR_MARKER_EINVAL = -1,   /* marker above the head, or from the future */
    HR_MARKER_ECORRUPT = -2, /* check(): an invariant does not hold */
};

typedef struct hr_marker_options {
    size_t size;          /* buffer bytes (default 1 MiB) */
    size_t default_align; /* used when align is 0 (default 16) */
} hr_marker_options_t;

hr_marker_options_t hr_marker_default(void);

/* A marker: the head offset plus the counts needed to undo to it. */
typedef struct hr_marker_mark {
    size_t head;     /* offset of the head in the buffer */
    size_t ndtors;   /* destructors registered below the head */
    size_t objects;  /* blocks allocated below the head */
    size_t live;     /* requested bytes below the head */
} hr_marker_mark_t;

typedef void (*hr_marker_dtor_fn)(void *obj, void *ctx);

typedef struct hr_marker_stats {
    /* head: the shared figures (src/alloc/alloc_stats.h); here:
     *   live_bytes      requested bytes of blocks below the head
     *   footprint       buffer + destructor table capacity
     *   high_water      peak head offset (bytes used, padding included)
     *   objects         blocks below the head
     *   largest_free    bytes above the head */
    hr_alloc_stats_t head;
    uint64_t used;           /* head offset */
    uint64_t padding;        /* alignment bytes below the head */
    uint64_t releases;       /* release/release_all calls */
    uint64_t dtors_run;
} hr_marker_stats_t;

typedef struct hr_marker hr_marker_t;

uintptr_t hr_align_up_mask(uintptr_t x, size_t align);
uintptr_t hr_align_up_mod(uintptr_t x, size_t align);

hr_marker_t *hr_marker_create(const hr_marker_options_t *opt); /* NULL opt = defaults */
/* Runs pending destructors (release_all), then frees the buffer. */
void hr_marker_destroy(hr_marker_t *m);

/* align 0 = default_align; not a power of two or no room: NULL. */
void *hr_marker_alloc(hr_marker_t *m, size_t size, size_t align);
/* Same, and registers fn(obj, ctx) to run when the block is released. */
void *hr_marker_alloc_dtor(hr_marker_t *m, size_t size, size_t align, hr_marker_dtor_fn fn,
                           void *ctx);

hr_marker_mark_t hr_marker_get(const hr_marker_t *m);
/* Moves the head back to `mk`, running newer destructors newest first. */
int hr_marker_release(hr_marker_t *m, hr_marker_mark_t mk);
void hr_marker_release_all(hr_marker_t *m);

/* The buffer's first byte (4096-aligned). */
void *hr_marker_base(const hr_marker_t *m);
/* 1 if p lies inside the buffer (released or not). */
int hr_marker_owns(const hr_marker_t *m, const void *p);

void hr_marker_stats(const hr_marker_t *m, hr_marker_stats_t *st);
/* Head inside the buffer, counts consistent, destructor objects below the
 * head in increasing order: 0 or HR_MARKER_ECORRUPT. */
int hr_marker_check(const hr_marker_t *m);

#ifdef __cplusplus
}
#endif
#endif
