/* The result object of one replay (docs/REPORT_SCHEMA.md, docs/METRICS.md). */
#include <math.h>
#include <string.h>

#include "replay/engine_int.h"
#include "base/sysinfo.h"

void hr_result_head(hr_emit_t *em, const char *trace, const char *digest, const char *spec,
                    const char *status, const hr_replay_options_t *opt) {
    hr_emit_obj_begin(em, NULL);
    hr_emit_str(em, "trace", trace);
    if (digest)
        hr_emit_str(em, "trace_digest", digest);
    hr_emit_str(em, "allocator", spec);
    hr_emit_str(em, "status", status);
    hr_emit_u64(em, "runs", 1);
    hr_emit_str(em, "touch", hr_touch_name(opt->touch));
    if (opt->library)
        hr_emit_str(em, "library", opt->library);
}

static void emit_head(const result_t *res, hr_emit_t *em, const char *status) {
    hr_result_head(em, res->trace_name, res->digest, res->spec, status, res->opt);
}

void emit_error(const result_t *res, hr_emit_t *em, const char *status, const char *msg) {
    emit_head(res, em, status);
    hr_emit_str(em, "error", msg);
    hr_emit_obj_end(em);
}


static void emit_ops(const hr_trace_t *t, hr_emit_t *em) {
    hr_emit_obj_begin(em, "ops");
    hr_emit_u64(em, "total", hr_trace_mem_ops(t));
    hr_emit_u64(em, "events", t->n_events);
#define HR_EMIT_OPCOUNT_(e, c, txt, f1, f2, f3, o, cls, key) hr_emit_u64(em, key, t->op_counts[c]);
    HR_OP_LIST(HR_EMIT_OPCOUNT_)
#undef HR_EMIT_OPCOUNT_
    hr_emit_obj_end(em);
}

static double cyc_ns(uint64_t cyc) { return (double)cyc * 1e9 / hr_cycle_hz(); }

static void emit_time(const result_t *res, hr_emit_t *em) {
    double wall = (double)res->tm.wall_ns / 1e9;
    uint64_t ops = hr_trace_mem_ops(res->t);
    hr_emit_obj_begin(em, "time");
    hr_emit_f64(em, "wall_s", wall);
    hr_emit_f64(em, "wall_s_min", wall);
    hr_emit_f64(em, "wall_s_max", wall);
    hr_emit_f64(em, "cpu_s", (double)res->tm.cpu_ns / 1e9);
    hr_emit_f64(em, "ops_per_s", wall > 0 ? (double)ops / wall : NAN);
    hr_emit_f64(em, "ns_per_op", ops ? (double)res->tm.wall_ns / (double)ops : NAN);
    hr_emit_obj_end(em);
}

static void emit_latency(const measure_t *m, hr_emit_t *em) {
    static const struct { const char *key; int op; } per[] = {
        {"alloc", HR_OP_ALLOC}, {"calloc", HR_OP_CALLOC},
        {"realloc", HR_OP_REALLOC}, {"free", HR_OP_FREE}};
    hr_emit_obj_begin(em, "ns_per_op");
    for (size_t k = 0; k < sizeof per / sizeof per[0]; k++) {
        uint64_t n = m->cnt[per[k].op];
        if (n)
            hr_emit_f64(em, per[k].key, cyc_ns(m->cyc[per[k].op]) / (double)n);
        else
            hr_emit_null(em, per[k].key);
    }
    hr_emit_obj_end(em);
    hr_emit_obj_begin(em, "latency_ns");
    hr_emit_f64(em, "p50", cyc_ns(hr_lat_quantile(&m->lat, 0.50)));
    hr_emit_f64(em, "p90", cyc_ns(hr_lat_quantile(&m->lat, 0.90)));
    hr_emit_f64(em, "p99", cyc_ns(hr_lat_quantile(&m->lat, 0.99)));
    hr_emit_f64(em, "p999", cyc_ns(hr_lat_quantile(&m->lat, 0.999)));
    hr_emit_f64(em, "max", cyc_ns(m->lat.max));
    hr_emit_u64(em, "samples", m->lat.n);
    hr_emit_obj_end(em);
    if (m->frames) {
        hr_emit_obj_begin(em, "worst_frame");
        hr_emit_u64(em, "index", m->worst_frame_index);
        hr_emit_f64(em, "ns", cyc_ns(m->worst_frame_cyc));
        hr_emit_u64(em, "frames", m->frames);
        hr_emit_obj_end(em);
    } else {
        hr_emit_null(em, "worst_frame");
    }
}

static const char *fp_source(const result_t *res) {
    if (res->be->footprint)
        return "exact";
    if (res->m && res->m->ext_ok)
        return res->ext->source;
    return "rss";
}

static double ratio_over(uint64_t num, uint64_t den) {
    return den ? ((double)num - (double)den) / (double)den : NAN;
}

static void emit_memory(const result_t *res, hr_emit_t *em) {
    const measure_t *m = res->m;
    hr_emit_obj_begin(em, "memory");
    hr_emit_u64(em, "peak_live", m->peak_live);
    hr_emit_u64(em, "peak_footprint", m->peak_fp);
    hr_emit_str(em, "footprint_source", fp_source(res));
    hr_emit_u64(em, "footprint_at_peak_live", m->fp_at_peak_live);
    hr_emit_u64(em, "live_at_peak_footprint", m->live_at_peak_fp);
    hr_emit_u64(em, "peak_rss_above_baseline",
                m->peak_rss > m->rss_base ? m->peak_rss - m->rss_base : 0);
    hr_emit_u64(em, "rss_baseline", m->rss_base);
    if (m->ext_ok)
        hr_emit_u64(em, "harness_bytes", m->ext_base);
    hr_emit_f64(em, "frag_jw4", ratio_over(m->peak_fp, m->peak_live));
    hr_emit_f64(em, "frag_jw3", ratio_over(m->peak_fp, m->live_at_peak_fp));
    if (res->be->usable_size)
        hr_emit_i64(em, "internal_slop", m->slop_at_peak_live);
    else
        hr_emit_null(em, "internal_slop");
    hr_emit_obj_end(em);
}

static void emit_budget(const result_t *res, hr_emit_t *em) {
    const measure_t *m = res->m;
    if (!res->opt->budget)
        return;
    hr_emit_obj_begin(em, "budget");
    hr_emit_u64(em, "bytes", res->opt->budget);
    if (m->have_budget_fail)
        hr_emit_u64(em, "first_failure_op", m->budget_fail_at);
    else
        hr_emit_null(em, "first_failure_op");
    hr_emit_obj_end(em);
}

void emit_result(const result_t *res, hr_emit_t *em) {
    emit_head(res, em, "ok");
    emit_ops(res->t, em);
    emit_time(res, em);
    emit_latency(res->m, em);
    emit_memory(res, em);
    emit_budget(res, em);
    hr_emit_u64(em, "failed_allocs", res->m->failed);
    if (res->m->failed)
        hr_emit_u64(em, "first_failed_op", res->m->first_failed);
    hr_emit_obj_begin(em, "native");
    if (res->be->stats && res->r->inst)
        res->be->stats(res->r->inst, em);
    if (res->ext && res->ext->emit)
        res->ext->emit(em);
    hr_emit_obj_end(em);
    hr_emit_obj_end(em);
}
