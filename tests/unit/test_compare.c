/* compare: exit codes through the library, on tests/data/reports/base.json
 * and variants of it built in memory (and written to temp files where the
 * file-level entry point is under test). */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "hr_test.h"
#include "report/compare.h"
#include "report/report.h"

static hr_json_t *base;
static char tmpdir[] = "/tmp/hr_test_compare_XXXXXX";

static hr_json_t *load_base(void) {
    const char *s = getenv("srcdir");
    char path[1024];
    hr_error_t err;
    snprintf(path, sizeof path, "%s/tests/data/reports/base.json", s && *s ? s : ".");
    hr_json_t *r = hr_report_load(path, &err);
    if (!r)
        printf("# %s\n", err.msg);
    return r;
}

/* Set a number in the clone in place (results.I.PATH). */
static void set_num(hr_json_t *doc, const char *path, double v) {
    hr_json_t *n = (hr_json_t *)hr_json_path(doc, path);
    if (!n || n->type != HR_JSON_NUMBER) {
        printf("# no number at %s\n", path);
        return;
    }
    n->num = v;
    n->is_u64 = v >= 0 && v == floor(v);
    n->u64 = n->is_u64 ? (uint64_t)v : 0;
    n->is_i64 = 0;
}

/* Compare base with `cur` (quietly) and return the exit code. */
static int run(const hr_json_t *cur, const char *spec) {
    hr_compare_options_t o = hr_compare_options_default();
    o.max_regress = spec;
    FILE *devnull = fopen("/dev/null", "w");
    int rc = hr_compare_reports(base, "base.json", cur, "new.json", &o, devnull);
    fclose(devnull);
    return rc;
}

static void test_identical(void) {
    HR_CHECK(run(base, NULL) == 0);
    HR_CHECK(run(base, "throughput=0%,p99=0%,peak=0%,rss=0%,frag=0%,slop=0%,worst_frame=0%") == 0);
}

/* results.0 is glibc on game_session: 20 M ops/s, footprint source rss. */
static void test_throughput(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.0.time.ops_per_s", 18e6); /* -10% */
    HR_CHECK(run(n, NULL) == 1);
    HR_CHECK(run(n, "throughput=5%") == 1);
    HR_CHECK(run(n, "throughput=15%") == 0);
    HR_CHECK(run(n, "peak=0%") == 0); /* not gated */
    set_num(n, "results.0.time.ops_per_s", 19.4e6); /* -3%: within the default 5% */
    HR_CHECK(run(n, NULL) == 0);
    set_num(n, "results.0.time.ops_per_s", 19e6); /* exactly -5%: at the limit */
    HR_CHECK(run(n, "throughput=5%") == 0);
    hr_json_free(n);
}

static void test_peak_plus_one_byte(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.0.memory.peak_footprint", 10485761);
    HR_CHECK(run(n, NULL) == 1);          /* default peak=0% */
    HR_CHECK(run(n, "peak=0%") == 1);
    HR_CHECK(run(n, "peak=1%") == 0);
    HR_CHECK(run(n, "throughput=5%") == 0); /* rss source: only gated when asked */
    hr_json_free(n);
}

/* results.1 is stack, footprint_source exact: always gated. */
static void test_exact_footprint(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.1.memory.peak_footprint", 9437185);
    HR_CHECK(run(n, "throughput=5%") == 1);
    HR_CHECK(run(n, "peak=1%") == 0); /* an explicit peak threshold applies */
    hr_json_free(n);
}

static void test_improvement(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.0.time.ops_per_s", 40e6);
    set_num(n, "results.0.time.ns_per_op", 25);
    set_num(n, "results.0.memory.peak_footprint", 9000000);
    set_num(n, "results.0.latency_ns.p99", 10);
    HR_CHECK(run(n, NULL) == 0);
    HR_CHECK(run(n, "throughput=0%,p99=0%,peak=0%") == 0);
    hr_json_free(n);
}

