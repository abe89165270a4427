/* A trace file read straight into the replay's packed shared form
 * (share_file.h): the scan of `heapreplay info` (scan.c: slices, validated,
 * digest from the bytes) with a sink that packs every slice into the memfd
 * (shared.c). The process never holds the decoded events of a canonical
 * binary file; other inputs are decoded whole first, as scan.c does. */
#include "trace/share_file.h"

#include <unistd.h>

#include "trace/format.h"
#include "trace/idtab.h"
#include "trace/shared.h"

static uint64_t le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

int hr_trace_peek(const char *path, uint64_t *n_events) {
    uint64_t size;
    int fd = hr_trace_open_plain_binary(path, &size);
    if (fd < 0)
        return -1;
    uint8_t h[HR_BIN_HEADER_SIZE];
    ssize_t k = pread(fd, h, sizeof h, 0);
    close(fd);
    if (k != (ssize_t)sizeof h)
        return -1;
    *n_events = le(h + 16, 8);
    return 0;
}

/* The sink: a fresh writer at each begin (scan.c starts over when it reads
 * a non-canonical file whole). */
typedef struct pack_sink {
    hr_share_pack_t *w;
} pack_sink_t;

static int sink_begin(void *ctx, uint64_t n_events, uint32_t n_ids, uint32_t flags,
                      hr_error_t *err) {
    pack_sink_t *ps = ctx;
    hr_share_pack_abort(ps->w);
    ps->w = hr_share_pack_begin(flags, n_ids > HR_IDTAB_DENSE_MAX(n_events), err);
    return ps->w ? 0 : -1;
}

static int sink_slice(void *ctx, const hr_event_t *evs, const uint64_t *ts, size_t n,
                      hr_error_t *err) {
    pack_sink_t *ps = ctx;
    return hr_share_pack_events(ps->w, evs, ts, n, err);
}

int hr_trace_share_file(const char *path, hr_trace_summary_t *s, hr_error_t *err) {
    pack_sink_t ps = {NULL};
    hr_scan_sink_t sink = {sink_begin, sink_slice, &ps};
    if (hr_trace_scan_file_to(path, s, &sink, err) != 0) {
        hr_share_pack_abort(ps.w);
        return -1;
    }
    if (!ps.w) { /* no begin: cannot happen after a successful scan */
        hr_error_set(err, "%s: the trace was not shared", path);
        hr_trace_summary_free(s);
        return -1;
    }
    int fd = hr_share_pack_end(ps.w, &s->t, s->digest, err);
    if (fd < 0)
        hr_trace_summary_free(s);
    return fd;
}
