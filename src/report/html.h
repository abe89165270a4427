/* The HTML report (docs/REPORTS.md, "HTML report"): one self-contained page
 * (no script, no style sheet, font or image fetched from anywhere) with the
 * machine, date, command and options, then per trace the tables the text
 * report shows (through the emitter's HTML table format), its verdict and
 * ranking lines, and the charts of the trace inline as <svg>. */
#ifndef HR_REPORT_HTML_H
#define HR_REPORT_HTML_H

#include <stdio.h>

#include "base/json.h"
#include "base/error.h"
#include "report/svg.h"
#include "report/tables.h"

typedef struct hr_html_options {
    hr_svg_options_t charts; /* metric, baseline and frame budget of the charts */
    hr_render_opts_t render; /* the tables: the summary, or with detail all of them */
} hr_html_options_t;

hr_html_options_t hr_html_options_default(void); /* the charts scaled to the page */

/* Writes the page. 0 ok; -1 with err set (out of memory, a chart option
 * error such as an unknown --baseline, or a write error). */
int hr_html_render(const hr_json_t *report, const hr_html_options_t *o, FILE *out,
                   hr_error_t *err);

#endif
