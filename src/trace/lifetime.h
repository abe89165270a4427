/* heapreplay — block lifetimes in frames (the trace's own, the same for
 * every allocator).
 *
 * Each block a trace makes is classed by when it dies relative to the frame
 * it was made in, which tells an engine programmer what could serve it: a
 * per-frame stack (same frame, LIFO), a frame arena (same frame), a
 * double-buffered arena (next frame), a level/phase arena (later in the
 * same phase), the general heap (long-lived) — or a leak. docs/METRICS.md
 * ("Block lifetimes") defines the classes for users.
 *
 * Frames are counted, not numbered: frame k is the span after the k-th
 * main-stream frame mark (a `frame` op without a stream name), frame 0 the
 * load before the first mark. Frames of named streams do not count. */
#ifndef HEAPREPLAY_LIFETIME_H
#define HEAPREPLAY_LIFETIME_H

#include <stdint.h>

#include "base/error.h"
#include "trace/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The classes, shortest life first.
 *   SAME_LIFO freed in the frame it was made, by its own thread, after every
 *             block its thread made later in that frame (what a frame stack
 *             could serve)
 *   SAME      freed in the frame it was made, otherwise
 *   NEXT      freed in the next frame
 *   PHASE     freed later, but before the phase it was made in ends: a
 *             `mark` op starts a new phase (not the `mark frame-by:SYMBOL`
 *             a capture puts before each frame it found), and so does the
 *             first frame (the end of the load)
 *   LONG      freed later than that
 *   LEAKED    never freed */
enum {
    HR_LIFE_SAME_LIFO,
    HR_LIFE_SAME,
    HR_LIFE_NEXT,
    HR_LIFE_PHASE,
    HR_LIFE_LONG,
    HR_LIFE_LEAKED,
    HR_LIFE__COUNT
};

typedef struct hr_life {
    uint32_t alloc_frame, free_frame; /* free_frame UINT32_MAX: never freed */
    uint8_t  cls;                     /* HR_LIFE_*; HR_LIFE__COUNT: no block */
} hr_life_t;

/* For each event of a validated trace (t->events, not the packed form) that
 * makes a block (alloc, calloc, realloc's new block, palloc, prealloc),
 * out[i] (t->n_events entries) describes that block; every other event gets
 * cls = HR_LIFE__COUNT and both frames UINT32_MAX. A realloc (prealloc) ends
 * the old block's life at that event and starts the new block's. Returns 0,
 * or -1 with err (out of memory, a packed trace). */
int hr_lifetime_compute(const hr_trace_t *t, hr_life_t *out, hr_error_t *err);

/* "same-frame-lifo", "same-frame", "next-frame", "phase", "long", "leaked";
 * "?" for anything else. */
const char *hr_life_name(unsigned cls);

/* 1 for a main-stream frame mark (a `frame` op without a stream name):
 * what the frame count advances on. */
static inline int hr_event_is_main_frame(const hr_event_t *ev) {
    return ev->op == HR_OP_FRAME && !(ev->flags & HR_EVF_HAS_OPT);
}

#ifdef __cplusplus
}
#endif
#endif
