/* The text, Markdown and HTML-fragment renderer of a report: the header
 * (tool, machine, options incl. touch), then per trace the summary
 * (summary.h) and the prediction table (predict.h), then the table across
 * traces (crosstrace.h); with detail then per
 * trace the detail sections (detail.h). The default output is a prefix of
 * the detailed one. */
#ifndef HR_REPORT_TABLES_H
#define HR_REPORT_TABLES_H

#include "base/emit.h"
#include "base/json.h"
#include "report/access.h"

/* How a report is rendered. */
typedef struct hr_render_opts {
    int detail; /* text/Markdown: the detail sections after the summaries */
} hr_render_opts_t;
hr_render_opts_t hr_render_opts_default(void); /* the summary only */

/* Writes the tables of the report v (decoded once, access.h) on em (TEXT, MARKDOWN, or HTML: the text
 * format's body as a fragment without the header, tables as HTML blocks).
 * `md`: Markdown prose. */
void hr_report_tables(const hr_report_view_t *v, hr_emit_t *em, int md,
                      const hr_render_opts_t *opts);

/* The order the traces' sections are written in (every format): the view's,
 * but a --follow-forks capture's child processes right after their parent,
 * the heaviest first (compare_family.h, hr_families_trace_order). A
 * malloc'd array of v->ntraces indices, or NULL when memory ran out (then
 * noted: the report is not written whole). */
int *hr_report_trace_order(const hr_report_view_t *v);

#endif
