/* Sample statistics (see stats.h). */
#include "report/stats.h"

#include <math.h>
#include <stdlib.h>

/* NANs sort last so the finite values are a prefix. */
static int cmp_nan_last(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    return x < y ? -1 : x > y;
}

/* Median of the sorted v[0..n), n > 0. */
static double sorted_median(const double *v, int n) {
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

hr_stats_t hr_stats_of(double *v, int n) {
    hr_stats_t s = {0, NAN, NAN, NAN, NAN};
    if (n <= 0)
        return s;
    qsort(v, (size_t)n, sizeof v[0], cmp_nan_last);
    while (n > 0 && isnan(v[n - 1]))
        n--;
    if (n == 0)
        return s;
    s.n = n;
    s.min = v[0];
    s.max = v[n - 1];
    s.median = sorted_median(v, n);
    double *dev = malloc((size_t)n * sizeof *dev);
    if (!dev)
        return s; /* mad stays NAN: callers treat it as unknown */
    for (int i = 0; i < n; i++)
        dev[i] = fabs(v[i] - s.median);
    qsort(dev, (size_t)n, sizeof dev[0], cmp_nan_last);
    s.mad = sorted_median(dev, n);
    free(dev);
    return s;
}

double hr_stats_rel_mad(const hr_stats_t *s) {
    return s->n && s->median != 0 ? s->mad / fabs(s->median) : NAN;
}

double hr_stats_rel_range(const hr_stats_t *s) {
    return s->n && s->median != 0 ? (s->max - s->min) / fabs(s->median) : NAN;
}

/* U: pairs (lo_i, hi_j) with hi_j < lo_i, ties one half. */
static double u_statistic(const double *lo, int nlo, const double *hi, int nhi) {
    double u = 0;
    for (int i = 0; i < nlo; i++)
        for (int j = 0; j < nhi; j++)
            u += hi[j] < lo[i] ? 1 : hi[j] == lo[i] ? 0.5 : 0;
    return u;
}

/* Number of orderings of m lo and n hi values (no ties) whose U is at most
 * umax, divided by C(m + n, m). Counts by the last element of the ordering:
 * a lo value last adds the n hi values before it to U, a hi value adds 0, so
 * f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u); U only grows, so the
 * table stops at umax. Counts are doubles: C(128, 64) ~ 2.4e37 fits. */
static double mw_cdf(int m, int n, int umax) {
    size_t w = (size_t)umax + 1;
    double *prev = calloc((size_t)(n + 1) * w, sizeof *prev);
    double *cur = calloc((size_t)(n + 1) * w, sizeof *cur);
    double p = NAN;
    if (!prev || !cur)
        goto out;
    for (int j = 0; j <= n; j++)
        prev[(size_t)j * w] = 1; /* i = 0: only hi values, U = 0 */
    for (int i = 1; i <= m; i++) {
        for (int j = 0; j <= n; j++)
            for (int u = 0; u <= umax; u++)
                cur[(size_t)j * w + (size_t)u] =
                    (u >= j ? prev[(size_t)j * w + (size_t)(u - j)] : 0) +
                    (j > 0 ? cur[(size_t)(j - 1) * w + (size_t)u] : 0);
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double count = 0, total = 1;
    for (int u = 0; u <= umax; u++)
        count += prev[(size_t)n * w + (size_t)u];
    for (int k = 1; k <= m; k++)
        total = total * (n + k) / k; /* C(m + n, m), exact in doubles at these sizes */
    p = count / total;
out:
    free(prev);
    free(cur);
    return p;
}

double hr_stats_mw_p_greater(const double *lo, int nlo, const double *hi, int nhi) {
    if (nlo <= 0 || nhi <= 0 || nlo > HR_STATS_MW_MAX || nhi > HR_STATS_MW_MAX)
        return NAN;
    double u = u_statistic(lo, nlo, hi, nhi);
    return mw_cdf(nlo, nhi, (int)floor(u));
}

int hr_stats_read_array(const hr_json_t *arr, double *v, int cap) {
    int n = 0;
    if (hr_json_type(arr) != HR_JSON_ARRAY)
        return 0;
    for (size_t i = 0; i < hr_json_len(arr) && n < cap; i++) {
        const hr_json_t *x = hr_json_at(arr, i);
        if (hr_json_type(x) == HR_JSON_NUMBER)
            v[n++] = hr_json_num(x, NAN);
    }
    return n;
}
