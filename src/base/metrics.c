/* The metric registry table and the result writer (see metrics.h). */
#include "base/metrics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define HR_METRIC_ROW_(id, path, unit, type, merge, exact, src, fam, flags, alias, gate, cell,   \
                       col)                                                                     \
    [HR_M_##id] = {path,           alias,           col,           HR_UNIT_##unit, HR_MT_##type, \
                   HR_MERGE_##merge, HR_EXACT_##exact, HR_MSRC_##src, HR_CELL_##cell,            \
                   HR_MFAM_##fam,  (unsigned)(flags), gate},
#define CSV HR_MF_CSV
#define PLOT HR_MF_PLOT
#define HIGHER HR_MF_HIGHER
#define NULL_GROUP HR_MF_NULL_GROUP
#define NULLABLE HR_MF_NULLABLE
#define SAMPLES HR_MF_SAMPLES
#define RANK HR_MF_RANK
const hr_metric_t hr_metrics[HR_M__COUNT] = {HR_METRIC_LIST(HR_METRIC_ROW_)};
#undef CSV
#undef PLOT
#undef HIGHER
#undef NULL_GROUP
#undef NULLABLE
#undef SAMPLES
#undef RANK
#undef HR_METRIC_ROW_

size_t hr_metric_group_len(const hr_metric_t *m) {
    const char *dot = strchr(m->path, '.');
    return dot ? (size_t)(dot - m->path) : 0;
}

const char *hr_metric_key(const hr_metric_t *m) {
    size_t g = hr_metric_group_len(m);
    return m->path + (g ? g + 1 : 0);
}

const char *hr_metric_group(const hr_metric_t *m, char *buf, size_t n) {
    snprintf(buf, n, "%.*s", (int)hr_metric_group_len(m), m->path);
    return buf;
}

int hr_metric_exact_source(const hr_json_t *result) {
    const char *s = hr_json_path_str(result, hr_metrics[HR_M_FP_SOURCE].path);
    return s && strcmp(s, HR_FP_SOURCE_EXACT) == 0;
}

int hr_metric_sampled(const hr_metric_t *m, const hr_json_t *result) {
    return m->exact == HR_EXACT_MEASURED ||
           (m->exact == HR_EXACT_INHOUSE && !hr_metric_exact_source(result));
}

const hr_metric_t *hr_metric_by_path(const char *path) {
    for (int i = 0; i < HR_M__COUNT; i++) {
        const hr_metric_t *m = &hr_metrics[i];
        size_t g = hr_metric_group_len(m);
        if (strcmp(m->path, path) == 0)
            return m;
        if (m->family && strncmp(m->path, path, g + 1) == 0 && path[g + 1] &&
            !strchr(path + g + 1, '.'))
            return m;
    }
    return NULL;
}

const hr_metric_t *hr_metric_by_alias(const char *name) {
    for (int i = 0; i < HR_M__COUNT; i++)
        if (hr_metrics[i].alias && strcmp(hr_metrics[i].alias, name) == 0)
            return &hr_metrics[i];
    return NULL;
}

const hr_metric_t *hr_metric_by_leaf(const char *name) {
    for (int i = 0; i < HR_M__COUNT; i++)
        if ((hr_metrics[i].flags & HR_MF_PLOT) && strcmp(hr_metric_key(&hr_metrics[i]), name) == 0)
            return &hr_metrics[i];
    return NULL;
}

/* native.violations: the sum of the {kind: count} object's counts. */
static double violations_sum(const hr_json_t *r) {
    const hr_json_t *v = hr_json_path(r, hr_metrics[HR_M_VIOLATIONS].path);
    if (hr_json_type(v) != HR_JSON_OBJECT)
        return NAN;
    double sum = 0;
    for (size_t i = 0; i < hr_json_len(v); i++)
        sum += hr_json_num(hr_json_at(v, i), 0);
    return sum;
}

double hr_metric_value(const hr_metric_t *m, const hr_json_t *result) {
    if (m->source != HR_MSRC_RENDER)
        return hr_json_path_num(result, m->path);
    if (m == &hr_metrics[HR_M_VIOLATIONS])
        return violations_sum(result);
    if (m == &hr_metrics[HR_M_NATIVE_SHARE]) {
        double nat = hr_json_path_num(result, hr_metrics[HR_M_NATIVE_OPS].path);
        double fb = hr_json_path_num(result, hr_metrics[HR_M_FALLBACK_OPS].path);
        return isfinite(nat) && isfinite(fb) && nat + fb > 0 ? nat / (nat + fb) : NAN;
    }
    return NAN;
}

/* ---- writing ---------------------------------------------------------- */

static void put(hr_emit_t *em, const char *key, hr_mtype_t type, const hr_mval_t *v) {
    switch (type) {
    case HR_MT_U64: hr_emit_u64(em, key, v->v.u); break;
    case HR_MT_I64: hr_emit_i64(em, key, v->v.i); break;
    case HR_MT_F64: hr_emit_f64(em, key, v->v.d); break;
    case HR_MT_STR: hr_emit_str(em, key, v->v.s); break;
    }
}

/* Writes metric i (a family: one key per member op); absent values are
 * omitted or, when nullable, null. */
static void put_metric(hr_emit_t *em, int i, const hr_mval_t *vals, const hr_mfamily_t *fam) {
    const hr_metric_t *m = &hr_metrics[i];
    if (m->family) {
        const hr_mfamily_t *f = &fam[m->family];
        for (unsigned op = 0; op < f->n; op++) {
            if (!f->in[op])
                continue;
            if (f->vals[op].present)
                put(em, f->keys[op], m->type, &f->vals[op]);
            else if (m->flags & HR_MF_NULLABLE)
                hr_emit_null(em, f->keys[op]);
        }
        return;
    }
    if (vals[i].present)
        put(em, hr_metric_key(m), m->type, &vals[i]);
    else if (m->flags & HR_MF_NULLABLE)
        hr_emit_null(em, hr_metric_key(m));
}

static int same_group(const hr_metric_t *a, const hr_metric_t *b) {
    size_t g = hr_metric_group_len(a);
    return g && g == hr_metric_group_len(b) && strncmp(a->path, b->path, g) == 0;
}

/* A group has a value when any member is present (a family counts as
 * present: the op table always has members). */
static int group_has_value(int first, int end, const hr_mval_t *vals) {
    for (int i = first; i < end; i++)
        if (hr_metrics[i].family || vals[i].present)
            return 1;
    return 0;
}

void hr_metrics_emit(hr_emit_t *em, const hr_mval_t *vals, const hr_mfamily_t *fam) {
    for (int i = 0; i < HR_M__COUNT;) {
        const hr_metric_t *m = &hr_metrics[i];
        size_t g = hr_metric_group_len(m);
        int end = i + 1;
        while (g && end < HR_M__COUNT && same_group(m, &hr_metrics[end]))
            end++;
        if (m->source != HR_MSRC_ENGINE) {
            i = end;
            continue;
        }
        if (!g) {
            put_metric(em, i, vals, fam);
            i = end;
            continue;
        }
        char name[64];
        hr_metric_group(m, name, sizeof name);
        if (!group_has_value(i, end, vals)) {
            if (m->flags & HR_MF_NULL_GROUP)
                hr_emit_null(em, name);
            i = end;
            continue;
        }
        hr_emit_obj_begin(em, name);
        for (int k = i; k < end; k++)
            put_metric(em, k, vals, fam);
        hr_emit_obj_end(em);
        i = end;
    }
}
