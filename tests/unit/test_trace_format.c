/* Trace file formats: round trips and every reader error (docs/TRACE_FORMAT.md).
 * Malformed text files live in tests/data/bad/; malformed binaries are built
 * here by mutating a valid encoding or assembling one byte by byte. */
#include "golden.h"
#include "hr_test.h"
#include "trace_mem.h"
#include "trace/format.h"
#include "base/varint.h"

#include <stdlib.h>
#include <unistd.h>

/* Every op, optional fields present and absent, three threads, timestamps
 * (one going backwards), and names needing escapes (space, %, #, @, =, UTF-8,
 * the empty name). This is the writer's canonical form. */
static const char k_canon[] =
    "heapreplay-trace 1 timestamps\n"
    "alloc 0 64 @100\n"
    "alloc 1 24 16 t=1 @150\n"
    "push render%20heap @160\n"
    "calloc 2 10 8 @170\n"
    "touched 8192 t=1 @174\n"
    "realloc 1 3 100 t=1 @175\n"
    "free 0 64 @180\n"
    "frame 1 @200\n"
    "mark level/start%25%23%40%3D t=2 @90\n"
    "pop render%20heap @210\n"
    "alloc 0 4611686018427387904 @211\n"
    "frame 0 t=2 @230\n"
    "free 3 t=1 @220\n"
    "free 2 @230\n"
    "free 0 @231\n"
    "push % @240\n"
    "mark caf%C3%A9 @241\n"
    "palloc 0 32 Particles @250\n"
    "prealloc 0 1 48 t=1 @251\n"
    "pfree 1 Particles t=1 @252\n"
    "frame 7 render%20heap t=1 @253\n";

static int read_text(const char *text, hr_trace_t *t, hr_error_t *err) {
    return hr_trace_read_mem(text, strlen(text), "canon.txt", HR_FMT_AUTO, t, err);
}

static void test_text_round_trip(void) {
    hr_trace_t t;
    hr_error_t err = {""};
    if (read_text(k_canon, &t, &err) != 0) {
        HR_CHECK_STR(err.msg, "");
        return;
    }
    for (unsigned op = 0; op < HR_OP__COUNT; op++) /* a new op needs a line above */
        HR_CHECK(t.op_counts[op] > 0);
    HR_CHECK_EQ_U64(t.n_threads, 3);
    HR_CHECK_EQ_U64(t.n_ids, 4);
    HR_CHECK(t.flags & HR_TRACEF_TIMESTAMPS);
    HR_CHECK_STR(t.strings[1], "level/start%#@=");
    HR_CHECK_STR(t.strings[2], "");
    HR_CHECK_STR(t.strings[3], "caf\xc3\xa9");
    HR_CHECK_EQ_U64(t.events[10].size, (uint64_t)1 << 62);
    HR_CHECK_EQ_U64(t.events[4].op, HR_OP_TOUCHED);
    HR_CHECK_EQ_U64(t.events[4].size, 8192);
    HR_CHECK(t.events[1].flags & HR_EVF_HAS_OPT);
    HR_CHECK_EQ_U64(t.events[1].align, 16);
    size_t len;
    char *out = write_mem(&t, 1, &len);
    HR_CHECK(out && len == strlen(k_canon) && memcmp(out, k_canon, len) == 0);
    free(out);
    hr_trace_free(&t);
}

