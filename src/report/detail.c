/* The detail sections of text and Markdown reports (see detail.h): what
 * `--detail` prints after the summaries. */
#include "report/detail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "report/access.h"
#include "report/ranking.h"
#include "trace/trace.h"

/* The comparison table: allocator and status, then one column per registry
 * metric with a column label (base/metrics.h), in registry order. */
#define N_MAIN_COLS_MAX (HR_M__COUNT + 2)

static int main_cols(const char **cols, char names[][48]) {
    int n = 0;
    cols[n++] = "allocator";
    cols[n++] = "status";
    for (int k = 0; k < HR_M__COUNT; k++) {
        const hr_metric_t *m = &hr_metrics[k];
        if (!m->column)
            continue;
        /* numbers are right-aligned ('>'), text is not */
        snprintf(names[n], sizeof names[n], "%s%s", m->unit == HR_UNIT_TEXT ? "" : ">", m->column);
        cols[n] = names[n];
        n++;
    }
    return n;
}

/* The spread shown beside a ranged metric's median: its MAD relative to the
 * median (the figure "unstable" is judged on, hr_results_unstable). NAN when
 * the result has no spread to show (one repeat, or an old report). */
static double rel_mad(const hr_result_t *t, hr_metric_id_t id, double median) {
    const hr_metric_t *m = &hr_metrics[id];
    double mad = hr_result_num(&t->m, id, 0, 3);
    if (m->merge != HR_MERGE_RANGE || t->runs < 2 || median == 0)
        return NAN;
    return mad / fabs(median);
}

/* A ranged metric of a repeated result: "41.5 ±3.2%" (median, relative MAD),
 * and "~41.5 ±9.0%" for the ranking figure of an unstable result. Returns 0
 * when the cell is not of that kind. */
static int spread_cell(hr_emit_t *em, const hr_result_t *t, hr_metric_id_t id, double v) {
    const hr_metric_t *m = &hr_metrics[id];
    double spread = rel_mad(t, id, v);
    char num[48], buf[80];
    if (!isfinite(v) || !isfinite(spread))
        return 0;
    switch (m->cell) {
    case HR_CELL_RATE: hr_fmt_rate(num, sizeof num, v); break;
    case HR_CELL_NS: hr_fmt_ns(num, sizeof num, v); break;
    case HR_CELL_F1: snprintf(num, sizeof num, "%.1f", v); break;
    case HR_CELL_F0: snprintf(num, sizeof num, "%.0f", v); break;
    default: return 0;
    }
    int unstable = (m->flags & HR_MF_RANK) && t->unstable;
    snprintf(buf, sizeof buf, "%s%s ±%.1f%%", unstable ? HR_REPORT_UNSTABLE_MARK : "", num,
             spread * 100);
    hr_emit_cell_str(em, buf);
    return 1;
}

/* The violations cell: the most frequent kind and its count, "+N" for the
 * other kinds ("entry_limit 47468 +1"); "0" when there are none. The kinds
 * are what a reader can act on, a total is not (docs/METRICS.md). */
static void violations_cell(hr_emit_t *em, const hr_result_violations_t *v) {
    if (!v->present) {
        hr_emit_cell_str(em, NULL);
        return;
    }
    char buf[96];
    if (v->kinds == 0)
        snprintf(buf, sizeof buf, "0");
    else if (v->kinds == 1)
        snprintf(buf, sizeof buf, "%s %.0f", v->top, v->top_n);
    else
        snprintf(buf, sizeof buf, "%s %.0f +%d", v->top, v->top_n, v->kinds - 1);
    hr_emit_cell_str(em, buf);
}

/* One cell of metric m in its registry format. */
static void metric_cell(hr_emit_t *em, const hr_result_t *t, hr_metric_id_t id) {
    const hr_metric_t *m = &hr_metrics[id];
    if (id == HR_M_VIOLATIONS) {
        violations_cell(em, &t->violations);
        return;
    }
    double v = m->cell == HR_CELL_STR || m->family ? NAN : hr_result_num(&t->m, id, 0, 0);
    if (spread_cell(em, t, id, v))
        return;
    switch (m->cell) {
    case HR_CELL_RATE: hr_report_cell_unit(em, v, hr_fmt_rate); break;
    case HR_CELL_NS: hr_report_cell_unit(em, v, hr_fmt_ns); break;
    case HR_CELL_BYTES: hr_report_cell_unit(em, v, hr_fmt_bytes); break;
    case HR_CELL_F1: hr_emit_cell_f64(em, v, 1); break;
    case HR_CELL_F0: hr_emit_cell_f64(em, v, 0); break;
    case HR_CELL_PCT: hr_report_cell_pct(em, v); break;
    case HR_CELL_STR: hr_emit_cell_str(em, m->family ? NULL : hr_result_str(&t->m, id)); break;
    case HR_CELL_INT:
        if (isfinite(v))
            hr_emit_cell_u64(em, (uint64_t)v);
        else
            hr_emit_cell_str(em, NULL);
        break;
    case HR_CELL_NONE: break;
    }
}

