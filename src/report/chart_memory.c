/* Memory over time (svg.h, HR_CHART_MEMORY): per trace, one line per
 * allocator (its footprint series, else its RSS series) and the requested
 * live bytes as a dashed reference line, against recorded time when the
 * trace has timestamps, else against the event index. The y axis is log when
 * the lines' peaks differ by more than a decade (a linear one would flatten
 * the small ones onto zero). Reads result->series.memory (REPORT_SCHEMA.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "report/access.h"
#include "report/charts.h"
#include "report/svg.h"

#define PLOT_H 240
#define LIVE_COLOR "#333"

/* One row's line: x (time or event), y (footprint or RSS) and its kind. */
typedef struct mline {
    const hr_result_t *row;
    const char      *alloc; /* its allocator */
    double          *x, *y;
    size_t           n;
    const char      *what; /* NULL: footprint; "RSS" */
} mline_t;

/* The series arrays of a memory object; 0 when it has none of `ykey`. */
static size_t load(const hr_json_t *mem, int by_time, const char *ykey, double **x, double **y) {
    size_t nx = hr_svg_numbers(hr_json_get(mem, by_time ? "time_s" : "event"), x);
    size_t ny = hr_svg_numbers(hr_json_get(mem, ykey), y);
    if (nx == 0 || ny == 0) {
        free(*x);
        free(*y);
        *x = *y = NULL;
        return 0;
    }
    return nx < ny ? nx : ny;
}

static void no_series(hr_svg_t *s, hr_panel_t *p) {
    static const char *const why[] = {
        "No memory series for this trace: the report was written without series",
        "(report schema 1), or every row failed. Replay the trace again to draw it."};
    hr_panel_empty(s, p, why, 2);
}

/* What one trace's panel draws: a line per row that has one, the live line
 * (every row has the same: the trace's), and the extent of them all. */
typedef struct mpanel {
    mline_t *l, live;
    size_t   nl;
    int      by_time, any;
    double   minpeak, maxpeak, xmax;
} mpanel_t;

static void extent(mpanel_t *mp, const mline_t *m) {
    double pk = hr_svg_max(m->y, m->n), xm = hr_svg_max(m->x, m->n);
    if (pk > 0) {
        mp->minpeak = pk < mp->minpeak ? pk : mp->minpeak;
        mp->maxpeak = pk > mp->maxpeak ? pk : mp->maxpeak;
    }
    mp->xmax = xm > mp->xmax ? xm : mp->xmax;
}

/* Loads the lines of the ok rows of `trace`; x is time only when every row
 * with a memory series has time_s. */
static void collect(mpanel_t *mp, const hr_report_view_t *results, const char *trace) {
    size_t nr = results->n;
    mp->by_time = 1;
    mp->minpeak = INFINITY;
    for (size_t i = 0; i < nr; i++) {
        const hr_json_t *mem = hr_json_get(results->rows[i].series, "memory");
        if (hr_result_of_trace((&results->rows[i]), trace) && hr_json_type(mem) == HR_JSON_OBJECT) {
            mp->any = 1;
            mp->by_time &= hr_json_len(hr_json_get(mem, "time_s")) > 0;
        }
    }
    for (size_t i = 0; i < nr && mp->any; i++) {
        const hr_result_t *r = &results->rows[i];
        if (!hr_result_of_trace(r, trace) || !hr_result_ok(r))
            continue;
        const hr_json_t *mem = hr_json_get(r->series, "memory");
        if (hr_json_type(mem) != HR_JSON_OBJECT)
            continue;
        mline_t *m = &mp->l[mp->nl];
        m->row = r;
        m->alloc = r->allocator;
        m->n = load(mem, mp->by_time, "footprint_bytes", &m->x, &m->y);
        if (m->n == 0 && (m->n = load(mem, mp->by_time, "rss_bytes", &m->x, &m->y)) > 0)
            m->what = "RSS";
        if (mp->live.n == 0 && (mp->live.n = load(mem, mp->by_time, "live_bytes", &mp->live.x,
                                                  &mp->live.y)) > 0)
            extent(mp, &mp->live);
        if (m->n == 0)
            continue;
        extent(mp, m);
        mp->nl++;
    }
}

