/* heapreplay report REPORT.json [-f text|md|csv|json|html] [-o FILE]
 *                   [--metric METRIC] [--baseline ALLOC] [--frame-budget DURATION]
 * Renders an existing report (a replay's -o JSON, or a merge of them) in any
 * of replay's output formats; html is one self-contained page with the
 * tables, verdicts and charts (report/html.h). Exit 0 ok, 2 bad input/usage. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "base/outfile.h"
#include "report/html.h"
#include "report/report.h"

static const hr_opt_t report_opts[] = {
    {'f', "format", "FMT", "text (default), md, csv, json or html (one\nself-contained page "
                           "with the tables and charts)"},
    {'o', "output", "FILE", "write there (default: standard output)"},
    {HR_OPT_LONG + 3, "detail", NULL, "text, md and html: after each trace's summary also the\n"
                                      "full tables (as replay --detail)"},
    {'m', "metric", "METRIC", "html: the metric of the summary chart (default throughput)"},
    {HR_OPT_LONG + 1, "baseline", "ALLOC", "html: the summary chart's baseline allocator\n"
                                           "(default: glibc when the trace has it)"},
    {HR_OPT_LONG + 2, "frame-budget", "DURATION", "html: the frame charts' budget line, e.g. 2ms, "
                                                  "500us, 5% (of 16.6 ms; default 1%)"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_report = {
    .name = "report", .operands = "REPORT.json", .opts = report_opts, .min_operands = 1,
    .max_operands = 1, .summary = "render a report again: text, md, csv, json or an HTML page",
    .details = "The report is read as replay -o wrote it (schema 1 or 2). With -f html\n"
               "the page shows the machine, date, command and options, then per trace the\n"
               "tables, the verdict and ranking lines, and the charts of plot --kind\n"
               "summary, memory, frames and latency.\n\n"
               "  heapreplay report run.json -f html -o report.html\n"};

typedef struct report_args {
    hr_emit_format_t  format;
    const char       *out;
    hr_html_options_t html;
} report_args_t;

static int on_opt(void *ctx, const hr_optarg_t *o) {
    report_args_t *a = ctx;
    switch (o->key) {
    case 'f':
        return hr_emit_format_parse_html(o->arg, &a->format) != 0
                   ? hr_opt_bad(o, "text, md, csv, json or html") : 0;
    case 'o': a->out = o->arg; return 0;
    case HR_OPT_LONG + 3: a->html.render.detail = 1; return 0;
    }
    return hr_cli_chart_opt(&a->html.charts, o);
}

int hr_cmd_report(int argc, char **argv) {
    report_args_t a = {HR_EMIT_TEXT, NULL, hr_html_options_default()};
    int first, prc = hr_opts_parse(&hr_spec_report, argc, argv, on_opt, &a, &first);
    if (prc)
        return prc == HR_OPTS_HELP ? 0 : prc;
    hr_error_t err;
    char path[128];
    if (hr_svg_metric_path(a.html.charts.metric, path, sizeof path, &err) < 0)
        return hr_cli_usage_error("report", "%s", err.msg);
    hr_json_t *rep = hr_report_load(argv[first], &err);
    if (!rep)
        return hr_cli_usage_error("report", "%s", err.msg);
    hr_outfile_t o;
    FILE *out = hr_outfile_open(&o, a.out ? a.out : "-", &err);
    if (!out) {
        hr_json_free(rep);
        return hr_cli_usage_error("report", "%s", err.msg);
    }
    int rc;
    if (a.format == HR_EMIT_HTML) {
        rc = hr_html_render(rep, &a.html, out, &err);
    } else {
        rc = hr_report_render_opts(rep, a.format, &a.html.render, out);
        if (rc < 0)
            hr_error_set(&err, "%s: write error", a.out ? a.out : "standard output");
    }
    if (rc < 0) {
        hr_outfile_abort(&o);
        if (!a.out) /* the failed write's own reason, said once (not again by main) */
            hr_stdout_check(&err);
    } else
        rc = hr_outfile_commit(&o, &err);
    hr_json_free(rep);
    return rc < 0 ? hr_cli_usage_error("report", "%s", err.msg) : 0;
}
