/* The recorded process's command (format 1.8, docs/TRACE_FORMAT.md
 * "Command"): binary and text keep it through every conversion, with and
 * without the program time and its noise record, beside the events' own
 * strings; the digest ignores it; and every malformed form is one error
 * naming its offset (binary) or line (text). */
#include "hr_test.h"
#include "trace_mem.h"
#include "trace/format.h"

#include <stdlib.h>

#define EVENTS "alloc 0 300\nmark load\nalloc 1 40\nfree 0\nfree 1\n"
#define CMD " command=/usr/lib/gcc/cc1%20-quiet%20u05.c"
#define PROG " runs=1 timed=capture wall_ns=3500000 cpu_ns=3400000 cpu_min_ns=3400000 " \
             "cpu_max_ns=3400000 max_rss=125829120"
#define NOISE " runs=5 timed=plain wall_ns=3500000000 cpu_ns=3400000000 " \
              "cpu_min_ns=3300000000 cpu_max_ns=3600000000 max_rss=125829120 " \
              "cpu_mad_ns=50000000 load_before=0.50 load_after=0.75 cpus=2"

static int read_text(const char *src, hr_trace_t *t, hr_error_t *err) {
    return read_text_mem(src, "c.txt", t, err);
}


static unsigned le16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static unsigned le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

/* text -> binary -> text, the header's minor, flags, size and string count */
static void round_trip(const char *text, unsigned header_size) {
    hr_trace_t t, u;
    hr_error_t err = {{0}};
    hr_buf_t b = {0};
    HR_CHECK(read_text(text, &t, &err) == 0);
    HR_CHECK_STR(t.command, "/usr/lib/gcc/cc1 -quiet u05.c");
    HR_CHECK_EQ_U64(t.n_strings, 1); /* "load": the command is not among the events' strings */
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
    HR_CHECK_EQ_U64(le16(b.data + 10), 8);                      /* minor 8 */
    HR_CHECK_EQ_U64(le32(b.data + 12), HR_BIN_FLAG_COMMAND);    /* no timestamps */
    HR_CHECK_EQ_U64(le32(b.data + 32), 2);                      /* "load" and the command */
    HR_CHECK_EQ_U64(le32(b.data + 36), header_size);
    hr_trace_init(&u);
    HR_CHECK(hr_trace_read_mem(b.data, b.len, "c.hrt", HR_FMT_BINARY, &u, &err) == 0);
    if (err.msg[0])
        printf("# %s\n", err.msg);
    HR_CHECK_STR(u.command, t.command);
    HR_CHECK_EQ_U64(u.n_strings, 1);
    HR_CHECK(memcmp(&u.program, &t.program, sizeof t.program) == 0);
    char *txt = text_of(&u);
    HR_CHECK_STR(txt, text);
    free(txt);
    char d1[17], d2[17];
    hr_trace_digest(&u, d1);
    free(u.command); /* the same trace without its command: the same digest */
    u.command = NULL;
    hr_trace_digest(&u, d2);
    HR_CHECK_STR(d1, d2);
    hr_buf_free(&b);
    hr_trace_free(&t);
    hr_trace_free(&u);
}

static void test_round_trips(void) {
    round_trip("heapreplay-trace 1" CMD "\n" EVENTS, 64);
    /* the program time without a noise record: from 1.8 the record's place
     * is there, all zero */
    round_trip("heapreplay-trace 1" PROG CMD "\n" EVENTS, 136);
    round_trip("heapreplay-trace 1" NOISE CMD "\n" EVENTS, 136);
}

/* A binary trace with the command, to break on purpose. */
static void encode(const char *text, hr_buf_t *b) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    HR_CHECK(read_text(text, &t, &err) == 0);
    HR_CHECK(hr_trace_encode_binary(&t, b) == 0);
    hr_trace_free(&t);
}

static void expect_binary_error(const hr_buf_t *b, const char *want) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    HR_CHECK(hr_trace_read_mem(b->data, b->len, "c.hrt", HR_FMT_BINARY, &t, &err) != 0);
    if (!strstr(err.msg, want))
        printf("# got: %s\n# want: %s\n", err.msg, want);
    HR_CHECK(strstr(err.msg, want) != NULL);
    hr_trace_free(&t);
}

/* A 1.8 binary trace of `text` (written without a command) with the
 * command's header flag set on it: the reader refuses it with `want`. */
static void expect_flag_error(const char *text, const char *want) {
    hr_buf_t b = {0};
    encode(text, &b);
    b.data[10] = 8;
    b.data[12] |= HR_BIN_FLAG_COMMAND;
    expect_binary_error(&b, want);
    hr_buf_free(&b);
}

static void test_binary_errors(void) {
    hr_buf_t b = {0};
    encode("heapreplay-trace 1" CMD "\n" EVENTS, &b);
    b.data[10] = 7; /* a 1.7 file cannot have it */
    expect_binary_error(&b, "offset 12: header flag 0x2 (the command) in a 1.7 file (it arrived "
                            "in 1.8)");
    hr_buf_free(&b);
    /* the flag over a table without strings */
    expect_flag_error("heapreplay-trace 1\nalloc 0 1\nfree 0\n",
                      "offset 32: header flag 0x2 says the last string is the command, but "
                      "the string table is empty");
    /* the flag over "load" alone: an event names the command's index */
    expect_flag_error("heapreplay-trace 1\nmark load\n", "string index 0");
}

static void expect_text_error(const char *text, const char *want) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    HR_CHECK(read_text(text, &t, &err) != 0);
    if (!strstr(err.msg, want))
        printf("# got: %s\n# want: %s\n", err.msg, want);
    HR_CHECK(strstr(err.msg, want) != NULL);
    hr_trace_free(&t);
}

static void test_text_errors(void) {
    expect_text_error("heapreplay-trace 1" CMD CMD "\n" EVENTS,
                      "c.txt:1: header option 'command=' given twice");
    expect_text_error("heapreplay-trace 1 command=\n" EVENTS,
                      "c.txt:1: header option 'command=' without a command");
    expect_text_error("heapreplay-trace 1 command=%\n" EVENTS, "c.txt:1: header option "
                      "'command=': an empty command");
    expect_text_error("heapreplay-trace 1 command=a%2\n" EVENTS, "c.txt:1: bad escape");
    size_t n = 20 + HR_COMMAND_MAX + 1 + sizeof EVENTS;
    char *big = malloc(n + 32);
    int k = snprintf(big, n, "heapreplay-trace 1 command=");
    memset(big + k, 'x', HR_COMMAND_MAX + 1);
    snprintf(big + k + HR_COMMAND_MAX + 1, 32 + sizeof EVENTS, "\n%s", EVENTS);
    expect_text_error(big, "c.txt:1: header option 'command=': 4097 bytes (expected at most 4096)");
    free(big);
}

int main(void) {
    HR_RUN(test_round_trips);
    HR_RUN(test_binary_errors);
    HR_RUN(test_text_errors);
    return hr_test_done();
}
