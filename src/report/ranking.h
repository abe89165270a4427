/* The one ranking of a trace's results (hr_rank_trace): the summary table,
 * the verdict, the prediction table, the bar chart and the cross-trace table
 * all take their order from it. Also the warm ns/op ranking lines of
 * --detail. docs/REPORTS.md, "Ranking", says what decides. */
#ifndef HR_REPORT_RANKING_H
#define HR_REPORT_RANKING_H

#include <stdio.h>

#include "base/json.h"
#include "report/access.h"
#include "report/stats.h"

/* --detail: writes, for the trace `trace` of the rows of v, one line per figure
 * (the registry's HR_MF_RANK metric, warm thread-CPU ns/op, then the cold
 * figure): the ok results from best to worst, neighbours joined by "<" when
 * their samples are separated (the slower one's fastest sample is slower than
 * the faster one's slowest) and by "≈" when they overlap — a difference
 * within noise — or "?" when either has a single sample. Results marked
 * unstable carry "~"; invalid and failed results are never ranked. Nothing
 * when fewer than two results can be ranked. A trace replayed on its recorded
 * threads also gets a "threads:" line, the ranking by the whole process's
 * throughput (threads.ops_per_s, higher first, ">" where separated) and each
 * allocator's per-thread ns/op (up to 16 threads). */
void hr_report_ranking(FILE *out, const hr_report_view_t *v, const char *trace, int md);

/* The threads lines of hr_report_ranking alone (the summary's notes): the
 * "threads:" line, the process-throughput ranking and the per-thread ns/op
 * of a trace replayed on its recorded threads. Returns 1 when it wrote. */
int hr_report_threads(FILE *out, const hr_report_view_t *v, const char *trace, int md);

/* The separation rule of the ranking lines (and of the summary's verdict):
 * 1 when a is better than b beyond noise, i.e. their samples do not overlap
 * (lower is better: a's slowest sample is below b's fastest; `higher`: a's
 * smallest sample above b's largest), 0 when they overlap, -1 unknown (either
 * has fewer than 2 samples). */
int hr_rank_separated(const hr_spread_t *a, const hr_spread_t *b, int higher);

/* The allocator every change is measured against (its row of the same
 * trace): the predictions and the cross-trace table. */
#define HR_RANK_BASELINE "glibc"

/* Rows of one trace the ranking holds (more are left out). */
#define HR_RANK_MAX 256

/* What a trace is ranked by. */
typedef enum hr_rank_basis {
    HR_RANK_NONE = 0, /* the trace has no rows */
    /* the predicted change of the program's CPU time (the result's
     * "predict", report/predict.h): the trace records the program's time */
    HR_RANK_PROGRAM,
    /* the cold lap's allocator time per op (time.cold_ns_per_op): the
     * whole trace once, as the program runs it */
    HR_RANK_COLD,
    /* warm ns/op (time.ns_per_op): only a report whose rows have no cold
     * lap (written before the engine timed one) */
    HR_RANK_WARM,
} hr_rank_basis_t;

/* One row of a trace in the ranking. */
typedef struct hr_rank_entry {
    const hr_result_t *r;
    int         ranked;  /* 1: ranked (its place is its index + 1) */
    const char *why;     /* an excluded row's reason: "fallback", "unstable",
                          * the status of a failed row, "no prediction",
                          * "no cold lap", "no ns/op" */
    /* the figure, lower is better: PROGRAM change_s (seconds), COLD and
     * WARM ns/op (median); its interval (PROGRAM the prediction's, else the
     * samples' range; NAN when unknown) */
    double key, lo, hi;
} hr_rank_entry_t;

typedef struct hr_ranking {
    hr_rank_basis_t basis;
    int             n, nranked;
    int             left_out; /* rows of the trace beyond HR_RANK_MAX, in none of e[] */
    /* the ranked rows best first (ties in report order), then the excluded
     * ones in report order */
    hr_rank_entry_t e[HR_RANK_MAX];
} hr_ranking_t;

/* Ranks the rows of `trace` in v. The basis is PROGRAM when any row of the
 * trace has a prediction, else COLD when any row has a cold lap, else WARM. Excluded: rows that are not ok (why =
 * their status), mostly fallback ("fallback"), unstable ("unstable"), and
 * rows without the basis's figure. */
void hr_rank_trace(hr_ranking_t *out, const hr_report_view_t *v, const char *trace);

/* 1 when ranked entries a and b are apart beyond noise (their intervals do
 * not overlap), 0 when they overlap, -1 when either interval is unknown. */
int hr_rank_apart(const hr_rank_entry_t *a, const hr_rank_entry_t *b);

/* Peak RSS of the whole worker (memory.peak_rss) in *v, and the range of
 * its samples in *lo, *hi (the samples of the growth above the start-up,
 * plus the start-up; NAN when fewer than 2). */
void hr_rank_rss(const hr_result_t *r, double *v, double *lo, double *hi);

/* Seconds in a unit that suits v: "1.23 s", "41.2 ms", "850 us", "-" when
 * not finite; `sign`: an explicit "+" on positive values. */
void hr_fmt_seconds(char *buf, size_t n, double v, int sign);
/* An interval of seconds in the unit of its wider end: "-125..-44.4 ms". */
void hr_fmt_seconds_range(char *buf, size_t n, double lo, double hi);
/* Appends printf-style to the string in buf (always NUL-terminated, cut at
 * n): the verdicts' words, one clause at a time. */
void hr_fmt_cat(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The leanest by peak RSS is named only when it is at least this much below
 * the next (and their samples do not overlap): differences of a few tenths
 * of a percent are page rounding and start-up noise, not a leaner allocator. */
#define HR_LEANEST_MIN 0.05

/* The basis in words, for titles and legends: "predicted change of the
 * program's CPU time", "cold-lap allocator time (ns/op)", ... */
const char *hr_rank_basis_words(hr_rank_basis_t b);

#endif
