/* Internals shared by the trace readers and writers (binary.c, text.c, io.c).
 * The public entry points are in src/trace/trace.h; this header adds
 * the pieces the CLI and tests may want beyond them (reader statistics, the
 * in-memory encoder). See docs/TRACE_FORMAT.md for the formats themselves. */
#ifndef HR_TRACE_FORMAT_H
#define HR_TRACE_FORMAT_H

#include "trace/trace.h"
#include "base/varint.h"
#include "trace/idtab.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Binary layout constants (docs/TRACE_FORMAT.md, "Header"). */
#define HR_BIN_MAGIC "HRTRACE" /* + NUL = 8 bytes */
#define HR_BIN_MAGIC_LEN 8
#define HR_BIN_MAJOR 1
#define HR_BIN_MINOR 8 /* the newest minor this reader knows */
#define HR_BIN_MINOR_COMMAND 8 /* 1.8: the process's command (header flag bit 1); written only when known */
#define HR_BIN_MINOR_OTHER 7 /* 1.7: the noise record's other_cpu (flag bit 1); written only when measured */
#define HR_BIN_MINOR_NOISE 6 /* 1.6: the program's noise record after the program time; written only when present */
#define HR_BIN_MINOR_STACKS 5 /* 1.5: the stacks block in the header; written only when present */
#define HR_BIN_MINOR_PROGRAM 4 /* 1.4: program time in the header; written only when present */
#define HR_BIN_MINOR_POOLS 3 /* 1.3: pool ops (codes 8-10), named frames; written only when used */
#define HR_BIN_MINOR_PLAIN 2 /* what a trace with neither is written as (1.2) */
#define HR_BIN_HEADER_SIZE 64
#define HR_BIN_PROGRAM_SIZE 48 /* 1.4: the program-time block at offset 64 */
#define HR_BIN_NOISE_SIZE 24 /* 1.6: the noise record at offset 112 */
/* 1.8, header flags bit 1: the string table's last string is the recorded
 * process's command (hr_trace_t.command), which no event names. */
#define HR_BIN_FLAG_COMMAND 0x2u
#define HR_BIN_OP_MASK 0x1fu       /* opcode byte: bits 0-4 = op code */
#define HR_BIN_OPT 0x20u           /* bit 5: optional field(s) present */
#define HR_BIN_THREAD 0x40u        /* bit 6: thread index follows */
#define HR_BIN_RESERVED 0x80u      /* bit 7: 0 in 1.0/1.1; HR_BIN_SIZE_DELTA since 1.2 */
#define HR_BIN_SIZE_DELTA 0x80u    /* bit 7 (1.2, realloc only): SIZE is a delta, below */
#define HR_BIN_SKIPPABLE_MIN 16u   /* codes 16..31 carry a payload length */
#define HR_ID_MAX 0x7fffffffu      /* ids are < 2^31 in both formats */
#define HR_TEXT_MAGIC "heapreplay-trace"

/* Format 1.1: an op with no optional fields whose fields begin OLD, ID sets
 * the optional-field bit when ID equals OLD, and the ID field is not written
 * (a realloc that keeps its block's id costs no id byte). */
#define HR_ELIDES_ID(k1, k2, nopt) ((nopt) == 0 && (k1) == HR_F_OLD && (k2) == HR_F_ID)

/* Format 1.2: on an op whose fields are OLD, ID, SIZE (realloc), bit 7 says
 * that the SIZE field is the zig-zag varint of `size - bytes(OLD)`, where
 * bytes(id) is the requested size of the last alloc/calloc/realloc that gave
 * the id its block. Reader and writer keep bytes() in a table of n_ids. */
#define HR_SIZE_DELTA_OK(k1, k2, k3, nopt) (HR_ELIDES_ID(k1, k2, nopt) && (k3) == HR_F_SIZE)

/* The writer's choice for such a SIZE (the one rule that keeps files
 * canonical; the chunked decoder checks files against it): 1 when the
 * zig-zag delta from the old block's `old` bytes does not wrap and its
 * varint is shorter than size's, with *z (may be NULL) = that delta. */
