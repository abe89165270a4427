/* compare_family.h: which traces of a report are child processes of which
 * (the names --follow-forks gives them), the families' rows, a figure
 * combined over a family sample by sample, and the processes identical in
 * two captures. The reports are built in memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hr_test.h"
#include "report/access.h"
#include "report/compare_family.h"

/* One result row: trace, digest, events and three cold-lap samples. */
#define ROW(trace, digest, events, s1, s2, s3)                                                   \
    "{\"trace\":\"" trace "\",\"trace_digest\":\"" digest "\",\"allocator\":\"glibc\","         \
    "\"status\":\"ok\",\"runs\":3,\"ops\":{\"events\":" events "},\"time\":{\"cold_cpu_s\":"    \
    s2 "},\"samples\":{\"time.cold_cpu_s\":[" s1 "," s2 "," s3 "]}}"

static hr_json_t *doc_of(const char *text, hr_report_view_t *v) {
    hr_error_t err;
    hr_json_t *doc = hr_json_parse(text, strlen(text), "doc", &err);
    HR_CHECK(doc != NULL);
    if (doc)
        HR_CHECK(hr_report_view_init(v, doc) == 0);
    return doc;
}

/* The row index of `trace` in v (its first row). */
static size_t row_of(const hr_report_view_t *v, const char *trace) {
    for (size_t i = 0; i < v->n; i++)
        if (hr_result_of_trace(&v->rows[i], trace))
            return i;
    return (size_t)-1;
}

/* Two captures' reports and their parent's families (the first trace). */
typedef struct two {
    hr_report_view_t vb, vn;
    hr_json_t       *db, *dn;
    hr_families_t   *fb, *fn;
    hr_family_t      b, n;
    int              ok;
} two_t;

static void two_close(two_t *t);

/* 1 when both families were made; else 0, everything released. */
static int two_open(two_t *t, const char *base, const char *cur) {
    t->db = doc_of(base, &t->vb);
    t->dn = doc_of(cur, &t->vn);
    t->fb = hr_families_new(&t->vb);
    t->fn = hr_families_new(&t->vn);
    t->ok = t->fb && t->fn && hr_family_of(t->fb, 0, &t->b) == 1 &&
            hr_family_of(t->fn, 0, &t->n) == 1;
    HR_CHECK(t->ok);
    if (!t->ok)
        two_close(t);
    return t->ok;
}

static void two_close(two_t *t) {
    if (t->ok) {
        hr_family_free(&t->b);
        hr_family_free(&t->n);
    }
    hr_families_free(t->fb);
    hr_families_free(t->fn);
    hr_report_view_free(&t->vb);
    hr_report_view_free(&t->vn);
    hr_json_free(t->db);
    hr_json_free(t->dn);
}

/* Children are found by name: ".DIGITS" before the extension, the same
 * compression suffix, the same folder; nothing else is one. */
static void test_children_by_name(void) {
    static const char text[] = "{\"results\":["
        ROW("d/b.hrt", "p", "10", "1", "1", "1") ","
        ROW("d/b.12.hrt", "x", "20", "1", "1", "1") ","
        ROW("d/b.7.hrt", "y", "30", "1", "1", "1") ","
        ROW("d/b.x.hrt", "z", "1", "1", "1", "1") ","      /* not digits */
        ROW("d/bb.3.hrt", "z", "1", "1", "1", "1") ","     /* another stem */
        ROW("d/b.3.4.hrt", "z", "1", "1", "1", "1") ","    /* two numbers: b.3.hrt's child */
        ROW("d/b.hrt.zst", "q", "5", "1", "1", "1") ","
        ROW("d/b.5.hrt.zst", "r", "6", "1", "1", "1") ","
        ROW("d/b.9.hrt.gz", "r", "6", "1", "1", "1") ","   /* no b.hrt.gz */
        ROW("e/game", "g", "1", "1", "1", "1") ","
        ROW("e/game.77", "h", "1", "1", "1", "1") ","
        ROW("f.1/c.hrt", "c", "1", "1", "1", "1") ","
        ROW("g/b.12.hrt", "c", "1", "1", "1", "1") "]}";  /* another folder */
    static const struct { const char *trace; int child, family; } want[] = {
        {"d/b.hrt", 0, 3},     {"d/b.12.hrt", 1, 0},     {"d/b.7.hrt", 1, 0},
        {"d/b.x.hrt", 0, 0},   {"d/bb.3.hrt", 0, 0},     {"d/b.3.4.hrt", 0, 0},
        {"d/b.hrt.zst", 0, 2}, {"d/b.5.hrt.zst", 1, 0},  {"d/b.9.hrt.gz", 0, 0},
        {"e/game", 0, 2},      {"e/game.77", 1, 0},      {"f.1/c.hrt", 0, 0},
        {"g/b.12.hrt", 0, 0},
    };
    hr_report_view_t v;
    hr_json_t *doc = doc_of(text, &v);
    hr_families_t *fs = doc ? hr_families_new(&v) : NULL;
    HR_CHECK(fs != NULL);
    for (size_t k = 0; fs && k < sizeof want / sizeof want[0]; k++) {
        size_t i = row_of(&v, want[k].trace);
        hr_family_t f;
        int has = hr_family_of(fs, i, &f);
        if (hr_families_is_child(fs, i) != want[k].child || (has ? f.n : 0) != want[k].family)
            printf("# %s: child %d family %d (expected %d, %d)\n", want[k].trace,
                   hr_families_is_child(fs, i), has ? f.n : 0, want[k].child, want[k].family);
        HR_CHECK(hr_families_is_child(fs, i) == want[k].child);
        HR_CHECK((has ? f.n : 0) == want[k].family);
        if (has > 0) {
            HR_CHECK_STR(f.traces[0], want[k].trace); /* the parent first */
            hr_family_free(&f);
        }
    }
    hr_families_free(fs);
    hr_report_view_free(&v);
    hr_json_free(doc);
}

