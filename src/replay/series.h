/* Bounded series of the measurement lap (docs/REPORT_SCHEMA.md "series",
 * docs/METRICS.md "Series"): memory against event index and allocator time
 * per frame, each at most HR_SERIES_MAX_POINTS points whatever the trace's
 * length.
 *
 * Contract: the structures are fixed-size and self-contained (no pointers,
 * no allocation): the engine keeps them inside its measurement state, which
 * is harness memory mapped before the lap (base/hmem.h), so recording a
 * series never calls the allocator under test. Recording happens only in the
 * instrumented lap (engine_measure.c), never in a timed lap.
 *
 * Memory (hr_mseries_t). Points are (event, value per channel). Events are
 * cut into buckets of `width` consecutive event indices; per bucket and
 * channel the point of the maximum and the point of the minimum are kept
 * (the earliest on ties). When an event falls beyond the last bucket, the
 * buckets are merged pairwise (the maxima's max, the minima's min) and the
 * width doubles: memory stays bounded by the bucket count, not by the
 * trace's length. Every global maximum and minimum is therefore kept, and
 * so is every local peak that is alone in its bucket (an isolated peak: one
 * that is the highest value within `width` events either side of it).
 *
 * Frames (hr_fseries_t). One value per frame; while there are at most
 * HR_SERIES_MAX_POINTS points, `per` frames make one point (sum, min, max);
 * when full, neighbouring points merge pairwise and `per` doubles. */
#ifndef HR_REPLAY_SERIES_H
#define HR_REPLAY_SERIES_H

#include <stddef.h>
#include <stdint.h>

#define HR_SERIES_MAX_POINTS 512
#define HR_SERIES_CHANNELS   3 /* live, footprint, RSS */

typedef struct hr_spoint {
    uint64_t event;
    uint64_t v[HR_SERIES_CHANNELS];
} hr_spoint_t;

typedef struct hr_mseries {
    unsigned    nch;     /* channels recorded (1..HR_SERIES_CHANNELS) */
    unsigned    nb;      /* buckets: HR_SERIES_MAX_POINTS / (2 * nch) */
    uint64_t    width;   /* events per bucket */
    uint64_t    cur;     /* the bucket of the last point */
    uint64_t    next;    /* first event past it: the per-point path divides
                          * only when an event reaches it (once per bucket) */
    size_t      n_out;   /* points after hr_mseries_finish (0 before) */
    int         done;
    /* bucket k, channel c: slot[k * 2 * nch + 2 * c] holds the maximum's
     * point, + 1 the minimum's; after hr_mseries_finish slot[0..n_out) are
     * the points in event order */
    uint32_t    n[HR_SERIES_MAX_POINTS / 2]; /* non-zero: the bucket has points */
    hr_spoint_t slot[HR_SERIES_MAX_POINTS];
} hr_mseries_t;

/* Empty series of `nch` channels for about `expect_events` events (a hint
 * that sets the first bucket width so the buckets are used fully; the width
 * grows by merging when events go beyond it). */
void hr_mseries_init(hr_mseries_t *s, unsigned nch, uint64_t expect_events);
/* One point; events must not decrease (a point at an event already seen
 * counts as another sample of that event). Ignored after finish. Inline:
 * the measurement lap adds one point per event, between two timed ops.
 * hr_mseries_add_changed: only channels [0, nchk) may differ from the
 * previous point's (the others are equal to it: a bucket already holding
 * that point keeps its extremes, earliest on ties, so they need no compare;
 * external allocators' footprint and RSS change only when sampled). */
void hr_mseries_next_bucket(hr_mseries_t *s, const hr_spoint_t *p);
static inline void hr_mseries_add_changed(hr_mseries_t *s, const hr_spoint_t *p, unsigned nchk) {
    if (s->done)
        return;
    if (p->event >= s->next) { /* once per bucket */
        hr_mseries_next_bucket(s, p);
        return;
    }
    hr_spoint_t *b = &s->slot[s->cur * 2 * s->nch];
    for (unsigned c = 0; c < nchk && c < s->nch; c++) {
        if (p->v[c] > b[2 * c].v[c])
            b[2 * c] = *p;
        if (p->v[c] < b[2 * c + 1].v[c])
            b[2 * c + 1] = *p;
    }
}
static inline void hr_mseries_add(hr_mseries_t *s, const hr_spoint_t *p) {
    hr_mseries_add_changed(s, p, HR_SERIES_CHANNELS);
}

/* Turns the buckets into the output: at most HR_SERIES_MAX_POINTS points,
 * event indices strictly increasing (one point per event: the first of
 * several kept at one event). Returns the count; s->slot holds them.
 * Idempotent. */
size_t hr_mseries_finish(hr_mseries_t *s);

typedef struct hr_fseries {
    uint64_t per;   /* frames per point */
    uint64_t count; /* frames added */
    uint64_t sum[HR_SERIES_MAX_POINTS], min[HR_SERIES_MAX_POINTS], max[HR_SERIES_MAX_POINTS];
} hr_fseries_t;

/* Empty frame series for about `expect_frames` frames (hint for `per`). */
void hr_fseries_init(hr_fseries_t *s, uint64_t expect_frames);
void hr_fseries_add(hr_fseries_t *s, uint64_t v);
/* Points so far: ceil(count / per). Point j covers frames [j * per,
 * j * per + hr_fseries_n(s, j)). */
size_t hr_fseries_points(const hr_fseries_t *s);
uint64_t hr_fseries_n(const hr_fseries_t *s, size_t j);

#endif
