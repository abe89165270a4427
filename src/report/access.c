/* Reading a report and its results, and the table number formats (see
 * access.h). */
#include "report/access.h"

#include <math.h>
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

int hr_report_traces(const hr_json_t *results, const char ***out) {
    const char **v = NULL;
    int n = 0, cap = 0;
    for (size_t i = 0; i < hr_json_len(results); i++) {
        const char *t = hr_json_path_str(hr_json_at(results, i), "trace");
        int seen = 0;
        for (int j = 0; j < n && !seen; j++)
            seen = strcmp(v[j], t) == 0;
        if (seen)
            continue;
        if (n == cap) {
            const char **g = realloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *g);
            if (!g) {
                hr_outfile_note_oom(); /* the report would lack traces */
                break;
            }
            v = g;
        }
        v[n++] = t;
    }
    *out = v;
    return n;
}

int hr_results_unstable(const hr_stats_t *rank) {
    if (rank->n < HR_UNSTABLE_MIN_SAMPLES)
        return 0;
    double mad = hr_stats_rel_mad(rank), range = hr_stats_rel_range(rank);
    return mad > HR_UNSTABLE_MAD || range > HR_UNSTABLE_RANGE;
}

int hr_result_mostly_fallback(const hr_json_t *r) {
    /* two figures by registry id: cheaper than decoding the whole result,
     * and called for every row a renderer draws */
    double nat = hr_metric_value(&hr_metrics[HR_M_NATIVE_OPS], r);
    double fb = hr_metric_value(&hr_metrics[HR_M_FALLBACK_OPS], r);
    return isfinite(nat) && isfinite(fb) && nat + fb > 0 && nat / (nat + fb) < HR_MOSTLY_FALLBACK;
}
