/* compare's renderers (compare.h): the rows arrive sorted (failing rows
 * first, then by |delta| descending) and every format keeps that order.
 *
 *  - text: the delta table, the reasons of failing and noise rows, the host
 *    drift notes and the summary line (bench/ scripts read the table's last
 *    column and the "  ! " lines);
 *  - csv: one table with the JSON row keys; the summary line on errf;
 *  - json: {"schema": "heapreplay-compare", "schema_version", "base", "new",
 *    "rows": [...], "summary": {...}} with stable snake_case keys;
 *  - md: for a CI job summary: verdict line, regressions, improvements, the
 *    other called rows, a count of unchanged figures; each table capped at
 *    opt->max_rows rows and a "... and N more" line;
 *  - junit: one <testcase> per row (trace x allocator x checked metric), a
 *    <failure> for each failing row, <skipped> for rows not compared.
 *
 * Program mode (compare_program.c; summary->program) leads with what
 * changed, in words, one line per changed figure ("allocations per frame
 * 40 -> 80 (+100 %), REGRESSION"); its Markdown and JUnit list the changed
 * figures only (regressions, improvements, missing and failed results);
 * JSON and CSV keep every row (JSON adds "mode": "program").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/emit.h"
#include "base/metrics.h"
#include "report/access.h"
#include "report/compare.h"

#define HR_COMPARE_JSON_SCHEMA "heapreplay-compare"
#define HR_COMPARE_JSON_VERSION 1

/* ---- shared cell formatting --------------------------------------------- */

/* A figure for people: integers exactly, else 3 decimals (6 below 1, none
 * from 1000); "-" when absent. */
static void fmt_val(char *buf, size_t n, double v) {
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (!isfinite(v) || v == floor(v))
        snprintf(buf, n, "%.17g", v);
    else
        snprintf(buf, n, "%.*f", fabs(v) >= 1000 ? 0 : fabs(v) >= 1 ? 3 : 6, v);
}

/* "+17.06" ("+1.0e-05" for a tiny nonzero change: one byte of 10 MiB must
 * not print as +0.00); "-" when absent. */
static void fmt_delta(char *buf, size_t n, double d) {
    if (isnan(d))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, isinf(d) || fabs(d) >= 0.01 || d == 0 ? "%+.2f" : "%+.1e", d);
}

/* "exact", "5%" or "-" (not gated). */
static void fmt_thr(char *buf, size_t n, const hr_compare_row_t *r) {
    if (r->exact)
        snprintf(buf, n, "exact");
    else if (isnan(r->threshold_pct))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%g%%", r->threshold_pct);
}

static const char *pass_fail(const hr_compare_summary_t *s) {
    return s->exit_status ? "FAIL" : "PASS";
}

static void summary_line(FILE *f, const hr_compare_summary_t *s) {
    fprintf(f, "compare: %d matched, %d regressions, %d mismatches, %d missing: %s\n", s->matched,
            s->regressions, s->mismatches, s->missing, pass_fail(s));
}

/* ---- text and CSV: the emitter's tables --------------------------------- */

/* Verdicts whose reason is worth a note under the text table. */
static int noteworthy(const hr_compare_row_t *r) {
    return r->fails || strcmp(r->verdict, "noise") == 0;
}

static void cell_val(hr_emit_t *em, double v) {
    char buf[48];
    if (isnan(v)) {
        hr_emit_cell_str(em, NULL);
        return;
    }
    fmt_val(buf, sizeof buf, v);
    hr_emit_cell_str(em, buf);
}

