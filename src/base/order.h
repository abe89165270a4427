/* Ascending qsort comparators of plain numbers, one definition for every
 * layer that sorts samples (medians, quantiles, lap times). */
#ifndef HR_BASE_ORDER_H
#define HR_BASE_ORDER_H

#include <stdint.h>

static inline int hr_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* NaN-free input only (a NaN compares equal to everything). */
static inline int hr_cmp_f64(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
