/* Latency histogram (see latency.h). */
#include "replay/latency.h"

#include <string.h>

void hr_lat_reset(hr_latency_t *h) { memset(h, 0, sizeof *h); }

uint64_t hr_lat_bucket_low(unsigned b) {
    if (b < 2 * HR_LAT_SUB)
        return b;
    unsigned shift = b / HR_LAT_SUB - 1;
    uint64_t mant = HR_LAT_SUB + (b % HR_LAT_SUB);
    return mant << shift;
}

uint64_t hr_lat_bucket_high(unsigned b) {
    if (b < 2 * HR_LAT_SUB)
        return b;
    unsigned shift = b / HR_LAT_SUB - 1;
    return hr_lat_bucket_low(b) + ((uint64_t)1 << shift) - 1;
}

uint64_t hr_lat_quantile(const hr_latency_t *h, double q) {
    if (h->n == 0)
        return 0;
    uint64_t rank = (uint64_t)(q * (double)h->n);
    if (rank >= h->n)
        rank = h->n - 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < HR_LAT_BUCKETS; b++) {
        seen += h->counts[b];
        if (seen > rank) {
            uint64_t hi = hr_lat_bucket_high(b);
            return hi < h->max ? hi : h->max;
        }
    }
    return h->max;
}
