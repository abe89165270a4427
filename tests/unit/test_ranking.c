/* The one ranking of a trace (src/report/ranking.c) and everything that
 * takes its order from it: the summary table, the verdict, the prediction
 * table and the bar chart. Each case builds its report here, so the figures
 * that must decide are in plain sight:
 *   - warm ns/op says tcmalloc, the predicted change of the program's CPU
 *     time says mimalloc: every output follows the prediction;
 *   - no program time: the cold lap decides, not warm ns/op;
 *   - unstable, fallback and failed rows are listed after the ranked ones
 *     and get no faster/slower verdict;
 *   - a ~1 MiB-live trace on mimalloc (whose own statistics say 32 MiB
 *     committed) shows its RSS overhead, not a four-digit fragmentation;
 *   - leanest is not awarded on a difference under the threshold. */
#include <stdlib.h>
#include <string.h>

#include "hr_test.h"
#include "report/chart.h"
#include "report/predict.h"
#include "report/ranking.h"
#include "report/report.h"
#include "report/summary.h"

#define HEAD "{\"schema\":\"heapreplay-report\",\"schema_version\":2,\"results\":["
/* a program of 3.5 s CPU (3.49 .. 3.51 over 5 runs): noise +/-23.8 ms */
#define PROG "\"program\":{\"wall_s\":3.6,\"cpu_s\":3.5,\"cpu_s_min\":3.49,\"cpu_s_max\":3.51," \
             "\"runs\":5,\"max_rss\":1000000,\"timed\":\"plain\"}"
/* a result of trace `t`: allocator, warm ns/op, cold CPU samples, extra */
#define ROW(t, a, ns, c0, c1, c2, extra)                                                      \
    "{\"trace\":\"" t "\",\"allocator\":\"" a "\",\"status\":\"ok\",\"runs\":3,"             \
    "\"time\":{\"ns_per_op\":" #ns ",\"cold_cpu_s\":" #c0 "},"                               \
    "\"samples\":{\"time.cold_cpu_s\":[" #c0 "," #c1 "," #c2 "]}" extra "}"

/* Warm ns/op: tcmalloc 20 < mimalloc 40 < glibc 50; cold lap (the program's
 * allocator time): mimalloc 0.30 s < glibc 0.50 s < tcmalloc 0.70 s. The
 * unstable row would be best of all and the fallback row is fastest warm. */
static const char disagree[] = HEAD
    ROW("g", "glibc", 50, 0.50, 0.51, 0.49, ",\"memory\":{\"peak_rss\":50000000}," PROG) ","
    ROW("g", "tcmalloc", 20, 0.70, 0.71, 0.69, ",\"memory\":{\"peak_rss\":52000000}," PROG) ","
    ROW("g", "mimalloc", 40, 0.30, 0.31, 0.29, ",\"memory\":{\"peak_rss\":51000000}," PROG) ","
    ROW("g", "jemalloc", 45, 0.10, 0.40, 0.20, ",\"unstable\":true," PROG) ","
    ROW("g", "stack", 5, 0.60, 0.61, 0.59,
        ",\"native\":{\"native_ops\":1,\"fallback_ops\":99}," PROG) ","
    "{\"trace\":\"g\",\"allocator\":\"bad\",\"status\":\"crashed\"," PROG "}]}";

static hr_json_t *parse(const char *doc, size_t n) {
    hr_json_t *rep = hr_json_parse(doc, n, "doc", NULL);
    if (rep)
        hr_report_predict(rep);
    return rep;
}

/* doc parsed (with predictions) into *rep, decoded into *v and `trace`
 * ranked into *rk. 0, or -1 (then nothing to free). */
static int ranked(const char *doc, size_t n, const char *trace, hr_json_t **rep,
                  hr_report_view_t *v, hr_ranking_t *rk) {
    *rep = parse(doc, n);
    if (!*rep || hr_report_view_init(v, *rep) < 0) {
        hr_json_free(*rep);
        *rep = NULL;
        return -1;
    }
    hr_rank_trace(rk, v, trace);
    return 0;
}

static char *render(const hr_json_t *rep, hr_emit_format_t fmt) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    hr_report_render(rep, fmt, f);
    fclose(f);
    return buf;
}

/* 1 when a, b, c occur in this order in s from `from` on. */
static int in_order(const char *s, const char *from, const char *a, const char *b, const char *c) {
    const char *p = s ? strstr(s, from) : NULL;
    const char *pa = p ? strstr(p, a) : NULL, *pb = p ? strstr(p, b) : NULL;
    const char *pc = p ? strstr(p, c) : NULL;
    return pa && pb && pc && pa < pb && pb < pc;
}

