/* SVG drawing for the charts (see svg.h): the canvas, primitives, scales
 * with nice ticks, panels with axes and legends (the dispatch by kind is
 * chart.c).
 * Every string that reaches the document goes through hr_emit_put_xml. */
#include "report/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/emit.h"
#include "base/outfile.h"
#include "report/access.h"
#include "report/ranking.h"

#define LEFT 84     /* y tick labels and the y axis title */
#define RIGHT 16
#define LEGEND_W 170 /* the legend column right of the plot area */
#define TITLE_H 30
#define BOTTOM 48   /* x tick labels and the x axis title */
#define PANEL_GAP 18

/* Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008),
 * the yellow last: it is the weakest on white. */
static const char *const palette[HR_SVG_NCOLORS] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                                    "#56B4E9", "#D55E00", "#000000", "#F0E442"};
/* The second and third round of the colours: dashed, then dotted. */
static const char *const dashes[] = {NULL, "7 3", "2 2"};

hr_svg_options_t hr_svg_options_default(void) {
    hr_svg_options_t o = {HR_SVG_METRIC_DEFAULT, 800, HR_CHART_BARS, NULL, HR_FRAME_BUDGET_DEFAULT_NS,
                          0, 0, 0, NULL};
    return o;
}

/* ---- canvas and primitives ---------------------------------------------- */

int hr_svg_open(hr_svg_t *s, int width) {
    memset(s, 0, sizeof *s);
    s->width = width;
    s->f = hr_memstream_open(&s->buf, &s->len);
    return s->f ? 0 : -1;
}

void hr_svg_discard(hr_svg_t *s) {
    if (s->f)
        fclose(s->f);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

int hr_svg_close(hr_svg_t *s, FILE *out, const char *title, int no_xml_decl) {
    int h = (int)ceil(s->y) + 8;
    int bad = ferror(s->f);
    bad |= fclose(s->f) != 0;
    s->f = NULL;
    if (bad || !s->buf) { /* the buffer could not grow: the chart is cut */
        hr_outfile_note_oom();
        free(s->buf);
        s->buf = NULL;
        s->len = 0;
    }
    if (!no_xml_decl)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    /* Inline in HTML the parser gives <svg> its namespace (no URL in the
     * page), and the chart takes the page's width: the viewBox keeps its
     * proportions, the page's style sheet makes the height follow. A file of
     * its own has its size in pixels. */
    if (no_xml_decl)
        fprintf(out, "<svg width=\"100%%\" viewBox=\"0 0 %d %d\"", s->width, h);
    else
        fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                     "viewBox=\"0 0 %d %d\"", s->width, h, s->width, h);
    fputs(" font-family=\"sans-serif\" font-size=\"12\">\n<title>", out);
    hr_emit_put_xml(out, title);
    fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
    if (s->len)
        fwrite(s->buf, 1, s->len, out);
    fputs("</svg>\n", out);
    free(s->buf);
    s->buf = NULL;
    return ferror(out) ? -1 : 0;
}

void hr_svg_text(hr_svg_t *s, double x, double y, const char *attrs, const char *text) {
    fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\"%s>", x, y, attrs ? attrs : "");
    hr_emit_put_xml(s->f, text);
    fputs("</text>\n", s->f);
}

void hr_svg_line(hr_svg_t *s, double x1, double y1, double x2, double y2, const char *attrs) {
    fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s/>\n", x1, y1, x2, y2,
            attrs ? attrs : " stroke=\"black\"");
}

void hr_svg_rect(hr_svg_t *s, double x, double y, double w, double h, const char *fill) {
    fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x, y,
            w, h, fill);
}

void hr_svg_polyline(hr_svg_t *s, const double *x, const double *y, size_t n, const char *attrs) {
    if (n == 0)
        return;
    fputs("<polyline fill=\"none\" points=\"", s->f);
    for (size_t i = 0; i < n; i++)
        fprintf(s->f, "%s%.1f,%.1f", i ? " " : "", x[i], y[i]);
    fprintf(s->f, "\"%s/>\n", attrs ? attrs : "");
}

hr_svg_style_t hr_svg_style_at(int i) {
    hr_svg_style_t st;
    i = i < 0 ? 0 : i;
    st.index = i;
    st.color = palette[i % HR_SVG_NCOLORS];
    st.dash = dashes[(i / HR_SVG_NCOLORS) % (int)(sizeof dashes / sizeof dashes[0])];
    return st;
}

