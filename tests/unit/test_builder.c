/* The report builder's merge of repeats (hr_results_merge): the robust
 * summary of every ranged metric (median, _min, _max, _mad), the samples it
 * keeps, and the "unstable" flag, on result lines built by hand. */
#include <math.h>
#include <stdlib.h>

#include "hr_test.h"
#include "report/builder.h"
#include "report/report.h"

/* One repeat's result as a replay child sends it. */
static hr_json_t *sample(double ns_per_op, double wall, unsigned long footprint,
                         const char *fp_source) {
    char line[768];
    hr_error_t err;
    snprintf(line, sizeof line,
             "{\"trace\":\"t.hrt\",\"allocator\":\"a\",\"status\":\"ok\",\"runs\":1,"
             "\"ops\":{\"total\":100},"
             "\"time\":{\"wall_s\":%.17g,\"cpu_s\":%.17g,\"ns_per_op\":%.17g,"
             "\"cold_ns_per_op\":%.17g},"
             "\"memory\":{\"peak_live\":64,\"peak_footprint\":%lu,\"footprint_source\":\"%s\","
             "\"peak_rss_above_baseline\":4096}}",
             wall, wall, ns_per_op, ns_per_op * 2, footprint, fp_source);
    hr_json_t *v = hr_json_parse(line, strlen(line), "sample", &err);
    if (!v)
        printf("# %s\n", err.msg);
    return v;
}

/* Merges n repeats with the given ns/op values (wall: ns/op / 1e9 * 100). */
static hr_json_t *merge(const double *ns, int n, const unsigned long *fp, const char *src) {
    hr_json_t *runs[8];
    for (int i = 0; i < n; i++)
        runs[i] = sample(ns[i], ns[i] * 100 / 1e9, fp ? fp[i] : 1000, src);
    hr_json_t *out = hr_results_merge(runs, n);
    for (int i = 0; i < n; i++)
        hr_json_free(runs[i]);
    return out;
}

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1, fabs(b)); }

static void test_summary(void) {
    const double ns[] = {12, 10, 11, 30, 10.5}; /* one outlier */
    hr_json_t *r = merge(ns, 5, NULL, "exact");
    HR_CHECK(hr_json_path_num(r, "runs") == 5);
    HR_CHECK(hr_json_path_num(r, "time.ns_per_op") == 11);
    HR_CHECK(hr_json_path_num(r, "time.ns_per_op_min") == 10);
    HR_CHECK(hr_json_path_num(r, "time.ns_per_op_max") == 30);
    /* |x - 11| = 1 1 0 19 0.5 -> sorted 0 0.5 1 1 19 -> MAD 1 */
    HR_CHECK(hr_json_path_num(r, "time.ns_per_op_mad") == 1);
    /* every RANGE metric gets the summary, generically (the cold ns/op too) */
    HR_CHECK(hr_json_path_num(r, "time.cold_ns_per_op") == 22);
    HR_CHECK(hr_json_path_num(r, "time.cold_ns_per_op_mad") == 2);
    HR_CHECK(near(hr_json_path_num(r, "time.wall_s_max"), 30 * 100 / 1e9));
    HR_CHECK(!isnan(hr_json_path_num(r, "time.cpu_s_min")));
    hr_json_free(r);
}

/* Samples in repeat order; a sampled (external) footprint keeps its samples,
 * an exact (in-house) one does not need them. */
static void test_samples(void) {
    const double ns[] = {12, 10, 11};
    const unsigned long fp[] = {5000, 7000, 6000};
    hr_json_t *r = merge(ns, 3, fp, "jemalloc");
    const hr_json_t *s = hr_json_get(r, "samples");
    const hr_json_t *a = hr_json_get(s, "time.ns_per_op");
    HR_CHECK(hr_json_len(a) == 3);
    HR_CHECK(hr_json_num(hr_json_at(a, 0), 0) == 12 && hr_json_num(hr_json_at(a, 1), 0) == 10 &&
             hr_json_num(hr_json_at(a, 2), 0) == 11);
    a = hr_json_get(s, "memory.peak_footprint");
    HR_CHECK(hr_json_len(a) == 3 && hr_json_num(hr_json_at(a, 1), 0) == 7000);
    HR_CHECK(hr_json_get(s, "memory.peak_rss_above_baseline") != NULL); /* a measurement */
    HR_CHECK(hr_json_get(s, "time.cold_ns_per_op") != NULL);
    HR_CHECK(hr_json_get(s, "memory.peak_live") == NULL); /* the trace decides it */
    hr_json_free(r);
    r = merge(ns, 3, fp, "exact");
    HR_CHECK(hr_json_get(hr_json_get(r, "samples"), "memory.peak_footprint") == NULL);
    HR_CHECK(hr_json_is_true(hr_json_get(r, "deterministic")) == 0); /* exact must agree */
    hr_json_free(r);
}