static void test_ranking_follows_prediction(void) {
    hr_json_t *rep;
    hr_report_view_t v;
    hr_ranking_t rk;
    HR_CHECK(ranked(disagree, sizeof disagree - 1, "g", &rep, &v, &rk) == 0);
    if (!rep)
        return;
    HR_CHECK(rk.basis == HR_RANK_PROGRAM);
    HR_CHECK(rk.nranked == 3 && rk.n == 6);
    HR_CHECK_STR(rk.e[0].r->allocator, "mimalloc");
    HR_CHECK_STR(rk.e[1].r->allocator, "glibc");
    HR_CHECK_STR(rk.e[2].r->allocator, "tcmalloc");
    /* excluded, in report order, with the reason */
    HR_CHECK_STR(rk.e[3].r->allocator, "jemalloc");
    HR_CHECK_STR(rk.e[3].why, "unstable");
    HR_CHECK_STR(rk.e[4].why, "fallback");
    HR_CHECK_STR(rk.e[5].why, "crashed");
    char buf[1024];
    hr_summary_verdict_of(buf, sizeof buf, &v, "g");
    /* -200 ms in each round, scaled to -400..-160 ms and widened by 10 % of
     * glibc's 500 ms: a real saving; one run shows it (noise +/-23.8 ms) */
    HR_CHECK(strncmp(buf, "ship mimalloc: -200.0 ms of 3.50 s CPU (-5.7%): real saving [-450..-110 "
                     "ms]; one run shows it (program noise +/-23.8 ms)", 120) == 0);
    HR_CHECK(strstr(buf, "max RSS +976.56 KiB") != NULL);
    hr_report_view_free(&v);

    char *txt = render(rep, HR_EMIT_TEXT), *md = render(rep, HR_EMIT_MARKDOWN);
    /* the summary table and the prediction table, both in the ranking's order */
    HR_CHECK(in_order(txt, "trace g", "\n1  mimalloc", "\n2  glibc", "\n3  tcmalloc"));
    HR_CHECK(in_order(txt, "Predicted change", "\nmimalloc", "\nglibc", "\ntcmalloc"));
    HR_CHECK(in_order(txt, "Predicted change", "\ntcmalloc", "\njemalloc", "\nstack"));
    HR_CHECK(txt && strstr(txt, "not ranked: unstable") && strstr(txt, "not ranked: fallback"));
    HR_CHECK(in_order(md, "trace g", "| 1 | mimalloc", "| 2 | glibc", "| 3 | tcmalloc"));
    free(txt);
    free(md);

    /* the bar chart (warm throughput, where tcmalloc is best) in the same order */
    hr_svg_options_t o = hr_svg_options_default();
    char *svg = NULL;
    size_t len = 0;
    hr_error_t err;
    FILE *f = open_memstream(&svg, &len);
    HR_CHECK(f && hr_svg_render(rep, &o, f, &err) == 0);
    if (f)
        fclose(f);
    HR_CHECK(in_order(svg, "<svg", ">mimalloc<", ">glibc<", ">tcmalloc<"));
    HR_CHECK(in_order(svg, "<svg", ">tcmalloc<", ">jemalloc<", ">!stack<"));
    free(svg);
    hr_json_free(rep);
}

/* A result of trace "c" without program time: warm ns/op, cold ns/op with
 * its range over 3 runs, live and RSS figures. */
#define CROW(a, ns, cold, lo, hi, extra)                                                 \
    "{\"trace\":\"c\",\"allocator\":\"" a "\",\"status\":\"ok\",\"runs\":3,"           \
    "\"time\":{\"ns_per_op\":" #ns ",\"cold_ns_per_op\":" #cold ",\"cold_ns_per_op_min\":" #lo \
    ",\"cold_ns_per_op_max\":" #hi "}" extra "}"

/* Warm: block 10 < glibc 30; cold: glibc 100 < block 300 (separated). */
static const char cold_doc[] = HEAD
    CROW("block", 10, 300, 290, 310, ",\"memory\":{\"peak_rss\":50000000}") ","
    CROW("glibc", 30, 100, 95, 105, ",\"memory\":{\"peak_rss\":49000000}") "]}";

static void test_cold_lap_decides(void) {
    hr_json_t *rep;
    hr_report_view_t v;
    hr_ranking_t rk;
    HR_CHECK(ranked(cold_doc, sizeof cold_doc - 1, "c", &rep, &v, &rk) == 0);
    if (!rep)
        return;
    HR_CHECK(rk.basis == HR_RANK_COLD && rk.nranked == 2);
    HR_CHECK_STR(rk.e[0].r->allocator, "glibc");
    char buf[1024];
    hr_summary_verdict_of(buf, sizeof buf, &v, "c");
    HR_CHECK(strncmp(buf, "fastest by cold-lap time: glibc, 3.00x less than block's (separated)",
                     68) == 0);
    hr_report_view_free(&v);
    char *txt = render(rep, HR_EMIT_TEXT);
    HR_CHECK(in_order(txt, "trace c", "cold/op", "\n1  glibc", "\n2  block"));
    free(txt);
    hr_json_free(rep);
}

/* peak live 0.9 MiB; mimalloc's own statistics: 32 MiB committed (its
 * footprint, frag_jw4 3457 %); its RSS grew 1.16 MiB: overhead 0.26 MiB. */