hr_svg_style_t hr_svg_style(const hr_report_view_t *v, const char *alloc) {
    int k = 0;
    for (size_t i = 0; i < v->n; i++) {
        const char *a = v->rows[i].allocator;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(v->rows[j].allocator, a) == 0;
        if (strcmp(a, alloc) == 0)
            return hr_svg_style_at(k);
        k += !seen;
    }
    return hr_svg_style_at(0);
}

const char *hr_svg_color(const hr_report_view_t *v, const char *alloc) {
    return hr_svg_style(v, alloc).color;
}

void hr_svg_stroke(char *buf, size_t n, const hr_svg_style_t *st, double width) {
    int k = snprintf(buf, n, " stroke=\"%s\" stroke-width=\"%.1f\"", st->color, width);
    if (st->dash && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " stroke-dasharray=\"%s\"", st->dash);
}

/* ---- scales and number formats ------------------------------------------ */

/* A step of 1, 2, 2.5 or 5 x 10^k that cuts `range` into at most `max`
 * intervals. */
static double nice_step(double range, int max) {
    static const double m[] = {1, 2, 2.5, 5, 10};
    if (!(range > 0))
        return 1;
    double p = pow(10, floor(log10(range / max)));
    for (int i = 0; i < 5; i++)
        if (ceil(range / (m[i] * p) - 1e-9) <= max)
            return m[i] * p;
    return 10 * p;
}

#define MAX_STEPS 7

/* Bytes read best in binary units: linear steps are nice in KiB/MiB/GiB, a
 * log axis has powers of 4 (1 KiB, 4 KiB, 16 KiB ...) instead of decades. */
static double unit_div(hr_unit_t unit, double hi) {
    double d = 1;
    while (unit == HR_UNIT_BYTES && hi / d >= 1024)
        d *= 1024;
    return d;
}

void hr_scale_fit(hr_scale_t *sc, double lo, double hi, int allow_log, hr_unit_t unit) {
    if (!isfinite(lo) || !isfinite(hi) || hi < lo)
        lo = 0, hi = 1;
    sc->log = lo > 0 && (allow_log == 2 || (allow_log && hi / lo >= HR_LOG_SPAN));
    sc->base = unit == HR_UNIT_BYTES ? 4 : 10;
    if (sc->log) {
        double lb = log(sc->base);
        sc->lo = pow(sc->base, floor(log(lo) / lb + 1e-9));
        sc->hi = pow(sc->base, ceil(log(hi) / lb - 1e-9));
        if (sc->hi <= sc->lo)
            sc->hi = sc->lo * sc->base;
        return;
    }
    if (lo > 0 && hi > 0)
        lo = 0;
    if (hi <= lo)
        hi = lo + (lo > 0 ? lo : 1);
    sc->div = unit_div(unit, hi);
    double step = nice_step((hi - lo) / sc->div, MAX_STEPS) * sc->div;
    sc->lo = floor(lo / step + 1e-9) * step;
    sc->hi = ceil(hi / step - 1e-9) * step;
}

double hr_scale_px(const hr_scale_t *sc, double v) {
    double t;
    if (sc->log)
        t = v > 0 ? (log10(v) - log10(sc->lo)) / (log10(sc->hi) - log10(sc->lo)) : 0;
    else
        t = (v - sc->lo) / (sc->hi - sc->lo);
    if (!isfinite(t) || t < 0)
        t = 0;
    if (t > 1)
        t = 1;
    return sc->p0 + t * (sc->p1 - sc->p0);
}

/* The tick values of a scale (at most max): powers of the log base (every
 * k-th when there are many), nice steps of a linear one. */
