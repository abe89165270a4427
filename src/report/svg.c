/* SVG bar charts (see svg.h). Layout, top to bottom: title, then per trace a
 * bold group label and one bar per allocator, then the x axis with ticks.
 * Labels sit in a fixed left margin; values are printed after each bar. */
#include "report/svg.h"

#include <math.h>
#include <string.h>

#include "base/metrics.h"
#include "report/compare.h"
#include "report/builder.h"
#include "report/report.h"

#define LABEL_W 230
#define BAR_H 18
#define BAR_GAP 4
#define GROUP_GAP 14
#define TOP 48

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

hr_svg_options_t hr_svg_options_default(void) {
    hr_svg_options_t o = {"throughput", 800};
    return o;
}

int hr_svg_metric_path(const char *metric, char *path, size_t n) {
    hr_compare_metric_t m;
    const hr_metric_t *leaf;
    if (!metric)
        return -1;
    if (hr_compare_metric_lookup(metric, &m) == 0) {
        snprintf(path, n, "%s", m.path);
        return 0;
    }
    if ((leaf = hr_metric_by_leaf(metric))) {
        snprintf(path, n, "%s", leaf->path);
        return 0;
    }
    return -1;
}

void hr_svg_metric_names(FILE *out) {
    const char *dflt = hr_svg_options_default().metric;
    int col = 9;
    fputs("metrics:", out);
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < HR_M__COUNT; k++) {
            const hr_metric_t *m = &hr_metrics[k];
            const char *name = pass == 0 ? m->alias : (m->flags & HR_MF_PLOT) ? hr_metric_key(m) : NULL;
            if (!name || (pass == 1 && m->alias && strcmp(name, m->alias) == 0))
                continue;
            if (col + strlen(name) + 2 > 78) {
                fputs("\n        ", out);
                col = 8;
            }
            col += fprintf(out, " %s%s", name, strcmp(name, dflt) == 0 ? " (default)," : ",");
        }
    fputs("\n         or any dotted path of a number in a result (e.g. native.native_ops)\n", out);
}

static void put_xml(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

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

/* A "nice" axis maximum: 1, 2, 2.5 or 5 times a power of ten, >= v. */
static double nice_max(double v) {
    if (!(v > 0))
        return 1;
    double p = pow(10, floor(log10(v)));
    static const double steps[] = {1, 2, 2.5, 5, 10};
    for (int i = 0; i < 5; i++)
        if (steps[i] * p >= v)
            return steps[i] * p;
    return 10 * p;
}

/* Palette index of an allocator: by first appearance, so an allocator keeps
 * its colour in every group. */
static int color_of(const hr_json_t *results, const char *alloc) {
    int k = 0;
    for (size_t i = 0; i < hr_json_len(results); i++) {
        const char *a = hr_json_path_str(hr_json_at(results, i), "allocator");
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(hr_json_path_str(hr_json_at(results, j), "allocator"), a) == 0;
        if (strcmp(a, alloc) == 0)
            return k % 10;
        k += !seen;
    }
    return 0;
}

static int first_of_trace(const hr_json_t *results, size_t i) {
    const char *t = hr_json_path_str(hr_json_at(results, i), "trace");
    for (size_t j = 0; j < i; j++)
        if (strcmp(hr_json_path_str(hr_json_at(results, j), "trace"), t) == 0)
            return 0;
    return 1;
}

int hr_svg_render(const hr_json_t *report, const hr_svg_options_t *opt, FILE *out,
                  hr_error_t *err) {
    char path[128], buf[64];
    if (hr_svg_metric_path(opt->metric, path, sizeof path) < 0) {
        hr_error_set(err, "--metric: unknown metric \"%s\" (expected e.g. ops_per_s, "
                 "peak_footprint, p99, or a dotted path)", opt->metric ? opt->metric : "");
        return -1;
    }
    const hr_json_t *results = hr_json_get(report, "results");
    size_t nr = hr_json_len(results);
    double vmax = 0;
    int ngroups = 0, fallback = 0;
    for (size_t i = 0; i < nr; i++) {
        double v = hr_json_path_num(hr_json_at(results, i), path);
        if (isfinite(v) && v > vmax)
            vmax = v;
        ngroups += first_of_trace(results, i);
        fallback |= hr_result_mostly_fallback(hr_json_at(results, i));
    }
    if (nr == 0) {
        hr_error_set(err, "report has no results to plot");
        return -1;
    }
    int width = opt->width >= 400 ? opt->width : 400, plot_w = width - LABEL_W - 110;
    int height = TOP + ngroups * (GROUP_GAP + 20) + (int)nr * (BAR_H + BAR_GAP) + 50 + 20 * fallback;
    double axis = nice_max(vmax);
    const hr_metric_t *def = hr_metric_by_path(path);
    int higher = def && (def->flags & HR_MF_HIGHER);

    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
    fprintf(out, "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">", 10);
    put_xml(out, path);
    fprintf(out, " (%s is better)</text>\n", higher ? "higher" : "lower");

    int y = TOP;
    for (size_t g = 0; g < nr; g++) {
        if (!first_of_trace(results, g))
            continue;
        const char *trace = hr_json_path_str(hr_json_at(results, g), "trace");
        fprintf(out, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">", y + 14);
        put_xml(out, hr_report_trace_base(trace));
        fputs("</text>\n", out);
        y += 20;
        for (size_t i = g; i < nr; i++) {
            const hr_json_t *r = hr_json_at(results, i);
            if (strcmp(hr_json_path_str(r, "trace"), trace) != 0)
                continue;
            const char *alloc = hr_json_path_str(r, "allocator");
            double v = hr_json_path_num(r, path);
            int ok = strcmp(hr_json_path_str(r, "status"), "ok") == 0 && isfinite(v);
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W - 8, y + 13);
            if (hr_result_mostly_fallback(r)) /* as in the tables: "!" = mostly fallback */
                fputs(HR_REPORT_FALLBACK_MARK, out);
            put_xml(out, alloc);
            fputs("</text>\n", out);
            if (ok) {
                double w = v > 0 ? v / axis * plot_w : 0;
                fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                        LABEL_W, y, w, BAR_H, palette[color_of(results, alloc)]);
                fmt_value(buf, sizeof buf, def, v);
                fprintf(out, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", LABEL_W + w + 4, y + 13, buf);
            } else {
                fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#999\">n/a (", LABEL_W + 4, y + 13);
                put_xml(out, hr_json_path_str(r, "status"));
                fputs(")</text>\n", out);
            }
            y += BAR_H + BAR_GAP;
        }
        y += GROUP_GAP;
    }
    /* x axis with 5 ticks */
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", LABEL_W,
            y, LABEL_W + plot_w, y);
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", LABEL_W,
            TOP, LABEL_W, y);
    for (int t = 0; t <= 4; t++) {
        double x = LABEL_W + plot_w * t / 4.0;
        fmt_value(buf, sizeof buf, def, axis * t / 4.0);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n"
                     "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text>\n",
                x, y, x, y + 5, x, y + 18, buf);
    }
    if (fallback) /* the legend of the tables' mark */
        fprintf(out, "<text x=\"10\" y=\"%d\" font-size=\"11\">" HR_REPORT_FALLBACK_MARK
                " mostly fallback: under %.0f%% of its ops served natively (the bar measures the "
                "system malloc behind it)</text>\n", y + 40, HR_MOSTLY_FALLBACK * 100);
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