static void test_text_binary_text(void) {
    hr_trace_t t, u;
    hr_error_t err;
    if (read_text(k_canon, &t, &err) != 0) {
        HR_CHECK_STR(err.msg, "");
        return;
    }
    size_t blen, tlen, blen2;
    char *bin = write_mem(&t, 0, &blen);
    HR_CHECK(bin && memcmp(bin, "HRTRACE", 8) == 0);
    HR_CHECK(hr_trace_read_mem(bin, blen, "canon.hrt", HR_FMT_AUTO, &u, &err) == 0);
    char *text = write_mem(&u, 1, &tlen);
    HR_CHECK(text && tlen == strlen(k_canon) && memcmp(text, k_canon, tlen) == 0);
    char *bin2 = write_mem(&u, 0, &blen2); /* binary -> binary is stable too */
    HR_CHECK(bin2 && blen2 == blen && memcmp(bin, bin2, blen) == 0);
    char d1[17], d2[17];
    hr_trace_digest(&t, d1);
    hr_trace_digest(&u, d2);
    HR_CHECK_STR(d1, d2);
    HR_CHECK_EQ_U64(strspn(d1, "0123456789abcdef"), 16);
    u.events[0].size++; /* any change moves the digest */
    hr_trace_digest(&u, d2);
    HR_CHECK(strcmp(d1, d2) != 0);
    free(bin);
    free(bin2);
    free(text);
    hr_trace_free(&t);
    hr_trace_free(&u);
}

/* Comments, blank lines, CRLF and suffixes in any order are accepted. */
static void test_text_lenient_input(void) {
    const char *in = "# leading comment\r\n\r\nheapreplay-trace 1\r\n"
                     "  alloc\t5 32   # trailing comment\r\n"
                     "free 5 t=1\n";
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(read_text(in, &t, &err) == 0);
    HR_CHECK_STR(err.msg, "");
    HR_CHECK_EQ_U64(t.n_events, 2);
    HR_CHECK_EQ_U64(t.events[1].thread, 1);
    HR_CHECK(!(t.flags & HR_TRACEF_TIMESTAMPS));
    size_t len;
    char *out = write_mem(&t, 1, &len);
    const char *canon = "heapreplay-trace 1\nalloc 5 32\nfree 5 t=1\n";
    HR_CHECK(out && len == strlen(canon) && memcmp(out, canon, len) == 0);
    free(out);
    hr_trace_free(&t);
}

/* A pseudo-random valid trace: multi-byte varints, backward frame numbers and
 * id deltas, records on both sides of the decoder's fast/slow boundary. */
static void build_random(hr_trace_t *t, size_t n) {
    uint64_t x = 88172645463325252ull;
    uint32_t live[512];
    uint64_t bytes[512], cur = 0; /* live sizes: their sum stays below 2^64 */
    size_t n_live = 0;
    hr_trace_init(t);
    hr_trace_intern(t, "a");
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        hr_event_t ev = {.thread = (uint16_t)(x % 7 == 0 ? x % 300 : 0)};
        unsigned r = (unsigned)(x >> 40) % 10;
        if (n_live && (r < 4 || n_live == 512)) {
            size_t k = (x >> 20) % n_live;
            ev.op = r == 0 ? HR_OP_REALLOC : HR_OP_FREE;
            ev.id = live[k];
            if (ev.op == HR_OP_REALLOC) {
                ev.aux = live[k];
                ev.id = live[k] = (uint32_t)(live[k] + 7) % 100000;
                for (size_t j = 0; j < n_live; j++) /* keep ids unique */
                    if (j != k && live[j] == ev.id)
                        ev.id = live[k] = ev.aux;
                ev.size = x >> (x % 60);
                cur -= bytes[k];
                while (ev.size > UINT64_MAX - cur)
                    ev.size >>= 1;
                cur += bytes[k] = ev.size;
            } else {
                cur -= bytes[k];
                bytes[k] = bytes[n_live - 1];
                live[k] = live[--n_live];
            }
        } else if (r < 8) {
            ev.op = HR_OP_ALLOC;
            do {
                ev.id = (uint32_t)((x >> 8) % 100000);
                x += 12345;
                size_t j = 0;
                while (j < n_live && live[j] != ev.id)
                    j++;
                if (j == n_live)
                    break;
            } while (1);
            ev.size = (x >> 3) >> (x % 60);
            if (x % 3 == 0) {
                ev.flags = HR_EVF_HAS_OPT;
                ev.align = 1u << (x % 32);
            }
            while (ev.size > UINT64_MAX - cur)
                ev.size >>= 1;
            cur += bytes[n_live] = ev.size;
            live[n_live++] = ev.id;
        } else {
            ev.op = r == 8 ? HR_OP_FRAME : HR_OP_MARK;
            ev.size = r == 8 ? x : 0;
        }
        hr_trace_push_ts(t, &ev, x >> 3);
    }
}

