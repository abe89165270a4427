/* The packed event form: a validated trace's events in about 4-6 bytes each
 * instead of hr_event_t's 24 (plus 8 for a timestamp), for traces too large
 * to hold decoded in every replay process (the target: a 1 G-event trace on
 * `-a all` within 24 GB).
 *
 * One record per event, in order:
 *   byte h   bits 0-3: op; bit 4: aux follows; bit 5: align follows;
 *            bit 6: flags byte follows; bit 7: thread follows
 *   [thread] varint, only when it differs from the previous event's
 *   id       memory and pool ops: zig-zag delta from the previous such id;
 *            other ops: the id as a varint (0 for them all in practice)
 *   size     varint (frames: the frame number)
 *   [aux]    reallocs: zig-zag delta from the id; others: varint (only when
 *            aux != 0)
 *   [align]  one byte, log2 (only when align != 0)
 *   [flags]  one byte (only when flags != 0)
 *   [ts]     zig-zag delta from the previous timestamp, when the trace has
 *            timestamps
 * The form is internal to one run (never a file format): it is written by the
 * replay parent from an already validated trace, so the reader checks
 * nothing but the end of its buffer. The reader never calls malloc: replay
 * workers decode windows of it into harness memory (replay/engine_int.h). */
#ifndef HR_TRACE_PACKED_H
#define HR_TRACE_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

/* Bytes one event can take at most (h, five varints, align, flags). */
#define HR_PACK_MAX_EVENT 56

/* The writer's running state: what the next record is coded against. */
typedef struct hr_pack_state {
    uint32_t prev_id;
    uint32_t thread;
    uint64_t prev_ts;
    int      has_ts;
} hr_pack_state_t;

/* A fresh state for a trace with (1) or without (0) timestamps. */
hr_pack_state_t hr_pack_state_default(int has_ts);

/* Writes ev (and ts, when the state has timestamps) at p, which has room for
 * HR_PACK_MAX_EVENT bytes; returns the bytes written. */
size_t hr_pack_event(hr_pack_state_t *st, const hr_event_t *ev, uint64_t ts, uint8_t *p);

/* A reader over [p, end). */
typedef struct hr_unpack {
    const uint8_t  *p, *end;
    hr_pack_state_t st;
    uint64_t        index; /* events read so far */
} hr_unpack_t;

void hr_unpack_start(hr_unpack_t *u, const uint8_t *buf, size_t len, int has_ts);

/* Decodes up to cap events into evs (and their timestamps into ts, when ts
 * is not NULL and the trace has them); returns the count, 0 at the end, or
 * -1 when a record runs past the end (a damaged buffer). */
long hr_unpack_next(hr_unpack_t *u, hr_event_t *evs, uint64_t *ts, size_t cap);

/* The event at index i (decoded from the start: for error messages only).
 * 0, or -1 when the buffer holds no such event. */
int hr_unpack_at(const uint8_t *buf, size_t len, int has_ts, uint64_t i, hr_event_t *ev,
                 uint64_t *ts);

#endif
