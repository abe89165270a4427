/* The bounded series of the measurement lap (src/replay/series.h): the
 * memory downsampler keeps every isolated peak and dip and the global
 * extremes, stays within HR_SERIES_MAX_POINTS with increasing event indices
 * whatever the length; the frame series merges frames into correct
 * mean/min/max points. */
#include <stdlib.h>

#include "hr_test.h"
#include "replay/series.h"

static hr_mseries_t ms;
static hr_fseries_t fs;

/* The output point at `event`, or NULL. */
static const hr_spoint_t *point_at(const hr_mseries_t *s, uint64_t event) {
    for (size_t i = 0; i < s->n_out; i++)
        if (s->slot[i].event == event)
            return &s->slot[i];
    return NULL;
}

static int increasing(const hr_mseries_t *s) {
    for (size_t i = 1; i < s->n_out; i++)
        if (s->slot[i].event <= s->slot[i - 1].event)
            return 0;
    return 1;
}

/* A flat signal (1000 + a small ripple) with a peak every 5000 events and
 * a dip 2500 events after each: each is the extreme of its bucket, so all
 * are kept, with or without the length hint (then the buckets merge from
 * width 1 up to 512). */
static void run_isolated_peaks(uint64_t hint) {
    const uint64_t n = 100000;
    hr_mseries_init(&ms, 1, hint);
    for (uint64_t i = 0; i < n; i++) {
        hr_spoint_t p = {i, {1000 + i % 7, 0, 0}};
        if (i % 5000 == 1234)
            p.v[0] = 1000000 + i; /* peak k: distinct heights */
        else if (i % 5000 == 3734)
            p.v[0] = 10 + i % 13; /* dip */
        hr_mseries_add(&ms, &p);
    }
    size_t got = hr_mseries_finish(&ms);
    HR_CHECK(got > 0 && got <= HR_SERIES_MAX_POINTS);
    HR_CHECK(increasing(&ms));
    int missing = 0;
    for (uint64_t i = 1234; i < n; i += 5000) {
        const hr_spoint_t *p = point_at(&ms, i);
        missing += !p || p->v[0] != 1000000 + i;
        p = point_at(&ms, i + 2500);
        missing += !p || p->v[0] != 10 + (i + 2500) % 13;
    }
    HR_CHECK_EQ_U64(missing, 0);
    HR_CHECK(hr_mseries_finish(&ms) == got); /* idempotent */
}

static void test_isolated_peaks_hint(void) { run_isolated_peaks(100000); }
static void test_isolated_peaks_merged(void) { run_isolated_peaks(0); }

/* Peaks of each channel at different events: all three channels' peaks and
 * the global ones survive; the bound holds with 6 points per bucket. */
static void test_channels(void) {
    const uint64_t n = 300000;
    hr_mseries_init(&ms, 3, 0);
    uint64_t gmax[3] = {0, 0, 0}, gat[3] = {0, 0, 0};
    for (uint64_t i = 0; i < n; i++) {
        hr_spoint_t p = {i, {500 + (i * 7919) % 101, 800 + (i * 104729) % 97, 300 + i % 5}};
        for (unsigned c = 0; c < 3; c++)
            if (i % 20000 == 4000 * c + 777)
                p.v[c] = 100000 * (c + 1) + i;
        for (unsigned c = 0; c < 3; c++)
            if (p.v[c] > gmax[c])
                gmax[c] = p.v[c], gat[c] = i;
        hr_mseries_add(&ms, &p);
    }
    size_t got = hr_mseries_finish(&ms);
    HR_CHECK(got <= HR_SERIES_MAX_POINTS);
    HR_CHECK(increasing(&ms));
    int missing = 0;
    for (unsigned c = 0; c < 3; c++) {
        for (uint64_t i = 4000 * c + 777; i < n; i += 20000) {
            const hr_spoint_t *p = point_at(&ms, i);
            missing += !p || p->v[c] != 100000 * (c + 1) + i;
        }
        const hr_spoint_t *g = point_at(&ms, gat[c]);
        HR_CHECK(g && g->v[c] == gmax[c]);
    }
    HR_CHECK_EQ_U64(missing, 0);
}

