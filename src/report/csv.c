/* The CSV renderer (see csv.h). */
#include "report/csv.h"

#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "report/detail.h"
#include "report/wholeprog.h"
#include "trace/trace.h"

/* ---- CSV --------------------------------------------------------------- */

/* Columns every CSV has, whether or not a result has them: the result head,
 * then the registry's HR_MF_CSV metrics in registry order (a family expanded
 * over the op table). Other leaves follow, sorted. */
static const char *const csv_head[] = {HR_RK_TRACE, HR_RK_TRACE_DIGEST, HR_RK_ALLOCATOR,
                                       HR_RK_STATUS, HR_RK_ERROR, HR_RK_SIGNAL, HR_RK_RUNS,
                                       HR_RK_TOUCH};
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
            if (!*prefix && (strcmp(hr_json_key_at(v, i), HR_RK_SAMPLES) == 0 ||
                             strcmp(hr_json_key_at(v, i), HR_RK_SERIES) == 0))
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

void hr_report_csv(const hr_report_view_t *view, hr_emit_t *em) {
    size_t nr = view->n;
    leaves_t *lv = calloc(nr ? nr : 1, sizeof *lv);
    const char *cols[HR_EMIT_MAX_COLS];
    char fam_names[2 * HR_OP__COUNT + 2 * HR_M__COUNT][64];
    int nc, nfixed;
    if (!lv)
        return;
    nc = nfixed = csv_fixed(cols, fam_names, HR_EMIT_MAX_COLS);
    for (size_t i = 0; i < nr; i++) {
        flatten(&lv[i], "", view->rows[i].json);
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
        hr_report_native_tables(em, &view->rows[i], 1);
        free(lv[i].l);
    }
    free(lv);
    hr_wholeprog_csv(em, view); /* a program of several processes */
}