static inline int hr_bin_size_delta(uint64_t size, uint64_t old, uint64_t *z) {
    if (size >= old ? size - old > INT64_MAX : old - size > INT64_MAX)
        return 0; /* the delta must not wrap: the reader rejects that */
    uint64_t d = hr_zigzag(size >= old ? (int64_t)(size - old) : -(int64_t)(old - size));
    if (hr_varint_len(d) >= hr_varint_len(size))
        return 0;
    if (z)
        *z = d;
    return 1;
}

/* The bytes a binary trace's header says the file holds (header + strings
 * + records, from the raw fields at 36, 48 and 56), or UINT64_MAX when they
 * overflow. Never less than the fixed header: a reader that stops at this
 * length still hands the decoder a whole header, so a nonsense header is
 * refused for its first bad field (e.g. the version) by every reader alike,
 * not as "truncated" by one of them. */
static inline uint64_t hr_bin_total(const uint8_t *h) {
    uint64_t hs = 0, sl = 0, rl = 0;
    for (int i = 3; i >= 0; i--)
        hs = (hs << 8) | h[36 + i];
    for (int i = 7; i >= 0; i--) {
        sl = (sl << 8) | h[48 + i];
        rl = (rl << 8) | h[56 + i];
    }
    if (sl > UINT64_MAX - hs || rl > UINT64_MAX - hs - sl)
        return UINT64_MAX;
    return hs + sl + rl < HR_BIN_HEADER_SIZE ? HR_BIN_HEADER_SIZE : hs + sl + rl;
}

/* Longest record: opcode + thread + timestamp + 3 fields (or length + payload). */
#define HR_REC_MAX (1 + 4 * 10 + 3 * 10)

#define HR_INLINE static inline __attribute__((always_inline))

/* Field i of an op with kinds k1..k3 is written unless it is optional and absent. */
#define HR_NFIELDS(k1, k2, k3) (((k1) != HR_F_NONE) + ((k2) != HR_F_NONE) + ((k3) != HR_F_NONE))
#define HR_PRESENT(i, k1, k2, k3, nopt, opt) ((i) < HR_NFIELDS(k1, k2, k3) - (nopt) || (opt))

/* A growable byte buffer (the encoders write into one). */
typedef struct hr_buf {
    uint8_t *data;
    size_t   len, cap;
} hr_buf_t;
void hr_buf_free(hr_buf_t *b);
/* Room for `extra` more bytes (the capacity doubles): 0, or -1 on OOM or
 * size overflow. */
int hr_buf_reserve(hr_buf_t *b, size_t extra);

/* The program time (trace.h's hr_program_time_t; src/trace/program.c).
 * check: -1 when p is consistent, else the offending field's byte offset
 * in the binary program block, with a message in what. decode/encode: the
 * HR_BIN_PROGRAM_SIZE bytes of the block. text_option: 1 when the header
 * token [tok, tok+n) was a program option (stored in p, its bit set in
 * *seen), 0 when it is no program option, -1 with a message; text_finish:
 * after the header, 0 when all or none were given and p is consistent, else
 * -1 with a message. text: the header options (" runs=... "), "" when none.
 * json: the report's and info's "program" object, NULL when none.
 * The noise record (1.6) is HR_BIN_NOISE_SIZE more bytes right after the
 * block: decode_noise/encode_noise read and write them; has_noise: whether
 * p holds one (then the writer writes minor 6 and the 24 bytes). */
int hr_program_check(const hr_program_time_t *p, char *what, size_t cap);
void hr_program_decode(const uint8_t *block, hr_program_time_t *p);
void hr_program_encode(const hr_program_time_t *p, uint8_t *block);
int hr_program_decode_noise(const uint8_t *rec, unsigned minor, hr_program_time_t *p);
void hr_program_encode_noise(const hr_program_time_t *p, uint8_t *rec);
int hr_program_has_noise(const hr_program_time_t *p);
int hr_program_text_option(hr_program_time_t *p, unsigned *seen, const char *tok, size_t n,
                           char *what, size_t cap);
