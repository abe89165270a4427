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

/* A program record of `runs` runs with CPU range `range` and MAD `mad`. */
static hr_result_program_t prog_of(double runs, double range, double mad) {
    hr_result_program_t p = {1, 1.0, 1.0, 1.0 + range, 1.0, 0, runs, mad, NAN, NAN, NAN, NAN, "plain"};
    return p;
}

static void test_noise(void) {
    const char *basis = NULL;
    hr_result_program_t p = prog_of(5, 0.05, 0.01);
    /* robust: 1.4826 x MAD, whatever one slow run did to the range */
    HR_CHECK(NEAR(hr_predict_noise(&p, &basis), 1.96 * sqrt(2.0) * 1.4826 * 0.01));
    HR_CHECK_STR(basis, "mad");
    p = prog_of(5, 5.0, 0.01);
    HR_CHECK(NEAR(hr_predict_noise(&p, NULL), 1.96 * sqrt(2.0) * 1.4826 * 0.01));
    /* no noise record (older trace) or a MAD of 0: range / d2 */
    p = prog_of(5, 0.05, NAN);
    HR_CHECK(NEAR(hr_predict_noise(&p, &basis), 1.96 * sqrt(2.0) * 0.05 / 2.326));
    HR_CHECK_STR(basis, "range");
    p = prog_of(2, 1, 0);
    HR_CHECK(NEAR(hr_predict_noise(&p, NULL), 1.96 * sqrt(2.0) / 1.128));
    p = prog_of(50, 1, NAN);
    HR_CHECK(NEAR(hr_predict_noise(&p, NULL), 1.96 * sqrt(2.0) / 3.735));
    p = prog_of(1, 0, NAN);
    HR_CHECK(isnan(hr_predict_noise(&p, &basis)));
    HR_CHECK(basis == NULL);
    /* runs to see: (noise / change)^2 rounded up, at least 1 */
    HR_CHECK(hr_predict_runs_to_see(-0.2, 0.1) == 1);
    HR_CHECK(hr_predict_runs_to_see(0.05, 0.1) == 4);
    HR_CHECK(hr_predict_runs_to_see(0.03, 0.1) == 12);
    HR_CHECK(hr_predict_runs_to_see(0, 0.1) == 1e9);
    HR_CHECK(isnan(hr_predict_runs_to_see(0.1, NAN)));
    /* the model's error: a share of the baseline's allocator time; its
     * factors scale a range away from 0 on the far side, toward 0 on the
     * near one, and a range holding 0 on both sides */
    HR_CHECK(NEAR(hr_predict_model_error(0.5), HR_PREDICT_MODEL_ALLOC * 0.5));
    HR_CHECK(hr_predict_model_error(NAN) == 0); /* no baseline time: no error term */
    double slo, shi;
    hr_predict_scaled(-0.2, -0.1, &slo, &shi);
    HR_CHECK(NEAR(slo, -0.2 * HR_PREDICT_SCALE_HI) && NEAR(shi, -0.1 * HR_PREDICT_SCALE_LO));
    hr_predict_scaled(0.1, 0.3, &slo, &shi);
    HR_CHECK(NEAR(slo, 0.1 * HR_PREDICT_SCALE_LO) && NEAR(shi, 0.3 * HR_PREDICT_SCALE_HI));
    hr_predict_scaled(-0.1, 0.3, &slo, &shi);
    HR_CHECK(NEAR(slo, -0.1 * HR_PREDICT_SCALE_HI) && NEAR(shi, 0.3 * HR_PREDICT_SCALE_HI));
    /* loaded: the larger load average above cpus / 2 + 1 */
    p.cpus = 2;
    p.load_before = 2.0;
    p.load_after = 1.5;
    HR_CHECK(!hr_predict_loaded(&p));
    p.load_after = 2.01;
    HR_CHECK(hr_predict_loaded(&p));
    p.cpus = NAN; /* no noise record */
    HR_CHECK(!hr_predict_loaded(&p));
}