static void render_text(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                        FILE *out) {
    static const char *const cols[] = {"trace", "allocator", "metric", ">base", ">new",
                                       ">delta %", ">threshold", "verdict"};
    char title[1024], buf[48];
    hr_emit_t em;
    hr_emit_init(&em, out, HR_EMIT_TEXT);
    snprintf(title, sizeof title, "compare %s -> %s", s->base_name, s->new_name);
    hr_emit_table_begin(&em, title, 8, cols);
    for (size_t i = 0; i < n; i++) {
        const hr_compare_row_t *r = &rows[i];
        hr_emit_cell_str(&em, r->trace);
        hr_emit_cell_str(&em, r->allocator);
        hr_emit_cell_str(&em, r->metric);
        cell_val(&em, r->base);
        cell_val(&em, r->cur);
        fmt_delta(buf, sizeof buf, r->delta);
        hr_emit_cell_str(&em, isnan(r->delta) ? NULL : buf);
        fmt_thr(buf, sizeof buf, r);
        hr_emit_cell_str(&em, buf);
        hr_emit_cell_str(&em, r->verdict);
        hr_emit_row_end(&em);
    }
    hr_emit_table_end(&em);
    int notes = 0;
    for (size_t i = 0; i < n; i++)
        if (noteworthy(&rows[i]) && rows[i].reason[0]) {
            fprintf(out, "  %s %s %s %s: %s\n", rows[i].fails ? "!" : "~", rows[i].trace,
                    rows[i].allocator, rows[i].metric, rows[i].reason);
            notes = 1;
        }
    for (int i = 0; i < s->ndrift; i++, notes = 1)
        fprintf(out, "  host drift of %s: new/base %.3f in the median row (each trace's own "
                "when it has %d rows), divided out before judging (--no-drift: absolute)\n",
                s->drift_name[i], s->drift[i], HR_DRIFT_MIN_TRACE_ROWS);
    if (notes)
        fputc('\n', out);
    summary_line(out, s);
}

static void cell_bool(hr_emit_t *em, int v) {
    hr_emit_cell_str(em, v < 0 ? NULL : v ? "true" : "false");
}

static void render_csv(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                       FILE *out, FILE *errf) {
    static const char *const cols[] = {"trace",     "allocator",     "metric", "base",
                                       "new",       "delta_pct",     "threshold_pct",
                                       "exact",     "verdict",       "separated", "reason"};
    hr_emit_t em;
    hr_emit_init(&em, out, HR_EMIT_CSV);
    hr_emit_table_begin(&em, NULL, 11, cols);
    for (size_t i = 0; i < n; i++) {
        const hr_compare_row_t *r = &rows[i];
        hr_emit_cell_str(&em, r->trace);
        hr_emit_cell_str(&em, r->allocator);
        hr_emit_cell_str(&em, r->metric);
        hr_emit_cell_num(&em, r->base);
        hr_emit_cell_num(&em, r->cur);
        hr_emit_cell_num(&em, r->delta);
        hr_emit_cell_num(&em, r->threshold_pct);
        cell_bool(&em, r->exact);
        hr_emit_cell_str(&em, r->verdict);
        cell_bool(&em, r->separated);
        hr_emit_cell_str(&em, r->reason);
        hr_emit_row_end(&em);
    }
    hr_emit_table_end(&em);
    summary_line(errf, s); /* CSV stays a single table */
}

/* ---- JSON ---------------------------------------------------------------- */

static void render_json(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                        FILE *out) {
    hr_emit_t em;
    hr_emit_init(&em, out, HR_EMIT_JSON);
    hr_emit_obj_begin(&em, NULL);
    hr_emit_str(&em, "schema", HR_COMPARE_JSON_SCHEMA);
    hr_emit_u64(&em, "schema_version", HR_COMPARE_JSON_VERSION);
    hr_emit_str(&em, "base", s->base_name);
    hr_emit_str(&em, "new", s->new_name);
    if (s->program)
        hr_emit_str(&em, "mode", "program");
    hr_emit_arr_begin(&em, "rows");
    for (size_t i = 0; i < n; i++) {
        const hr_compare_row_t *r = &rows[i];
        hr_emit_obj_begin(&em, NULL);
        hr_emit_str(&em, "trace", r->trace);
        hr_emit_str(&em, "allocator", r->allocator);
        hr_emit_str(&em, "metric", r->metric);
        hr_emit_f64(&em, "base", r->base); /* non-finite: null */
        hr_emit_f64(&em, "new", r->cur);
        hr_emit_f64(&em, "delta_pct", r->delta);
        hr_emit_f64(&em, "threshold_pct", r->threshold_pct);
        hr_emit_bool(&em, "exact", r->exact);
        hr_emit_str(&em, "verdict", r->verdict);
        hr_emit_bool(&em, "failed", r->fails);
        if (r->separated < 0)
            hr_emit_null(&em, "separated");
        else
            hr_emit_bool(&em, "separated", r->separated);
        hr_emit_str(&em, "reason", r->reason);
        hr_emit_obj_end(&em);
    }
    hr_emit_arr_end(&em);
    hr_emit_obj_begin(&em, "summary");
    hr_emit_u64(&em, "rows", (uint64_t)n);
    hr_emit_u64(&em, "matched", (uint64_t)s->matched);
    hr_emit_u64(&em, "regressions", (uint64_t)s->regressions);
    hr_emit_u64(&em, "mismatches", (uint64_t)s->mismatches);
    hr_emit_u64(&em, "missing", (uint64_t)s->missing);
    hr_emit_u64(&em, "improved", (uint64_t)s->improved);
    hr_emit_u64(&em, "noise", (uint64_t)s->noise);
    hr_emit_u64(&em, "unchanged", (uint64_t)s->unchanged);
    hr_emit_u64(&em, "other", (uint64_t)s->other);
    hr_emit_str(&em, "verdict", pass_fail(s));
    hr_emit_u64(&em, "exit_status", (uint64_t)s->exit_status);
    hr_emit_obj_begin(&em, "drift");
    for (int i = 0; i < s->ndrift; i++)
        hr_emit_f64(&em, s->drift_name[i], s->drift[i]);
    hr_emit_obj_end(&em);
    hr_emit_obj_end(&em);
    hr_emit_obj_end(&em);
    hr_emit_end(&em);
}

