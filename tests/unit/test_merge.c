/* Shards and merge (report/merge.h): "K/N" parsing, the shard assignment
 * (a partition of the matrix over K = 1..N, balanced, independent of the
 * order of traces and allocators), and hr_merge_reports on hand-made shard
 * reports: results copied whole (keys merge does not know, such as "series"
 * and the budget's frame and heap, included), in matrix order, and every
 * refusal. The real replay -> shards -> merge round trip is
 * tests/cli/test_merge_cli.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hr_test.h"
#include "report/merge.h"

static void test_parse(void) {
    hr_shard_t s;
    HR_CHECK(hr_shard_parse("1/1", &s) == 0 && s.k == 1 && s.n == 1);
    HR_CHECK(hr_shard_parse("3/7", &s) == 0 && s.k == 3 && s.n == 7);
    HR_CHECK(hr_shard_parse("1000/1000", &s) == 0);
    static const char *const bad[] = {"", "1", "0/3", "4/3", "1/0", "-1/3", "1/-3", "a/3", "1/3x",
                                      "1//3", "/3", "1/", " 1/3", "1/1001", NULL};
    for (int i = 0; bad[i]; i++)
        HR_CHECK(hr_shard_parse(bad[i], &s) == -1);
    HR_CHECK(hr_shard_parse(NULL, &s) == -1);
}

/* Over K = 1..N every cell is in exactly one shard (the assignment names one
 * shard per cell, in 1..N), the shard sizes differ by at most one, and a
 * trace's allocators are not all dealt to one shard when N divides them. */
static void check_partition(int nt, int na, int n) {
    const char *traces[] = {"traces/z.hrt", "traces/a.hrt", "traces/m.hrt", "x/b.hrt", "y.hrt",
                            "traces/q.hrt", "w.hrt"};
    const char *allocs[] = {"glibc", "stack", "block", "jemalloc", "bank:round=16", "routed"};
    int of[64], size[16] = {0};
    HR_CHECK(hr_shard_assign(traces, nt, allocs, na, n, of) == 0);
    for (int i = 0; i < nt * na; i++) {
        HR_CHECK(of[i] >= 1 && of[i] <= n);
        if (of[i] >= 1 && of[i] <= n)
            size[of[i]]++;
    }
    int mn = nt * na, mx = 0, sum = 0;
    for (int k = 1; k <= n; k++) {
        mn = size[k] < mn ? size[k] : mn;
        mx = size[k] > mx ? size[k] : mx;
        sum += size[k];
    }
    HR_CHECK(sum == nt * na);
    HR_CHECK(mx - mn <= 1);
    /* deterministic: the same call gives the same assignment */
    int again[64];
    HR_CHECK(hr_shard_assign(traces, nt, allocs, na, n, again) == 0);
    HR_CHECK(memcmp(of, again, sizeof(int) * (size_t)(nt * na)) == 0);
    /* the order the traces and allocators were given in does not matter */
    const char *rt[8], *ra[8];
    for (int t = 0; t < nt; t++)
        rt[t] = traces[nt - 1 - t];
    for (int a = 0; a < na; a++)
        ra[a] = allocs[na - 1 - a];
    HR_CHECK(hr_shard_assign(rt, nt, ra, na, n, again) == 0);
    for (int t = 0; t < nt; t++)
        for (int a = 0; a < na; a++)
            HR_CHECK(of[t * na + a] == again[(nt - 1 - t) * na + (na - 1 - a)]);
    if (n > 1 && na == n)
        for (int a = 0; a < na; a++) { /* one allocator's traces spread over shards */
            int same = 1;
            for (int t = 1; t < nt; t++)
                same &= of[t * na + a] == of[a];
            HR_CHECK(nt == 1 || !same);
        }
}

static void test_partition(void) {
    for (int nt = 1; nt <= 7; nt++)
        for (int na = 1; na <= 6; na++)
            for (int n = 1; n <= 9; n++)
                check_partition(nt, na, n);
}

/* ---- hand-made shard reports ---------------------------------------------- */

static hr_json_t *parse(const char *s) {
    hr_error_t err;
    hr_json_t *v = hr_json_parse(s, strlen(s), "test", &err);
    if (!v)
        printf("# parse: %s\n", err.msg);
    return v;
}

/* A result with keys merge does not know: they must come through whole. */
static const char *result(char *buf, size_t n, const char *trace, const char *alloc,
                          const char *digest) {
    snprintf(buf, n, "{\"trace\": \"%s\", \"trace_digest\": \"%s\", \"allocator\": \"%s\", "
             "\"status\": \"ok\", \"ops\": {\"total\": 10}, \"series\": {\"memory\": "
             "{\"points\": 2, \"event\": [0, 9], \"live_bytes\": [16, 0]}}, \"budget\": "
             "{\"bytes\": 64, \"first_failure_op\": 3, \"first_failure_frame\": 1, "
             "\"first_failure_heap\": \"(none)\"}, \"future_key\": [1, {\"x\": null}]}",
             trace, digest, alloc);
    return buf;
}

