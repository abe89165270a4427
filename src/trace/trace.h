/* heapreplay — trace model (public API).
 *
 * A trace is a sequence of id-based events (see docs/TRACE_FORMAT.md). Ids are
 * dense: an id names one live block between its alloc and its free, and ids are
 * reused afterwards, so the replay indexes a flat slot array of n_ids entries.
 *
 * One X-macro list, HR_OP_LIST, is the single source of truth for the opcodes:
 * it generates the enum, the names, the text and binary encoders/decoders and
 * the replay switch. Each op lists up to three positional fields; the last
 * `nopt` of them are optional (text: may be omitted; binary: a flag bit).
 */
#ifndef HEAPREPLAY_TRACE_H
#define HEAPREPLAY_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Field kinds: where a positional field lives in hr_event_t and how it is coded.
 *   ID    -> ev.id      (binary: zig-zag delta from the previous id field)
 *   OLD   -> ev.aux     (realloc's old id; binary: zig-zag delta from ev.id)
 *   SIZE  -> ev.size    (binary: varint)
 *   ALIGN -> ev.align   (power of two; binary: one byte log2)
 *   COUNT -> ev.aux     (calloc element count; binary: varint)
 *   STR   -> ev.aux     (string-table index; binary: varint)
 *   NUM   -> ev.size    (frame number; binary: zig-zag delta from previous NUM)
 *   NONE  -> unused slot                                                      */
#define HR_FIELD_LIST(X) X(NONE) X(ID) X(OLD) X(SIZE) X(ALIGN) X(COUNT) X(STR) X(NUM)

#define HR_FIELD_ENUM_(k) HR_F_##k,
typedef enum hr_field_kind { HR_FIELD_LIST(HR_FIELD_ENUM_) HR_F__COUNT } hr_field_kind_t;
#undef HR_FIELD_ENUM_

/* Op classes: what an op is to the replay and to the reports.
 *   MEM    a memory op: timed, counted in ops.total and ns/op (alloc, calloc,
 *          realloc, free)
 *   HEAP   a heap-stack op (push, pop): routes later allocations
 *   MARKER a marker in time (frame, mark): no allocator work. A frame with
 *          its optional STR (since format 1.3) belongs to a named frame
 *          stream (annotate.h's hr_frame_named); without it, to the
 *          program's one main stream, which replay measures frames by
 *   POOL   a block of an engine's own allocator (a pool, arena, frame
 *          allocator), named by the STR of its palloc (annotate.h's
 *          hr_alloc_named): pfree and prealloc act on the block the id
 *          names, which keeps its pool. Replay lowers them to the malloc-family
 *          op first (hr_trace_lower_pools), so the engine never sees them.
 *   HINT   what the program did with a block, for the replay to imitate: no
 *          allocator work, not counted in ops.total. `touched BYTES` (since
 *          format 1.4) says the block made by the thread's next event (an
 *          alloc, calloc, realloc, palloc or prealloc, which must follow it
 *          directly in the same thread) was used in its first BYTES bytes: the
 *          capture library measures the pages the program touched in a block
 *          of at least HR_TOUCH_PROBE_MIN bytes during its life
 *          (docs/TRACE_FORMAT.md); `replay --touch recorded` writes that much
 *          of the new block instead of what the policy would. */
enum { HR_OPC_MEM = 1, HR_OPC_HEAP = 2, HR_OPC_MARKER = 3, HR_OPC_POOL = 4, HR_OPC_HINT = 5 };

/* Blocks the capture library measures the use of (`touched`): a smaller
 * block is assumed used whole, as `--touch first` writes it. */
#define HR_TOUCH_PROBE_MIN (64u * 1024u)

/* X(ENUM,     code, "text",  field1, field2, field3, nopt, class, "report key")
 * The report key names the op's count in a result's "ops" object. */
#define HR_OP_LIST(X)                                                                   \
    X(ALLOC,        0, "alloc",   ID,    SIZE,  ALIGN,  1, MEM,    "alloc")               \
    X(CALLOC,       1, "calloc",  ID,    COUNT, SIZE,   0, MEM,    "calloc")              \
    X(REALLOC,      2, "realloc", OLD,   ID,    SIZE,   0, MEM,    "realloc")             \
    X(FREE,         3, "free",    ID,    SIZE,  NONE,   1, MEM,    "free")                \
    X(HEAP_PUSH,    4, "push",    STR,   NONE,  NONE,   0, HEAP,   "heap_push")           \
    X(HEAP_POP,     5, "pop",     STR,   NONE,  NONE,   0, HEAP,   "heap_pop")            \
    X(FRAME,        6, "frame",   NUM,   STR,   NONE,   1, MARKER, "frame")               \
    X(MARK,         7, "mark",    STR,   NONE,  NONE,   0, MARKER, "mark")                \
    X(POOL_ALLOC,   8, "palloc",  ID,    SIZE,  STR,    0, POOL,   "pool_alloc")          \
    X(POOL_FREE,    9, "pfree",   ID,    STR,   NONE,   0, POOL,   "pool_free")           \
    X(POOL_REALLOC,10, "prealloc",OLD,   ID,    SIZE,   0, POOL,   "pool_realloc")          \
    X(TOUCHED,     11, "touched", SIZE,  NONE,  NONE,   0, HINT,   "touched")

#define HR_OP_ENUM_(e, c, t, f1, f2, f3, o, cls, key) HR_OP_##e = c,
typedef enum hr_op { HR_OP_LIST(HR_OP_ENUM_) HR_OP__COUNT } hr_op_t;
#undef HR_OP_ENUM_

/* Event flags (ev.flags). */
enum {
    HR_EVF_HAS_OPT = 1u << 0, /* the optional field(s) are present (align, free size) */
};

/* One decoded event: 24 bytes, kept small because the replay walks millions. */
typedef struct hr_event {
    uint8_t  op;      /* hr_op_t */
    uint8_t  flags;   /* HR_EVF_* */
    uint16_t thread;  /* dense thread index, 0-based */
    uint32_t id;      /* slot id (alloc, calloc, free, realloc's new id) */
    uint32_t aux;     /* realloc old id | calloc count | string index */
    uint32_t align;   /* alignment (power of two) or 0 = default */
    uint64_t size;    /* bytes (calloc: element size) | frame number */
} hr_event_t;

typedef struct hr_op_info {
    const char *name;         /* text-format keyword */
    uint8_t     fields[3];    /* hr_field_kind_t */
    uint8_t     nfields;      /* positional fields, including optional ones */
    uint8_t     nopt;         /* how many trailing fields are optional */
    uint8_t     cls;          /* HR_OPC_* */
    const char *key;          /* report key (count in a result's "ops") */
} hr_op_info_t;

/* Table generated from HR_OP_LIST, indexed by hr_op_t. */
extern const hr_op_info_t hr_op_info[HR_OP__COUNT];
const char *hr_op_name(unsigned op); /* "?" for unknown */
/* Bit `code` set for each memory op: a compile-time constant, so the test
 * below costs what a chain of compares would in the decoder and op loops. */
#define HR_OP_MEMBIT_(e, c, t, f1, f2, f3, o, cls, key) | (HR_OPC_##cls == HR_OPC_MEM ? 1u << (c) : 0u)
#define HR_OP_MEM_MASK (0u HR_OP_LIST(HR_OP_MEMBIT_))
/* 1 for the memory ops (HR_OPC_MEM): what ops.total counts and the replay times. */
static inline int hr_op_is_mem(unsigned op) {
    return op < 32 && ((HR_OP_MEM_MASK >> op) & 1u);
}

int hr_op_from_name(const char *name, size_t len); /* -1 if unknown */

#define HR_OP_POOLBIT_(e, c, t, f1, f2, f3, o, cls, key) | (HR_OPC_##cls == HR_OPC_POOL ? 1u << (c) : 0u)
#define HR_OP_POOL_MASK (0u HR_OP_LIST(HR_OP_POOLBIT_))
/* 1 for the pool ops (HR_OPC_POOL: palloc, pfree, prealloc). */
static inline int hr_op_is_pool(unsigned op) {
    return op < 32 && ((HR_OP_POOL_MASK >> op) & 1u);
}

#define HR_OP_HINTBIT_(e, c, t, f1, f2, f3, o, cls, key) | (HR_OPC_##cls == HR_OPC_HINT ? 1u << (c) : 0u)
#define HR_OP_HINT_MASK (0u HR_OP_LIST(HR_OP_HINTBIT_))
/* 1 for the hint ops (HR_OPC_HINT: touched): no allocator work, and present
 * only in the traces that carry them. */
static inline int hr_op_is_hint(unsigned op) {
    return op < 32 && ((HR_OP_HINT_MASK >> op) & 1u);
}


/* The longest command a trace records (hr_trace_t.command), in bytes. */
#define HR_COMMAND_MAX 4096

/* Trace-level flags (hr_trace_t.flags and the binary header). */
enum {
    HR_TRACEF_TIMESTAMPS = 1u << 0, /* ts[] holds one timestamp (ns) per event */
};

/* The captured program's own run time (docs/TRACE_FORMAT.md, "Program
 * time"): what `heapreplay capture` measured of the program, so a report can
 * put the allocator's time beside it. runs == 0: none recorded (then every
 * field is 0). Not part of the trace's digest: the same events with or
 * without it are the same trace. */
typedef struct hr_program_time {
    uint32_t runs;       /* runs measured (median over them); 0 = absent */
    uint32_t flags;      /* HR_PROGF_* */
    uint64_t wall_ns;    /* median wall time */
    uint64_t cpu_ns;     /* median user + system CPU time of the program and its children */
    uint64_t cpu_min_ns; /* fastest and slowest run's CPU time: the program's own noise */
    uint64_t cpu_max_ns;
    uint64_t max_rss;    /* median of each run's peak resident set, bytes */
    /* The noise record (1.6; cpus == 0: not recorded, then the other three
     * are 0): the runs' CPU times' median absolute deviation from their
     * median, the 1-minute load average before and after the timed runs
     * (x 100) and the online CPUs, so that a report can judge the program's
     * run-to-run noise and warn when the machine was busy; and (1.7, with
     * HR_PROGF_OTHER_CPU) the CPUs that other programs kept busy on average
     * while the runs ran (x 100): the load that is not the program's own. */
    uint64_t cpu_mad_ns;
    uint32_t load_before_c, load_after_c;
    uint32_t cpus;
    uint32_t other_cpu_c;
} hr_program_time_t;

enum {
    /* The times are the captured run's own (slowed by the capture library);
     * without it, runs of the program without the library (--time-runs). */
    HR_PROGF_CAPTURED = 1u << 0,
    /* other_cpu_c was measured (the machine's busy time less the runs' own
     * CPU time, 1.7); without it the load averages are all a report has. */
    HR_PROGF_OTHER_CPU = 1u << 1,
};
#define HR_PROGF_KNOWN (HR_PROGF_CAPTURED | HR_PROGF_OTHER_CPU)

/* An in-memory trace. */
typedef struct hr_trace {
    hr_event_t *events;
    size_t      n_events, cap_events;
    uint64_t   *ts;          /* NULL unless HR_TRACEF_TIMESTAMPS */
    char      **strings;     /* string table: heap and mark names */
    uint32_t    n_strings, cap_strings;
    uint32_t    n_ids;       /* 1 + highest id used */
    uint32_t    n_threads;   /* 1 + highest thread index */
    uint32_t    flags;
    uint64_t    peak_live;   /* requested bytes, set by hr_trace_validate */
    uint64_t    op_counts[HR_OP__COUNT]; /* set by hr_trace_validate */
    uint32_t    max_align;   /* largest alloc alignment, set by hr_trace_validate */
    hr_program_time_t program; /* the program's own run time (runs 0: none) */
    /* The recorded process's command line (docs/TRACE_FORMAT.md, "Command"):
     * its executable's path, then its arguments, each after one space; at
     * most HR_COMMAND_MAX bytes, no NUL. NULL: not recorded. Which program
     * a process was tells a --follow-forks capture's processes apart (their
     * files are named by pid). Not part of the digest; freed by
     * hr_trace_free. */
    char *command;
    /* A replay process's trace in the packed form (src/trace/packed.h):
     * events is then NULL and the events are read in windows. Internal to
     * the replay; NULL in every trace a reader returns. */
    const uint8_t *packed;
    uint64_t       packed_len;
    /* Hash index of `strings` for hr_trace_intern (src/trace/names.h),
     * built on its first call; NULL until then. Freed by hr_trace_free. A
     * copy of the struct shares it: only the original may intern. */
    struct hr_names *names;
    /* Where each block was allocated (src/trace/stacks.h): the module map,
     * frames and deduplicated stacks, NULL when the trace has none; and
     * site[i], the stack id (1-based; 0 = none) of the block event i
     * creates (alloc, calloc, realloc, palloc, prealloc), NULL when no
     * event has one, else n_events entries that hr_trace_push keeps in
     * step. Neither is part of the digest. Freed by hr_trace_free. */
    struct hr_stacks *stacks;
    uint32_t         *site;
} hr_trace_t;

void hr_trace_init(hr_trace_t *t);
void hr_trace_free(hr_trace_t *t);
/* Append an event; returns 0, or -1 on out of memory. */
int hr_trace_push(hr_trace_t *t, const hr_event_t *ev);
/* Append with a timestamp; enables HR_TRACEF_TIMESTAMPS (earlier events get 0). */
int hr_trace_push_ts(hr_trace_t *t, const hr_event_t *ev, uint64_t ts);
/* Index of `name` in the string table, adding it if new; -1 on OOM. O(1)
 * expected per call (a hash index), so 100 k distinct names stay linear.
 * Strings placed in the table directly (the binary reader) are indexed on
 * the next call; equal names then resolve to the first of them. */
int64_t hr_trace_intern(hr_trace_t *t, const char *name);

/* Checks every event in order against the id lifetimes: alloc/calloc of a live
 * id, free/realloc of a dead id (incl. double free), string index out of range,
 * alignment not a power of two, calloc count*size overflow. On success fills
 * n_ids, n_threads, peak_live, op_counts and max_align and returns 0; on the first error
 * writes "NAME: event I (op): what" into err and returns -1. `name` labels the
 * trace in messages (usually its file path). */
int hr_trace_validate(hr_trace_t *t, const char *name, hr_error_t *err);

/* 1 for the ops that give their ID field a block of hr_event_bytes() bytes
 * (alloc, calloc, realloc, palloc, prealloc): every memory or pool op but the
 * frees. */
static inline int hr_op_creates_block(unsigned op) {
    return (hr_op_is_mem(op) || hr_op_is_pool(op)) && op != HR_OP_FREE && op != HR_OP_POOL_FREE;
}

/* Memory and pool ops of a validated trace (op_counts over HR_OPC_MEM and
 * HR_OPC_POOL). */
uint64_t hr_trace_mem_ops(const hr_trace_t *t);

/* Requested bytes an event adds when it succeeds (alloc, calloc, realloc new). */
static inline uint64_t hr_event_bytes(const hr_event_t *ev) {
    return ev->op == HR_OP_CALLOC ? (uint64_t)ev->aux * ev->size : ev->size;
}

/* ---- pools (src/trace/pools.c) ------------------------------------------ */

/* One pool of a trace: its name (a string-table index) and what it did. */
typedef struct hr_pool_stat {
    uint32_t name;               /* string index */
    uint64_t allocs, frees, reallocs;
    uint64_t bytes;              /* requested bytes of its pallocs and preallocs */
    uint64_t peak_live;          /* its own peak of requested live bytes */
} hr_pool_stat_t;

/* The pools of a validated trace in order of first palloc; *out is
 * malloc'd (NULL when none). Returns the count, or -1 on out of memory. */
int hr_trace_pools(const hr_trace_t *t, hr_pool_stat_t **out);

/* Frames per named frame stream (string index), in order of first frame;
 * *out malloc'd. Returns the count, or -1 on out of memory. */
typedef struct hr_stream_stat {
    uint32_t name;
    uint64_t frames;
} hr_stream_stat_t;
int hr_trace_streams(const hr_trace_t *t, hr_stream_stat_t **out);

/* Lowers pool ops to the malloc-family ops for replay: palloc -> alloc and
 * pfree -> free with aux = the pool's string index + 1 (plain ops have aux
 * 0 there: readers never produce this form, only replay routes on it),
 * prealloc -> realloc (the new block keeps the old block's pool); and a
 * frame of a named stream becomes a mark of the stream's name (replay's
 * frames are the main stream's). Then revalidates (op counts). Returns the
 * number of events lowered, or -1. */
int64_t hr_trace_lower_pools(hr_trace_t *t, hr_error_t *err);

/* ---- file formats (src/trace/) ---------------------------------------- */
typedef enum hr_format { HR_FMT_AUTO = 0, HR_FMT_BINARY, HR_FMT_TEXT } hr_format_t;

/* The input limit: the most decoded bytes a reader takes from an input
 * whose size the file system does not give, i.e. a compressed file (its
 * decompressed size) or a pipe, FIFO or stdin; 0 lifts it. A binary
 * header that claims more fails at once, before its records are read; a
 * plain regular file is bounded by its size instead. One per process; the
 * CLI sets it from --max-input or HEAPREPLAY_MAX_INPUT
 * (docs/TRACE_FORMAT.md, "Input limits"). */
#define HR_MAX_INPUT_DEFAULT ((uint64_t)1 << 30)
void hr_trace_set_max_input(uint64_t bytes);
uint64_t hr_trace_max_input(void);

/* Reads a trace (format detected from the magic when HR_FMT_AUTO), then
 * validates it. Path "-" is stdin; pipes and FIFOs work. A zstd or gzip
 * compressed file (.hrt.zst, .txt.gz) is decompressed on the fly. The format
 * is checked from the first bytes, before the rest is read, and a binary
 * trace is never read past the length its header gives. Returns 0, or -1
 * with a one-line message in err. */
int hr_trace_read_file(const char *path, hr_format_t fmt, hr_trace_t *t, hr_error_t *err);
int hr_trace_read_mem(const void *buf, size_t len, const char *name, hr_format_t fmt,
                      hr_trace_t *t, hr_error_t *err);
/* Writers; return 0 or -1 with err set (I/O error). hr_trace_write_file
 * writes atomically (src/base/outfile.h); HR_FMT_AUTO picks text for "-" and
 * names ending in .txt or .hrtt, binary otherwise. */
int hr_trace_write_file(const char *path, hr_format_t fmt, const hr_trace_t *t, hr_error_t *err);
int hr_trace_write_binary(FILE *f, const hr_trace_t *t);
int hr_trace_write_text(FILE *f, const hr_trace_t *t);

/* FNV-1a 64 digest of the trace's canonical binary encoding, as 16 hex chars. */
void hr_trace_digest(const hr_trace_t *t, char out[17]);

#ifdef __cplusplus
}
#endif
#endif
