/* The per-trace summary of text and Markdown reports (src/report/summary.c)
 * against golden files in tests/expected/, rendered from the hand-made
 * report tests/data/reports/summary.json: one trace whose top two are
 * separated (with unstable, mostly-fallback, crashed and invalid rows and a
 * budget with frame and heap), one whose top two overlap (budget from an
 * older engine: op indexes only; threads lines). Set HR_UPDATE_EXPECTED=1 to
 * rewrite the golden files after an intended change (then review the diff). */
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "hr_test.h"
#include "report/access.h"
#include "report/report.h"
#include "report/summary.h"

static hr_json_t *load(const char *name) {
    char path[1024];
    hr_error_t err;
    snprintf(path, sizeof path, "%s/tests/data/reports/%s", srcdir(), name);
    hr_json_t *rep = hr_report_load(path, &err);
    if (!rep)
        printf("# %s\n", err.msg);
    return rep;
}

/* The report rendered in fmt (detail or not), malloc'd; NULL on failure. */
static char *render(const hr_json_t *rep, hr_emit_format_t fmt, int detail) {
    hr_render_opts_t o = hr_render_opts_default();
    char *buf = NULL;
    size_t len = 0;
    o.detail = detail;
    FILE *f = open_memstream(&buf, &len);
    int rc = f && rep ? hr_report_render_opts(rep, fmt, &o, f) : -1;
    if (f)
        fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Longest line in code points. */
static size_t max_width(const char *s) {
    size_t w = 0, best = 0;
    for (; *s; s++) {
        if (*s == '\n') {
            w = 0;
            continue;
        }
        w += ((unsigned char)*s & 0xC0) != 0x80;
        if (w > best)
            best = w;
    }
    return best;
}

static void check_golden(hr_emit_format_t fmt, const char *expected) {
    hr_json_t *rep = load("summary.json");
    char *sum = render(rep, fmt, 0), *det = render(rep, fmt, 1);
    HR_CHECK(sum != NULL && det != NULL);
    if (sum && det) {
        HR_CHECK(matches_expected(expected, sum));
        /* the default output is a prefix of the detailed one */
        HR_CHECK(strncmp(det, sum, strlen(sum)) == 0 && strlen(det) > strlen(sum));
        HR_CHECK(strstr(det + strlen(sum), "trace traces/particles.hrt (digest ") != NULL);
        if (fmt == HR_EMIT_TEXT)
            HR_CHECK(max_width(sum) <= HR_PROSE_WIDTH);
    }
    free(sum);
    free(det);
    hr_json_free(rep);
}

static void test_summary_text(void) { check_golden(HR_EMIT_TEXT, "summary.txt"); }
static void test_summary_md(void) { check_golden(HR_EMIT_MARKDOWN, "summary.md"); }

static int count_of(const char *s, const char *needle) {
    int n = 0;
    for (const char *q = s; s && (q = strstr(q, needle)) != NULL; q += strlen(needle))
        n++;
    return n;
}

/* A report explains a table's columns and flags once, under the first
 * table that has them (text and Markdown): a later section with the same
 * columns points up in one line, one with other columns (another ranking
 * basis) explains its own; each section of the HTML page keeps its own. */
static void test_legends_once(void) {
    hr_json_t *rep = load("summary.json"); /* game_session by its cold lap, particles by warm */
    /* python_json and sqlite_index ranked by the program's time, particles by warm */
    hr_json_t *pred = load("predict.json");
    static const hr_emit_format_t fmts[] = {HR_EMIT_TEXT, HR_EMIT_MARKDOWN, HR_EMIT_HTML};
    for (int i = 0; i < 3; i++) {
        int html = fmts[i] == HR_EMIT_HTML;
        char *out = render(rep, fmts[i], 0), *same = render(pred, fmts[i], 0);
        HR_CHECK(out != NULL && same != NULL);
        HR_CHECK_EQ_U64(count_of(out, "place in the ranking by"), 2); /* two column sets */
        HR_CHECK_EQ_U64(count_of(out, "columns as in the first table above"), 0);
        HR_CHECK_EQ_U64(count_of(same, "place in the ranking by"), (html ? 3 : 2));
        HR_CHECK_EQ_U64(count_of(same, "columns as in the first table above"), (html ? 0 : 1));
        /* the prediction table's lines (text and Markdown only) */
        HR_CHECK_EQ_U64(count_of(same, "alloc time: the replay's cold lap"), (html ? 0 : 1));
        /* the flags of the first trace's rows, explained in its section, once */
        char *second = out ? strstr(out, "particles.hrt") : NULL;
        char *fb = out ? strstr(out, "fallback: under") : NULL;
        HR_CHECK(fb != NULL && second != NULL && fb < second);
        HR_CHECK_EQ_U64(count_of(out, "fallback: under"), 1);
        HR_CHECK_EQ_U64(count_of(out, "unstable: samples spread"), 1);
        free(out);
        free(same);
    }
    /* the bookkeeping itself: a bit is first once; NULL always prints */
    hr_legends_t lg = {0};
    HR_CHECK(hr_legend_first(&lg, HR_LEGEND_FALLBACK));
    HR_CHECK(!hr_legend_first(&lg, HR_LEGEND_FALLBACK));
    HR_CHECK(hr_legend_first(&lg, HR_LEGEND_PREDICT));
    HR_CHECK(hr_legend_first(NULL, HR_LEGEND_FALLBACK));
    hr_json_free(rep);
    hr_json_free(pred);
}

/* Sets "needs_size_on_free" on the rows of `alloc` (casting away const: the
 * document is the test's own). */
static void mark_sized(hr_json_t *rep, const char *alloc) {
    const hr_json_t *rs = hr_json_get(rep, "results");
    for (size_t i = 0; i < hr_json_len(rs); i++) {
        hr_json_t *r = (hr_json_t *)hr_json_at(rs, i);
        const char *a = hr_json_str(hr_json_get(r, "allocator"));
        if (a && strcmp(a, alloc) == 0)
            hr_json_set(r, HR_RK_NEEDS_SIZE, hr_json_new_bool(1));
    }
}

/* An allocator that frees with the block's size (Box2D's block allocator,
 * Orx's banks, SGI's classes) gets a line saying what adopting it takes,
 * when it leads a trace's ranking; not when it ranks below the leader. */
static void test_sized_free_note(void) {
    hr_json_t *rep = load("summary.json");
    mark_sized(rep, "block"); /* third on particles */
    char *out = render(rep, HR_EMIT_TEXT, 0);
    HR_CHECK(out && !strstr(out, "frees with the block's size"));
    free(out);
    mark_sized(rep, "jemalloc"); /* first on particles */
    out = render(rep, HR_EMIT_TEXT, 0);
    const char *at = out ? strstr(out, "trace traces/particles.hrt") : NULL;
    HR_CHECK(at && strstr(at, "jemalloc frees with the block's size, free(p, size)"));
    HR_CHECK_EQ_U64(count_of(out, "frees with the block's size"), 1);
    free(out);
    hr_json_free(rep);
}

/* The verdicts: game_session ranked by its cold lap (glibc, though block is
 * faster warm), separated (the margin of the runner-up: the unstable,
 * mostly-fallback and failed rows are not ranked), block 10 % leaner by peak
 * RSS; particles (no cold lap: warm ns/op) within noise, and no allocator
 * 5 % leaner than the next. */
static void test_verdicts(void) {
    hr_json_t *rep = load("summary.json");
    const hr_json_t *res = hr_json_get(rep, "results");
    char buf[512];
    hr_summary_verdict(buf, sizeof buf, res, "traces/game_session.hrt");
    HR_CHECK_STR(buf, "fastest by cold-lap time: glibc, 1.50x less than block's (separated); "
                      "leanest by peak RSS: block, 10.0% below glibc (18.00 MiB vs 20.00 MiB) "
                      "(noise unknown); glibc's worst frame 40.0 us at frame 12 (the worst of "
                      "the 2 ranked)");
    hr_summary_verdict(buf, sizeof buf, res, "traces/particles.hrt");
    HR_CHECK_STR(buf, "fastest by warm ns/op: jemalloc and glibc within noise (samples "
                      "overlap); leanest by peak RSS: none 5% below the rest (jemalloc 6.00 MiB, "
                      "block 6.05 MiB)");
    hr_json_free(rep);
}

/* The budget line: earliest failure first, frame and heap when the report
 * has them (a heap "(none)" is left out), else the op index; then the
 * allocators that never exceeded it. */
static void test_budget_line(void) {
    hr_json_t *rep = load("summary.json");
    const hr_json_t *res = hr_json_get(rep, "results");
    char buf[512];
    HR_CHECK(hr_summary_budget(buf, sizeof buf, res, "traces/game_session.hrt") == 1);
    HR_CHECK_STR(buf, "budget 256.00 KiB: first exceeded by glibc at frame 412 (heap Level), "
                      "block at frame 530, never by mimalloc, stack");
    HR_CHECK(hr_summary_budget(buf, sizeof buf, res, "traces/particles.hrt") == 1);
    HR_CHECK_STR(buf, "budget 256.00 KiB: first exceeded by jemalloc at op 99, glibc at op 1234, "
                      "never by block");
    HR_CHECK(hr_summary_budget(buf, sizeof buf, res, "traces/none.hrt") == 0 && buf[0] == 0);
    hr_json_free(rep);
}

/* Small cases: a single ranked row, single samples (noise unknown), no
 * peak RSS, nobody over the budget. */
static void test_verdict_edges(void) {
    static const char doc[] =
        "{\"schema\":\"heapreplay-report\",\"schema_version\":1,\"results\":["
        "{\"trace\":\"t\",\"allocator\":\"a\",\"status\":\"ok\",\"runs\":1,"
        "\"time\":{\"ns_per_op\":10},\"memory\":{\"peak_footprint\":100,"
        "\"footprint_source\":\"exact\"},\"budget\":{\"bytes\":1000,\"first_failure_op\":null}},"
        "{\"trace\":\"t\",\"allocator\":\"b\",\"status\":\"ok\",\"runs\":1,"
        "\"time\":{\"ns_per_op\":25},\"memory\":{\"peak_footprint\":100,"
        "\"footprint_source\":\"exact\"},\"budget\":{\"bytes\":1000,\"first_failure_op\":null}},"
        "{\"trace\":\"u\",\"allocator\":\"a\",\"status\":\"ok\",\"runs\":1,"
        "\"time\":{\"ns_per_op\":10}},"
        "{\"trace\":\"v\",\"allocator\":\"a\",\"status\":\"crashed\",\"runs\":1}]}";
    hr_json_t *rep = hr_json_parse(doc, sizeof doc - 1, "doc", NULL);
    const hr_json_t *res = hr_json_get(rep, "results");
    char buf[512];
    hr_summary_verdict(buf, sizeof buf, res, "t");
    HR_CHECK_STR(buf, "fastest by warm ns/op: a, 2.50x less than b's (noise unknown); leanest "
                      "by peak RSS: none (no peak RSS)");
    hr_summary_verdict(buf, sizeof buf, res, "u");
    HR_CHECK_STR(buf, "fastest by warm ns/op: a (the only ranked allocator); leanest by peak "
                      "RSS: none (no peak RSS)");
    hr_summary_verdict(buf, sizeof buf, res, "v");
    HR_CHECK_STR(buf, "no allocator could be ranked");
    HR_CHECK(hr_summary_budget(buf, sizeof buf, res, "t") == 1);
    HR_CHECK_STR(buf, "budget 1000 B: never exceeded by a, b");
    hr_json_free(rep);
}

/* A program of several processes (report/wholeprog.h): the parent trace's
 * verdict is the whole program's, from the report's whole_program section;
 * the best saving shipped with both answers, the real savings whose
 * intervals meet its named, the leanest by the largest process's peak RSS;
 * a best change that is not a real saving keeps glibc; a child trace keeps
 * its own verdict. */
static void test_wholeprog_verdict(void) {
#define WP_ALLOC(name, ch, pct, lo, hi, real, runs, rss, drss)                                        \
    "{\"allocator\":\"" name "\",\"change_s\":" ch ",\"change_pct\":" pct ","                     \
    "\"interval_s_lo\":" lo ",\"interval_s_hi\":" hi ",\"real\":\"" real "\",\"noise_s\":0.005," \
    "\"runs_to_see\":" runs ",\"max_rss\":" rss ",\"max_rss_change_bytes\":" drss "}"
    static const char doc[] =
        "{\"schema\":\"heapreplay-report\",\"schema_version\":2,\"results\":["
        "{\"trace\":\"p.hrt\",\"allocator\":\"glibc\",\"status\":\"ok\",\"runs\":1,"
        "\"time\":{\"cold_ns_per_op\":10}},"
        "{\"trace\":\"p.7.hrt\",\"allocator\":\"glibc\",\"status\":\"ok\",\"runs\":1,"
        "\"time\":{\"cold_ns_per_op\":10}},"
        "{\"trace\":\"p.7.hrt\",\"allocator\":\"a\",\"status\":\"ok\",\"runs\":1,"
        "\"time\":{\"cold_ns_per_op\":5}}],"
        "\"whole_program\":[{\"trace\":\"p.hrt\",\"processes\":43,\"cpu_s\":2.09,\"allocators\":["
        WP_ALLOC("glibc", "0", "0", "-0.001", "0.001", "none", "1e9", "102760448", "0") ","
        WP_ALLOC("c", "0.030", "1.44", "0.01", "0.05", "cost", "1", "125829120", "23068672") ","
        WP_ALLOC("a", "-0.014", "-0.67", "-0.020", "-0.005", "saving", "1", "104857600", "2097152") ","
        WP_ALLOC("b", "-0.010", "-0.48", "-0.018", "-0.002", "saving", "2", "115343360", "12582912") "]},"
        "{\"trace\":\"q.hrt\",\"processes\":3,\"cpu_s\":2.09,\"allocators\":["
        WP_ALLOC("glibc", "0", "0", "-0.001", "0.001", "none", "1e9", "102760448", "0") ","
        WP_ALLOC("a", "-0.003", "-0.14", "-0.020", "0.005", "none", "11", "92274688", "-10485760") "]}]}";
#undef WP_ALLOC
    hr_json_t *rep = hr_json_parse(doc, sizeof doc - 1, "doc", NULL);
    hr_report_view_t v;
    HR_CHECK(rep && hr_report_view_init(&v, rep) == 0);
    if (!rep)
        return;
    char buf[1024];
    hr_summary_verdict_of(buf, sizeof buf, &v, "p.hrt");
    HR_CHECK_STR(buf, "ship a: -14.0 ms of 2.09 s CPU (-0.7%; the whole program: 43 processes): "
                      "real saving [-20..-5 ms]; one run shows it (program noise +/-5.0 ms), max "
                      "RSS +2.00 MiB; as good within the model's error: b; leanest by peak RSS of "
                      "the largest process: none 5% below the rest (glibc 98.00 MiB, a 100.00 "
                      "MiB)");
    hr_summary_verdict_of(buf, sizeof buf, &v, "q.hrt");
    HR_CHECK_STR(buf, "no allocator changes this program for real (the whole program: 3 "
                      "processes); leanest by peak RSS of the largest process: a, 10.2% below "
                      "glibc (88.00 MiB vs 98.00 MiB; noise unknown)");
    hr_summary_verdict_of(buf, sizeof buf, &v, "p.7.hrt");
    HR_CHECK(strncmp(buf, "fastest by cold-lap time: a", 27) == 0);
    hr_report_view_free(&v);
    hr_json_free(rep);
}

/* Wrapping: at spaces, continuation indented by the line's indent + 4;
 * Markdown and short lines untouched; a word wider than the line stays. */
static void test_wrap(void) {
    char line[300], *buf = NULL;
    size_t len = 0;
    memset(line, 0, sizeof line);
    strcpy(line, "  ");
    for (int i = 0; i < 30; i++)
        strcat(line, "word± ");
    strcat(line, "\nshort\n");
    FILE *f = open_memstream(&buf, &len);
    hr_prose_wrap(f, line, 0);
    fclose(f);
    HR_CHECK(buf && max_width(buf) <= HR_PROSE_WIDTH);
    HR_CHECK(buf && strstr(buf, "\n      word± ") != NULL && strstr(buf, "\nshort\n") != NULL);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    hr_prose_wrap(f, line, 1);
    fclose(f);
    HR_CHECK_STR(buf, line);
    free(buf);
}

int main(void) {
    HR_RUN(test_summary_text);
    HR_RUN(test_summary_md);
    HR_RUN(test_legends_once);
    HR_RUN(test_sized_free_note);
    HR_RUN(test_verdicts);
    HR_RUN(test_budget_line);
    HR_RUN(test_verdict_edges);
    HR_RUN(test_wholeprog_verdict);
    HR_RUN(test_wrap);
    return hr_test_done();
}
