/* The summary chart (svg.h, HR_CHART_SUMMARY): per trace, one bar per
 * allocator of --metric divided by the baseline allocator's value, with an
 * error bar from the repeats' minimum to maximum (the registry's RANGE merge
 * writes PATH_min and PATH_max beside the median) and a reference line at 1.
 * The baseline is --baseline, else glibc when the trace has it, else the
 * trace's first ok row. The bars are in the ranking's order (the summary
 * table's and the verdict's; hr_svg_rank_rows), the rows not ranked last. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "report/access.h"
#include "report/charts.h"
#include "report/metric_name.h"
#include "report/svg.h"

#define ROW_H 26
#define NAME_W 150 /* the allocator names left of the bars */
#define LABEL_ROOM 130.0 /* px for the value label after a bar */

/* The baseline row of a trace: an ok row of allocator `name` with a value,
 * else (only when the name was not asked for) the first ok row with one. */
static const hr_result_t *baseline_row(const hr_report_view_t *v, const char *trace,
                                       const char *name, int asked, const char *path) {
    const hr_result_t *first = NULL;
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!hr_result_of_trace(r, trace) || !hr_result_ok(r) || !(hr_result_at(r, path, 0) > 0))
            continue;
        if (strcmp(r->allocator, name) == 0)
            return r;
        if (!first)
            first = r;
    }
    return asked ? NULL : first;
}

/* The row's value and its min-max range divided by base (NAN when absent). */
static void ratios(const hr_result_t *r, const char *path, double base, double q[3]) {
    for (int k = 0; k < 3; k++) /* the value, PATH_min, PATH_max */
        q[k] = hr_result_at(r, path, k) / base;
    if (!hr_result_ok(r))
        q[0] = q[1] = q[2] = NAN;
}

static void bar_row(hr_svg_t *s, const hr_panel_t *p, const hr_report_view_t *v,
                    const hr_result_t *r, const double q[3], double y, const hr_metric_t *m,
                    const char *path) {
    const char *alloc = r->allocator;
    char name[160], label[96], val[48];
    snprintf(name, sizeof name, "%s%s", hr_result_mostly_fallback(r) ? HR_REPORT_FALLBACK_MARK : "",
             alloc);
    hr_svg_text(s, p->x0 - 8, y + 15, " text-anchor=\"end\"", name);
    if (!isfinite(q[0])) {
        if (hr_result_ok(r))
            snprintf(label, sizeof label, "not measured");
        else
            snprintf(label, sizeof label, "failed: %s", r->status);
        hr_svg_text(s, p->x0 + 6, y + 15, " fill=\"#999\"", label);
        return;
    }
    double x1 = hr_scale_px(&p->x, q[0]), end = x1;
    hr_svg_rect(s, p->x0, y + 4, x1 - p->x0, ROW_H - 10, hr_svg_color(v, alloc));
    if (isfinite(q[1]) && isfinite(q[2]) && q[2] > q[1]) {
        double a = hr_scale_px(&p->x, q[1]), b = hr_scale_px(&p->x, q[2]), yc = y + ROW_H / 2.0 - 1;
        hr_svg_line(s, a, yc, b, yc, " stroke=\"#222\" stroke-width=\"1.5\"");
        hr_svg_line(s, a, yc - 5, a, yc + 5, " stroke=\"#222\" stroke-width=\"1.5\"");
        hr_svg_line(s, b, yc - 5, b, yc + 5, " stroke=\"#222\" stroke-width=\"1.5\"");
        end = b > end ? b : end;
    }
    hr_svg_fmt(val, sizeof val, m ? m->unit : HR_UNIT_COUNT, hr_result_at(r, path, 0));
    snprintf(label, sizeof label, "%.2f× (%s)", q[0], val);
    hr_svg_text(s, end + 5, y + 15, " font-size=\"11\"", label);
}

