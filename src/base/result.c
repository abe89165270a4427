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

static void decode_program(const hr_json_t *p, hr_result_program_t *out) {
    out->present = hr_json_type(p) == HR_JSON_OBJECT;
    out->cpu_s = hr_json_path_num(p, "cpu_s");
    out->cpu_s_min = hr_json_path_num(p, "cpu_s_min");
    out->cpu_s_max = hr_json_path_num(p, "cpu_s_max");
    out->wall_s = hr_json_path_num(p, "wall_s");
    out->max_rss = hr_json_path_num(p, "max_rss");
    out->runs = hr_json_path_num(p, "runs");
    out->timed = hr_json_path_str(p, "timed");
}

static void decode_predict(const hr_json_t *p, hr_result_predict_t *out) {
    out->present = p != NULL; /* as readers always took it: the key is there */
    out->alloc_s = hr_json_path_num(p, "alloc_s");
    out->change_s = hr_json_path_num(p, "change_s");
    out->change_pct = hr_json_path_num(p, "change_pct");
    out->interval_s_lo = hr_json_path_num(p, "interval_s_lo");
    out->interval_s_hi = hr_json_path_num(p, "interval_s_hi");
    out->noise_s = hr_json_path_num(p, "noise_s");
    out->rss_change_bytes = hr_json_path_num(p, "rss_change_bytes");
    out->paired = flag(p, "paired");
    out->within_noise = flag(p, "within_noise");
}

static void decode_violations(const hr_json_t *v, hr_result_violations_t *out) {
    out->present = hr_json_type(v) == HR_JSON_OBJECT;
    out->top = NULL;
    out->top_n = 0;
    out->kinds = 0;
    for (size_t i = 0; out->present && i < hr_json_len(v); i++) {
        double c = hr_json_num(hr_json_at(v, i), 0);
        out->kinds += c > 0;
        if (c > out->top_n) { /* the first of equal counts wins */
            out->top_n = c;
            out->top = hr_json_key_at(v, i);
        }
    }
}

static void decode_threads(const hr_json_t *pt, hr_result_t *out) {
    out->has_threads = pt != NULL;
    out->n_threads = hr_json_type(pt) == HR_JSON_ARRAY ? hr_json_len(pt) : 0;
    for (size_t k = 0; k < HR_RESULT_MAX_THREADS; k++)
        out->thread_ns[k] = k < out->n_threads ? hr_json_path_num(hr_json_at(pt, k), "ns_per_op")
                                               : NAN;
}

/* Which of op_keys a family's group object has. */
static uint32_t family_keys(const hr_json_t *g, const char *const *op_keys, unsigned n_ops) {
    uint32_t bits = 0;
    for (unsigned op = 0; op < n_ops && op < 32 && hr_json_type(g) == HR_JSON_OBJECT; op++)
        if (op_keys[op] && hr_json_get(g, op_keys[op]))
            bits |= (uint32_t)1 << op;
    return bits;
}

void hr_result_decode(const hr_json_t *r, const char *const *op_keys, unsigned n_ops,
                      hr_result_t *out) {
    memset(out, 0, sizeof *out);
    out->json = r;
    out->trace = hr_json_path_str(r, HR_RK_TRACE);
    out->trace_digest = hr_json_path_str(r, HR_RK_TRACE_DIGEST);
    out->allocator = hr_json_path_str(r, HR_RK_ALLOCATOR);
    out->status = hr_json_path_str(r, HR_RK_STATUS);
    out->error = hr_json_path_str(r, HR_RK_ERROR);
    out->touch = hr_json_path_str(r, HR_RK_TOUCH);
    out->signal = hr_json_path_num(r, HR_RK_SIGNAL);
    out->runs = hr_json_path_num(r, HR_RK_RUNS);
    out->unstable = flag(r, HR_RK_UNSTABLE);
    out->mostly_fallback = flag(r, HR_RK_MOSTLY_FALLBACK);
    out->deterministic = flag(r, HR_RK_DETERMINISTIC);
    out->interrupted = flag(r, HR_RK_INTERRUPTED);
    out->ok = out->status && strcmp(out->status, HR_RESULT_STATUS_OK) == 0;
    out->has_budget = hr_json_type(hr_json_get(r, HR_RK_BUDGET)) == HR_JSON_OBJECT;
    decode_threads(hr_json_get(r, HR_RK_PER_THREAD), out);
    decode_program(hr_json_get(r, HR_RK_PROGRAM), &out->program);
    decode_predict(hr_json_get(r, HR_RK_PREDICT), &out->predict);
    decode_violations(hr_json_path(r, hr_metrics[HR_M_VIOLATIONS].path), &out->violations);
    out->series = hr_json_get(r, HR_RK_SERIES);
    out->native = hr_json_get(r, HR_RK_NATIVE);
    out->samples = hr_json_get(r, HR_RK_SAMPLES);
    out->pools = hr_json_get(r, HR_RK_POOLS);
    for (int k = 0; k < HR_M__COUNT; k++) {
        const hr_metric_t *def = &hr_metrics[k];
        if (def->family) {
            char group[64];
            decode_family(r, def, op_keys, n_ops, num_at(&out->m, field[k].at));
            out->family_keys[k] = family_keys(hr_json_get(r, hr_metric_group(def, group, sizeof group)),
                                              op_keys, n_ops);
        } else if (def->type == HR_MT_STR) {
            *(const char **)((char *)&out->m + field[k].at) = hr_json_path_str(r, def->path);
        } else {
            *num_at(&out->m, field[k].at) = hr_metric_value(def, r);
        }
        if (field[k].range)
            decode_range(r, def, num_at(&out->m, field[k].range));
    }
}