#define MEM(rss, fp, frag)                                                              \
    ",\"memory\":{\"peak_live\":943718,\"peak_rss_above_baseline\":" #rss                  \
    ",\"rss_baseline\":6000000,\"peak_rss\":" #rss "000,\"peak_footprint\":" #fp           \
    ",\"frag_jw4\":" #frag "}"
static const char small_doc[] = HEAD
    CROW("mimalloc", 10, 100, 95, 105, MEM(1216348, 33554432, 34.57)) ","
    CROW("glibc", 20, 200, 190, 210, MEM(1100000, 1200000, 0.2)) "]}";

static void test_small_heap_overhead(void) {
    hr_json_t *rep = parse(small_doc, sizeof small_doc - 1);
    char *txt = render(rep, HR_EMIT_TEXT);
    HR_CHECK(txt != NULL);
    if (txt) {
        /* 1216348 - 943718 = 272630 B = 266.24 KiB, 29 % of peak live */
        HR_CHECK(strstr(txt, "266.24 KiB 29%") != NULL);
        HR_CHECK(strstr(txt, "3457") == NULL);
        const char *t = strstr(txt, "\n1  mimalloc");
        const char *eol = t ? strchr(t + 1, '\n') : NULL;
        int four = 0; /* no four-digit percentage on the row */
        for (const char *p = t; p && p < eol; p++)
            four |= p[0] == '%' && p - t > 4 && p[-1] >= '0' && p[-4] >= '0' && p[-4] <= '9' &&
                    p[-3] >= '0' && p[-3] <= '9' && p[-2] >= '0' && p[-2] <= '9';
        HR_CHECK(t && !four);
    }
    free(txt);
    hr_json_free(rep);
}

/* Peak RSS 100.0 vs 103.0 MB (3 % apart): under the 5 % threshold, no
 * leanest; 100 vs 110 (9 %) with single samples: leanest, noise unknown. */
static void test_leanest_threshold(void) {
    static const char near[] = HEAD
        CROW("a", 10, 100, 95, 105, ",\"memory\":{\"peak_rss\":100000000}") ","
        CROW("b", 20, 200, 190, 210, ",\"memory\":{\"peak_rss\":103000000}") "]}";
    static const char far[] = HEAD
        CROW("a", 10, 100, 95, 105, ",\"memory\":{\"peak_rss\":110000000}") ","
        CROW("b", 20, 200, 190, 210, ",\"memory\":{\"peak_rss\":100000000}") "]}";
    char buf[1024];
    hr_json_t *rep = parse(near, sizeof near - 1);
    hr_summary_verdict(buf, sizeof buf, hr_json_get(rep, "results"), "c");
    HR_CHECK(strstr(buf, "leanest by peak RSS: none 5% below the rest (a 95.37 MiB, b 98.23 MiB)"));
    hr_json_free(rep);
    rep = parse(far, sizeof far - 1);
    hr_summary_verdict(buf, sizeof buf, hr_json_get(rep, "results"), "c");
    HR_CHECK(strstr(buf, "leanest by peak RSS: b, 9.1% below a (95.37 MiB vs 104.90 MiB) "
                         "(noise unknown)"));
    hr_json_free(rep);
}

/* More rows of one trace than the ranking holds: the ranking keeps
 * HR_RANK_MAX, counts the rest and the summary's notes say how many. */
static void test_rows_beyond_the_ranking(void) {
    enum { N = HR_RANK_MAX + 7 };
    size_t cap = (size_t)N * 256 + 128, len = 0;
    char *doc = malloc(cap);
    HR_CHECK(doc != NULL);
    if (!doc)
        return;
    len += (size_t)snprintf(doc, cap, "%s", HEAD);
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(doc + len, cap - len,
                                "%s{\"trace\":\"m\",\"allocator\":\"a%03d\",\"status\":\"ok\","
                                "\"runs\":1,\"time\":{\"ns_per_op\":%d,\"cold_ns_per_op\":%d}}",
                                i ? "," : "", i, 10 + i, 20 + i);
    len += (size_t)snprintf(doc + len, cap - len, "]}");
    hr_json_t *rep;
    hr_report_view_t v;
    hr_ranking_t rk;
    HR_CHECK(ranked(doc, len, "m", &rep, &v, &rk) == 0);
    free(doc);
    if (!rep)
        return;
    HR_CHECK(rk.n == HR_RANK_MAX && rk.left_out == N - HR_RANK_MAX);
    hr_report_view_free(&v);
    char *txt = render(rep, HR_EMIT_TEXT);
    HR_CHECK(txt && strstr(txt, "7 more rows of this trace left out of the ranking"));
    free(txt);
    hr_json_free(rep);
}

int main(void) {
    HR_RUN(test_ranking_follows_prediction);
    HR_RUN(test_rows_beyond_the_ranking);
    HR_RUN(test_cold_lap_decides);
    HR_RUN(test_small_heap_overhead);
    HR_RUN(test_leanest_threshold);
    return hr_test_done();
}
