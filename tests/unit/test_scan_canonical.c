/* info's streamed digest (docs/TRACE_FORMAT.md, "Digest"): a binary file
 * whose records use none of the freedoms a reader accepts is hashed as it
 * is; a file that uses one (hand-made below, one per freedom) must still get the digest of its
 * canonical re-encoding. Each hand-made file differs from the canonical
 * bytes, so hashing it as it is would give another digest: with the
 * decoder's check disabled these cases fail. */
#include "hr_test.h"
#include "trace/format.h"
#include "trace/scan.h"
#include "trace/gen.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/hr_scancXXXXXX";

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void write_bytes(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    HR_CHECK(f != NULL);
    if (f) {
        HR_CHECK(fwrite(p, 1, n, f) == n);
        fclose(f);
    }
}

/* Scans path and checks its summary against the whole-trace reader's: same
 * digest (hr_trace_digest re-encodes canonically), streamed as expected. */
static void expect_digest(const char *path, int streamed) {
    hr_trace_summary_t s;
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(hr_trace_read_file(path, HR_FMT_AUTO, &t, &err) == 0);
    HR_CHECK(hr_trace_scan_file(path, &s, &err) == 0);
    if (err.msg[0])
        printf("# %s\n", err.msg);
    char d[17];
    hr_trace_digest(&t, d);
    HR_CHECK_STR(s.digest, d);
    HR_CHECK_EQ_U64(s.streamed, streamed);
    HR_CHECK_EQ_U64(s.t.n_events, t.n_events);
    HR_CHECK_EQ_U64(s.t.peak_live, t.peak_live);
    hr_trace_summary_free(&s);
    hr_trace_free(&t);
}

/* Encodes text canonically, checks that its records are `canon`, then
 * writes the same header and strings with the records `alt` (the same
 * events coded with one freedom) and checks both files' digests. */
static void check_freedom(const char *what, const char *text, const uint8_t *canon,
                          size_t n_canon, const uint8_t *alt, size_t n_alt) {
    hr_trace_t t;
    hr_error_t err = {""};
    hr_buf_t b = {0};
    char path[96];
    printf("# %s\n", what);
    HR_CHECK(hr_trace_read_mem(text, strlen(text), "t.txt", HR_FMT_TEXT, &t, &err) == 0);
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
    hr_trace_free(&t);
    size_t head = b.len - n_canon;
    HR_CHECK(b.len >= n_canon && memcmp(b.data + head, canon, n_canon) == 0);
    snprintf(path, sizeof path, "%s/canon.hrt", dir);
    write_bytes(path, b.data, b.len);
    expect_digest(path, 1);
    uint8_t *f = malloc(head + n_alt);
    memcpy(f, b.data, head);
    memcpy(f + head, alt, n_alt);
    put_le(f + 56, n_alt, 8); /* records_len */
    snprintf(path, sizeof path, "%s/alt.hrt", dir);
    write_bytes(path, f, head + n_alt);
    expect_digest(path, 0);
    unlink(path);
    free(f);
    hr_buf_free(&b);
}

/* A thread switch to the thread already current (bit 6, thread 0). */
static void test_redundant_thread(void) {
    static const uint8_t canon[] = {0x00, 0x00, 0x10, 0x03, 0x00};
    static const uint8_t alt[] = {0x00, 0x00, 0x10, 0x43, 0x00, 0x00};
    check_freedom("free on thread 0 switching to thread 0",
                  "heapreplay-trace 1\nalloc 0 16\nfree 0\n", canon, sizeof canon, alt,
                  sizeof alt);
}

/* A realloc keeping its id, the ID written (zz 0) instead of elided (bit 5). */
static void test_elidable_id(void) {
    static const uint8_t canon[] = {0x00, 0x00, 0x10, 0x22, 0x00, 0x20, 0x03, 0x00};
    static const uint8_t alt[] = {0x00, 0x00, 0x10, 0x02, 0x00, 0x00, 0x20, 0x03, 0x00};
    check_freedom("realloc 0 0 with the id written",
                  "heapreplay-trace 1\nalloc 0 16\nrealloc 0 0 32\nfree 0\n", canon,
                  sizeof canon, alt, sizeof alt);
}

