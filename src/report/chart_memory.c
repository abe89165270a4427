/* Memory over time (svg.h, HR_CHART_MEMORY): per trace, one line per
 * allocator (its footprint series, else its RSS series) and the requested
 * live bytes as a dashed reference line, against recorded time when the
 * trace has timestamps, else against the event index. The y axis is log when
 * the lines' peaks differ by more than a decade (a linear one would flatten
 * the small ones onto zero). Reads result.series.memory (REPORT_SCHEMA.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/svg.h"

#define PLOT_H 240
#define LIVE_COLOR "#333"

/* One row's line: x (time or event), y (footprint or RSS) and its kind. */
typedef struct mline {
    const hr_json_t *row;
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
    p->x.lo = p->y.lo = 0;
    p->x.hi = p->y.hi = 1;
    p->yu = p->xu = HR_UNIT_TEXT;
    hr_panel_axes(s, p, NULL, NULL);
    hr_panel_note(s, p, -1, "No memory series for this trace: the report was written");
    hr_panel_note(s, p, 0, "without series (report schema 1), or every row failed.");
    hr_panel_note(s, p, 1, "Replay it again with this heapreplay to draw it.");
}

static void panel(hr_svg_t *s, const hr_json_t *results, const char *trace) {
    size_t nr = hr_json_len(results), nl = 0;
    mline_t *l = calloc(nr ? nr : 1, sizeof *l);
    double *lx = NULL, *ly = NULL;
    size_t ln = 0;
    int by_time = 1, any = 0;
    char title[512], key[192];
    if (!l)
        return;
    for (size_t i = 0; i < nr; i++) { /* time only when every drawn row has it */
        const hr_json_t *mem = hr_json_path(hr_json_at(results, i), "series.memory");
        if (hr_svg_row_of(hr_json_at(results, i), trace) && hr_json_type(mem) == HR_JSON_OBJECT) {
            any = 1;
            by_time &= hr_json_len(hr_json_get(mem, "time_s")) > 0;
        }
    }
    snprintf(title, sizeof title, "Memory over time: %s", hr_report_trace_base(trace));
    hr_panel_t p;
    hr_panel_begin(s, &p, title, PLOT_H);
    double minpeak = INFINITY, maxpeak = 0, xmax = 0;
    for (size_t i = 0; i < nr && any; i++) {
        const hr_json_t *r = hr_json_at(results, i);
        const hr_json_t *mem = hr_json_path(r, "series.memory");
        if (!hr_svg_row_of(r, trace) || !hr_svg_row_ok(r) || hr_json_type(mem) != HR_JSON_OBJECT)
            continue;
        mline_t *m = &l[nl];
        m->row = r;
        m->n = load(mem, by_time, "footprint_bytes", &m->x, &m->y);
        if (m->n == 0 && (m->n = load(mem, by_time, "rss_bytes", &m->x, &m->y)) > 0)
            m->what = "RSS";
        if (ln == 0)
            ln = load(mem, by_time, "live_bytes", &lx, &ly);
        if (m->n == 0)
            continue;
        double pk = hr_svg_max(m->y, m->n), xm = hr_svg_max(m->x, m->n);
        if (pk > 0) {
            minpeak = pk < minpeak ? pk : minpeak;
            maxpeak = pk > maxpeak ? pk : maxpeak;
        }
        xmax = xm > xmax ? xm : xmax;
        nl++;
    }
    if (ln) {
        double pk = hr_svg_max(ly, ln), xm = hr_svg_max(lx, ln);
        if (pk > 0) {
            minpeak = pk < minpeak ? pk : minpeak;
            maxpeak = pk > maxpeak ? pk : maxpeak;
        }
        xmax = xm > xmax ? xm : xmax;
    }
    if (nl == 0 && ln == 0) {
        no_series(s, &p);
    } else {
        p.xu = by_time ? HR_UNIT_SECONDS : HR_UNIT_COUNT;
        p.yu = HR_UNIT_BYTES;
        hr_scale_fit(&p.x, 0, xmax > 0 ? xmax : 1, 0, p.xu);
        if (maxpeak >= 10 * minpeak) /* peaks a decade apart or more: log */
            hr_scale_fit(&p.y, minpeak / 10, maxpeak, 1, HR_UNIT_BYTES);
        else
            hr_scale_fit(&p.y, 0, maxpeak > 0 ? maxpeak : 1, 0, HR_UNIT_BYTES);
        hr_panel_axes(s, &p, by_time ? "time in the trace (recorded timestamps)" : "event index",
                      p.y.log ? "bytes (log scale)" : "bytes");
        for (size_t k = 0; k < nl; k++) {
            const char *alloc = hr_json_path_str(l[k].row, "allocator");
            char attrs[96];
            snprintf(attrs, sizeof attrs, " stroke=\"%s\" stroke-width=\"1.6\"",
                     hr_svg_color(results, alloc));
            hr_panel_line(s, &p, l[k].x, l[k].y, l[k].n, attrs);
        }
        if (ln)
            hr_panel_line(s, &p, lx, ly, ln, " stroke=\"" LIVE_COLOR "\" stroke-width=\"1.4\" "
                          "stroke-dasharray=\"5 3\"");
    }
    if (ln)
        hr_panel_key(s, &p, LIVE_COLOR, HR_KEY_DASHED, "live (requested bytes)");
    for (size_t k = 0; k < nl; k++) {
        const char *alloc = hr_json_path_str(l[k].row, "allocator");
        snprintf(key, sizeof key, "%s%s", alloc, l[k].what ? " (RSS)" : "");
        hr_panel_key(s, &p, hr_svg_color(results, alloc), HR_KEY_LINE, key);
    }
    if (any) { /* rows that could not be drawn, said so */
        const hr_json_t *drawn[256];
        size_t nd = 0;
        for (size_t k = 0; k < nl && nd < 256; k++)
            drawn[nd++] = l[k].row;
        hr_panel_missing(s, &p, results, trace, drawn, nd, "memory");
    }
    hr_panel_end(s, &p);
    for (size_t k = 0; k < nr; k++) {
        free(l[k].x);
        free(l[k].y);
    }
    free(l);
    free(lx);
    free(ly);
}

int hr_chart_memory(hr_svg_t *s, const hr_json_t *rep, const hr_svg_options_t *o) {
    const char *traces[256];
    const hr_json_t *results = hr_json_get(rep, "results");
    int nt = hr_svg_traces(results, traces, 256);
    (void)o;
    for (int t = 0; t < nt; t++)
        panel(s, results, traces[t]);
    return 0;
}
