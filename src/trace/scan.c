/* What a trace file holds without holding its events (heapreplay info).
 *
 * A binary trace is decoded in slices of SLICE events: each slice is
 * validated (hr_validator_t), counted, and re-encoded by the canonical
 * encoder; when every slice re-encodes to the file's own bytes, the string
 * table is in canonical order (first use, no duplicate, none unused), no
 * record was skipped and the header is the current writer's (minor 2 or 3,
 * 64 bytes; or 1.4, 112 bytes with the program time, which the digest
 * leaves out), the file *is* the canonical encoding, so the digest is the
 * FNV-1a of its bytes: the same value hr_trace_digest computes from the decoded
 * events, at the cost of one pass and no event array. Memory: the file's
 * bytes, the slices, and the per-id tables (by the ids used).
 *
 * Anything else (text, a file an older or foreign writer produced, a
 * permuted string table) is read whole and summarised from the events. */
#include "trace/scan.h"

#include <stdlib.h>
#include <string.h>

#define SLICE 65536

#define FNV_BASIS 0xcbf29ce484222325ull

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Per-string push/mark counts and the timestamps' ends, over one slice. */
static void count_slice(hr_trace_summary_t *s, const hr_event_t *evs, const uint64_t *ts,
                        size_t n, uint64_t done) {
    for (size_t i = 0; i < n; i++) {
        const hr_event_t *ev = &evs[i];
        if (ev->op == HR_OP_HEAP_PUSH)
            s->pushes[ev->aux]++;
        else if (ev->op == HR_OP_MARK)
            s->marks[ev->aux]++;
        else if (ev->op == HR_OP_FRAME && (ev->flags & HR_EVF_HAS_OPT))
            s->named_frames++;
    }
    if (ts && n) {
        if (done == 0)
            s->first_ts = ts[0];
        s->last_ts = ts[n - 1];
    }
}

/* 1 when the string table holds no two equal names (a small table is
 * compared pairwise; a large one is taken as not canonical: the caller
 * then uses the whole-trace path, which handles it). */
static int distinct_names(const hr_trace_t *t) {
    if (t->n_strings > 1024)
        return 0;
    for (uint32_t i = 0; i < t->n_strings; i++)
        for (uint32_t j = i + 1; j < t->n_strings; j++)
            if (strcmp(t->strings[i], t->strings[j]) == 0)
                return 0;
    return 1;
}

typedef struct slices {
    hr_event_t     *evs;
    uint64_t       *ts;
    uint8_t        *enc;
    hr_validator_t *vd;
    hr_enc_stream_t es;
    int             es_ok;
} slices_t;

static void slices_free(slices_t *sl) {
    free(sl->evs);
    free(sl->ts);
    free(sl->enc);
    hr_validator_free(sl->vd);
    if (sl->es_ok)
        hr_enc_stream_free(&sl->es);
}

/* The sliced pass. Returns 0 (summary done, digest set), 1 (valid so far
 * but not canonical: use the whole-trace path) or -1 (bad trace, err set). */
