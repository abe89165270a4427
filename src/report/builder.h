/* Assembles a report (docs/REPORT_SCHEMA.md) from the result lines of replay
 * children: repeats of one (trace, allocator) are merged with median timings,
 * min/max wall time, and a determinism check of the exact memory figures. */
#ifndef HR_REPORT_BUILDER_H
#define HR_REPORT_BUILDER_H

#include <stdio.h>

#include "heapreplay/trace.h"
#include "replay/engine.h"
#include "base/emit.h"
#include "base/json.h"

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
/* Writes the JSON report to `json_path` (if not NULL) and renders it on `out`
 * in `fmt`. Returns 0, or 2 when the file cannot be written. */
int hr_report_builder_finish(hr_report_builder_t *rb, const char *json_path,
                             hr_emit_format_t fmt, FILE *out);
/* Number of results whose status is not "ok" (or that had failed repeats). */
int hr_report_builder_failures(const hr_report_builder_t *rb);
const hr_json_t *hr_report_builder_doc(const hr_report_builder_t *rb);
void hr_report_builder_free(hr_report_builder_t *rb);

/* Median-merges ok results (exposed for tests). Returns a new result. */
hr_json_t *hr_results_merge(hr_json_t *const *runs, int n);

#endif
