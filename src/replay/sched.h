/* The schedule of a threaded replay: a trace cut into one event stream per
 * recorded thread, with the cross-thread dependencies the replay must keep.
 *
 * Ordering model (docs/METRICS.md, "Threads"): each recorded thread replays
 * its own events in trace order, on its own OS thread. Between threads only
 * the data dependencies through blocks are kept: the events that touch one id
 * (alloc, calloc, realloc's old and new id, free) form a chain in trace order,
 * and an event whose predecessor in its chain ran on another thread waits
 * until that predecessor has completed. So a free (or realloc) never runs
 * before the alloc that made its block, and an id is never reused before its
 * free has completed. The recorded timing between threads is not kept (unless
 * the replay paces by timestamps).
 *
 * No deadlock is possible: every wait is on an event earlier in trace order,
 * so the thread whose next event is the earliest of all never waits on an
 * event that has not run. hr_trace_validate has already checked the chains in
 * trace order (a free before its alloc is rejected there, with its index).
 *
 * Ids are renamed to slots first. A trace's ids are names the capture gave
 * (freed ids are reused at once, whichever thread frees or allocates), so
 * keeping them would chain a thread's alloc to another thread's unrelated
 * free of the same id, a dependency the program never had. A slot freed by
 * a thread is reused only by that thread's later allocations (per-thread
 * free lists), so slot reuse needs no wait: program order covers it.
 *
 * Waiting uses one 32-bit word per slot (`seq`): the number of chain events of
 * that id completed so far, as far as another thread needs to know. An event
 * that has a successor on another thread publishes its chain position + 1
 * after it completes; its successor waits until the word reaches its own
 * chain position. Events with no cross-thread neighbour do not touch the word.
 *
 * In-house allocators are single-threaded by design, so a threaded replay
 * gives each thread its own instance (a game gives each thread its own frame
 * stack or pool). A block belongs to the instance that allocated it (a
 * realloc from another thread keeps it there); freeing or reallocating a
 * block another thread's instance owns is a cross-thread free, served on the
 * owner's instance under that instance's lock. Only instances that ever
 * receive such a call take their lock, and then around every op of their
 * owner too. */
#ifndef HR_REPLAY_SCHED_H
#define HR_REPLAY_SCHED_H

#include <stdint.h>

#include "trace/trace.h"

/* ev.flags bit of the streams' private event copies (never in a trace file):
 * the event has a sync record (the next one in its stream's sync array). */
#define HR_EVF_SYNC (1u << 7)

#define HR_SCHED_NONE UINT32_MAX

/* What one synced event does besides its op, on the one slot its block's
 * chain runs through (a realloc keeps its block's slot: sched.c). 32 bytes:
 * a job system reads one per hand-off. */
typedef struct hr_sync {
    uint64_t at;                   /* the event's index in its stream */
    uint32_t wait_slot, wait_seq;  /* wait until seq[slot] >= value (slot NONE: no wait) */
    uint32_t post_slot, post_seq;  /* then store value into seq[slot] (NONE: no post) */
    uint16_t owner;   /* the instance that owns the block it frees/reallocs */
    uint8_t  foreign; /* 1: that owner is another thread's instance */
    uint8_t  xfree;   /* 1: frees/reallocs a block made on another thread */
} hr_sync_t;

_Static_assert(sizeof(hr_sync_t) == 32, "one hand-off record: half a cache line");

/* One recorded thread's part. Its events' ids are slots (above). */
typedef struct hr_stream {
    hr_event_t *ev;     /* its events in trace order (private copies) */
    uint64_t   *ts;     /* their timestamps, or NULL */
    hr_sync_t  *sync;   /* one per HR_EVF_SYNC event, in stream order */
    uint64_t    n, n_sync;
    uint64_t    cap, cap_sync;      /* entries mapped (ev/ts, sync) */
    uint64_t    mem_ops;        /* memory ops (what ns/op divides by) */
    uint64_t    cross_frees;    /* frees/reallocs of blocks made on another thread */
    uint64_t    sync_waits;     /* events that may have to wait (a dependency) */
    int         locked;         /* its instance receives cross-thread calls */
} hr_stream_t;

typedef struct hr_sched {
    uint32_t     n;           /* streams = the trace's threads */
    hr_stream_t *s;
    uint16_t    *owner_end;   /* per slot: owning instance at the end of the trace */
    uint32_t     n_slots;     /* slots the streams use (the slot table's size) */
    uint64_t     cross_frees; /* sum over the streams */
    uint64_t     ts0;         /* first timestamp (pacing) */
    size_t       bytes;       /* harness memory held (for the record) */
} hr_sched_t;

/* Builds the schedule of a validated trace in harness memory (base/hmem.h):
 * nothing comes from malloc. 0, or -1 with err set (out of memory, more than
 * 65 535 threads). */
int hr_sched_build(hr_sched_t *s, const hr_trace_t *t, hr_error_t *err);
void hr_sched_free(hr_sched_t *s);

#endif
