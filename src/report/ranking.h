/* The ranking lines under each trace's table (text and Markdown reports). */
#ifndef HR_REPORT_RANKING_H
#define HR_REPORT_RANKING_H

#include <stdio.h>

#include "base/json.h"

/* Writes, for the trace `trace` of `results`, one line per ranked figure
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
void hr_report_ranking(FILE *out, const hr_json_t *results, const char *trace, int md);

#endif