static void main_row(hr_emit_t *em, const hr_result_t *t) {
    char name[160];
    snprintf(name, sizeof name, "%s%s", hr_result_mostly_fallback(t) ? HR_REPORT_FALLBACK_MARK : "",
             t->allocator);
    hr_emit_cell_str(em, name);
    hr_emit_cell_str(em, t->status);
    if (!hr_result_ok(t)) {
        hr_emit_row_end(em); /* the rest stays "-"; the error is a note below */
        return;
    }
    for (int k = 0; k < HR_M__COUNT; k++)
        if (hr_metrics[k].column)
            metric_cell(em, t, (hr_metric_id_t)k);
    hr_emit_row_end(em);
}

/* Notes under a trace's table: the legend of the unstable mark when a row
 * has it, then the error of every row that is not ok. */
static void print_notes(FILE *out, const hr_report_view_t *v, const char *trace, int md) {
    int any = 0, unstable = 0, fallback = 0;
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *t = &v->rows[i];
        if (!hr_result_of_trace(t, trace) || !hr_result_ok(t))
            continue;
        unstable |= t->unstable;
        fallback |= hr_result_mostly_fallback(t);
    }
    if (fallback)
        fprintf(out, "%s" HR_REPORT_FALLBACK_MARK " mostly fallback: below %.0f%% of the ops served "
                "natively, so the row measures the system malloc behind it; not ranked (a "
                "composition such as stack+block gives it only what it can hold)\n\n",
                md ? "- " : "  ", HR_MOSTLY_FALLBACK * 100);
    if (unstable)
        fprintf(out, "%s" HR_REPORT_UNSTABLE_MARK " unstable: the samples spread too widely to "
                "rank (MAD > %.0f%% or range > %.0f%% of the median); rerun on a quieter "
                "machine or with more repeats\n\n", md ? "- " : "  ", HR_UNSTABLE_MAD * 100,
                HR_UNSTABLE_RANGE * 100);
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *t = &v->rows[i];
        if (!hr_result_of_trace(t, trace) || hr_result_ok(t))
            continue;
        fprintf(out, "%s%s: %s: %s\n", md ? "- " : "  ! ", t->allocator, t->status,
                t->error ? t->error : "(no message)");
        any = 1;
    }
    if (any)
        fputc('\n', out);
}

/* The ops of the ns/op family that any row of `trace` has a key for, in op
 * table order (every row the engine writes has the same keys). */
static int per_op_keys(const hr_report_view_t *v, const char *trace, unsigned *ops, int max) {
    uint32_t keys = 0;
    int n = 0;
    for (size_t i = 0; i < v->n; i++)
        if (hr_result_of_trace(&v->rows[i], trace))
            keys |= v->rows[i].family_keys[HR_M_NS_BY_OP];
    for (unsigned op = 0; op < HR_OP__COUNT && n < max; op++)
        if (keys & (uint32_t)1 << op)
            ops[n++] = op;
    return n;
}

static void per_op_table(hr_emit_t *em, const hr_report_view_t *v, const char *trace) {
    const char *cols[HR_EMIT_MAX_COLS];
    unsigned ops[HR_EMIT_MAX_COLS - 1];
    char names[HR_EMIT_MAX_COLS][64], title[512];
    int n = per_op_keys(v, trace, ops, HR_EMIT_MAX_COLS - 1);
    if (n == 0)
        return;
    cols[0] = "allocator";
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], ">%s", hr_op_info[ops[i]].key);
        cols[i + 1] = names[i];
    }
    snprintf(title, sizeof title, "ns/op by op type (%s)", trace);
    hr_emit_table_begin(em, title, n + 1, cols);
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *t = &v->rows[i];
        if (!hr_result_of_trace(t, trace) || !hr_result_ok(t))
            continue;
        hr_emit_cell_str(em, t->allocator);
        for (int k = 0; k < n; k++)
            hr_emit_cell_f64(em, t->m.NS_BY_OP[ops[k]], 1);
        hr_emit_row_end(em);
    }
    hr_emit_table_end(em);
}

/* A scalar JSON value as a table cell (exact: these are allocator-native
 * figures whose units we do not know). Nested values become compact JSON. */
void hr_report_cell_value(hr_emit_t *em, const hr_json_t *v) {
    switch (hr_json_type(v)) {
    case HR_JSON_NULL: hr_emit_cell_str(em, NULL); break;
    case HR_JSON_BOOL: hr_emit_cell_str(em, v->boolean ? "true" : "false"); break;
    case HR_JSON_STRING: hr_emit_cell_str(em, v->str); break;
    case HR_JSON_NUMBER: hr_emit_cell_num(em, v->num); break;
    default: {
        char *s = hr_json_to_string(v, 1);
        hr_emit_cell_str(em, s ? s : "?");
        free(s);
    }
    }
}

int hr_report_is_object_array(const hr_json_t *v) {
    return hr_json_type(v) == HR_JSON_ARRAY && hr_json_len(v) > 0 &&
           hr_json_type(hr_json_at(v, 0)) == HR_JSON_OBJECT;
}

#define HR_REPORT_MAX_ROWS 16

