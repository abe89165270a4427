/* The metric registry: every figure a result carries is defined once, here
 * (after mimalloc's MI_STAT_FIELDS). docs/METRICS.md says what each means;
 * this list says how the code treats it. Generated from it:
 *  - the result keys the replay engine writes, their JSON types and order
 *    (hr_metrics_emit), including which groups are null or omitted;
 *  - how repeats merge in the report builder (median, median with range,
 *    per-op rate, exact-must-agree, first);
 *  - the text/Markdown comparison table's columns and cell formats, and the
 *    fixed leading CSV columns;
 *  - compare's aliases, directions, default gates and exact checks;
 *  - chart units and the names `plot --metric` accepts (and its help).
 *  - the typed result hr_result_t (base/result.h): one field per entry, the
 *    one decoder of a result object; report code reads fields, and
 *    tests/cli/check_result_keys.sh fails on a path spelt anywhere else.
 * Adding a metric is one line below (plus the code that measures it and its
 * paragraph in docs/METRICS.md); nothing else lists metrics.
 *
 * The list lives in the foundation layer because the replay engine writes the
 * keys and the report layer reads them, and includes only point down.
 *
 * Families: an entry whose path ends in ".*" stands for one key per op of the
 * trace op table (src/trace/trace.h, report key column): every op
 * (HR_MFAM_OPS) or the memory ops only (HR_MFAM_MEM_OPS). The base layer does
 * not know the op table; its users expand families with it.
 */
#ifndef HR_BASE_METRICS_H
#define HR_BASE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "base/emit.h"
#include "base/json.h"

/* Unit: how a value reads (text cells, chart labels). */
typedef enum hr_unit {
    HR_UNIT_COUNT = 0, /* a plain number */
    HR_UNIT_BYTES,
    HR_UNIT_NS,
    HR_UNIT_SECONDS,
    HR_UNIT_OPS_PER_S,
    HR_UNIT_RATIO,     /* shown as a percentage */
    HR_UNIT_TEXT,      /* a string, not a number */
} hr_unit_t;

/* JSON type the engine writes. */
typedef enum hr_mtype { HR_MT_U64 = 0, HR_MT_I64, HR_MT_F64, HR_MT_STR } hr_mtype_t;

/* How repeats of one (trace, allocator) merge into the report's result. */
typedef enum hr_merge {
    HR_MERGE_FIRST = 0,   /* the first repeat's value (deterministic or descriptive) */
    HR_MERGE_MEDIAN,      /* median of the repeats */
    HR_MERGE_RANGE,       /* median; PATH_min, PATH_max, PATH_mad beside it and every
                           * repeat's value in the result's "samples" (report builder) */
    HR_MERGE_EXACT,       /* first; repeats must agree when the footprint is exact */
} hr_merge_t;

/* What decides the value. */
typedef enum hr_exact {
    HR_EXACT_MEASURED = 0, /* a measurement: varies between runs */
    HR_EXACT_TRACE,        /* the trace alone: equal for every allocator and run */
    HR_EXACT_INHOUSE,      /* exact when footprint_source is "exact" (in-house) */
} hr_exact_t;

/* Cell format in the text/Markdown comparison table (NONE: not a column). */
typedef enum hr_cell {
    HR_CELL_NONE = 0,
    HR_CELL_RATE,  /* 12.3 k */
    HR_CELL_F1,    /* one decimal */
    HR_CELL_F0,    /* no decimals */
    HR_CELL_NS,    /* 850 ns, 1.2 us */
    HR_CELL_BYTES, /* 1.50 MiB */
    HR_CELL_STR,
    HR_CELL_PCT,   /* 12.5% */
    HR_CELL_INT,   /* an integer */
} hr_cell_t;

/* Where the value comes from. */
typedef enum hr_msource {
    HR_MSRC_ENGINE = 0, /* the replay engine writes it (hr_metrics_emit) */
    HR_MSRC_BACKEND,    /* the backend's stats() writes it into "native" */
    HR_MSRC_RENDER,     /* computed from the result when shown, never stored */
} hr_msource_t;

enum { HR_MFAM_NONE = 0, HR_MFAM_OPS, HR_MFAM_MEM_OPS };

