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

static void usage(FILE *f) {
    fputs("usage: heapreplay plot REPORT.json [-o OUT.svg] [--metric METRIC] [--width PX]\n", f);
    hr_svg_metric_names(f);
}

int hr_cmd_plot(int argc, char **argv) {
    hr_svg_options_t opt = hr_svg_options_default();
    const char *in = NULL, *outp = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        int takes = strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                    strcmp(a, "--metric") == 0 || strcmp(a, "-m") == 0 || strcmp(a, "--width") == 0;
        if (takes && i + 1 >= argc)
            return hr_cli_usage_error("plot", "%s: expected a value", a);
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            outp = argv[++i];
        } else if (strcmp(a, "--metric") == 0 || strcmp(a, "-m") == 0) {
            opt.metric = argv[++i];
        } else if (strcmp(a, "--width") == 0) {
            char *end;
            long w = strtol(argv[++i], &end, 10);
            if (*end || w < 400 || w > 10000)
                return hr_cli_usage_error("plot", "--width: expected 400..10000, got \"%s\"", argv[i]);
            opt.width = (int)w;
        } else if (a[0] == '-' && a[1]) {
            return hr_cli_usage_error("plot", "unknown option %s (see --help)", a);
        } else if (!in) {
            in = a;
        } else {
            return hr_cli_usage_error("plot", "expected one report, got a second: %s", a);
        }
    }
    if (!in) {
        usage(stderr);
        return 2;
    }
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
