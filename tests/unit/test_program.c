/* The program time of a trace (format 1.4, docs/TRACE_FORMAT.md "Program
 * time"): binary and text keep it through every conversion, the digest
 * ignores it, 1.2 and 1.3 files read as before, and every malformed field
 * is one error naming its offset (binary) or line (text). */
#include "hr_test.h"
#include "trace_mem.h"
#include "trace/format.h"
#include "trace/scan.h"

#include <stdlib.h>
#include <unistd.h>

#define EVENTS "alloc 0 300\npush main\nalloc 1 40\nfree 0\npop main\nfree 1\n"
#define PROG " runs=5 timed=plain wall_ns=3500000000 cpu_ns=3400000000 " \
             "cpu_min_ns=3300000000 cpu_max_ns=3600000000 max_rss=125829120"

static const char k_plain[] = "heapreplay-trace 1\n" EVENTS;
static const char k_prog[] = "heapreplay-trace 1" PROG "\n" EVENTS;

static int read_text(const char *src, hr_trace_t *t, hr_error_t *err) {
    return read_text_mem(src, "p.txt", t, err);
}


static void test_text_binary_text(void) {
    hr_trace_t t, u;
    hr_error_t err = {{0}};
    HR_CHECK(read_text(k_prog, &t, &err) == 0);
    HR_CHECK_EQ_U64(t.program.runs, 5);
    HR_CHECK_EQ_U64(t.program.flags, 0);
    HR_CHECK_EQ_U64(t.program.wall_ns, 3500000000u);
    HR_CHECK_EQ_U64(t.program.cpu_ns, 3400000000u);
    HR_CHECK_EQ_U64(t.program.cpu_min_ns, 3300000000u);
    HR_CHECK_EQ_U64(t.program.cpu_max_ns, 3600000000u);
    HR_CHECK_EQ_U64(t.program.max_rss, 125829120u);
    hr_buf_t b = {0};
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
    HR_CHECK(b.len > 112 && b.data[10] == 4 && b.data[11] == 0); /* minor 4 */
    HR_CHECK(b.data[36] == 112 && b.data[37] == 0);              /* header 112 bytes */
    HR_CHECK(b.data[64 + 40] == 5);                              /* runs */
    hr_trace_init(&u);
    HR_CHECK(hr_trace_read_mem(b.data, b.len, "p.hrt", HR_FMT_BINARY, &u, &err) == 0);
    HR_CHECK(memcmp(&u.program, &t.program, sizeof t.program) == 0);
    char *txt = text_of(&u);
    HR_CHECK_STR(txt, k_prog);
    free(txt);
    hr_buf_free(&b);
    hr_trace_free(&u);
    hr_trace_free(&t);
}

/* The captured run's own time is written "timed=capture" and read back. */
static void test_captured_flag(void) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    const char *src = "heapreplay-trace 1 timestamps runs=1 timed=capture wall_ns=9 cpu_ns=7 "
                      "cpu_min_ns=7 cpu_max_ns=7 max_rss=4096\nalloc 0 1 @5\nfree 0 @6\n";
    HR_CHECK(read_text(src, &t, &err) == 0);
    HR_CHECK_EQ_U64(t.program.flags, HR_PROGF_CAPTURED);
    char *txt = text_of(&t);
    HR_CHECK_STR(txt, src);
    free(txt);
    hr_trace_free(&t);
}

/* Same events with and without program time: same digest, also from the
 * streamed reader (info), which hashes a 1.4 file without its block. */
static void test_digest_unchanged(void) {
    hr_trace_t t, p;
    hr_error_t err = {{0}};
    char d1[17], d2[17];
    HR_CHECK(read_text(k_plain, &t, &err) == 0 && read_text(k_prog, &p, &err) == 0);
    hr_trace_digest(&t, d1);
    hr_trace_digest(&p, d2);
    HR_CHECK_STR(d1, d2);
    hr_buf_t b = {0}, c = {0};
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0 && hr_trace_encode_binary(&p, &c) == 0);
    HR_CHECK(b.data[10] == 2 && c.len == b.len + 48); /* plain stays 1.2, byte for byte */
    char path[] = "/tmp/hr_progXXXXXX";
    int fd = mkstemp(path);
    HR_CHECK(fd >= 0 && write(fd, c.data, c.len) == (ssize_t)c.len);
    close(fd);
    hr_trace_summary_t s;
    HR_CHECK(hr_trace_scan_file(path, &s, &err) == 0);
    HR_CHECK(s.streamed);
    HR_CHECK_STR(s.digest, d1);
    HR_CHECK_EQ_U64(s.t.program.cpu_ns, 3400000000u);
    hr_trace_summary_free(&s);
    unlink(path);
    hr_buf_free(&b);
    hr_buf_free(&c);
    hr_trace_free(&t);
    hr_trace_free(&p);
}

/* A 1.3 file (pool ops) and the shipped 1.2 traces read as before: no
 * program time, and written back unchanged. */
