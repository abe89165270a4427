/* The ranking lines under each trace's table (text and Markdown reports). */
#ifndef HR_REPORT_RANKING_H
#define HR_REPORT_RANKING_H

#include <stdio.h>

#include "base/json.h"
#include "report/access.h"
#include "report/stats.h"

/* Writes, for the trace `trace` of the rows of v, one line per ranked figure
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

#endif
