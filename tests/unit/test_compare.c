/* compare: exit codes through the library, on tests/data/reports/base.json
 * and variants of it built in memory (and written to temp files where the
 * file-level entry point is under test). */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "hr_test.h"
#include "report/compare.h"
#include "report/report.h"
#include "report/stats.h"

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


/* Gives results.I of doc the samples v[0..n) at `path` (as the report builder
 * keeps them) and sets the value there to their median. */
static void set_samples(hr_json_t *doc, int i, const char *path, const double *v, int n) {
    char where[192];
    double tmp[16];
    snprintf(where, sizeof where, "results.%d", i);
    hr_json_t *r = (hr_json_t *)hr_json_path(doc, where), *samples = NULL;
    if (!(samples = (hr_json_t *)hr_json_get(r, "samples"))) {
        hr_json_set(r, "samples", hr_json_new_object());
        samples = (hr_json_t *)hr_json_get(r, "samples");
    }
    hr_json_t *arr = hr_json_new_array();
    for (int k = 0; k < n; k++)
        hr_json_push(arr, hr_json_new_num(v[k]));
    hr_json_set(samples, path, arr);
    memcpy(tmp, v, (size_t)n * sizeof v[0]);
    snprintf(where, sizeof where, "results.%d.%s", i, path);
    set_num(doc, where, hr_stats_of(tmp, n).median);
}

/* Compares base_doc with cur under spec (JSON output) and copies the verdict
 * and reason of the first row of `alloc` named `metric` (results.0's, when
 * alloc is its allocator). Returns the exit code. */
static int run_row(const hr_json_t *base_doc, const hr_json_t *cur, const char *spec,
                   const char *alloc, const char *metric, char *verdict, char *why) {
    char *buf = NULL;
    size_t len = 0;
    hr_error_t err;
    FILE *f = open_memstream(&buf, &len);
    hr_compare_options_t o = hr_compare_options_default();
    o.format = HR_CMP_JSON;
    o.max_regress = spec;
    int rc = hr_compare_reports(base_doc, "b", cur, "n", &o, f);
    fclose(f);
    hr_json_t *doc = hr_json_parse(buf, len, "compare output", &err);
    const hr_json_t *rows = hr_json_get(doc, "rows");
    strcpy(verdict, "(no row)");
    strcpy(why, "");
    for (size_t i = 0; i < hr_json_len(rows); i++) {
        const hr_json_t *r = hr_json_at(rows, i);
        if (strcmp(hr_json_path_str(r, "allocator"), alloc) == 0 &&
            strcmp(hr_json_path_str(r, "metric"), metric) == 0) {
            snprintf(verdict, 32, "%s", hr_json_path_str(r, "verdict"));
            snprintf(why, 256, "%s", hr_json_path_str(r, "reason"));
            break;
        }
    }
    hr_json_free(doc);
    free(buf);
    return rc;
}

static void test_identical(void) {
    HR_CHECK(run(base, NULL) == 0);
    HR_CHECK(run(base, "throughput=0%,p99=0%,peak=0%,rss=0%,frag=0%,slop=0%,worst_frame=0%") == 0);
}

/* results.0 is glibc on game_session: 20 M ops/s, footprint source rss. The
 * base report is an old one: single values (no samples), so a gated metric
 * compares on its change alone. */
static void test_throughput(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.0.time.ops_per_s", 18e6); /* -10% */
    HR_CHECK(run(n, NULL) == 0);                  /* wall-based: not gated by default */
    HR_CHECK(run(n, "throughput=5%") == 1);
    HR_CHECK(run(n, "throughput=15%") == 0);
    HR_CHECK(run(n, "peak=0%") == 0); /* not gated */
    set_num(n, "results.0.time.ops_per_s", 19.4e6); /* -3%: within 5% */
    HR_CHECK(run(n, "throughput=5%") == 0);
    set_num(n, "results.0.time.ops_per_s", 19e6); /* exactly -5%: at the limit */
    HR_CHECK(run(n, "throughput=5%") == 0);
    hr_json_free(n);
}

/* The default ranking figure: warm ns/op, gated at the registry's default. */
static void test_ns_per_op_default(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.0.time.ns_per_op", 60); /* +20%, single values */
    HR_CHECK(run(n, NULL) == 1);
    set_num(n, "results.0.time.ns_per_op", 52); /* +4% */
    HR_CHECK(run(n, NULL) == 0);
    hr_json_free(n);
}

/* results.0's footprint is sampled (source rss): the default gate is the
 * registry's tolerance for sampled sources, not 0%. */
