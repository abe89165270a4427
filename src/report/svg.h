/* SVG charts of a report (docs/REPORTS.md, "Charts"). Self-contained: no
 * external fonts, styles, scripts or links, so a chart can be committed,
 * attached to CI artifacts or put inline into the HTML report.
 *
 * Kinds: the --metric bar chart (one group per trace, its own axis each), and
 * the charts of the result series (docs/REPORT_SCHEMA.md "series"): memory
 * over time, frame time per frame, latency CDF, and a summary bar chart
 * normalised to a baseline allocator. Every series kind draws one panel per
 * trace with its own axes; a trace or row without series gets a note in its
 * panel, never an error.
 *
 * Layout, bottom to top: svg.c has the canvas, primitives, scales, axes,
 * legends and panels; chart_<kind>.c draws one kind with them (charts.h);
 * chart.c is the table of kinds (chart.h). */
#ifndef HR_REPORT_SVG_H
#define HR_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "base/json.h"
#include "base/metrics.h"
#include "base/error.h"
#include "report/access.h"
#include "report/metric_name.h"

typedef enum hr_chart_kind {
    HR_CHART_BARS = 0, /* one metric per trace x allocator (the default) */
    HR_CHART_SUMMARY,  /* one metric relative to a baseline, min-max error bars */
    HR_CHART_MEMORY,   /* footprint per allocator over time, live as reference */
    HR_CHART_FRAMES,   /* allocator time per frame, frame budget line */
    HR_CHART_LATENCY,  /* CDF of the op latency histogram, log x */
    HR_CHART_ALL,      /* summary, memory, frames, latency one under the other */
} hr_chart_kind_t;

/* The default frame budget line, in ns: 1 % of a 16.6 ms frame (one frame
 * at 60 frames per second): a frame whose allocator calls take longer spends
 * a visible share of its time in malloc and free. `--frame-budget` sets
 * another (a duration, or a percentage of HR_FRAME_60FPS_NS). */
#define HR_FRAME_BUDGET_DEFAULT_NS 166000.0
#define HR_FRAME_60FPS_NS 16600000.0

typedef struct hr_svg_options {
    const char     *metric; /* compare alias (throughput, peak...), dotted path, or a
                               leaf name such as ops_per_s / peak_footprint */
    int             width;  /* total width in px (inline in HTML: the viewBox width;
                               the page scales the chart to its own width) */
    hr_chart_kind_t kind;
    const char     *baseline;  /* summary: allocator to divide by; NULL = glibc when
                                  the trace has it, else the trace's first ok row */
    double          budget_ns; /* frames: the budget line */
    int             budget_set;/* the budget was given (else the default's label) */
    int             no_xml_decl; /* inline in HTML: no <?xml ...?> line */
    int             baseline_checked; /* the caller checked it against a larger report
                                         (the HTML page draws one trace at a time) */
    const char     *only_trace; /* draw this trace's panels only (colours still come
                                   from every result: the HTML page's traces agree) */
} hr_svg_options_t;

/* bars, throughput, 800 px, budget 1 % of 16.6 ms, glibc baseline. */
hr_svg_options_t hr_svg_options_default(void);

/* ---- drawing (svg.c), for the chart_*.c files ---------------------------- */

/* A canvas: the body is written to memory while the height grows; close
 * writes the root element with the final height, then the body. */
typedef struct hr_svg {
    FILE  *f;
    char  *buf;
    size_t len;
    int    width;
    double y; /* next free y */
} hr_svg_t;

int  hr_svg_open(hr_svg_t *s, int width);
void hr_svg_discard(hr_svg_t *s);
/* Writes the document (with a <title> of `title`) to out and frees s. */
int  hr_svg_close(hr_svg_t *s, FILE *out, const char *title, int no_xml_decl);

/* Primitives. `attrs` are raw SVG attributes (" fill=\"#999\"") or NULL;
 * text is escaped. */
