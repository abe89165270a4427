/* Paired A/B of two allocators replayed in one run (`replay --pair`;
 * docs/REPORTS.md, "Paired A/B"): drift control for a report that has one
 * allocator of interest, e.g. two builds of the user's own allocator
 * `-a preload:old.so,preload:new.so`.
 *
 * Why pairs: the replay interleaves its processes (sample r of A, then sample
 * r of B, then sample r+1 of A, ...), so the two processes of a pair ran
 * seconds apart under the same load, while two reports made minutes apart
 * drift by more than a 10 % slowdown (a one-allocator report has no other row
 * to divide the drift out). The ratio B/A of a pair cancels what the machine
 * did to both.
 *
 * The test: for each trace, the n ratios r_i = B_i / A_i of a figure (warm
 * ns/op, time.ns_per_op; cold ns/op beside it, for information) and the
 * Wilcoxon signed-rank interval of their centre with its Hodges-Lehmann
 * estimate (base/signrank.h), computed on log r_i; ratio, lo and hi are
 * their exponentials. Exact without
 * assuming a shape of the noise: for two identical builds each pair's order
 * is arbitrary (A, B is as likely as B, A), so log r_i is symmetric about 0,
 * all the signed-rank test asks. 6 pairs at least; with n pairs it uses
 * every pair's size, where a sign test uses only which side it lies on.
 * The verdict is REGRESSION when the ratio exceeds 1 + tol AND the interval
 * lies above 1 (the slowdown is both material and real), improved when the
 * mirror holds, else ok. */
#ifndef HR_REPORT_PAIRED_H
#define HR_REPORT_PAIRED_H

#include <stdio.h>

#include "base/error.h"
#include "base/json.h"

#define HR_PAIRED_MIN 6          /* fewest pairs with a 95 % signed-rank interval */
#define HR_PAIRED_DEFAULT_TOL 3. /* percent */

/* The "paired" section of report `doc` for allocators a (baseline) and b:
 * {"a", "b", "tolerance_pct", "traces": [{"trace_name", "figures":
 * [{"metric", "ratios", "ratio", "lo", "hi", "confidence", "verdict",
 * "gated"}]}], "regressions"}. NULL with err when a or b has no row. */
hr_json_t *hr_paired_section(const hr_json_t *doc, const char *a, const char *b, double tol,
                             hr_error_t *err);

/* The section as text lines (one per trace and figure, then a verdict line). */
void hr_paired_print(const hr_json_t *section, FILE *out);

/* Regressions the section found (its "regressions"). */
int hr_paired_regressions(const hr_json_t *section);

#endif
