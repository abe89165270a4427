/* SVG charts of a report: one grouped horizontal bar chart, a group per trace
 * and a bar per allocator, for one metric. Self-contained (no external fonts,
 * styles or scripts), so it can be committed or attached to CI artifacts. */
#ifndef HR_REPORT_SVG_H
#define HR_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

#include "base/json.h"
#include "heapreplay/error.h"

typedef struct hr_svg_options {
    const char *metric; /* compare alias (throughput, peak...), dotted path, or a
                           leaf name such as ops_per_s / peak_footprint */
    int         width;  /* total width in px */
} hr_svg_options_t;

hr_svg_options_t hr_svg_options_default(void); /* throughput, 800 px */

/* Resolve a metric name to a dotted result path; 0 ok, -1 unknown. */
int hr_svg_metric_path(const char *metric, char *path, size_t n);

/* Prints the names --metric accepts (from the metric registry), for help. */
void hr_svg_metric_names(FILE *out);

/* Draw the chart. Results that are not ok or lack the metric are listed as
 * "n/a". 0 ok; -1 with a one-line err (unknown metric, nothing to plot). */
int hr_svg_render(const hr_json_t *report, const hr_svg_options_t *opt, FILE *out,
                  hr_error_t *err);

#endif
