/* A tiny TAP test harness: each HR_RUN(test) prints "ok N - name" or
 * "not ok N - name" with one diagnostic line per failed check, and
 * hr_test_done() prints the plan and returns the exit status. Automake's TAP
 * driver counts every test case, so `make check` reports cases, not programs. */
#ifndef HR_TEST_H
#define HR_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int hr_t_count, hr_t_failed_cases, hr_t_cur_failed;

#define HR_CHECK(cond)                                                        \
    do {                                                                      \
        if (!(cond)) {                                                        \
            printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            hr_t_cur_failed++;                                                \
        }                                                                     \
    } while (0)

#define HR_CHECK_EQ_U64(a, b)                                                 \
    do {                                                                      \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                      \
        if (a_ != b_) {                                                       \
            printf("# %s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 "\n",  \
                   __FILE__, __LINE__, #a, #b, a_, b_);                       \
            hr_t_cur_failed++;                                                \
        }                                                                     \
    } while (0)

#define HR_CHECK_STR(a, b)                                                    \
    do {                                                                      \
        const char *a_ = (a), *b_ = (b);                                      \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                              \
            printf("# %s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,  \
                   __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
            hr_t_cur_failed++;                                                \
        }                                                                     \
    } while (0)

#define HR_RUN(fn)                                                            \
    do {                                                                      \
        hr_t_cur_failed = 0;                                                  \
        fn();                                                                 \
        hr_t_count++;                                                         \
        if (hr_t_cur_failed)                                                  \
            hr_t_failed_cases++;                                              \
        printf("%sok %d - %s\n", hr_t_cur_failed ? "not " : "", hr_t_count,   \
               #fn);                                                          \
        fflush(stdout);                                                       \
    } while (0)

static inline int hr_test_done(void) {
    printf("1..%d\n", hr_t_count);
    return hr_t_failed_cases ? 1 : 0;
}

#endif
