/* Hostile trace inputs cost time and memory by their data, not by their
 * claims (issue 15): huge ids, a header lying about n_ids, live bytes past
 * 2^64, streams that are not traces; and the digest is taken over a
 * canonical form, so a lossless conversion keeps it. */
#include "hr_test.h"
#include "trace/format.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define HR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HR_ASAN 1
#endif
#endif

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

int main(void) {
    cap_memory();
    HR_RUN(test_huge_id);
    HR_RUN(test_lying_n_ids);
    HR_RUN(test_live_overflow);
    HR_RUN(test_endless_stream);
    HR_RUN(test_digest_canonical);
    return hr_test_done();
}
