/* Report building, validation and rendering (see report.h). */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "report/detail.h"
#include "report/predict.h"
#include "report/summary.h"
#include "trace/trace.h"

/* ---- building and checking -------------------------------------------- */

hr_json_t *hr_report_new(const char *tool_version) {
    hr_json_t *r = hr_json_new_object();
    if (!r)
        return NULL;
    if (hr_json_set(r, "schema", hr_json_new_str(HR_REPORT_SCHEMA)) < 0 ||
        hr_json_set(r, "schema_version", hr_json_new_u64(HR_REPORT_SCHEMA_VERSION)) < 0 ||
        hr_json_set(r, "tool_version", hr_json_new_str(tool_version ? tool_version : "?")) < 0) {
        hr_json_free(r);
        return NULL;
    }
    return r;
}

int hr_report_validate(const hr_json_t *doc, const char *name, hr_error_t *err) {
    const char *schema = hr_json_path_str(doc, "schema");
    uint64_t ver = 0;
    if (hr_json_type(doc) != HR_JSON_OBJECT || !schema || strcmp(schema, HR_REPORT_SCHEMA) != 0) {
        hr_error_set(err, "%s: expected a report with \"schema\": \"%s\"", name, HR_REPORT_SCHEMA);
        return -1;
    }
    if (hr_json_get_u64(hr_json_get(doc, "schema_version"), &ver) < 0 ||
        ver < HR_REPORT_SCHEMA_VERSION_MIN || ver > HR_REPORT_SCHEMA_VERSION) {
        hr_error_set(err, "%s: expected \"schema_version\" %d to %d (the versions this "
                     "heapreplay reads)", name, HR_REPORT_SCHEMA_VERSION_MIN,
                     HR_REPORT_SCHEMA_VERSION);
        return -1;
    }
    const hr_json_t *results = hr_json_get(doc, "results");
    if (hr_json_type(results) != HR_JSON_ARRAY) {
        hr_error_set(err, "%s: expected \"results\" to be an array", name);
        return -1;
    }
    for (size_t i = 0; i < hr_json_len(results); i++) {
        const hr_json_t *r = hr_json_at(results, i);
        if (!hr_json_path_str(r, "trace") || !hr_json_path_str(r, "allocator") ||
            !hr_json_path_str(r, "status")) {
            hr_error_set(err, "%s: results[%zu]: expected an object with string "
                     "\"trace\", \"allocator\" and \"status\"", name, i);
            return -1;
        }
    }
    return 0;
}

hr_json_t *hr_report_load(const char *path, hr_error_t *err) {
    hr_json_t *doc = hr_json_parse_file(path, err);
    if (doc && hr_report_validate(doc, path, err) < 0) {
        hr_json_free(doc);
        return NULL;
    }
    return doc;
}

const char *hr_report_trace_base(const char *path) {
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "";
}

/* ---- units ------------------------------------------------------------- */