static void draw(hr_svg_t *s, hr_panel_t *p, const mpanel_t *mp, const hr_report_view_t *results) {
    char attrs[128];
    p->xu = mp->by_time ? HR_UNIT_SECONDS : HR_UNIT_COUNT;
    p->yu = HR_UNIT_BYTES;
    hr_scale_fit(&p->x, 0, mp->xmax > 0 ? mp->xmax : 1, 0, p->xu);
    if (mp->maxpeak >= 10 * mp->minpeak) /* peaks a decade apart or more: log */
        hr_scale_fit(&p->y, mp->minpeak / 10, mp->maxpeak, 1, HR_UNIT_BYTES);
    else
        hr_scale_fit(&p->y, 0, mp->maxpeak > 0 ? mp->maxpeak : 1, 0, HR_UNIT_BYTES);
    hr_panel_axes(s, p, mp->by_time ? "time in the trace (recorded timestamps)" : "event index",
                  p->y.log ? "bytes (log scale)" : "bytes");
    for (size_t k = 0; k < mp->nl; k++) {
        hr_svg_style_t st = hr_svg_style(results, mp->l[k].alloc);
        hr_svg_stroke(attrs, sizeof attrs, &st, 1.4);
        hr_panel_line(s, p, mp->l[k].x, mp->l[k].y, mp->l[k].n, attrs);
    }
    if (mp->live.n)
        hr_panel_line(s, p, mp->live.x, mp->live.y, mp->live.n, " stroke=\"" LIVE_COLOR "\" "
                      "stroke-width=\"1.4\" stroke-dasharray=\"5 3\"");
}

static void legend(hr_svg_t *s, hr_panel_t *p, const mpanel_t *mp, const hr_report_view_t *results,
                   const char *trace) {
    const hr_result_t **drawn = malloc((mp->nl ? mp->nl : 1) * sizeof *drawn);
    char key[192];
    size_t nd = 0;
    if (!drawn) /* drawn rows would be listed as missing */
        hr_outfile_note_oom();
    if (mp->live.n)
        hr_panel_key(s, p, LIVE_COLOR, HR_KEY_DASHED, "live (requested bytes)");
    for (size_t k = 0; k < mp->nl; k++) {
        const char *alloc = mp->l[k].alloc;
        snprintf(key, sizeof key, "%s%s", alloc, mp->l[k].what ? " (RSS)" : "");
        hr_svg_style_t st = hr_svg_style(results, alloc);
        hr_panel_key_style(s, p, &st, key);
        if (drawn)
            drawn[nd++] = mp->l[k].row;
    }
    if (mp->any) /* rows that could not be drawn, said so */
        hr_panel_missing(s, p, results, trace, drawn, nd, "memory");
    free(drawn);
}

static void panel(hr_svg_t *s, const hr_report_view_t *results, const char *trace,
                  const hr_svg_options_t *o) {
    size_t nr = results->n;
    mpanel_t mp = {calloc(nr ? nr : 1, sizeof *mp.l), {0}, 0, 0, 0, 0, 0, 0};
    char title[512];
    hr_panel_t p;
    if (!mp.l) {
        hr_outfile_note_oom();
        return;
    }
    collect(&mp, results, trace);
    snprintf(title, sizeof title, "Memory over time: %s", hr_report_trace_base(trace));
    hr_panel_begin(s, &p, title, PLOT_H);
    if (mp.nl == 0 && mp.live.n == 0)
        no_series(s, &p);
    else
        draw(s, &p, &mp, results);
    legend(s, &p, &mp, results, trace);
    hr_panel_end(s, &p);
    for (size_t k = 0; k < nr; k++) {
        free(mp.l[k].x);
        free(mp.l[k].y);
    }
    free(mp.l);
    free(mp.live.x);
    free(mp.live.y);
}

int hr_chart_memory(hr_svg_t *s, const hr_report_view_t *rep, const hr_svg_options_t *o,
                    hr_error_t *err) {
    (void)err;
    return hr_svg_each_trace(s, rep, o, panel);
}
