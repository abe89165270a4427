/* heapreplay — one trace's threads apart (`replay --thread`, `info
 * --thread`): the events of the chosen threads, with what that does to the
 * blocks shared with the others (docs/METRICS.md, "Threads of a trace"). */
#ifndef HEAPREPLAY_THREADSEL_H
#define HEAPREPLAY_THREADSEL_H

#include <stdint.h>

#include "base/error.h"
#include "trace/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most thread ids one selection names. */
#define HR_THREADSEL_MAX 64

typedef struct hr_threadsel {
    uint32_t n;                     /* 0: every thread (no selection) */
    uint32_t ids[HR_THREADSEL_MAX]; /* recorded thread indices */
} hr_threadsel_t;

/* Parses "ID[,ID...]" (decimal thread indices, 0..65535). 0, or -1 with a
 * one-line message in err naming the bad item. */
int hr_threadsel_parse(const char *s, hr_threadsel_t *sel, hr_error_t *err);

/* Keeps the chosen threads of a validated, decoded trace (before its pools
 * are lowered). A block belongs to the thread that made it, and a realloc's
 * new block to the old one's owner. Kept: every event of a chosen thread,
 * except its frees of blocks owned by other threads (dropped: their allocs
 * are gone) and its reallocs of them (they become an alloc of the new
 * block, which the chosen thread then owns); and the frees and reallocs
 * other threads do on the chosen threads' blocks, on their own thread as
 * recorded, so those blocks live exactly as long as before and the frees
 * stay cross-thread. Every other event is dropped, the other threads'
 * frames, marks, heap ops and hints included. Thread indices are kept (not
 * renumbered). Revalidates. Returns the events kept, or -1 with err (a
 * thread the trace does not have, out of memory). */
int64_t hr_threadsel_apply(hr_trace_t *t, const hr_threadsel_t *sel, const char *name,
                           hr_error_t *err);

/* One recorded thread of a trace (`info --thread`). */
typedef struct hr_thread_stat {
    uint64_t events;     /* every event of the thread */
    uint64_t blocks;     /* blocks it made (alloc, calloc, realloc, palloc, prealloc) */
    uint64_t frees;      /* blocks it ended (free, pfree, a realloc's old block) */
    uint64_t xfrees;     /* of those, blocks another thread made */
    uint64_t xfreed;     /* its blocks another thread ended */
    uint64_t frames;     /* main-stream frame marks on it */
} hr_thread_stat_t;

/* The threads of a validated, decoded trace: *out (t->n_threads entries,
 * malloc'd). 0, or -1 out of memory or a packed trace. */
int hr_thread_stats(const hr_trace_t *t, hr_thread_stat_t **out);

#ifdef __cplusplus
}
#endif
#endif
