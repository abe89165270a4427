/* Emitter and report rendering output against files in tests/expected/
 * (found through $srcdir). Set HR_UPDATE_EXPECTED=1 to rewrite them after an
 * intended format change (then review the diff). */
#include <math.h>
#include <stdlib.h>

#include "golden.h"
#include "hr_test.h"
#include "base/emit.h"
#include "report/report.h"
#include "report/chart.h"

/* The fixed document: every scalar kind, nesting, empty containers,
 * escaping, a non-finite double and doubles that need full precision. */
static void fixed_doc(hr_emit_t *em) {
    hr_emit_obj_begin(em, NULL);
    hr_emit_str(em, "name", "quote\" back\\ tab\t nl\n ctl\x01 utf8 \xc2\xb5s");
    hr_emit_u64(em, "big", UINT64_MAX);
    hr_emit_i64(em, "neg", -42);
    hr_emit_f64(em, "tenth", 0.1);
    hr_emit_f64(em, "third", 1.0 / 3.0);
    hr_emit_f64(em, "rate", 1.2e8);
    hr_emit_f64(em, "tiny", 1e-300);
    hr_emit_f64(em, "nan", NAN);
    hr_emit_f64(em, "inf", INFINITY);
    hr_emit_bool(em, "yes", 1);
    hr_emit_null(em, "none");
    hr_emit_arr_begin(em, "list");
    hr_emit_u64(em, NULL, 1);
    hr_emit_obj_begin(em, NULL);
    hr_emit_str(em, "k", "v");
    hr_emit_obj_end(em);
    hr_emit_arr_begin(em, NULL);
    hr_emit_arr_end(em);
    hr_emit_arr_end(em);
    hr_emit_obj_begin(em, "empty");
    hr_emit_obj_end(em);
    hr_emit_obj_end(em);
    hr_emit_end(em);
}

/* The fixed table: left and right columns, a CSV-hostile string, a
 * Markdown pipe, a missing cell, a non-finite double and a short row. */
static void fixed_table(hr_emit_t *em) {
    static const char *const cols[] = {"allocator", ">ops/s", ">ns/op", "note"};
    hr_emit_table_begin(em, "Fixed table", 4, cols);
    hr_emit_cell_str(em, "glibc");
    hr_emit_cell_u64(em, 20000000);
    hr_emit_cell_f64(em, 50.04, 1);
    hr_emit_cell_str(em, "plain");
    hr_emit_row_end(em);
    hr_emit_cell_str(em, "stack");
    hr_emit_cell_u64(em, 7);
    hr_emit_cell_f64(em, NAN, 1);
    hr_emit_cell_str(em, "has, comma \"and\" quote | pipe");
    hr_emit_row_end(em);
    hr_emit_cell_str(em, "short");
    hr_emit_row_end(em);
    hr_emit_table_end(em);
}

typedef void (*writer_fn)(hr_emit_t *);

static char *produce(writer_fn fn, hr_emit_format_t fmt, int compact) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hr_emit_t em;
    hr_emit_init(&em, f, fmt);
    em.compact = compact;
    fn(&em);
    fclose(f);
    return buf;
}

static void check_output(writer_fn fn, hr_emit_format_t fmt, int compact, const char *expected) {
    char *got = produce(fn, fmt, compact);
    HR_CHECK(got && matches_expected(expected, got));
    free(got);
}

static void test_doc_pretty(void) { check_output(fixed_doc, HR_EMIT_JSON, 0, "emit_doc.json"); }
static void test_doc_compact(void) {
    check_output(fixed_doc, HR_EMIT_JSON, 1, "emit_doc_compact.json");
    char *got = produce(fixed_doc, HR_EMIT_JSON, 1);
    int lines = 0;
    for (char *p = got; p && *p; p++)
        lines += *p == '\n';
    HR_CHECK(lines == 1); /* one line: a child's result fits one pipe read loop */
    free(got);
}
static void test_table_text(void) { check_output(fixed_table, HR_EMIT_TEXT, 0, "emit_table.txt"); }
static void test_table_csv(void) { check_output(fixed_table, HR_EMIT_CSV, 0, "emit_table.csv"); }
static void test_table_md(void) { check_output(fixed_table, HR_EMIT_MARKDOWN, 0, "emit_table.md"); }
static void test_table_json(void) { check_output(fixed_table, HR_EMIT_JSON, 0, "emit_table.json"); }
/* HTML: escaped cells in a <table>, framed by the marker lines html.c splits on */
static void test_table_html(void) { check_output(fixed_table, HR_EMIT_HTML, 0, "emit_table.html"); }

