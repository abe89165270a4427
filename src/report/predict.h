/* The allocator's share of the program's run time (docs/METRICS.md,
 * "Predicted change of the program's run time"): from a trace's recorded
 * program time (the result's "program" object, capture) and the replay's
 * whole allocator time, what switching from glibc to each allocator would
 * change in the program's CPU time, and two answers about it: is the
 * change real (an interval of the replay's own uncertainty and the model's
 * measured error), and will one run of the program show it (the change
 * against the program's own run-to-run noise). */
#ifndef HR_REPORT_PREDICT_H
#define HR_REPORT_PREDICT_H

#include "base/emit.h"
#include "base/json.h"
#include "report/access.h"
#include "report/answers.h"
#include "report/ranking.h"
#include "report/summary.h"

/* The allocator every change is measured against (its row of the same trace). */
#define HR_PREDICT_BASELINE HR_RANK_BASELINE

/* Sets "predict" on every ok result of `doc` (a report) whose trace has a
 * program time and an ok glibc row, and removes a "predict" left from an
 * earlier call from every other result; then sets the report's
 * HR_REPORT_CROSS_TRACE section (crosstrace.h; removed when fewer than two
 * traces have a glibc row): call it once all rows are in (the report
 * builder) and again after rows were added or merged. */
#define HR_REPORT_CROSS_TRACE "cross_trace"
void hr_report_predict(hr_json_t *doc);

/* The "Predicted change of the program's run time" table of `trace`'s rows
 * (text, Markdown or any table format of em) and a line saying what the
 * program time is, then the columns' legend (lg: once per report, as the
 * summary's, summary.h); nothing when no row of the trace has "predict". */
void hr_report_predict_table(hr_emit_t *em, const hr_report_view_t *v, const char *trace,
                             hr_legends_t *lg);

#endif