/* Flags. */
enum {
    HR_MF_CSV = 1u << 0,       /* one of the CSV's fixed leading columns */
    HR_MF_PLOT = 1u << 1,      /* `plot --metric` accepts its last path segment */
    HR_MF_HIGHER = 1u << 2,    /* higher is better (else lower is better) */
    HR_MF_NULL_GROUP = 1u << 3,/* the group is written as null when it has no value */
    HR_MF_NULLABLE = 1u << 4,  /* written as null when it has no value (else omitted) */
    HR_MF_SAMPLES = 1u << 5,   /* not RANGE, but every repeat's value is kept in "samples"
                                * when the value is sampled (hr_metric_sampled) */
    HR_MF_RANK = 1u << 6,      /* the ranking figure: its spread decides "unstable" */
};

/* X(ID, "path", UNIT, TYPE, MERGE, EXACT, SOURCE, FAMILY, FLAGS, "compare alias",
 *   default gate % (-1: not gated by default), CELL, "column label")
 * The default gate is the tolerance compare allows a figure that varies
 * between identical runs (docs/REPORTS.md, "compare"). An HR_EXACT_INHOUSE
 * figure varies only when sampled from an external allocator: its gate is the
 * tolerance for that case; on an exact footprint source it is deterministic
 * and a default gate (>= 0) means "exactly" (0 %). 
 * Order is the order of the keys in a result, of the table's columns and of
 * the CSV's fixed columns. Groups (the part before the dot) are contiguous. */
