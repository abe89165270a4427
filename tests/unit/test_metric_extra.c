/* One line in the metric registry is all a new metric needs.
 *
 * This program is built with tests/unit/metric_extra.h forced in front of every
 * source (Makefile: -include), which appends one entry, "extra.dummy_bytes"
 * (alias "dummy", bytes, median over repeats, a CSV column, plottable, gated
 * at 10 % by default, a table column "dummy"), to HR_METRIC_LIST. Its own
 * copies of the registry, the report builder, the renderer, compare and the
 * SVG charts are compiled with it; nothing else changes. The test then sees
 * the metric merged (JSON), shown (text table, CSV), gated (compare) and
 * plotted with its unit (SVG, plot help). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "hr_test.h"
#include "report/builder.h"
#include "report/compare.h"
#include "report/report.h"
#include "report/chart.h"

#ifndef HR_TEST_METRIC_EXTRA
#error "build with -include tests/unit/metric_extra.h"
#endif

/* A result line as a replay child sends it, with the dummy metric. */
static char *result_line(const char *alloc, unsigned dummy) {
    char *s = malloc(512);
    snprintf(s, 512,
             "{\"trace\":\"t.hrt\",\"allocator\":\"%s\",\"status\":\"ok\",\"runs\":1,"
             "\"ops\":{\"total\":10},\"time\":{\"wall_s\":1e-6},"
             "\"memory\":{\"peak_live\":64,\"footprint_source\":\"rss\"},"
             "\"extra\":{\"dummy_bytes\":%u}}",
             alloc, dummy);
    return s;
}

/* A report of one result merged from three repeats. */
static hr_json_t *report_with(unsigned a, unsigned b, unsigned c) {
    char *lines[3] = {result_line("glibc", a), result_line("glibc", b), result_line("glibc", c)};
    hr_replay_options_t opt = hr_replay_options_default();
    hr_report_builder_t *rb = hr_report_builder_new(&opt);
    hr_error_t err;
    HR_CHECK(hr_report_builder_add(rb, lines, 3, &err) == 0);
    hr_json_t *doc = hr_json_clone(hr_report_builder_doc(rb));
    hr_report_builder_free(rb);
    for (int i = 0; i < 3; i++)
        free(lines[i]);
    return doc;
}

/* Output of fn into a malloc'd string. */
static char *render(const hr_json_t *doc, hr_emit_format_t fmt) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hr_render_opts_t o = hr_render_opts_default();
    o.detail = 1; /* the registry's columns are in the detailed table */
    hr_report_render_opts(doc, fmt, &o, f);
    fclose(f);
    return buf;
}

static void test_registered(void) {
    const hr_metric_t *m = hr_metric_by_alias("dummy");
    HR_CHECK(m != NULL);
    HR_CHECK(m == hr_metric_by_path("extra.dummy_bytes"));
    HR_CHECK(m == hr_metric_by_leaf("dummy_bytes"));
    HR_CHECK(m && m->merge == HR_MERGE_MEDIAN && m->unit == HR_UNIT_BYTES);
}

static void test_merged_in_json(void) {
    hr_json_t *doc = report_with(100, 300, 200);
    HR_CHECK(hr_json_path_num(doc, "results.0.extra.dummy_bytes") == 200); /* median */
    char *json = render(doc, HR_EMIT_JSON);
    HR_CHECK(strstr(json, "\"dummy_bytes\": 200") != NULL);
    free(json);
    hr_json_free(doc);
}

/* The typed result has a field for it (generated from the same list) with
 * its range summary (MEDIAN: none), decoded from the report. */
static void test_typed_field(void) {
    hr_json_t *doc = report_with(100, 300, 200);
    hr_result_t t;
    hr_report_result(hr_json_at(hr_json_get(doc, "results"), 0), &t);
    HR_CHECK(t.m.DUMMY == 200);
    HR_CHECK(hr_result_num(&t.m, HR_M_DUMMY, 0, 0) == 200);
    hr_json_free(doc);
}

static void test_text_and_csv(void) {
    hr_json_t *doc = report_with(100, 300, 200);
    char *txt = render(doc, HR_EMIT_TEXT), *csv = render(doc, HR_EMIT_CSV);
    HR_CHECK(strstr(txt, "dummy") != NULL);  /* the column label */
    HR_CHECK(strstr(txt, "200 B") != NULL);  /* in its unit */
    /* a fixed CSV column: before the sorted extra leaves such as "deterministic" */
    const char *col = strstr(csv, "extra.dummy_bytes"), *det = strstr(csv, "deterministic");
    HR_CHECK(col != NULL && det != NULL && col < det);
    free(txt);
    free(csv);
    hr_json_free(doc);
}

static void test_compare_gate(void) {
    hr_json_t *base = report_with(200, 200, 200), *cur = report_with(250, 250, 250);
    hr_compare_options_t o = hr_compare_options_default();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = hr_compare_reports(base, "base", cur, "new", &o, f); /* default gates */
    fclose(f);
    HR_CHECK(rc == 1);
    HR_CHECK(strstr(buf, "dummy") != NULL && strstr(buf, "REGRESSION") != NULL);
    free(buf);
    hr_compare_metric_t m;
    HR_CHECK(hr_compare_metric_lookup("dummy", &m) == 0 && !m.higher_better);
    HR_CHECK(strcmp(m.path, "extra.dummy_bytes") == 0);
    hr_json_free(base);
    hr_json_free(cur);
}

static void test_plot(void) {
    hr_json_t *doc = report_with(100, 300, 200);
    hr_svg_options_t o = hr_svg_options_default();
    o.metric = "dummy";
    char *buf = NULL, *help = NULL;
    size_t len = 0, hlen = 0;
    hr_error_t err;
    FILE *f = open_memstream(&buf, &len);
    HR_CHECK(hr_svg_render(doc, &o, f, &err) == 0);
    fclose(f);
    HR_CHECK(strstr(buf, "dummy (lower is better)") != NULL); /* titled with its column label */
    HR_CHECK(strstr(buf, ">200 B<") != NULL);
    f = open_memstream(&help, &hlen);
    hr_svg_metric_names(f);
    fclose(f);
    HR_CHECK(strstr(help, " dummy,") != NULL);
    free(buf);
    free(help);
    hr_json_free(doc);
}

int main(void) {
    HR_RUN(test_registered);
    HR_RUN(test_merged_in_json);
    HR_RUN(test_typed_field);
    HR_RUN(test_text_and_csv);
    HR_RUN(test_compare_gate);
    HR_RUN(test_plot);
    return hr_test_done();
}
