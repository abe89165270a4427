/* The table of chart kinds (svg.h, hr_chart_kind_t; docs/REPORTS.md,
 * "Charts"): a kind's name and the chart_<kind>.c that draws it; "all" is
 * summary, memory, frames and latency one under the other. */
#ifndef HR_REPORT_CHART_H
#define HR_REPORT_CHART_H

#include <stdio.h>

#include "base/error.h"
#include "base/json.h"
#include "report/charts.h"
#include "report/metric_name.h"
#include "report/svg.h"

/* "bars|summary|memory|frames|latency|all" -> kind; 0 ok, -1 unknown. */
int hr_svg_kind_parse(const char *s, hr_chart_kind_t *kind);

/* Draw the chart(s) of opt->kind. Results that are not ok or lack the
 * metric or series are noted in their panel. 0 ok; -1 with a one-line err
 * (unknown metric, unknown baseline, nothing to plot). */
int hr_svg_render(const hr_json_t *report, const hr_svg_options_t *opt, FILE *out,
                  hr_error_t *err);
/* The same on a report decoded once (access.h): the HTML page draws every
 * trace's charts from one view. */
int hr_svg_render_view(const hr_report_view_t *v, const hr_svg_options_t *opt, FILE *out,
                       hr_error_t *err);

#endif