void hr_svg_text(hr_svg_t *s, double x, double y, const char *attrs, const char *text);
void hr_svg_line(hr_svg_t *s, double x1, double y1, double x2, double y2, const char *attrs);
void hr_svg_rect(hr_svg_t *s, double x, double y, double w, double h, const char *fill);
/* A polyline of n points (x[i], y[i]) in px. */
void hr_svg_polyline(hr_svg_t *s, const double *x, const double *y, size_t n, const char *attrs);

/* The style of an allocator's series, by its first appearance in the
 * results (so it keeps it in every panel, chart and trace of a page): one of
 * the 8 Okabe-Ito colours (distinguishable with the common colour-vision
 * deficiencies), and past 8 allocators the colours again with a dash pattern
 * (lines) and a light fill with an outline (bars): 24 distinct styles. */
#define HR_SVG_NCOLORS 8
typedef struct hr_svg_style {
    const char *color;
    const char *dash; /* stroke-dasharray, or NULL for a solid line */
    int         index; /* the allocator's first-appearance index */
} hr_svg_style_t;
hr_svg_style_t hr_svg_style(const hr_report_view_t *v, const char *alloc);
/* The style of the i-th allocator. */
hr_svg_style_t hr_svg_style_at(int i);
/* Its palette colour alone (bars, bands). */
const char *hr_svg_color(const hr_report_view_t *v, const char *alloc);
/* " stroke=\"C\" stroke-width=\"W\"[ stroke-dasharray=\"D\"]" for a data line. */
void hr_svg_stroke(char *buf, size_t n, const hr_svg_style_t *st, double width);

/* A scale: data [lo, hi] to pixels [p0, p1], linear or log10. */
typedef struct hr_scale {
    double lo, hi, p0, p1;
    int    log;
    double base; /* log: ticks at its powers (10; 4 for bytes) */
    double div;  /* linear: steps are nice in units of div (1; 1024^k for bytes) */
} hr_scale_t;

/* Fit [lo, hi] with nice bounds for values of `unit`; log when lo > 0 and
 * either allow_log is 2 or allow_log is 1 and hi / lo >= HR_LOG_SPAN (then
 * lo, hi are powers of the base); a linear scale starts at 0 when lo >= 0. */
#define HR_LOG_SPAN 50.0
void   hr_scale_fit(hr_scale_t *sc, double lo, double hi, int allow_log, hr_unit_t unit);
double hr_scale_px(const hr_scale_t *sc, double v); /* clamped into [p0, p1] */
/* The tick values (at most max): powers of the base, or nice steps. */
int    hr_scale_ticks(const hr_scale_t *sc, double *t, int max);

/* Number formats of the axis and value labels, by unit. */
void hr_svg_fmt(char *buf, size_t n, hr_unit_t unit, double v);

/* A panel: a title, a legend row, a plot area with two scales. */
typedef struct hr_panel {
    double    top, x0, y0, w, h; /* plot area: x0..x0+w, y0..y0+h (y0 at the top) */
    double    left;              /* the panel's left edge on the canvas */
    hr_scale_t x, y;
    hr_unit_t  xu, yu;
    int        legend_n;
    double     legend_x, legend_y;
} hr_panel_t;

/* Starts a panel at s->y: title, then room for legend rows; plot area of
 * plot_h px. */
void hr_panel_begin(hr_svg_t *s, hr_panel_t *p, const char *title, int plot_h);
/* The same in the column [x, x + w) of the canvas with a legend column of
 * legend_w px (0: none): the cells of a grid of small panels. */
void hr_panel_begin_box(hr_svg_t *s, hr_panel_t *p, const char *title, double x, double w,
                        int plot_h, int legend_w);
/* One legend entry: a swatch (solid, dashed or a box) and a label. */
enum { HR_KEY_LINE = 0, HR_KEY_DASHED, HR_KEY_BOX };
void hr_panel_key(hr_svg_t *s, hr_panel_t *p, const char *color, int style, const char *label);
/* A legend entry with an allocator's line style (hr_svg_style). */
void hr_panel_key_style(hr_svg_t *s, hr_panel_t *p, const hr_svg_style_t *st, const char *label);
/* Frame, grid, ticks and labels of both scales; axis titles in words. */
void hr_panel_axes(hr_svg_t *s, const hr_panel_t *p, const char *xlabel, const char *ylabel);
/* A panel with nothing to draw: a short empty frame holding n grey lines
 * that say why (no ticks, no axis titles). */