static void test_put_xml(void) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hr_emit_put_xml(f, "a<b & \"c\" 'd'>");
    hr_emit_put_xml(f, NULL);
    hr_emit_put_xml(f, "|\x01\t\x1f|");
    fclose(f);
    HR_CHECK_STR(buf, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;| \t |");
    free(buf);
}

static void test_format_parse(void) {
    hr_emit_format_t f;
    HR_CHECK(hr_emit_format_parse("json", &f) == 0 && f == HR_EMIT_JSON);
    HR_CHECK(hr_emit_format_parse("text", &f) == 0 && f == HR_EMIT_TEXT);
    HR_CHECK(hr_emit_format_parse("csv", &f) == 0 && f == HR_EMIT_CSV);
    HR_CHECK(hr_emit_format_parse("md", &f) == 0 && f == HR_EMIT_MARKDOWN);
    HR_CHECK(hr_emit_format_parse("markdown", &f) == 0 && f == HR_EMIT_MARKDOWN);
    HR_CHECK(hr_emit_format_parse("xml", &f) == -1);
    HR_CHECK(hr_emit_format_parse(NULL, &f) == -1);
    HR_CHECK(hr_emit_format_parse("html", &f) == -1); /* compare has no page */
    HR_CHECK(hr_emit_format_parse_html("html", &f) == 0 && f == HR_EMIT_HTML);
    HR_CHECK(hr_emit_format_parse_html("md", &f) == 0 && f == HR_EMIT_MARKDOWN);
    HR_CHECK(hr_emit_format_parse_html("xml", &f) == -1);
}

