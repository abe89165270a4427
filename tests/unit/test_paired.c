/* The paired A/B of replay --pair (report/paired.h): the signed-rank
 * interval's rank and confidence against the published critical values, and
 * the verdicts on reports built in memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hr_test.h"
#include "base/metrics.h"
#include "base/signrank.h"
#include "report/paired.h"

/* Two-sided 5 % critical values of the signed-rank statistic (the largest T
 * that rejects): n = 6: 0, 8: 3, 10: 8, 20: 52; so k = T + 1. */
static void test_rank_k(void) {
    double conf = 0;
    HR_CHECK_EQ_I64(hr_signrank_k(5, &conf), 0);
    HR_CHECK(isnan(conf));
    HR_CHECK_EQ_I64(hr_signrank_k(6, &conf), 1);
    HR_CHECK(fabs(conf - (1 - 2.0 / 64)) < 1e-12);
    HR_CHECK_EQ_I64(hr_signrank_k(8, &conf), 4);
    HR_CHECK_EQ_I64(hr_signrank_k(10, &conf), 9);
    HR_CHECK(fabs(conf - (1 - 2 * 25.0 / 1024)) < 1e-12); /* P(T <= 8) = 25/1024 */
    HR_CHECK_EQ_I64(hr_signrank_k(20, &conf), 53);
    HR_CHECK(conf >= 0.95 && conf < 0.96);
    HR_CHECK(hr_signrank_k(64, &conf) > 0 && conf >= 0.95);
}

/* The estimate and interval: the Walsh averages of 1..6 (21 of them) have
 * median 3.5 and, with k = 1, the interval [1, 6]; a shift moves all three;
 * 5 values give the estimate without an interval. */
static void test_hl(void) {
    double x[8] = {6, 1, 5, 2, 4, 3}, est, lo, hi, conf;
    HR_CHECK_EQ_I64(hr_signrank_hl(x, 6, &est, &lo, &hi, &conf), 0);
    HR_CHECK(est == 3.5 && lo == 1 && hi == 6 && fabs(conf - (1 - 2.0 / 64)) < 1e-12);
    HR_CHECK(x[0] == 6 && x[1] == 1); /* not sorted in place */
    for (int i = 0; i < 6; i++)
        x[i] += 10;
    HR_CHECK_EQ_I64(hr_signrank_hl(x, 6, &est, &lo, &hi, &conf), 0);
    HR_CHECK(est == 13.5 && lo == 11 && hi == 16);
    HR_CHECK_EQ_I64(hr_signrank_hl(x, 5, &est, &lo, &hi, &conf), -1);
    HR_CHECK(est == 13.5 && isnan(lo) && isnan(hi) && isnan(conf)); /* 16 11 15 12 14 */
    HR_CHECK_EQ_I64(hr_signrank_hl(x, 0, &est, &lo, &hi, &conf), -1);
    HR_CHECK(isnan(est));
    /* 8 values, k = 4: an outlier moves the estimate a little and the upper end
     * to halfway, never to itself */
    double y[8] = {1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98, 9.0};
    HR_CHECK_EQ_I64(hr_signrank_hl(y, 8, &est, &lo, &hi, &conf), 0);
    HR_CHECK(lo >= 0.9 && est > 0.99 && est < 1.1 && hi < 9);
}

/* A report of trace "t" with rows a and b whose warm ns/op samples are
 * base[i] and base[i] * f[i] (nb of them for b). */
static hr_json_t *report(int na, int nb, const double *f) {
    static const double base[] = {100, 104, 98, 101, 99, 103, 97, 102, 100, 105, 96, 101};
    char text[4096], sa[512] = "", sb[512] = "";
    for (int i = 0; i < na; i++)
        snprintf(sa + strlen(sa), sizeof sa - strlen(sa), "%s%g", i ? "," : "", base[i]);
    for (int i = 0; i < nb; i++)
        snprintf(sb + strlen(sb), sizeof sb - strlen(sb), "%s%g", i ? "," : "", base[i] * f[i]);
    const char *p = hr_metrics[HR_M_NS_PER_OP].path;
    snprintf(text, sizeof text,
             "{\"schema\": \"heapreplay-report\", \"schema_version\": 2, \"results\": ["
             "{\"trace\": \"t\", \"allocator\": \"a\", \"status\": \"ok\", \"runs\": %d,"
             " \"samples\": {\"%s\": [%s]}},"
             "{\"trace\": \"t\", \"allocator\": \"b\", \"status\": \"ok\", \"runs\": %d,"
             " \"samples\": {\"%s\": [%s]}}]}",
             na, p, sa, nb, p, sb);
    return hr_json_parse(text, strlen(text), "test report", NULL);
}

static const char *verdict(const hr_json_t *sec) {
    return hr_json_path_str(sec, "traces.0.figures.0.verdict");
}

static void test_verdicts(void) {
    double slow[12], same[12], fast[12], noisy[12];
    for (int i = 0; i < 12; i++) {
        slow[i] = 1.10 + (i % 3 - 1) * 0.01;
        same[i] = 1 + (i % 2 ? 0.02 : -0.02);
        fast[i] = 0.8;
        noisy[i] = i % 2 ? 1.3 : 0.95; /* large but not consistent */
    }
    hr_error_t err = {{0}};
    struct {
        int na, nb;
        const double *f;
        const char *want;
        int regressions;
    } cases[] = {
        {10, 10, slow, "REGRESSION", 1}, {10, 10, same, "ok", 0},
        {10, 10, fast, "improved", 0},   {10, 10, noisy, "ok", 0},
        {5, 5, slow, "too few pairs", 0}, {10, 9, slow, "unpaired (a sample failed)", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        hr_json_t *doc = report(cases[c].na, cases[c].nb, cases[c].f);
        hr_json_t *sec = doc ? hr_paired_section(doc, "a", "b", 3, &err) : NULL;
        HR_CHECK(sec != NULL);
        if (sec) {
            HR_CHECK_STR(verdict(sec), cases[c].want);
            HR_CHECK_EQ_I64(hr_paired_regressions(sec), cases[c].regressions);
        }
        hr_json_free(sec);
        hr_json_free(doc);
    }
    hr_json_t *doc = report(10, 10, slow);
    HR_CHECK(hr_paired_section(doc, "a", "nope", 3, &err) == NULL);
    HR_CHECK(strstr(err.msg, "no trace has a row of both a and nope") != NULL);
    hr_json_t *sec = hr_paired_section(doc, "a", "b", 3, &err);
    double r = hr_json_path_num(sec, "traces.0.figures.0.ratio");
    HR_CHECK(r > 1.09 && r < 1.11);
    HR_CHECK(hr_json_path_num(sec, "traces.0.figures.0.lo") > 1);
    HR_CHECK(hr_json_len(hr_json_path(sec, "traces.0.figures.0.ratios")) == 10);
    hr_json_free(sec);
    hr_json_free(doc);
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_rank_k);
    HR_RUN(test_hl);
    HR_RUN(test_verdicts);
    return hr_test_done();
}
