/* Reading a report and its results, and the table number formats (see
 * access.h). */
#include "report/access.h"

#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "trace/trace.h"

_Static_assert(HR_OP__COUNT <= HR_RESULT_MAX_OPS, "the typed result has room for every op");

void hr_report_result(const hr_json_t *r, hr_result_t *out) {
    static const char *keys[HR_OP__COUNT];
    if (!keys[0])
        for (unsigned op = 0; op < HR_OP__COUNT; op++)
            keys[op] = hr_op_info[op].key;
    hr_result_decode(r, keys, HR_OP__COUNT, out);
}

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

/* 1 when a number in v (or below it) is not finite (the parser reads
 * 1e999 as infinity): the cheap walk every report gets. */
static int any_nonfinite(const hr_json_t *v) {
    if (hr_json_type(v) == HR_JSON_NUMBER)
        return !isfinite(v->num);
    if (hr_json_type(v) != HR_JSON_ARRAY && hr_json_type(v) != HR_JSON_OBJECT)
        return 0;
    for (size_t i = 0, n = hr_json_len(v); i < n; i++)
        if (any_nonfinite(hr_json_at(v, i)))
            return 1;
    return 0;
}

/* The first such number's path into where, -1; else 0. Paths read as a
 * reader would write them: "results[3].time.ns_per_op". */
static int nonfinite_in(const hr_json_t *v, const char *at, char *where, size_t wn, double *got) {
    if (hr_json_type(v) == HR_JSON_NUMBER && !isfinite(v->num)) {
        snprintf(where, wn, "%s", *at ? at : "(the document)");
        *got = v->num;
        return -1;
    }
    int obj = hr_json_type(v) == HR_JSON_OBJECT;
    if (!obj && hr_json_type(v) != HR_JSON_ARRAY)
        return 0;
    for (size_t i = 0; i < hr_json_len(v); i++) {
        char p[256];
        if (obj)
            snprintf(p, sizeof p, "%s%s%s", at, *at ? "." : "", hr_json_key_at(v, i));
        else
            snprintf(p, sizeof p, "%s[%zu]", at, i);
        if (nonfinite_in(hr_json_at(v, i), p, where, wn, got) < 0)
            return -1;
    }
    return 0;
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
        char where[192], what[128];
        if (hr_result_check(hr_json_at(results, i), where, sizeof where, what, sizeof what) < 0) {
            hr_error_set(err, "%s: results[%zu]%s%s: %s", name, i, *where ? "." : "", where, what);
            return -1;
        }
    }
    char where[256];
    double bad;
    if (any_nonfinite(doc) && nonfinite_in(doc, "", where, sizeof where, &bad) < 0) {
        hr_error_set(err, "%s: %s: expected a finite number, got %s", name, where,
                     isnan(bad) ? "nan" : bad < 0 ? "-inf" : "inf");
        return -1;
    }
    return 0;
}

hr_json_t *hr_report_load(const char *path, hr_error_t *err) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (long long)st.st_size > HR_REPORT_MAX_BYTES) {
        hr_error_set(err, "%s: expected a report of at most %lld MiB, got %lld bytes (a larger "
                     "file is not parsed; docs/REPORT_SCHEMA.md, \"Limits\")", path,
                     HR_REPORT_MAX_BYTES >> 20, (long long)st.st_size);
        return NULL;
    }
    hr_json_t *doc = hr_json_parse_file_max(path, (size_t)HR_REPORT_MAX_BYTES, err);
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

int hr_result_ok(const hr_result_t *t) { return t->ok; }

int hr_result_exact_fp(const hr_result_t *t) {
    const char *src = t->m.FP_SOURCE;
    return src && strcmp(src, HR_FP_SOURCE_EXACT) == 0;
}

