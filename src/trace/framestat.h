/* heapreplay — per-frame figures of a trace (its own, the same for every
 * allocator): how much the program allocates per play frame and how long
 * those blocks live (lifetime.h). docs/METRICS.md, "Frames and the load".
 *
 * The load is every event before the first main-stream frame mark; play
 * frame k is the events after the k-th mark up to and including the
 * (k+1)-th, named by that closing mark's number (the frame op's NUM, the
 * program's own numbering). Events after the last mark close no frame and
 * are in no play frame's figures (as in the replay's frame times). */
#ifndef HEAPREPLAY_FRAMESTAT_H
#define HEAPREPLAY_FRAMESTAT_H

#include <stdint.h>

#include "base/error.h"
#include "base/json.h"
#include "trace/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One per-frame figure over the play frames. */
typedef struct hr_frame_dist {
    double   mean, p99;  /* p99: nearest rank */
    uint64_t max;
    uint64_t max_frame;  /* the first play frame with the max, by its number */
} hr_frame_dist_t;

typedef struct hr_framestat {
    uint64_t count;      /* main-stream frame marks */
    uint64_t play_count; /* play frames: count - 1 (0 without frames) */
    hr_frame_dist_t allocs, bytes; /* blocks made (alloc, calloc, realloc,
                                    * palloc, prealloc) and their bytes */
    /* Of the blocks made after the load (the lifetime classes summed):
     * freed in the same frame, the next, later, never; shares 0..1, NAN
     * when no block was made after the load. */
    double freed_same, freed_next, freed_later, freed_never;
    /* The load. */
    uint64_t load_events, load_allocs, load_bytes, load_peak_live;
} hr_framestat_t;

/* The figures of a validated trace whose events are in memory (t->events),
 * before hr_trace_lower_pools (named frames are then still frames of their
 * stream). Returns 1 with *out filled when the trace has main-stream
 * frames, 0 when it has none (*out zeroed), -1 with err (out of memory, a
 * packed trace). */
int hr_framestat_compute(const hr_trace_t *t, hr_framestat_t *out, hr_error_t *err);

/* The report's "frames" object of these figures (docs/REPORT_SCHEMA.md);
 * NULL when out of memory. */
hr_json_t *hr_framestat_json(const hr_framestat_t *fs);

#ifdef __cplusplus
}
#endif
#endif
