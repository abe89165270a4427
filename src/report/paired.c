/* Paired A/B statistics of one report (paired.h). */
#include "report/paired.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "base/signrank.h"
#include "report/access.h"
#include "report/stats.h"

/* The figures tested, the first gated (warm laps: a median over many laps,
 * the steadier figure), the cold lap's for information. */
static const hr_metric_id_t paired_ids[] = {HR_M_NS_PER_OP, HR_M_COLD_NS_PER_OP};

static const hr_result_t *row_of(const hr_report_view_t *v, const char *trace, const char *alloc) {
    for (size_t i = 0; i < v->n; i++)
        if (hr_result_of_trace(&v->rows[i], trace) && v->rows[i].allocator &&
            strcmp(v->rows[i].allocator, alloc) == 0)
            return &v->rows[i];
    return NULL;
}

/* One figure of one trace: its ratios, median, interval and verdict. Returns
 * 1 for a gated regression. */
static int figure(const hr_result_t *ra, const hr_result_t *rb, hr_metric_id_t id, int gated,
                  double tol, hr_json_t *out) {
    hr_spread_t a, b;
    hr_spread_of(ra, id, &a);
    hr_spread_of(rb, id, &b);
    hr_json_t *fig = hr_json_new_object(), *ratios = hr_json_new_array();
    double x[HR_NOISE_MAX_SAMPLES];
    int n = 0, bad = 0;
    for (int i = 0; a.nv == b.nv && i < a.nv; i++)
        if (a.v[i] > 0 && b.v[i] > 0 && isfinite(b.v[i])) {
            hr_json_push(ratios, hr_json_new_num(b.v[i] / a.v[i]));
            x[n++] = log(b.v[i] / a.v[i]);
        }
    double est, lo, hi, conf;
    const char *verdict = a.nv != b.nv ? "unpaired (a sample failed)" : "too few pairs";
    hr_json_set(fig, "metric", hr_json_new_str(hr_metrics[id].path));
    hr_json_set(fig, "ratios", ratios);
    if (hr_signrank_hl(x, n, &est, &lo, &hi, &conf) == 0) { /* on log ratios */
        est = exp(est), lo = exp(lo), hi = exp(hi);
        bad = est > 1 + tol / 100 && lo > 1;
        verdict = bad ? "REGRESSION" : est < 1 - tol / 100 && hi < 1 ? "improved" : "ok";
        hr_json_set(fig, "ratio", hr_json_new_num(est));
        hr_json_set(fig, "lo", hr_json_new_num(lo));
        hr_json_set(fig, "hi", hr_json_new_num(hi));
        hr_json_set(fig, "confidence", hr_json_new_num(conf));
    }
    hr_json_set(fig, "verdict", hr_json_new_str(verdict));
    hr_json_set(fig, "gated", hr_json_new_bool(gated));
    hr_json_push(out, fig);
    return gated && bad;
}

hr_json_t *hr_paired_section(const hr_json_t *doc, const char *a, const char *b, double tol,
                             hr_error_t *err) {
    hr_report_view_t v;
    if (hr_report_view_init(&v, doc) < 0) {
        hr_error_set(err, "out of memory");
        return NULL;
    }
    hr_json_t *sec = hr_json_new_object(), *traces = hr_json_new_array();
    int regressions = 0, matched = 0;
    for (int t = 0; t < v.ntraces; t++) {
        const hr_result_t *ra = row_of(&v, v.traces[t], a), *rb = row_of(&v, v.traces[t], b);
        if (!ra || !rb)
            continue;
        hr_json_t *tr = hr_json_new_object(), *figs = hr_json_new_array();
        hr_json_set(tr, "trace_name", hr_json_new_str(v.traces[t]));
        for (size_t i = 0; i < sizeof paired_ids / sizeof paired_ids[0]; i++)
            regressions += figure(ra, rb, paired_ids[i], i == 0, tol, figs);
        hr_json_set(tr, "figures", figs);
        hr_json_push(traces, tr);
        matched++;
    }
    hr_report_view_free(&v);
    if (!matched) {
        hr_json_free(sec);
        hr_json_free(traces);
        hr_error_set(err, "--pair: no trace has a row of both %s and %s", a, b);
        return NULL;
    }
    hr_json_set(sec, "a", hr_json_new_str(a));
    hr_json_set(sec, "b", hr_json_new_str(b));
    hr_json_set(sec, "tolerance_pct", hr_json_new_num(tol));
    hr_json_set(sec, "traces", traces);
    hr_json_set(sec, "regressions", hr_json_new_num(regressions));
    return sec;
}

int hr_paired_regressions(const hr_json_t *section) {
    return (int)hr_json_num(hr_json_get(section, "regressions"), 0);
}

static void print_figure(const hr_json_t *f, FILE *out) {
    const hr_metric_t *m = hr_metric_by_path(hr_json_str(hr_json_get(f, "metric")));
    const char *label = m && m->column ? m->column : hr_json_str(hr_json_get(f, "metric"));
    int n = (int)hr_json_len(hr_json_get(f, "ratios"));
    const char *verdict = hr_json_str(hr_json_get(f, "verdict"));
    const char *role = hr_json_is_true(hr_json_get(f, "gated")) ? "" : " (information)";
    if (!hr_json_get(f, "ratio")) {
        fprintf(out, "  %-11s %d pairs: %s%s\n", label, n, verdict, role);
        return;
    }
    fprintf(out, "  %-11s ratio %.3f, %.1f%% interval [%.3f, %.3f], %d pairs: %s%s\n",
            label, hr_json_num(hr_json_get(f, "ratio"), NAN),
            100 * hr_json_num(hr_json_get(f, "confidence"), NAN),
            hr_json_num(hr_json_get(f, "lo"), NAN), hr_json_num(hr_json_get(f, "hi"), NAN), n,
            verdict, role);
}

void hr_paired_print(const hr_json_t *section, FILE *out) {
    const hr_json_t *traces = hr_json_get(section, "traces");
    fprintf(out, "\npaired: %s over %s, sample by sample (interleaved processes)\n",
            hr_json_str(hr_json_get(section, "b")), hr_json_str(hr_json_get(section, "a")));
    for (size_t t = 0; t < hr_json_len(traces); t++) {
        const hr_json_t *tr = hr_json_at(traces, t), *figs = hr_json_get(tr, "figures");
        fprintf(out, "%s\n", hr_json_str(hr_json_get(tr, "trace_name")));
        for (size_t i = 0; i < hr_json_len(figs); i++)
            print_figure(hr_json_at(figs, i), out);
    }
    int reg = hr_paired_regressions(section);
    fprintf(out, "paired: %zu trace%s, %d regression%s (ratio > 1 + %g%% and interval above "
            "1): %s\n", hr_json_len(traces), hr_json_len(traces) == 1 ? "" : "s", reg,
            reg == 1 ? "" : "s", hr_json_num(hr_json_get(section, "tolerance_pct"), 0),
            reg ? "FAIL" : "PASS");
}
