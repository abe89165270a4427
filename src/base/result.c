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

/* A ranged metric's summary: KEY_min, KEY_max, KEY_mad of its group `g`. */
static void decode_range(const hr_json_t *g, const char *key, double *out) {
    static const char *const suffix[] = {"_min", "_max", "_mad"};
    char k[96];
    size_t n = strlen(key);
    for (int i = 0; i < 3; i++) {
        if (n + 5 > sizeof k) {
            out[i] = NAN;
            continue;
        }
        memcpy(k, key, n);
        memcpy(k + n, suffix[i], 5); /* with its NUL */
        out[i] = hr_json_num(hr_json_get(g, k), NAN);
    }
}

/* A family's members in its group object `g`, by op code; returns which
 * op keys the group has (a null member counts: it was written). */
static uint32_t decode_family(const hr_json_t *g, const char *const *op_keys, unsigned n_ops,
                              double *out) {
    uint32_t keys = 0;
    for (unsigned op = 0; op < HR_RESULT_MAX_OPS; op++) { /* the group's member, not a path */
        const hr_json_t *v = op < n_ops && op_keys[op] ? hr_json_get(g, op_keys[op]) : NULL;
        out[op] = hr_json_num(v, NAN);
        keys |= v ? (uint32_t)1 << op : 0;
    }
    return keys;
}

static int flag(const hr_json_t *r, const char *key) {
    return hr_json_is_true(hr_json_get(r, key));
}

/* A block's number fields: key and where the double lives in its struct. */
typedef struct num_key {
    const char *key;
    size_t      at;
} num_key_t;

#define HR_NK_(type, field) {#field, offsetof(type, field)}
static const num_key_t program_keys[] = {
    HR_NK_(hr_result_program_t, cpu_s),  HR_NK_(hr_result_program_t, cpu_s_min),
    HR_NK_(hr_result_program_t, cpu_s_max), HR_NK_(hr_result_program_t, wall_s),
    HR_NK_(hr_result_program_t, max_rss), HR_NK_(hr_result_program_t, runs),
    HR_NK_(hr_result_program_t, cpu_s_mad), HR_NK_(hr_result_program_t, load_before),
    HR_NK_(hr_result_program_t, load_after), HR_NK_(hr_result_program_t, cpus),
    HR_NK_(hr_result_program_t, other_cpu),
};
static const num_key_t predict_keys[] = {
    HR_NK_(hr_result_predict_t, alloc_s),       HR_NK_(hr_result_predict_t, change_s),
    HR_NK_(hr_result_predict_t, change_pct),    HR_NK_(hr_result_predict_t, interval_s_lo),
    HR_NK_(hr_result_predict_t, interval_s_hi), HR_NK_(hr_result_predict_t, replay_s_lo),
    HR_NK_(hr_result_predict_t, replay_s_hi),   HR_NK_(hr_result_predict_t, model_error_s),
    HR_NK_(hr_result_predict_t, noise_s),       HR_NK_(hr_result_predict_t, runs_to_see),
    HR_NK_(hr_result_predict_t, rss_change_bytes),
};
#undef HR_NK_

/* The numbers of object o at keys[0..n) into the struct at out (NAN when
 * absent). */
static void decode_nums(const hr_json_t *o, const num_key_t *keys, size_t n, void *out) {
    for (size_t i = 0; i < n; i++)
        *(double *)((char *)out + keys[i].at) = hr_json_num(hr_json_get(o, keys[i].key), NAN);
}

static void decode_program(const hr_json_t *p, hr_result_program_t *out) {
    out->present = hr_json_type(p) == HR_JSON_OBJECT;
    decode_nums(p, program_keys, sizeof program_keys / sizeof *program_keys, out);
    out->timed = hr_json_path_str(p, "timed");
}

static void decode_predict(const hr_json_t *p, hr_result_predict_t *out) {
    out->present = p != NULL; /* as readers always took it: the key is there */
    decode_nums(p, predict_keys, sizeof predict_keys / sizeof *predict_keys, out);
    out->paired = flag(p, "paired");
    const char *real = hr_json_path_str(p, "real");
    const hr_json_t *within = hr_json_get(p, "within_noise");
    if (real) /* the two answers' first */
        out->real = strcmp(real, "saving") == 0 ? -1 : strcmp(real, "cost") == 0;
    else /* a report made before them: its one interval's verdict, as it said */
        out->real = !within || hr_json_is_true(within) ? 0 : out->change_s < 0 ? -1 : 1;
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
    for (size_t k = 0; k < HR_RESULT_MAX_THREADS; k++) {
        const hr_json_t *e = k < out->n_threads ? hr_json_at(pt, k) : NULL;
        out->thread_ns[k] = e ? hr_json_path_num(e, "ns_per_op") : NAN;
        out->thread_events[k] = e ? hr_json_path_num(e, "events") : NAN;
        out->thread_cpu_s[k] = e ? hr_json_path_num(e, "cpu_s") : NAN;
        out->thread_xfrees[k] = e ? hr_json_path_num(e, "cross_thread_frees") : NAN;
    }
}

/* The registry's figures. A metric's group object is looked up once for
 * the metrics of that group (they are contiguous in the registry), its
 * key in it: the same values as hr_metric_value at the metric's path, for
 * a fraction of the lookups (decoding is most of what rendering costs). */
