/* Ranking lines (see ranking.h). */
#include "report/ranking.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "report/stats.h"

#define HR_RANK_MAX 64

typedef struct ranked {
    const char *name;
    int         unstable;
    hr_spread_t s;
} ranked_t;

static int cmp_center(const void *a, const void *b) {
    double x = ((const ranked_t *)a)->s.center, y = ((const ranked_t *)b)->s.center;
    return x < y ? -1 : x > y;
}

/* The ok results of `trace` that have the figure, sorted (lower is better). */
static int collect(const hr_json_t *results, const char *trace, const char *path, ranked_t *out) {
    int n = 0;
    for (size_t i = 0; i < hr_json_len(results) && n < HR_RANK_MAX; i++) {
        const hr_json_t *r = hr_json_at(results, i);
        const char *st = hr_json_path_str(r, "status"), *tr = hr_json_path_str(r, "trace");
        if (!st || strcmp(st, "ok") != 0 || !tr || strcmp(tr, trace) != 0)
            continue;
        hr_spread_of(r, path, &out[n].s);
        if (out[n].s.n == 0 || isnan(out[n].s.center))
            continue;
        out[n].name = hr_json_path_str(r, "allocator");
        out[n].unstable = hr_json_is_true(hr_json_get(r, "unstable"));
        n++;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_center);
    return n;
}

/* "<" separated, "≈" overlapping, "?" unknown (a single sample). */
static const char *joiner(const hr_spread_t *a, const hr_spread_t *b) {
    if (a->n < 2 || b->n < 2 || isnan(a->max) || isnan(b->min))
        return "?";
    return a->max < b->min ? "<" : "≈";
}

static int rank_line(FILE *out, const hr_json_t *results, const char *trace,
                      const hr_metric_t *m, const char *label, int md) {
    static ranked_t rk[HR_RANK_MAX];
    int n = collect(results, trace, m->path, rk);
    if (n < 2)
        return 0;
    fprintf(out, "%s%s: ", md ? "- " : "  ", label);
    for (int i = 0; i < n; i++) {
        if (i)
            fprintf(out, " %s ", joiner(&rk[i - 1].s, &rk[i].s));
        fprintf(out, "%s%s %.3g", rk[i].unstable ? "~" : "", rk[i].name, rk[i].s.center);
    }
    fputc('\n', out);
    return 1;
}

void hr_report_ranking(FILE *out, const hr_json_t *results, const char *trace, int md) {
    const hr_metric_t *rank = NULL;
    for (int k = 0; k < HR_M__COUNT && !rank; k++)
        if (hr_metrics[k].flags & HR_MF_RANK)
            rank = &hr_metrics[k];
    if (!rank)
        return;
    int any = rank_line(out, results, trace, rank,
                        "ranking by warm ns/op (thread CPU; < separated, ≈ within noise)", md);
    any |= rank_line(out, results, trace, &hr_metrics[HR_M_COLD_NS_PER_OP],
                     "ranking by cold ns/op", md);
    if (any)
        fputc('\n', out);
}
