/* heapreplay plot REPORT.json [-o OUT.svg] [--metric METRIC] [--width PX]
 * A grouped horizontal bar chart (trace x allocator) of one metric, as a
 * self-contained SVG. Exit 0 ok, 2 bad input/usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/outfile.h"
#include "report/report.h"
#include "report/svg.h"

static const hr_opt_t plot_opts[] = {
    {'o', "output", "OUT.svg", "write the chart there (default: standard output)"},
    {'m', "metric", "METRIC", "the metric to draw (see below)"},
    {'w', "width", "PX", "chart width, 400..10000 pixels"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_plot = {
    .name = "plot", .operands = "REPORT.json", .opts = plot_opts, .min_operands = 1,
    .max_operands = 1, .summary = "draw an SVG bar chart (trace x allocator) of a report's metric",
    .details_fn = hr_svg_metric_names};

typedef struct plot_args {
    hr_svg_options_t opt;
    const char *out;
} plot_args_t;

static int on_opt(void *ctx, const hr_optarg_t *o) {
    plot_args_t *a = ctx;
    uint64_t w;
    if (o->key == 'o')
        a->out = o->arg;
    else if (o->key == 'm')
        a->opt.metric = o->arg;
    else if (hr_opt_uint(o, 400, 10000, &w) != 0)
        return 2;
    else
        a->opt.width = (int)w;
    return 0;
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
    if (hr_svg_metric_path(opt.metric, path, sizeof path) < 0)
        return hr_cli_usage_error("plot", "--metric: unknown metric \"%s\"", opt.metric);
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