/* Bit 7 where the writer codes the plain size: 16 -> 32 is a delta of 16,
 * zz 32, one byte like the size itself (same file length either way). */
static void test_needless_delta(void) {
    static const uint8_t canon[] = {0x00, 0x00, 0x10, 0x22, 0x00, 0x20, 0x03, 0x00};
    static const uint8_t alt[] = {0x00, 0x00, 0x10, 0xa2, 0x00, 0x20, 0x03, 0x00};
    check_freedom("realloc 16 -> 32 coded as a delta",
                  "heapreplay-trace 1\nalloc 0 16\nrealloc 0 0 32\nfree 0\n", canon,
                  sizeof canon, alt, sizeof alt);
}

/* No bit 7 where the writer codes a delta: 1000 -> 1001 is two bytes plain,
 * one (zz 1 = 2) as a delta. */
static void test_missed_delta(void) {
    static const uint8_t canon[] = {0x00, 0x00, 0xe8, 0x07, 0xa2, 0x00, 0x02, 0x03, 0x00};
    static const uint8_t alt[] = {0x00, 0x00, 0xe8, 0x07, 0x22, 0x00, 0xe9, 0x07, 0x03, 0x00};
    check_freedom("realloc 1000 -> 1001 with the plain size",
                  "heapreplay-trace 1\nalloc 0 1000\nrealloc 0 0 1001\nfree 0\n", canon,
                  sizeof canon, alt, sizeof alt);
}

/* Strings first used out of table order (push 1 before push 0). */
static void test_string_order(void) {
    static const uint8_t canon[] = {0x04, 0x00, 0x04, 0x01, 0x05, 0x01, 0x05, 0x00};
    static const uint8_t alt[] = {0x04, 0x01, 0x04, 0x00, 0x05, 0x00, 0x05, 0x01};
    check_freedom("names first used out of table order",
                  "heapreplay-trace 1\npush A\npush B\npop B\npop A\n", canon, sizeof canon,
                  alt, sizeof alt);
}

/* A 1.4 file (program time) with a pool op: hashed with the minor-3 header
 * the events need, though the header it starts from said minor 2; and a
 * file of several MiB, read mapped with its pages dropped behind. */
static void test_streamed_kinds(void) {
    const char *text = "heapreplay-trace 1 runs=1 timed=plain wall_ns=5 cpu_ns=4 cpu_min_ns=4 "
                       "cpu_max_ns=4 max_rss=4096\nalloc 0 8\npalloc 1 16 Particles\n"
                       "pfree 1 Particles\nfree 0\n";
    hr_trace_t t;
    hr_error_t err = {""};
    char path[96];
    snprintf(path, sizeof path, "%s/prog.hrt", dir);
    HR_CHECK(hr_trace_read_mem(text, strlen(text), "t.txt", HR_FMT_TEXT, &t, &err) == 0);
    HR_CHECK(hr_trace_write_file(path, HR_FMT_BINARY, &t, &err) == 0);
    hr_trace_free(&t);
    expect_digest(path, 1);
    hr_gen_options_t o = hr_gen_default();
    o.scenario = "session";
    o.events = 1500000;
    HR_CHECK(hr_gen(&o, &t, &err) == 0);
    snprintf(path, sizeof path, "%s/big.hrt", dir);
    HR_CHECK(hr_trace_write_file(path, HR_FMT_BINARY, &t, &err) == 0);
    hr_trace_free(&t);
    expect_digest(path, 1);
    unlink(path);
    snprintf(path, sizeof path, "%s/prog.hrt", dir);
    unlink(path);
}

int main(void) {
    if (!mkdtemp(dir))
        return 1;
    HR_RUN(test_redundant_thread);
    HR_RUN(test_elidable_id);
    HR_RUN(test_needless_delta);
    HR_RUN(test_missed_delta);
    HR_RUN(test_string_order);
    HR_RUN(test_streamed_kinds);
    char path[96];
    snprintf(path, sizeof path, "%s/canon.hrt", dir);
    unlink(path);
    rmdir(dir);
    return hr_test_done();
}
