/* The typed result: one C field per entry of the metric registry
 * (base/metrics.h, HR_METRIC_LIST), generated from the same list that writes
 * the keys, plus the identity fields every result has. A report reader
 * decodes a result object once (hr_result_decode) and then reads fields
 * (r->m.PEAK_LIVE), never key strings: a misspelt field does not compile.
 *
 * Field types follow the registry's JSON type: numbers are double (NAN when
 * the result has no value; an HR_MSRC_RENDER metric holds the value computed
 * from the result, hr_metric_value), strings const char * (NULL when absent;
 * they point into the decoded JSON, which must outlive the struct). A family
 * ("ops.*") is an array indexed by op code (HR_RESULT_MAX_OPS entries; the
 * base layer does not know the op table, so the decoder is given its keys).
 * An HR_MERGE_RANGE metric has its summary beside it: ID_min, ID_max, ID_mad
 * (the report builder writes them, PATH_min/_max/_mad). */
#ifndef HR_BASE_RESULT_H
#define HR_BASE_RESULT_H

#include <stddef.h>

#include "base/json.h"
#include "base/metrics.h"

/* Room for the op table (src/trace/trace.h, HR_OP__COUNT; the report layer
 * checks at compile time that it fits). */
#define HR_RESULT_MAX_OPS 32

/* The C type of a scalar metric field, by registry JSON type. */
#define HR_RESULT_CTYPE_U64 double
#define HR_RESULT_CTYPE_I64 double
#define HR_RESULT_CTYPE_F64 double
#define HR_RESULT_CTYPE_STR const char *
/* A field, by family: a scalar, or an array over the op table. */
#define HR_RESULT_FIELD_NONE(id, type) HR_RESULT_CTYPE_##type id;
#define HR_RESULT_FIELD_OPS(id, type) double id[HR_RESULT_MAX_OPS];
#define HR_RESULT_FIELD_MEM_OPS(id, type) double id[HR_RESULT_MAX_OPS];
/* The summary fields of a ranged metric. */
#define HR_RESULT_RANGE_FIRST(id)
#define HR_RESULT_RANGE_MEDIAN(id)
#define HR_RESULT_RANGE_EXACT(id)
#define HR_RESULT_RANGE_RANGE(id) double id##_min, id##_max, id##_mad;

#define HR_RESULT_FIELD_(id, path, unit, type, merge, exact, src, fam, ...) \
    HR_RESULT_FIELD_##fam(id, type) HR_RESULT_RANGE_##merge(id)

/* The registry's figures of one result. */
typedef struct hr_result_metrics {
    HR_METRIC_LIST(HR_RESULT_FIELD_)
} hr_result_metrics_t;

/* One result of a report (docs/REPORT_SCHEMA.md, "results"). */
typedef struct hr_result {
    const hr_json_t *json;     /* the object it was decoded from */
    /* identity */
    const char *trace, *trace_digest, *allocator, *status, *error, *touch;
    double      signal, runs;  /* NAN when absent */
    int         unstable, mostly_fallback, deterministic, interrupted; /* 0 when absent */
    /* handles to the parts that stay JSON: the series (charts), the
     * backend's own "native" object, every repeat's "samples", and the
     * program-time prediction */
    const hr_json_t *series, *native, *samples, *predict;
    hr_result_metrics_t m;     /* the registry's figures */
} hr_result_t;

/* Decodes result object `r` into *out. `op_keys[0..n_ops)` are the report
 * keys of the op table (index = op code; n_ops <= HR_RESULT_MAX_OPS).
 * Every field is set (absent ones to NAN, NULL or 0). */
void hr_result_decode(const hr_json_t *r, const char *const *op_keys, unsigned n_ops,
                      hr_result_t *out);

/* The registry's field of metric `id` in `m` as a number (a family: the op
 * `op`'s entry), for code that walks the registry: NAN for a string field.
 * `stat` 0 the value, 1 _min, 2 _max, 3 _mad (NAN if the metric has none). */
double hr_result_num(const hr_result_metrics_t *m, hr_metric_id_t id, unsigned op, int stat);
/* A string field of `id`, or NULL. */
const char *hr_result_str(const hr_result_metrics_t *m, hr_metric_id_t id);

#endif
