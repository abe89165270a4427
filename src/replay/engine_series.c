/* The "series" object of a measured result (docs/REPORT_SCHEMA.md "series",
 * docs/METRICS.md "Series"): the memory series and the frame series the
 * instrumented lap recorded (series.h), and the latency histogram's
 * non-empty buckets. Written after the lap, from harness memory; arrays of
 * one object have equal lengths. */
#include <math.h>

#include "base/sysinfo.h"
#include "replay/engine_int.h"

static double cyc_ns(double cyc) { return cyc * 1e9 / hr_cycle_hz(); }

/* Nanoseconds rounded to 1/100: the cycle counter's resolution (< 1 ns)
 * without 17 significant digits per value in the report. */
static double ns_2(double ns) { return round(ns * 100) / 100; }

static void u64_array(hr_emit_t *em, const char *key, const hr_spoint_t *pts, size_t n, int ch) {
    hr_emit_arr_begin(em, key);
    for (size_t i = 0; i < n; i++)
        hr_emit_u64(em, NULL, ch < 0 ? pts[i].event : pts[i].v[ch]);
    hr_emit_arr_end(em);
}

/* Memory against event index: channel 0 live bytes, 1 footprint, 2 RSS
 * above the baseline (only when sampled); time_s from the trace's
 * timestamps, relative to its first event. */
/* time_s of the points (in event order), relative to the first event: one
 * pass over the trace's windows, decoded or packed. */
static void emit_times(const hr_trace_t *t, const hr_spoint_t *pts, size_t n, hr_emit_t *em) {
    hr_evwin_t w;
    uint64_t ts = 0, ts0 = 0;
    size_t k = 0;
    if (hr_evwin_open_ts(&w, t, NULL) != 0)
        return;
    while (k < n && hr_evwin_next(&w) && w.ts) {
        if (w.base == 0)
            ts0 = w.ts[0];
        for (size_t e = 0; e < w.n && k < n; e++) {
            ts = w.ts[e];
            while (k < n && pts[k].event == w.base + e)
                hr_emit_f64(em, NULL, (double)(int64_t)(ts - ts0) / 1e9), k++;
        }
    }
    hr_evwin_close(&w);
    for (; k < n; k++) /* a point past the last event: none in practice */
        hr_emit_f64(em, NULL, (double)(int64_t)(ts - ts0) / 1e9);
}

static void emit_memory(const result_t *res, hr_emit_t *em) {
    const measure_t *m = res->m;
    const hr_spoint_t *pts = m->mem.slot;
    size_t n = m->mem.n_out;
    const hr_trace_t *t = res->t;
    hr_emit_obj_begin(em, "memory");
    hr_emit_u64(em, "points", n);
    u64_array(em, "event", pts, n, -1);
    if ((t->flags & HR_TRACEF_TIMESTAMPS) && hr_trace_has_ts(t) && t->n_events) {
        hr_emit_arr_begin(em, "time_s");
        emit_times(t, pts, n, em);
        hr_emit_arr_end(em);
    }
    u64_array(em, "live_bytes", pts, n, 0);
    u64_array(em, "footprint_bytes", pts, n, 1);
    if (m->rss_sampled)
        u64_array(em, "rss_bytes", pts, n, 2);
    hr_emit_obj_end(em);
}

/* Allocator time per frame (stalled ops left out, as in worst_frame.ns),
 * `per_point` frames per point. */
static void emit_frames(const result_t *res, hr_emit_t *em) {
    const hr_fseries_t *f = &res->m->frame_series;
    size_t n = hr_fseries_points(f);
    hr_emit_obj_begin(em, "frames");
    hr_emit_u64(em, "count", f->count);
    hr_emit_u64(em, "per_point", f->per);
    hr_emit_arr_begin(em, "first_frame");
    for (size_t j = 0; j < n; j++)
        hr_emit_u64(em, NULL, (uint64_t)j * f->per);
    hr_emit_arr_end(em);
    hr_emit_arr_begin(em, "ns_mean");
    for (size_t j = 0; j < n; j++)
        hr_emit_f64(em, NULL, ns_2(cyc_ns((double)f->sum[j] / (double)hr_fseries_n(f, j))));
    hr_emit_arr_end(em);
    hr_emit_arr_begin(em, "ns_min");
    for (size_t j = 0; j < n; j++)
        hr_emit_f64(em, NULL, ns_2(cyc_ns((double)f->min[j])));
    hr_emit_arr_end(em);
    hr_emit_arr_begin(em, "ns_max");
    for (size_t j = 0; j < n; j++)
        hr_emit_f64(em, NULL, ns_2(cyc_ns((double)f->max[j])));
    hr_emit_arr_end(em);
    /* blocks made per frame, the trace's own: the same points (same count) */
    const hr_fseries_t *a = &res->m->alloc_series;
    hr_emit_arr_begin(em, "allocs_mean");
    for (size_t j = 0; j < n; j++)
        hr_emit_f64(em, NULL, round((double)a->sum[j] / (double)hr_fseries_n(a, j) * 100) / 100);
    hr_emit_arr_end(em);
    hr_emit_arr_begin(em, "allocs_max");
    for (size_t j = 0; j < n; j++)
        hr_emit_u64(em, NULL, a->max[j]);
    hr_emit_arr_end(em);
    hr_emit_obj_end(em);
}

/* The latency histogram of the timed ops: each non-empty bucket's upper
 * bound in ns (increasing) and its count. */
static void emit_latency(const result_t *res, hr_emit_t *em) {
    const hr_latency_t *h = &res->m->lat;
    hr_emit_obj_begin(em, "latency");
    hr_emit_arr_begin(em, "le_ns");
    for (unsigned b = 0; b < HR_LAT_BUCKETS; b++)
        if (h->counts[b])
            hr_emit_f64(em, NULL, ns_2(cyc_ns((double)hr_lat_bucket_high(b))));
    hr_emit_arr_end(em);
    hr_emit_arr_begin(em, "count");
    for (unsigned b = 0; b < HR_LAT_BUCKETS; b++)
        if (h->counts[b])
            hr_emit_u64(em, NULL, h->counts[b]);
    hr_emit_arr_end(em);
    hr_emit_obj_end(em);
}

void hr_series_emit(const result_t *res, hr_emit_t *em) {
    hr_emit_obj_begin(em, "series");
    emit_memory(res, em);
    if (res->m->frame_series.count)
        emit_frames(res, em);
    emit_latency(res, em);
    hr_emit_obj_end(em);
}