static void events_fig(const hr_result_t *r, hr_spread_t *s, void *ctx) {
    (void)ctx;
    hr_spread_of(r, HR_M_OPS_EVENTS, s);
}
static void cold_fig(const hr_result_t *r, hr_spread_t *s, void *ctx) {
    (void)ctx;
    hr_spread_of(r, HR_M_COLD_CPU, s);
}

/* Sums and maxima over a family; measured figures sample by sample (the
 * median of the sums, not the sum of the medians); the identical processes
 * matched once each by digest. */
/* A row with a recorded command (trace format 1.8's process_command). */
#define CMD_ROW(trace, cmd)                                                                      \
    "{\"trace\":\"" trace "\",\"trace_digest\":\"" trace "\",\"allocator\":\"glibc\","         \
    "\"status\":\"ok\",\"runs\":1,\"process_command\":\"" cmd "\",\"ops\":{\"events\":5}}"

static int index_of(const hr_family_t *f, const char *trace) {
    for (int k = 0; k < f->n; k++)
        if (strcmp(f->traces[k], trace) == 0)
            return k;
    return -1;
}

/* Processes pair by the same command first (a temporary file's name does
 * not count), then the rest by their commands' likeness: the same program,
 * most tokens in common, each once; a flag added to every compile still
 * pairs each unit's compile with its own. The tokens that differ, named. */
