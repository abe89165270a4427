/* Ascending qsort comparators of plain numbers, one definition for every
 * layer that sorts samples (medians, quantiles, lap times). */
#ifndef HR_BASE_ORDER_H
#define HR_BASE_ORDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline int hr_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* NaN-free input only (a NaN compares equal to everything). */
static inline int hr_cmp_f64(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n-1], n > 0 (sorts v in place): the middle value, or the
 * two middle ones' mean rounded down (computed without overflow). */
static inline uint64_t hr_median_u64(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, hr_cmp_u64);
    return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

#endif
