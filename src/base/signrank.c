/* Signed-rank interval and Hodges-Lehmann estimate (signrank.h). */
#include "base/signrank.h"

#include <math.h>
#include <stdlib.h>

#include "base/order.h"

int hr_signrank_k(int n, double *confidence) {
    /* cnt[s]: subsets of the ranks 1..n whose sum is s (the null distribution
     * of the signed-rank statistic, times 2^n); doubles: 2^64 does not fit */
    int max = n * (n + 1) / 2, best = 0;
    double conf = NAN, *cnt = n < 1 ? NULL : calloc((size_t)max + 1, sizeof *cnt);
    if (!cnt) {
        if (confidence)
            *confidence = conf;
        return 0;
    }
    cnt[0] = 1;
    for (int r = 1; r <= n; r++)
        for (int s = r * (r + 1) / 2; s >= r; s--)
            cnt[s] += cnt[s - r];
    double total = ldexp(1.0, n), tail = 0;
    for (int k = 1; k <= max / 2; k++) {
        tail += cnt[k - 1] / total; /* P(T <= k - 1) */
        if (tail > 0.025)
            break;
        best = k;
        conf = 1 - 2 * tail;
    }
    free(cnt);
    if (confidence)
        *confidence = conf;
    return best;
}

int hr_signrank_hl(const double *x, int n, double *est, double *lo, double *hi, double *conf) {
    double w[HR_SIGNRANK_MAX * (HR_SIGNRANK_MAX + 1) / 2]; /* 64.5 KiB */
    *est = *lo = *hi = *conf = NAN;
    if (n < 1 || n > HR_SIGNRANK_MAX)
        return -1;
    int nw = 0;
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++)
            w[nw++] = (x[i] + x[j]) / 2;
    qsort(w, (size_t)nw, sizeof w[0], hr_cmp_f64);
    *est = nw % 2 ? w[nw / 2] : (w[nw / 2 - 1] + w[nw / 2]) / 2;
    int k = hr_signrank_k(n, conf);
    if (k < 1)
        return -1;
    *lo = w[k - 1];
    *hi = w[nw - k];
    return 0;
}