static void test_binary_random(void) {
    hr_trace_t t, u;
    hr_error_t err = {""};
    build_random(&t, 20000);
    HR_CHECK(hr_trace_validate(&t, "random", &err) == 0);
    HR_CHECK_STR(err.msg, "");
    size_t blen;
    char *bin = write_mem(&t, 0, &blen);
    HR_CHECK(bin != NULL);
    HR_CHECK(hr_trace_read_mem(bin, blen, "r.hrt", HR_FMT_BINARY, &u, &err) == 0);
    HR_CHECK_STR(err.msg, "");
    HR_CHECK_EQ_U64(u.n_events, t.n_events);
    HR_CHECK(u.n_events == t.n_events &&
             memcmp(u.events, t.events, t.n_events * sizeof *t.events) == 0);
    HR_CHECK(u.ts && memcmp(u.ts, t.ts, t.n_events * sizeof *t.ts) == 0);
    HR_CHECK_EQ_U64(u.peak_live, t.peak_live);
    free(bin);
    hr_trace_free(&t);
    hr_trace_free(&u);
}

/* Files: write_file/read_file with format detection by extension and magic. */
static void test_files(void) {
    char dir[] = "/tmp/hr-test-format-XXXXXX";
    HR_CHECK(mkdtemp(dir) != NULL);
    char bin[256], txt[256];
    snprintf(bin, sizeof bin, "%s/t.hrt", dir);
    snprintf(txt, sizeof txt, "%s/t.txt", dir);
    hr_trace_t t, u, v;
    hr_error_t err;
    HR_CHECK(read_text(k_canon, &t, &err) == 0);
    HR_CHECK(hr_trace_write_file(bin, HR_FMT_AUTO, &t, &err) == 0);
    HR_CHECK(hr_trace_write_file(txt, HR_FMT_AUTO, &t, &err) == 0);
    HR_CHECK(hr_trace_read_file(bin, HR_FMT_AUTO, &u, &err) == 0);
    HR_CHECK(hr_trace_read_file(txt, HR_FMT_AUTO, &v, &err) == 0);
    char d1[17], d2[17], d3[17];
    hr_trace_digest(&t, d1);
    hr_trace_digest(&u, d2);
    hr_trace_digest(&v, d3);
    HR_CHECK_STR(d1, d2);
    HR_CHECK_STR(d1, d3);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/none.hrt", dir);
    hr_trace_t w;
    HR_CHECK(hr_trace_read_file(missing, HR_FMT_AUTO, &w, &err) == -1);
    HR_CHECK(strstr(err.msg, "none.hrt: cannot open: ") == err.msg + strlen(dir) + 1);
    unlink(bin);
    unlink(txt);
    rmdir(dir);
    hr_trace_free(&t);
    hr_trace_free(&u);
    hr_trace_free(&v);
}

/* ---- errors --------------------------------------------------------------- */

/* Reading must fail with exactly `want`, leaving t empty. */
static void expect_mem(const void *buf, size_t len, hr_format_t fmt, const char *want) {
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(hr_trace_read_mem(buf, len, "t.hrt", fmt, &t, &err) == -1);
    HR_CHECK_STR(err.msg, want);
    HR_CHECK(t.events == NULL && t.n_events == 0 && t.strings == NULL);
}

static void expect_file(const char *name, hr_format_t fmt, const char *suffix) {
    char path[1024], want[1200];
    snprintf(path, sizeof path, "%s/tests/data/bad/%s", srcdir(), name);
    snprintf(want, sizeof want, "%s%s", path, suffix);
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(hr_trace_read_file(path, fmt, &t, &err) == -1);
    HR_CHECK_STR(err.msg, want);
}

