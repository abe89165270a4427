/* Sample statistics and noise-aware verdicts (see stats.h for the rule and
 * why). */
#include "report/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- noise-aware verdicts -------------------------------------------- */

/* A figure's value, _min or _max: by id when registered (no path lookup). */
static double stat_of(const hr_result_t *t, int id, const char *path, int stat) {
    return id >= 0 ? hr_result_num(&t->m, (hr_metric_id_t)id, 0, stat) : hr_result_at(t, path, stat);
}

static void spread(const hr_result_t *t, int id, const char *path, hr_spread_t *s) {
    memset(s, 0, sizeof *s);
    s->center = s->min = s->max = NAN;
    double tmp[HR_NOISE_MAX_SAMPLES];
    int k = hr_result_samples_at(t, path, s->v, HR_NOISE_MAX_SAMPLES);
    if (k > 0) {
        memcpy(tmp, s->v, (size_t)k * sizeof tmp[0]);
        hr_stats_t st = hr_stats_of(tmp, k); /* sorts the copy: v keeps repeat order */
        s->n = s->nv = st.n;
        s->center = st.median;
        if (st.n >= 2) {
            s->min = st.min;
            s->max = st.max;
        }
        return;
    }
    s->center = stat_of(t, id, path, 0);
    if (isnan(s->center))
        return;
    s->n = 1;
    /* an older report: a range without its samples */
    double runs = t->runs, mn = stat_of(t, id, path, 1), mx = stat_of(t, id, path, 2);
    if (runs >= 2 && !isnan(mn) && !isnan(mx) && mn <= s->center && s->center <= mx) {
        s->n = runs > HR_NOISE_MAX_SAMPLES ? HR_NOISE_MAX_SAMPLES : (int)runs;
        s->min = mn;
        s->max = mx;
    }
}

void hr_spread_of(const hr_result_t *t, hr_metric_id_t id, hr_spread_t *s) {
    spread(t, hr_metrics[id].family ? -1 : (int)id, hr_metrics[id].path, s);
}

void hr_spread_at(const hr_result_t *t, const char *path, hr_spread_t *s) {
    spread(t, -1, path, s);
}

double hr_delta_pct(double b, double n) {
    if (b == n)
        return 0;
    if (b == 0)
        return n > b ? INFINITY : -INFINITY;
    return (n - b) / fabs(b) * 100.0;
}

/* "+18.2%" ("+1.0e-05%" for a tiny nonzero change: one byte of 10 MiB must
 * not read as +0.00). */
static void fmt_delta(char *buf, size_t n, double d) {
    snprintf(buf, n, isinf(d) || fabs(d) >= 0.01 || d == 0 ? "%+.2f%%" : "%+.1e%%", d);
}

/* The sample test on a change already beyond the tolerance: 1 when the
 * samples say it is real. `bad` is the formatted change and tolerance. */
static int samples_confirm(const hr_spread_t *b, const hr_spread_t *c, int higher,
                           const char *bad, char *why, size_t len) {
    /* worse side's nearest sample vs the base's farthest, by direction */
    double c_edge = higher ? c->max : c->min, b_edge = higher ? b->min : b->max;
    const char *c_name = higher ? "max" : "min", *b_name = higher ? "min" : "max";
    if (higher ? c_edge < b_edge : c_edge > b_edge) {
        snprintf(why, len, "%s and samples separated: new %s %.6g %s base %s %.6g", bad, c_name,
                 c_edge, higher ? "<" : ">", b_name, b_edge);
        return 1;
    }
    if (b->nv >= HR_NOISE_MW_MIN && c->nv >= HR_NOISE_MW_MIN) {
        double p = higher ? hr_stats_mw_p_greater(c->v, c->nv, b->v, b->nv)
                          : hr_stats_mw_p_greater(b->v, b->nv, c->v, c->nv);
        if (p < HR_NOISE_MW_ALPHA) {
            snprintf(why, len, "%s and Mann-Whitney p = %.2g < %g (%d vs %d samples)", bad, p,
                     HR_NOISE_MW_ALPHA, b->nv, c->nv);
            return 1;
        }
        snprintf(why, len, "%s but samples overlap (new %s %.6g, base %s %.6g; Mann-Whitney "
                 "p = %.2g)", bad, c_name, c_edge, b_name, b_edge, p);
        return 0;
    }
    snprintf(why, len, "%s but samples overlap: new %s %.6g %s base %s %.6g", bad, c_name, c_edge,
             higher ? ">=" : "<=", b_name, b_edge);
    return 0;
}

hr_noise_verdict_t hr_noise_judge(const hr_spread_t *b, const hr_spread_t *c, double tol,
                                  int higher, int exact, char *why, size_t len) {
    char d_txt[32], bad[96];
    double d = hr_delta_pct(b->center, c->center), worse = higher ? -d : d;
    fmt_delta(d_txt, sizeof d_txt, d);
    if (worse <= tol + 1e-9) {
        /* An improvement is called as a regression is: a deterministic
         * figure by any change, a measured one only beyond the tolerance and
         * with its samples separated (the same test, direction reversed). */
        if (worse < 0 && exact) {
            snprintf(why, len, "%s: better (deterministic figure)", d_txt);
            return HR_NOISE_IMPROVED;
        }
        if (worse < -tol - 1e-9) {
            char good[96];
            snprintf(good, sizeof good, higher ? "%s > +%g%%" : "%s < -%g%%", d_txt, tol);
            if (b->n < 2 || c->n < 2) {
                snprintf(why, len, "%s (no spread to test)", good);
                return HR_NOISE_IMPROVED;
            }
            return samples_confirm(b, c, !higher, good, why, len) ? HR_NOISE_IMPROVED : HR_NOISE_OK;
        }
        snprintf(why, len, "%s within %g%%", d_txt, tol);
        return HR_NOISE_OK;
    }
    snprintf(bad, sizeof bad, higher ? "%s < -%g%%" : "%s > %g%%", d_txt, tol);
    if (exact) {
        snprintf(why, len, "%s (deterministic figure)", bad);
        return HR_NOISE_REGRESSION;
    }
    if (b->n < 2 || c->n < 2) {
        const char *side = b->n < 2 && c->n < 2 ? "single values" : b->n < 2 ? "base has 1 sample"
                                                                              : "new has 1 sample";
        snprintf(why, len, "%s (%s: no spread to test)", bad, side);
        return HR_NOISE_REGRESSION;
    }
    return samples_confirm(b, c, higher, bad, why, len) ? HR_NOISE_REGRESSION : HR_NOISE_NOISE;
}
