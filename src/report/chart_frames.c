/* Frame time per frame (svg.h, HR_CHART_FRAMES): per trace, one line per
 * allocator of the allocator time of each frame (the mean of the frames a
 * point merges, with a light min-max band when it merges several), and the
 * frame budget as a dark dashed line (default 1 % of a 16.6 ms frame, one
 * frame at 60 frames per second: HR_FRAME_BUDGET_DEFAULT_NS; `plot
 * --frame-budget`). The y axis is log when the times span decades. More
 * than HR_GRID_OVER allocators draw a grid of small panels instead, one per
 * allocator over the reference (glibc) in grey: ten lines in one panel
 * cross too often to follow.
 * Under it, the blocks the trace makes per frame (one line: the trace's
 * own, the same for every allocator).
 * Reads result->series.frames (REPORT_SCHEMA.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "report/access.h"
#include "report/charts.h"
#include "report/svg.h"

#define PLOT_H 240
#define CELL_PLOT_H 130 /* a cell of the grid of many allocators */
/* Dark grey, not a palette colour: no allocator's line looks like it. */
#define BUDGET_COLOR "#555555"

typedef struct fline {
    const hr_result_t *row;
    const char      *alloc; /* its allocator */
    double          *x, *mean, *lo, *hi;
    size_t           n;
    int              merged; /* frames per point > 1 */
} fline_t;

static size_t load(const hr_json_t *fr, fline_t *f) {
    size_t n = hr_svg_numbers(hr_json_get(fr, "first_frame"), &f->x);
    size_t a = hr_svg_numbers(hr_json_get(fr, "ns_mean"), &f->mean);
    size_t b = hr_svg_numbers(hr_json_get(fr, "ns_min"), &f->lo);
    size_t c = hr_svg_numbers(hr_json_get(fr, "ns_max"), &f->hi);
    n = a < n ? a : n;
    f->merged = hr_json_path_num(fr, "per_point") > 1 && b >= n && c >= n;
    if (n == 0) {
        free(f->x), free(f->mean), free(f->lo), free(f->hi);
        memset(f, 0, sizeof *f);
    }
    return f->n = n;
}

/* The min-max band of a merged line as one closed polygon. */
static void band(hr_svg_t *s, const hr_panel_t *p, const fline_t *f, const char *color) {
    fprintf(s->f, "<polygon fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" points=\"", color);
    for (size_t i = 0; i < 2 * f->n; i++) {
        size_t k = i < f->n ? i : 2 * f->n - 1 - i;
        double v = i < f->n ? f->hi[k] : f->lo[k];
        if (isfinite(f->x[k]) && isfinite(v))
            fprintf(s->f, "%s%.1f,%.1f", i ? " " : "", hr_scale_px(&p->x, f->x[k]),
                    hr_scale_px(&p->y, v));
    }
    fputs("\"/>\n", s->f);
}

/* The budget's legend entry: its value and where it comes from. */
static void budget_label(char *buf, size_t n, const hr_svg_options_t *o) {
    char v[48];
    hr_svg_fmt(v, sizeof v, HR_UNIT_NS, o->budget_ns);
    if (o->budget_set)
        snprintf(buf, n, "frame budget %s (--frame-budget)", v);
    else
        snprintf(buf, n, "frame budget %s: 1 %% of 16.6 ms", v);
}

static void no_frames(hr_svg_t *s, hr_panel_t *p, int any_series) {
    static const char *const marks[] = {"The trace has no frame marks: no frame times to draw."};
    static const char *const why[] = {
        "No frame series for this trace: the report was written without series",
        "(report schema 1), or every row failed. Replay the trace again to draw it."};
    if (any_series)
        hr_panel_empty(s, p, marks, 1);
    else
        hr_panel_empty(s, p, why, 2);
}

/* Loads the frame lines of the ok rows of `trace` into l; returns their
 * count. *any: a row has series at all; lo, hi, xmax: the extent. */
static size_t collect(fline_t *l, const hr_report_view_t *results, const char *trace, int *any,
                      double *lo, double *hi, double *xmax) {
    size_t nl = 0;
    for (size_t i = 0; i < results->n; i++) {
        const hr_result_t *r = &results->rows[i];
        if (!hr_result_of_trace(r, trace) || !hr_result_ok(r))
            continue;
        const hr_json_t *fr = hr_json_get(r->series, "frames");
        *any |= hr_json_type(r->series) == HR_JSON_OBJECT;
        if (hr_json_type(fr) != HR_JSON_OBJECT || load(fr, &l[nl]) == 0)
            continue;
        l[nl].row = r;
        l[nl].alloc = r->allocator;
        for (size_t k = 0; k < l[nl].n; k++) {
            double a = l[nl].merged ? l[nl].lo[k] : l[nl].mean[k];
            double b = l[nl].merged ? l[nl].hi[k] : l[nl].mean[k];
            *lo = a > 0 && a < *lo ? a : *lo;
            *hi = b > *hi ? b : *hi;
            *xmax = l[nl].x[k] > *xmax ? l[nl].x[k] : *xmax;
        }
        nl++;
    }
    return nl;
}