static void test_text_errors(void) {
    expect_file("text_field_count.txt", HR_FMT_AUTO, ":3: 'alloc' takes 2 or 3 fields, got 1");
    expect_file("text_calloc_fields.txt", HR_FMT_AUTO, ":4: 'calloc' takes 3 fields, got 2");
    expect_file("text_non_numeric.txt", HR_FMT_AUTO,
                ":2: field 2 (SIZE) of 'alloc': expected a decimal number, got '12x'");
    expect_file("text_id_range.txt", HR_FMT_AUTO,
                ":2: id 2147483648 out of range (max 2147483647)");
    expect_file("text_unknown_op.txt", HR_FMT_AUTO,
                ":4: unknown op 'allok' (expected one of alloc, calloc, realloc, free, push, "
                "pop, frame, mark, palloc, pfree, prealloc, touched)");
    expect_file("text_touched_orphan.txt", HR_FMT_AUTO,
                ":4: event 2 (free): expected the block that the touched record at event 1 "
                "describes (an alloc, calloc, realloc, palloc or prealloc of thread 0)");
    expect_file("text_touched_thread.txt", HR_FMT_AUTO,
                ":3: event 1 (alloc): expected the block that the touched record at event 0 "
                "describes (an alloc, calloc, realloc, palloc or prealloc of thread 1)");
    expect_file("text_touched_end.txt", HR_FMT_AUTO,
                ":4: event 2 (touched): the trace ends before the block it describes");
    expect_file("text_double_free.txt", HR_FMT_AUTO,
                ":5: event 2 (free): id 0 is not live (free of a dead id or double free)");
    expect_file("text_no_header.txt", HR_FMT_AUTO,
                ": not a heapreplay trace (expected magic HRTRACE or a 'heapreplay-trace' "
                "header line)");
    expect_file("text_no_header.txt", HR_FMT_TEXT,
                ":1: expected the header line 'heapreplay-trace 1'");
    expect_file("text_bad_escape.txt", HR_FMT_AUTO,
                ":2: bad escape in name 'a%2' (expected %XX with two hex digits, not %00)");
    expect_file("text_version.txt", HR_FMT_AUTO,
                ":1: unsupported text format version 2 (this reader reads 1)");
    expect_file("text_bad_align.txt", HR_FMT_AUTO,
                ":2: alignment 24 is not a power of two up to 2^31");
    expect_file("text_bad_thread.txt", HR_FMT_AUTO,
                ":2: expected one t=THREAD with THREAD < 65536, got 't=70000'");
}

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Assembles a version 1.0 file without timestamps: one string "h", one
 * thread, the given records. Records start at offset 66. */
static size_t mkbin(uint8_t *out, uint64_t n_events, uint32_t n_ids, uint64_t peak,
                    const uint8_t *rec, size_t rlen) {
    memset(out, 0, 64);
    memcpy(out, "HRTRACE", 8);
    put_le(out + 8, 1, 2);
    put_le(out + 16, n_events, 8);
    put_le(out + 24, n_ids, 4);
    put_le(out + 28, 1, 4);
    put_le(out + 32, 1, 4);
    put_le(out + 36, 64, 4);
    put_le(out + 40, peak, 8);
    put_le(out + 48, 2, 8);
    put_le(out + 56, rlen, 8);
    out[64] = 1;
    out[65] = 'h';
    memcpy(out + 66, rec, rlen);
    return 66 + rlen;
}

#define EXPECT_REC(nev, nids, peak, want, ...)                                  \
    do {                                                                        \
        const uint8_t rec_[] = {__VA_ARGS__};                                   \
        uint8_t f_[512];                                                        \
        size_t n_ = mkbin(f_, nev, nids, peak, rec_, sizeof rec_);              \
        expect_mem(f_, n_, HR_FMT_AUTO, want);                                  \
    } while (0)