static void test_peak_plus_one_byte(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.0.memory.peak_footprint", 10485761);
    HR_CHECK(run(n, NULL) == 0);          /* default: sampled tolerance */
    HR_CHECK(run(n, "peak=0%") == 1);     /* asked for exactly: single values regress */
    HR_CHECK(run(n, "peak=1%") == 0);
    HR_CHECK(run(n, "throughput=5%") == 0); /* rss source: only gated when asked */
    hr_json_free(n);
}

/* results.1 is stack, footprint_source exact: always gated, exactly by
 * default (one byte), even with samples beside it that overlap. */
static void test_exact_footprint(void) {
    hr_json_t *n = hr_json_clone(base);
    set_num(n, "results.1.memory.peak_footprint", 9437185);
    HR_CHECK(run(n, NULL) == 1);
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

    write_file(n, "{\"schema\": \"heapreplay-report\", \"schema_version\": 3, \"results\": []}");
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
    o.format = HR_CMP_JSON;
    o.max_regress = "throughput=5%";
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
            HR_CHECK(hr_json_path_num(r, "delta_pct") == -50);
            HR_CHECK(hr_json_path(r, "delta %") == NULL);
            HR_CHECK(strstr(hr_json_path_str(r, "reason"), "-50.00% < -5%") != NULL);
        }
    }
    HR_CHECK(found == 1);
    free(buf);
    hr_json_free(doc);
    hr_json_free(n);
}


/* Identical distributions, medians apart by more than the tolerance: the
 * samples overlap, so it is noise, not a regression. */
static void test_noise_overlap(void) {
    const double b[] = {40, 50, 60}, n[] = {45, 58, 70}; /* medians 50 -> 58: +16% */
    char v[32], why[256];
    hr_json_t *bd = hr_json_clone(base), *nd = hr_json_clone(base);
    set_samples(bd, 0, "time.ns_per_op", b, 3);
    set_samples(nd, 0, "time.ns_per_op", n, 3);
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "ns_per_op", v, why) == 0);
    HR_CHECK_STR(v, "noise");
    HR_CHECK(strstr(why, "but samples overlap: new min 45 <= base max 60") != NULL);
    /* without the samples (an old report) the same medians regress */
    HR_CHECK(run_row(base, nd, NULL, "glibc", "ns_per_op", v, why) == 1);
    hr_json_free(bd);
    hr_json_free(nd);
}

/* Separated samples beyond the tolerance regress, with the reason; separated
 * but within the tolerance do not. */
static void test_noise_separated(void) {
    const double b[] = {48, 50, 60}, n[] = {61, 62, 66}, small[] = {52, 53, 54};
    char v[32], why[256];
    hr_json_t *bd = hr_json_clone(base), *nd = hr_json_clone(base);
    set_samples(bd, 0, "time.ns_per_op", b, 3);
    set_samples(nd, 0, "time.ns_per_op", n, 3);
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "ns_per_op", v, why) == 1);
    HR_CHECK_STR(v, "REGRESSION");
    HR_CHECK_STR(why, "+24.00% > 10% and samples separated: new min 61 > base max 60");
    set_samples(bd, 0, "time.ns_per_op", (const double[]){48, 50, 51}, 3);
    set_samples(nd, 0, "time.ns_per_op", small, 3); /* +6%: separated, within 10% */
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "ns_per_op", v, why) == 0);
    HR_CHECK_STR(v, "ok");
    hr_json_free(bd);
    hr_json_free(nd);
}

/* An improvement is called as a regression is: beyond the tolerance and with
 * the samples separated; a small or overlapping gain is "ok". */
static void test_noise_improvement(void) {
    const double b[] = {60, 62, 66}, fast[] = {48, 50, 51}, near[] = {58, 59, 61},
                 mixed[] = {40, 50, 63};
    char v[32], why[256];
    hr_json_t *bd = hr_json_clone(base), *nd = hr_json_clone(base);
    set_samples(bd, 0, "time.ns_per_op", b, 3);
    set_samples(nd, 0, "time.ns_per_op", fast, 3); /* 62 -> 50: -19% */
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "ns_per_op", v, why) == 0);
    HR_CHECK_STR(v, "improved");
    HR_CHECK_STR(why, "-19.35% < -10% and samples separated: new max 51 < base min 60");
    set_samples(nd, 0, "time.ns_per_op", near, 3); /* -4.8%: within the tolerance */
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "ns_per_op", v, why) == 0);
    HR_CHECK_STR(v, "ok");
    set_samples(nd, 0, "time.ns_per_op", mixed, 3); /* -19%, but the samples overlap */
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "ns_per_op", v, why) == 0);
    HR_CHECK_STR(v, "ok");
    hr_json_free(bd);
    hr_json_free(nd);
}

