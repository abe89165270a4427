/* The ranking of a trace and the --detail ranking lines (see ranking.h). */
#include "report/ranking.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "report/access.h"
#include "report/stats.h"

/* Rows of one --detail ranking line. */
#define HR_RANK_LINE_MAX 64

typedef struct ranked {
    const char *name;
    int         unstable;
    hr_spread_t s;
} ranked_t;

static int cmp_center(const void *a, const void *b) {
    double x = ((const ranked_t *)a)->s.center, y = ((const ranked_t *)b)->s.center;
    return x < y ? -1 : x > y;
}

static int cmp_center_desc(const void *a, const void *b) { return cmp_center(b, a); }

/* The ok results of `trace` that have the figure, best first. */
static int collect(const hr_report_view_t *v, const char *trace, const hr_metric_t *m,
                   ranked_t *out) {
    int n = 0;
    for (size_t i = 0; i < v->n && n < HR_RANK_LINE_MAX; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!hr_result_ok(r) || !hr_result_of_trace(r, trace) || hr_result_mostly_fallback(r))
            continue;
        hr_spread_of(r, (hr_metric_id_t)(m - hr_metrics), &out[n].s);
        if (out[n].s.n == 0 || isnan(out[n].s.center))
            continue;
        out[n].name = r->allocator;
        out[n].unstable = r->unstable;
        n++;
    }
    qsort(out, (size_t)n, sizeof *out, (m->flags & HR_MF_HIGHER) ? cmp_center_desc : cmp_center);
    return n;
}

int hr_rank_separated(const hr_spread_t *a, const hr_spread_t *b, int higher) {
    if (a->n < 2 || b->n < 2 || isnan(a->max) || isnan(b->min) || isnan(a->min) || isnan(b->max))
        return -1;
    return higher ? a->min > b->max : a->max < b->min;
}

/* Between a better and a worse neighbour: "<" (">" where higher is better)
 * separated, "≈" overlapping, "?" unknown (a single sample). */
static const char *joiner(const hr_spread_t *a, const hr_spread_t *b, int higher) {
    int sep = hr_rank_separated(a, b, higher);
    return sep < 0 ? "?" : !sep ? "≈" : higher ? ">" : "<";
}

/* One ranking line; values are divided by `scale` (1e6: M ops/s). */
static int rank_line(FILE *out, const hr_report_view_t *v, const char *trace,
                      const hr_metric_t *m, double scale, const char *label, int md) {
    static ranked_t rk[HR_RANK_LINE_MAX];
    int n = collect(v, trace, m, rk), higher = (m->flags & HR_MF_HIGHER) != 0;
    if (n < 2)
        return 0;
    fprintf(out, "%s%s: ", md ? "- " : "  ", label);
    for (int i = 0; i < n; i++) {
        if (i)
            fprintf(out, " %s ", joiner(&rk[i - 1].s, &rk[i].s, higher));
        fprintf(out, "%s%s %.3g", rk[i].unstable ? "~" : "", rk[i].name,
                rk[i].s.center / scale);
    }
    fputc('\n', out);
    return 1;
}

/* The first ok result of `trace` replayed on its recorded threads, or NULL. */
static const hr_result_t *threaded_result(const hr_report_view_t *v, const char *trace) {
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!hr_result_ok(r) || !hr_result_of_trace(r, trace))
            continue;
        if (r->m.THR_MODE && strcmp(r->m.THR_MODE, "recorded") == 0)
            return r;
    }
    return NULL;
}

/* Threaded traces: how they were replayed, the ranking by the whole
 * process's throughput (contention shows there, not in CPU per op), and each
 * allocator's per-thread ns/op. */
int hr_report_threads(FILE *out, const hr_report_view_t *v, const char *trace, int md) {
    const hr_result_t *d = threaded_result(v, trace);
    if (!d)
        return 0;
    const char *pace = d->m.THR_PACE;
    fprintf(out, "%sthreads: %.0f recorded threads, each on its own OS thread; %.0f cross-thread "
            "frees; pacing %s\n", md ? "- " : "  ", d->m.THR_N, d->m.THR_XFREES, pace ? pace : "none");
    rank_line(out, v, trace, &hr_metrics[HR_M_THR_OPS_PER_S], 1e6,
              "ranking by process throughput (M ops/s, wall; > separated, ≈ within noise)", md);
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!r->has_threads || !hr_result_of_trace(r, trace) || r->n_threads > HR_RESULT_MAX_THREADS)
            continue;
        fprintf(out, "%s%s per-thread ns/op:", md ? "  - " : "    ", r->allocator);
        for (size_t k = 0; k < r->n_threads; k++)
            fprintf(out, "%s t%zu %.1f", k ? "," : "", k, r->thread_ns[k]);
        fputc('\n', out);
    }
    return 1;
}

void hr_report_ranking(FILE *out, const hr_report_view_t *v, const char *trace, int md) {
    const hr_metric_t *rank = NULL;
    for (int k = 0; k < HR_M__COUNT && !rank; k++)
        if (hr_metrics[k].flags & HR_MF_RANK)
            rank = &hr_metrics[k];
    if (!rank)
        return;
    int any = rank_line(out, v, trace, rank, 1,
                        "ranking by warm ns/op (thread CPU; < separated, ≈ within noise)", md);
    any |= rank_line(out, v, trace, &hr_metrics[HR_M_COLD_NS_PER_OP], 1,
                     "ranking by cold ns/op", md);
    any |= hr_report_threads(out, v, trace, md);
    if (any)
        fputc('\n', out);
}

