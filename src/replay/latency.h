/* Latency histogram: log-linear buckets over cycle counts (32 sub-buckets per
 * power of two, so a percentile is exact below 64 cycles and within ~3 %
 * above); the maximum is kept exactly. No allocation after init. */
#ifndef HR_REPLAY_LATENCY_H
#define HR_REPLAY_LATENCY_H

#include <stdint.h>

#define HR_LAT_SUB 32
#define HR_LAT_BUCKETS (64 * HR_LAT_SUB)

typedef struct hr_latency {
    uint64_t counts[HR_LAT_BUCKETS];
    uint64_t n, max;
} hr_latency_t;

static inline unsigned hr_lat_bucket(uint64_t v) {
    if (v < 2 * HR_LAT_SUB)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* v >= 64: e >= 6 */
    unsigned shift = e - 5;                            /* keep 6 significant bits */
    return (shift + 1) * HR_LAT_SUB + (unsigned)((v >> shift) & (HR_LAT_SUB - 1));
}

static inline void hr_lat_add(hr_latency_t *h, uint64_t v) {
    h->counts[hr_lat_bucket(v)]++;
    h->n++;
    if (v > h->max)
        h->max = v;
}

void hr_lat_reset(hr_latency_t *h);
/* Value at quantile q (0..1), as the upper bound of its bucket, capped at max. */
uint64_t hr_lat_quantile(const hr_latency_t *h, double q);
/* Lower bound of a bucket (for tests). */
uint64_t hr_lat_bucket_low(unsigned b);
/* Upper bound of a bucket (inclusive): the report's series.latency.le_ns. */
uint64_t hr_lat_bucket_high(unsigned b);

#endif