static void test_old_minors(void) {
    hr_trace_t t, u;
    hr_error_t err = {{0}};
    HR_CHECK(read_text("heapreplay-trace 1\npalloc 0 8 P\npfree 0 P\n", &t, &err) == 0);
    hr_buf_t b = {0};
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0 && b.data[10] == 3 && b.data[36] == 64);
    hr_trace_init(&u);
    HR_CHECK(hr_trace_read_mem(b.data, b.len, "p13.hrt", HR_FMT_BINARY, &u, &err) == 0);
    HR_CHECK_EQ_U64(u.program.runs, 0);
    hr_trace_free(&u);
    hr_buf_free(&b);
    hr_trace_free(&t);
    const char *sd = getenv("srcdir");
    char path[1024];
    snprintf(path, sizeof path, "%s/traces/particles.hrt", sd && *sd ? sd : ".");
    hr_trace_init(&t);
    HR_CHECK(hr_trace_read_file(path, HR_FMT_AUTO, &t, &err) == 0);
    HR_CHECK_EQ_U64(t.program.runs, 0);
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0 && b.data[10] == 2);
    hr_buf_free(&b);
    hr_trace_free(&t);
}

/* A 1.4 binary with the program block, then one field patched. */
static void check_bin_error(const char *what, unsigned off, uint64_t v, unsigned width,
                            const char *want) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    HR_CHECK(read_text(k_prog, &t, &err) == 0);
    hr_buf_t b = {0};
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
    hr_trace_free(&t);
    for (unsigned i = 0; i < width; i++)
        b.data[off + i] = (uint8_t)(v >> (8 * i));
    hr_trace_init(&t);
    int rc = hr_trace_read_mem(b.data, b.len, "p.hrt", HR_FMT_BINARY, &t, &err);
    HR_CHECK(rc == -1);
    if (rc == -1 && !strstr(err.msg, want))
        printf("# %s: got \"%s\", want \"%s\"\n", what, err.msg, want);
    HR_CHECK(rc == -1 && strstr(err.msg, want) && !strchr(err.msg, '\n'));
    hr_trace_free(&t);
    hr_buf_free(&b);
}

static void test_binary_errors(void) {
    check_bin_error("min above median", 80, 3500000000u, 8,
                    "p.hrt: offset 80: program time: cpu_min_ns 3500000000 is above cpu_ns");
    check_bin_error("max below median", 88, 1, 8, "p.hrt: offset 88: program time: cpu_max_ns 1");
    check_bin_error("unknown flags", 108, 6, 4, "p.hrt: offset 108: program time: unknown flags 0x6");
    check_bin_error("runs 0 with fields", 104, 0, 4,
                    "p.hrt: offset 64: program time: wall_ns is set but runs is 0");
    /* a 1.4 header of 80 bytes: too long for none, too short for the block */
    hr_trace_t t;
    hr_error_t err = {{0}};
    HR_CHECK(read_text(k_prog, &t, &err) == 0);
    hr_buf_t b = {0};
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
    hr_trace_free(&t);
    memmove(b.data + 80, b.data + 112, b.len - 112);
    b.len -= 32;
    b.data[36] = 80;
    hr_trace_init(&t);
    HR_CHECK(hr_trace_read_mem(b.data, b.len, "p.hrt", HR_FMT_BINARY, &t, &err) == -1);
    HR_CHECK(strstr(err.msg, "p.hrt: offset 36: header size 80: a 1.4 header is 64 bytes, or at "
                    "least 112 with the program time") != NULL);
    hr_trace_free(&t);
    hr_buf_free(&b);
}

static void check_text_error(const char *header, const char *want) {
    char src[512];
    snprintf(src, sizeof src, "# comment\n%s\nalloc 0 1\n", header);
    hr_trace_t t;
    hr_error_t err = {{0}};
    int rc = read_text(src, &t, &err);
    HR_CHECK(rc == -1);
    if (rc == -1 && !strstr(err.msg, want))
        printf("# got \"%s\", want \"%s\"\n", err.msg, want);
    HR_CHECK(rc == -1 && strstr(err.msg, want) && !strchr(err.msg, '\n'));
    hr_trace_free(&t);
}

static void test_text_errors(void) {
    check_text_error("heapreplay-trace 1 runs=x timed=plain",
                     "p.txt:2: header option 'runs=x': expected a run count");
    check_text_error("heapreplay-trace 1 runs=2 timed=plain wall_ns=1",
                     "p.txt:2: program time needs every one of");
    check_text_error("heapreplay-trace 1 runs=2 timed=later", "p.txt:2: header option 'timed=later'");
    check_text_error("heapreplay-trace 1 runs=2 runs=3", "p.txt:2: header option 'runs=' given twice");
    check_text_error("heapreplay-trace 1 runs=2 timed=plain wall_ns=1 cpu_ns=5 cpu_min_ns=6 "
                     "cpu_max_ns=9 max_rss=0", "p.txt:2: program time: cpu_min_ns 6 is above");
    check_text_error("heapreplay-trace 1 wall_ns=-1", "p.txt:2: header option 'wall_ns=-1': "
                     "expected a decimal number");
    check_text_error("heapreplay-trace 1 speed=3", "p.txt:2: unknown header option 'speed=3'");
}

int main(void) {
    HR_RUN(test_text_binary_text);
    HR_RUN(test_captured_flag);
    HR_RUN(test_digest_unchanged);
    HR_RUN(test_old_minors);
    HR_RUN(test_binary_errors);
    HR_RUN(test_text_errors);
    return hr_test_done();
}