static void panel(hr_svg_t *s, const hr_report_view_t *v, const char *trace, const char *path,
                  const hr_metric_t *m, const hr_svg_options_t *o) {
    const char *want = o->baseline ? o->baseline : "glibc";
    const hr_result_t *base = baseline_row(v, trace, want, o->baseline != NULL, path);
    const char *bname = base ? base->allocator : want;
    const char *words = hr_svg_metric_words(m, path);
    char title[512], xl[256];
    int n = 0, ranges = 0;
    double lo = 1, hi = 1, q[3];
    for (size_t i = 0; i < v->n; i++)
        n += hr_result_of_trace(&v->rows[i], trace);
    snprintf(title, sizeof title, "%s relative to %s (%s is better): %s", words, bname,
             m && (m->flags & HR_MF_HIGHER) ? "higher" : "lower", hr_report_trace_base(trace));
    hr_panel_t p;
    hr_panel_begin(s, &p, title, n * ROW_H + 8);
    p.x0 = NAME_W;
    p.w -= NAME_W - p.x.p0;
    p.x.p0 = p.x0;
    p.yu = HR_UNIT_TEXT; /* categories: no y ticks */
    p.y.lo = 0, p.y.hi = 1;
    if (!base) {
        const char *line = xl;
        snprintf(xl, sizeof xl, "No ok %s row with this figure on this trace to compare with.", bname);
        hr_panel_empty(s, &p, &line, 1);
        hr_panel_end(s, &p);
        return;
    }
    double bv = hr_result_at(base, path, 0);
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!hr_result_of_trace(r, trace))
            continue;
        ratios(r, path, bv, q);
        for (int k = 0; k < 3; k++)
            if (isfinite(q[k]) && q[k] > 0) {
                lo = q[k] < lo ? q[k] : lo;
                hi = q[k] > hi ? q[k] : hi;
            }
        ranges |= isfinite(q[1]) && isfinite(q[2]) && q[2] > q[1];
    }
    /* room right of the longest bar for its label ("1.84× (24.7 M ops/s)") */
    hr_scale_fit(&p.x, lo, hi * (p.w + LABEL_ROOM) / p.w, 1, HR_UNIT_COUNT);
    p.xu = HR_UNIT_COUNT;
    snprintf(xl, sizeof xl, "%s as a multiple of %s's", words, bname);
    hr_panel_axes(s, &p, xl, NULL);
    double one = hr_scale_px(&p.x, 1);
    hr_svg_line(s, one, p.y0, one, p.y0 + p.h, " stroke=\"#444\" stroke-dasharray=\"4 3\"");
    double y = p.y0 + 4;
    const hr_result_t **bars = malloc((v->n ? v->n : 1) * sizeof *bars);
    if (!bars)
        hr_outfile_note_oom(); /* the chart would lack its bars */
    size_t nb = bars ? hr_svg_rank_rows(v, trace, bars) : 0;
    for (size_t i = 0; i < nb; i++) {
        ratios(bars[i], path, bv, q);
        bar_row(s, &p, v, bars[i], q, y, m, path);
        y += ROW_H;
    }
    free(bars);
    snprintf(xl, sizeof xl, "%s = 1", bname);
    hr_panel_key(s, &p, "#444", HR_KEY_DASHED, xl);
    if (ranges)
        hr_panel_key(s, &p, "#222", HR_KEY_LINE, "min-max of the repeats");
    for (size_t i = 0; i < v->n; i++) /* the tables' mark, explained once */
        if (hr_result_of_trace(&v->rows[i], trace) && hr_result_mostly_fallback(&v->rows[i])) {
            hr_panel_key(s, &p, "#fff", HR_KEY_BOX, HR_REPORT_FALLBACK_MARK " mostly fallback");
            break;
        }
    hr_panel_end(s, &p);
}

int hr_svg_check_baseline(const hr_report_view_t *v, const hr_svg_options_t *o,
                          hr_error_t *err) {
    for (size_t i = 0; o->baseline && i < v->n; i++)
        if (strcmp(v->rows[i].allocator, o->baseline) == 0)
            return 0;
    if (!o->baseline)
        return 0;
    hr_error_set(err, "--baseline: the report has no allocator \"%s\"", o->baseline);
    return -1;
}

int hr_chart_summary(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o,
                     hr_error_t *err) {
    char path[128];
    const char **traces;
    if (hr_svg_metric_path(o->metric, path, sizeof path, err) < 0)
        return -1;
    if (!o->baseline_checked && hr_svg_check_baseline(v, o, err) < 0)
        return -1;
    int nt = hr_svg_chart_traces(v, o, &traces);
    for (int t = 0; t < nt; t++)
        panel(s, v, traces[t], path, hr_metric_by_path(path), o);
    free(traces);
    return 0;
}