/* ---- Markdown ------------------------------------------------------------ */

/* A table cell: '|' escaped, newlines as spaces. */
static void md_cell(FILE *f, const char *v) {
    fputs("| ", f);
    for (; v && *v; v++) {
        if (*v == '|')
            fputs("\\|", f);
        else
            fputc(*v == '\n' || *v == '\r' ? ' ' : *v, f);
    }
    fputc(' ', f);
}

/* One section: the rows `pick` selects, at most `max` of them, then
 * "... and N more". `why` adds the verdict and reason columns. */
static void md_section(FILE *out, const char *title, const hr_compare_row_t *rows, size_t n,
                       int (*pick)(const hr_compare_row_t *), int max, int why) {
    size_t total = 0, shown = 0;
    for (size_t i = 0; i < n; i++)
        total += (size_t)pick(&rows[i]);
    if (!total)
        return;
    fprintf(out, "#### %s (%zu)\n\n", title, total);
    fprintf(out, "| trace | allocator | metric | base | new | delta %% | threshold |%s\n",
            why ? " verdict | why |" : "");
    fprintf(out, "|---|---|---|--:|--:|--:|--:|%s\n", why ? "---|---|" : "");
    for (size_t i = 0; i < n && shown < (size_t)max; i++) {
        const hr_compare_row_t *r = &rows[i];
        char b[48], c[48], d[48], t[48];
        if (!pick(r))
            continue;
        fmt_val(b, sizeof b, r->base);
        fmt_val(c, sizeof c, r->cur);
        fmt_delta(d, sizeof d, r->delta);
        fmt_thr(t, sizeof t, r);
        const char *cells[] = {r->trace, r->allocator, r->metric, b, c, d, t, r->verdict, r->reason};
        for (int k = 0; k < (why ? 9 : 7); k++)
            md_cell(out, cells[k]);
        fputs("|\n", out);
        shown++;
    }
    if (total > shown)
        fprintf(out, "\n... and %zu more (all rows: `heapreplay compare -f json`)\n", total - shown);
    fputc('\n', out);
}

static int pick_fail(const hr_compare_row_t *r) { return r->fails; }
static int pick_improved(const hr_compare_row_t *r) { return strcmp(r->verdict, "improved") == 0; }
static int pick_other(const hr_compare_row_t *r) {
    return !r->fails && strcmp(r->verdict, "improved") != 0 && strcmp(r->verdict, "ok") != 0;
}

static void render_md(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                      const hr_compare_options_t *opt, FILE *out) {
    int max = opt->max_rows > 0 ? opt->max_rows : HR_COMPARE_MD_MAX_ROWS;
    fprintf(out, "### heapreplay compare: %s\n\n", pass_fail(s));
    fprintf(out, "`%s` → `%s`: %d matched, %d regression%s, %d mismatch%s, %d missing, "
            "%d improved\n\n", s->base_name, s->new_name, s->matched, s->regressions,
            s->regressions == 1 ? "" : "s", s->mismatches, s->mismatches == 1 ? "" : "es",
            s->missing, s->improved);
    md_section(out, "Regressions and other failures", rows, n, pick_fail, max, 1);
    md_section(out, "Improvements", rows, n, pick_improved, max, 0);
    md_section(out, "Other (noise, n/a, new, fixed, skipped)", rows, n, pick_other, max, 1);
    fprintf(out, "**%d figure%s unchanged** (within %s threshold%s).\n", s->unchanged,
            s->unchanged == 1 ? "" : "s", s->unchanged == 1 ? "its" : "their",
            s->unchanged == 1 ? "" : "s");
    for (int i = 0; i < s->ndrift; i++)
        fprintf(out, "%s- host drift of %s: new/base %.3f, divided out before judging\n",
                i ? "" : "\n", s->drift_name[i], s->drift[i]);
}

