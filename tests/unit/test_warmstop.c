/* When a warm sample stops (src/replay/warmstop.h), on synthetic lap series:
 * deterministic, no clock read. */
#include "hr_test.h"
#include "replay/warmstop.h"

#define MS 1000000ull

/* Feeds laps of wall `wall_ns` whose judged figures cycle through fig[0..k)
 * until the rule says stop (at most `limit` laps); returns the laps run. */
static uint64_t run(const hr_warmstop_opts_t *o, uint64_t wall_ns, const uint64_t *fig, size_t k,
                    uint64_t limit, hr_warmstop_why_t *why) {
    hr_warmstop_t w;
    if (hr_warmstop_open(&w, o) != 0)
        return 0;
    uint64_t n = 0;
    while (n < limit && !hr_warmstop_lap(&w, wall_ns, fig[n % k]))
        n++;
    *why = w.why;
    hr_warmstop_close(&w);
    return n + 1;
}

/* The ranks of the median's 95 % interval: the binomial table's (n = 100:
 * x(40)..x(61)), none below 6 laps, the approximation above 256 laps joined
 * to the exact sum without a jump. */
static void test_rank(void) {
    HR_CHECK_EQ_U64(hr_warmstop_rank(0), 0);
    HR_CHECK_EQ_U64(hr_warmstop_rank(5), 0);
    HR_CHECK_EQ_U64(hr_warmstop_rank(6), 1);
    HR_CHECK_EQ_U64(hr_warmstop_rank(8), 1);
    HR_CHECK_EQ_U64(hr_warmstop_rank(9), 2);
    HR_CHECK_EQ_U64(hr_warmstop_rank(12), 3);
    HR_CHECK_EQ_U64(hr_warmstop_rank(20), 6);
    HR_CHECK_EQ_U64(hr_warmstop_rank(100), 40);
    HR_CHECK_EQ_U64(hr_warmstop_rank(256), 112);
    HR_CHECK_EQ_U64(hr_warmstop_rank(257), 113);
    HR_CHECK_EQ_U64(hr_warmstop_rank(1000), 469);
    uint64_t prev = 0;
    int mono = 1;
    for (uint64_t n = 1; n <= HR_WARMSTOP_MAX_LAPS; n++) {
        uint64_t j = hr_warmstop_rank(n);
        mono = mono && j >= prev && j <= prev + 1 && 2 * j <= n;
        prev = j;
    }
    HR_CHECK(mono);
}

/* Identical laps stop at the minimum laps, or at the minimum time when the
 * laps are tiny. */
static void test_identical(void) {
    hr_warmstop_opts_t o = hr_warmstop_default(0.02, 0.5);
    const uint64_t same[] = {5 * MS};
    hr_warmstop_why_t why;
    HR_CHECK_EQ_U64(run(&o, 10 * MS, same, 1, 10000, &why), HR_WARMSTOP_MIN_LAPS);
    HR_CHECK_EQ_I64(why, HR_WARMSTOP_TIGHT);
    HR_CHECK_EQ_U64(run(&o, 1 * MS, same, 1, 10000, &why), 20); /* 20 ms */
    HR_CHECK_EQ_I64(why, HR_WARMSTOP_TIGHT);
    o.min_laps = 6; /* the fewest laps with an interval */
    o.min_s = 0;
    HR_CHECK_EQ_U64(run(&o, 10 * MS, same, 1, 10000, &why), 6);
}

/* Laps spread +-33 % around their median never get a tight interval: the
 * sample runs to the cap, by time or by the lap table's size. */
static void test_spread(void) {
    hr_warmstop_opts_t o = hr_warmstop_default(0.02, 0.5);
    const uint64_t alt[] = {100, 200};
    hr_warmstop_why_t why;
    HR_CHECK_EQ_U64(run(&o, 10 * MS, alt, 2, 10000, &why), 50); /* 0.5 s of 10 ms laps */
    HR_CHECK_EQ_I64(why, HR_WARMSTOP_CAP);
    HR_CHECK_EQ_U64(run(&o, 1000, alt, 2, 100000, &why), HR_WARMSTOP_MAX_LAPS);
    HR_CHECK_EQ_I64(why, HR_WARMSTOP_CAP);
    o.rel = 0.5; /* +-50 % takes them: 100..200 around 150 */
    HR_CHECK_EQ_U64(run(&o, 10 * MS, alt, 2, 10000, &why), HR_WARMSTOP_MIN_LAPS);
    HR_CHECK_EQ_I64(why, HR_WARMSTOP_TIGHT);
}

/* One slow lap (a preemption) among equal ones: with 8 laps the interval is
 * x(1)..x(8) and holds it; the ninth lap moves the interval to x(2)..x(8). */
static void test_outlier(void) {
    hr_warmstop_opts_t o = hr_warmstop_default(0.02, 0.5);
    const uint64_t laps[] = {100, 100, 1000, 100, 100, 100, 100, 100, 100, 100};
    hr_warmstop_why_t why;
    HR_CHECK_EQ_U64(run(&o, 10 * MS, laps, 10, 10000, &why), 9);
    HR_CHECK_EQ_I64(why, HR_WARMSTOP_TIGHT);
}

/* The fixed budget (--warm-time alone): laps until it is spent, at least
 * one, whatever their spread. */
static void test_fixed(void) {
    hr_warmstop_opts_t o = hr_warmstop_default(0, 0.05);
    const uint64_t alt[] = {100, 200}, same[] = {5};
    hr_warmstop_why_t why;
    HR_CHECK_EQ_U64(run(&o, 10 * MS, alt, 2, 10000, &why), 5);
    HR_CHECK_EQ_I64(why, HR_WARMSTOP_BUDGET);
    HR_CHECK_EQ_U64(run(&o, 10 * MS, same, 1, 10000, &why), 5);
    o.max_s = 0;
    HR_CHECK_EQ_U64(run(&o, 10 * MS, same, 1, 10000, &why), 1);
    o.rel = 0.02; /* the rule capped at 0 s: one lap too */
    HR_CHECK_EQ_U64(run(&o, 10 * MS, same, 1, 10000, &why), 1);
    HR_CHECK_EQ_I64(why, HR_WARMSTOP_CAP);
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_rank);
    HR_RUN(test_identical);
    HR_RUN(test_spread);
    HR_RUN(test_outlier);
    HR_RUN(test_fixed);
    return hr_test_done();
}
