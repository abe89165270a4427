/* Hostile trace inputs cost time and memory by their data, not by their
 * claims: huge ids, a header lying about n_ids, live bytes past
 * 2^64, streams that are not traces; and the digest is taken over a
 * canonical form, so a lossless conversion keeps it. */
#include "hr_test.h"
#include "trace/format.h"
#include "trace/scan.h"
#include "trace/gen.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Caps the address space at 1 GiB: a reader that sizes a table by a claimed
 * 2^31 ids (16 GiB) fails instead of succeeding lazily. Not under ASan,
 * whose shadow memory needs far more address space. */
static void cap_memory(void) {
#ifndef HR_ASAN
    struct rlimit r = {(rlim_t)1 << 30, (rlim_t)1 << 30};
    setrlimit(RLIMIT_AS, &r);
#endif
}

static int read_text(const char *text, hr_trace_t *t, hr_error_t *err) {
    return hr_trace_read_mem(text, strlen(text), "t.txt", HR_FMT_AUTO, t, err);
}

static void test_huge_id(void) {
    hr_trace_t t, back;
    hr_error_t err = {""};
    const char *text = "heapreplay-trace 1\nalloc 2147483647 16\nrealloc 2147483647 5 32\n"
                       "alloc 2147483000 8\nfree 5\nfree 2147483000\n";
    HR_CHECK(read_text(text, &t, &err) == 0);
    HR_CHECK_EQ_U64(t.n_ids, 2147483648u);
    HR_CHECK_EQ_U64(t.peak_live, 40);
    hr_buf_t b = {0};
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
    HR_CHECK(hr_trace_read_mem(b.data, b.len, "t.hrt", HR_FMT_AUTO, &back, &err) == 0);
    HR_CHECK_EQ_U64(back.n_events, 5);
    HR_CHECK_EQ_U64(back.events[1].size, 32);
    char d1[17], d2[17];
    hr_trace_digest(&t, d1);
    hr_trace_digest(&back, d2);
    HR_CHECK(strcmp(d1, d2) == 0);
    /* The replay's renaming: ids follow the live blocks (2 at most). */
    HR_CHECK(hr_trace_compact_ids(&back, &err) == 0);
    HR_CHECK_EQ_U64(back.n_ids, 2);
    HR_CHECK(hr_trace_validate(&back, "renamed", &err) == 0);
    HR_CHECK_EQ_U64(back.n_ids, 2);
    HR_CHECK_EQ_U64(back.peak_live, 40);
    HR_CHECK(back.events[1].aux == back.events[0].id); /* realloc's old id follows */
    hr_buf_free(&b);
    hr_trace_free(&back);
    hr_trace_free(&t);
}

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A valid small binary whose header then claims n_ids = 2^31: reported as a
 * header mismatch, without allocating by the claim. */
static void test_lying_n_ids(void) {
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(read_text("heapreplay-trace 1\nalloc 0 16\nfree 0\n", &t, &err) == 0);
    hr_buf_t b = {0};
    HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
    hr_trace_free(&t);
    put_le(b.data + 24, 0x80000000u, 4);
    HR_CHECK(hr_trace_read_mem(b.data, b.len, "lie.hrt", HR_FMT_AUTO, &t, &err) != 0);
    HR_CHECK(strstr(err.msg, "lie.hrt: offset 24: header says n_ids 2147483648 but the events "
                    "need 1") != NULL);
    if (!strstr(err.msg, "header says"))
        printf("# %s\n", err.msg);
    hr_buf_free(&b);
}

