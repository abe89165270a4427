/* Sample statistics for repeated measurements: the robust summary the report
 * builder writes beside every ranged metric (median, min, max, median
 * absolute deviation) and the rank test compare uses on two sets of samples.
 *
 * Why robust statistics: the repeats of a replay run on shared machines, where
 * a single disturbed sample can be far off. The median and the MAD ignore one
 * outlier in three; the mean and the standard deviation do not. */
#ifndef HR_REPORT_STATS_H
#define HR_REPORT_STATS_H

#include "base/json.h"

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

/* Numbers of a JSON array into v (at most cap; non-numbers skipped).
 * Returns how many were stored. */
int hr_stats_read_array(const hr_json_t *arr, double *v, int cap);

#endif
