/* A tiny TAP test harness: each HR_RUN(test) prints "ok N - name" or
 * "not ok N - name" with one diagnostic line per failed check, and
 * hr_test_done() prints the plan and returns the exit status. Automake's TAP
 * driver counts every test case, so `make check` reports cases, not programs.
 *
 *  - HR_RUN_AS(name, call) runs any call as a case named `name` (a runtime
 *    string: table-driven tests name one case per row).
 *  - HR_SKIP(reason) inside a case ends it as "ok N - name # SKIP reason"
 *    (checks that failed before it still fail the case).
 *  - Filter: only cases whose name contains $HR_TEST_FILTER run (or argv[1]
 *    after hr_test_args(argc, argv)); the others print nothing and the plan
 *    counts what ran. */
#ifndef HR_TEST_H
#define HR_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HR_ASAN: defined when the test is built with AddressSanitizer (gcc's
 * __SANITIZE_ADDRESS__, clang's __has_feature). Under it a replay process
 * refuses every row (libasan provides malloc), so tests that run
 * ./heapreplay's workers skip, saying why. */
#if defined(__SANITIZE_ADDRESS__)
#define HR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HR_ASAN 1
#endif
#endif

static int hr_t_count, hr_t_failed_cases, hr_t_cur_failed;
static const char *hr_t_skip_reason; /* set by HR_SKIP in the running case */
static const char *hr_t_filter;      /* NULL: not read yet; "": run all */

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

#define HR_CHECK_EQ_I64(a, b)                                                 \
    do {                                                                      \
        int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                         \
        if (a_ != b_) {                                                       \
            printf("# %s:%d: %s == %s failed: %" PRId64 " != %" PRId64 "\n",  \
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

/* Ends the running case as skipped; only valid in the case's own function. */
#define HR_SKIP(reason)                                                       \
    do {                                                                      \
        hr_t_skip_reason = (reason);                                          \
        return;                                                               \
    } while (0)

/* Optional: argv[1], when given, is the name filter (over $HR_TEST_FILTER). */
static inline void hr_test_args(int argc, char **argv) {
    if (argc > 1)
        hr_t_filter = argv[1];
}

static inline int hr_t_selected(const char *name) {
    if (!hr_t_filter) {
        hr_t_filter = getenv("HR_TEST_FILTER");
        if (!hr_t_filter)
            hr_t_filter = "";
    }
    return strstr(name, hr_t_filter) != NULL;
}

static inline void hr_t_end(const char *name) {
    hr_t_count++;
    if (hr_t_cur_failed)
        hr_t_failed_cases++;
    printf("%sok %d - %s", hr_t_cur_failed ? "not " : "", hr_t_count, name);
    if (hr_t_skip_reason)
        printf(" # SKIP %s", hr_t_skip_reason);
    printf("\n");
    fflush(stdout);
}

#define HR_RUN_AS(name, call)                                                 \
    do {                                                                      \
        const char *hr_t_name_ = (name);                                      \
        if (hr_t_selected(hr_t_name_)) {                                      \
            hr_t_cur_failed = 0;                                              \
            hr_t_skip_reason = NULL;                                          \
            call;                                                             \
            hr_t_end(hr_t_name_);                                             \
        }                                                                     \
    } while (0)

#define HR_RUN(fn) HR_RUN_AS(#fn, fn())

static inline int hr_test_done(void) {
    printf("1..%d\n", hr_t_count);
    return hr_t_failed_cases ? 1 : 0;
}

#endif
