/* Noise-aware verdicts (see noise.h for the rule and why). */
#include "report/noise.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/stats.h"

void hr_spread_of(const hr_json_t *result, const char *path, hr_spread_t *s) {
    char end[192];
    memset(s, 0, sizeof *s);
    s->center = s->min = s->max = NAN;
    const hr_json_t *arr = hr_json_get(hr_json_get(result, "samples"), path);
    double tmp[HR_NOISE_MAX_SAMPLES];
    int k = hr_stats_read_array(arr, s->v, HR_NOISE_MAX_SAMPLES);
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
    s->center = hr_json_path_num(result, path);
    if (isnan(s->center))
        return;
    s->n = 1;
    /* an older report: a range without its samples */
    double runs = hr_json_path_num(result, "runs"), mn, mx;
    snprintf(end, sizeof end, "%s_min", path);
    mn = hr_json_path_num(result, end);
    snprintf(end, sizeof end, "%s_max", path);
    mx = hr_json_path_num(result, end);
    if (runs >= 2 && !isnan(mn) && !isnan(mx) && mn <= s->center && s->center <= mx) {
        s->n = runs > HR_NOISE_MAX_SAMPLES ? HR_NOISE_MAX_SAMPLES : (int)runs;
        s->min = mn;
        s->max = mx;
    }
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
        snprintf(why, len, worse < 0 ? "%s: better" : "%s within %g%%", d_txt, tol);
        return worse < 0 ? HR_NOISE_IMPROVED : HR_NOISE_OK;
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