static void test_missing_and_status(void) {
    hr_json_t *n = hr_json_clone(base);
    hr_json_t *res = (hr_json_t *)hr_json_get(n, "results");
    hr_json_free(res->items[1]); /* drop stack */
    memmove(&res->items[1], &res->items[2], (res->n - 2) * sizeof res->items[0]);
    res->n--;
    HR_CHECK(run(n, NULL) == 1);
    hr_json_free(n);

    n = hr_json_clone(base);
    hr_json_set((hr_json_t *)hr_json_path(n, "results.0"), "status", hr_json_new_str("timeout"));
    HR_CHECK(run(n, NULL) == 1);
    hr_json_free(n);

    /* a result only in NEW, and a base failure that got fixed: fine */
    n = hr_json_clone(base);
    hr_json_set((hr_json_t *)hr_json_path(n, "results.0"), "allocator", hr_json_new_str("other"));
    HR_CHECK(run(n, NULL) == 1); /* glibc on game_session is now missing */
    hr_json_free(n);
    n = hr_json_clone(base);
    hr_json_set((hr_json_t *)hr_json_path(n, "results.2"), "status", hr_json_new_str("ok"));
    HR_CHECK(run(n, NULL) == 0);
    hr_json_free(n);
}

static void test_deterministic_mismatch(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.0.ops.free", 489999);
    HR_CHECK(run(n, "throughput=100%") == 1);
    hr_json_free(n);
    n = hr_json_clone(base);
    set_num(n, "results.3.memory.peak_live", 65535); /* even smaller is a mismatch */
    HR_CHECK(run(n, "throughput=100%") == 1);
    hr_json_free(n);
    n = hr_json_clone(base);
    hr_json_set((hr_json_t *)hr_json_path(n, "results.3"), "trace_digest", hr_json_new_str("00"));
    HR_CHECK(run(n, NULL) == 1);
    hr_json_free(n);
}

/* Matching falls back to the digest when the path changed. */
static void test_match_by_digest(void) {
    hr_json_t *n = hr_json_clone(base);
    hr_json_set((hr_json_t *)hr_json_path(n, "results.3"), "trace",
                hr_json_new_str("elsewhere/renamed.hrt"));
    HR_CHECK(run(n, NULL) == 0);
    hr_json_free(n);
}

