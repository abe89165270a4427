/* A decoded trace shared with replay processes through a sealed memfd.
 *
 * The parent decodes a trace once and copies it into one anonymous file
 * (memfd): header, events, timestamps, string table. A replay worker (a
 * re-executed process whose malloc is the allocator under test) maps that
 * file instead of reading and decoding the trace itself, so
 *  - the worker's harness data never passes through the allocator it
 *    measures (a decoded trace freed through glibc raises its mmap and trim
 *    thresholds: the replay would then measure glibc after a history the
 *    harness made, not a fresh program), and
 *  - a trace is decoded once per run, not once per worker.
 * hr_trace_map() builds an hr_trace_t whose arrays point into the read-only
 * mapping; only the string pointer table is written, in harness memory
 * (base/hmem.h). Such a trace is released with hr_trace_unmap(), never
 * hr_trace_free(). */
#ifndef HR_TRACE_SHARED_H
#define HR_TRACE_SHARED_H

#include "base/error.h"
#include "trace/trace.h"

/* A memfd holding the validated trace `t` and its digest; -1 with err set.
 * The descriptor is not close-on-exec: workers inherit it. */
int hr_trace_share(const hr_trace_t *t, const char *digest, hr_error_t *err);

/* Maps a descriptor from hr_trace_share into `t` and copies the digest
 * (17 bytes) into `digest`. Never calls malloc. -1 with err set when the
 * descriptor does not hold a shared trace. */
int hr_trace_map(int fd, hr_trace_t *t, char digest[17], hr_error_t *err);
void hr_trace_unmap(hr_trace_t *t);

/* A memfd holding a trace in the packed form (trace/packed.h), written as
 * the trace is read, so that no process ever holds its decoded events:
 * begin (flags: the trace's, for its timestamps; rename: renumber the ids
 * densely as hr_trace_compact_ids does), events for every validated event
 * in order, then end with the read trace's counts and strings in t (its
 * n_ids is replaced by the renamed count) returns the sealed descriptor,
 * or -1 with err; end and abort free w. hr_trace_map gives a trace whose
 * events are NULL and whose packed records are mapped. */
typedef struct hr_share_pack hr_share_pack_t;
hr_share_pack_t *hr_share_pack_begin(uint32_t flags, int rename, hr_error_t *err);
int hr_share_pack_events(hr_share_pack_t *w, const hr_event_t *evs, const uint64_t *ts, size_t n,
                         hr_error_t *err);
int hr_share_pack_end(hr_share_pack_t *w, const hr_trace_t *t, const char *digest,
                      hr_error_t *err);
void hr_share_pack_abort(hr_share_pack_t *w);

#endif