static void test_binary_record_errors(void) {
    uint8_t f[512];
    const uint8_t ok[] = {0x00, 0x00, 0xac, 0x02, 0x03, 0x00}; /* alloc 0 300; free 0 */
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(hr_trace_read_mem(f, mkbin(f, 2, 1, 300, ok, 6), "t.hrt", HR_FMT_AUTO, &t,
                               &err) == 0);
    HR_CHECK_STR(err.msg, "");
    HR_CHECK(t.n_events == 2 && t.events[0].size == 300);
    hr_trace_free(&t);
    EXPECT_REC(2, 1, 300, "t.hrt: offset 68: bad varint (SIZE of 'alloc'): longer than "
               "needed or more than 64 bits", 0x00, 0x00, 0xac, 0x82, 0x00, 0x03, 0x00);
    EXPECT_REC(1, 1, 0, "t.hrt: offset 68: truncated record: expected a varint (SIZE of "
               "'alloc') but the records section ends", 0x00, 0x00);
    EXPECT_REC(1, 1, 8, "t.hrt: offset 67: id 5 out of range (header says n_ids 1)",
               0x00, 0x0a, 0x08);
    EXPECT_REC(1, 1, 0, "t.hrt: offset 67: id -1 out of range (header says n_ids 1)",
               0x03, 0x01);
    EXPECT_REC(1, 0, 0, "t.hrt: offset 67: string index 3 out of range (table has 1)",
               0x04, 0x03);
    EXPECT_REC(3, 1, 300, "t.hrt: offset 72: record count mismatch: the records section "
               "ends after 2 records, the header says 3", 0x00, 0x00, 0xac, 0x02, 0x03, 0x00);
    EXPECT_REC(1, 1, 300, "t.hrt: offset 70: record count mismatch: more records than the "
               "header's 1 events", 0x00, 0x00, 0xac, 0x02, 0x03, 0x00);
    EXPECT_REC(1000, 1, 300, "t.hrt: offset 16: record count mismatch: header claims 1000 "
               "events but the records section has only 6 bytes",
               0x00, 0x00, 0xac, 0x02, 0x03, 0x00);
    EXPECT_REC(1, 0, 0, "t.hrt: offset 66: unknown opcode 15 (codes below 16 cannot be "
               "skipped; written by a newer heapreplay?)", 0x0f);
    EXPECT_REC(1, 0, 0, "t.hrt: offset 66: opcode 9 ('pfree') in a 1.0 file (pool ops arrived "
               "in 1.3)", 0x09);
    EXPECT_REC(1, 0, 0, "t.hrt: offset 66: a named frame stream in a 1.0 file (they arrived in "
               "1.3)", 0x26, 0x02, 0x00);
    EXPECT_REC(1, 0, 0, "t.hrt: offset 66: opcode byte 0x80 sets the reserved bit 7", 0x80);
    EXPECT_REC(1, 1, 8, "t.hrt: offset 66: 'calloc' has no optional field but the opcode "
               "byte sets the optional-field bit", 0x21, 0x00, 0x01, 0x08);
    EXPECT_REC(1, 0, 0, "t.hrt: offset 67: thread 1 out of range (header says n_threads 1)",
               0x46, 0x01, 0x02);
    EXPECT_REC(3, 1, 8, "t.hrt: event 2 (free): id 0 is not live (free of a dead id or "
               "double free)", 0x00, 0x00, 0x08, 0x03, 0x00, 0x03, 0x00);
    EXPECT_REC(2, 1, 299, "t.hrt: offset 40: header says peak live 299 bytes but the events "
               "give 300", 0x00, 0x00, 0xac, 0x02, 0x03, 0x00);
    /* The same bad varint seen by the unchecked fast path (records follow). */
    uint8_t rec[200] = {0x00, 0x00, 0xac, 0x82, 0x00, 0x03, 0x00};
    for (int i = 0; i < 60; i++)
        rec[7 + 2 * i] = 0x06, rec[8 + 2 * i] = 0x02;
    expect_mem(f, mkbin(f, 62, 1, 300, rec, 127), HR_FMT_AUTO,
               "t.hrt: offset 68: bad varint (SIZE of 'alloc'): longer than needed or more "
               "than 64 bits");
}