/* ---- the ranking of a trace -------------------------------------------- */

const char *hr_rank_basis_words(hr_rank_basis_t b) {
    return b == HR_RANK_PROGRAM ? "predicted change of the program's CPU time"
           : b == HR_RANK_COLD  ? "cold-lap allocator time (ns/op)"
           : b == HR_RANK_WARM  ? "warm ns/op (the report has no cold lap)"
                                : "nothing (no row has a figure)";
}

/* Why r is not ranked on `basis`, or NULL when it is. Sets the figure. */
static const char *entry_of(const hr_result_t *r, hr_rank_basis_t basis, hr_rank_entry_t *e) {
    e->r = r;
    e->key = e->lo = e->hi = NAN;
    if (!hr_result_ok(r))
        return r->status ? r->status : "failed";
    if (basis == HR_RANK_PROGRAM && r->predict.present) {
        e->key = r->predict.change_s;
        e->lo = r->predict.interval_s_lo;
        e->hi = r->predict.interval_s_hi;
    } else if (basis != HR_RANK_PROGRAM) {
        hr_spread_t s;
        hr_spread_of(r, basis == HR_RANK_COLD ? HR_M_COLD_NS_PER_OP : HR_M_NS_PER_OP, &s);
        if (s.n > 0) {
            e->key = s.center;
            e->lo = s.n >= 2 ? s.min : NAN;
            e->hi = s.n >= 2 ? s.max : NAN;
        }
    }
    if (hr_result_mostly_fallback(r))
        return "fallback";
    if (r->unstable)
        return "unstable";
    if (!isfinite(e->key))
        return basis == HR_RANK_PROGRAM ? "no prediction"
               : basis == HR_RANK_COLD  ? "no cold lap"
                                        : "no ns/op";
    return NULL;
}

static int cmp_entry(const void *pa, const void *pb) {
    const hr_rank_entry_t *a = pa, *b = pb;
    if (a->ranked != b->ranked)
        return b->ranked - a->ranked;
    if (a->ranked && a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->r < b->r ? -1 : a->r > b->r; /* rows are in report order */
}

void hr_rank_trace(hr_ranking_t *out, const hr_report_view_t *v, const char *trace) {
    out->basis = HR_RANK_NONE;
    out->n = out->nranked = out->left_out = 0;
    hr_rank_basis_t basis = HR_RANK_WARM;
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!hr_result_of_trace(r, trace))
            continue;
        if (r->predict.present)
            basis = HR_RANK_PROGRAM;
        else if (basis == HR_RANK_WARM && hr_result_ok(r) && isfinite(r->m.COLD_NS_PER_OP))
            basis = HR_RANK_COLD;
    }
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!hr_result_of_trace(r, trace))
            continue;
        if (out->n == HR_RANK_MAX) { /* counted, and said in the notes */
            out->left_out++;
            continue;
        }
        hr_rank_entry_t *e = &out->e[out->n++];
        e->why = entry_of(r, basis, e);
        e->ranked = e->why == NULL;
        out->nranked += e->ranked;
    }
    qsort(out->e, (size_t)out->n, sizeof out->e[0], cmp_entry);
    if (out->n > 0) /* what it ranks by, even when every row was excluded */
        out->basis = basis;
}

int hr_rank_apart(const hr_rank_entry_t *a, const hr_rank_entry_t *b) {
    if (!isfinite(a->lo) || !isfinite(a->hi) || !isfinite(b->lo) || !isfinite(b->hi))
        return -1;
    return a->hi < b->lo || b->hi < a->lo;
}

void hr_fmt_seconds(char *buf, size_t n, double v, int sign) {
    double a = fabs(v);
    const char *sg = v < 0 ? "-" : sign && v > 0 ? "+" : "";
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else if (v == 0)
        snprintf(buf, n, "0 s");
    else if (a >= 1)
        snprintf(buf, n, "%s%.2f s", sg, a);
    else if (a >= 1e-3)
        snprintf(buf, n, "%s%.1f ms", sg, a * 1e3);
    else
        snprintf(buf, n, "%s%.0f us", sg, a * 1e6);
}

void hr_fmt_cat(char *buf, size_t n, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

void hr_fmt_seconds_range(char *buf, size_t n, double lo, double hi) {
    double a = fmax(fabs(lo), fabs(hi));
    double k = a >= 1 ? 1 : a >= 1e-3 ? 1e3 : 1e6;
    const char *u = a >= 1 ? "s" : a >= 1e-3 ? "ms" : "us";
    if (!isfinite(lo) || !isfinite(hi))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%+.3g..%+.3g %s", lo * k, hi * k, u);
}

void hr_rank_rss(const hr_result_t *r, double *v, double *lo, double *hi) {
    hr_spread_t s;
    hr_spread_of(r, HR_M_PEAK_RSS, &s);
    double base = isfinite(r->m.RSS_BASE) ? r->m.RSS_BASE : 0;
    *v = r->m.PEAK_RSS_ALL;
    *lo = s.n >= 2 ? s.min + base : NAN;
    *hi = s.n >= 2 ? s.max + base : NAN;
}