/* ---- JUnit XML ----------------------------------------------------------- */

/* "TRACE.ALLOCATOR" with the dots of each part turned into '_': JUnit
 * readers split classnames at dots (package, class). */
static void xml_classname(FILE *f, const hr_compare_row_t *r) {
    char buf[520];
    snprintf(buf, sizeof buf, "%s", r->trace);
    for (char *p = buf; *p; p++)
        *p = *p == '.' ? '_' : *p;
    size_t l = strlen(buf);
    snprintf(buf + l, sizeof buf - l, ".%s", r->allocator);
    for (char *p = buf + l + 1; *p; p++)
        *p = *p == '.' ? '_' : *p;
    hr_emit_put_xml(f, buf);
}

static int is_skipped(const hr_compare_row_t *r) {
    return strcmp(r->verdict, "n/a") == 0 || strcmp(r->verdict, "skipped") == 0;
}

/* The JUnit document's head: the XML declaration, <testsuites> and the one
 * <testsuite> (BASE -> NEW) with their counts. */
static void junit_open(FILE *out, const hr_compare_summary_t *s, size_t tests, size_t fails,
                       size_t skipped) {
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites name=\"heapreplay compare\" tests=\"%zu\" failures=\"%zu\" "
            "errors=\"0\" time=\"0\">\n", tests, fails);
    fputs("  <testsuite name=\"", out);
    hr_emit_put_xml(out, s->base_name);
    fputs(" -&gt; ", out);
    hr_emit_put_xml(out, s->new_name);
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"0\">\n",
            tests, fails, skipped);
}

static void render_junit(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                         FILE *out) {
    size_t fails = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        fails += (size_t)rows[i].fails;
        skipped += (size_t)is_skipped(&rows[i]);
    }
    junit_open(out, s, n, fails, skipped);
    for (size_t i = 0; i < n; i++) {
        const hr_compare_row_t *r = &rows[i];
        char b[48], c[48], d[48], t[48];
        fmt_val(b, sizeof b, r->base);
        fmt_val(c, sizeof c, r->cur);
        fmt_delta(d, sizeof d, r->delta);
        fmt_thr(t, sizeof t, r);
        fputs("    <testcase classname=\"", out);
        xml_classname(out, r);
        fputs("\" name=\"", out);
        hr_emit_put_xml(out, r->metric);
        fputs("\" time=\"0\"", out);
        if (!r->fails && !is_skipped(r)) {
            fputs("/>\n", out);
            continue;
        }
        fprintf(out, ">\n      <%s message=\"", r->fails ? "failure" : "skipped");
        hr_emit_put_xml(out, r->reason);
        if (r->fails) {
            fputs("\" type=\"", out);
            hr_emit_put_xml(out, r->verdict);
            fputs("\">", out);
            char body[1200];
            snprintf(body, sizeof body, "%s %s %s %s: base %s, new %s, delta %s%s, threshold %s: %s",
                     r->verdict, r->trace, r->allocator, r->metric, b, c, d,
                     isnan(r->delta) ? "" : "%", t, r->reason);
            hr_emit_put_xml(out, body);
            fputs("</failure>\n", out);
        } else {
            fputs("\"/>\n", out);
        }
        fputs("    </testcase>\n", out);
    }
    fputs("    <system-out>", out);
    summary_line(out, s);
    fputs("</system-out>\n  </testsuite>\n</testsuites>\n", out);
}

/* ---- program mode ---------------------------------------------------------- */

/* A figure of program mode in its unit: "1.50 MiB", "2.40 ms", "44.3". */
static void fmt_unit(char *buf, size_t n, double v, int unit) {
    if (unit == HR_UNIT_BYTES)
        hr_fmt_bytes(buf, n, v);
    else if (unit == HR_UNIT_NS)
        hr_fmt_ns(buf, n, v);
    else if (unit == HR_UNIT_SECONDS)
        hr_fmt_ns(buf, n, v * 1e9);
    else if (isfinite(v) && v != floor(v))
        snprintf(buf, n, "%.*f", fabs(v) >= 100 ? 0 : 1, v);
    else
        fmt_val(buf, n, v);
}