static const char *str_at(const hr_json_t *r, const char *key) {
    return hr_json_str(hr_json_get(hr_json_get(r, "predict"), key));
}

static void test_numbers(void) {
    hr_json_t *rep = load();
    HR_CHECK(rep != NULL);
    if (!rep)
        return;
    /* program CPU 3.5 s, MAD 10 ms over 5 runs */
    double w = 1.96 * sqrt(2.0) * 1.4826 * 0.01;
    double m = HR_PREDICT_MODEL_ALLOC * 0.5; /* glibc's allocator time: 0.5 s */
    const hr_json_t *g = row(rep, 0), *je = row(rep, 1), *tc = row(rep, 2);
    HR_CHECK(NEAR(hr_json_path_num(g, "predict.alloc_s"), 0.5));
    HR_CHECK(hr_json_path_num(g, "predict.change_s") == 0);
    HR_CHECK(NEAR(hr_json_path_num(g, "predict.interval_s_hi"), m));
    HR_CHECK_STR(str_at(g, "real"), "none");
    /* paired: differences -0.2, -0.19, -0.19; scaled, then the model's
     * error on each side */
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.change_s"), -0.19));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.change_pct"), -0.19 / 3.5 * 100));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.replay_s_lo"), -0.2));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.replay_s_hi"), -0.19));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.model_error_s"), m));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.interval_s_lo"), -0.2 * HR_PREDICT_SCALE_HI - m));
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.interval_s_hi"), -0.19 * HR_PREDICT_SCALE_LO + m));
    HR_CHECK_STR(str_at(je, "real"), "saving");
    /* (b): the program's noise, and one run shows -190 ms beyond +/-41 ms */
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.noise_s"), w));
    HR_CHECK_STR(str_at(je, "noise_basis"), "mad");
    HR_CHECK(hr_json_path_num(je, "predict.runs_to_see") == 1);
    HR_CHECK(hr_json_is_true(hr_json_get(hr_json_get(je, "predict"), "paired")));
    /* max RSS: jemalloc's peak RSS 47.5 MiB against glibc's 50 MiB; none without one */
    HR_CHECK(NEAR(hr_json_path_num(je, "predict.rss_change_bytes"), -2.5 * 1048576));
    HR_CHECK(hr_json_path_num(g, "predict.rss_change_bytes") == 0);
    HR_CHECK(isnan(hr_json_path_num(tc, "predict.rss_change_bytes")));
    /* 2 samples against 3: medians, and the ranges' extremes */
    HR_CHECK(NEAR(hr_json_path_num(tc, "predict.change_s"), 0.46 - 0.5));
    HR_CHECK(NEAR(hr_json_path_num(tc, "predict.interval_s_lo"),
                  (0.45 - 0.52) * HR_PREDICT_SCALE_HI - m));
    HR_CHECK(NEAR(hr_json_path_num(tc, "predict.interval_s_hi"),
                  (0.47 - 0.48) * HR_PREDICT_SCALE_LO + m));
    HR_CHECK(!hr_json_is_true(hr_json_get(hr_json_get(tc, "predict"), "paired")));
    HR_CHECK_STR(str_at(tc, "real"), "none");
    /* -40 ms against +/-41 ms of noise: 2 runs of each */
    HR_CHECK(hr_json_path_num(tc, "predict.runs_to_see") == ceil((w / 0.04) * (w / 0.04)));
    /* absent: no allocator time, not ok, no glibc row (a stale one removed) */
    HR_CHECK(hr_json_get(row(rep, 3), "predict") == NULL);
    HR_CHECK(hr_json_get(row(rep, 4), "predict") == NULL);
    HR_CHECK(hr_json_get(row(rep, 5), "predict") == NULL);
    /* one captured run: noise unknown (no noise_s, no runs_to_see), the
     * interval the replay's and the model's alone */
    const hr_json_t *mi = row(rep, 7);
    double mm = HR_PREDICT_MODEL_ALLOC * 0.1; /* glibc's allocator time there: 0.1 s */
    HR_CHECK(NEAR(hr_json_path_num(mi, "predict.change_s"), 0.12 - 0.1));
    HR_CHECK(NEAR(hr_json_path_num(mi, "predict.change_pct"), (0.12 - 0.1) / 2 * 100));
    HR_CHECK(NEAR(hr_json_path_num(mi, "predict.interval_s_hi"), 0.02 * HR_PREDICT_SCALE_HI + mm));
    HR_CHECK(hr_json_get(hr_json_get(mi, "predict"), "noise_s") == NULL);
    HR_CHECK(hr_json_get(hr_json_get(mi, "predict"), "runs_to_see") == NULL);
    HR_CHECK(NEAR(hr_json_path_num(mi, "predict.interval_s_lo"), 0.02 * HR_PREDICT_SCALE_LO - mm));
    HR_CHECK_STR(str_at(mi, "real"), "cost"); /* +20 ms against glibc's 100 ms: beyond +/-10 ms */
    /* a second call (merge) gives the same document */
    char *once = hr_json_to_string(rep, 1);
    hr_report_predict(rep);
    char *twice = hr_json_to_string(rep, 1);
    HR_CHECK_STR(once, twice);
    free(once);
    free(twice);
    hr_json_free(rep);
}