static void test_thresholds_parse(void) {
    hr_compare_metric_t m[8];
    hr_error_t err;
    HR_CHECK(hr_compare_parse_thresholds("throughput=5%,peak=0,time.cpu_s=2.5%", m, 8, &err) == 3);
    HR_CHECK_STR(m[0].path, "time.ops_per_s");
    HR_CHECK(m[0].higher_better && m[0].pct == 5);
    HR_CHECK_STR(m[1].path, "memory.peak_footprint");
    HR_CHECK(!m[1].higher_better && m[1].pct == 0);
    HR_CHECK_STR(m[2].path, "time.cpu_s");
    HR_CHECK(m[2].pct == 2.5);
    const char *bad[] = {"throughput", "bogus=5%", "throughput=abc", "throughput=-1%",
                         "throughput=5%%", "throughput=5%,", ",", "", "a.b c=1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = hr_compare_parse_thresholds(bad[i], m, 8, &err);
        if (rc != -1)
            printf("# accepted bad spec \"%s\"\n", bad[i]);
        HR_CHECK(rc == -1);
        HR_CHECK(strncmp(err.msg, "--max-regress: ", 15) == 0);
    }
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Exit code and one stderr line from the file-level entry point. */
static int run_files(const char *b, const char *n, const char *spec, char *msg, size_t len) {
    hr_compare_options_t o = hr_compare_options_default();
    o.max_regress = spec;
    FILE *out = fopen("/dev/null", "w"), *err = tmpfile();
    int rc = hr_compare_files(b, n, &o, out, err);
    rewind(err);
    msg[0] = 0;
    if (!fgets(msg, (int)len, err))
        msg[0] = 0;
    fclose(out);
    fclose(err);
    return rc;
}

static void test_bad_input(void) {
    char b[1100], n[1100], msg[1024];
    char *s = hr_json_to_string(base, 0);
    snprintf(b, sizeof b, "%s/base.json", tmpdir);
    write_file(b, s);
    free(s);
    HR_CHECK(run_files(b, b, NULL, msg, sizeof msg) == 0);

    snprintf(n, sizeof n, "%s/bad.json", tmpdir);
    write_file(n, "{\"schema\": \"heapreplay-report\", \"schema_version\": 1,, }");
    HR_CHECK(run_files(b, n, NULL, msg, sizeof msg) == 2);
    HR_CHECK(strstr(msg, "bad.json: offset 52: expected") != NULL);

    write_file(n, "{\"schema\": \"other\", \"schema_version\": 1, \"results\": []}");
    HR_CHECK(run_files(b, n, NULL, msg, sizeof msg) == 2);
    HR_CHECK(strstr(msg, "bad.json: expected a report") != NULL);

    write_file(n, "{\"schema\": \"heapreplay-report\", \"schema_version\": 2, \"results\": []}");
    HR_CHECK(run_files(n, b, NULL, msg, sizeof msg) == 2);
    HR_CHECK(strstr(msg, "schema_version") != NULL);

    write_file(n, "{\"schema\": \"heapreplay-report\", \"schema_version\": 1, "
                  "\"results\": [{\"trace\": 1}]}");
    HR_CHECK(run_files(b, n, NULL, msg, sizeof msg) == 2);

    HR_CHECK(run_files(b, "/nonexistent/new.json", NULL, msg, sizeof msg) == 2);
    HR_CHECK(strstr(msg, "/nonexistent/new.json") != NULL);

    HR_CHECK(run_files(b, b, "throughput=lots", msg, sizeof msg) == 2);
    HR_CHECK(strstr(msg, "--max-regress") != NULL);
    HR_CHECK(strchr(msg, '\n') == strrchr(msg, '\n')); /* one line */
}

/* The JSON output parses and carries the verdict. */
static void test_json_output(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.0.time.ops_per_s", 10e6);
    char *buf = NULL;
    hr_error_t err;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hr_compare_options_t o = hr_compare_options_default();
    o.format = HR_EMIT_JSON;
    HR_CHECK(hr_compare_reports(base, "b", n, "n", &o, f) == 1);
    fclose(f);
    hr_json_t *doc = hr_json_parse(buf, len, "compare output", &err);
    HR_CHECK(doc != NULL);
    HR_CHECK_STR(hr_json_path_str(doc, "summary.verdict"), "FAIL");
    HR_CHECK(hr_json_path_num(doc, "summary.regressions") == 1);
    int found = 0;
    const hr_json_t *rows = hr_json_get(doc, "rows");
    for (size_t i = 0; i < hr_json_len(rows); i++) {
        const hr_json_t *r = hr_json_at(rows, i);
        if (strcmp(hr_json_path_str(r, "verdict"), "REGRESSION") == 0) {
            found++;
            HR_CHECK_STR(hr_json_path_str(r, "metric"), "throughput");
            HR_CHECK(hr_json_path_num(r, "delta %") == -50);
        }
    }
    HR_CHECK(found == 1);
    free(buf);
    hr_json_free(doc);
    hr_json_free(n);
}

int main(void) {
    base = load_base();
    if (!base || !mkdtemp(tmpdir)) {
        printf("Bail out! cannot load base.json or make a temp dir\n");
        return 1;
    }
    HR_RUN(test_identical);
    HR_RUN(test_throughput);
    HR_RUN(test_peak_plus_one_byte);
    HR_RUN(test_exact_footprint);
    HR_RUN(test_improvement);
    HR_RUN(test_missing_and_status);
    HR_RUN(test_deterministic_mismatch);
    HR_RUN(test_match_by_digest);
    HR_RUN(test_thresholds_parse);
    HR_RUN(test_bad_input);
    HR_RUN(test_json_output);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    hr_json_free(base);
    return hr_test_done();
}