#define HR_METRIC_LIST(X)                                                                           \
    X(OPS_TOTAL, "ops.total", COUNT, U64, FIRST, TRACE, ENGINE, NONE, CSV, NULL, -1, NONE, NULL)    \
    X(OPS_EVENTS, "ops.events", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)    \
    X(OPS_BY_OP, "ops.*", COUNT, U64, FIRST, TRACE, ENGINE, OPS, CSV, NULL, -1, NONE, NULL)         \
    X(WALL, "time.wall_s", SECONDS, F64, RANGE, MEASURED, ENGINE, NONE, CSV | PLOT, "wall", -1,     \
      NONE, NULL)                                                                                   \
    X(CPU, "time.cpu_s", SECONDS, F64, RANGE, MEASURED, ENGINE, NONE, CSV | PLOT, "cpu", -1, NONE, \
      NULL)                                                                                         \
    X(OPS_PER_S, "time.ops_per_s", OPS_PER_S, F64, RANGE, MEASURED, ENGINE, NONE,                   \
      CSV | PLOT | HIGHER, "throughput", -1, RATE, "ops/s")                                         \
    X(NS_PER_OP, "time.ns_per_op", NS, F64, RANGE, MEASURED, ENGINE, NONE, CSV | PLOT | RANK,       \
      "ns_per_op", 10, F1, "ns/op")                                                                 \
    X(COLD_WALL, "time.cold_wall_s", SECONDS, F64, RANGE, MEASURED, ENGINE, NONE, CSV, "cold_wall", \
      -1, NONE, NULL)                                                                               \
    X(COLD_CPU, "time.cold_cpu_s", SECONDS, F64, RANGE, MEASURED, ENGINE, NONE, CSV, "cold_cpu", -1,\
      NONE, NULL)                                                                                   \
    X(COLD_NS_PER_OP, "time.cold_ns_per_op", NS, F64, RANGE, MEASURED, ENGINE, NONE, CSV | PLOT,    \
      "cold", 15, F1, "cold ns/op")                                                                 \
    X(WARM_LAPS, "time.warm_laps", COUNT, U64, MEDIAN, MEASURED, ENGINE, NONE, CSV, NULL, -1, NONE, \
      NULL)                                                                                         \
    X(CLOCK, "time.clock", TEXT, STR, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)          \
    X(MEASURE_S, "time.measure_s", SECONDS, F64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE, \
      NULL)                                                                                         \
    X(MEASURE_WALL, "time.measure_wall_s", SECONDS, F64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL,   \
      -1, NONE, NULL)                                                                               \
    X(THR_MODE, "threads.mode", TEXT, STR, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)      \
    X(THR_N, "threads.n", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)          \
    X(THR_PACE, "threads.pace", TEXT, STR, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)      \
    X(THR_PACE_FACTOR, "threads.pace_factor", RATIO, F64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1,  \
      NONE, NULL)                                                                                   \
    X(THR_OPS_PER_S, "threads.ops_per_s", OPS_PER_S, F64, RANGE, MEASURED, ENGINE, NONE, HIGHER,    \
      "process_throughput", -1, NONE, NULL)                                                         \
    X(THR_COLD_OPS_PER_S, "threads.cold_ops_per_s", OPS_PER_S, F64, RANGE, MEASURED, ENGINE, NONE,  \
      HIGHER, NULL, -1, NONE, NULL)                                                                 \
    X(THR_XFREES, "threads.cross_thread_frees", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL,    \
      -1, NONE, NULL)                                                                               \
    X(THR_LOCKED, "threads.locked_instances", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1,  \
      NONE, NULL)                                                                                   \
    X(THR_WAITS, "threads.waits", COUNT, F64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE,    \
      NULL)                                                                                         \
    X(THR_WAIT_S, "threads.wait_s", SECONDS, F64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL, -1,      \
      NONE, NULL)                                                                                   \
    X(THR_SPIN_S, "threads.spin_s", SECONDS, F64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL, -1,      \
      NONE, NULL)                                                                                   \
    X(NS_BY_OP, "ns_per_op.*", NS, F64, MEDIAN, MEASURED, ENGINE, MEM_OPS, CSV | NULLABLE, NULL,    \
      -1, NONE, NULL)                                                                               \
    X(P50, "latency_ns.p50", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, CSV | PLOT, NULL, -1, F0,     \
      "p50 ns")                                                                                     \
    X(P90, "latency_ns.p90", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, CSV | PLOT, NULL, -1, NONE,   \
      NULL)                                                                                         \
    X(P99, "latency_ns.p99", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, CSV | PLOT, "p99", -1, F0,    \
      "p99 ns")                                                                                     \
    X(P999, "latency_ns.p999", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, CSV | PLOT, "p999", -1, F0, \
      "p99.9 ns")                                                                                   \
    X(LAT_MAX, "latency_ns.max", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, CSV | PLOT, "max", -1,    \
      F0, "max ns")                                                                                 \
    X(LAT_RAW_MAX, "latency_ns.raw_max", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL, -1,      \
      NONE, NULL)                                                                                   \
    X(LAT_SAMPLES, "latency_ns.samples", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, CSV, NULL, -1,  \
      NONE, NULL)                                                                                   \
    X(WF_INDEX, "worst_frame.index", COUNT, U64, FIRST, MEASURED, ENGINE, NONE,                     \
      CSV | NULL_GROUP, NULL, -1, NONE, NULL)                                                       \
    X(WF_NS, "worst_frame.ns", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, CSV, "worst_frame", -1, NS, \
      "worst frame")                                                                                \
    X(WF_FRAMES, "worst_frame.frames", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE,   \
      NULL)                                                                                         \
    X(WF_RAW_NS, "worst_frame.raw_ns", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE,  \
      NULL)                                                                                         \
    X(STALL_OPS, "stalls.ops", COUNT, U64, MEDIAN, MEASURED, ENGINE, NONE, CSV, NULL, -1, NONE,     \
      NULL)                                                                                         \
    X(STALL_FRAMES, "stalls.frames", COUNT, U64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE, \
      NULL)                                                                                         \
    X(STALL_NS, "stalls.ns", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE, NULL)      \
    X(PEAK_LIVE, "memory.peak_live", BYTES, U64, EXACT, TRACE, ENGINE, NONE, CSV | PLOT, "live", 0, \
      BYTES, "peak live")                                                                           \
    X(PEAK_FP, "memory.peak_footprint", BYTES, U64, EXACT, INHOUSE, ENGINE, NONE,                   \
      CSV | PLOT | SAMPLES, "peak", 25, BYTES, "peak footprint")                                    \
    X(FP_SOURCE, "memory.footprint_source", TEXT, STR, FIRST, TRACE, ENGINE, NONE, CSV, NULL, -1,   \
      STR, "fp source")                                                                             \
    X(FP_AT_PEAK_LIVE, "memory.footprint_at_peak_live", BYTES, U64, EXACT, INHOUSE, ENGINE, NONE,   \
      CSV, NULL, -1, NONE, NULL)                                                                    \
    X(LIVE_AT_PEAK_FP, "memory.live_at_peak_footprint", BYTES, U64, EXACT, INHOUSE, ENGINE, NONE,   \
      CSV, NULL, -1, NONE, NULL)                                                                    \
    X(PEAK_RSS, "memory.peak_rss_above_baseline", BYTES, U64, FIRST, MEASURED, ENGINE, NONE,        \
      CSV | PLOT | SAMPLES, "rss", -1, BYTES, "RSS above base")                                     \
    X(RSS_BASE, "memory.rss_baseline", BYTES, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1,      \
      NONE, NULL)                                                                                   \
    X(PEAK_RSS_ALL, "memory.peak_rss", BYTES, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1,      \
      NONE, NULL)                                                                                   \
    X(MEM_LAP, "memory.lap", TEXT, STR, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)        \
    X(PEAK_RSS_FAST, "memory.peak_rss_fast", BYTES, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,   \
      -1, NONE, NULL)                                                                               \
    X(PACED_S, "memory.paced_lap_s", SECONDS, F64, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1,     \
      NONE, NULL)                                                                                   \
    X(MEM_LAP_NOTE, "memory.lap_note", TEXT, STR, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE,   \
      NULL)                                                                                         \
    X(FRAG_JW4, "memory.frag_jw4", RATIO, F64, FIRST, INHOUSE, ENGINE, NONE, CSV | PLOT, "frag",    \
      -1, PCT, "frag #4")                                                                           \
    X(FRAG_JW3, "memory.frag_jw3", RATIO, F64, FIRST, INHOUSE, ENGINE, NONE, CSV | PLOT, NULL, -1,  \
      PCT, "frag #3")                                                                               \
    X(SLOP, "memory.internal_slop", BYTES, I64, EXACT, INHOUSE, ENGINE, NONE,                       \
      CSV | PLOT | NULLABLE, "slop", -1, BYTES, "slop")                                             \
    X(BUDGET_BYTES, "budget.bytes", BYTES, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE,      \
      NULL)                                                                                         \
    X(BUDGET_FAIL, "budget.first_failure_op", COUNT, U64, FIRST, INHOUSE, ENGINE, NONE, NULLABLE,   \
      NULL, -1, NONE, NULL)                                                                         \
    X(BUDGET_FAIL_FRAME, "budget.first_failure_frame", COUNT, U64, FIRST, INHOUSE, ENGINE, NONE, 0, \
      NULL, -1, NONE, NULL)                                                                         \
    X(BUDGET_FAIL_HEAP, "budget.first_failure_heap", TEXT, STR, FIRST, INHOUSE, ENGINE, NONE, 0,    \
      NULL, -1, NONE, NULL)                                                                         \
    X(FAILED_ALLOCS, "failed_allocs", COUNT, U64, FIRST, INHOUSE, ENGINE, NONE, 0, NULL, -1, NONE,  \
      NULL)                                                                                         \
    X(FIRST_FAILED, "first_failed_op", COUNT, U64, FIRST, INHOUSE, ENGINE, NONE, 0, NULL, -1, NONE, \
      NULL)                                                                                         \
    X(COUNT_INSNS, "count.instructions", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1,    \
      NONE, NULL)                                                                                   \
    X(COUNT_PER_OP, "count.per_op", COUNT, F64, FIRST, MEASURED, ENGINE, NONE, CSV | PLOT, "insns", \
      1, F1, "insn/op")                                                                             \
    X(COUNT_CALLS, "count.calls", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE, NULL) \
    X(COUNT_SOURCE, "count.source", TEXT, STR, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE,    \
      NULL)                                                                                         \
    X(COUNT_FAULTS, "count.faults", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,             \
      -1, NONE, NULL)                                                                               \
    X(COUNT_MAJOR_FAULTS, "count.major_faults", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL, \
      -1, NONE, NULL)                                                                               \
    X(COUNT_SYSCALLS, "count.syscalls", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,         \
      -1, NONE, NULL)                                                                               \
    X(COUNT_SYS_MMAP, "count.sys_mmap", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,         \
      -1, NONE, NULL)                                                                               \
    X(COUNT_SYS_MUNMAP, "count.sys_munmap", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,     \
      -1, NONE, NULL)                                                                               \
    X(COUNT_SYS_BRK, "count.sys_brk", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,           \
      -1, NONE, NULL)                                                                               \
    X(COUNT_SYS_MADVISE, "count.sys_madvise", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,   \
      -1, NONE, NULL)                                                                               \
    X(COUNT_SYS_MPROTECT, "count.sys_mprotect", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL, \
      -1, NONE, NULL)                                                                               \
    X(COUNT_SYS_MREMAP, "count.sys_mremap", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,     \
      -1, NONE, NULL)                                                                               \
    X(COUNT_SYS_OTHER, "count.sys_other", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,       \
      -1, NONE, NULL)                                                                               \
    X(COUNT_COST, "count.cost", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL,                 \
      -1, NONE, NULL)                                                                               \
    X(COUNT_COST_PER_OP, "count.cost_per_op", COUNT, F64, FIRST, MEASURED, ENGINE, NONE, 0,         \
      "cost", 1, NONE, NULL)                                                                        \
    X(VERIFY_STATUS, "verify.status", TEXT, STR, FIRST, MEASURED, ENGINE, NONE, CSV, NULL, -1, NONE,\
      NULL)                                                                                         \
    X(VERIFY_CHECKED, "verify.checked", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1,     \
      NONE, NULL)                                                                                   \
    X(VERIFY_KIND, "verify.kind", TEXT, STR, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(VERIFY_EVENT, "verify.event", COUNT, U64, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE,   \
      NULL)                                                                                         \
    X(VERIFY_ERROR, "verify.error", TEXT, STR, FIRST, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE,    \
      NULL)                                                                                         \
    X(NATIVE_OPS, "native.native_ops", COUNT, U64, EXACT, INHOUSE, BACKEND, NONE, CSV, NULL, -1,    \
      NONE, NULL)                                                                                   \
    X(FALLBACK_OPS, "native.fallback_ops", COUNT, U64, EXACT, INHOUSE, BACKEND, NONE, CSV, NULL,    \
      -1, NONE, NULL)                                                                               \
    X(NATIVE_SHARE, "native.share", RATIO, F64, FIRST, INHOUSE, RENDER, NONE, 0, NULL, -1, PCT,     \
      "native")                                                                                     \
    X(VIOLATIONS, "native.violations", COUNT, U64, FIRST, INHOUSE, RENDER, NONE, 0, NULL, -1, INT,  \
      "violations")                                                                                 \
    /* The trace's per-frame figures ("frames": written by the replay command    \
     * from the trace, not by the engine) and the load the engine measured      \
     * (docs/METRICS.md, "Frames and the load"). */                             \
    X(FR_COUNT, "frames.count", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)    \
    X(FR_PLAY, "frames.play_count", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_ALLOCS_MEAN, "frames.allocs_mean", COUNT, F64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_ALLOCS_P99, "frames.allocs_p99", COUNT, F64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_ALLOCS_MAX, "frames.allocs_max", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_ALLOCS_MAX_FRAME, "frames.allocs_max_frame", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_BYTES_MEAN, "frames.bytes_mean", BYTES, F64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_BYTES_P99, "frames.bytes_p99", BYTES, F64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_BYTES_MAX, "frames.bytes_max", BYTES, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_BYTES_MAX_FRAME, "frames.bytes_max_frame", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_FREED_SAME, "frames.freed_same", RATIO, F64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_FREED_NEXT, "frames.freed_next", RATIO, F64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_FREED_LATER, "frames.freed_later", RATIO, F64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(FR_FREED_NEVER, "frames.freed_never", RATIO, F64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(LOAD_EVENTS, "load.events", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)  \
    X(LOAD_ALLOCS, "load.allocs", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)  \
    X(LOAD_BYTES, "load.bytes", BYTES, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)    \
    X(LOAD_PEAK_LIVE, "load.peak_live", BYTES, U64, EXACT, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    X(LOAD_NS, "load.ns", NS, F64, MEDIAN, MEASURED, ENGINE, NONE, 0, NULL, -1, NONE, NULL)         \
    X(LOAD_PEAK_FP, "load.peak_footprint", BYTES, U64, EXACT, INHOUSE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)\
    HR_METRIC_LIST_EXTRA(X)

/* A build may append entries (tests/unit/test_metric_extra.c adds one to show
 * that one line is all a new metric needs). */
#ifndef HR_METRIC_LIST_EXTRA
#define HR_METRIC_LIST_EXTRA(X)
#endif

#define HR_METRIC_ENUM_(id, ...) HR_M_##id,
typedef enum hr_metric_id { HR_METRIC_LIST(HR_METRIC_ENUM_) HR_M__COUNT } hr_metric_id_t;
#undef HR_METRIC_ENUM_

typedef struct hr_metric {
    const char  *path;   /* dotted JSON path in a result ("group.key" or "key") */
    const char  *alias;  /* compare/plot short name, or NULL */
    const char  *column; /* text table column label, or NULL */
    hr_unit_t    unit;
    hr_mtype_t   type;
    hr_merge_t   merge;
    hr_exact_t   exact;
    hr_msource_t source;
    hr_cell_t    cell;
    int          family; /* HR_MFAM_* */
    unsigned     flags;  /* HR_MF_* */
    double       gate;   /* default compare tolerance in %, or -1 */
} hr_metric_t;

extern const hr_metric_t hr_metrics[HR_M__COUNT];

/* The metric at `path` (exact match; a family matches "group.anything"), or
 * NULL. */
const hr_metric_t *hr_metric_by_path(const char *path);
/* The metric whose alias, or (for HR_MF_PLOT metrics) last path segment, is
 * `name`; NULL if none. */
const hr_metric_t *hr_metric_by_alias(const char *name);
const hr_metric_t *hr_metric_by_leaf(const char *name);
/* Length of the group prefix of m->path ("memory" in "memory.peak_live"),
 * 0 for a top-level key. */
size_t hr_metric_group_len(const hr_metric_t *m);
/* The key after the group. */
const char *hr_metric_key(const hr_metric_t *m);
/* The group of m ("memory" in "memory.peak_live") into buf; "" for a
 * top-level key. Returns buf. */
const char *hr_metric_group(const hr_metric_t *m, char *buf, size_t n);

/* The footprint source of allocators that account their memory exactly (the
 * in-house ones): HR_EXACT_INHOUSE figures are deterministic there. */
#define HR_FP_SOURCE_EXACT "exact"
/* 1 when the result's memory.footprint_source is HR_FP_SOURCE_EXACT. */
int hr_metric_exact_source(const hr_json_t *result);
/* 1 when m's value in `result` is sampled, i.e. may differ between identical
 * runs: a measurement (HR_EXACT_MEASURED), or an HR_EXACT_INHOUSE figure of a
 * result whose footprint source is not exact (an external allocator's). */
int hr_metric_sampled(const hr_metric_t *m, const hr_json_t *result);

/* The metric's value in a result: the number at its path, or for an
 * HR_MSRC_RENDER metric the value computed from the result (native.share =
 * native_ops / (native_ops + fallback_ops), native.violations = the sum of
 * its counts). NAN when the result has none. */
double hr_metric_value(const hr_metric_t *m, const hr_json_t *result);

/* ---- writing a result (the replay engine) -------------------------------- */

/* One value to write: absent values are omitted, or written as null where the
 * metric is HR_MF_NULLABLE; a group whose first metric is HR_MF_NULL_GROUP and
 * that has no value at all is written as null. */
typedef struct hr_mval {
    int present;
    union {
        uint64_t    u;
        int64_t     i;
        double      d;
        const char *s;
    } v;
} hr_mval_t;

/* Values of a family: one per op of the op table (index = op code). */
typedef struct hr_mfamily {
    unsigned           n;     /* ops in the op table */
    const char *const *keys;  /* report key of each op */
    const unsigned char *in;  /* 1 if the op belongs to the family */
    const hr_mval_t   *vals;
} hr_mfamily_t;

/* Writes every HR_MSRC_ENGINE metric of `vals` (indexed by hr_metric_id_t)
 * into the open result object, grouped into sub-objects by path. fam[] is
 * indexed by HR_MFAM_*. */
void hr_metrics_emit(hr_emit_t *em, const hr_mval_t *vals, const hr_mfamily_t *fam);

static inline hr_mval_t hr_mval_u64(uint64_t u) { hr_mval_t m = {1, {.u = u}}; return m; }
static inline hr_mval_t hr_mval_i64(int64_t i) { hr_mval_t m = {1, {.i = i}}; return m; }
static inline hr_mval_t hr_mval_f64(double d) { hr_mval_t m = {1, {.d = d}}; return m; }
static inline hr_mval_t hr_mval_str(const char *s) { hr_mval_t m = {1, {.s = s}}; return m; }

#endif