void hr_panel_empty(hr_svg_t *s, hr_panel_t *p, const char *const *lines, int n);
void hr_panel_end(hr_svg_t *s, const hr_panel_t *p);
/* A data line: n points (x[i], y[i]) in data units through the panel's
 * scales (points with a non-finite coordinate are left out). */
void hr_panel_line(hr_svg_t *s, const hr_panel_t *p, const double *x, const double *y, size_t n,
                   const char *attrs);

/* A grid of small panels ("small multiples"), one per allocator, for a
 * trace with more lines than one panel shows apart: a title and a legend
 * block across the canvas (the keys of hr_panel_key, one under the other),
 * then cells of plot_h px, as many columns as HR_GRID_CELL_W px fit. */
#define HR_GRID_CELL_W 360
#define HR_GRID_OVER 5      /* more lines than this in a panel: a grid */
#define HR_GRID_REF_COLOR "#b8b8b8" /* the reference line in every cell */
typedef struct hr_grid {
    int    cols, i, plot_h;
    double cell_w, row_top, row_bottom;
    hr_panel_t head; /* the legend block: hr_panel_key on it */
} hr_grid_t;
void hr_grid_begin(hr_svg_t *s, hr_grid_t *g, const char *title, int plot_h);
/* Starts the next cell's panel (title = its allocator); end it with
 * hr_grid_cell_end, the whole grid with hr_grid_end. */
void hr_grid_cell(hr_svg_t *s, hr_grid_t *g, hr_panel_t *p, const char *title);
void hr_grid_cell_end(hr_svg_t *s, hr_grid_t *g, const hr_panel_t *p);
void hr_grid_end(hr_svg_t *s, hr_grid_t *g);

/* Legend entries for the rows of `trace` not among drawn[0..n): "ALLOC:
 * failed (STATUS)" or "ALLOC: no WHAT series", so a missing line is said. */
void hr_panel_missing(hr_svg_t *s, hr_panel_t *p, const hr_report_view_t *v, const char *trace,
                      const hr_result_t *const *drawn, size_t n, const char *what);

/* The numbers of a JSON array as a malloc'd array (*out; NULL when empty or
 * not an array); returns the length. Non-numbers become NAN. */
size_t hr_svg_numbers(const hr_json_t *arr, double **out);
/* Largest finite value of v[0..n), or NAN. */
double hr_svg_max(const double *v, size_t n);

/* ---- report helpers ------------------------------------------------------ */

/* The rows of `trace` into out (room for v->n) in the ranking's order
 * (report/ranking.h, hr_rank_trace: the summary table's and the verdict's),
 * the rows not ranked after the ranked ones: the order of the summary
 * chart's bars and of the small panels. Returns their count. */
size_t hr_svg_rank_rows(const hr_report_view_t *v, const char *trace, const hr_result_t **out);
/* The same order for a chart's lines: rows[0..nl) are the rows it drew a
 * line for; idx (room for nl) gets the indices into rows in the ranking's
 * order (a row ranked but without a line is skipped). Returns the count. */
size_t hr_svg_rank_lines(const hr_report_view_t *v, const char *trace,
                         const hr_result_t *const *rows, size_t nl, size_t *idx);

/* The traces a chart draws: o->only_trace, or every trace of the results, as
 * a malloc'd array in *out (free it; NULL when none); returns the count. */
int hr_svg_chart_traces(const hr_report_view_t *v, const hr_svg_options_t *o,
                        const char ***out);
/* Draws one panel per trace the chart draws (hr_svg_chart_traces); 0. */
typedef void (*hr_svg_panel_fn)(hr_svg_t *s, const hr_report_view_t *v, const char *trace,
                                const hr_svg_options_t *o);
int hr_svg_each_trace(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o,
                      hr_svg_panel_fn panel);

#endif
