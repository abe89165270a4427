/* The load and per-frame lines of a trace's summary (docs/REPORTS.md,
 * "Load and frames"): for a trace with frames, what the load cost apart
 * from play, and the trace's own per-frame figures (docs/METRICS.md,
 * "Frames and the load"). Prose, on the summary's floor. */
#ifndef HR_REPORT_PHASES_H
#define HR_REPORT_PHASES_H

#include <stdio.h>

#include "report/ranking.h"

/* Writes the lines of the ranking's trace on out, each starting with `pre`
 * ("  " or "- "): "load: ..." with each row's allocator time and peak
 * footprint, then "frames: ..." (allocations and bytes per play frame, the
 * lifetime shares). Returns 1 when the trace has a load (frames), else 0
 * and writes nothing. */
int hr_report_phases(FILE *out, const hr_ranking_t *rk, const char *pre);

/* For a trace replayed on its recorded threads (rows with "per_thread",
 * more than one thread): "per thread: events / frees of blocks another
 * thread made (the trace's own): t0 803693 / 0, t1 1 / 1, ..." and per row its allocator CPU
 * time per thread. Returns 1 when written. */
int hr_report_thread_figures(FILE *out, const hr_ranking_t *rk, const char *pre);

/* 1 when a row of the ranking has the load's figures (its trace has frames
 * and the report knows play from the load). */
int hr_report_has_load(const hr_ranking_t *rk);

#endif
