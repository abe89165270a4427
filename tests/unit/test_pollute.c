/* The cache-pollution model (replay/pollute.h, --pollute): parsing and
 * names, and that a timed lap writes exactly LINES lines of the scratch
 * buffer after every allocator call and after nothing else (frames, marks),
 * continuing where it stopped and wrapping at the buffer's end. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "hr_test.h"
#include "replay/engine.h"
#include "replay/pollute.h"

static void test_pollute_parse(void) {
    hr_pollute_t p;
    char b[48];
    HR_CHECK(hr_pollute_parse("none", &p) == 0 && p.bytes == 0);
    HR_CHECK(hr_pollute_parse("4M", &p) == 0 && p.bytes == 4u << 20 &&
             p.lines == HR_POLLUTE_DEFAULT_LINES);
    HR_CHECK(hr_pollute_parse("64K:1", &p) == 0 && p.bytes == 64u << 10 && p.lines == 1);
    HR_CHECK(hr_pollute_parse("1G:1024", &p) == 0 && p.bytes == 1u << 30 && p.lines == 1024);
    HR_CHECK(hr_pollute_parse("100000:8", &p) == 0 && p.bytes == 100000 && p.lines == 8);
    static const char *const bad[] = {"", "x", "0", "4X", "63K", "2G", "4M:", "4M:0",
                                      "4M:1025", "4M:8x", ":8", "4M:-1", "NONE", "4M 8",
                                      "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = (hr_pollute_t){12345, 7};
        int rc = hr_pollute_parse(bad[i], &p);
        if (rc != -1 || p.bytes != 12345 || p.lines != 7)
            printf("# accepted or changed by '%s'\n", bad[i]);
        HR_CHECK(rc == -1 && p.bytes == 12345 && p.lines == 7); /* untouched */
    }
    static const char *const round[] = {"none", "4M:16", "64K:1", "1G:1024", "100000:8"};
    for (size_t i = 0; i < sizeof round / sizeof round[0]; i++) {
        HR_CHECK(hr_pollute_parse(round[i], &p) == 0);
        HR_CHECK_STR(hr_pollute_spec(&p, b, sizeof b), round[i]);
    }
    HR_CHECK(hr_pollute_parse("2048K", &p) == 0);
    HR_CHECK_STR(hr_pollute_spec(&p, b, sizeof b), "2M:16");
}

/* Allocs and frees of `n` ids, a frame after every tenth event: 2n
 * allocator calls and n / 5 frames. */
static void trace_of(hr_trace_t *t, unsigned n) {
    hr_trace_init(t);
    for (unsigned i = 0; i < 2 * n; i++) {
        hr_event_t ev = {0};
        ev.op = i < n ? HR_OP_ALLOC : HR_OP_FREE;
        ev.id = i % n;
        ev.size = 16 + i % 200;
        hr_trace_push(t, &ev);
        if (i % 10 == 9) {
            hr_event_t f = {0};
            f.op = HR_OP_FRAME;
            f.size = i;
            hr_trace_push(t, &f);
        }
    }
}

static void test_pollute_lap(void) {
    /* 64 KiB of 4 lines a call: the cursor wraps every 256 calls */
    setenv(HR_POLLUTE_ENV, "64K:4", 1);
    HR_CHECK(hr_pollute_on());
    HR_CHECK_EQ_U64(hr_pollute_steps(0), 0);
    HR_CHECK_EQ_U64(hr_pollute_steps(1), 4 * 64);
    HR_CHECK_EQ_U64(hr_pollute_steps(255), 0); /* wrapped */
    hr_trace_t t;
    trace_of(&t, 300);
    hr_error_t err = {{0}};
    HR_CHECK(hr_trace_validate(&t, "test", &err) == 0);
    const hr_backend_t *be = hr_backend_find("glibc");
    HR_CHECK(be != NULL);
    hr_replay_options_t opt = hr_replay_options_default();
    uint64_t wall = 0;
    for (int lap = 1; be && lap <= 2; lap++) {
        HR_CHECK(hr_replay_time(&t, be, "glibc", &opt, &wall) == 0);
        /* 600 calls a lap, 4 lines each: 600 * lap mod 256 calls past the start */
        HR_CHECK_EQ_U64(hr_pollute_steps(0), (600u * lap % 256) * 4 * 64);
    }
    hr_trace_free(&t);
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_pollute_parse);
    HR_RUN(test_pollute_lap);
    return hr_test_done();
}
