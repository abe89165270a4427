/* libFuzzer target: the importers (capture log, heaptrack plain/gz/zst,
 * glibc mtrace) and hr_trace_read_file's stream reader (compression, format
 * sniffing), checked against info's sliced reader (trace/scan.h). The first byte picks the reader, the rest is the file (a memfd,
 * read through /proc/self/fd). An import that succeeds is a valid trace
 * whose binary form reads back with the same digest; a failure is one line
 * naming the file. */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "trace/format.h"
#include "trace/import.h"
#include "trace/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        return 0;
    if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    hr_trace_t t;
    hr_repair_t rep;
    hr_error_t err = {{0}};
    int which = data[0] % 4, rc;
    hr_trace_init(&t);
    if (which == 3) {
        rc = hr_trace_read_file(path, HR_FMT_AUTO, &t, &err);
        /* info's sliced reader agrees with the whole-trace reader: the same
         * summary, or the same error message */
        hr_trace_summary_t sum;
        hr_error_t err2 = {{0}};
        int rc2 = hr_trace_scan_file(path, &sum, &err2);
        FUZZ_REQUIRE((rc == 0) == (rc2 == 0));
        if (rc2 == 0) {
            char d[17];
            hr_trace_digest(&t, d);
            FUZZ_REQUIRE(strcmp(d, sum.digest) == 0);
            FUZZ_REQUIRE(sum.t.n_events == t.n_events && sum.t.peak_live == t.peak_live &&
                         sum.t.n_ids == t.n_ids && sum.t.n_threads == t.n_threads);
            hr_trace_summary_free(&sum);
        } else {
            FUZZ_REQUIRE(strcmp(err.msg, err2.msg) == 0);
        }
    } else
        rc = hr_import_file(path, (hr_import_kind_t)(HR_IMPORT_CAPTURE + which), &t, &rep, &err);
    if (rc != 0) {
        fuzz_one_line(&err, path);
    } else {
        char d1[17], d2[17];
        hr_trace_digest(&t, d1);
        hr_buf_t b = {0};
        FUZZ_REQUIRE(hr_trace_encode_binary(&t, &b) == 0);
        hr_trace_t u;
        FUZZ_REQUIRE(hr_trace_read_mem(b.data, b.len, "rt", HR_FMT_BINARY, &u, &err) == 0);
        hr_trace_digest(&u, d2);
        FUZZ_REQUIRE(strcmp(d1, d2) == 0);
        hr_trace_free(&u);
        hr_buf_free(&b);
    }
    hr_trace_free(&t);
    close(fd);
    return 0;
}