/* "+100 %", "-4.2 %", "from 0"; "" when there is no change to state. */
static void fmt_change(char *buf, size_t n, double d) {
    if (isnan(d))
        snprintf(buf, n, "%s", "");
    else if (isinf(d))
        snprintf(buf, n, "from 0");
    else
        snprintf(buf, n, fabs(d) >= 10 ? "%+.0f %%" : "%+.1f %%", d);
}

/* The figures a reader of program mode is told about. */
static int prog_changed(const hr_compare_row_t *r) {
    return r->fails || strcmp(r->verdict, "improved") == 0;
}

/* 1 when every row is of one trace: the lines leave its name out. */
static int one_trace(const hr_compare_row_t *rows, size_t n) {
    for (size_t i = 1; i < n; i++)
        if (strcmp(rows[i].trace, rows[0].trace) != 0)
            return 0;
    return 1;
}

/* "[TRACE: ][ALLOCATOR: ]FIGURE BASE → NEW (+X %), VERDICT" and a newline;
 * `bold`: a failing verdict in Markdown's bold. */
static void prog_line(FILE *out, const hr_compare_row_t *r, int trace, int bold) {
    const char *em = bold && r->fails ? "**" : "";
    char b[48], c[48], d[48];
    if (trace)
        fprintf(out, "%s: ", r->trace);
    if (strcmp(r->allocator, "-") != 0)
        fprintf(out, "%s: ", r->allocator);
    if (isnan(r->base) && isnan(r->cur)) {
        fprintf(out, "%s: %s, %s%s%s\n", r->metric, r->reason, em, r->verdict, em);
        return;
    }
    fmt_unit(b, sizeof b, r->base, r->unit);
    fmt_unit(c, sizeof c, r->cur, r->unit);
    fmt_change(d, sizeof d, r->delta);
    fprintf(out, "%s %s \xe2\x86\x92 %s%s%s%s, %s%s%s\n", r->metric, b, c, d[0] ? " (" : "", d,
            d[0] ? ")" : "", em, r->verdict, em);
}

static void prog_summary_line(FILE *f, const hr_compare_summary_t *s) {
    fprintf(f, "compare (program): %d trace%s, %d result%s matched, %d regression%s, "
            "%d improved, %d unchanged, %d missing: %s\n", s->traces, s->traces == 1 ? "" : "s",
            s->matched, s->matched == 1 ? "" : "s", s->regressions,
            s->regressions == 1 ? "" : "s", s->improved, s->unchanged, s->missing, pass_fail(s));
}

/* The notes under the lines: noise and n/a rows, the digests, the figures
 * neither report has. `md` writes them as a list. */
static void prog_notes(FILE *out, const hr_compare_row_t *rows, size_t n,
                       const hr_compare_summary_t *s, int md) {
    const char *lead = md ? "- " : "  ";
    for (size_t i = 0; i < n; i++) {
        const hr_compare_row_t *r = &rows[i];
        if (prog_changed(r) || strcmp(r->verdict, "ok") == 0)
            continue;
        fprintf(out, "%s%s %s %s: %s (%s)\n", lead, r->trace, r->allocator, r->metric, r->reason,
                r->verdict);
    }
    if (s->nskipped) {
        fprintf(out, "%sin neither report (skipped):", lead);
        for (int i = 0; i < s->nskipped; i++)
            fprintf(out, "%s %s", i ? "," : "", s->skipped[i]);
        fputc('\n', out);
    }
}

static void prog_text(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                      FILE *out) {
    int trace = !one_trace(rows, n), any = 0;
    for (size_t i = 0; i < n; i++)
        if (prog_changed(&rows[i])) {
            prog_line(out, &rows[i], trace, 0);
            any = 1;
        }
    if (!any)
        fprintf(out, "no program figure changed beyond its threshold (%d unchanged)\n",
                s->unchanged);
    fprintf(out, "\ncompare %s -> %s: program mode (the traces differ: the program's own "
            "figures are compared, docs/REPORTS.md)\n", s->base_name, s->new_name);
    for (size_t i = 0; i < n; i++)
        if (rows[i].fails && rows[i].reason[0])
            fprintf(out, "  ! %s %s %s: %s\n", rows[i].trace, rows[i].allocator, rows[i].metric,
                    rows[i].reason);
    prog_notes(out, rows, n, s, 0);
    fputc('\n', out);
    prog_summary_line(out, s);
}