static void decode_metrics(const hr_json_t *r, const char *const *op_keys, unsigned n_ops,
                           hr_result_t *out) {
    const hr_json_t *g = r;
    const char *gname = "";
    size_t glen = 0;
    for (int k = 0; k < HR_M__COUNT; k++) {
        const hr_metric_t *def = &hr_metrics[k];
        size_t len = hr_metric_group_len(def);
        if (len != glen || strncmp(def->path, gname, len) != 0) {
            char group[64];
            hr_metric_group(def, group, sizeof group);
            g = len ? hr_json_get(r, group) : r;
            gname = def->path;
            glen = len;
        }
        const char *key = hr_metric_key(def);
        if (def->family) {
            out->family_keys[k] = decode_family(g, op_keys, n_ops, num_at(&out->m, field[k].at));
        } else if (def->type == HR_MT_STR) {
            *(const char **)((char *)&out->m + field[k].at) = hr_json_str(hr_json_get(g, key));
        } else {
            *num_at(&out->m, field[k].at) = def->source == HR_MSRC_RENDER
                                                ? hr_metric_value(def, r)
                                                : hr_json_num(hr_json_get(g, key), NAN);
        }
        if (field[k].range)
            decode_range(g, key, num_at(&out->m, field[k].range));
    }
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
    out->command = hr_json_path_str(r, HR_RK_COMMAND);
    out->signal = hr_json_path_num(r, HR_RK_SIGNAL);
    out->runs = hr_json_path_num(r, HR_RK_RUNS);
    out->unstable = flag(r, HR_RK_UNSTABLE);
    out->mostly_fallback = flag(r, HR_RK_MOSTLY_FALLBACK);
    out->deterministic = flag(r, HR_RK_DETERMINISTIC);
    out->interrupted = flag(r, HR_RK_INTERRUPTED);
    out->needs_size = flag(r, HR_RK_NEEDS_SIZE);
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
    decode_metrics(r, op_keys, n_ops, out);
}

int hr_result_samples(const hr_result_t *r, hr_metric_id_t id, double *v, int cap) {
    return hr_result_samples_at(r, hr_metrics[id].path, v, cap);
}

/* A registered scalar metric's id at `path`, or -1 (a family member, a
 * path the registry does not know, or a figure computed when shown, which
 * a user-named path has never read: the result does not store it). */
static int scalar_id(const char *path) {
    const hr_metric_t *m = hr_metric_by_path(path);
    return m && !m->family && m->source != HR_MSRC_RENDER && strcmp(m->path, path) == 0
               ? (int)(m - hr_metrics)
               : -1;
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

/* A negative number at `path` of a result (`at`: where, as said in the
 * error) that the registry calls a count or bytes: the message, -1. */
static int negative_at(const char *path, const char *at, double v, char *where, size_t wn,
                       char *what, size_t n) {
    const hr_metric_t *m = hr_metric_by_path(path);
    if (!(v < 0) || !m || !counted(m) || (m->family == 0 && strcmp(m->path, path) != 0))
        return 0;
    snprintf(where, wn, "%s", at);
    snprintf(what, n, "expected a %s >= 0, got %.17g",
             m->unit == HR_UNIT_BYTES ? "byte count" : "count", v);
    return -1;
}

/* The repeats' values: samples[PATH] is an array of the metric at PATH. */
static int negative_sample(const hr_json_t *samples, char *where, size_t wn, char *what,
                           size_t n) {
    for (size_t i = 0; i < hr_json_len(samples) && hr_json_type(samples) == HR_JSON_OBJECT; i++) {
        const hr_json_t *arr = hr_json_at(samples, i);
        for (size_t j = 0; j < hr_json_len(arr) && hr_json_type(arr) == HR_JSON_ARRAY; j++) {
            double v = hr_json_num(hr_json_at(arr, j), 0);
            char at[192];
            if (!(v < 0))
                continue;
            snprintf(at, sizeof at, "%s.%s[%zu]", HR_RK_SAMPLES, hr_json_key_at(samples, i), j);
            if (negative_at(hr_json_key_at(samples, i), at, v, where, wn, what, n) < 0)
                return -1;
        }
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
    /* Every number is looked at, the registry only for a negative one: a
     * metric is a top-level key or a group's member ("memory.peak_live"). */
    for (size_t i = 0; i < hr_json_len(r); i++) {
        const char *k = hr_json_key_at(r, i);
        const hr_json_t *v = hr_json_at(r, i);
        if (strcmp(k, HR_RK_SAMPLES) == 0) {
            if (negative_sample(v, where, wn, what, n) < 0)
                return -1;
        } else if (hr_json_type(v) == HR_JSON_NUMBER) {
            if (negative_at(k, k, v->num, where, wn, what, n) < 0)
                return -1;
        } else if (hr_json_type(v) == HR_JSON_OBJECT) {
            for (size_t j = 0; j < hr_json_len(v); j++) {
                double x = hr_json_num(hr_json_at(v, j), 0);
                char path[192];
                if (!(x < 0))
                    continue;
                snprintf(path, sizeof path, "%s.%s", k, hr_json_key_at(v, j));
                if (negative_at(path, path, x, where, wn, what, n) < 0)
                    return -1;
            }
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