int hr_result_samples(const hr_result_t *r, hr_metric_id_t id, double *v, int cap) {
    return hr_result_samples_at(r, hr_metrics[id].path, v, cap);
}

/* A registered scalar metric's id at `path`, or -1 (a family member or a
 * path the registry does not know). */
static int scalar_id(const char *path) {
    const hr_metric_t *m = hr_metric_by_path(path);
    return m && !m->family && strcmp(m->path, path) == 0 ? (int)(m - hr_metrics) : -1;
}

double hr_result_at(const hr_result_t *r, const char *path, int stat) {
    static const char *const suffix[] = {"", "_min", "_max", "_mad"};
    int id = scalar_id(path);
    if (id >= 0)
        return hr_result_num(&r->m, (hr_metric_id_t)id, 0, stat);
    char p[192];
    snprintf(p, sizeof p, "%s%s", path, suffix[stat & 3]);
    return hr_json_path_num(r->json, p);
}

int hr_result_samples_at(const hr_result_t *r, const char *path, double *v, int cap) {
    const hr_json_t *arr = hr_json_get(r->samples, path);
    int n = 0;
    for (size_t i = 0; i < hr_json_len(arr) && n < cap && hr_json_type(arr) == HR_JSON_ARRAY; i++)
        if (hr_json_type(hr_json_at(arr, i)) == HR_JSON_NUMBER)
            v[n++] = hr_json_num(hr_json_at(arr, i), NAN);
    return n;
}

size_t hr_result_n_pools(const hr_result_t *r) {
    return hr_json_type(r->pools) == HR_JSON_ARRAY ? hr_json_len(r->pools) : 0;
}

int hr_result_pool(const hr_result_t *r, size_t i, hr_result_pool_t *out) {
    const hr_json_t *p = i < hr_result_n_pools(r) ? hr_json_at(r->pools, i) : NULL;
    if (!p)
        return -1;
    out->name = hr_json_path_str(p, "name");
    out->replayed_as = hr_json_path_str(p, "replayed_as");
    out->allocs = hr_json_path_num(p, "allocs");
    out->peak_live_bytes = hr_json_path_num(p, "peak_live_bytes");
    return 0;
}

int hr_result_fallback_of(const hr_result_metrics_t *m, double limit) {
    double nat = m->NATIVE_OPS, fb = m->FALLBACK_OPS;
    return isfinite(nat) && isfinite(fb) && nat + fb > 0 && nat / (nat + fb) < limit;
}

/* A count or byte figure: never negative (the signed type may be). */
static int counted(const hr_metric_t *m) {
    return (m->unit == HR_UNIT_COUNT || m->unit == HR_UNIT_BYTES) && m->type != HR_MT_I64 &&
           m->source != HR_MSRC_RENDER;
}

/* A negative number in v (a number, or an object's or array's members):
 * its path below `at` into where, -1; else 0. */
static int negative_in(const hr_json_t *v, const char *at, char *where, size_t wn, double *got) {
    if (hr_json_type(v) == HR_JSON_NUMBER && v->num < 0) {
        snprintf(where, wn, "%s", at);
        *got = v->num;
        return -1;
    }
    for (size_t i = 0; i < hr_json_len(v); i++) {
        char p[192];
        if (hr_json_type(v) == HR_JSON_OBJECT)
            snprintf(p, sizeof p, "%s.%s", at, hr_json_key_at(v, i));
        else
            snprintf(p, sizeof p, "%s[%zu]", at, i);
        if (negative_in(hr_json_at(v, i), p, where, wn, got) < 0)
            return -1;
    }
    return 0;
}

int hr_result_check(const hr_json_t *r, char *where, size_t wn, char *what, size_t n) {
    where[0] = 0;
    if (!hr_json_path_str(r, HR_RK_TRACE) || !hr_json_path_str(r, HR_RK_ALLOCATOR) ||
        !hr_json_path_str(r, HR_RK_STATUS)) {
        snprintf(what, n, "expected an object with string \"%s\", \"%s\" and \"%s\"",
                 HR_RK_TRACE, HR_RK_ALLOCATOR, HR_RK_STATUS);
        return -1;
    }
    for (int k = 0; k < HR_M__COUNT; k++) {
        const hr_metric_t *def = &hr_metrics[k];
        char group[64], at[192];
        double got = 0;
        if (!counted(def))
            continue;
        int bad;
        if (def->family) {
            hr_metric_group(def, group, sizeof group);
            bad = negative_in(hr_json_get(r, group), group, where, wn, &got);
        } else {
            bad = negative_in(hr_json_path(r, def->path), def->path, where, wn, &got);
            snprintf(at, sizeof at, "%s.%s", HR_RK_SAMPLES, def->path);
            if (!bad)
                bad = negative_in(hr_json_get(hr_json_get(r, HR_RK_SAMPLES), def->path), at,
                                  where, wn, &got);
        }
        if (bad) {
            snprintf(what, n, "expected a %s >= 0, got %.17g",
                     def->unit == HR_UNIT_BYTES ? "byte count" : "count", got);
            return -1;
        }
    }
    return 0;
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