int hr_scale_ticks(const hr_scale_t *sc, double *t, int max) {
    int n = 0;
    if (sc->log) {
        double base = sc->base > 1 ? sc->base : 10, lb = log(base);
        int d0 = (int)lround(log(sc->lo) / lb), d1 = (int)lround(log(sc->hi) / lb);
        int every = (d1 - d0 + MAX_STEPS - 1) / MAX_STEPS;
        for (int d = d0; d <= d1 && n < max; d += every ? every : 1)
            t[n++] = pow(base, d);
        return n;
    }
    double div = sc->div > 0 ? sc->div : 1;
    double step = nice_step((sc->hi - sc->lo) / div, MAX_STEPS) * div;
    for (double v = sc->lo; v <= sc->hi + step * 1e-6 && n < max; v += step)
        t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

/* %.3g with a k/M/G suffix and the unit: "20.7 M ops/s", "150 k". */
static void fmt_si(char *buf, size_t n, double v, const char *unit) {
    static const char *const sfx[] = {"", "k", "M", "G", "T"};
    int k = 0;
    while (fabs(v) >= 1000 && k < 4)
        v /= 1000, k++;
    snprintf(buf, n, "%.3g%s%s%s%s", v, k || *unit ? " " : "", sfx[k], k && *unit ? " " : "",
             unit);
}

static void fmt_time_ns(char *buf, size_t n, double ns) {
    static const char *const u[] = {"ns", "µs", "ms", "s"};
    int k = 0;
    while (fabs(ns) >= 1000 && k < 3)
        ns /= 1000, k++;
    snprintf(buf, n, "%.3g %s", ns, u[k]);
}

static void fmt_bytes_short(char *buf, size_t n, double b) {
    static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (fabs(b) >= 1024 && k < 4)
        b /= 1024, k++;
    snprintf(buf, n, "%.4g %s", b, u[k]);
}

void hr_svg_fmt(char *buf, size_t n, hr_unit_t unit, double v) {
    if (v == 0 && unit != HR_UNIT_RATIO) { /* "0", not "0 ns" or "0 B" at an axis origin */
        snprintf(buf, n, "0");
        return;
    }
    switch (unit) {
    case HR_UNIT_BYTES: fmt_bytes_short(buf, n, v); break;
    case HR_UNIT_NS: fmt_time_ns(buf, n, v); break;
    case HR_UNIT_SECONDS: fmt_time_ns(buf, n, v * 1e9); break;
    case HR_UNIT_OPS_PER_S: fmt_si(buf, n, v, "ops/s"); break;
    case HR_UNIT_RATIO: snprintf(buf, n, "%.3g%%", v * 100); break;
    case HR_UNIT_COUNT:
    case HR_UNIT_TEXT:
    default: fmt_si(buf, n, v, ""); break;
    }
}

/* ---- panels ------------------------------------------------------------- */

void hr_panel_begin(hr_svg_t *s, hr_panel_t *p, const char *title, int plot_h) {
    hr_panel_begin_box(s, p, title, 0, s->width, plot_h, LEGEND_W);
}

void hr_panel_begin_box(hr_svg_t *s, hr_panel_t *p, const char *title, double x, double w,
                        int plot_h, int legend_w) {
    memset(p, 0, sizeof *p);
    p->top = s->y;
    p->left = x;
    hr_svg_text(s, x + 10, s->y + 20, " font-size=\"15\" font-weight=\"bold\"", title);
    p->x0 = x + LEFT;
    p->y0 = s->y + TITLE_H + 6;
    p->w = w - LEFT - RIGHT - legend_w;
    p->h = plot_h;
    p->x.p0 = p->x0;
    p->x.p1 = p->x0 + p->w;
    p->y.p0 = p->y0 + p->h; /* y grows upwards */
    p->y.p1 = p->y0;
    p->legend_x = p->x0 + p->w + 14;
    p->legend_y = p->y0 + 4;
}

/* A legend entry: the swatch drawn by the caller's attributes. */
static void key(hr_svg_t *s, hr_panel_t *p, const char *color, const char *line_attrs,
                const char *label) {
    double x = p->legend_x, y = p->legend_y + 16.0 * p->legend_n;
    if (y > p->y0 + p->h - 4)
        return; /* more entries than room: the plot still shows them */
    if (!line_attrs)
        hr_svg_rect(s, x, y, 18, 9, color);
    else
        hr_svg_line(s, x, y + 5, x + 22, y + 5, line_attrs);
    hr_svg_text(s, x + 28, y + 9, " font-size=\"11\"", label);
    p->legend_n++;
}

void hr_panel_key(hr_svg_t *s, hr_panel_t *p, const char *color, int style, const char *label) {
    char attrs[128];
    snprintf(attrs, sizeof attrs, " stroke=\"%s\" stroke-width=\"2\"%s", color,
             style == HR_KEY_DASHED ? " stroke-dasharray=\"5 3\"" : "");
    key(s, p, color, style == HR_KEY_BOX ? NULL : attrs, label);
}

void hr_panel_key_style(hr_svg_t *s, hr_panel_t *p, const hr_svg_style_t *st, const char *label) {
    char attrs[128];
    hr_svg_stroke(attrs, sizeof attrs, st, 2);
    key(s, p, st->color, attrs, label);
}

static void axis_ticks(hr_svg_t *s, const hr_panel_t *p, int vertical) {
    const hr_scale_t *sc = vertical ? &p->y : &p->x;
    double t[16];
    char buf[48];
    int n = hr_scale_ticks(sc, t, 16);
    for (int i = 0; i < n; i++) {
        double px = hr_scale_px(sc, t[i]);
        hr_svg_fmt(buf, sizeof buf, vertical ? p->yu : p->xu, t[i]);
        if (vertical) {
            hr_svg_line(s, p->x0, px, p->x0 + p->w, px, " stroke=\"#e4e4e4\"");
            hr_svg_line(s, p->x0 - 4, px, p->x0, px, NULL);
            hr_svg_text(s, p->x0 - 6, px + 4, " text-anchor=\"end\" font-size=\"10\"", buf);
        } else {
            hr_svg_line(s, px, p->y0, px, p->y0 + p->h, " stroke=\"#e4e4e4\"");
            hr_svg_line(s, px, p->y0 + p->h, px, p->y0 + p->h + 4, NULL);
            hr_svg_text(s, px, p->y0 + p->h + 16, " text-anchor=\"middle\" font-size=\"10\"", buf);
        }
    }
}

void hr_panel_axes(hr_svg_t *s, const hr_panel_t *p, const char *xlabel, const char *ylabel) {
    char attrs[128];
    if (p->xu != HR_UNIT_TEXT) /* HR_UNIT_TEXT: no ticks (categories, or a note panel) */
        axis_ticks(s, p, 0);
    if (p->yu != HR_UNIT_TEXT)
        axis_ticks(s, p, 1);
    fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                  "stroke=\"#555\"/>\n", p->x0, p->y0, p->w, p->h);
    if (xlabel)
        hr_svg_text(s, p->x0 + p->w / 2, p->y0 + p->h + 36, " text-anchor=\"middle\"", xlabel);
    if (ylabel) {
        double cx = p->left + 16, cy = p->y0 + p->h / 2;
        snprintf(attrs, sizeof attrs, " text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\"",
                 cx, cy);
        hr_svg_text(s, cx, cy, attrs, ylabel);
    }
}

