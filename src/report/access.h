/* The floor of src/report/: reading a report document and its results, and
 * the number formats of the tables. Everything above (charts, renderers,
 * compare, the builder) uses these; this file uses nothing of src/report/
 * but stats.h (the floors are listed in tests/cli/check_report_floors.sh).
 *
 * The report document is described in docs/REPORT_SCHEMA.md. */
#ifndef HR_REPORT_ACCESS_H
#define HR_REPORT_ACCESS_H

#include <stddef.h>
#include <stdio.h>

#include "base/emit.h"
#include "base/error.h"
#include "base/json.h"
#include "base/result.h"
#include "report/stats.h"

#define HR_REPORT_SCHEMA "heapreplay-report"
/* Version 2 added each result's "series" and budget.first_failure_frame/_heap;
 * every reader still accepts version HR_REPORT_SCHEMA_VERSION_MIN (1). */
#define HR_REPORT_SCHEMA_VERSION 2
#define HR_REPORT_SCHEMA_VERSION_MIN 1
/* Put in front of the ranking figure's cell of an "unstable" result in the
 * text and Markdown tables (explained in a note under the table). */
#define HR_REPORT_UNSTABLE_MARK "~"
/* Put in front of the allocator of a "mostly fallback" result. */
#define HR_REPORT_FALLBACK_MARK "!"

/* A new report object holding schema, schema_version and tool_version; the
 * builder (builder.h) adds created, machine, options and results. NULL on
 * out-of-memory. */
hr_json_t *hr_report_new(const char *tool_version);

/* Reports are refused above this size, before they are parsed: parsing
 * takes about 14 times the file's size in memory (a 385 MB report took
 * 5.5 GB), and the largest report a replay writes is a few MB
 * (docs/REPORT_SCHEMA.md, "Limits"). */
#define HR_REPORT_MAX_BYTES ((long long)256 << 20)

/* Check that `doc` is a report this version understands: schema, version
 * (HR_REPORT_SCHEMA_VERSION_MIN..HR_REPORT_SCHEMA_VERSION),
 * results[] of objects with string trace/allocator/status, every number
 * finite, and no count or byte figure of a result negative
 * (hr_result_check). 0 ok, -1 with one line "NAME: expected ..." or
 * "NAME: results[3].memory.peak_live: expected ..." in err. */
int hr_report_validate(const hr_json_t *doc, const char *name, hr_error_t *err);
/* Parse + validate a report file (refused unparsed above
 * HR_REPORT_MAX_BYTES). NULL with err set on failure. */
hr_json_t *hr_report_load(const char *path, hr_error_t *err);

/* Decodes result object r (base/result.h) with the trace op table's keys:
 * readers read r->m.FIELD, not key strings. */
void hr_report_result(const hr_json_t *r, hr_result_t *out);

/* A report's results decoded once (hr_report_result) for every renderer:
 * rows in report order, and the distinct traces in first-seen order (the
 * strings belong to the document). Renderers read rows, never the results'
 * JSON. */
typedef struct hr_report_view {
    const hr_json_t *doc;  /* the report (its header: machine, options, ...) */
    hr_result_t     *rows;
    size_t           n;
    const char     **traces;
    int              ntraces;
    char           (*labels)[72]; /* routed rows' display names (rows[i].allocator); NULL: none */
} hr_report_view_t;
/* Decodes every result of `doc`. 0, or -1 when memory ran out (then an
 * empty view that hr_report_view_free accepts). */
int hr_report_view_init(hr_report_view_t *v, const hr_json_t *doc);
/* The same over a results array alone (doc may be NULL). */
int hr_report_view_results(hr_report_view_t *v, const hr_json_t *doc, const hr_json_t *results);
/* The rows of `trace` only, as a view of its own (same document). */
int hr_report_view_trace(hr_report_view_t *sub, const hr_report_view_t *v, const char *trace);
void hr_report_view_free(hr_report_view_t *v);

/* 1 when the result's status is "ok" (a figure that may be shown and ranked). */
int hr_result_ok(const hr_result_t *t);
/* 1 when the result's footprint source is exact (an in-house allocator:
 * its HR_EXACT_INHOUSE figures are deterministic; base/metrics.h). */
int hr_result_exact_fp(const hr_result_t *t);
/* 1 when the result's "trace" is `trace`. */
int hr_result_of_trace(const hr_result_t *t, const char *trace);

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
/* A recorded command (hr_result_t.command) for a reader: the program's file
 * name (its path's last part), then its arguments, cut to `max` bytes with
 * "..." (e.g. "cc1 -quiet u05.c ..."); "" when cmd is NULL. */
void hr_report_command_words(char *buf, size_t n, const char *cmd, size_t max);
/* The program's file name alone ("cc1"), at most n - 1 bytes; "" for NULL. */
void hr_report_command_program(char *buf, size_t n, const char *cmd);

/* "unstable": the ranking figure (the HR_MF_RANK metric, time.ns_per_op)
 * spreads too widely to rank the allocator: at least
 * HR_UNSTABLE_MIN_SAMPLES samples and a MAD above HR_UNSTABLE_MAD of the
 * median, or a range (max - min) above HR_UNSTABLE_RANGE of it. The MAD test
 * catches a generally noisy run; the range test one far outlier, which the
 * median shrugs off but which says the machine was disturbed. Fewer samples
 * cannot show a spread reliably and are never called unstable. */
#define HR_UNSTABLE_MIN_SAMPLES 3
#define HR_UNSTABLE_MAD 0.05
#define HR_UNSTABLE_RANGE 0.25
int hr_results_unstable(const hr_stats_t *rank);

/* "mostly_fallback": an in-house row whose native share (native_ops over
 * native + fallback ops) is below HR_MOSTLY_FALLBACK: most of the trace went
 * to the system malloc, so the row measures that malloc, not the allocator;
 * reports mark it and never rank it against the others. */
#define HR_MOSTLY_FALLBACK 0.5
int hr_result_mostly_fallback(const hr_result_t *t);

/* The rows of `replay --plan` (docs/SITES.md): each general allocator X gives
 * X alone, the plan's composition (spec "...@site:...+X") and the oracle
 * composition ("stack+marker+bank+X"); all carry "routing". A view names the
 * last two "plan+X" and "oracle+X" (the result's spec stays in `spec` and in
 * the JSON). A routed row is never "mostly fallback": X serving what the
 * plan does not route is the design, and the row is judged against X alone. */
enum { HR_ROW_PLAIN = 0, HR_ROW_PLAN, HR_ROW_ORACLE };
int hr_result_route_role(const hr_result_t *t);
/* X of a routed row: the part after the spec's last '+' (spec NULL: t's). */
const char *hr_result_route_general(const hr_result_t *t, const char *spec);

#endif