/* Fewer events than buckets: every point is kept as it was. */
static void test_short_exact(void) {
    hr_mseries_init(&ms, 2, 100);
    for (uint64_t i = 0; i < 100; i++) {
        hr_spoint_t p = {i, {i * 3, 1000 - i, 0}};
        hr_mseries_add(&ms, &p);
    }
    HR_CHECK_EQ_U64(hr_mseries_finish(&ms), 100);
    for (uint64_t i = 0; i < 100 && i < ms.n_out; i++) {
        HR_CHECK_EQ_U64(ms.slot[i].event, i);
        HR_CHECK_EQ_U64(ms.slot[i].v[0], i * 3);
        HR_CHECK_EQ_U64(ms.slot[i].v[1], 1000 - i);
    }
    hr_mseries_init(&ms, 1, 0); /* no events: no points */
    HR_CHECK_EQ_U64(hr_mseries_finish(&ms), 0);
}

/* A long trace: the bound and the order hold, the global peak is kept. */
static void test_long_bounded(void) {
    const uint64_t n = 3000000;
    hr_mseries_init(&ms, 2, 1000); /* a wrong hint: merging takes over */
    for (uint64_t i = 0; i < n; i++) {
        hr_spoint_t p = {i, {(i * 2654435761u) % 65536, i == 2222222 ? 99999 : i % 1000, 0}};
        hr_mseries_add(&ms, &p);
    }
    HR_CHECK(hr_mseries_finish(&ms) <= HR_SERIES_MAX_POINTS);
    HR_CHECK(increasing(&ms));
    const hr_spoint_t *p = point_at(&ms, 2222222);
    HR_CHECK(p && p->v[1] == 99999);
}

/* Channels that change only now and then (an external allocator's sampled
 * footprint and RSS) need no compare in between: the output is the same. */
static hr_mseries_t ms2;
static void test_changed_channels(void) {
    hr_mseries_init(&ms, 3, 0);
    hr_mseries_init(&ms2, 3, 0);
    uint64_t fp = 0, rss = 0;
    for (uint64_t i = 0; i < 200000; i++) {
        int sample = i % 97 == 0;
        if (sample)
            fp = (i * 7919) % 100003, rss = (i * 104729) % 65537;
        hr_spoint_t p = {i, {(i * 2654435761u) % 4099, fp, rss}};
        hr_mseries_add(&ms, &p);
        hr_mseries_add_changed(&ms2, &p, sample ? 3 : 1);
    }
    size_t a = hr_mseries_finish(&ms), b = hr_mseries_finish(&ms2);
    HR_CHECK_EQ_U64(a, b);
    HR_CHECK(a == b && memcmp(ms.slot, ms2.slot, a * sizeof ms.slot[0]) == 0);
}

/* Frame values v(i) = 10 * i + (i % 3): points against a brute force of
 * their frames, with and without the count hint. */
static void check_frames(uint64_t count, uint64_t hint, uint64_t want_per) {
    hr_fseries_init(&fs, hint);
    for (uint64_t i = 0; i < count; i++)
        hr_fseries_add(&fs, 10 * i + i % 3);
    HR_CHECK_EQ_U64(fs.count, count);
    HR_CHECK_EQ_U64(fs.per, want_per);
    size_t np = hr_fseries_points(&fs);
    HR_CHECK(np <= HR_SERIES_MAX_POINTS);
    HR_CHECK_EQ_U64(np, (count + want_per - 1) / want_per);
    int bad = 0;
    for (size_t j = 0; j < np; j++) {
        uint64_t first = j * fs.per, n = hr_fseries_n(&fs, j), sum = 0, mn = UINT64_MAX, mx = 0;
        for (uint64_t i = first; i < first + n; i++) {
            uint64_t v = 10 * i + i % 3;
            sum += v;
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
        }
        bad += n == 0 || fs.sum[j] != sum || fs.min[j] != mn || fs.max[j] != mx;
    }
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK_EQ_U64(hr_fseries_n(&fs, np - 1), count - (np - 1) * want_per);
}

static void test_frames_merge(void) {
    check_frames(300, 300, 1);   /* every frame a point */
    check_frames(1000, 0, 2);    /* pairs merged once */
    check_frames(1000, 1000, 2); /* the hint gives the same points */
    check_frames(1501, 0, 4);    /* merged twice; the last point has 1 frame */
    check_frames(3713, 3713, 8); /* frame_loop.hrt's frames: ceil(3713 / 512) */
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_isolated_peaks_hint);
    HR_RUN(test_isolated_peaks_merged);
    HR_RUN(test_channels);
    HR_RUN(test_short_exact);
    HR_RUN(test_long_bounded);
    HR_RUN(test_changed_channels);
    HR_RUN(test_frames_merge);
    return hr_test_done();
}