static void test_live_overflow(void) {
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(read_text("heapreplay-trace 1\nalloc 0 9223372036854775808\n"
                       "alloc 1 9223372036854775808\n", &t, &err) != 0);
    HR_CHECK(strstr(err.msg, "live bytes overflow") != NULL);
    printf("# %s\n", err.msg);
    HR_CHECK(read_text("heapreplay-trace 1\nalloc 0 9223372036854775808\n"
                       "realloc 0 1 18446744073709551615\n", &t, &err) == 0);
    hr_trace_free(&t);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* /dev/zero never ends: the format check on its first bytes stops it. */
static void test_endless_stream(void) {
    hr_trace_t t;
    hr_error_t err = {""};
    if (access("/dev/zero", R_OK) != 0)
        HR_SKIP("no /dev/zero");
    double t0 = now();
    HR_CHECK(hr_trace_read_file("/dev/zero", HR_FMT_AUTO, &t, &err) != 0);
    HR_CHECK(now() - t0 < 5.0);
    HR_CHECK(strstr(err.msg, "/dev/zero: not a heapreplay trace") != NULL);
    /* Told it is binary, the header's lengths (all 0) bound the read. */
    HR_CHECK(hr_trace_read_file("/dev/zero", HR_FMT_BINARY, &t, &err) != 0);
    HR_CHECK(now() - t0 < 5.0);
    printf("# %s\n", err.msg);
}

/* Same events, string table in another order with an unused entry and a
 * duplicate name: same digest as the canonical form (what text keeps). */
static void test_digest_canonical(void) {
    hr_trace_t t, c;
    hr_error_t err = {""};
    HR_CHECK(read_text("heapreplay-trace 1\npush Level\nalloc 0 16\nmark go\npop Level\n"
                       "free 0\npush Level\npop Level\n", &c, &err) == 0);
    HR_CHECK_EQ_U64(c.n_strings, 2);
    hr_trace_init(&t);
    const char *names[] = {"unused", "go", "Level", "Level"};
    for (int i = 0; i < 4; i++) /* intern would merge: build the table by hand */
        t.strings = realloc(t.strings, (size_t)(i + 1) * sizeof *t.strings),
        t.strings[i] = strdup(names[i]);
    t.n_strings = t.cap_strings = 4;
    hr_event_t ev[6];
    memcpy(ev, c.events, sizeof ev);
    ev[0].aux = 3; /* push Level (the duplicate) */
    ev[2].aux = 1; /* mark go */
    ev[3].aux = 2; /* pop Level */
    ev[5].aux = 2;
    for (int i = 0; i < 7; i++)
        HR_CHECK(hr_trace_push(&t, i < 6 ? &ev[i] : &c.events[6]) == 0);
    t.events[6].aux = 3;
    HR_CHECK(hr_trace_validate(&t, "perm", &err) == 0);
    char d1[17], d2[17];
    hr_trace_digest(&c, d1);
    hr_trace_digest(&t, d2);
    HR_CHECK(strcmp(d1, d2) == 0);
    printf("# digests %s %s\n", d1, d2);
    /* Not a constant: another name changes it. */
    free(t.strings[1]);
    t.strings[1] = strdup("stop");
    hr_trace_digest(&t, d2);
    HR_CHECK(strcmp(d1, d2) != 0);
    hr_trace_free(&t);
    hr_trace_free(&c);
}

/* info's summary: a canonical binary trace is read in slices (no event
 * array) and summarised exactly as the whole-trace path does; text and a
 * binary with a permuted string table take the whole-trace path. */
static void expect_same_summary(const char *path, const hr_trace_t *full, int streamed) {
    hr_trace_summary_t s;
    hr_error_t err = {""};
    HR_CHECK(hr_trace_scan_file(path, &s, &err) == 0);
    if (err.msg[0])
        printf("# %s\n", err.msg);
    char d[17];
    hr_trace_digest(full, d);
    HR_CHECK_STR(s.digest, d);
    HR_CHECK_EQ_U64(s.streamed, streamed);
    HR_CHECK_EQ_U64(s.t.n_events, full->n_events);
    HR_CHECK_EQ_U64(s.t.n_ids, full->n_ids);
    HR_CHECK_EQ_U64(s.t.n_threads, full->n_threads);
    HR_CHECK_EQ_U64(s.t.peak_live, full->peak_live);
    HR_CHECK_EQ_U64(s.t.max_align, full->max_align);
    HR_CHECK(memcmp(s.t.op_counts, full->op_counts, sizeof s.t.op_counts) == 0);
    if (full->ts && full->n_events)
        HR_CHECK_EQ_U64(s.last_ts - s.first_ts, full->ts[full->n_events - 1] - full->ts[0]);
    uint64_t pushes = 0, marks = 0;
    for (uint32_t i = 0; i < s.t.n_strings; i++)
        pushes += s.pushes[i], marks += s.marks[i];
    HR_CHECK_EQ_U64(pushes, full->op_counts[HR_OP_HEAP_PUSH]);
    HR_CHECK_EQ_U64(marks, full->op_counts[HR_OP_MARK]);
    hr_trace_summary_free(&s);
}

static void test_scan_summary(void) {
    char dir[] = "/tmp/hr_scanXXXXXX", bin[64], txt[64], perm[64];
    HR_CHECK(mkdtemp(dir) != NULL);
    snprintf(bin, sizeof bin, "%s/s.hrt", dir);
    snprintf(txt, sizeof txt, "%s/s.txt", dir);
    snprintf(perm, sizeof perm, "%s/p.hrt", dir);
    hr_gen_options_t o = hr_gen_default();
    o.scenario = "session";
    o.events = 200000; /* several slices */
    o.timestamps = 1;
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(hr_gen(&o, &t, &err) == 0);
    HR_CHECK(hr_trace_write_file(bin, HR_FMT_BINARY, &t, &err) == 0);
    HR_CHECK(hr_trace_write_file(txt, HR_FMT_TEXT, &t, &err) == 0);
    expect_same_summary(bin, &t, 1);
    expect_same_summary(txt, &t, 0);
    /* the string table reversed: same canonical digest, whole-trace path */
    if (t.n_strings > 1) {
        hr_trace_t p = t;
        char **rev = malloc(t.n_strings * sizeof *rev);
        hr_event_t *evs = malloc(t.n_events * sizeof *evs);
        for (uint32_t i = 0; i < t.n_strings; i++)
            rev[i] = t.strings[t.n_strings - 1 - i];
        memcpy(evs, t.events, t.n_events * sizeof *evs);
        for (size_t i = 0; i < t.n_events; i++)
            if (evs[i].op == HR_OP_HEAP_PUSH || evs[i].op == HR_OP_HEAP_POP || evs[i].op == HR_OP_MARK)
                evs[i].aux = t.n_strings - 1 - evs[i].aux;
        p.strings = rev;
        p.events = evs;
        HR_CHECK(hr_trace_write_file(perm, HR_FMT_BINARY, &p, &err) == 0);
        expect_same_summary(perm, &t, 0);
        free(rev);
        free(evs);
    }
    /* a broken file: the same message as the whole-trace reader */
    hr_trace_summary_t s;
    hr_error_t e1 = {""}, e2 = {""};
    FILE *f = fopen(bin, "r+b");
    if (f) {
        fseek(f, 24, SEEK_SET); /* n_ids: one less than the events need */
        uint8_t b[4];
        HR_CHECK(fread(b, 1, 4, f) == 4);
        b[0]--;
        fseek(f, 24, SEEK_SET);
        fwrite(b, 1, 4, f);
        fclose(f);
    }
    HR_CHECK(hr_trace_scan_file(bin, &s, &e1) != 0);
    hr_trace_t u;
    HR_CHECK(hr_trace_read_file(bin, HR_FMT_AUTO, &u, &e2) != 0);
    HR_CHECK_STR(e1.msg, e2.msg);
    printf("# scan: %s\n# read: %s\n", e1.msg, e2.msg);
    hr_trace_free(&t);
    unlink(bin);
    unlink(txt);
    unlink(perm);
    rmdir(dir);
}

int main(void) {
    cap_memory();
    HR_RUN(test_huge_id);
    HR_RUN(test_lying_n_ids);
    HR_RUN(test_live_overflow);
    HR_RUN(test_endless_stream);
    HR_RUN(test_digest_canonical);
    HR_RUN(test_scan_summary);
    return hr_test_done();
}
