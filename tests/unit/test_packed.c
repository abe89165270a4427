/* The replay's packed event form (trace/packed.h): every event and
 * timestamp packed by the writer comes back equal from the reader, in one
 * pass or in windows of any size; a file shared packed (hr_trace_share_file)
 * maps to the same events, counts and digest as the decoded path, renaming
 * sparse ids as hr_trace_compact_ids does; a damaged buffer ends the reader
 * with -1, never a read past its end. */
#include "hr_test.h"
#include "trace/gen.h"
#include "trace/format.h"
#include "trace/packed.h"
#include "trace/share_file.h"
#include "trace/shared.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/hr_packedXXXXXX";

/* Every op, both id coding paths, aux of each kind, alignments, flags,
 * thread switches, timestamps that go back, sizes of 1 to 9 varint bytes. */
static const char *const k_text =
    "heapreplay-trace 1 timestamps\n"
    "alloc 0 16 @100\n"
    "alloc 7 4096 64 t=1 @90\n"
    "calloc 3 10 24 t=1 @200\n"
    "realloc 0 5 40000 @201\n"
    "push level t=2 @300\n"
    "alloc 100000 1099511627776 t=2 @300\n"
    "pop level t=2 @301\n"
    "frame 1 @302\n"
    "frame 2 render @303\n"
    "mark loaded @304\n"
    "free 7 4096 t=1 @305\n"
    "free 3 t=1 @306\n"
    "realloc 5 5 12 @307\n"
    "free 100000 t=2 @308\n"
    "free 5 @309\n";

static int same_event(const hr_event_t *a, const hr_event_t *b) {
    return a->op == b->op && a->flags == b->flags && a->thread == b->thread && a->id == b->id &&
           a->aux == b->aux && a->align == b->align && a->size == b->size;
}

/* Packs t into a malloc'd buffer; *len its bytes. */
static uint8_t *pack_all(const hr_trace_t *t, size_t *len) {
    uint8_t *buf = malloc(t->n_events * HR_PACK_MAX_EVENT + 1);
    hr_pack_state_t st = hr_pack_state_default(t->ts != NULL);
    size_t n = 0;
    for (size_t i = 0; buf && i < t->n_events; i++)
        n += hr_pack_event(&st, &t->events[i], t->ts ? t->ts[i] : 0, buf + n);
    *len = n;
    return buf;
}

/* Unpacks buf in windows of `win` events and compares with t. */
static void check_windows(const hr_trace_t *t, const uint8_t *buf, size_t len, size_t win) {
    hr_unpack_t u;
    hr_event_t *evs = malloc(win * sizeof *evs);
    uint64_t *ts = malloc(win * sizeof *ts);
    size_t at = 0, bad = 0;
    long k;
    hr_unpack_start(&u, buf, len, t->ts != NULL);
    while ((k = hr_unpack_next(&u, evs, ts, win)) > 0) {
        for (long i = 0; i < k && at + (size_t)i < t->n_events; i++)
            bad += !same_event(&evs[i], &t->events[at + (size_t)i]) ||
                   (t->ts && ts[i] != t->ts[at + (size_t)i]);
        at += (size_t)k;
    }
    HR_CHECK(k == 0);
    HR_CHECK_EQ_U64(at, t->n_events);
    HR_CHECK_EQ_U64(bad, 0);
    free(evs);
    free(ts);
}

static void test_round_trip_every_op(void) {
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(hr_trace_read_mem(k_text, strlen(k_text), "ops", HR_FMT_TEXT, &t, &err) == 0);
    size_t len;
    uint8_t *buf = pack_all(&t, &len);
    HR_CHECK(buf != NULL && len > 0);
    for (size_t win = 1; win <= t.n_events + 1; win++)
        check_windows(&t, buf, len, win);
    hr_event_t ev;
    uint64_t ts = 0;
    HR_CHECK(hr_unpack_at(buf, len, 1, 5, &ev, &ts) == 0);
    HR_CHECK(same_event(&ev, &t.events[5]) && ts == t.ts[5]);
    HR_CHECK(hr_unpack_at(buf, len, 1, t.n_events, &ev, &ts) == -1);
    /* Cut anywhere inside: the reader stops with -1 or at a record end,
     * never past the buffer (ASan builds check the reads). */
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *part = malloc(cut ? cut : 1);
        memcpy(part, buf, cut);
        hr_unpack_t u;
        hr_event_t evs[4];
        long k, total = 0;
        hr_unpack_start(&u, part, cut, 1);
        while ((k = hr_unpack_next(&u, evs, NULL, 4)) > 0)
            total += k;
        HR_CHECK(total <= (long)t.n_events);
        free(part);
    }
    free(buf);
    hr_trace_free(&t);
}

