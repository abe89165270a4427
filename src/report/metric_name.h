/* Metric names as users write them (compare's --max-regress, plot's
 * --metric) resolved through the metric registry (base/metrics.h) to a
 * dotted result path, and the words charts use for them. Access floor:
 * used by compare and the charts alike. */
#ifndef HR_REPORT_METRIC_NAME_H
#define HR_REPORT_METRIC_NAME_H

#include <stdio.h>

#include "base/error.h"
#include "base/metrics.h"

/* The metric a chart draws when none is named. */
#define HR_SVG_METRIC_DEFAULT "throughput"

typedef struct hr_compare_metric {
    char   name[32];    /* as shown: the alias, or the path */
    char   path[128];   /* dotted path in a result */
    double pct;         /* allowed regression, percent */
    int    higher_better;
    const struct hr_metric *def; /* its registry entry, or NULL for an unregistered path */
    int    is_default;  /* from the registry's default gates, not --max-regress */
} hr_compare_metric_t;

/* `out` describes registry entry r (name: its alias, else its path). */
void hr_compare_metric_from(const hr_metric_t *r, hr_compare_metric_t *out);
/* Resolve an alias (throughput, ns_per_op, wall, p99, p999, max, peak, live,
 * rss, frag, slop, worst_frame) or a dotted path. 0 ok, -1 unknown name. */
int hr_compare_metric_lookup(const char *name, hr_compare_metric_t *out);

/* Resolve a chart's metric name to a dotted result path (compare alias,
 * dotted path, or a leaf name such as ops_per_s / peak_footprint); 0 ok, or
 * -1 with err set to one line naming the unknown metric and what was
 * expected. */
int hr_svg_metric_path(const char *metric, char *path, size_t n, hr_error_t *err);
/* Prints the names --metric accepts (from the metric registry), for help. */
void hr_svg_metric_names(FILE *out);
/* The metric's name in words ("Throughput", "Peak footprint"); falls back
 * to the table column label, then to the path. */
const char *hr_svg_metric_words(const hr_metric_t *m, const char *path);

#endif
