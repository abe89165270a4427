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
    static const struct { hr_metric_id_t id; const char *words; } w[] = {
        {HR_M_OPS_PER_S, "Throughput"}, {HR_M_NS_PER_OP, "Time per op (warm)"},
        {HR_M_COLD_NS_PER_OP, "Time per op (cold, first lap)"},
        {HR_M_WALL, "Wall time"}, {HR_M_CPU, "CPU time"},
        {HR_M_P50, "Median op latency"}, {HR_M_P90, "90th percentile latency"},
        {HR_M_P99, "99th percentile latency"},
        {HR_M_P999, "99.9th percentile latency"}, {HR_M_LAT_MAX, "Slowest op"},
        {HR_M_WF_NS, "Worst frame"}, {HR_M_PEAK_LIVE, "Peak live bytes"},
        {HR_M_PEAK_FP, "Peak footprint"},
        {HR_M_PEAK_RSS, "Peak RSS above baseline"},
        {HR_M_FRAG_JW4, "Fragmentation (J&W #4)"}, {HR_M_FRAG_JW3, "Fragmentation (J&W #3)"},
        {HR_M_SLOP, "Internal slop"}, {HR_M_COUNT_PER_OP, "Instructions per op"},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strcmp(hr_metrics[w[i].id].path, path) == 0)
            return w[i].words;
    return m && m->column ? m->column : path;
}