void hr_panel_empty(hr_svg_t *s, hr_panel_t *p, const char *const *lines, int n) {
    p->h = 24 + 16.0 * n;
    p->x.lo = p->y.lo = 0;
    p->x.hi = p->y.hi = 1;
    p->xu = p->yu = HR_UNIT_TEXT;
    hr_panel_axes(s, p, NULL, NULL);
    for (int i = 0; i < n; i++)
        hr_svg_text(s, p->x0 + p->w / 2, p->y0 + 28 + 16.0 * i,
                    " text-anchor=\"middle\" fill=\"#777\" font-style=\"italic\"", lines[i]);
}

void hr_panel_end(hr_svg_t *s, const hr_panel_t *p) {
    s->y = p->y0 + p->h + (p->xu == HR_UNIT_TEXT ? 0 : BOTTOM) + PANEL_GAP;
}

void hr_panel_line(hr_svg_t *s, const hr_panel_t *p, const double *x, const double *y, size_t n,
                   const char *attrs) {
    double *px = malloc((n ? n : 1) * 2 * sizeof *px);
    size_t k = 0;
    if (!px) {
        hr_outfile_note_oom(); /* the chart would lack a line */
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i])) {
            px[k] = hr_scale_px(&p->x, x[i]);
            px[n + k++] = hr_scale_px(&p->y, y[i]);
        }
    hr_svg_polyline(s, px, px + n, k, attrs);
    free(px);
}

void hr_grid_begin(hr_svg_t *s, hr_grid_t *g, const char *title, int plot_h) {
    memset(g, 0, sizeof *g);
    g->cols = s->width / HR_GRID_CELL_W > 1 ? s->width / HR_GRID_CELL_W : 1;
    g->cell_w = (double)s->width / g->cols;
    g->plot_h = plot_h;
    hr_svg_text(s, 10, s->y + 20, " font-size=\"15\" font-weight=\"bold\"", title);
    /* the legend block: keys one under the other from the left margin */
    g->head.top = s->y;
    g->head.legend_x = 14;
    g->head.legend_y = g->head.y0 = s->y + TITLE_H;
    g->head.h = 1e6;
}