static void test_pairs_by_likeness(void) {
    static const char base[] = "{\"results\":["
        CMD_ROW("b.hrt", "make") ","
        CMD_ROW("b.1.hrt", "/usr/bin/cc1 -quiet -O2 a.c -o /tmp/ccA.s") ","
        CMD_ROW("b.2.hrt", "/usr/bin/cc1 -quiet -O2 b.c -o /tmp/ccB.s") ","
        CMD_ROW("b.3.hrt", "/usr/bin/as -o a.o /tmp/ccA.s") ","
        CMD_ROW("b.4.hrt", "/usr/bin/cc1 -quiet -O2 c.c -o /tmp/ccC.s") "]}";
    static const char cur[] = "{\"results\":["
        CMD_ROW("b.hrt", "make") ","
        CMD_ROW("b.11.hrt", "/usr/bin/cc1 -quiet -O3 b.c -o /tmp/ccX.s") ","
        CMD_ROW("b.12.hrt", "/usr/bin/cc1 -quiet -O3 a.c -o /tmp/ccY.s") ","
        CMD_ROW("b.13.hrt", "/usr/bin/as -o a.o /tmp/ccZ.s") ","
        CMD_ROW("b.14.hrt", "/usr/bin/ld -o prog a.o b.o") "]}";
    two_t t;
    if (!two_open(&t, base, cur))
        return;
    hr_family_t b = t.b, n = t.n;
    int pair[8];
    char like[8];
    HR_CHECK(hr_family_pairs(&b, &n, pair) == 2); /* make, as */
    HR_CHECK(hr_family_pairs_like(&b, &n, pair, like) == 4);
    static const struct { const char *b, *n; int like; } want[] = {
        {"b.hrt", "b.hrt", 0}, {"b.3.hrt", "b.13.hrt", 0},
        {"b.1.hrt", "b.12.hrt", 1}, {"b.2.hrt", "b.11.hrt", 1}, {"b.4.hrt", NULL, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int k = index_of(&b, want[i].b);
        HR_CHECK(k >= 0);
        if (k < 0)
            continue;
        HR_CHECK(pair[k] == (want[i].n ? index_of(&n, want[i].n) : -1));
        HR_CHECK(like[k] == want[i].like);
    }
    char diff[96];
    hr_command_diff(diff, sizeof diff, "/usr/bin/cc1 -quiet -O2 a.c -o /tmp/ccA.s",
                    "/usr/bin/cc1 -quiet -O3 a.c -o /tmp/ccY.s");
    HR_CHECK_STR(diff, "-O2 -> -O3");
    hr_command_diff(diff, sizeof diff, "cc1 a.c", "cc1 -g -O1 -O2 -O3 -w a.c");
    HR_CHECK_STR(diff, "(none) -> -O1 -O2 -O3 and 2 more");
    two_close(&t);
}

static void test_combine_and_identical(void) {
    static const char base[] = "{\"results\":["
        ROW("b.hrt", "p1", "10", "1", "2", "9") ","
        ROW("b.101.hrt", "aa", "100", "9", "1", "2") ","
        ROW("b.102.hrt", "aa", "50", "1", "1", "1") ","
        ROW("b.103.hrt", "cc", "70", "1", "1", "1") "]}";
    static const char cur[] = "{\"results\":["
        ROW("b.hrt", "p2", "10", "1", "1", "1") ","
        ROW("b.201.hrt", "aa", "100", "1", "1", "1") ","
        ROW("b.202.hrt", "dd", "400", "1", "1", "1") "]}";
    two_t t;
    if (!two_open(&t, base, cur))
        return;
    hr_family_t b = t.b, n = t.n;
    hr_spread_t s;
    hr_family_spread(&b, NULL, events_fig, NULL, HR_FAMILY_SUM, &s);
    HR_CHECK(s.n == 1 && s.center == 230);
    hr_family_spread(&b, "glibc", events_fig, NULL, HR_FAMILY_MAX, &s);
    HR_CHECK(s.n == 1 && s.center == 100);
    /* samples: (1+9+1+1, 2+1+1+1, 9+2+1+1) = (12, 5, 13): median 12; the sum
     * of the medians would be 2+2+1+1 = 6 */
    hr_family_spread(&b, "glibc", cold_fig, NULL, HR_FAMILY_SUM, &s);
    HR_CHECK(s.n == 3 && s.nv == 3 && s.center == 12 && s.min == 5 && s.max == 13);
    hr_family_spread(&b, "jemalloc", cold_fig, NULL, HR_FAMILY_SUM, &s); /* no such rows */
    HR_CHECK(s.n == 0);
    char words[256];
    /* base's two "aa" processes against new's one: one identical pair */
    HR_CHECK(hr_family_identical(&b, &n, 1, words, sizeof words) == 1);
    HR_CHECK_STR(words, "base: b.103.hrt 70 events and 2 more; new: b.202.hrt 400 events and 1 more");
    two_close(&t);
}

/* The reading order of a report's traces: each child process right after
 * its parent, the heaviest first, grandchildren under their own parent; the
 * others where they were. */
static void test_trace_order(void) {
    static const char text[] = "{\"results\":["
        ROW("x.hrt", "x", "1", "1", "1", "1") ","
        ROW("b.5.hrt", "c", "10", "1", "1", "1") ","
        ROW("b.hrt", "p", "5", "1", "1", "1") ","
        ROW("b.7.9.hrt", "g", "50", "1", "1", "1") ","
        ROW("b.7.hrt", "d", "100", "1", "1", "1") ","
        ROW("a.hrt", "a", "1", "1", "1", "1") "]}";
    static const char *const want[] = {"x.hrt", "b.hrt", "b.7.hrt", "b.7.9.hrt", "b.5.hrt",
                                       "a.hrt"};
    hr_report_view_t v;
    hr_json_t *doc = doc_of(text, &v);
    hr_families_t *fs = doc ? hr_families_new(&v) : NULL;
    int *order = fs ? hr_families_trace_order(fs) : NULL;
    HR_CHECK(order != NULL && v.ntraces == 6);
    for (int k = 0; order && k < v.ntraces && k < 6; k++)
        HR_CHECK_STR(v.traces[order[k]], want[k]);
    free(order);
    hr_families_free(fs);
    hr_report_view_free(&v);
    hr_json_free(doc);
}

int main(void) {
    HR_RUN(test_children_by_name);
    HR_RUN(test_combine_and_identical);
    HR_RUN(test_pairs_by_likeness);
    HR_RUN(test_trace_order);
    return hr_test_done();
}
