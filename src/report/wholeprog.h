/* The whole program of a --follow-forks capture: one prediction over the
 * parent's trace and its child processes' traces (docs/METRICS.md, "Process
 * start-up" and "A program of several processes").
 *
 * `capture --follow-forks -o game.hrt` writes game.hrt (the parent, its
 * program time the whole run's: its CPU holds its children's) and
 * game.PID.hrt per child process (each its own process's time). A report
 * holding the parent and at least one child gets, per allocator with a
 * prediction on every one of them, the sum of their predicted changes (each
 * with its own process start-up), of their intervals' ends and of their
 * start-up terms, against the parent's CPU time. */
#ifndef HR_REPORT_WHOLEPROG_H
#define HR_REPORT_WHOLEPROG_H

#include "base/emit.h"
#include "base/json.h"
#include "report/access.h"

#define HR_REPORT_WHOLE_PROGRAM "whole_program"
/* Keys of its objects that results also have, named once (written and read
 * here only: these are not a result's keys). */
#define HR_WP_TRACE "trace"
#define HR_WP_ALLOC "allocator"

/* The "whole_program" array over v's rows (their predict objects written),
 * or NULL when no trace family is complete enough. */
hr_json_t *hr_wholeprog_json(const hr_report_view_t *v);
/* Its text / Markdown rendering (nothing when the report has none). */
void hr_wholeprog_table(hr_emit_t *em, const hr_report_view_t *v, int md);

#endif