/* One table per native array of objects: "<allocator> <key> (<trace>)".
 * CSV sections lead with trace and allocator columns so they can be joined. */
void hr_report_native_tables(hr_emit_t *em, const hr_result_t *r, int csv) {
    const hr_json_t *nat = r->native;
    const char *trace = r->trace, *alloc = r->allocator;
    for (size_t k = 0; k < hr_json_len(nat) && hr_json_type(nat) == HR_JSON_OBJECT; k++) {
        const hr_json_t *arr = hr_json_at(nat, k);
        if (!hr_report_is_object_array(arr))
            continue;
        const char *keys[HR_EMIT_MAX_COLS], *cols[HR_EMIT_MAX_COLS];
        char names[HR_EMIT_MAX_COLS][64], title[512];
        int n = 0, lead = csv ? 2 : 0;
        for (size_t i = 0; i < hr_json_len(arr); i++) {
            const hr_json_t *o = hr_json_at(arr, i);
            for (size_t j = 0; j < hr_json_len(o) && hr_json_type(o) == HR_JSON_OBJECT; j++) {
                const char *key = hr_json_key_at(o, j);
                int seen = 0;
                for (int m = 0; m < n && !seen; m++)
                    seen = strcmp(keys[m], key) == 0;
                if (!seen && n + lead < HR_EMIT_MAX_COLS)
                    keys[n++] = key;
            }
        }
        cols[0] = "trace";
        cols[1] = "allocator";
        for (int i = 0; i < n; i++) {
            const hr_json_t *first = hr_json_get(hr_json_at(arr, 0), keys[i]);
            snprintf(names[i], sizeof names[i], "%s%s",
                     hr_json_type(first) == HR_JSON_NUMBER ? ">" : "", keys[i]);
            cols[lead + i] = names[i];
        }
        snprintf(title, sizeof title, "%s %s (%s)", alloc, hr_json_key_at(nat, k), trace);
        hr_emit_table_begin(em, title, n + lead, cols);
        /* Human formats show the first rows only (a bank backend has one row
         * per cell size); CSV and JSON keep every row. */
        size_t rows = hr_json_len(arr), shown = csv || rows <= HR_REPORT_MAX_ROWS ? rows : HR_REPORT_MAX_ROWS;
        for (size_t i = 0; i < shown; i++) {
            const hr_json_t *o = hr_json_at(arr, i);
            if (csv) {
                hr_emit_cell_str(em, trace);
                hr_emit_cell_str(em, alloc);
            }
            for (int j = 0; j < n; j++)
                hr_report_cell_value(em, hr_json_get(o, keys[j]));
            hr_emit_row_end(em);
        }
        hr_emit_table_end(em);
        if (shown < rows)
            fprintf(em->out, "(%zu more rows in the JSON and CSV reports)\n\n", rows - shown);
    }
}

/* The engine's pools of a trace and where each was replayed (the first
 * result of the trace that has "pools"; every row of a trace has the same). */
static void print_pools(FILE *out, const hr_report_view_t *v, const char *trace, int md) {
    const hr_result_t *first = NULL;
    for (size_t i = 0; i < v->n && !first; i++)
        if (hr_result_of_trace(&v->rows[i], trace))
            first = &v->rows[i];
    if (!first || !hr_result_n_pools(first))
        return;
    fprintf(out, "%spools (the engine's own allocators, hr_alloc_named):", md ? "- " : "");
    hr_result_pool_t p;
    for (size_t i = 0; hr_result_pool(first, i, &p) == 0; i++) {
        char peak[32];
        hr_fmt_bytes(peak, sizeof peak, p.peak_live_bytes);
        fprintf(out, "%s %s (%.0f allocs, peak live %s) -> %s", i ? ";" : "", p.name, p.allocs,
                peak, p.replayed_as);
    }
    fputs("\n\n", out);
}

/* Everything of one trace the summary leaves out (--detail): the long
 * comparison table with its notes, pools, ranking lines, ns/op by op type and
 * the native tables. */
void hr_report_detail_trace(hr_emit_t *em, const hr_report_view_t *v, const char *trace, int md) {
    const char *cols[N_MAIN_COLS_MAX];
    char names[N_MAIN_COLS_MAX][48], title[512];
    int ncols = main_cols(cols, names);
    const char *digest = NULL;
    for (size_t i = 0; i < v->n && !digest; i++)
        if (hr_result_of_trace(&v->rows[i], trace))
            digest = v->rows[i].trace_digest;
    snprintf(title, sizeof title, "trace %s (digest %s)", trace, digest ? digest : "-");
    hr_emit_table_begin(em, title, ncols, cols);
    for (size_t i = 0; i < v->n; i++)
        if (hr_result_of_trace(&v->rows[i], trace))
            main_row(em, &v->rows[i]);
    hr_emit_table_end(em);
    print_notes(em->out, v, trace, md);
    print_pools(em->out, v, trace, md);
    hr_report_ranking(em->out, v, trace, md);
    per_op_table(em, v, trace);
    for (size_t i = 0; i < v->n; i++)
        if (hr_result_of_trace(&v->rows[i], trace))
            hr_report_native_tables(em, &v->rows[i], 0);
}
