/* Reports: building the report document (docs/REPORT_SCHEMA.md) and
 * rendering it as JSON, a human text table, CSV or Markdown
 * (docs/REPORTS.md explains every column). */
#ifndef HR_REPORT_REPORT_H
#define HR_REPORT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "base/emit.h"
#include "base/json.h"

#define HR_REPORT_SCHEMA "heapreplay-report"
/* Version 2 added each result's "series" and budget.first_failure_frame/_heap;
 * every reader still accepts version HR_REPORT_SCHEMA_VERSION_MIN (1). */
#define HR_REPORT_SCHEMA_VERSION 2
#define HR_REPORT_SCHEMA_VERSION_MIN 1
/* Put in front of the ranking figure's cell of an "unstable" result in the
 * text and Markdown tables (explained in a note under the table). */
#define HR_REPORT_UNSTABLE_MARK "~"
/* Put in front of the allocator of a "mostly fallback" result (builder.h). */
#define HR_REPORT_FALLBACK_MARK "!"

/* A new report object holding schema, schema_version and tool_version; the
 * builder (builder.h) adds created, machine, options and results. NULL on
 * out-of-memory. */
hr_json_t *hr_report_new(const char *tool_version);

/* Check that `doc` is a report this version understands: schema, version
 * (HR_REPORT_SCHEMA_VERSION_MIN..HR_REPORT_SCHEMA_VERSION),
 * results[] of objects with string trace/allocator/status.
 * 0 ok, -1 with one line "NAME: expected ..." in err. */
int hr_report_validate(const hr_json_t *doc, const char *name, hr_error_t *err);
/* Parse + validate a report file. NULL with err set on failure. */
hr_json_t *hr_report_load(const char *path, hr_error_t *err);

/* How a report is rendered. */
typedef struct hr_render_opts {
    int detail; /* text/Markdown: the detail sections after the summaries */
} hr_render_opts_t;
hr_render_opts_t hr_render_opts_default(void); /* the summary only */

/* Render the report. JSON: the document pretty-printed. TEXT/MARKDOWN: a
 * header (tool, machine, options incl. touch), then per trace the summary
 * (summary.h: ranking table, verdict, notes); with opts->detail then per
 * trace the comparison table, notes for failed rows, the ranking lines, the
 * ns/op-by-op table and one table per native array of objects (the default
 * output is a prefix of the detailed one). CSV: one row per result with
 * flattened dotted columns, then one "# title" section per native array.
 * Returns 0, or -1 if writing failed. HTML: the text format's body as a
 * fragment, without the header: tables as HTML blocks (emit.h,
 * HR_EMIT_HTML_BEGIN), the lines between them as plain text; the whole page
 * is hr_html_render (html.h). */
int hr_report_render_opts(const hr_json_t *report, hr_emit_format_t fmt,
                          const hr_render_opts_t *opts, FILE *out);
/* hr_report_render_opts with hr_render_opts_default(). */
int hr_report_render(const hr_json_t *report, hr_emit_format_t fmt, FILE *out);

/* 1 when the result's status is "ok" (a figure that may be shown and ranked). */
int hr_result_ok(const hr_json_t *r);
/* The distinct traces of `results` in first-seen order (at most max);
 * returns the count. */
int hr_report_traces(const hr_json_t *results, const char **out, int max);
/* 1 when the result's "trace" is `trace`. */
int hr_result_of_trace(const hr_json_t *r, const char *trace);

/* Table cells of a figure: `fmt` (hr_fmt_bytes, hr_fmt_ns, ...) of v, or an
 * empty cell when v is not finite; a ratio as "12.3%". */
typedef void (*hr_fmt_fn)(char *buf, size_t n, double v);
void hr_report_cell_unit(hr_emit_t *em, double v, hr_fmt_fn fmt);
void hr_report_cell_pct(hr_emit_t *em, double ratio);

/* Human units used by the text tables. */
void hr_fmt_bytes(char *buf, size_t n, double bytes);  /* "512 B", "1.50 MiB" */
void hr_fmt_rate(char *buf, size_t n, double per_s);   /* "950", "12.3 k", "1.20 M" */
void hr_fmt_ns(char *buf, size_t n, double ns);        /* "850 ns", "1.2 us", "3.40 ms" */

/* Basename of a trace path (the part after the last '/'). */
const char *hr_report_trace_base(const char *path);

#endif
