/* A trace file's summary without its events (heapreplay info): counts,
 * string table, per-name push and mark counts, timestamps' ends, digest.
 * See scan.c for how a canonical binary trace is read in slices. */
#ifndef HR_TRACE_SCAN_H
#define HR_TRACE_SCAN_H

#include "trace/format.h"

typedef struct hr_trace_summary {
    hr_trace_t t;          /* counts, strings, flags; events NULL, n_events set */
    uint64_t   first_ts, last_ts; /* of the first and last event (timestamps) */
    uint64_t  *pushes;     /* per string: heap pushes naming it */
    uint64_t  *marks;      /* per string: marks naming it */
    uint64_t   named_frames; /* frames of a named stream (hr_frame_named) */
    char       digest[17]; /* hr_trace_digest's value */
    int        streamed;   /* 1: read in slices; 0: decoded whole */
} hr_trace_summary_t;

/* Reads and validates path as hr_trace_read_file does (same checks, same
 * messages) into s. 0, or -1 with err; free s with hr_trace_summary_free. */
int hr_trace_scan_file(const char *path, hr_trace_summary_t *s, hr_error_t *err);
void hr_trace_summary_free(hr_trace_summary_t *s);

/* A read-only descriptor for path when it is a regular file that starts
 * with the binary magic and holds at least a header (a FIFO is never
 * opened: that would wait for a writer), with *size its length; -1 for
 * anything else (stdin, text, compressed, missing). */
int hr_trace_open_plain_binary(const char *path, uint64_t *size);

/* hr_trace_scan_file that also hands every event, in order, to a sink (the
 * replay's packed form is written so, without the whole event array):
 * begin(n_events, n_ids, trace flags) before the first slice, then slice()
 * per group of validated events (ts: NULL without timestamps). begin may be
 * called again when the sliced pass found the file not canonical and the
 * trace is read whole: the sink then starts over. Either returning non-zero
 * (with err set) ends the scan with -1. */
typedef struct hr_scan_sink {
    int (*begin)(void *ctx, uint64_t n_events, uint32_t n_ids, uint32_t flags, hr_error_t *err);
    int (*slice)(void *ctx, const hr_event_t *evs, const uint64_t *ts, size_t n, hr_error_t *err);
    void *ctx;
} hr_scan_sink_t;
int hr_trace_scan_file_to(const char *path, hr_trace_summary_t *s, const hr_scan_sink_t *sink,
                          hr_error_t *err);

#endif
