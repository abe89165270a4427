/* Reader of the raw capture log (src/base/rawlog.h) for the capture importer
 * (internal to src/trace/; docs/CAPTURE.md "Conversion").
 *
 * hr_caplog_open maps the file and makes one pass over it: it checks every
 * record, finds where the log is cut or damaged (reported in hr_repair_t),
 * notes the END record, the module and stack definitions (offsets into the
 * mapping), what the frame renumbering needs, and cuts the records into runs
 * of ascending clocks (a thread's block is one run in the normal case). It
 * keeps nothing per event: memory follows the number of blocks.
 *
 * hr_caplog_rewind + hr_caplog_next then give the records in (clock, thread)
 * order, a merge of the runs; any number of passes may be made. Pages of the
 * mapping are dropped once read, so a large log does not stay resident. */
#ifndef HR_TRACE_CAPTURE_LOG_H
#define HR_TRACE_CAPTURE_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "base/rawlog.h"
#include "trace/import.h"

/* A MODULE or STACK record: not an event; the payload stays in the map. */
typedef struct hr_capdef {
    uint64_t ptr, a; /* MODULE: load bias, extent; STACK: -, stack id */
    size_t off, len; /* payload */
} hr_capdef_t;

typedef struct hr_caprun hr_caprun_t;

typedef struct hr_caplog {
    const char *path;
    const uint8_t *buf; /* the whole file, mapped read-only */
    size_t len;
    hr_cap_header_t h;
    hr_repair_t *rep;
    unsigned end_op; /* first op the log's version does not have */
    int stacked_ok;  /* version 4: HR_CAP_OP_STACKED may be set */
    int have_end;
    hr_cap_rec_t end;
    int have_proc;     /* version 5: the PROC record (the process's own time) */
    hr_cap_rec_t proc;
    size_t cmd_off, cmd_len; /* version 6: the CMD record's name (cmd_len 0: none) */
    uint64_t cal_clk, cal_ns; /* the latest calibration pair (block headers) */
    uint64_t n_items;         /* event records (all but END, MODULE, STACK) */
    uint64_t n_touched;       /* of which TOUCHED */
    hr_capdef_t *mods, *stks;
    size_t n_mods, cap_mods, n_stks, cap_stks;
    /* own frames only (import_capture.c): below[k], the automatic frame
     * numbers < k, when the frame-by marks and their frames are dropped;
     * NULL otherwise. */
    uint64_t *below;
    uint64_t maxno;
    hr_caprun_t *runs;
    size_t n_runs, cap_runs;
    size_t *heap; /* run indices, a min-heap on the runs' next record */
    size_t n_heap;
} hr_caplog_t;

/* Maps and indexes path. 0, or -1 with err (cannot read, not a capture log,
 * out of memory); a cut or damaged log is no error (rep says where). */
int hr_caplog_open(hr_caplog_t *L, const char *path, hr_repair_t *rep, hr_error_t *err);
/* The program time of the log's own process from its PROC record: one run,
 * the captured one (the capture library's time included), its own CPU time
 * (not its children's) and peak RSS; the program time of a --follow-forks
 * child's trace. Leaves p alone when the log has none (older logs, a process
 * that did not finish cleanly). */
void hr_caplog_program(const hr_caplog_t *L, hr_program_time_t *p);
/* The process's command line (the CMD record, version 6) as a fresh string
 * into *cmd (left NULL when the log has none). -1 when memory ran out. */
int hr_caplog_command(const hr_caplog_t *L, char **cmd);
/* Starts a pass over the records in order. 0, or -1 on out of memory. */
int hr_caplog_rewind(hr_caplog_t *L);
/* The next record: 1 (r, its annotation name at L->buf + *name_off, and
 * *drop: a frame-by mark or automatic frame to leave out), 0 at the end. */
int hr_caplog_next(hr_caplog_t *L, hr_cap_rec_t *r, size_t *name_off, int *drop);
void hr_caplog_close(hr_caplog_t *L);

#endif
