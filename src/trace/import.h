/* Importers: address-based allocation logs -> id-based traces (the `convert`
 * command, docs/ARCHITECTURE.md "Trace model"), with a report of everything
 * that had to be repaired.
 *
 *   capture   our raw log (src/base/rawlog.h, docs/CAPTURE.md)
 *   heaptrack heaptrack data files (heaptrack.*.zst / .gz / plain), v1.x text
 *   mtrace    glibc mtrace logs (MALLOC_TRACE)
 *
 * The result passes hr_trace_validate (it has been run on it). */
#ifndef HR_TRACE_IMPORT_H
#define HR_TRACE_IMPORT_H

#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"
#include "base/ptrmap.h"

typedef struct hr_repair {
    uint64_t events_in, events_out;
    uint64_t unknown_frees;      /* free/realloc of an address never seen allocated */
    uint64_t double_frees;
    uint64_t reuse_inversions;   /* address handed out again before its free was seen */
    uint64_t cross_thread_frees; /* freed by another thread than the allocating one (kept) */
    uint64_t realloc_null, realloc_zero; /* realloc(NULL,n) -> alloc; realloc(p,0) -> free */
    uint64_t failed_allocs;      /* NULL results: dropped */
    uint64_t leaked_at_end;      /* still live at the end (kept live in the trace) */
    int      truncated;          /* the input ended mid-record / without its end mark */
    char     truncation[256];    /* how/where it was cut */
    /* Additions (capture logs only): */
    uint64_t threads;            /* distinct threads seen */
    uint64_t duplicates;         /* records seen twice (a flush interrupted by a signal) */
    uint64_t overhead_ns;        /* capture library's own estimate of its time (END record) */
    char     ended[96];          /* how the captured process ended, "" if unknown */
    uint64_t pool_mismatches;    /* pfree naming another pool than the block's (kept its) */
    uint64_t touched;            /* `touched` events placed (large blocks the probe measured) */
    uint64_t touched_unknown;    /* TOUCHED records for no live block: ignored */
    uint64_t auto_frames_dropped; /* capture --frames marks dropped: the program had its own */
} hr_repair_t;

typedef enum {
    HR_IMPORT_UNKNOWN = 0,
    HR_IMPORT_CAPTURE,
    HR_IMPORT_HEAPTRACK,
    HR_IMPORT_MTRACE
} hr_import_kind_t;

/* By magic/content: our capture magic; zstd/gzip magic or a first line
 * "v <hex> <hex>" -> heaptrack; "= Start" or "@ ..." lines -> mtrace. */
hr_import_kind_t hr_import_detect(const char *path);
/* 0, or -1 with a one-line error naming the file and offset/line. `out` must
 * be initialised (hr_trace_init); `rep` is zeroed first. */
int hr_import_file(const char *path, hr_import_kind_t kind, hr_trace_t *out, hr_repair_t *rep,
                   hr_error_t *err);
void hr_repair_print(const hr_repair_t *rep, FILE *out);

/* ---- the address -> id mapping (addrmap.c), shared by the importers ---- */
typedef struct hr_addrmap hr_addrmap_t;

/* Events go to `out` (with timestamps when ts_enabled); repairs to `rep`. */
hr_addrmap_t *hr_addrmap_new(hr_trace_t *out, hr_repair_t *rep, int ts_enabled);
/* Each returns 0, or -1 on out of memory. `thread` is a dense index. A zero
 * address as a result means the call failed (counted, dropped). */
int hr_addrmap_alloc(hr_addrmap_t *m, uint16_t thread, uint64_t addr, uint64_t size,
                     uint32_t align, uint64_t ts);
int hr_addrmap_calloc(hr_addrmap_t *m, uint16_t thread, uint64_t addr, uint64_t n,
                      uint64_t size, uint64_t ts);
int hr_addrmap_realloc(hr_addrmap_t *m, uint16_t thread, uint64_t old, uint64_t addr,
                       uint64_t size, uint64_t ts);
int hr_addrmap_free(hr_addrmap_t *m, uint16_t thread, uint64_t addr, uint64_t ts);
/* heap_push / heap_pop / mark with a name, frame with a number. */
int hr_addrmap_annot(hr_addrmap_t *m, uint16_t thread, hr_op_t op, const char *name,
                     uint64_t num, uint64_t ts);