static int unstable(const double *ns, int n) {
    hr_json_t *r = merge(ns, n, NULL, "exact");
    const hr_json_t *u = hr_json_get(r, "unstable");
    int v = hr_json_type(u) == HR_JSON_BOOL ? u->boolean : -1;
    hr_json_free(r);
    return v;
}

static void test_unstable(void) {
    HR_CHECK(unstable((const double[]){100, 101, 99, 100.5, 99.5}, 5) == 0);
    HR_CHECK(unstable((const double[]){100, 110, 90}, 3) == 1);    /* MAD 10% */
    HR_CHECK(unstable((const double[]){100, 101, 99, 100, 140}, 5) == 1); /* range 41% */
    HR_CHECK(unstable((const double[]){100, 104, 96, 100, 120}, 5) == 0); /* MAD 4%, range 24% */
    HR_CHECK(unstable((const double[]){100, 104, 96, 100, 122}, 5) == 1); /* range 26% */
    HR_CHECK(unstable((const double[]){100, 200}, 2) == 0); /* too few samples to tell */
}

/* A report of merged results rendered in `fmt` (malloc'd). */
static char *render(hr_json_t *const *results, int n, hr_emit_format_t fmt) {
    hr_json_t *doc = hr_report_new("test"), *arr = hr_json_new_array();
    char *buf = NULL;
    size_t len = 0;
    for (int i = 0; i < n; i++)
        hr_json_push(arr, results[i]);
    hr_json_set(doc, "results", arr);
    FILE *f = open_memstream(&buf, &len);
    hr_render_opts_t o = hr_render_opts_default();
    o.detail = 1; /* the full table: every metric with its spread */
    hr_report_render_opts(doc, fmt, &o, f);
    fclose(f);
    hr_json_free(doc);
    return buf;
}

/* The table shows the ranking figure with its spread and marks an unstable
 * one; the CSV carries min/max columns but not the raw samples. */
static void test_rendered(void) {
    hr_json_t *r[2] = {merge((const double[]){100, 110, 90}, 3, NULL, "exact"),
                       merge((const double[]){50, 50.5, 49.5}, 3, NULL, "exact")};
    hr_json_set(r[1], "allocator", hr_json_new_str("b"));
    char *text = render(r, 2, HR_EMIT_TEXT);
    HR_CHECK(strstr(text, "~100.0 ±10.0%") != NULL);
    HR_CHECK(strstr(text, " 50.0 ±1.0%") != NULL && strstr(text, "~50.0") == NULL);
    HR_CHECK(strstr(text, "~ unstable: ") != NULL);
    free(text);
    r[0] = merge((const double[]){100, 110, 90}, 3, NULL, "exact");
    r[1] = merge((const double[]){50, 50.5, 49.5}, 3, NULL, "exact");
    char *csv = render(r, 2, HR_EMIT_CSV);
    HR_CHECK(strstr(csv, ",time.ns_per_op,time.ns_per_op_min,time.ns_per_op_max,") != NULL);
    HR_CHECK(strstr(csv, "time.ns_per_op_mad") != NULL);
    HR_CHECK(strstr(csv, "samples.time") == NULL && strstr(csv, "[100") == NULL);
    free(csv);
}

int main(void) {
    HR_RUN(test_summary);
    HR_RUN(test_samples);
    HR_RUN(test_unstable);
    HR_RUN(test_rendered);
    return hr_test_done();
}