static void test_binary_skippable(void) {
    const uint8_t rec[] = {0x14, 0x02, 0xaa, 0xbb, 0x00, 0x00, 0xac, 0x02, 0x03, 0x00};
    uint8_t f[512];
    hr_trace_t t;
    hr_error_t err = {""};
    hr_read_stats_t st;
    size_t n = mkbin(f, 3, 1, 300, rec, sizeof rec);
    HR_CHECK(hr_trace_read_mem_stats(f, n, "t.hrt", HR_FMT_AUTO, &t, &st, &err) == 0);
    HR_CHECK_STR(err.msg, "");
    HR_CHECK_EQ_U64(st.skipped, 1);
    HR_CHECK_EQ_U64(t.n_events, 2);
    HR_CHECK_EQ_U64(t.events[0].size, 300);
    hr_trace_free(&t);
    const uint8_t bad[] = {0x14, 0x09, 0xaa};
    n = mkbin(f, 1, 0, 0, bad, sizeof bad);
    expect_mem(f, n, HR_FMT_AUTO, "t.hrt: offset 68: truncated record: opcode 20 payload "
               "needs 9 bytes, 1 left");
}

static void test_binary_header_errors(void) {
    hr_trace_t t;
    hr_error_t err;
    HR_CHECK(read_text(k_canon, &t, &err) == 0);
    size_t len;
    uint8_t *bin = (uint8_t *)write_mem(&t, 0, &len);
    hr_trace_free(&t);
    HR_CHECK(bin && len > 80);
    if (!bin)
        return;
    uint8_t *m = malloc(len + 2);
    char want[300];
    expect_mem(bin, 20, HR_FMT_AUTO,
               "t.hrt: offset 20: truncated header: expected 64 bytes, got 20");
    expect_mem(bin, 5, HR_FMT_AUTO,
               "t.hrt: offset 5: truncated header: expected 64 bytes, got 5");
    memcpy(m, bin, len);
    m[0] = 'X';
    expect_mem(m, len, HR_FMT_BINARY, "t.hrt: offset 0: bad magic: expected \"HRTRACE\\0\"");
    expect_mem(m, len, HR_FMT_AUTO, "t.hrt: not a heapreplay trace (expected magic HRTRACE "
               "or a 'heapreplay-trace' header line)");
    memcpy(m, bin, len);
    m[8] = 2;
    expect_mem(m, len, HR_FMT_AUTO,
               "t.hrt: offset 8: unsupported major version 2 (this reader reads 1.x)");
    m[8] = 1;
    m[10] = 7; /* a newer minor version is read */
    HR_CHECK(hr_trace_read_mem(m, len, "t.hrt", HR_FMT_AUTO, &t, &err) == 0);
    hr_trace_free(&t);
    uint64_t rlen = 0;
    for (int i = 7; i >= 0; i--)
        rlen = rlen << 8 | bin[56 + i];
    snprintf(want, sizeof want, "t.hrt: offset %zu: truncated records: expected %llu bytes "
             "after the string table, got %llu", len - 3, (unsigned long long)rlen,
             (unsigned long long)rlen - 3);
    expect_mem(bin, len - 3, HR_FMT_AUTO, want);
    memcpy(m, bin, len);
    m[len] = m[len + 1] = 0;
    snprintf(want, sizeof want,
             "t.hrt: offset %zu: 2 unexpected bytes after the records section", len);
    expect_mem(m, len + 2, HR_FMT_AUTO, want);
    memcpy(m, bin, len);
    m[64] = 0x80; /* first string length: a non-minimal varint */
    m[65] = 0x00;
    expect_mem(m, len, HR_FMT_AUTO, "t.hrt: offset 64: bad varint (length of string 0)");
    free(m);
    free(bin);
}

