/* The paced memory lap's timeline (src/replay/paced.h): idle gaps over
 * HR_PACED_IDLE_CAP_NS are cut to it, shorter ones kept whole, a thread's
 * late timestamp inside a cut gap lands inside the cut gap, and the durations;
 * the --memory-lap names. */
#include <string.h>

#include "hr_test.h"
#include "replay/paced.h"
#include "trace/trace.h"

#define S 1000000000ull /* one second in ns */

static int load(const char *text, hr_trace_t *t) {
    hr_error_t err = {{0}};
    hr_trace_init(t);
    return hr_trace_read_mem(text, strlen(text), "mem.hrtt", HR_FMT_TEXT, t, &err);
}

/* Events at 1 s, 2 s, then 32 s (a 30 s gap: cut by 18 s), 32.5 s, 50 s (a
 * 17.5 s gap: cut by 5.5 s) and a thread-1 event recorded at 33 s but listed
 * after 50 s. */
static const char *const timeline =
    "heapreplay-trace 1 timestamps\n"
    "alloc 0 64 @1000000000\n"
    "alloc 1 64 @2000000000\n"
    "free 0 @32000000000\n"
    "alloc 2 64 @32500000000\n"
    "free 1 @50000000000\n"
    "free 2 t=1 @33000000000\n";

static void test_cuts(void) {
    hr_trace_t t;
    hr_paced_map_t m;
    hr_error_t err = {{0}};
    HR_CHECK(load(timeline, &t) == 0);
    HR_CHECK(hr_paced_map_build(&m, &t, &err) == 0);
    HR_CHECK_EQ_U64(m.ts0, 1 * S);
    HR_CHECK_EQ_U64(m.n_cuts, 2);
    HR_CHECK_EQ_U64(m.recorded_ns, 49 * S);
    HR_CHECK_EQ_U64(m.paced_ns, 49 * S - 18 * S - 5 * S - S / 2);
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 1 * S), 0);
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 2 * S), 1 * S);    /* a short gap: whole */
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 32 * S), 13 * S);  /* 1 s + the 12 s cap */
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 32 * S + S / 2), 13 * S + S / 2);
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 33 * S), 14 * S);  /* after the first gap */
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 50 * S), 13 * S + S / 2 + 12 * S);
    /* inside the first gap: its own offset, at most the cap */
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 5 * S), 4 * S);
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 20 * S), 13 * S);
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 0), 0);            /* before the first event */
    hr_paced_map_free(&m);
    hr_trace_free(&t);
}

/* No gap over the cap: the recorded timeline itself. */
static void test_no_cut(void) {
    hr_trace_t t;
    hr_paced_map_t m;
    hr_error_t err = {{0}};
    HR_CHECK(load("heapreplay-trace 1 timestamps\nalloc 0 8 @100\nfree 0 @11000000100\n", &t) == 0);
    HR_CHECK(hr_paced_map_build(&m, &t, &err) == 0);
    HR_CHECK_EQ_U64(m.n_cuts, 0);
    HR_CHECK_EQ_U64(m.paced_ns, 11 * S);
    HR_CHECK_EQ_U64(hr_paced_rel(&m, 5 * S + 100), 5 * S);
    hr_paced_map_free(&m);
    hr_trace_free(&t);
}

static void test_names(void) {
    hr_memory_lap_t l = HR_MEMLAP_AUTO;
    HR_CHECK(hr_memory_lap_parse("paced", &l) == 0 && l == HR_MEMLAP_PACED);
    HR_CHECK(hr_memory_lap_parse("fast", &l) == 0 && l == HR_MEMLAP_FAST);
    HR_CHECK(hr_memory_lap_parse("auto", &l) == 0 && l == HR_MEMLAP_AUTO);
    HR_CHECK(hr_memory_lap_parse("Paced", &l) != 0 && hr_memory_lap_parse("", &l) != 0);
    HR_CHECK_STR(hr_memory_lap_name(HR_MEMLAP_PACED), "paced");
    HR_CHECK(hr_replay_options_default().memory_lap == HR_MEMLAP_AUTO);
}

int main(void) {
    HR_RUN(test_cuts);
    HR_RUN(test_no_cut);
    HR_RUN(test_names);
    return hr_test_done();
}