/* Pool blocks (hr_alloc_named), in an address map of their own: palloc,
 * pfree (the block keeps its own pool), prealloc (a NULL old or new pointer
 * is dropped and counted: pool reallocs have no malloc-like NULL rules). */
int hr_addrmap_pool_alloc(hr_addrmap_t *m, uint16_t thread, uint64_t addr, uint64_t size,
                          const char *pool, uint64_t ts);
int hr_addrmap_pool_free(hr_addrmap_t *m, uint16_t thread, uint64_t addr, const char *pool,
                         uint64_t ts);
int hr_addrmap_pool_realloc(hr_addrmap_t *m, uint16_t thread, uint64_t old, uint64_t addr,
                            uint64_t size, uint64_t ts);
/* A frame of the named stream (numbered per stream from 1). */
int hr_addrmap_stream_frame(hr_addrmap_t *m, uint16_t thread, const char *stream, uint64_t ts);
/* A TOUCHED record (capture logs): the live block at addr was used in its
 * first `bytes` bytes. Noted for hr_addrmap_place_touched; a record for an
 * address with no live block is ignored and counted (touched_unknown). */
int hr_addrmap_touched(hr_addrmap_t *m, uint64_t addr, uint64_t bytes);
/* Inserts a `touched` event right before the event that created each noted
 * block (its thread, its timestamp), in one pass over the trace; call it
 * once, after the last event. Sets rep->touched. 0, or -1 on OOM. */
int hr_addrmap_place_touched(hr_addrmap_t *m);
/* Streaming (the capture importer): the first n events of out were handed
 * on and removed, so out's event i is the trace's event (all flushed) + i. */
void hr_addrmap_flushed(hr_addrmap_t *m, size_t n);
/* A touched record for the block created by trace event `at` (counting
 * flushed events); seq: order of arrival. */
typedef struct hr_touch_note {
    size_t   at, seq;
    uint64_t bytes;
} hr_touch_note_t;
/* Instead of hr_addrmap_place_touched, for a writer that inserts the
 * `touched` events itself: the notes sorted by `at`, one per block (the
 * last record wins); valid until hr_addrmap_finish. Returns their count. */
size_t hr_addrmap_touch_notes(hr_addrmap_t *m, const hr_touch_note_t **notes);
/* Counts what is still live, frees the map; the trace is left as built. */
void hr_addrmap_finish(hr_addrmap_t *m);

/* Dense thread index for an external thread id (first seen = 0, 1, ...),
 * by hash lookup. The formats hold indices 0..65535: a 65 537th thread is
 * an error (HR_TIDMAP_FULL), never merged into another. Zero-initialised is
 * a valid empty map. */
typedef struct hr_tidmap {
    hr_ptrmap_t map; /* ext + 1 -> index (ext = UINT64_MAX kept aside) */
    uint32_t    n;
    int         has_max;
    uint16_t    max_idx;
} hr_tidmap_t;
#define HR_TIDMAP_FULL (-2)
#define HR_TIDMAP_MAX 65536u
int hr_tidmap_get(hr_tidmap_t *t, uint64_t ext); /* index, -1 on OOM, HR_TIDMAP_FULL */
void hr_tidmap_free(hr_tidmap_t *t);

/* Per-format entry points (import_*.c); same contract as hr_import_file. */
int hr_import_capture(const char *path, hr_trace_t *out, hr_repair_t *rep, hr_error_t *err);
/* A capture log straight into the binary trace file `out` (the same bytes
 * as hr_import_capture + hr_trace_write_file), in memory that does not grow
 * with the events (docs/CAPTURE.md "Conversion"); prog: the program time to
 * put in the header, or NULL. info (initialised) gets what a summary needs:
 * the string table, the counts hr_trace_validate sets, and the annotation
 * and pool events only (rep->events_out is the trace's event count). 0; 1
 * when the log has stacks (nothing written: use hr_import_capture); -1 with
 * err. rep is zeroed first. */
int hr_import_capture_write(const char *path, const char *out, const hr_program_time_t *prog,
                            hr_trace_t *info, hr_repair_t *rep, hr_error_t *err);
int hr_import_heaptrack(const char *path, hr_trace_t *out, hr_repair_t *rep, hr_error_t *err);
int hr_import_mtrace(const char *path, hr_trace_t *out, hr_repair_t *rep, hr_error_t *err);

#endif