int hr_program_text_finish(const hr_program_time_t *p, unsigned seen, char *what, size_t cap);
void hr_program_text(const hr_program_time_t *p, char *buf, size_t cap);
struct hr_json;
struct hr_json *hr_program_json(const hr_program_time_t *p);

/* What a reader saw besides the events. */
typedef struct hr_read_stats {
    uint64_t skipped;  /* binary records with unknown skippable opcodes */
    uint16_t major, minor;
} hr_read_stats_t;

/* Encodes the canonical binary form of t into b (appending). Returns 0, or -1
 * with errno set (EINVAL: an event the format cannot hold, e.g. an id >= 2^31
 * or an alignment that is not a power of two; ENOMEM). */
int hr_trace_encode_binary(const hr_trace_t *t, hr_buf_t *b);

/* Format-specific readers: fill a fresh t (hr_trace_init'ed by the caller),
 * then hr_trace_validate it (binary: only if `validate`, the decode benchmark
 * times the decoder alone; also checks the header's derived counts;
 * text: validation messages get the event's line). Messages use `name`.
 * Return 0 or -1 with err set; the caller frees t either way. */
int hr_trace_decode_binary(const uint8_t *buf, size_t len, const char *name,
                           hr_trace_t *t, hr_read_stats_t *st, int validate, hr_error_t *err);
int hr_trace_decode_text(const char *buf, size_t len, const char *name,
                         hr_trace_t *t, hr_error_t *err);

/* hr_trace_validate in steps, for readers that never hold the whole event
 * array (hr_trace_scan_file): new (events expected, for the per-id table's
 * size; name for messages), step over consecutive slices (indices in
 * messages count from the first event), then end checks what the last
 * event left open, then result writes n_ids,
 * n_threads, peak_live, max_align and op_counts into t. */
/* Room for cap events (and their timestamps when t has them): 0, or -1 out
 * of memory (cap_events unchanged; the arrays stay valid). */
int hr_trace_reserve(hr_trace_t *t, size_t cap);

typedef struct hr_validator hr_validator_t;
hr_validator_t *hr_validator_new(uint64_t n_events, const char *name);
/* Whether ev's aux field is a string index: an op with a string field that
 * is not optional, or optional and present (a named frame). */
static inline int hr_event_has_str(const hr_event_t *ev) {
    if (ev->op >= HR_OP__COUNT)
        return 0;
    const hr_op_info_t *in = &hr_op_info[ev->op];
    for (int f = 0; f < in->nfields; f++)
        if (in->fields[f] == HR_F_STR)
            return f < in->nfields - in->nopt || (ev->flags & HR_EVF_HAS_OPT);
    return 0;
}

/* `strings` (may be NULL) names pools in messages; n_strings bounds the
 * events' string indices. */
int hr_validator_step(hr_validator_t *vd, const hr_event_t *evs, size_t n,
                      const char *const *strings, uint32_t n_strings, hr_error_t *err);
/* After the last step: -1 (err set) when the trace ends with a `touched`
 * record whose block never came. */
int hr_validator_end(const hr_validator_t *vd, hr_error_t *err);
void hr_validator_result(const hr_validator_t *vd, hr_trace_t *t);
void hr_validator_free(hr_validator_t *vd);

/* The binary encoder as a stream (binary_enc.c), for writers that never hold
 * the whole trace (gen): encoders opened with f == NULL only count; put
 * encodes consecutive events (ts: their timestamps when has_ts); after a
 * counting pass over all events, hr_binenc_header writes the header (from
 * the counting encoder and the peak) and t's string table, and an encoder
 * opened on f writes the records of a second pass over the same events (or
 * the counting encoder writes them to a scratch file the caller copies after
 * the header). t's program time goes in the header; no stacks. The bytes equal hr_trace_encode_binary's. 0 or -1
 * with errno. */
