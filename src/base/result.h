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
#include <stdint.h>

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

/* The keys of a result that are not registry metrics (docs/REPORT_SCHEMA.md,
 * "results"), spelt here once: the decoder reads them, and the code that
 * writes a result (the report builder, merge, predict) names them by these
 * macros. tests/cli/check_result_keys.sh fails on the literal anywhere else
 * in src/report/ and src/cli/. */
#define HR_RK_TRACE "trace"
#define HR_RK_TRACE_DIGEST "trace_digest"
#define HR_RK_ALLOCATOR "allocator"
#define HR_RK_STATUS "status"
#define HR_RK_ERROR "error"
#define HR_RK_TOUCH "touch"
#define HR_RK_SIGNAL "signal"
#define HR_RK_RUNS "runs"
#define HR_RK_UNSTABLE "unstable"
#define HR_RK_MOSTLY_FALLBACK "mostly_fallback"
#define HR_RK_DETERMINISTIC "deterministic"
#define HR_RK_INTERRUPTED "interrupted"
/* true when the allocator frees with the block's size, free(p, size), as
 * Box2D's block allocator, Orx's banks and SGI's size classes do (the
 * backend's HR_CAP_NEEDS_SIZE_ON_FREE; a composition when a part does);
 * absent otherwise */
#define HR_RK_NEEDS_SIZE "needs_size_on_free"
#define HR_RK_FAILED_RUNS "failed_runs"
#define HR_RK_SAMPLES "samples"
#define HR_RK_SERIES "series"
#define HR_RK_NATIVE "native"
#define HR_RK_PER_THREAD "per_thread"
#define HR_RK_POOLS "pools"
#define HR_RK_PROGRAM "program"
#define HR_RK_COMMAND "process_command"
#define HR_RK_PREDICT "predict"
#define HR_RK_BUDGET "budget"

/* The status of a result whose figures may be shown and ranked. */
#define HR_RESULT_STATUS_OK "ok"

/* Per-thread figures are kept for at most this many threads (a result keeps
 * the count of all of them, n_threads; reports show them up to this). */
#define HR_RESULT_MAX_THREADS 16

/* The program's own run time, recorded by `capture --time-runs` ("program";
 * docs/REPORT_SCHEMA.md). Numbers NAN when absent. */
typedef struct hr_result_program {
    int         present;
    double      cpu_s, cpu_s_min, cpu_s_max, wall_s, max_rss, runs;
    /* the noise record (NAN when the trace has none): the runs' CPU MAD,
     * the 1-minute load average before and after them, the online CPUs;
     * the CPUs other programs kept busy meanwhile (NAN: not measured, a
     * trace before 1.7) */
    double      cpu_s_mad, load_before, load_after, cpus, other_cpu;
    const char *timed; /* "capture" when the captured run was timed */
} hr_result_program_t;

/* The predicted change of the program's run time ("predict", written by
 * report/predict.c). Numbers NAN when absent. */
typedef struct hr_result_predict {
    int    present;
    double alloc_s, change_s, change_pct, interval_s_lo, interval_s_hi, replay_s_lo,
           replay_s_hi, model_error_s, noise_s, runs_to_see, rss_change_bytes;
    int    paired;
    int    real; /* "real": -1 saving, +1 cost, 0 no real change (or absent) */
} hr_result_predict_t;

/* native.violations (an in-house backend's counts by kind): the most
 * frequent kind, its count and how many kinds have a count above 0. */
typedef struct hr_result_violations {
    int         present; /* the object exists */
    const char *top;     /* NULL when no kind has a count */
    double      top_n;
    int         kinds;
} hr_result_violations_t;

/* One of the engine's pools ("pools"[i]). */
typedef struct hr_result_pool {
    const char *name, *replayed_as;
    double      allocs, peak_live_bytes;
} hr_result_pool_t;

/* One result of a report (docs/REPORT_SCHEMA.md, "results"). */
typedef struct hr_result {
    const hr_json_t *json;     /* the object it was decoded from (the CSV
                                * flattens it as it is) */
    /* identity */
    const char *trace, *trace_digest, *allocator, *status, *error, *touch;
    const char *command; /* the recorded process's command line (trace format 1.8), or NULL */
    const char *spec; /* a routed row's composition when `allocator` is its label, else NULL */
    double      signal, runs;  /* NAN when absent */
    int         unstable, mostly_fallback, deterministic, interrupted; /* 0 when absent */
    int         needs_size; /* HR_RK_NEEDS_SIZE, 0 when absent */
    int         ok;            /* status is HR_RESULT_STATUS_OK */
    /* the typed blocks */
    int                    has_budget; /* a "budget" object (its figures are in m) */
    int                    has_threads; /* a "per_thread" entry */
    size_t                 n_threads;  /* its entries */
    double                 thread_ns[HR_RESULT_MAX_THREADS]; /* their ns_per_op */
    /* their events, CPU seconds (less spinning) and frees of blocks another
     * thread made (NAN when absent) */
    double                 thread_events[HR_RESULT_MAX_THREADS];
    double                 thread_cpu_s[HR_RESULT_MAX_THREADS];
    double                 thread_xfrees[HR_RESULT_MAX_THREADS];
    hr_result_program_t    program;
    hr_result_predict_t    predict;
    hr_result_violations_t violations;
    /* which op keys each family's group has (bit = op code; a null member
     * counts: it was written) */
    uint32_t family_keys[HR_M__COUNT];
    /* handles to the parts that stay JSON (docs/ARCHITECTURE.md, "Typed
     * results"): the series (arrays of points the chart kinds read as they
     * draw), the backend's free-form "native" object (printed as it is),
     * every repeat's "samples" and the engine's "pools" (read through
     * hr_result_samples and hr_result_pool below) */
    const hr_json_t *series, *native, *samples, *pools;
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

/* Every repeat's value of metric `id` (its "samples", in repeat order) into
 * v[0..cap): the count read, 0 when the result kept none. */
int hr_result_samples(const hr_result_t *r, hr_metric_id_t id, double *v, int cap);
/* The number at a dotted path a user named (compare --max-regress, plot
 * --metric take any path of a number): the typed field when the path is a
 * registered scalar metric the result stores, else read from the result
 * here, the one reader of paths. `stat` as hr_result_num (1..3: PATH_min, _max, _mad). NAN when
 * absent. */
double hr_result_at(const hr_result_t *r, const char *path, int stat);
/* hr_result_samples by path. */
int hr_result_samples_at(const hr_result_t *r, const char *path, double *v, int cap);
/* The number of the engine's pools, and pool i into *out (0, or -1 when
 * there is no such pool). */
size_t hr_result_n_pools(const hr_result_t *r);
int hr_result_pool(const hr_result_t *r, size_t i, hr_result_pool_t *out);

/* "mostly fallback" by the figures: a row whose native share (native_ops
 * over native + fallback ops) is below `limit`. */
int hr_result_fallback_of(const hr_result_metrics_t *m, double limit);

/* Checks result object r as a report reader must trust it: string trace,
 * allocator and status (else where is ""), and a count or byte figure of the registry (unit COUNT or BYTES, not
 * the signed type) that is negative fails, in the result or its samples.
 * Returns 0, or -1 with the failing path relative to the result
 * ("memory.peak_live") in where[wn] and what was expected in what[n]. */
int hr_result_check(const hr_json_t *r, char *where, size_t wn, char *what, size_t n);

#endif