static void run_error_tests(void) {
    HR_RUN(test_text_errors);
    HR_RUN(test_binary_record_errors);
    HR_RUN(test_binary_skippable);
    HR_RUN(test_binary_header_errors);
}

/* Format 1.1: a realloc that keeps its id writes no new-id byte, and reads
 * back with id == old id and no optional-field flag in memory. */
static void test_realloc_same_id_elided(void) {
    hr_trace_t a, b;
    hr_trace_init(&a);
    hr_trace_init(&b);
    hr_event_t ev = {0};
    ev.op = HR_OP_ALLOC, ev.id = 5, ev.size = 100;
    hr_trace_push(&a, &ev);
    hr_trace_push(&b, &ev);
    hr_event_t same = {0}, moved = {0};
    same.op = moved.op = HR_OP_REALLOC;
    same.aux = moved.aux = 5;
    same.id = 5, moved.id = 6;
    same.size = moved.size = 200;
    hr_trace_push(&a, &same);
    hr_trace_push(&b, &moved);
    hr_buf_t ba = {0}, bb = {0};
    HR_CHECK(hr_trace_encode_binary(&a, &ba) == 0 && hr_trace_encode_binary(&b, &bb) == 0);
    HR_CHECK_EQ_U64(ba.len + 1, bb.len); /* exactly the one id byte saved */
    hr_trace_t r;
    hr_error_t err = {{0}};
    hr_trace_init(&r);
    HR_CHECK(hr_trace_read_mem(ba.data, ba.len, "same.hrt", HR_FMT_BINARY, &r, &err) == 0);
    HR_CHECK_STR(err.msg, "");
    HR_CHECK(r.n_events == 2 && memcmp(r.events, a.events, 2 * sizeof *r.events) == 0);
    HR_CHECK_EQ_U64(r.events[1].id, 5);
    HR_CHECK_EQ_U64(r.events[1].flags, 0);
    hr_trace_free(&r);
    hr_trace_free(&a);
    hr_trace_free(&b);
    hr_buf_free(&ba);
    hr_buf_free(&bb);
}

/* Format 1.2: a realloc whose size is close to its block's bytes codes the
 * size as a delta (bit 7) when that is shorter, also after a calloc, and only
 * then; the bytes read back equal the events written. */