typedef struct hr_binenc hr_binenc_t;
hr_binenc_t *hr_binenc_open(FILE *f, int has_ts);
int hr_binenc_put(hr_binenc_t *e, const hr_event_t *evs, const uint64_t *ts, size_t n);
uint64_t hr_binenc_bytes(const hr_binenc_t *e); /* record bytes so far */
int hr_binenc_header(const hr_binenc_t *counted, uint64_t peak, const hr_trace_t *t, FILE *f);
void hr_binenc_free(hr_binenc_t *e);

/* The renaming hr_trace_compact_ids applies, one event at a time (the
 * replay's packed form renames while it streams): event rewrites ev's ids in
 * place (0, or -1 out of memory); count is the new id space's size. */
typedef struct hr_id_renamer hr_id_renamer_t;
hr_id_renamer_t *hr_id_renamer_new(void);
int hr_id_renamer_event(hr_id_renamer_t *rn, hr_event_t *ev);
uint32_t hr_id_renamer_count(const hr_id_renamer_t *rn);
void hr_id_renamer_free(hr_id_renamer_t *rn);

/* Renames the ids of a validated trace densely (0..most live at once - 1)
 * when its id space is far above its events (HR_IDTAB_DENSE_MAX), so that
 * per-id tables of the replay follow the live ids; else leaves t alone. The
 * events stay a valid trace replaying the same requests; take the digest
 * before. 0, or -1 with err (out of memory). */
int hr_trace_compact_ids(hr_trace_t *t, hr_error_t *err);

/* The binary decoder in slices, never holding the whole event array. open
 * checks the header, reads the string table into t (and its timestamp flag)
 * and describes the file's layout; next decodes up to cap events (ts has
 * room for cap when the trace has timestamps) and sets *to to the end of
 * the records consumed; returns the count, 0 at the end, -1 with the error
 * given to open. close checks the record count and, with `derived` (the
 * validator's counts), the header's n_ids, n_threads and peak; 0 or -1. */
typedef struct hr_bin_scan hr_bin_scan_t;
typedef struct hr_bin_layout {
    uint16_t       minor;
    uint32_t       header_size;
    uint64_t       n_events;
    uint32_t       n_ids;
    const uint8_t *records; /* start of the records section */
} hr_bin_layout_t;
hr_bin_scan_t *hr_bin_scan_open(const uint8_t *buf, size_t len, const char *name, hr_trace_t *t,
                                hr_bin_layout_t *lay, hr_error_t *err);
long hr_bin_scan_next(hr_bin_scan_t *s, hr_event_t *evs, uint64_t *ts, size_t cap,
                      const uint8_t **to);
int hr_bin_scan_close(hr_bin_scan_t *s, const hr_trace_t *derived, uint64_t *skipped);
void hr_bin_scan_abort(hr_bin_scan_t *s); /* frees without checking (after an error) */
/* After the last next: 1 when every record so far was coded as the canonical
 * encoder codes it (none of the freedoms a reader accepts: a switch to the
 * current thread, an ID equal to OLD written out, a size-delta bit 7 other
 * than hr_bin_size_delta's choice) and string indices were first used in
 * order 0, 1, 2, ...; else 0. *needs_new: a pool op or named frame was
 * seen (the writer's minor 3); *n_used: strings used (the highest + 1). */
int hr_bin_scan_canonical(const hr_bin_scan_t *s, int *needs_new, uint32_t *n_used);

/* A trace file's bytes, format-checked and decompressed as hr_trace_read_file
 * reads them (path "-" = stdin; *name: how messages name it, "PATH
 * (decompressed)" for a compressed file, whose offsets are then of the
 * decompressed bytes; valid until the thread's next call). 0 with *buf
 * malloc'd (NULL when empty) and *fmt set, or -1 with err. */
int hr_trace_read_bytes(const char *path, uint8_t **buf, size_t *len, hr_format_t *fmt,
                        const char **name, hr_error_t *err);

/* hr_trace_read_mem with reader statistics (st may be NULL). */
int hr_trace_read_mem_stats(const void *buf, size_t len, const char *name, hr_format_t fmt,
                            hr_trace_t *t, hr_read_stats_t *st, hr_error_t *err);

#endif