void hr_grid_cell(hr_svg_t *s, hr_grid_t *g, hr_panel_t *p, const char *title) {
    if (g->i == 0)
        g->row_top = g->row_bottom = g->head.legend_y + 16.0 * g->head.legend_n + 6;
    else if (g->i % g->cols == 0)
        g->row_top = g->row_bottom;
    s->y = g->row_top;
    hr_panel_begin_box(s, p, title, (g->i % g->cols) * g->cell_w, g->cell_w, g->plot_h, 0);
}

void hr_grid_cell_end(hr_svg_t *s, hr_grid_t *g, const hr_panel_t *p) {
    hr_panel_end(s, p);
    g->row_bottom = s->y > g->row_bottom ? s->y : g->row_bottom;
    g->i++;
}

void hr_grid_end(hr_svg_t *s, hr_grid_t *g) {
    s->y = g->i ? g->row_bottom : g->head.legend_y + 16.0 * g->head.legend_n + PANEL_GAP;
}

void hr_panel_missing(hr_svg_t *s, hr_panel_t *p, const hr_report_view_t *v, const char *trace,
                      const hr_result_t *const *drawn, size_t n, const char *what) {
    char key[192];
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        int seen = 0;
        for (size_t k = 0; k < n && !seen; k++)
            seen = drawn[k] == r;
        if (!hr_result_of_trace(r, trace) || seen)
            continue;
        if (hr_result_ok(r))
            snprintf(key, sizeof key, "%s: no %s series", r->allocator, what);
        else
            snprintf(key, sizeof key, "%s: failed (%s)", r->allocator, r->status);
        hr_panel_key(s, p, "#bbb", HR_KEY_BOX, key);
    }
}

/* ---- report helpers ----------------------------------------------------- */

size_t hr_svg_rank_rows(const hr_report_view_t *v, const char *trace, const hr_result_t **out) {
    hr_ranking_t rk;
    hr_rank_trace(&rk, v, trace);
    size_t n = 0;
    for (int i = 0; i < rk.n; i++)
        out[n++] = rk.e[i].r;
    return n;
}

size_t hr_svg_rank_lines(const hr_report_view_t *v, const char *trace,
                         const hr_result_t *const *rows, size_t nl, size_t *idx) {
    hr_ranking_t rk;
    hr_rank_trace(&rk, v, trace);
    size_t n = 0;
    for (int i = 0; i < rk.n; i++)
        for (size_t k = 0; k < nl; k++)
            if (rows[k] == rk.e[i].r) {
                idx[n++] = k;
                break;
            }
    return n;
}

size_t hr_svg_numbers(const hr_json_t *arr, double **out) {
    size_t n = hr_json_type(arr) == HR_JSON_ARRAY ? hr_json_len(arr) : 0;
    *out = n ? malloc(n * sizeof **out) : NULL;
    if (!*out) {
        if (n)
            hr_outfile_note_oom();
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        (*out)[i] = hr_json_num(hr_json_at(arr, i), NAN);
    return n;
}

double hr_svg_max(const double *v, size_t n) {
    double m = NAN;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && !(v[i] <= m))
            m = v[i];
    return m;
}

int hr_svg_chart_traces(const hr_report_view_t *v, const hr_svg_options_t *o,
                        const char ***out) {
    if (!o->only_trace) {
        *out = v->ntraces ? malloc((size_t)v->ntraces * sizeof **out) : NULL;
        if (!*out) {
            if (v->ntraces)
                hr_outfile_note_oom(); /* the chart would lack its traces */
            return 0;
        }
        memcpy(*out, v->traces, (size_t)v->ntraces * sizeof **out);
        return v->ntraces;
    }
    *out = malloc(sizeof **out);
    if (!*out) {
        hr_outfile_note_oom();
        return 0;
    }
    (*out)[0] = o->only_trace;
    return 1;
}

int hr_svg_each_trace(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o,
                      hr_svg_panel_fn panel) {
    const char **traces;
    int nt = hr_svg_chart_traces(v, o, &traces);
    for (int t = 0; t < nt; t++)
        panel(s, v, traces[t], o);
    free(traces);
    return 0;
}
