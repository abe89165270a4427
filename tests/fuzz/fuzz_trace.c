/* libFuzzer target: the trace readers (binary and text, format sniffed).
 * A trace that reads must survive binary and text round trips with the same
 * events count, peak and digest; a failure is one line naming the input. */
#include <stdint.h>

#include "fuzz_common.h"
#include "trace/format.h"

static void round_trip(const hr_trace_t *t, const char *digest, int text) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_REQUIRE(f != NULL);
    int rc = text ? hr_trace_write_text(f, t) : hr_trace_write_binary(f, t);
    fclose(f);
    FUZZ_REQUIRE(rc == 0);
    hr_trace_t u;
    hr_error_t err = {{0}};
    FUZZ_REQUIRE(hr_trace_read_mem(buf, len, "rt", HR_FMT_AUTO, &u, &err) == 0);
    char d[17];
    hr_trace_digest(&u, d);
    FUZZ_REQUIRE(u.n_events == t->n_events && u.peak_live == t->peak_live &&
                 u.n_ids == t->n_ids && u.n_threads == t->n_threads);
    FUZZ_REQUIRE(strcmp(d, digest) == 0);
    hr_trace_free(&u);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    if (hr_trace_read_mem(data, size, "fuzz.in", HR_FMT_AUTO, &t, &err) != 0) {
        fuzz_one_line(&err, "fuzz.in");
        return 0;
    }
    char d[17];
    hr_trace_digest(&t, d);
    round_trip(&t, d, 0);
    round_trip(&t, d, 1);
    hr_trace_free(&t);
    return 0;
}