/* Axes of a panel over the extent of every line of the trace (the cells of
 * a grid share them). */
static void axes(hr_svg_t *s, hr_panel_t *p, double lo, double hi, double xmax, int small) {
    p->xu = HR_UNIT_COUNT;
    p->yu = HR_UNIT_NS;
    hr_scale_fit(&p->x, 0, xmax, 0, HR_UNIT_COUNT);
    hr_scale_fit(&p->y, lo, hi, 1, HR_UNIT_NS);
    if (small) /* a short y title: a cell is lower than the long one */
        hr_panel_axes(s, p, "frame number", p->y.log ? "per frame (log)" : "per frame");
    else
        hr_panel_axes(s, p, "frame number", p->y.log ? "allocator time per frame (log scale)"
                                                     : "allocator time per frame");
}

static void budget_line(hr_svg_t *s, const hr_panel_t *p, const hr_svg_options_t *o) {
    double by = hr_scale_px(&p->y, o->budget_ns);
    hr_svg_line(s, p->x0, by, p->x0 + p->w, by, " stroke=\"" BUDGET_COLOR "\" stroke-width=\"1.5\" "
                "stroke-dasharray=\"6 4\"");
}

/* One line, its min-max band under it when merged; ref: drawn grey, thin. */
static void line(hr_svg_t *s, const hr_panel_t *p, const fline_t *f,
                 const hr_report_view_t *results, int ref) {
    hr_svg_style_t st = hr_svg_style(results, f->alloc);
    char attrs[128];
    if (ref) {
        hr_panel_line(s, p, f->x, f->mean, f->n, " stroke=\"" HR_GRID_REF_COLOR "\" stroke-width=\"1\"");
        return;
    }
    if (f->merged)
        band(s, p, f, st.color);
    hr_svg_stroke(attrs, sizeof attrs, &st, 1.2);
    hr_panel_line(s, p, f->x, f->mean, f->n, attrs);
}

static void draw(hr_svg_t *s, hr_panel_t *p, const fline_t *l, size_t nl,
                 const hr_report_view_t *results, const hr_svg_options_t *o) {
    char key[192];
    for (size_t k = 0; k < nl; k++)
        line(s, p, &l[k], results, 0);
    budget_line(s, p, o);
    budget_label(key, sizeof key, o);
    hr_panel_key(s, p, BUDGET_COLOR, HR_KEY_DASHED, key);
    for (size_t k = 0; k < nl; k++) {
        hr_svg_style_t st = hr_svg_style(results, l[k].alloc);
        snprintf(key, sizeof key, "%s%s", l[k].alloc, l[k].merged ? " (mean, min-max)" : "");
        hr_panel_key_style(s, p, &st, key);
    }
}

/* The reference line of a grid: glibc's when the trace has it, else the
 * first line's. */
static size_t reference(const fline_t *l, size_t nl) {
    for (size_t k = 0; k < nl; k++)
        if (strcmp(l[k].alloc, "glibc") == 0)
            return k;
    return 0;
}

/* Many allocators: one small panel each, the reference line grey in every
 * one, on the same axes, in the ranking's order (the summary
 * table's and chart's). */
static void grid(hr_svg_t *s, const char *title, const fline_t *l, size_t nl,
                 const hr_report_view_t *results, const hr_svg_options_t *o, double lo,
                 double hi, double xmax) {
    hr_grid_t g;
    hr_panel_t p;
    char key[192];
    size_t ref = reference(l, nl);
    hr_grid_begin(s, &g, title, CELL_PLOT_H);
    budget_label(key, sizeof key, o);
    hr_panel_key(s, &g.head, BUDGET_COLOR, HR_KEY_DASHED, key);
    snprintf(key, sizeof key, "%s in every panel, for reference%s", l[ref].alloc,
             l[ref].merged ? "; lines: the mean of the frames a point merges, band: their min-max"
                           : "");
    hr_panel_key(s, &g.head, HR_GRID_REF_COLOR, HR_KEY_LINE, key);
    const hr_result_t **drawn = malloc(nl * sizeof *drawn);
    size_t *idx = malloc(nl * sizeof *idx);
    if (!drawn || !idx) /* rows listed as missing, panels missing */
        hr_outfile_note_oom();
    for (size_t k = 0; k < nl && drawn; k++)
        drawn[k] = l[k].row;
    hr_panel_missing(s, &g.head, results, l[0].row->trace, drawn, drawn ? nl : 0, "frame");
    size_t no = drawn && idx ? hr_svg_rank_lines(results, l[0].row->trace, drawn, nl, idx) : 0;
    for (size_t c = 0; c < no; c++) {
        size_t k = idx[c];
        hr_grid_cell(s, &g, &p, l[k].alloc);
        axes(s, &p, lo, hi, xmax, 1);
        if (k != ref)
            line(s, &p, &l[ref], results, 1);
        line(s, &p, &l[k], results, 0);
        budget_line(s, &p, o);
        hr_grid_cell_end(s, &g, &p);
    }
    free(drawn);
    free(idx);
    hr_grid_end(s, &g);
}