static void prog_md(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                    int max, FILE *out) {
    size_t changed = 0, shown = 0;
    int trace = !one_trace(rows, n);
    fprintf(out, "### heapreplay compare: %s\n\n", pass_fail(s));
    for (size_t i = 0; i < n; i++)
        changed += (size_t)prog_changed(&rows[i]);
    if (!changed)
        fprintf(out, "No program figure changed beyond its threshold.\n\n");
    for (size_t i = 0; i < n; i++)
        if (prog_changed(&rows[i]) && shown < (size_t)max) {
            fputs("- ", out);
            prog_line(out, &rows[i], trace, 1);
            shown++;
        }
    if (changed > shown)
        fprintf(out, "- ... and %zu more (all rows: `heapreplay compare -f json`)\n",
                changed - shown);
    fprintf(out, "\n`%s` → `%s`: two captures of the program (the traces differ): %d trace%s, "
            "%d result%s matched, %d regression%s, %d improved, **%d figure%s unchanged**.\n\n",
            s->base_name, s->new_name, s->traces, s->traces == 1 ? "" : "s", s->matched,
            s->matched == 1 ? "" : "s", s->regressions, s->regressions == 1 ? "" : "s",
            s->improved, s->unchanged, s->unchanged == 1 ? "" : "s");
    prog_notes(out, rows, n, s, 1);
}

/* JUnit: one test case per changed figure (a failure when it fails). */
static void prog_junit(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                       FILE *out) {
    size_t cases = 0, fails = 0;
    for (size_t i = 0; i < n; i++) {
        cases += (size_t)prog_changed(&rows[i]);
        fails += (size_t)rows[i].fails;
    }
    junit_open(out, s, cases, fails, 0);
    for (size_t i = 0; i < n; i++) {
        const hr_compare_row_t *r = &rows[i];
        char *line = NULL;
        size_t len = 0;
        if (!prog_changed(r))
            continue;
        fputs("    <testcase classname=\"", out);
        xml_classname(out, r);
        fputs("\" name=\"", out);
        hr_emit_put_xml(out, r->metric);
        fputs("\" time=\"0\"", out);
        if (!r->fails) {
            fputs("/>\n", out);
            continue;
        }
        FILE *mem = open_memstream(&line, &len);
        if (mem) {
            prog_line(mem, r, 1, 0);
            fclose(mem);
        }
        if (line && len && line[len - 1] == '\n')
            line[len - 1] = 0;
        fputs(">\n      <failure message=\"", out);
        hr_emit_put_xml(out, line ? line : r->metric);
        fputs("\" type=\"", out);
        hr_emit_put_xml(out, r->verdict);
        fputs("\">", out);
        hr_emit_put_xml(out, r->reason);
        fputs("</failure>\n    </testcase>\n", out);
        free(line);
    }
    fputs("    <system-out>", out);
    prog_summary_line(out, s);
    fputs("</system-out>\n  </testsuite>\n</testsuites>\n", out);
}

static void render_program(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                           const hr_compare_options_t *opt, FILE *out) {
    if (opt->format == HR_CMP_MD)
        prog_md(rows, n, s, opt->max_rows > 0 ? opt->max_rows : HR_COMPARE_MD_MAX_ROWS, out);
    else if (opt->format == HR_CMP_JUNIT)
        prog_junit(rows, n, s, out);
    else
        prog_text(rows, n, s, out);
}


void hr_compare_render(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                       const hr_compare_options_t *opt, FILE *out, FILE *errf) {
    if (s->program && opt->format != HR_CMP_JSON && opt->format != HR_CMP_CSV) {
        render_program(rows, n, s, opt, out);
        return;
    }
    switch (opt->format) {
    case HR_CMP_JSON: render_json(rows, n, s, out); break;
    case HR_CMP_CSV: render_csv(rows, n, s, out, errf); break;
    case HR_CMP_MD: render_md(rows, n, s, opt, out); break;
    case HR_CMP_JUNIT: render_junit(rows, n, s, out); break;
    default: render_text(rows, n, s, out); break;
    }
}
