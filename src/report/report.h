/* Reports: the top of src/report/. The table of output formats (JSON, text,
 * CSV, Markdown, HTML) that renders a report document
 * (docs/REPORT_SCHEMA.md; docs/REPORTS.md explains every column), and the
 * last step of a replay: predict, write the JSON file, render.
 *
 * The floors under it, lowest first (tests/cli/check_report_floors.sh
 * checks that includes and calls only point down):
 *   access   access.h, stats.h, metric_name.h: loading and checking a report,
 *            decoding its results once (hr_report_view_t), formats; prose.h:
 *            the text reports' prose, wrapped
 *   draw     svg.h (canvas, scales, panels), ranking.h, answers.h (the
 *            prediction's two answers in words)
 *   render   one file per renderer and per chart kind: tables.h (text,
 *            Markdown), csv.h, summary.h, detail.h, predict.h, compare.h
 *            (compare_family.h: a whole program's processes for compare, compare_like.c
 *            their pairing by like commands),
 *            paired.h, charts.h (chart_<kind>.c), sites.h (a trace's call sites),
 *            sites_report.h (call sites and plan lines in a replay report)
 *   chart    chart.h: the table of chart kinds
 *   page     html.h: the HTML page (tables and charts)
 *   top      report.h (this file): the table of formats
 *   assemble builder.h, merge.h: results from replays and shards
 * This header includes the access floor and tables.h so a caller that
 * renders a report needs only it. */
#ifndef HR_REPORT_REPORT_H
#define HR_REPORT_REPORT_H

#include <stdio.h>

#include "base/emit.h"
#include "base/json.h"
#include "report/access.h"
#include "report/tables.h"

/* Render the report. JSON: the document pretty-printed. TEXT/MARKDOWN: the
 * tables (tables.h). CSV: csv.h. HTML: the text format's body as a fragment,
 * without the header: tables as HTML blocks (emit.h, HR_EMIT_HTML_BEGIN),
 * the lines between them as plain text; the whole page is hr_html_render
 * (html.h). Returns 0, or -1 if writing failed. */
int hr_report_render_opts(const hr_json_t *report, hr_emit_format_t fmt,
                          const hr_render_opts_t *opts, FILE *out);
/* hr_report_render_opts with hr_render_opts_default(). */
int hr_report_render(const hr_json_t *report, hr_emit_format_t fmt, FILE *out);

/* The last step of a replay, once every row is in: each row's share of the
 * program's time (predict.h) is added to `doc`, the report is written to
 * `path` (if not NULL) in `path_fmt` and rendered on `out` in `fmt` (HTML:
 * the whole page, html.h). Returns 0, or 2 when the file cannot be written
 * (a one-line message on stderr). */
int hr_report_finish(hr_json_t *doc, const char *path, hr_emit_format_t path_fmt,
                     hr_emit_format_t fmt, const hr_render_opts_t *opts, FILE *out);

#endif
