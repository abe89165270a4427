/* Latency CDF (svg.h, HR_CHART_LATENCY): per trace, one line per allocator:
 * the share of timed ops whose latency is at or below x, from the latency
 * histogram (result->series.latency: bucket upper bounds le_ns and counts),
 * on a log x axis; a dotted line marks 99 % of the ops (where the p99 of
 * each allocator crosses it). Between bucket bounds the line is straight:
 * the histogram does not know more. More than HR_GRID_OVER allocators draw
 * a grid of small panels, one per allocator over the reference (glibc) in
 * grey: ten CDFs in one panel lie on top of each other. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "report/access.h"
#include "report/charts.h"
#include "report/svg.h"

#define PLOT_H 240
#define CELL_PLOT_H 130 /* a cell of the grid of many allocators */
#define P99_COLOR "#666666"

typedef struct cdf {
    const hr_result_t *row;
    const char      *alloc; /* its allocator */
    double          *x, *y; /* n + 1 points: the first bucket's lower bound at 0 */
    size_t           n;
} cdf_t;

/* The CDF points of a latency object; 0 when it has no ops (at most n + 1
 * points: the first bound twice, before and after its bucket). */
static size_t load(const hr_json_t *lat, cdf_t *c) {
    double *le = NULL, *cnt = NULL, total = 0;
    size_t n = hr_svg_numbers(hr_json_get(lat, "le_ns"), &le);
    size_t m = hr_svg_numbers(hr_json_get(lat, "count"), &cnt);
    n = m < n ? m : n;
    for (size_t i = 0; i < n; i++)
        total += cnt[i] > 0 ? cnt[i] : 0;
    c->x = n && total > 0 ? malloc((n + 1) * sizeof *c->x) : NULL;
    c->y = c->x ? malloc((n + 1) * sizeof *c->y) : NULL;
    c->n = 0;
    if (n && total > 0 && !c->y) /* the row would be drawn as having no series */
        hr_outfile_note_oom();
    if (c->y) {
        /* A log axis has no 0: buckets at or below 0 ns count into the first
         * point, which rises from their share at the first positive bound. */
        double cum = 0;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (le[i] > 0 && k == 0) {
                c->x[k] = le[i];
                c->y[k++] = cum / total;
            }
            cum += cnt[i] > 0 ? cnt[i] : 0;
            if (le[i] > 0) {
                c->x[k] = le[i];
                c->y[k++] = cum / total;
            }
        }
        c->n = k;
    } else {
        free(c->x);
        c->x = NULL;
    }
    free(le);
    free(cnt);
    return c->n;
}

static void no_latency(hr_svg_t *s, hr_panel_t *p) {
    static const char *const why[] = {
        "No latency series for this trace: the report was written without series",
        "(report schema 1), or every row failed. Replay the trace again to draw it."};
    hr_panel_empty(s, p, why, 2);
}

static void axes(hr_svg_t *s, hr_panel_t *p, double lo, double hi, int small) {
    p->xu = HR_UNIT_NS;
    p->yu = HR_UNIT_RATIO;
    hr_scale_fit(&p->x, lo, hi, 2, HR_UNIT_NS);
    hr_scale_fit(&p->y, 0, 1, 0, HR_UNIT_RATIO);
    /* a cell of a grid is lower than the long y title */
    hr_panel_axes(s, p, "latency of one call (log scale)",
                  small ? "share at or below" : "share of calls at or below");
    double y99 = hr_scale_px(&p->y, 0.99);
    hr_svg_line(s, p->x0, y99, p->x0 + p->w, y99, " stroke=\"" P99_COLOR "\" stroke-dasharray=\"2 3\"");
}

static void line(hr_svg_t *s, const hr_panel_t *p, const cdf_t *c, const hr_report_view_t *v,
                 int ref) {
    hr_svg_style_t st = hr_svg_style(v, c->alloc);
    char attrs[128];
    if (ref)
        snprintf(attrs, sizeof attrs, " stroke=\"" HR_GRID_REF_COLOR "\" stroke-width=\"1\"");
    else
        hr_svg_stroke(attrs, sizeof attrs, &st, 1.4);
    hr_panel_line(s, p, c->x, c->y, c->n, attrs);
}

/* The legend entries of the rows of `trace` without a line. */
static void missing(hr_svg_t *s, hr_panel_t *p, const hr_report_view_t *v, const char *trace,
                    const cdf_t *l, size_t nl) {
    const hr_result_t **drawn = malloc((nl ? nl : 1) * sizeof *drawn);
    if (!drawn) /* drawn rows would be listed as missing */
        hr_outfile_note_oom();
    for (size_t k = 0; k < nl && drawn; k++)
        drawn[k] = l[k].row;
    hr_panel_missing(s, p, v, trace, drawn, drawn ? nl : 0, "latency");
    free(drawn);
}