/* The words of both answers, as the verdict and the table say them. */
static void test_words(void) {
    hr_result_predict_t p = {0};
    char buf[200];
    p.interval_s_lo = -0.33;
    p.interval_s_hi = -0.17;
    p.real = -1;
    p.noise_s = 0.06;
    p.runs_to_see = 1;
    hr_predict_words(buf, sizeof buf, &p);
    HR_CHECK(strstr(buf, "real saving [") == buf);
    HR_CHECK(strstr(buf, "]; one run shows it (program noise +/-60.0 ms)") != NULL);
    p.real = 0;
    p.runs_to_see = 12;
    hr_predict_words(buf, sizeof buf, &p);
    HR_CHECK(strstr(buf, "no real change [") == buf && strstr(buf, "needs ~12 runs"));
    p.real = 1;
    p.runs_to_see = 1e9;
    hr_predict_words(buf, sizeof buf, &p);
    HR_CHECK(strstr(buf, "real cost [") == buf && strstr(buf, "not in 100 runs"));
    p.noise_s = p.runs_to_see = NAN;
    hr_predict_words(buf, sizeof buf, &p);
    HR_CHECK(strstr(buf, "; noise unknown (capture with --time-runs N)") != NULL);
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
    if (fmt == HR_EMIT_CSV) /* the flattened columns of both objects, both answers */
        HR_CHECK(strstr(buf, "predict.change_s") && strstr(buf, "program.cpu_s_max") &&
                 strstr(buf, "predict.real") && strstr(buf, "predict.runs_to_see") &&
                 strstr(buf, "program.load_before"));
    else if (fmt == HR_EMIT_JSON)
        HR_CHECK(strstr(buf, "\"real\": \"saving\"") && strstr(buf, "\"runs_to_see\""));
    else /* both answers in words; the captured trace's noise is unknown */
        HR_CHECK(strstr(buf, "real saving") && strstr(buf, "one run shows it") &&
                 strstr(buf, "no real change") && strstr(buf, "noise unknown"));
    free(buf);
    hr_json_free(rep);
}

static void test_render_text(void) { check_render(HR_EMIT_TEXT, "report_predict.txt"); }
static void test_render_md(void) { check_render(HR_EMIT_MARKDOWN, "report_predict.md"); }
static void test_render_json(void) { check_render(HR_EMIT_JSON, "report_predict.json"); }
static void test_render_csv(void) { check_render(HR_EMIT_CSV, "report_predict.csv"); }
static void test_render_html(void) { check_render(HR_EMIT_HTML, "report_predict.html"); }

int main(void) {
    HR_RUN(test_noise);
    HR_RUN(test_numbers);
    HR_RUN(test_words);
    HR_RUN(test_render_text);
    HR_RUN(test_render_md);
    HR_RUN(test_render_json);
    HR_RUN(test_render_csv);
    HR_RUN(test_render_html);
    return hr_test_done();
}