int hr_result_of_trace(const hr_result_t *t, const char *trace) {
    return t->trace && strcmp(t->trace, trace) == 0;
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

/* The distinct traces of the rows in first-seen order. */
static int view_traces(hr_report_view_t *v) {
    int cap = 0;
    for (size_t i = 0; i < v->n; i++) {
        const char *t = v->rows[i].trace;
        int seen = !t;
        for (int j = 0; j < v->ntraces && !seen; j++)
            seen = strcmp(v->traces[j], t) == 0;
        if (seen)
            continue;
        if (v->ntraces == cap) {
            const char **g = realloc(v->traces, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *g);
            if (!g)
                return -1;
            v->traces = g;
        }
        v->traces[v->ntraces++] = t;
    }
    return 0;
}

int hr_report_view_init(hr_report_view_t *v, const hr_json_t *doc) {
    return hr_report_view_results(v, doc, hr_json_get(doc, "results"));
}

int hr_report_view_results(hr_report_view_t *v, const hr_json_t *doc, const hr_json_t *results) {
    memset(v, 0, sizeof *v);
    v->doc = doc;
    size_t n = hr_json_type(results) == HR_JSON_ARRAY ? hr_json_len(results) : 0;
    if (n && !(v->rows = malloc(n * sizeof *v->rows)))
        return -1;
    for (v->n = 0; v->n < n; v->n++)
        hr_report_result(hr_json_at(results, v->n), &v->rows[v->n]);
    for (size_t i = 0; i < n; i++) { /* plan+X, oracle+X: the tables' names of routed rows */
        hr_result_t *r = &v->rows[i];
        int role = hr_result_route_role(r);
        if (role == HR_ROW_PLAIN)
            continue;
        if (!v->labels && !(v->labels = calloc(n, sizeof *v->labels))) {
            hr_report_view_free(v);
            return -1;
        }
        snprintf(v->labels[i], sizeof v->labels[i], "%s+%s",
                 role == HR_ROW_PLAN ? "plan" : "oracle", hr_result_route_general(r, NULL));
        r->spec = r->allocator;
        r->allocator = v->labels[i];
    }
    if (view_traces(v) < 0) {
        hr_report_view_free(v);
        v->doc = doc;
        return -1;
    }
    return 0;
}

int hr_report_view_trace(hr_report_view_t *sub, const hr_report_view_t *v, const char *trace) {
    memset(sub, 0, sizeof *sub);
    sub->doc = v->doc;
    if (v->n && !(sub->rows = malloc(v->n * sizeof *sub->rows)))
        return -1;
    for (size_t i = 0; i < v->n; i++)
        if (hr_result_of_trace(&v->rows[i], trace))
            sub->rows[sub->n++] = v->rows[i];
    if (view_traces(sub) < 0) {
        hr_report_view_free(sub);
        return -1;
    }
    return 0;
}

void hr_report_view_free(hr_report_view_t *v) {
    free(v->rows);
    free(v->labels);
    free(v->traces);
    memset(v, 0, sizeof *v);
}

int hr_results_unstable(const hr_stats_t *rank) {
    if (rank->n < HR_UNSTABLE_MIN_SAMPLES)
        return 0;
    double mad = hr_stats_rel_mad(rank), range = hr_stats_rel_range(rank);
    return mad > HR_UNSTABLE_MAD || range > HR_UNSTABLE_RANGE;
}

int hr_result_route_role(const hr_result_t *t) {
    const char *a = t->spec ? t->spec : t->allocator;
    if (!a || !t->json || !hr_json_get(t->json, "routing"))
        return HR_ROW_PLAIN;
    return strstr(a, "@site:") ? HR_ROW_PLAN : strchr(a, '+') ? HR_ROW_ORACLE : HR_ROW_PLAIN;
}

const char *hr_result_route_general(const hr_result_t *t, const char *spec) {
    const char *a = spec ? spec : t->spec ? t->spec : t->allocator, *plus = a ? strrchr(a, '+') : NULL;
    return plus ? plus + 1 : a;
}

int hr_result_mostly_fallback(const hr_result_t *t) {
    if (hr_result_route_role(t) != HR_ROW_PLAIN) /* judged against X alone instead */
        return 0;
    return hr_result_fallback_of(&t->m, HR_MOSTLY_FALLBACK);
}

void hr_report_command_program(char *buf, size_t n, const char *cmd) {
    if (!n)
        return;
    buf[0] = 0;
    if (!cmd)
        return;
    size_t end = strcspn(cmd, " "), start = end;
    while (start > 0 && cmd[start - 1] != '/')
        start--;
    snprintf(buf, n, "%.*s", (int)(end - start), cmd + start);
}

void hr_report_command_words(char *buf, size_t n, const char *cmd, size_t max) {
    if (!n)
        return;
    hr_report_command_program(buf, n, cmd);
    if (!cmd)
        return;
    const char *args = cmd + strcspn(cmd, " ");
    size_t have = strlen(buf), room = max > have ? max - have : 0;
    if (strlen(args) <= room)
        snprintf(buf + have, n - have, "%s", args);
    else
        snprintf(buf + have, n - have, "%.*s ...", (int)room, args);
}