static void check_report_opts(hr_emit_format_t fmt, int detail, const char *expected) {
    char path[1024];
    hr_error_t err;
    snprintf(path, sizeof path, "%s/tests/data/reports/base.json", srcdir());
    hr_json_t *rep = hr_report_load(path, &err);
    HR_CHECK(rep != NULL);
    if (!rep) {
        printf("# %s\n", err.msg);
        return;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hr_render_opts_t o = hr_render_opts_default();
    o.detail = detail;
    HR_CHECK(hr_report_render_opts(rep, fmt, &o, f) == 0);
    fclose(f);
    HR_CHECK(matches_expected(expected, buf));
    free(buf);
    hr_json_free(rep);
}

static void check_report(hr_emit_format_t fmt, const char *expected) {
    check_report_opts(fmt, 0, expected);
}

static void test_report_text(void) { check_report(HR_EMIT_TEXT, "report_base.txt"); }
static void test_report_csv(void) { check_report(HR_EMIT_CSV, "report_base.csv"); }
static void test_report_md(void) { check_report(HR_EMIT_MARKDOWN, "report_base.md"); }
static void test_report_json(void) { check_report(HR_EMIT_JSON, "report_base.json"); }
/* --detail: the summary, then every table the report has */
static void test_report_text_detail(void) {
    check_report_opts(HR_EMIT_TEXT, 1, "report_base_detail.txt");
}
static void test_report_md_detail(void) {
    check_report_opts(HR_EMIT_MARKDOWN, 1, "report_base_detail.md");
}

static void test_units(void) {
    char b[32];
    hr_fmt_bytes(b, sizeof b, 512);
    HR_CHECK_STR(b, "512 B");
    hr_fmt_bytes(b, sizeof b, 1536);
    HR_CHECK_STR(b, "1.50 KiB");
    hr_fmt_bytes(b, sizeof b, 10485760);
    HR_CHECK_STR(b, "10.00 MiB");
    hr_fmt_rate(b, sizeof b, 1.2e8);
    HR_CHECK_STR(b, "120.00 M");
    hr_fmt_ns(b, sizeof b, 40000);
    HR_CHECK_STR(b, "40.0 us");
}

/* The detailed text report (--detail) of a report document given as a
 * string (malloc'd), or NULL when it does not parse or render. */
static char *render_text(const char *doc, size_t n) {
    hr_json_t *rep = hr_json_parse(doc, n, "doc", NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = rep ? open_memstream(&buf, &len) : NULL;
    hr_render_opts_t o = hr_render_opts_default();
    o.detail = 1;
    int rc = f ? hr_report_render_opts(rep, HR_EMIT_TEXT, &o, f) : -1;
    if (f)
        fclose(f);
    hr_json_free(rep);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Ranking line: overlapping samples are within noise, separated ones are
 * ordered; a failed row is not ranked. */
static void test_ranking_line(void) {
    static const char doc[] =
        "{\"schema\":\"heapreplay-report\",\"schema_version\":1,\"results\":["
        "{\"trace\":\"t.hrt\",\"allocator\":\"b\",\"status\":\"ok\",\"runs\":3,"
        "\"time\":{\"ns_per_op\":12.5},\"samples\":{\"time.ns_per_op\":[11.5,12.5,13]}},"
        "{\"trace\":\"t.hrt\",\"allocator\":\"c\",\"status\":\"ok\",\"runs\":3,"
        "\"time\":{\"ns_per_op\":21},\"samples\":{\"time.ns_per_op\":[20,21,22]}},"
        "{\"trace\":\"t.hrt\",\"allocator\":\"x\",\"status\":\"invalid\",\"runs\":1,"
        "\"error\":\"overlap\"},"
        "{\"trace\":\"t.hrt\",\"allocator\":\"a\",\"status\":\"ok\",\"runs\":3,"
        "\"time\":{\"ns_per_op\":11},\"samples\":{\"time.ns_per_op\":[10,11,12]}}]}";
    char *buf = render_text(doc, sizeof doc - 1);
    HR_CHECK(buf != NULL);
    HR_CHECK(buf && strstr(buf, "within noise): a 11 \xe2\x89\x88 b 12.5 < c 21\n") != NULL);
    if (buf && !strstr(buf, "a 11 "))
        printf("# %s\n", buf);
    free(buf);
}

/* A trace replayed on its threads: the threads line, the throughput ranking
 * (higher first, ">" where the samples separate, "≈" where they overlap) and
 * the per-thread ns/op of each allocator. */
static void test_threads_lines(void) {
    static const char doc[] =
        "{\"schema\":\"heapreplay-report\",\"schema_version\":1,\"results\":["
        "{\"trace\":\"j.hrt\",\"allocator\":\"a\",\"status\":\"ok\",\"runs\":3,"
        "\"time\":{\"ns_per_op\":20},"
        "\"threads\":{\"mode\":\"recorded\",\"n\":2,\"pace\":\"none\",\"cross_thread_frees\":7,"
        "\"ops_per_s\":9e7},\"samples\":{\"threads.ops_per_s\":[8.9e7,9e7,9.1e7]},"
        "\"per_thread\":[{\"thread\":0,\"ns_per_op\":18.5},{\"thread\":1,\"ns_per_op\":21.25}]},"
        "{\"trace\":\"j.hrt\",\"allocator\":\"b\",\"status\":\"ok\",\"runs\":3,"
        "\"time\":{\"ns_per_op\":10},"
        "\"threads\":{\"mode\":\"recorded\",\"n\":2,\"pace\":\"none\",\"cross_thread_frees\":7,"
        "\"ops_per_s\":2e8},\"samples\":{\"threads.ops_per_s\":[1.9e8,2e8,2.1e8]},"
        "\"per_thread\":[{\"thread\":0,\"ns_per_op\":9},{\"thread\":1,\"ns_per_op\":11}]},"
        "{\"trace\":\"j.hrt\",\"allocator\":\"c\",\"status\":\"ok\",\"runs\":3,"
        "\"time\":{\"ns_per_op\":22},"
        "\"threads\":{\"mode\":\"recorded\",\"n\":2,\"pace\":\"none\",\"cross_thread_frees\":7,"
        "\"ops_per_s\":8.5e7},\"samples\":{\"threads.ops_per_s\":[8e7,8.5e7,8.95e7]}}]}";
    char *buf = render_text(doc, sizeof doc - 1);
    HR_CHECK(buf != NULL);
    HR_CHECK(buf && strstr(buf, "  threads: 2 recorded threads, each on its own OS thread; 7 "
                                "cross-thread frees; pacing none\n") != NULL);
    HR_CHECK(buf && strstr(buf, "within noise): b 200 > a 90 \xe2\x89\x88 c 85\n") != NULL);
    HR_CHECK(buf && strstr(buf, "    a per-thread ns/op: t0 18.5, t1 21.2\n") != NULL);
    HR_CHECK(buf && strstr(buf, "    b per-thread ns/op: t0 9.0, t1 11.0\n") != NULL);
    HR_CHECK(buf && strstr(buf, "c per-thread") == NULL);
    if (buf && !strstr(buf, "b 200 > a 90"))
        printf("# %s\n", buf);
    free(buf);
}

/* A row serving under half its ops natively is marked "!" and left out of
 * the ranking, with a note saying why. */
static void test_mostly_fallback(void) {
    static const char doc[] =
        "{\"schema\":\"heapreplay-report\",\"schema_version\":1,\"results\":["
        "{\"trace\":\"t.hrt\",\"allocator\":\"stack\",\"status\":\"ok\",\"runs\":1,"
        "\"time\":{\"ns_per_op\":5},\"native\":{\"native_ops\":40,\"fallback_ops\":60,"
        "\"violations\":{\"entry_limit\":55,\"non_lifo_free\":5}}},"
        "{\"trace\":\"t.hrt\",\"allocator\":\"block\",\"status\":\"ok\",\"runs\":1,"
        "\"time\":{\"ns_per_op\":9},\"native\":{\"native_ops\":60,\"fallback_ops\":40,"
        "\"violations\":{}}},"
        "{\"trace\":\"t.hrt\",\"allocator\":\"glibc\",\"status\":\"ok\",\"runs\":1,"
        "\"time\":{\"ns_per_op\":12}}]}";
    char *buf = render_text(doc, sizeof doc - 1);
    HR_CHECK(buf != NULL);
    HR_CHECK(buf && strstr(buf, "\n!stack ") != NULL);
    HR_CHECK(buf && strstr(buf, "\nblock ") != NULL);
    HR_CHECK(buf && strstr(buf, "entry_limit 55 +1") != NULL);
    HR_CHECK(buf && strstr(buf, "! mostly fallback: below 50%") != NULL);
    HR_CHECK(buf && strstr(buf, "within noise): block 9 ? glibc 12\n") != NULL);
    if (buf && !strstr(buf, "block 9 ? glibc 12"))
        printf("# %s\n", buf);
    free(buf);
    /* the chart marks the bar and explains the mark */
    hr_json_t *rep = hr_json_parse(doc, sizeof doc - 1, "doc", NULL);
    size_t len = 0;
    buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    hr_svg_options_t so = hr_svg_options_default();
    so.metric = "ns_per_op";
    HR_CHECK(rep && hr_svg_render(rep, &so, f, NULL) == 0);
    fclose(f);
    HR_CHECK(buf && strstr(buf, ">!stack<") && strstr(buf, ">block<") && strstr(buf, "! mostly fallback"));
    free(buf);
    hr_json_free(rep);
}

int main(void) {
    HR_RUN(test_doc_pretty);
    HR_RUN(test_doc_compact);
    HR_RUN(test_table_text);
    HR_RUN(test_table_csv);
    HR_RUN(test_table_md);
    HR_RUN(test_table_json);
    HR_RUN(test_table_html);
    HR_RUN(test_put_xml);
    HR_RUN(test_format_parse);
    HR_RUN(test_report_text);
    HR_RUN(test_report_csv);
    HR_RUN(test_report_md);
    HR_RUN(test_report_json);
    HR_RUN(test_report_text_detail);
    HR_RUN(test_report_md_detail);
    HR_RUN(test_units);
    HR_RUN(test_ranking_line);
    HR_RUN(test_threads_lines);
    HR_RUN(test_mostly_fallback);
    return hr_test_done();
}
