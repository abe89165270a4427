/* The predicted change of the program's run time (src/report/predict.c,
 * docs/METRICS.md): exact numbers on a hand-made report
 * (tests/data/reports/predict.json) and its rendering in every format
 * against tests/expected/report_predict.* (HR_UPDATE_EXPECTED=1 rewrites
 * them after an intended change). */
#include "golden.h"
#include "hr_test.h"
#include "report/predict.h"
#include "report/report.h"

#include <math.h>

/* The fixture with predict computed. */
static hr_json_t *load(void) {
    char path[1024];
    hr_error_t err;
    snprintf(path, sizeof path, "%s/tests/data/reports/predict.json", srcdir());
    hr_json_t *rep = hr_report_load(path, &err);
    if (!rep)
        printf("# %s\n", err.msg);
    else
        hr_report_predict(rep);
    return rep;
}

static const hr_json_t *row(const hr_json_t *rep, int i) {
    return hr_json_at(hr_json_get(rep, "results"), (size_t)i);
}

#define NEAR(a, b) (fabs((a) - (b)) < 1e-12)

static void test_noise(void) {
    HR_CHECK(NEAR(hr_predict_noise(0.05, 5), 1.96 * sqrt(2.0) * 0.05 / 2.326));
    HR_CHECK(NEAR(hr_predict_noise(1, 2), 1.96 * sqrt(2.0) / 1.128));
    HR_CHECK(NEAR(hr_predict_noise(1, 50), 1.96 * sqrt(2.0) / 3.735));
    HR_CHECK(isnan(hr_predict_noise(1, 1)));
    HR_CHECK(isnan(hr_predict_noise(1, 0)));
}

static void test_numbers(void) {
    hr_json_t *rep = load();
    HR_CHECK(rep != NULL);
    if (!rep)
        return;
    double w = 1.96 * sqrt(2.0) * 0.05 / 2.326; /* program CPU 3.47 .. 3.52 s over 5 runs */
    const hr_json_t *g = row(rep, 0), *je = row(rep, 1), *tc = row(rep, 2);
    HR_CHECK(NEAR(hr_json_path_num(g, "predict.alloc_s"), 0.5));
    HR_CHECK(hr_json_path_num(g, "predict.change_s") == 0);
    HR_CHECK(NEAR(hr_json_path_num(g, "predict.interval_s_hi"), w));
    HR_CHECK(hr_json_is_true(hr_json_get(hr_json_get(g, "predict"), "within_noise")));
    /* paired: differences -0.2, -0.19, -0.19 */
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.change_s"), -0.19));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.change_pct"), -0.19 / 3.5 * 100));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.interval_s_lo"), -0.2 - w));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.interval_s_hi"), -0.19 + w));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.noise_s"), w));
    HR_CHECK(hr_json_is_true(hr_json_get(hr_json_get(je, "predict"), "paired")));
    HR_CHECK(!hr_json_is_true(hr_json_get(hr_json_get(je, "predict"), "within_noise")));
    /* max RSS: jemalloc's peak RSS 47.5 MiB against glibc's 50 MiB; none without one */
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.rss_change_bytes"), -2.5 * 1048576));
    HR_CHECK(hr_json_path_num(g, "predict.rss_change_bytes") == 0);
    HR_CHECK(isnan(hr_json_path_num(tc, "predict.rss_change_bytes")));
    /* 2 samples against 3: medians, and the ranges' extremes */
    HR_CHECK(NEAR(hr_json_path_num(tc, "predict.change_s"), 0.46 - 0.5));
    HR_CHECK(NEAR(hr_json_path_num(tc, "predict.interval_s_lo"), 0.45 - 0.52 - w));
    HR_CHECK(NEAR(hr_json_path_num(tc, "predict.interval_s_hi"), 0.47 - 0.48 + w));
    HR_CHECK(!hr_json_is_true(hr_json_get(hr_json_get(tc, "predict"), "paired")));
    HR_CHECK(hr_json_is_true(hr_json_get(hr_json_get(tc, "predict"), "within_noise")));
    /* absent: no allocator time, not ok, no glibc row (a stale one removed) */
    HR_CHECK(hr_json_get(row(rep, 3), "predict") == NULL);
    HR_CHECK(hr_json_get(row(rep, 4), "predict") == NULL);
    HR_CHECK(hr_json_get(row(rep, 5), "predict") == NULL);
    /* one captured run: noise unknown, the interval is the replay's alone */
    const hr_json_t *mi = row(rep, 7);
    HR_CHECK(NEAR(hr_json_path_num(mi, "predict.change_s"), 0.12 - 0.1));
    HR_CHECK(NEAR(hr_json_path_num(mi, "predict.change_pct"), (0.12 - 0.1) / 2 * 100));
    HR_CHECK(hr_json_get(hr_json_get(mi, "predict"), "noise_s") == NULL);
    HR_CHECK(!hr_json_is_true(hr_json_get(hr_json_get(mi, "predict"), "within_noise")));
    /* a second call (merge) gives the same document */
    char *once = hr_json_to_string(rep, 1);
    hr_report_predict(rep);
    char *twice = hr_json_to_string(rep, 1);
    HR_CHECK_STR(once, twice);
    free(once);
    free(twice);
    hr_json_free(rep);
}

static void check_render(hr_emit_format_t fmt, const char *expected) {
    hr_json_t *rep = load();
    HR_CHECK(rep != NULL);
    if (!rep)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    HR_CHECK(hr_report_render(rep, fmt, f) == 0);
    fclose(f);
    HR_CHECK(matches_expected(expected, buf));
    if (fmt == HR_EMIT_CSV) /* the flattened columns of both objects */
        HR_CHECK(strstr(buf, "predict.change_s") && strstr(buf, "program.cpu_s_max") &&
                 strstr(buf, "predict.within_noise"));
    free(buf);
    hr_json_free(rep);
}

static void test_render_text(void) { check_render(HR_EMIT_TEXT, "report_predict.txt"); }
static void test_render_md(void) { check_render(HR_EMIT_MARKDOWN, "report_predict.md"); }
static void test_render_json(void) { check_render(HR_EMIT_JSON, "report_predict.json"); }
static void test_render_csv(void) { check_render(HR_EMIT_CSV, "report_predict.csv"); }

int main(void) {
    HR_RUN(test_noise);
    HR_RUN(test_numbers);
    HR_RUN(test_render_text);
    HR_RUN(test_render_md);
    HR_RUN(test_render_json);
    HR_RUN(test_render_csv);
    return hr_test_done();
}
