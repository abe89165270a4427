/* The Wilcoxon signed-rank interval and the Hodges-Lehmann estimate of the
 * centre of n values: one definition for every layer that pairs samples
 * (`replay --pair`'s log ratios, the start-up probe's per-round differences).
 *
 * The Walsh averages (x_i + x_j) / 2, i <= j, sorted: the estimate is their
 * median, the interval runs from the k-th smallest to the k-th largest with
 * the largest k such that P(T <= k - 1) <= 2.5 % for the signed-rank
 * statistic T of n values (its exact null distribution), a confidence of at
 * least 95 %. It asks only that each x_i be symmetric about the centre (a
 * pair's order is arbitrary when two things are alike), and uses every
 * value's size, where a sign test uses only its side. */
#ifndef HR_BASE_SIGNRANK_H
#define HR_BASE_SIGNRANK_H

/* Most values hr_signrank_hl takes (its Walsh averages are on the stack). */
#define HR_SIGNRANK_MAX 128

/* The interval of n values: k, the 1-based rank of its lower end among the
 * n (n + 1) / 2 sorted Walsh averages (the upper end is the k-th largest),
 * and its confidence in *confidence (NAN without one). 0 when n is too small
 * for 95 % (n < 6). */
int hr_signrank_k(int n, double *confidence);

/* The estimate of x[0..n) in *est, its interval in *lo and *hi and the
 * interval's confidence in *conf. Returns 0 with an interval; -1 without one
 * (n < 6: *lo, *hi and *conf NAN, *est still the estimate when n >= 1; n < 1
 * or n > HR_SIGNRANK_MAX: all four NAN). x is not changed; NaN-free input. */
int hr_signrank_hl(const double *x, int n, double *est, double *lo, double *hi, double *conf);

#endif
