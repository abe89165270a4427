/* heapreplay — the figures every in-house allocator reports first (public API).
 *
 * The stats struct of each in-house allocator (hr_stack_stats_t,
 * hr_marker_stats_t, hr_block_stats_t, hr_bank_stats_t, hr_sizeclass_stats_t)
 * begins with one hr_alloc_stats_t named `head`, so that code reading the
 * common figures (the backends' stats emitter) handles every allocator alike.
 * Each allocator's header says what the figures mean for it exactly; the
 * shared meaning is below. All are bytes except `objects`.
 */
#ifndef HEAPREPLAY_ALLOC_STATS_H
#define HEAPREPLAY_ALLOC_STATS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hr_alloc_stats {
    uint64_t live_bytes;     /* bytes of live blocks */
    uint64_t footprint;      /* bytes the allocator holds from the system now */
    uint64_t high_water;     /* peak of live_bytes (or of bytes used) */
    uint64_t peak_footprint; /* peak of footprint */
    uint64_t objects;        /* live blocks */
    uint64_t largest_free;   /* the largest request served without growing */
} hr_alloc_stats_t;

#define HR_ALLOC_STATS_NFIELDS 6

#ifdef __cplusplus
}
#endif
#endif