static void test_realloc_size_delta(void) {
    static const char k_src[] = "heapreplay-trace 1\n"
                                "calloc 0 10 100\n"      /* block of 1000 bytes */
                                "realloc 0 0 1001\n"     /* delta +1: one byte, bit 7 */
                                "realloc 0 1 900\n"      /* delta -101: 2 bytes = size: plain */
                                "realloc 1 1 5000000\n"  /* plain */
                                "free 1\n";
    static const uint8_t want[] = {0x01, 0x00, 0x0a, 0x64, /* calloc 0 10 100 */
                                   0xa2, 0x00, 0x02,       /* realloc keep id, delta +1 */
                                   0x02, 0x00, 0x02, 0x84, 0x07, /* realloc 0 -> 1, 900 */
                                   0x22, 0x00, 0xc0, 0x96, 0xb1, 0x02, /* 5000000 */
                                   0x03, 0x00};
    hr_trace_t t, r;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    hr_trace_init(&r);
    HR_CHECK(hr_trace_read_mem(k_src, sizeof k_src - 1, "d.txt", HR_FMT_TEXT, &t, &err) == 0);
    HR_CHECK_STR(err.msg, "");
    hr_buf_t b = {0};
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
    size_t rec = b.len - sizeof want;
    HR_CHECK_EQ_U64(b.len > sizeof want ? b.data[10] : 0, 2); /* minor 2 */
    HR_CHECK(b.len > sizeof want && memcmp(b.data + rec, want, sizeof want) == 0);
    HR_CHECK(hr_trace_read_mem(b.data, b.len, "d.hrt", HR_FMT_BINARY, &r, &err) == 0);
    HR_CHECK_STR(err.msg, "");
    HR_CHECK(r.n_events == t.n_events &&
             memcmp(r.events, t.events, t.n_events * sizeof *t.events) == 0);
    hr_trace_free(&r);
    /* The same bit in a 1.1 file, on an alloc, or with a delta below zero. */
    uint8_t f[512];
    const uint8_t r11[] = {0x00, 0x00, 0x0a, 0xa2, 0x00, 0x02, 0x03, 0x00};
    size_t n = mkbin(f, 3, 1, 11, r11, sizeof r11);
    f[10] = 1;
    expect_mem(f, n, HR_FMT_AUTO, "t.hrt: offset 69: opcode byte 0xa2 sets the reserved bit 7");
    f[10] = 2;
    HR_CHECK(hr_trace_read_mem(f, n, "t.hrt", HR_FMT_AUTO, &r, &err) == 0);
    HR_CHECK_STR(err.msg, "");
    HR_CHECK(r.n_events == 3 && r.events[1].size == 11 && r.peak_live == 11);
    hr_trace_free(&r);
    const uint8_t ra[] = {0x80, 0x00, 0x0a, 0x03, 0x00};
    n = mkbin(f, 2, 1, 10, ra, sizeof ra);
    f[10] = 2;
    expect_mem(f, n, HR_FMT_AUTO, "t.hrt: offset 66: opcode byte 0x80 sets the reserved bit 7");
    const uint8_t rneg[] = {0x00, 0x00, 0x0a, 0xa2, 0x00, 0x17, 0x03, 0x00};
    n = mkbin(f, 3, 1, 10, rneg, sizeof rneg);
    f[10] = 2;
    expect_mem(f, n, HR_FMT_AUTO, "t.hrt: offset 69: size delta -12 out of range: id 0's "
               "block has 10 bytes");
    hr_trace_free(&t);
    hr_buf_free(&b);
}

/* docs/TRACE_FORMAT.md "Worked example": the text encodes to exactly the bytes
 * the document lists (keeps the specification and the writer in step). */
static void test_doc_example(void) {
    static const char k_src[] = "heapreplay-trace 1\npush main\nalloc 0 300\nframe 1\n"
                                "free 0 300 t=1\npop main\n";
    static const uint8_t want[] = {
        0x48, 0x52, 0x54, 0x52, 0x41, 0x43, 0x45, 0x00, 0x01, 0x00, 0x02, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x40, 0x00, 0x00, 0x00, 0x2c, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x04, 0x6d, 0x61, 0x69, 0x6e, 0x04, 0x00, 0x00,
        0x00, 0xac, 0x02, 0x06, 0x02, 0x63, 0x01, 0x00, 0xac, 0x02, 0x45, 0x00,
        0x00,
    };
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    HR_CHECK(hr_trace_read_mem(k_src, sizeof k_src - 1, "ex.txt", HR_FMT_TEXT, &t, &err) == 0);
    hr_buf_t b = {0};
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
    HR_CHECK_EQ_U64(b.len, 85);
    HR_CHECK(b.len == sizeof want && memcmp(b.data, want, sizeof want) == 0);
    hr_trace_free(&t);
    hr_buf_free(&b);
}

int main(void) {
    HR_RUN(test_doc_example);
    HR_RUN(test_realloc_same_id_elided);
    HR_RUN(test_realloc_size_delta);
    HR_RUN(test_text_round_trip);
    HR_RUN(test_text_binary_text);
    HR_RUN(test_text_lenient_input);
    HR_RUN(test_binary_random);
    HR_RUN(test_files);
    run_error_tests();
    return hr_test_done();
}