/* Higher is better (throughput): the test is mirrored. */
static void test_noise_higher_better(void) {
    const double b[] = {19e6, 20e6, 21e6}, worse[] = {15e6, 16e6, 17e6},
                 overlap[] = {15e6, 16e6, 19.5e6};
    char v[32], why[256];
    hr_json_t *bd = hr_json_clone(base), *nd = hr_json_clone(base);
    set_samples(bd, 0, "time.ops_per_s", b, 3);
    set_samples(nd, 0, "time.ops_per_s", worse, 3);
    HR_CHECK(run_row(bd, nd, "throughput=5%", "glibc", "throughput", v, why) == 1);
    HR_CHECK(strstr(why, "samples separated: new max 1.7e+07 < base min 1.9e+07") != NULL);
    set_samples(nd, 0, "time.ops_per_s", overlap, 3);
    HR_CHECK(run_row(bd, nd, "throughput=5%", "glibc", "throughput", v, why) == 0);
    HR_CHECK_STR(v, "noise");
    hr_json_free(bd);
    hr_json_free(nd);
}

/* From 5 samples a side a rank test may call a shift that one sample blurs. */
static void test_noise_mann_whitney(void) {
    const double b[] = {50, 51, 52, 53, 54, 55}, one_in[] = {54.5, 60, 61, 62, 63, 64},
                 mixed[] = {50.5, 51.5, 60, 61, 62, 63};
    char v[32], why[256];
    hr_json_t *bd = hr_json_clone(base), *nd = hr_json_clone(base);
    set_samples(bd, 0, "time.ns_per_op", b, 6);
    set_samples(nd, 0, "time.ns_per_op", one_in, 6); /* U = 1: p = 2/924 */
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "ns_per_op", v, why) == 1);
    HR_CHECK(strstr(why, "Mann-Whitney p = 0.0022 < 0.01 (6 vs 6 samples)") != NULL);
    set_samples(nd, 0, "time.ns_per_op", mixed, 6); /* median +15%, U = 9 */
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "ns_per_op", v, why) == 0);
    HR_CHECK_STR(v, "noise");
    hr_json_free(bd);
    hr_json_free(nd);
}

/* An external allocator's footprint is sampled: within the sampled tolerance
 * it passes even when the samples are separated; beyond it they decide. */
static void test_sampled_footprint(void) {
    const double b[] = {9e6, 10e6, 11e6}, within[] = {11.5e6, 11.9e6, 12.2e6},
                 beyond[] = {14e6, 14.5e6, 15e6};
    char v[32], why[256];
    hr_json_t *bd = hr_json_clone(base), *nd = hr_json_clone(base);
    set_samples(bd, 0, "memory.peak_footprint", b, 3);
    set_samples(nd, 0, "memory.peak_footprint", within, 3); /* +19% < 25% */
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "peak", v, why) == 0);
    HR_CHECK_STR(v, "ok");
    set_samples(nd, 0, "memory.peak_footprint", beyond, 3); /* +45% */
    HR_CHECK(run_row(bd, nd, NULL, "glibc", "peak", v, why) == 1);
    HR_CHECK_STR(v, "REGRESSION");
    HR_CHECK(strstr(why, "> 25% and samples separated") != NULL);
    hr_json_free(bd);
    hr_json_free(nd);
}

/* An old report (wall_s with _min/_max, no samples): the ranges stand in for
 * the samples, also against a new report that has samples. */
static void test_old_format(void) {
    char v[32], why[256];
    hr_json_t *nd = hr_json_clone(base);
    set_num(nd, "results.0.time.wall_s", 0.06); /* +20%; base range 0.048..0.055 */
    set_num(nd, "results.0.time.wall_s_min", 0.054);
    set_num(nd, "results.0.time.wall_s_max", 0.07);
    HR_CHECK(run_row(base, nd, "wall=5%", "glibc", "wall", v, why) == 0);
    HR_CHECK_STR(v, "noise");
    set_num(nd, "results.0.time.wall_s_min", 0.056);
    HR_CHECK(run_row(base, nd, "wall=5%", "glibc", "wall", v, why) == 1);
    HR_CHECK(strstr(why, "new min 0.056 > base max 0.055") != NULL);
    set_samples(nd, 0, "time.wall_s", (const double[]){0.057, 0.06, 0.062}, 3);
    HR_CHECK(run_row(base, nd, "wall=5%", "glibc", "wall", v, why) == 1);
    set_samples(nd, 0, "time.wall_s", (const double[]){0.05, 0.06, 0.062}, 3);
    HR_CHECK(run_row(base, nd, "wall=5%", "glibc", "wall", v, why) == 0);
    hr_json_free(nd);
}

/* The summary and the rank test on known values. */
/* A report of 4 allocators x 2 traces whose ns/op samples are base[k] times
 * `f`, and `slow` times more for allocator "d" on trace "t0". */
