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
 * start-up terms, against the parent's CPU time; its two answers: "real"
 * from the summed interval and "runs_to_see" from the summed change against
 * the parent's noise (the whole tree's runs); and the largest process's peak
 * RSS ("max_rss", "max_rss_change_bytes" against glibc's). */
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

/* 1 when `child` names a child process's trace of `parent`: `parent` with
 * ".DIGITS" (the pid) before its extension (game.hrt -> game.1234.hrt;
 * game -> game.1234), both with the same compression suffix or none
 * (game.hrt.zst -> game.1234.hrt.zst). */
int hr_wholeprog_is_child(const char *child, const char *parent);
/* The names `child` could be a child process's trace of, one per call:
 * child with one ".DIGITS" of its file name taken out (game.1234.hrt ->
 * game.hrt). Start with *at = NULL; each call writes the next name into
 * buf and returns 1, or returns 0 when none is left or the name does not
 * fit in n bytes. Confirm a name found with hr_wholeprog_is_child. */
int hr_wholeprog_parent_candidate(const char *child, const char **at, char *buf, size_t n);

/* The "whole_program" array over v's rows (their predict objects written),
 * or NULL when no trace family is complete enough. */
hr_json_t *hr_wholeprog_json(const hr_report_view_t *v);
/* The parent trace's verdict (summary.h, hr_summary_verdict_of) when `trace`
 * is the parent of a family in v's report: the one answer for the whole
 * program, "ship A: -14.0 ms of 2.09 s CPU (-0.7%; the whole program: 43
 * processes): real saving [...]; one run shows it (...)" or "keep glibc: no
 * allocator's saving is real (the whole program: 43 processes)", then the
 * leanest by the largest process's peak RSS. Returns 1 when it wrote buf,
 * 0 (buf untouched) for any other trace. */
int hr_wholeprog_verdict(char *buf, size_t n, const hr_report_view_t *v, const char *trace);
/* Its text / Markdown rendering, and the HTML page's (as text lines, in the
 * section of the parent trace): the families whose parent is one of v's
 * traces (nothing when the report has none). */
void hr_wholeprog_table(hr_emit_t *em, const hr_report_view_t *v, int md);
/* Its CSV section: a table titled "whole_program", one row per family and
 * allocator, the JSON's keys as columns (nothing when the report has none). */
void hr_wholeprog_csv(hr_emit_t *em, const hr_report_view_t *v);

#endif
