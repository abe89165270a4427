/* The table of chart kinds (see chart.h). */
#include "report/chart.h"

#include <string.h>

#include "report/charts.h"

typedef int (*chart_fn)(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o,
                        hr_error_t *err);

/* The kinds "all" draws, in order; the first failure (an unknown metric or
 * baseline of the summary) stops it. */
static const chart_fn all_kinds[] = {hr_chart_summary, hr_chart_memory, hr_chart_frames,
                                     hr_chart_latency};

static int chart_all(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o,
                     hr_error_t *err) {
    for (size_t i = 0; i < sizeof all_kinds / sizeof all_kinds[0]; i++)
        if (all_kinds[i](s, v, o, err) < 0)
            return -1;
    return 0;
}

/* Indexed by hr_chart_kind_t. `title`: the document's <title> word. */
static const struct {
    const char *name, *title;
    chart_fn    draw;
} kinds[] = {
    [HR_CHART_BARS] = {"bars", "bar", hr_chart_bars},
    [HR_CHART_SUMMARY] = {"summary", "series", hr_chart_summary},
    [HR_CHART_MEMORY] = {"memory", "series", hr_chart_memory},
    [HR_CHART_FRAMES] = {"frames", "series", hr_chart_frames},
    [HR_CHART_LATENCY] = {"latency", "series", hr_chart_latency},
    [HR_CHART_ALL] = {"all", "report", chart_all},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

int hr_svg_kind_parse(const char *s, hr_chart_kind_t *kind) {
    for (size_t i = 0; s && i < N_KINDS; i++)
        if (strcmp(s, kinds[i].name) == 0) {
            *kind = (hr_chart_kind_t)i;
            return 0;
        }
    return -1;
}

int hr_svg_render(const hr_json_t *report, const hr_svg_options_t *opt, FILE *out,
                  hr_error_t *err) {
    hr_report_view_t v;
    if (hr_report_view_init(&v, report) < 0) {
        hr_error_set(err, "out of memory");
        return -1;
    }
    int rc = hr_svg_render_view(&v, opt, out, err);
    hr_report_view_free(&v);
    return rc;
}

int hr_svg_render_view(const hr_report_view_t *v, const hr_svg_options_t *opt, FILE *out,
                       hr_error_t *err) {
    hr_svg_t s;
    char title[128];
    if (v->n == 0) {
        hr_error_set(err, "report has no results to plot");
        return -1;
    }
    if ((size_t)opt->kind >= N_KINDS) {
        hr_error_set(err, "unknown chart kind %d", (int)opt->kind);
        return -1;
    }
    if (hr_svg_open(&s, opt->width >= 400 ? opt->width : 400) < 0) {
        hr_error_set(err, "out of memory");
        return -1;
    }
    if (kinds[opt->kind].draw(&s, v, opt, err) < 0) {
        hr_svg_discard(&s);
        return -1;
    }
    snprintf(title, sizeof title, "heapreplay %s chart", kinds[opt->kind].title);
    return hr_svg_close(&s, out, title, opt->no_xml_decl);
}
