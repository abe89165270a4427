/* The --metric bar chart (svg.h, HR_CHART_BARS). Layout, top to bottom: a
 * title in words with the better direction, then per trace a bold group
 * label, one bar per allocator in the ranking's order (ranking.h: the
 * summary table's order, whatever the metric) and the group's own x axis (a trace with
 * small figures is not a sliver beside a large one). Labels sit in a fixed
 * left margin; values are printed after each bar. Also the metric names
 * `plot --metric` accepts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "report/access.h"
#include "report/charts.h"
#include "report/metric_name.h"
#include "report/ranking.h"
#include "report/svg.h"

#define LABEL_W 230
#define BAR_H 18
#define BAR_GAP 4
#define TOP 48



/* Value label in the metric's unit (registry); an unregistered path is a
 * plain number. */
static void fmt_value(char *buf, size_t n, const hr_metric_t *m, double v) {
    switch (m ? m->unit : HR_UNIT_COUNT) {
    case HR_UNIT_OPS_PER_S: hr_fmt_rate(buf, n, v); break;
    case HR_UNIT_RATIO: snprintf(buf, n, "%.1f%%", v * 100); break;
    case HR_UNIT_BYTES: hr_fmt_bytes(buf, n, v); break;
    case HR_UNIT_NS: hr_fmt_ns(buf, n, v); break;
    case HR_UNIT_SECONDS: snprintf(buf, n, "%.4g s", v); break;
    case HR_UNIT_COUNT:
    case HR_UNIT_TEXT: snprintf(buf, n, "%.4g", v); break;
    }
}

/* Why a row has no bar, in words: its failed status, or no value. */
static void no_bar_text(char *buf, size_t n, const hr_result_t *t) {
    if (hr_result_ok(t))
        snprintf(buf, n, "not measured");
    else
        snprintf(buf, n, "failed: %s", t->status);
}

/* One trace's group at s->y: label, bars, axis. */
static void group(hr_svg_t *s, const hr_report_view_t *vw, const char *trace, const char *path,
                  const hr_metric_t *def) {
    int plot_w = s->width - LABEL_W - 110;
    char buf[64];
    hr_scale_t sc = {0, 1, LABEL_W, LABEL_W + plot_w, 0, 10, 1};
    double tk[16];
    double vmax = 0;
    for (size_t i = 0; i < vw->n; i++) {
        const hr_result_t *r = &vw->rows[i];
        if (!hr_result_of_trace(r, trace))
            continue;
        double v = hr_result_at(r, path, 0);
        if (isfinite(v) && v > vmax)
            vmax = v;
    }
    hr_scale_fit(&sc, 0, vmax > 0 ? vmax : 1, 0, def ? def->unit : HR_UNIT_COUNT);
    hr_svg_text(s, 10, s->y + 14, " font-weight=\"bold\"", hr_report_trace_base(trace));
    s->y += 20;
    double top = s->y;
    hr_ranking_t rk;
    hr_rank_trace(&rk, vw, trace);
    for (int i = 0; i < rk.n; i++) {
        const hr_result_t *r = rk.e[i].r;
        const char *alloc = r->allocator;
        double v = hr_result_at(r, path, 0); /* any dotted path (--metric) */
        char name[160];
        /* as in the tables: "!" = mostly fallback */
        snprintf(name, sizeof name, "%s%s",
                 hr_result_mostly_fallback(r) ? HR_REPORT_FALLBACK_MARK : "", alloc);
        hr_svg_text(s, LABEL_W - 8, s->y + 13, " text-anchor=\"end\"", name);
        if (hr_result_ok(r) && isfinite(v)) {
            double w = hr_scale_px(&sc, v > 0 ? v : 0) - LABEL_W;
            hr_svg_rect(s, LABEL_W, s->y, w, BAR_H, hr_svg_color(vw, alloc));
            fmt_value(buf, sizeof buf, def, v);
            hr_svg_text(s, LABEL_W + w + 4, s->y + 13, NULL, buf);
        } else {
            no_bar_text(buf, sizeof buf, r);
            hr_svg_text(s, LABEL_W + 4, s->y + 13, " fill=\"#999\"", buf);
        }
        s->y += BAR_H + BAR_GAP;
    }
    hr_svg_line(s, LABEL_W, top, LABEL_W, s->y, NULL);
    hr_svg_line(s, LABEL_W, s->y, LABEL_W + plot_w, s->y, NULL);
    int nt = hr_scale_ticks(&sc, tk, 16);
    for (int t = 0; t < nt; t++) {
        double x = hr_scale_px(&sc, tk[t]);
        fmt_value(buf, sizeof buf, def, tk[t]);
        hr_svg_line(s, x, s->y, x, s->y + 5, NULL);
        hr_svg_text(s, x, s->y + 17, " text-anchor=\"middle\" font-size=\"10\"", buf);
    }
    s->y += 34;
}

int hr_chart_bars(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o, hr_error_t *err) {
    char path[128], title[256];
    const char **traces;
    if (hr_svg_metric_path(o->metric, path, sizeof path, err) < 0)
        return -1;
    const hr_metric_t *def = hr_metric_by_path(path);
    int fallback = 0, nt = hr_svg_chart_traces(v, o, &traces);
    for (size_t i = 0; i < v->n; i++)
        fallback |= hr_result_mostly_fallback(&v->rows[i]);
    snprintf(title, sizeof title, "%s (%s is better)", hr_svg_metric_words(def, path),
             def && (def->flags & HR_MF_HIGHER) ? "higher" : "lower");
    hr_svg_text(s, 10, 24, " font-size=\"16\" font-weight=\"bold\"", title);
    s->y = TOP;
    for (int t = 0; t < nt; t++)
        group(s, v, traces[t], path, def);
    free(traces);
    if (fallback) { /* the legend of the tables' mark */
        char note[200];
        snprintf(note, sizeof note, HR_REPORT_FALLBACK_MARK " mostly fallback: under %.0f%% of its "
                 "ops served natively (the bar measures the system malloc behind it)",
                 HR_MOSTLY_FALLBACK * 100);
        hr_svg_text(s, 10, s->y + 6, " font-size=\"11\"", note);
        s->y += 20;
    }
    return 0;
}
