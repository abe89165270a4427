/* The summary that opens each trace's section of a text or Markdown report
 * (docs/REPORTS.md, "Summary"): one compact ranking table, one verdict line,
 * short notes. Everything else the report shows is behind `--detail`.
 *
 * Tables go through the emitter (hr_emit_t) and prose through stdio with an
 * `md` flag, so another human format can reuse the pieces. */
#ifndef HR_REPORT_SUMMARY_H
#define HR_REPORT_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "base/emit.h"
#include "base/json.h"
#include "report/access.h"
#include "report/prose.h"


/* The legends a text or Markdown report has printed so far (hr_report_tables
 * keeps one per report): a trace's section explains a column set, a flag or
 * the prediction table's columns only when no section above it did, and
 * points up in one line otherwise. Why: a report of many traces (the main
 * job's nine, a build's 43 processes) repeated the same dozen lines of
 * legend under every table, most of its text. NULL: every legend printed. */
typedef struct hr_legends {
    unsigned shown; /* HR_LEGEND_* bits */
} hr_legends_t;

enum {
    HR_LEGEND_COLUMNS = 1u << 0, /* << (2 * basis + load): a bit per column set, eight */
    HR_LEGEND_UNSTABLE = 1u << 8,
    HR_LEGEND_FALLBACK = 1u << 9,
    HR_LEGEND_INVALID = 1u << 10,
    HR_LEGEND_INTERRUPTED = 1u << 11,
    HR_LEGEND_PREDICT = 1u << 12, /* the prediction table's columns */
};

/* 1 when the legend `bit` is to be printed now (lg NULL, or not printed
 * before), and then marks it printed. */
int hr_legend_first(hr_legends_t *lg, unsigned bit);

/* Writes the summary of `trace` (the rows of v whose trace is it) on em:
 * the heading and ranking table (through em's tables), then on em->out the
 * verdict line and the notes (failed rows, rows not ranked, budget, threads,
 * allocator start-up, routed's unknown heaps, column and flag legends).
 * `md`: Markdown prose (bullets) instead of indented text lines, no wrapping.
 * Rows in the order of the trace's ranking (ranking.h, hr_rank_trace): the
 * ranked ones best first, then the excluded ones with the reason. */
void hr_summary_trace(hr_emit_t *em, const hr_report_view_t *v, const char *trace, int md,
                      hr_legends_t *lg);

/* The verdict of `trace` into buf (no prefix, no newline), from its
 * ranking (docs/REPORTS.md, "Verdict"): "ship A: -27.0 ms of 1.22 s CPU
 * (-2.2%, interval -35..-19 ms), max RSS +3.1 MiB" or "no allocator changes
 * this program beyond noise" on a trace with program time, else "fastest by
 * cold-lap time: A, 1.69x less than B's (separated)"; then "leanest by peak
 * RSS: ..." (5 % or more and beyond noise, else "none 5% below the rest")
 * and the verdict's allocator's worst frame. Returns buf. */
char *hr_summary_verdict_of(char *buf, size_t n, const hr_report_view_t *v, const char *trace);
/* The same over a results array (decoded for the call). */
char *hr_summary_verdict(char *buf, size_t n, const hr_json_t *results, const char *trace);

/* The budget result of `trace` into buf: "budget 64.00 MiB: first exceeded
 * by glibc at frame 412 (heap Level), block at op 530, never by stack"
 * (budget.first_failure_frame/_heap when the report has them, else the op
 * index). Returns 0 and buf "" when no result of the trace has a budget. */
int hr_summary_budget_of(char *buf, size_t n, const hr_report_view_t *v, const char *trace);
/* The same over a results array (decoded for the call). */
int hr_summary_budget(char *buf, size_t n, const hr_json_t *results, const char *trace);


#endif