void hr_fmt_bytes(char *buf, size_t n, double b) {
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double a = fabs(b);
    if (!isfinite(b)) {
        snprintf(buf, n, "-");
        return;
    }
    while (a >= 1024 && u < 4) {
        a /= 1024;
        b /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%.0f B", b);
    else
        snprintf(buf, n, "%.2f %s", b, unit[u]);
}

void hr_fmt_rate(char *buf, size_t n, double r) {
    if (!isfinite(r))
        snprintf(buf, n, "-");
    else if (r < 1e3)
        snprintf(buf, n, "%.0f", r);
    else if (r < 1e6)
        snprintf(buf, n, "%.1f k", r / 1e3);
    else if (r < 1e9)
        snprintf(buf, n, "%.2f M", r / 1e6);
    else
        snprintf(buf, n, "%.2f G", r / 1e9);
}

void hr_fmt_ns(char *buf, size_t n, double ns) {
    if (!isfinite(ns))
        snprintf(buf, n, "-");
    else if (ns < 1e3)
        snprintf(buf, n, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, n, "%.1f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, n, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, n, "%.2f s", ns / 1e9);
}

int hr_result_ok(const hr_json_t *r) {
    const char *s = hr_json_path_str(r, "status");
    return s && strcmp(s, "ok") == 0;
}

int hr_result_of_trace(const hr_json_t *r, const char *trace) {
    const char *t = hr_json_path_str(r, "trace");
    return t && strcmp(t, trace) == 0;
}

void hr_report_cell_unit(hr_emit_t *em, double v, hr_fmt_fn fmt) {
    char buf[48];
    if (!isfinite(v)) {
        hr_emit_cell_str(em, NULL);
        return;
    }
    fmt(buf, sizeof buf, v);
    hr_emit_cell_str(em, buf);
}

void hr_report_cell_pct(hr_emit_t *em, double ratio) {
    char buf[32];
    if (!isfinite(ratio)) {
        hr_emit_cell_str(em, NULL);
        return;
    }
    snprintf(buf, sizeof buf, "%.1f%%", ratio * 100);
    hr_emit_cell_str(em, buf);
}

static void print_header(FILE *out, const hr_json_t *rep, int md) {
    const hr_json_t *m = hr_json_get(rep, "machine"), *o = hr_json_get(rep, "options");
    const char *touch = hr_json_path_str(o, "touch");
    if (!touch)
        touch = hr_json_path_str(rep, "results.0.touch");
    char mem[32];
    hr_fmt_bytes(mem, sizeof mem, hr_json_path_num(m, "mem_bytes"));
    fprintf(out, "%sheapreplay %s report (schema %s v%.0f)\n\n", md ? "## " : "",
            hr_json_path_str(rep, "tool_version") ? hr_json_path_str(rep, "tool_version") : "?",
            HR_REPORT_SCHEMA, hr_json_path_num(rep, "schema_version"));
    if (hr_json_path_str(rep, "created"))
        fprintf(out, "%screated: %s\n", md ? "- " : "", hr_json_path_str(rep, "created"));
    if (hr_json_path_str(rep, "interrupted"))
        fprintf(out, "%sINTERRUPTED by %s: only the rows finished before it (a row marked\n"
                "%sinterrupted has fewer samples than asked for)\n", md ? "- " : "",
                hr_json_path_str(rep, "interrupted"), md ? "  " : "");
    fprintf(out, "%smachine: %s, %s, %.0f cores, %s, %s, cycle counter %.3f GHz\n", md ? "- " : "",
            hr_json_path_str(m, "hostname") ? hr_json_path_str(m, "hostname") : "?",
            hr_json_path_str(m, "cpu") ? hr_json_path_str(m, "cpu") : "?",
            hr_json_path_num(m, "cores"), mem,
            hr_json_path_str(m, "os") ? hr_json_path_str(m, "os") : "?",
            hr_json_path_num(m, "cycle_hz") / 1e9);
    /* touch first and always: it changes both RSS and time; the access model
     * (reports that have one) next to it, for the same reason */
    fprintf(out, "%soptions: touch=%s", md ? "- " : "", touch ? touch : "unknown");
    if (hr_json_path_str(o, "access"))
        fprintf(out, " access=%s", hr_json_path_str(o, "access"));
    for (size_t i = 0; i < hr_json_len(o) && hr_json_type(o) == HR_JSON_OBJECT; i++) {
        if (strcmp(hr_json_key_at(o, i), "touch") == 0 || strcmp(hr_json_key_at(o, i), "access") == 0)
            continue;
        char *s = hr_json_str(hr_json_at(o, i)) ? NULL : hr_json_to_string(hr_json_at(o, i), 1);
        fprintf(out, " %s=%s", hr_json_key_at(o, i), s ? s : hr_json_str(hr_json_at(o, i)));
        free(s);
    }
    fputs("\n\n", out);
}

int hr_report_traces(const hr_json_t *results, const char **out, int max) {
    int n = 0;
    for (size_t i = 0; i < hr_json_len(results); i++) {
        const char *t = hr_json_path_str(hr_json_at(results, i), "trace");
        int seen = 0;
        for (int j = 0; j < n && !seen; j++)
            seen = strcmp(out[j], t) == 0;
        if (!seen && n < max)
            out[n++] = t;
    }
    return n;
}

/* The header, wrapped to the summary's width in text (the options line is
 * long). */
static void header(FILE *out, const hr_json_t *rep, int md) {
    hr_prose_t p;
    FILE *f = hr_prose_open(&p);
    if (!f) {
        print_header(out, rep, md);
        return;
    }
    print_header(f, rep, md);
    hr_prose_close(&p, out, md);
}

/* The default output is the header and every trace's summary; with
 * `detail` the detail sections follow, so the default is a prefix. */
static void render_tables(const hr_json_t *rep, hr_emit_t *em, int md, int detail) {
    const hr_json_t *results = hr_json_get(rep, "results");
    const char *traces[256];
    int nt = hr_report_traces(results, traces, 256);
    if (em->format != HR_EMIT_HTML) /* the HTML page writes its own header (html.c) */
        header(em->out, rep, md);
    for (int t = 0; t < nt; t++) {
        hr_summary_trace(em, results, traces[t], md);
        hr_report_predict_table(em, results, traces[t]);
    }
    if (nt == 0)
        fputs("(no results)\n", em->out);
    if (!detail || nt == 0)
        return;
    fputs(md ? "## details\n\n" : "details (--detail)\n\n", em->out);
    for (int t = 0; t < nt; t++)
        hr_report_detail_trace(em, results, traces[t], md);
}

/* ---- CSV --------------------------------------------------------------- */

/* Columns every CSV has, whether or not a result has them: the result head,
 * then the registry's HR_MF_CSV metrics in registry order (a family expanded
 * over the op table). Other leaves follow, sorted. */
static const char *const csv_head[] = {"trace", "trace_digest", "allocator", "status",
                                       "error", "signal", "runs", "touch"};
#define N_CSV_HEAD ((int)(sizeof csv_head / sizeof csv_head[0]))

/* The CSV's fixed columns; a ranged metric is followed by its PATH_min and
 * PATH_max (the builder writes them, base/metrics.h HR_MERGE_RANGE). */
static int csv_fixed(const char **cols, char (*names)[64], int max) {
    int n = 0, nn = 0;
    for (int i = 0; i < N_CSV_HEAD; i++)
        cols[n++] = csv_head[i];
    for (int k = 0; k < HR_M__COUNT && n < max; k++) {
        const hr_metric_t *m = &hr_metrics[k];
        if (!(m->flags & HR_MF_CSV))
            continue;
        if (!m->family) {
            cols[n++] = m->path;
            for (int e = 0; m->merge == HR_MERGE_RANGE && e < 2 && n < max; e++) {
                snprintf(names[nn], sizeof names[nn], "%s%s", m->path, e ? "_max" : "_min");
                cols[n++] = names[nn++];
            }
            continue;
        }
        for (unsigned op = 0; op < HR_OP__COUNT && n < max; op++) {
            if ((m->family == HR_MFAM_MEM_OPS && !hr_op_is_mem(op)) || hr_op_is_pool(op) ||
                hr_op_is_hint(op)) /* pool: lowered; hint: not in every trace */
                continue;
            char group[32];
            snprintf(names[nn], sizeof names[nn], "%s.%s", hr_metric_group(m, group, sizeof group),
                     hr_op_info[op].key);
            cols[n++] = names[nn++];
        }
    }
    return n;
}

typedef struct leaf {
    char             path[192];
    const hr_json_t *v;
} leaf_t;

typedef struct leaves {
    leaf_t *l;
    int     n, cap;
} leaves_t;

/* Flatten non-null scalars (and arrays other than arrays of objects, which
 * get their own sections) into dotted paths. A result's "samples" stay in
 * the JSON: the CSV has their summary (PATH_min, PATH_max, PATH_mad); its
 * "series" (up to 512 points per array, for charts) stay there too. */
static void flatten(leaves_t *out, const char *prefix, const hr_json_t *v) {
    if (hr_json_type(v) == HR_JSON_OBJECT) {
        for (size_t i = 0; i < hr_json_len(v); i++) {
            if (!*prefix && (strcmp(hr_json_key_at(v, i), "samples") == 0 ||
                             strcmp(hr_json_key_at(v, i), "series") == 0))
                continue;
            char p[192];
            snprintf(p, sizeof p, "%s%s%s", prefix, *prefix ? "." : "", hr_json_key_at(v, i));
            flatten(out, p, hr_json_at(v, i));
        }
        return;
    }
    if (hr_json_type(v) == HR_JSON_NULL || hr_report_is_object_array(v))
        return;
    if (out->n == out->cap) {
        int cap = out->cap ? out->cap * 2 : 64;
        leaf_t *l = realloc(out->l, (size_t)cap * sizeof *l);
        if (!l)
            return;
        out->l = l;
        out->cap = cap;
    }
    snprintf(out->l[out->n].path, sizeof out->l[0].path, "%s", prefix);
    out->l[out->n++].v = v;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void render_csv(const hr_json_t *rep, hr_emit_t *em) {
    const hr_json_t *results = hr_json_get(rep, "results");
    size_t nr = hr_json_len(results);
    leaves_t *lv = calloc(nr ? nr : 1, sizeof *lv);
    const char *cols[HR_EMIT_MAX_COLS];
    char fam_names[2 * HR_OP__COUNT + 2 * HR_M__COUNT][64];
    int nc, nfixed;
    if (!lv)
        return;
    nc = nfixed = csv_fixed(cols, fam_names, HR_EMIT_MAX_COLS);
    for (size_t i = 0; i < nr; i++) {
        flatten(&lv[i], "", hr_json_at(results, i));
        for (int j = 0; j < lv[i].n; j++) {
            int seen = 0;
            for (int c = 0; c < nc && !seen; c++)
                seen = strcmp(cols[c], lv[i].l[j].path) == 0;
            if (!seen && nc < HR_EMIT_MAX_COLS)
                cols[nc++] = lv[i].l[j].path;
        }
    }
    qsort(cols + nfixed, (size_t)(nc - nfixed), sizeof cols[0], cmp_str); /* stable order */
    hr_emit_table_begin(em, NULL, nc, cols);
    for (size_t i = 0; i < nr; i++) {
        for (int c = 0; c < nc; c++) {
            const hr_json_t *v = NULL;
            for (int j = 0; j < lv[i].n && !v; j++)
                if (strcmp(lv[i].l[j].path, cols[c]) == 0)
                    v = lv[i].l[j].v;
            hr_report_cell_value(em, v);
        }
        hr_emit_row_end(em);
    }
    hr_emit_table_end(em);
    for (size_t i = 0; i < nr; i++) {
        hr_report_native_tables(em, hr_json_at(results, i), 1);
        free(lv[i].l);
    }
    free(lv);
}

hr_render_opts_t hr_render_opts_default(void) {
    hr_render_opts_t o = {0};
    return o;
}

int hr_report_render(const hr_json_t *report, hr_emit_format_t fmt, FILE *out) {
    hr_render_opts_t o = hr_render_opts_default();
    return hr_report_render_opts(report, fmt, &o, out);
}

int hr_report_render_opts(const hr_json_t *report, hr_emit_format_t fmt,
                          const hr_render_opts_t *opts, FILE *out) {
    hr_emit_t em;
    hr_emit_init(&em, out, fmt);
    switch (fmt) {
    case HR_EMIT_JSON:
        hr_json_emit(&em, NULL, report);
        hr_emit_end(&em);
        break;
    case HR_EMIT_CSV: render_csv(report, &em); break;
    case HR_EMIT_TEXT: render_tables(report, &em, 0, opts->detail); break;
    case HR_EMIT_MARKDOWN: render_tables(report, &em, 1, opts->detail); break;
    case HR_EMIT_HTML: render_tables(report, &em, 0, opts->detail); break; /* a fragment: report.h */
    }
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