/* Shard k of n holding the given results (a JSON array's inside). */
static hr_json_t *shard(const char *label, const char *results, const char *touch,
                        const char *version) {
    char *buf = malloc(8192);
    snprintf(buf, 8192, "{\"schema\": \"heapreplay-report\", \"schema_version\": 1, "
             "\"tool_version\": \"%s\", \"created\": \"2026-11-26T00:00:00Z\", "
             "\"machine\": {\"hostname\": \"runner-%s\"}, \"options\": {\"repeat\": 1, "
             "\"touch\": \"%s\", \"shard\": \"%s\"}, \"command\": \"heapreplay replay\", "
             "\"matrix\": {\"traces\": [\"t/b.hrt\", \"t/a.hrt\"], \"allocators\": [\"glibc\", "
             "\"stack\"]}, \"results\": [%s]}", version, label, touch, label, results);
    hr_json_t *v = parse(buf);
    free(buf);
    return v;
}

static hr_json_t *merge(hr_json_t **docs, int n, int partial, char *msg) {
    const char *names[8] = {"s1.json", "s2.json", "s3.json", "s4.json"};
    hr_merge_options_t o = hr_merge_options_default();
    hr_error_t err = {{0}};
    o.partial = partial;
    hr_json_t *m = hr_merge_reports((const hr_json_t *const *)docs, names, n, &o, &err);
    snprintf(msg, 512, "%s", m ? "" : err.msg);
    return m;
}

static void free_all(hr_json_t **d, int n) {
    for (int i = 0; i < n; i++)
        hr_json_free(d[i]);
}

static void test_merge_whole_results(void) {
    char r1[1024], r2[1024], r3[1024], r4[1024], both[2200], both2[2200], msg[512];
    result(r1, sizeof r1, "t/a.hrt", "stack", "aa");
    result(r2, sizeof r2, "t/b.hrt", "glibc", "bb");
    result(r3, sizeof r3, "t/a.hrt", "glibc", "aa");
    result(r4, sizeof r4, "t/b.hrt", "stack", "bb");
    snprintf(both, sizeof both, "%s, %s", r1, r2);
    snprintf(both2, sizeof both2, "%s, %s", r3, r4);
    hr_json_t *d[2] = {shard("2/2", both2, "first", "0.1.0"), shard("1/2", both, "first", "0.1.0")};
    hr_json_t *m = merge(d, 2, 0, msg);
    HR_CHECK(m != NULL);
    const hr_json_t *res = hr_json_get(m, "results");
    HR_CHECK(hr_json_len(res) == 4);
    /* matrix order: t/b.hrt first, then t/a.hrt; glibc before stack */
    static const char *const want[][2] = {
        {"t/b.hrt", "glibc"}, {"t/b.hrt", "stack"}, {"t/a.hrt", "glibc"}, {"t/a.hrt", "stack"}};
    for (size_t i = 0; i < 4; i++) {
        HR_CHECK_STR(hr_json_path_str(hr_json_at(res, i), "trace"), want[i][0]);
        HR_CHECK_STR(hr_json_path_str(hr_json_at(res, i), "allocator"), want[i][1]);
    }
    /* copied whole: equal to the shard's object, unknown keys included */
    HR_CHECK(hr_merge_json_equal(hr_json_path(m, "results.0"), hr_json_path(d[1], "results.1")));
    HR_CHECK(hr_merge_json_equal(hr_json_path(m, "results.1"), hr_json_path(d[0], "results.1")));
    HR_CHECK(hr_merge_json_equal(hr_json_path(m, "results.2"), hr_json_path(d[0], "results.0")));
    HR_CHECK(hr_merge_json_equal(hr_json_path(m, "results.3"), hr_json_path(d[1], "results.0")));
    HR_CHECK(hr_json_path_num(m, "results.3.budget.first_failure_frame") == 1);
    HR_CHECK_STR(hr_json_path_str(m, "results.3.budget.first_failure_heap"), "(none)");
    HR_CHECK(hr_json_path_num(m, "results.3.series.memory.live_bytes.0") == 16);
    /* an ordinary report: no options.shard; the shards named */
    HR_CHECK(hr_json_path(m, "options.shard") == NULL);
    HR_CHECK_STR(hr_json_path_str(m, "options.touch"), "first");
    HR_CHECK(hr_json_path_num(m, "merged.count") == 2);
    HR_CHECK_STR(hr_json_path_str(m, "merged.shards.0.shard"), "1/2");
    HR_CHECK_STR(hr_json_path_str(m, "merged.shards.0.file"), "s2.json");
    HR_CHECK(!hr_json_is_true(hr_json_path(m, "merged.partial")));
    HR_CHECK(hr_json_len(hr_json_path(m, "merged.missing")) == 0);
    hr_json_free(m);
    free_all(d, 2);
}