static int scan_binary(const uint8_t *buf, size_t len, const char *name, hr_trace_summary_t *s,
                       hr_error_t *err) {
    hr_bin_layout_t lay;
    slices_t sl = {0};
    hr_bin_scan_t *bs = hr_bin_scan_open(buf, len, name, &s->t, &lay, err);
    if (!bs)
        return -1;
    int ts = (s->t.flags & HR_TRACEF_TIMESTAMPS) != 0, rc = -1;
    /* Our encoder writes the lowest minor that holds the events (binary_enc.c):
     * 1.3 only with pool ops or named frames; `needs_new` says which it is;
     * 1.4 with the program-time block (112 bytes of header) whatever the events. */
    int prog = s->t.program.runs != 0;
    int canonical = prog ? lay.minor == HR_BIN_MINOR &&
                               lay.header_size == HR_BIN_HEADER_SIZE + HR_BIN_PROGRAM_SIZE
                         : (lay.minor == HR_BIN_MINOR_POOLS || lay.minor == HR_BIN_MINOR_PLAIN) &&
                               lay.header_size == HR_BIN_HEADER_SIZE;
    int needs_new = 0;
    uint32_t next_str = 0;
    uint64_t done = 0, skipped = 0;
    sl.evs = malloc(SLICE * sizeof *sl.evs);
    sl.ts = ts ? malloc(SLICE * sizeof *sl.ts) : NULL;
    sl.enc = malloc((size_t)SLICE * HR_REC_MAX);
    sl.vd = hr_validator_new(lay.n_events, name);
    s->pushes = calloc(s->t.n_strings + 1, sizeof *s->pushes);
    s->marks = calloc(s->t.n_strings + 1, sizeof *s->marks);
    sl.es_ok = hr_enc_stream_init(&sl.es, lay.n_ids, lay.n_events) == 0;
    if (!sl.evs || (ts && !sl.ts) || !sl.enc || !sl.vd || !s->pushes || !s->marks || !sl.es_ok) {
        hr_error_set(err, "%s: out of memory", name);
        hr_bin_scan_abort(bs);
        goto out;
    }
    /* The whole-trace reader decodes everything before it validates: after a
     * validation error keep decoding, so that a later decoding error wins as
     * it does there (same message either way). */
    hr_error_t verr = {{0}};
    int vfailed = 0;
    const uint8_t *from = lay.records, *to;
    for (;;) {
        long k = hr_bin_scan_next(bs, sl.evs, sl.ts, SLICE, &to);
        if (k < 0) {
            hr_bin_scan_abort(bs);
            goto out;
        }
        if (k == 0)
            break;
        if (!vfailed && hr_validator_step(sl.vd, sl.evs, (size_t)k, (const char *const *)s->t.strings,
                                        s->t.n_strings, &verr))
            vfailed = 1;
        if (vfailed)
            continue;
        count_slice(s, sl.evs, sl.ts, (size_t)k, done);
        for (long i = 0; canonical && i < k; i++) {
            needs_new |= hr_op_is_pool(sl.evs[i].op) ||
                         (sl.evs[i].op == HR_OP_FRAME && (sl.evs[i].flags & HR_EVF_HAS_OPT));
            if (hr_event_has_str(&sl.evs[i]) && sl.evs[i].aux >= next_str)
                canonical = sl.evs[i].aux == next_str++;
        }
        if (canonical) {
            long m = hr_enc_stream_put(&sl.es, sl.evs, sl.ts, (size_t)k, sl.enc);
            canonical = m == to - from && memcmp(sl.enc, from, (size_t)m) == 0;
        }
        done += (uint64_t)k;
        from = to;
    }
    if (vfailed) {
        if (hr_bin_scan_close(bs, NULL, NULL) == 0 && err)
            *err = verr;
        goto out;
    }
    hr_validator_result(sl.vd, &s->t);
    s->t.n_events = done;
    if (hr_bin_scan_close(bs, &s->t, &skipped) != 0)
        goto out;
    unsigned minor = needs_new ? HR_BIN_MINOR_POOLS : HR_BIN_MINOR_PLAIN;
    canonical = canonical && !skipped && next_str == s->t.n_strings && distinct_names(&s->t) &&
                (prog || lay.minor == minor);
    rc = 1;
    if (canonical) {
        /* The digest leaves the program time out (io.c): hash the header
         * the events alone would have, then the rest of the file. */
        uint8_t hdr[HR_BIN_HEADER_SIZE];
        memcpy(hdr, buf, sizeof hdr);
        if (prog) {
            hdr[10] = (uint8_t)minor;
            hdr[11] = 0;
            hdr[36] = HR_BIN_HEADER_SIZE;
            hdr[37] = hdr[38] = hdr[39] = 0;
        }
        uint64_t h = fnv1a(FNV_BASIS, hdr, sizeof hdr);
        h = fnv1a(h, buf + lay.header_size, len - lay.header_size);
        snprintf(s->digest, sizeof s->digest, "%016llx", (unsigned long long)h);
        rc = 0;
    }
out:
    slices_free(&sl);
    return rc;
}

/* The whole-trace path: decode everything, summarise, drop the events. */
static int scan_whole(const uint8_t *buf, size_t len, const char *name, hr_format_t fmt,
                      hr_trace_summary_t *s, hr_error_t *err) {
    hr_trace_summary_free(s);
    hr_trace_t t;
    if (hr_trace_read_mem(buf ? (const void *)buf : "", len, name, fmt, &t, err) != 0)
        return -1;
    hr_trace_digest(&t, s->digest);
    s->pushes = calloc(t.n_strings + 1, sizeof *s->pushes);
    s->marks = calloc(t.n_strings + 1, sizeof *s->marks);
    if (!s->pushes || !s->marks) {
        hr_error_set(err, "%s: out of memory", name);
        hr_trace_free(&t);
        return -1;
    }
    count_slice(s, t.events, t.ts, t.n_events, 0);
    free(t.events);
    free(t.ts);
    t.events = NULL;
    t.ts = NULL;
    t.cap_events = t.n_events; /* the count stays; the events are gone */
    s->t = t;
    return 0;
}

int hr_trace_scan_file(const char *path, hr_trace_summary_t *s, hr_error_t *err) {
    uint8_t *buf;
    size_t len;
    const char *name;
    hr_format_t fmt = HR_FMT_AUTO;
    memset(s, 0, sizeof *s);
    hr_trace_init(&s->t);
    if (hr_trace_read_bytes(path, &buf, &len, &fmt, &name, err) != 0)
        return -1;
    int rc = fmt == HR_FMT_BINARY ? scan_binary(buf, len, name, s, err) : 1;
    s->streamed = rc == 0;
    if (rc == 1)
        rc = scan_whole(buf, len, name, fmt, s, err);
    free(buf);
    if (rc != 0)
        hr_trace_summary_free(s);
    return rc;
}

void hr_trace_summary_free(hr_trace_summary_t *s) {
    hr_trace_free(&s->t);
    free(s->pushes);
    free(s->marks);
    s->pushes = s->marks = NULL;
    s->first_ts = s->last_ts = 0;
    s->named_frames = 0;
    s->digest[0] = 0;
    hr_trace_init(&s->t);
}
