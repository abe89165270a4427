/* When a warm sample stops (warmstop.h). */
#include <math.h>
#include <string.h>

#include "base/hmem.h"
#include "replay/warmstop.h"

hr_warmstop_opts_t hr_warmstop_default(double rel, double max_s) {
    hr_warmstop_opts_t o = {rel, HR_WARMSTOP_MIN_S, max_s, HR_WARMSTOP_MIN_LAPS};
    return o;
}

/* Exact below 256 laps (the binomial tail summed in log space, so 2^-n does
 * not underflow); above, the normal approximation with continuity
 * correction, which there is off by at most one rank. */
uint64_t hr_warmstop_rank(uint64_t n) {
    if (n < 6)
        return 0;
    if (n > 256) {
        double j = floor((double)n / 2 + 0.5 - 0.98 * sqrt((double)n));
        return j < 1 ? 1 : (uint64_t)j;
    }
    double lp = -(double)n * log(2.0), cdf = 0; /* log P(B = k), P(B < j) */
    uint64_t j = 0;
    for (uint64_t k = 0; k < n; k++) {
        cdf += exp(lp);
        if (cdf > 0.025)
            break;
        j = k + 1; /* P(B < k + 1) <= 2.5 % */
        lp += log((double)(n - k)) - log((double)(k + 1));
    }
    return j;
}

int hr_warmstop_open(hr_warmstop_t *w, const hr_warmstop_opts_t *o) {
    memset(w, 0, sizeof *w);
    w->o = *o;
    w->spread = NAN;
    if (o->rel <= 0)
        return 0;
    w->sorted = hr_hmem_alloc(HR_WARMSTOP_MAX_LAPS * sizeof *w->sorted, HR_HMEM_POPULATE);
    return w->sorted ? 0 : -1;
}

void hr_warmstop_close(hr_warmstop_t *w) {
    hr_hmem_free(w->sorted, HR_WARMSTOP_MAX_LAPS * sizeof *w->sorted);
    w->sorted = NULL;
}

/* Inserts v into the ascending table of w->n - 1 figures. */
static void insert(hr_warmstop_t *w, uint64_t v) {
    size_t i = (size_t)w->n - 1;
    while (i > 0 && w->sorted[i - 1] > v) {
        w->sorted[i] = w->sorted[i - 1];
        i--;
    }
    w->sorted[i] = v;
}

/* The half-width of the median's 95 % interval over the median (NAN when the
 * laps are too few for one). */
static double spread(const hr_warmstop_t *w) {
    uint64_t n = w->n, j = hr_warmstop_rank(n);
    if (j == 0)
        return NAN;
    const uint64_t *x = w->sorted;
    double med = n % 2 ? (double)x[n / 2] : ((double)x[n / 2 - 1] + (double)x[n / 2]) / 2;
    double lo = med - (double)x[j - 1], hi = (double)x[n - j] - med;
    return med > 0 ? (lo > hi ? lo : hi) / med : 0;
}

int hr_warmstop_lap(hr_warmstop_t *w, uint64_t wall_ns, uint64_t figure_ns) {
    const hr_warmstop_opts_t *o = &w->o;
    w->n++;
    w->spent_ns += wall_ns;
    double spent = (double)w->spent_ns / 1e9;
    if (o->rel <= 0) { /* the fixed budget: as many laps as fit, at least one */
        w->why = spent >= o->max_s ? HR_WARMSTOP_BUDGET : HR_WARMSTOP_RUNNING;
        return w->why != HR_WARMSTOP_RUNNING;
    }
    insert(w, figure_ns);
    w->spread = spread(w);
    if (w->n >= o->min_laps && spent >= o->min_s && w->spread <= o->rel)
        w->why = HR_WARMSTOP_TIGHT;
    else if (spent >= o->max_s || w->n >= HR_WARMSTOP_MAX_LAPS)
        w->why = HR_WARMSTOP_CAP;
    return w->why != HR_WARMSTOP_RUNNING;
}