/* Many allocators: one small panel each over the reference line (glibc's,
 * else the first), on the same axes, in the ranking's order (the summary
 * table's and chart's). */
static void grid(hr_svg_t *s, const char *title, const char *trace, const cdf_t *l, size_t nl,
                 const hr_report_view_t *v, const hr_svg_options_t *o, double lo, double hi) {
    hr_grid_t g;
    hr_panel_t p;
    char key[192];
    size_t ref = 0;
    for (size_t k = 0; k < nl; k++)
        if (strcmp(l[k].alloc, "glibc") == 0)
            ref = k;
    hr_grid_begin(s, &g, title, CELL_PLOT_H);
    hr_panel_key(s, &g.head, P99_COLOR, HR_KEY_DASHED, "99 % of calls (p99)");
    snprintf(key, sizeof key, "%s in every panel, for reference", l[ref].alloc);
    hr_panel_key(s, &g.head, HR_GRID_REF_COLOR, HR_KEY_LINE, key);
    const hr_result_t **drawn = malloc((nl ? nl : 1) * sizeof *drawn);
    size_t *idx = malloc((nl ? nl : 1) * sizeof *idx);
    if (!drawn || !idx) /* rows listed as missing, panels missing */
        hr_outfile_note_oom();
    for (size_t k = 0; k < nl && drawn; k++)
        drawn[k] = l[k].row;
    hr_panel_missing(s, &g.head, v, trace, drawn, drawn ? nl : 0, "latency");
    size_t no = drawn && idx ? hr_svg_rank_lines(v, trace, drawn, nl, idx) : 0;
    for (size_t c = 0; c < no; c++) {
        size_t k = idx[c];
        hr_grid_cell(s, &g, &p, l[k].alloc);
        axes(s, &p, lo, hi, 1);
        if (k != ref)
            line(s, &p, &l[ref], v, 1);
        line(s, &p, &l[k], v, 0);
        hr_grid_cell_end(s, &g, &p);
    }
    free(drawn);
    free(idx);
    hr_grid_end(s, &g);
}

static void panel(hr_svg_t *s, const hr_report_view_t *results, const char *trace,
                  const hr_svg_options_t *o) {
    size_t nr = results->n, nl = 0;
    cdf_t *l = calloc(nr ? nr : 1, sizeof *l);
    char title[512];
    double lo = INFINITY, hi = 0;
    if (!l) {
        hr_outfile_note_oom(); /* the chart would lack this trace's panel */
        return;
    }
    snprintf(title, sizeof title, "Latency of allocator calls (CDF): %s",
             hr_report_trace_base(trace));
    for (size_t i = 0; i < nr; i++) {
        const hr_result_t *r = &results->rows[i];
        if (!hr_result_of_trace(r, trace) || !hr_result_ok(r))
            continue;
        const hr_json_t *lat = hr_json_get(r->series, "latency");
        if (hr_json_type(lat) != HR_JSON_OBJECT || load(lat, &l[nl]) == 0)
            continue;
        l[nl].row = r;
        l[nl].alloc = r->allocator;
        lo = l[nl].x[0] > 0 && l[nl].x[0] < lo ? l[nl].x[0] : lo;
        hi = l[nl].x[l[nl].n - 1] > hi ? l[nl].x[l[nl].n - 1] : hi;
        nl++;
    }
    if (nl > HR_GRID_OVER) {
        grid(s, title, trace, l, nl, results, o, lo, hi);
    } else {
        hr_panel_t p;
        hr_panel_begin(s, &p, title, PLOT_H);
        if (nl == 0) {
            no_latency(s, &p);
        } else {
            axes(s, &p, lo, hi, 0);
            for (size_t k = 0; k < nl; k++)
                line(s, &p, &l[k], results, 0);
            hr_panel_key(s, &p, P99_COLOR, HR_KEY_DASHED, "99 % of calls (p99)");
            for (size_t k = 0; k < nl; k++) {
                hr_svg_style_t st = hr_svg_style(results, l[k].alloc);
                hr_panel_key_style(s, &p, &st, l[k].alloc);
            }
            missing(s, &p, results, trace, l, nl);
        }
        hr_panel_end(s, &p);
    }
    for (size_t k = 0; k < nr; k++) {
        free(l[k].x);
        free(l[k].y);
    }
    free(l);
}

int hr_chart_latency(hr_svg_t *s, const hr_report_view_t *rep, const hr_svg_options_t *o,
                     hr_error_t *err) {
    (void)err;
    return hr_svg_each_trace(s, rep, o, panel);
}