/* Blocks made per play frame, the trace's own (the same in every row): one
 * line of the means of the frames a point merges, and of their max when it
 * merges several, from the first drawn row's series. Nothing without them
 * (a report from before they were recorded). */
#define ALLOC_COLOR "#0072b2"
static void alloc_panel(hr_svg_t *s, const fline_t *f, const char *trace) {
    const hr_json_t *fr = hr_json_get(f->row->series, "frames");
    double *mean = NULL, *max = NULL;
    size_t n = hr_svg_numbers(hr_json_get(fr, "allocs_mean"), &mean);
    size_t m = hr_svg_numbers(hr_json_get(fr, "allocs_max"), &max);
    if (n >= f->n && f->n > 0) {
        hr_panel_t p;
        char title[512];
        double hi = 1;
        int merged = f->merged && m >= f->n;
        for (size_t k = 0; k < f->n; k++)
            hi = fmax(hi, merged ? max[k] : mean[k]);
        snprintf(title, sizeof title, "Blocks made per frame (the trace's own): %s",
                 hr_report_trace_base(trace));
        hr_panel_begin(s, &p, title, CELL_PLOT_H);
        p.xu = HR_UNIT_COUNT;
        p.yu = HR_UNIT_COUNT;
        hr_scale_fit(&p.x, 0, f->x[f->n - 1] > 1 ? f->x[f->n - 1] : 1, 0, HR_UNIT_COUNT);
        hr_scale_fit(&p.y, 0, hi, 0, HR_UNIT_COUNT);
        hr_panel_axes(s, &p, "frame number", "blocks made");
        if (merged) {
            hr_panel_line(s, &p, f->x, max, f->n, " stroke=\"" ALLOC_COLOR "\" stroke-width=\"1\" "
                          "stroke-dasharray=\"3 3\"");
            hr_panel_key(s, &p, ALLOC_COLOR, HR_KEY_DASHED, "max of the frames a point merges");
        }
        hr_panel_line(s, &p, f->x, mean, f->n, " stroke=\"" ALLOC_COLOR "\" stroke-width=\"1.2\"");
        hr_panel_key(s, &p, ALLOC_COLOR, HR_KEY_LINE, merged ? "mean per frame" : "per frame");
        hr_panel_end(s, &p);
    }
    free(mean);
    free(max);
}

static void panel(hr_svg_t *s, const hr_report_view_t *results, const char *trace,
                  const hr_svg_options_t *o) {
    size_t nr = results->n, nl;
    fline_t *l = calloc(nr ? nr : 1, sizeof *l);
    int any_series = 0;
    char title[512];
    double lo = o->budget_ns, hi = o->budget_ns, xmax = 1;
    hr_panel_t p;
    if (!l) {
        hr_outfile_note_oom(); /* the chart would lack this trace's panel */
        return;
    }
    nl = collect(l, results, trace, &any_series, &lo, &hi, &xmax);
    snprintf(title, sizeof title, "Allocator time per frame: %s", hr_report_trace_base(trace));
    if (nl > HR_GRID_OVER) {
        grid(s, title, l, nl, results, o, lo, hi, xmax);
    } else {
        hr_panel_begin(s, &p, title, PLOT_H);
        if (nl == 0) {
            no_frames(s, &p, any_series);
        } else {
            const hr_result_t **drawn = malloc(nl * sizeof *drawn);
            size_t nd = 0;
            if (!drawn) /* drawn rows would be listed as missing */
                hr_outfile_note_oom();
            axes(s, &p, lo, hi, xmax, 0);
            draw(s, &p, l, nl, results, o);
            for (size_t k = 0; k < nl && drawn; k++)
                drawn[nd++] = l[k].row;
            hr_panel_missing(s, &p, results, trace, drawn, nd, "frame");
            free(drawn);
        }
        hr_panel_end(s, &p);
    }
    if (nl > 0)
        alloc_panel(s, &l[0], trace);
    for (size_t k = 0; k < nr; k++) {
        free(l[k].x);
        free(l[k].mean);
        free(l[k].lo);
        free(l[k].hi);
    }
    free(l);
}

int hr_chart_frames(hr_svg_t *s, const hr_report_view_t *rep, const hr_svg_options_t *o,
                    hr_error_t *err) {
    (void)err;
    return hr_svg_each_trace(s, rep, o, panel);
}
