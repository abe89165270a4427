/* Shared checks of the libFuzzer targets (tests/fuzz/, `make fuzz`).
 * Every target feeds one parser arbitrary bytes and checks its contract
 * beyond "no crash" (the sanitizers catch those): a failure is one line of
 * error text naming the input, a success round-trips. A broken contract
 * aborts, which libFuzzer reports as a crash with the input saved. */
#ifndef HR_FUZZ_COMMON_H
#define HR_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

#define FUZZ_REQUIRE(cond)                                                    \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "fuzz contract broken: %s (%s:%d)\n", #cond,      \
                    __FILE__, __LINE__);                                      \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* The one-line error contract: non-empty, no newline, names the input. */
static inline void fuzz_one_line(const hr_error_t *err, const char *name) {
    FUZZ_REQUIRE(err->msg[0] != 0);
    FUZZ_REQUIRE(strchr(err->msg, '\n') == NULL);
    FUZZ_REQUIRE(strstr(err->msg, name) != NULL);
}

#endif
