/* Assembles a report (docs/REPORT_SCHEMA.md) from the result lines of replay
 * children: repeats of one (trace, allocator) are merged into one result with
 * median timings, their min/max/MAD and every sample, an "unstable" flag when
 * the ranking figure spreads too widely to rank, and a determinism check of
 * the exact memory figures. */
#ifndef HR_REPORT_BUILDER_H
#define HR_REPORT_BUILDER_H

#include <stdio.h>

#include "trace/trace.h"
#include "replay/engine.h"
#include "base/emit.h"
#include "base/json.h"
#include "report/report.h"
#include "report/stats.h"

typedef struct hr_report_builder hr_report_builder_t;

hr_report_builder_t *hr_report_builder_new(const hr_replay_options_t *opt);
/* Records the command line that produced the report ("command"). */
void hr_report_builder_set_command(hr_report_builder_t *rb, int argc, char **argv);
/* Merges `n` result lines (some may be NULL or failed runs) into one result.
 * Returns 0, or -1 with err set when no line could be parsed. */
int hr_report_builder_add(hr_report_builder_t *rb, char **lines, int n, hr_error_t *err);

/* One sample's result line from the lines its processes wrote (each may be
 * NULL): the measure process's object with the time process's "time" keys
 * added, the verify process's "verify" group (status "invalid" when it found
 * a violation) and the count process's "count" group. A process that did
 * not end "ok" (crash, timeout, error) speaks for the sample instead.
 * Returns a malloc'd line, or NULL when there is nothing to report. */
char *hr_result_join(const char *measure, const char *time, const char *verify,
                     const char *count);
/* hr_report_finish (report.h) on the assembled document: predict, write
 * the report to `path` (if not NULL) in `path_fmt`, render it on `out` in
 * `fmt`. Returns 0, or 2 when the file cannot be written. */
int hr_report_builder_finish(hr_report_builder_t *rb, const char *path,
                             hr_emit_format_t path_fmt, hr_emit_format_t fmt, FILE *out);
/* How finish renders the report on `out` (default: hr_render_opts_default,
 * the summary only; .detail adds the detail sections). */
void hr_report_builder_set_render(hr_report_builder_t *rb, const hr_render_opts_t *o);
/* Marks the report "interrupted": SIGNAME (a partial report; see
 * docs/REPORT_SCHEMA.md), and with row != 0 the last result added as
 * "interrupted": true (fewer samples than asked for). */
void hr_report_builder_interrupted(hr_report_builder_t *rb, const char *signame, int row);
/* Sets `key` of the last result added to v (taken over). */
void hr_report_builder_set_last(hr_report_builder_t *rb, const char *key, hr_json_t *v);
/* Number of results whose status is not "ok" (or that had failed repeats). */
int hr_report_builder_failures(const hr_report_builder_t *rb);
const hr_json_t *hr_report_builder_doc(const hr_report_builder_t *rb);
/* Sets `key` of the report (group NULL) or of its `group` object (e.g.
 * "options") to v (taken over). */
void hr_report_builder_set_doc(hr_report_builder_t *rb, const char *group, const char *key,
                               hr_json_t *v);
void hr_report_builder_free(hr_report_builder_t *rb);

/* Merges ok results of one (trace, allocator) as the metric registry says
 * (exposed for tests). Returns a new result with "runs", "deterministic",
 * "unstable" and "samples" set (docs/REPORT_SCHEMA.md). */
hr_json_t *hr_results_merge(hr_json_t *const *runs, int n);

/* hr_results_unstable and hr_result_mostly_fallback, the flags the merge
 * sets, are in access.h (every renderer reads them). */

#endif
