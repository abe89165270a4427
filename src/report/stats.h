/* Sample statistics for repeated measurements: the robust summary the report
 * builder writes beside every ranged metric (median, min, max, median
 * absolute deviation), the rank test compare uses on two sets of samples, and
 * compare's noise-aware verdict built on them.
 *
 * Why robust statistics: the repeats of a replay run on shared machines, where
 * a single disturbed sample can be far off. The median and the MAD ignore one
 * outlier in three; the mean and the standard deviation do not. */
#ifndef HR_REPORT_STATS_H
#define HR_REPORT_STATS_H

#include <stddef.h>

#include "base/json.h"
#include "base/result.h"

/* Summary of n samples. n == 0: every figure is NAN. */
typedef struct hr_stats {
    int    n;
    double median, min, max;
    double mad; /* median of |x - median| (not scaled to a standard deviation) */
} hr_stats_t;

/* Summary of v[0..n), ignoring NAN entries. Sorts v in place (NANs last). */
hr_stats_t hr_stats_of(double *v, int n);

/* Relative spread figures of s: mad / |median| and (max - min) / |median|;
 * NAN when the median is 0 or absent. */
double hr_stats_rel_mad(const hr_stats_t *s);
double hr_stats_rel_range(const hr_stats_t *s);

/* One-sided exact Mann-Whitney test that the values of `hi` tend to be larger
 * than those of `lo`: the probability, when both sets come from one
 * distribution, of a U statistic at most as small as the observed one, where U
 * counts the pairs (lo_i, hi_j) with hi_j < lo_i (ties count one half). Small
 * p: `hi` is shifted up. Ties make the exact distribution approximate (it
 * assumes none). NAN when a side has no values or more than
 * HR_STATS_MW_MAX. */
#define HR_STATS_MW_MAX 64
double hr_stats_mw_p_greater(const double *lo, int nlo, const double *hi, int nhi);


/* ---- noise-aware verdicts for compare (docs/REPORTS.md, "compare") -------
 *
 * A figure that varies between identical runs (a timing, an external
 * allocator's sampled footprint, RSS) regresses only when BOTH
 *   1. its median moved in the bad direction by more than the tolerance, and
 *   2. the samples say the move is real: for lower-is-better figures every
 *      new sample lies above every base sample (min(new) > max(base); higher
 *      is better: max(new) < min(base)), or, when both sides have at least
 *      HR_NOISE_MW_MIN samples, a one-sided Mann-Whitney test rejects "same
 *      distribution" at HR_NOISE_MW_ALPHA.
 * When either side has fewer than 2 samples there is no spread to test and
 * condition 1 alone decides (the pre-samples behaviour). Reports written
 * before samples were kept have PATH_min/PATH_max for some figures (wall
 * time): those ranges stand in for the samples, with the result's "runs" as
 * their count.
 *
 * Why both: the tolerance alone called 10-23 false regressions per pair of
 * identical `-r 3` runs (shared machines); separation alone calls any tiny
 * but consistent shift. With 3 samples a side, two identical distributions
 * are separated by chance with probability 1/C(6,3) = 5 %, with 5 a side
 * 1/C(10,5) = 0.4 %: the tolerance keeps those chance separations that are
 * small from failing CI. A deterministic figure (decided by the trace, or an
 * in-house allocator's exact accounting) is compared on condition 1 alone. */
#define HR_NOISE_MAX_SAMPLES 64 /* more samples than this are not read */
#define HR_NOISE_MW_MIN 5
#define HR_NOISE_MW_ALPHA 0.01

/* A figure of one result with what is known of its spread. */
typedef struct hr_spread {
    int    n;        /* samples behind it: 0 absent, 1 a single value */
    double center;   /* median of the samples, else the result's value */
    double min, max; /* range of the samples; NAN when n < 2 */
    int    nv;       /* samples in v (0 when only min/max are known) */
    double v[HR_NOISE_MAX_SAMPLES];
} hr_spread_t;

/* Metric `id` of result t: from its samples when present, else from the
 * value with its _min/_max (n = runs) when those exist, else the value
 * alone (n = 1, or 0 when it is null or missing). */
void hr_spread_of(const hr_result_t *t, hr_metric_id_t id, hr_spread_t *s);
/* The same at a dotted path a user named (hr_result_at). */
void hr_spread_at(const hr_result_t *t, const char *path, hr_spread_t *s);

typedef enum hr_noise_verdict {
    HR_NOISE_OK = 0,     /* within the tolerance */
    HR_NOISE_IMPROVED,   /* moved in the good direction */
    HR_NOISE_NOISE,      /* beyond the tolerance but the samples overlap */
    HR_NOISE_REGRESSION,
} hr_noise_verdict_t;

/* Relative change of n against b in percent (+inf/-inf when b is 0 and n is
 * not; 0 when equal). */
double hr_delta_pct(double b, double n);

/* The verdict on base -> cur for a figure allowed to get worse by `tol`
 * percent; `higher` when higher is better; `exact` when the figure is
 * deterministic (no sample test). Writes one line saying why into why[len]
 * (e.g. "+18.2% > 5% and samples separated: new min 31 > base max 26.1"). */
hr_noise_verdict_t hr_noise_judge(const hr_spread_t *base, const hr_spread_t *cur, double tol,
                                  int higher, int exact, char *why, size_t len);

#endif
