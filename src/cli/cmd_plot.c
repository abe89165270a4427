/* heapreplay plot REPORT.json [-o OUT.svg] [--kind KIND] [--metric METRIC]
 *                 [--baseline ALLOC] [--frame-budget DURATION] [--width PX]
 * The charts of a report as one self-contained SVG (report/svg.h): the
 * --metric bar chart by default, or a kind drawn from the result series.
 * Exit 0 ok, 2 bad input/usage. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/outfile.h"
#include "report/report.h"
#include "report/chart.h"

#define O_BASELINE (HR_OPT_LONG + 1)
#define O_BUDGET (HR_OPT_LONG + 2)

static const hr_opt_t plot_opts[] = {
    {'o', "output", "OUT.svg", "write the chart there (default: standard output)"},
    {'k', "kind", "KIND", "bars (default), summary, memory, frames,\nlatency or all"},
    {'m', "metric", "METRIC", "the metric of bars and summary (see below)"},
    {O_BASELINE, "baseline", "ALLOC", "summary: the allocator the others are divided by\n"
                                      "(default: glibc when the trace has it)"},
    {O_BUDGET, "frame-budget", "DURATION", "frames: the budget line, e.g. 2ms, 500us, or 5% "
                                           "(of a 16.6 ms frame; default 1%)"},
    {'w', "width", "PX", "chart width, 400..10000 pixels"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_plot = {
    .name = "plot", .operands = "REPORT.json", .opts = plot_opts, .min_operands = 1,
    .max_operands = 1, .summary = "draw SVG charts of a report (bars, summary, memory, frames, latency)",
    .details_fn = hr_svg_metric_names};

typedef struct plot_args {
    hr_svg_options_t opt;
    const char *out;
} plot_args_t;

/* "2ms", "500us", "166000ns", "0.002s", or "N%" of a 16.6 ms frame, in ns;
 * -1 when it is not one of those or not > 0. */
static double parse_duration(const char *s) {
    static const struct { const char *unit; double ns; } units[] = {
        {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"%", 166000}};
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : NAN;
    if (!s || end == s || errno || !isfinite(v) || !(v > 0))
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0)
            return v * units[i].ns;
    return -1;
}

int hr_cli_chart_opt(hr_svg_options_t *opt, const hr_optarg_t *o) {
    uint64_t w;
    switch (o->key) {
    case 'k':
        return hr_svg_kind_parse(o->arg, &opt->kind) < 0
                   ? hr_opt_bad(o, "bars, summary, memory, frames, latency or all") : 0;
    case 'm':
        opt->metric = o->arg;
        return 0;
    case O_BASELINE:
        opt->baseline = o->arg;
        return 0;
    case O_BUDGET:
        opt->budget_ns = parse_duration(o->arg);
        opt->budget_set = 1;
        return opt->budget_ns > 0 ? 0 : hr_opt_bad(o, "a duration such as 2ms, 500us or 5%");
    case 'w':
        if (hr_opt_uint(o, 400, 10000, &w) != 0)
            return 2;
        opt->width = (int)w;
        return 0;
    }
    return 1; /* not a chart option */
}

static int on_opt(void *ctx, const hr_optarg_t *o) {
    plot_args_t *a = ctx;
    if (o->key == 'o') {
        a->out = o->arg;
        return 0;
    }
    return hr_cli_chart_opt(&a->opt, o);
}

int hr_cmd_plot(int argc, char **argv) {
    plot_args_t a = {hr_svg_options_default(), NULL};
    int first, prc = hr_opts_parse(&hr_spec_plot, argc, argv, on_opt, &a, &first);
    if (prc)
        return prc == HR_OPTS_HELP ? 0 : prc;
    hr_svg_options_t opt = a.opt;
    const char *in = argv[first], *outp = a.out;
    hr_error_t err;
    char path[128];
    if (hr_svg_metric_path(opt.metric, path, sizeof path, &err) < 0)
        return hr_cli_usage_error("plot", "%s", err.msg);
    hr_json_t *rep = hr_report_load(in, &err);
    if (!rep)
        return hr_cli_usage_error("plot", "%s", err.msg);
    hr_outfile_t o;
    FILE *out = hr_outfile_open(&o, outp ? outp : "-", &err);
    if (!out) {
        hr_json_free(rep);
        return hr_cli_usage_error("plot", "%s", err.msg);
    }
    int rc = hr_svg_render(rep, &opt, out, &err);
    if (rc < 0)
        hr_outfile_abort(&o);
    else
        rc = hr_outfile_commit(&o, &err);
    hr_json_free(rep);
    return rc < 0 ? hr_cli_usage_error("plot", "%s", err.msg) : 0;
}
