/* render_report REPORT.json text|md|csv|json [--detail]: renders a report
 * file the way `heapreplay replay` renders its own (hr_report_render_opts),
 * so shell tests can render the JSON a replay wrote and compare it with what
 * the replay printed (tests/cli/test_summary_cli.sh). Exit 2 with one line on
 * stderr on bad arguments or input. */
#include <stdio.h>
#include <string.h>

#include "report/report.h"

int main(int argc, char **argv) {
    hr_render_opts_t o = hr_render_opts_default();
    hr_emit_format_t fmt;
    hr_error_t err;
    if (argc < 3 || argc > 4 || hr_emit_format_parse(argv[2], &fmt) != 0 ||
        (argc == 4 && strcmp(argv[3], "--detail") != 0)) {
        fprintf(stderr, "usage: render_report REPORT.json text|md|csv|json [--detail]\n");
        return 2;
    }
    o.detail = argc == 4;
    hr_json_t *rep = hr_report_load(argv[1], &err);
    if (!rep) {
        fprintf(stderr, "render_report: %s\n", err.msg);
        return 2;
    }
    int rc = hr_report_render_opts(rep, fmt, &o, stdout);
    hr_json_free(rep);
    return rc == 0 ? 0 : 2;
}
