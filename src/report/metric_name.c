/* Metric names as users and charts write them (see metric_name.h). */
#include "report/metric_name.h"

#include <ctype.h>
#include <string.h>

void hr_compare_metric_from(const hr_metric_t *r, hr_compare_metric_t *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", r->alias ? r->alias : r->path);
    snprintf(out->path, sizeof out->path, "%s", r->path);
    out->higher_better = (r->flags & HR_MF_HIGHER) != 0;
    out->def = r;
}

int hr_compare_metric_lookup(const char *name, hr_compare_metric_t *out) {
    memset(out, 0, sizeof *out);
    const hr_metric_t *r = hr_metric_by_alias(name);
    if (r || ((r = hr_metric_by_path(name)) && !r->family && r->alias)) {
        hr_compare_metric_from(r, out);
        return 0;
    }
    /* Any other dotted path of identifiers is taken as is; a registered one
     * keeps its direction. */
    size_t n = strlen(name);
    if (!strchr(name, '.') || n >= sizeof out->path || name[0] == '.' || name[n - 1] == '.')
        return -1;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.')
            return -1;
    snprintf(out->name, sizeof out->name, "%.31s", name);
    snprintf(out->path, sizeof out->path, "%s", name);
    r = hr_metric_by_path(name);
    out->higher_better = r && (r->flags & HR_MF_HIGHER);
    out->def = r;
    return 0;
}

int hr_svg_metric_path(const char *metric, char *path, size_t n, hr_error_t *err) {
    hr_compare_metric_t m;
    const hr_metric_t *leaf;
    if (metric && hr_compare_metric_lookup(metric, &m) == 0) {
        snprintf(path, n, "%s", m.path);
        return 0;
    }
    if (metric && (leaf = hr_metric_by_leaf(metric))) {
        snprintf(path, n, "%s", leaf->path);
        return 0;
    }
    hr_error_set(err, "--metric: unknown metric \"%s\" (expected e.g. ops_per_s, "
                 "peak_footprint, p99, or a dotted path)", metric ? metric : "");
    return -1;
}

void hr_svg_metric_names(FILE *out) {
    const char *dflt = HR_SVG_METRIC_DEFAULT;
    int col = 9;
    fputs("metrics:", out);
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < HR_M__COUNT; k++) {
            const hr_metric_t *m = &hr_metrics[k];
            const char *name = pass == 0 ? m->alias : (m->flags & HR_MF_PLOT) ? hr_metric_key(m) : NULL;
            if (!name || (pass == 1 && m->alias && strcmp(name, m->alias) == 0))
                continue;
            if (col + strlen(name) + 2 > 78) {
                fputs("\n        ", out);
                col = 8;
            }
            col += fprintf(out, " %s%s", name, strcmp(name, dflt) == 0 ? " (default)," : ",");
        }
    fputs("\n         or any dotted path of a number in a result (e.g. native.native_ops)\n"
          "kinds:   bars (default: --metric per trace and allocator), summary\n"
          "         (--metric relative to --baseline, min-max bars of the repeats),\n"
          "         memory (footprint over time), frames (allocator time per frame,\n"
          "         --frame-budget line), latency (CDF of op latency), all (summary,\n"
          "         memory, frames and latency one under the other)\n", out);
}

const char *hr_svg_metric_words(const hr_metric_t *m, const char *path) {
    static const struct { const char *path, *words; } w[] = {
        {"time.ops_per_s", "Throughput"}, {"time.ns_per_op", "Time per op (warm)"},
        {"time.cold_ns_per_op", "Time per op (cold, first lap)"},
        {"time.wall_s", "Wall time"}, {"time.cpu_s", "CPU time"},
        {"latency_ns.p50", "Median op latency"}, {"latency_ns.p90", "90th percentile latency"},
        {"latency_ns.p99", "99th percentile latency"},
        {"latency_ns.p999", "99.9th percentile latency"}, {"latency_ns.max", "Slowest op"},
        {"worst_frame.ns", "Worst frame"}, {"memory.peak_live", "Peak live bytes"},
        {"memory.peak_footprint", "Peak footprint"},
        {"memory.peak_rss_above_baseline", "Peak RSS above baseline"},
        {"memory.frag_jw4", "Fragmentation (J&W #4)"}, {"memory.frag_jw3", "Fragmentation (J&W #3)"},
        {"memory.internal_slop", "Internal slop"}, {"count.per_op", "Instructions per op"},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strcmp(w[i].path, path) == 0)
            return w[i].words;
    return m && m->column ? m->column : path;
}
