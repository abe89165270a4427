/* A trace file shared with the replay processes in the packed form
 * (trace/packed.h, trace/shared.h) without ever holding its decoded events:
 * the resident memory of a replay then grows by ~5 bytes per event for the
 * whole process tree instead of 24-48, so that billion-event traces replay
 * within an ordinary machine's memory. */
#ifndef HR_TRACE_SHARE_FILE_H
#define HR_TRACE_SHARE_FILE_H

#include "trace/scan.h"

/* The event count a plain (uncompressed) binary trace file's header claims,
 * without reading on; -1 for anything else (text, compressed, stdin, a
 * FIFO, a missing file: the reader then says why). */
int hr_trace_peek(const char *path, uint64_t *n_events);

/* Reads and validates path as hr_trace_read_file does (same checks and
 * messages) and packs its events into a sealed memfd for hr_trace_map.
 * Returns the descriptor with s summarising the trace (counts, strings,
 * program time, digest of the trace as read; free with
 * hr_trace_summary_free), or -1 with err. */
int hr_trace_share_file(const char *path, hr_trace_summary_t *s, hr_error_t *err);

#endif
