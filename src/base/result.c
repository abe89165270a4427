/* Decoding a result object into the typed result (see result.h). The field
 * table below is generated from the metric registry, as the struct is: the
 * registry's paths are read here and nowhere else in the report code. */
#include "base/result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Where each metric's field lives in hr_result_metrics_t; `range`: the
 * offset of its _min (then _max, _mad), 0 when it has none. */
#define HR_RESULT_RANGE_OFF_FIRST(id) 0
#define HR_RESULT_RANGE_OFF_MEDIAN(id) 0
#define HR_RESULT_RANGE_OFF_EXACT(id) 0
#define HR_RESULT_RANGE_OFF_RANGE(id) offsetof(hr_result_metrics_t, id##_min)
#define HR_RESULT_OFF_(id, path, unit, type, merge, exact, src, fam, ...) \
    {offsetof(hr_result_metrics_t, id), HR_RESULT_RANGE_OFF_##merge(id)},
static const struct {
    size_t at, range;
} field[HR_M__COUNT] = {HR_METRIC_LIST(HR_RESULT_OFF_)};
#undef HR_RESULT_OFF_

static double *num_at(hr_result_metrics_t *m, size_t off) { return (double *)((char *)m + off); }

/* A ranged metric's summary: PATH_min, PATH_max, PATH_mad. */
static void decode_range(const hr_json_t *r, const hr_metric_t *def, double *out) {
    static const char *const suffix[] = {"_min", "_max", "_mad"};
    char p[160];
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", def->path, suffix[i]);
        out[i] = hr_json_path_num(r, p);
    }
}

static void decode_family(const hr_json_t *r, const hr_metric_t *def,
                          const char *const *op_keys, unsigned n_ops, double *out) {
    char group[64];
    const hr_json_t *g = hr_json_get(r, hr_metric_group(def, group, sizeof group));
    for (unsigned op = 0; op < HR_RESULT_MAX_OPS; op++) /* the group's member, not a path */
        out[op] = op < n_ops && op_keys[op] ? hr_json_num(hr_json_get(g, op_keys[op]), NAN) : NAN;
}

static int flag(const hr_json_t *r, const char *key) {
    return hr_json_is_true(hr_json_get(r, key));
}

void hr_result_decode(const hr_json_t *r, const char *const *op_keys, unsigned n_ops,
                      hr_result_t *out) {
    memset(out, 0, sizeof *out);
    out->json = r;
    out->trace = hr_json_path_str(r, "trace");
    out->trace_digest = hr_json_path_str(r, "trace_digest");
    out->allocator = hr_json_path_str(r, "allocator");
    out->status = hr_json_path_str(r, "status");
    out->error = hr_json_path_str(r, "error");
    out->touch = hr_json_path_str(r, "touch");
    out->signal = hr_json_path_num(r, "signal");
    out->runs = hr_json_path_num(r, "runs");
    out->unstable = flag(r, "unstable");
    out->mostly_fallback = flag(r, "mostly_fallback");
    out->deterministic = flag(r, "deterministic");
    out->interrupted = flag(r, "interrupted");
    out->series = hr_json_get(r, "series");
    out->native = hr_json_get(r, "native");
    out->samples = hr_json_get(r, "samples");
    out->predict = hr_json_get(r, "predict");
    for (int k = 0; k < HR_M__COUNT; k++) {
        const hr_metric_t *def = &hr_metrics[k];
        if (def->family)
            decode_family(r, def, op_keys, n_ops, num_at(&out->m, field[k].at));
        else if (def->type == HR_MT_STR)
            *(const char **)((char *)&out->m + field[k].at) = hr_json_path_str(r, def->path);
        else
            *num_at(&out->m, field[k].at) = hr_metric_value(def, r);
        if (field[k].range)
            decode_range(r, def, num_at(&out->m, field[k].range));
    }
}

double hr_result_num(const hr_result_metrics_t *m, hr_metric_id_t id, unsigned op, int stat) {
    const hr_metric_t *def = &hr_metrics[id];
    hr_result_metrics_t *mm = (hr_result_metrics_t *)m;
    if (def->type == HR_MT_STR && !def->family)
        return NAN;
    if (def->family)
        return op < HR_RESULT_MAX_OPS && stat == 0 ? num_at(mm, field[id].at)[op] : NAN;
    if (stat == 0)
        return *num_at(mm, field[id].at);
    return field[id].range && stat <= 3 ? num_at(mm, field[id].range)[stat - 1] : NAN;
}

const char *hr_result_str(const hr_result_metrics_t *m, hr_metric_id_t id) {
    if (hr_metrics[id].type != HR_MT_STR || hr_metrics[id].family)
        return NULL;
    return *(const char *const *)((const char *)m + field[id].at);
}