static hr_json_t *drift_doc(double f, double slow) {
    static const char *const allocs[] = {"a", "b", "c", "d"};
    char buf[8192];
    size_t at = (size_t)snprintf(buf, sizeof buf,
                                 "{\"schema\":\"heapreplay-report\",\"schema_version\":1,\"results\":[");
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 4; k++) {
            double m = (10 + 7 * k + t) * f * (k == 3 && t == 0 ? slow : 1);
            at += (size_t)snprintf(buf + at, sizeof buf - at,
                                   "%s{\"trace\":\"t%d.hrt\",\"allocator\":\"%s\",\"status\":\"ok\","
                                   "\"runs\":3,\"time\":{\"ns_per_op\":%g},\"samples\":"
                                   "{\"time.ns_per_op\":[%g,%g,%g]}}",
                                   t || k ? "," : "", t, allocs[k], m, m * 0.98, m, m * 1.02);
        }
    snprintf(buf + at, sizeof buf - at, "]}");
    return hr_json_parse(buf, strlen(buf), "drift doc", NULL);
}

/* Every row 30% slower (the host): no regression once the common drift is
 * divided out, 8 without; one allocator 25% slower on top of it: that row. */
static void test_host_drift(void) {
    hr_json_t *b = drift_doc(1, 1), *all = drift_doc(1.3, 1), *one = drift_doc(1.3, 1.25);
    char v[32], why[256];
    HR_CHECK(b && all && one);
    HR_CHECK(run_row(b, all, "ns_per_op=10%", "d", "ns_per_op", v, why) == 0);
    HR_CHECK(strcmp(v, "ok") == 0 || strcmp(v, "improved") == 0); /* +-1 ulp of 1.3 */
    hr_compare_options_t o = hr_compare_options_default();
    o.max_regress = "ns_per_op=10%";
    o.drift = 0;
    FILE *devnull = fopen("/dev/null", "w");
    HR_CHECK(hr_compare_reports(b, "b", all, "n", &o, devnull) == 1);
    fclose(devnull);
    HR_CHECK(run_row(b, one, "ns_per_op=10%", "d", "ns_per_op", v, why) == 1);
    HR_CHECK_STR(v, "REGRESSION");
    HR_CHECK(strstr(why, "host drift 1.300") != NULL);
    hr_json_free(b);
    hr_json_free(all);
    hr_json_free(one);
}

static void test_stats(void) {
    double v[] = {3, 1, NAN, 10, 2};
    hr_stats_t s = hr_stats_of(v, 5);
    HR_CHECK(s.n == 4 && s.median == 2.5 && s.min == 1 && s.max == 10);
    HR_CHECK(s.mad == 1); /* deviations 1.5 0.5 0.5 7.5 -> median 1 */
    const double lo[] = {1, 2, 3}, hi[] = {4, 5, 6}, lo5[] = {1, 2, 3, 4, 5}, hi5[] = {6, 7, 8, 9, 10};
    HR_CHECK(fabs(hr_stats_mw_p_greater(lo, 3, hi, 3) - 1.0 / 20) < 1e-12);
    HR_CHECK(fabs(hr_stats_mw_p_greater(lo5, 5, hi5, 5) - 1.0 / 252) < 1e-12);
    HR_CHECK(hr_stats_mw_p_greater(hi, 3, lo, 3) == 1); /* the other direction */
    HR_CHECK(isnan(hr_stats_mw_p_greater(lo, 0, hi, 3)));
}

int main(void) {
    base = load_base();
    if (!base || !mkdtemp(tmpdir)) {
        printf("Bail out! cannot load base.json or make a temp dir\n");
        return 1;
    }
    HR_RUN(test_identical);
    HR_RUN(test_throughput);
    HR_RUN(test_ns_per_op_default);
    HR_RUN(test_peak_plus_one_byte);
    HR_RUN(test_exact_footprint);
    HR_RUN(test_improvement);
    HR_RUN(test_missing_and_status);
    HR_RUN(test_deterministic_mismatch);
    HR_RUN(test_match_by_digest);
    HR_RUN(test_thresholds_parse);
    HR_RUN(test_bad_input);
    HR_RUN(test_json_output);
    HR_RUN(test_noise_overlap);
    HR_RUN(test_noise_separated);
    HR_RUN(test_noise_improvement);
    HR_RUN(test_host_drift);
    HR_RUN(test_noise_higher_better);
    HR_RUN(test_noise_mann_whitney);
    HR_RUN(test_sampled_footprint);
    HR_RUN(test_old_format);
    HR_RUN(test_stats);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    hr_json_free(base);
    return hr_test_done();
}