static void test_merge_refusals(void) {
    char r1[1024], r2[1024], rx[1024], msg[512];
    result(r1, sizeof r1, "t/a.hrt", "stack", "aa");
    result(r2, sizeof r2, "t/b.hrt", "glibc", "bb");
    result(rx, sizeof rx, "t/a.hrt", "glibc", "ff");
    struct {
        const char *l1, *l2, *res2, *touch2, *ver2, *want;
    } cases[] = {
        {"1/2", "2/2", r2, "first", "0.2.0", "tool_version \"0.2.0\""},
        {"1/2", "2/2", r2, "none", "0.1.0", "option touch is \"none\""},
        {"1/2", "2/2", rx, "first", "0.1.0", "has digest ff"},
        {"1/2", "1/2", r2, "first", "0.1.0", "given twice"},
        {"1/2", "2/3", r2, "first", "0.1.0", "expected one of"},
        {"1/2", "2/2", r1, "first", "0.1.0", "shards overlap"},
        {"1/3", "2/3", r2, "first", "0.1.0", "missing shard 3/3 of 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hr_json_t *d[2] = {shard(cases[i].l1, r1, "first", "0.1.0"),
                           shard(cases[i].l2, cases[i].res2, cases[i].touch2, cases[i].ver2)};
        hr_json_t *m = merge(d, 2, 0, msg);
        HR_CHECK(m == NULL);
        if (!strstr(msg, cases[i].want) || strchr(msg, '\n'))
            printf("# case %zu: \"%s\", want \"%s\"\n", i, msg, cases[i].want);
        HR_CHECK(strstr(msg, cases[i].want) != NULL);
        hr_json_free(m);
        free_all(d, 2);
    }
    /* not a shard report */
    hr_json_t *d[2] = {shard("1/2", r1, "first", "0.1.0"), parse("{\"options\": {}}")};
    HR_CHECK(merge(d, 2, 0, msg) == NULL && strstr(msg, "s2.json: expected a shard report"));
    free_all(d, 2);
    /* a different matrix (another -a list) */
    d[0] = shard("1/2", r1, "first", "0.1.0");
    d[1] = shard("2/2", r2, "first", "0.1.0");
    hr_json_set((hr_json_t *)hr_json_path(d[1], "matrix"), "allocators", hr_json_new_array());
    HR_CHECK(merge(d, 2, 0, msg) == NULL && strstr(msg, "matrix"));
    free_all(d, 2);
}

static void test_merge_partial(void) {
    char r1[1024], msg[512];
    result(r1, sizeof r1, "t/a.hrt", "stack", "aa");
    hr_json_t *d[1] = {shard("2/3", r1, "first", "0.1.0")};
    HR_CHECK(merge(d, 1, 0, msg) == NULL && strstr(msg, "missing shards 1/3, 3/3 of 3"));
    hr_json_t *m = merge(d, 1, 1, msg);
    HR_CHECK(m != NULL);
    HR_CHECK(hr_json_is_true(hr_json_path(m, "merged.partial")));
    HR_CHECK_STR(hr_json_path_str(m, "merged.missing.0"), "1/3");
    HR_CHECK_STR(hr_json_path_str(m, "merged.missing.1"), "3/3");
    HR_CHECK(hr_json_len(hr_json_get(m, "results")) == 1);
    hr_json_free(m);
    free_all(d, 1);
}

static void test_json_equal(void) {
    hr_json_t *a = parse("{\"a\": 1, \"b\": [1, 2.5, \"x\", null, true]}");
    hr_json_t *b = parse("{\"b\": [1, 2.5, \"x\", null, true], \"a\": 1}");
    hr_json_t *c = parse("{\"b\": [1, 2.5, \"x\", null, false], \"a\": 1}");
    hr_json_t *d = parse("{\"a\": 1}");
    HR_CHECK(hr_merge_json_equal(a, b));
    HR_CHECK(!hr_merge_json_equal(a, c));
    HR_CHECK(!hr_merge_json_equal(a, d) && !hr_merge_json_equal(d, a));
    hr_json_free(a);
    hr_json_free(b);
    hr_json_free(c);
    hr_json_free(d);
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_parse);
    HR_RUN(test_partition);
    HR_RUN(test_merge_whole_results);
    HR_RUN(test_merge_refusals);
    HR_RUN(test_merge_partial);
    HR_RUN(test_json_equal);
    return hr_test_done();
}