/* A generated session: the shipped event mix, a few bytes per event. */
static void test_round_trip_session(void) {
    hr_gen_options_t o = hr_gen_default();
    o.scenario = "session";
    o.events = 200000;
    o.seed = 7;
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(hr_gen(&o, &t, &err) == 0);
    size_t len;
    uint8_t *buf = pack_all(&t, &len);
    check_windows(&t, buf, len, 16384);
    double per = (double)len / (double)t.n_events;
    printf("# session: %.2f bytes per event packed\n", per);
    HR_CHECK(per < 8.0);
    free(buf);
    hr_trace_free(&t);
}

/* Shares path packed and checks the mapping against the decoded reader. */
static void check_shared(const char *path, int renamed) {
    hr_trace_t d, m;
    hr_trace_summary_t s;
    hr_error_t err = {""};
    HR_CHECK(hr_trace_read_file(path, HR_FMT_AUTO, &d, &err) == 0);
    char dd[17], md[17];
    hr_trace_digest(&d, dd);
    HR_CHECK(hr_trace_compact_ids(&d, &err) == 0);
    int fd = hr_trace_share_file(path, &s, &err);
    HR_CHECK(fd >= 0);
    if (fd < 0) {
        printf("# %s\n", err.msg);
        hr_trace_free(&d);
        return;
    }
    HR_CHECK(hr_trace_map(fd, &m, md, &err) == 0);
    HR_CHECK_STR(md, dd);
    HR_CHECK(m.events == NULL && m.packed != NULL);
    HR_CHECK_EQ_U64(m.n_events, d.n_events);
    HR_CHECK_EQ_U64(m.n_ids, d.n_ids);
    HR_CHECK_EQ_U64(m.peak_live, d.peak_live);
    HR_CHECK_EQ_U64(m.n_strings, d.n_strings);
    HR_CHECK(renamed == (d.n_ids < s.t.n_ids));
    hr_trace_t view = d; /* the decoded events, compared with the packed ones */
    check_windows(&view, m.packed, m.packed_len, 4096);
    hr_trace_unmap(&m);
    hr_trace_summary_free(&s);
    hr_trace_free(&d);
    close(fd);
}

static void test_share_file(void) {
    char bin[64], txt[64], sparse[64];
    snprintf(bin, sizeof bin, "%s/s.hrt", dir);
    snprintf(txt, sizeof txt, "%s/ops.hrtt", dir);
    snprintf(sparse, sizeof sparse, "%s/sparse.hrtt", dir);
    hr_gen_options_t o = hr_gen_default();
    o.scenario = "session";
    o.events = 50000;
    o.seed = 3;
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(hr_gen(&o, &t, &err) == 0);
    HR_CHECK(hr_trace_write_file(bin, HR_FMT_BINARY, &t, &err) == 0);
    hr_trace_free(&t);
    FILE *f = fopen(txt, "w");
    fputs(k_text, f);
    fclose(f);
    f = fopen(sparse, "w"); /* ids far above the events: renamed densely */
    fputs("heapreplay-trace 1\nalloc 2000000000 8\nalloc 5 8\nfree 2000000000\n"
          "alloc 1999999999 16\nfree 5\nfree 1999999999\n", f);
    fclose(f);
    check_shared(bin, 0);
    check_shared(txt, 1); /* id 100000 over 15 events: renamed too */
    check_shared(sparse, 1);
    unlink(bin);
    unlink(txt);
    unlink(sparse);
}

/* A bad trace fails with the decoded reader's message and leaves no fd. */
static void test_share_bad(void) {
    char p[64];
    snprintf(p, sizeof p, "%s/bad.hrtt", dir);
    FILE *f = fopen(p, "w");
    fputs("heapreplay-trace 1\nalloc 1 8\nfree 2\n", f);
    fclose(f);
    hr_trace_t t;
    hr_trace_summary_t s;
    hr_error_t e1 = {""}, e2 = {""};
    HR_CHECK(hr_trace_read_file(p, HR_FMT_AUTO, &t, &e1) != 0);
    HR_CHECK(hr_trace_share_file(p, &s, &e2) < 0);
    HR_CHECK_STR(e2.msg, e1.msg);
    hr_trace_free(&t);
    unlink(p);
}

int main(void) {
    if (!mkdtemp(dir))
        return 1;
    HR_RUN(test_round_trip_every_op);
    HR_RUN(test_round_trip_session);
    HR_RUN(test_share_file);
    HR_RUN(test_share_bad);
    rmdir(dir);
    return hr_test_done();
}
