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

#endif
