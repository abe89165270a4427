/* Binary trace format: the fast decoder (encoder: binary_enc.c).
 * The byte layout is specified in docs/TRACE_FORMAT.md; keep the two in step.
 *
 * Both directions are generated from HR_OP_LIST: each op becomes one switch
 * case that calls an always-inline field coder with its (compile-time) field
 * kinds, so the compiler unrolls every op into straight-line code and adding
 * an op to the list needs no change here. */
#include "trace/format.h"
#include "trace/stacks_bin.h"
#include "base/varint.h"
#include "trace/idtab.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define HR_COLD __attribute__((cold, noinline))

_Static_assert(HR_OP__COUNT <= 32, "opcodes must fit the 5-bit code field");
_Static_assert(sizeof(hr_event_t) == 24, "event layout changed");

#define FAST_MARGIN 96 /* bytes left for the unchecked decoder (> REC_MAX) */

/* Delta chains shared by all records (docs: "Delta state"). */
typedef struct chain {
    uint32_t id;  /* last ID or OLD field */
    uint64_t num; /* last NUM field */
} chain_t;

static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* ---- decoder ------------------------------------------------------------ */

typedef struct dec {
    const uint8_t *base; /* start of the file: offsets in messages are from here */
    const char    *name;
    hr_error_t    *err;
    uint32_t       n_ids, n_threads, n_strings;
    chain_t        ch;
    uint64_t       ts;
    uint16_t       thread;
    uint16_t       minor;
    hr_idtab_t     bytes; /* requested size of each id's block (1.2 size deltas) */
    /* Tracked only by the chunked decoder (track = 1, hr_bin_scan_t): */
    uint64_t       freedoms; /* records coded as the canonical encoder would not */
    uint32_t       next_str; /* strings used so far in first-use order */
    int            needs_new; /* a pool op or a named frame (the writer's minor 3) */
} dec_t;

HR_COLD __attribute__((format(printf, 3, 4))) static int dec_fail(dec_t *d, const uint8_t *at, const char *fmt, ...) {
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    hr_error_set(d->err, "%s: offset %zu: %s", d->name, (size_t)(at - d->base), what);
    return -1;
}

static const char *kind_name(int kind) {
    static const char *const names[] = {
#define KIND_NAME_(k) #k,
        HR_FIELD_LIST(KIND_NAME_)
#undef KIND_NAME_
    };
    return kind >= 0 && kind < HR_F__COUNT ? names[kind] : "?";
}

HR_COLD static int varint_fail(dec_t *d, const uint8_t *at, int rc, const char *what,
                               unsigned op) {
    if (rc == HR_VARINT_TRUNC)
        return dec_fail(d, at, "truncated record: expected a varint (%s of '%s') but the "
                        "records section ends", what, hr_op_name(op));
    return dec_fail(d, at, "bad varint (%s of '%s'): longer than needed or more than 64 bits",
                    what, hr_op_name(op));
}

#define GETV(pp, end, v, checked) \
    ((checked) ? hr_varint_get((pp), (end), (v)) : hr_varint_get_unchecked((pp), (v)))

HR_INLINE int dec_field(dec_t *d, const uint8_t **pp, const uint8_t *end, int kind,
                        hr_event_t *ev, chain_t *c, int checked) {
    const uint8_t *at = *pp;
    uint64_t v;
    if (kind == HR_F_ALIGN) {
        if (checked && at >= end)
            return dec_fail(d, at, "truncated record: expected the ALIGN byte of '%s'",
                            hr_op_name(ev->op));
        *pp = at + 1;
        if (*at > 32)
            return dec_fail(d, at, "alignment code %u out of range (0..32)", *at);
        ev->align = *at ? 1u << (*at - 1) : 0;
        return 0;
    }
    int rc = GETV(pp, end, &v, checked);
    if (__builtin_expect(rc != 0, 0))
        return varint_fail(d, at, rc, kind_name(kind), ev->op);
    switch (kind) {
    case HR_F_ID:
    case HR_F_OLD: {
        uint64_t id = (uint64_t)c->id + (uint64_t)hr_unzigzag(v);
        if (__builtin_expect(id >= d->n_ids, 0))
            return dec_fail(d, at, "id %lld out of range (header says n_ids %u)",
                            (long long)(int64_t)id, d->n_ids);
        c->id = (uint32_t)id;
        if (kind == HR_F_ID)
            ev->id = (uint32_t)id;
        else
            ev->aux = (uint32_t)id;
        break;
    }
    case HR_F_SIZE:
        ev->size = v;
        break;
    case HR_F_COUNT:
        if (v > UINT32_MAX)
            return dec_fail(d, at, "count %llu out of range (max %u)", (unsigned long long)v,
                            UINT32_MAX);
        ev->aux = (uint32_t)v;
        break;
    case HR_F_STR:
        if (__builtin_expect(v >= d->n_strings, 0))
            return dec_fail(d, at, "string index %llu out of range (table has %u)",
                            (unsigned long long)v, d->n_strings);
        ev->aux = (uint32_t)v;
        break;
    case HR_F_NUM:
        c->num += (uint64_t)hr_unzigzag(v);
        ev->size = c->num;
        break;
    default:
        break;
    }
    return 0;
}

HR_INLINE int dec_fields(dec_t *d, const uint8_t **pp, const uint8_t *end, hr_event_t *ev,
                         chain_t *c, int k1, int k2, int k3, int nopt, int opt, int checked,
                         int track) {
    if (k1 != HR_F_NONE && HR_PRESENT(0, k1, k2, k3, nopt, opt) &&
        dec_field(d, pp, end, k1, ev, c, checked))
        return -1;
    if (HR_ELIDES_ID(k1, k2, nopt) && opt)
        ev->id = ev->aux; /* 1.1: ID equal to OLD, not written */
    else if (k2 != HR_F_NONE && HR_PRESENT(1, k1, k2, k3, nopt, opt) &&
             dec_field(d, pp, end, k2, ev, c, checked))
        return -1;
    if (k3 != HR_F_NONE && HR_PRESENT(2, k1, k2, k3, nopt, opt) &&
        dec_field(d, pp, end, k3, ev, c, checked))
        return -1;
    /* Freedom: an ID equal to OLD written out (the writer elides it, bit 5). */
    if (track && HR_ELIDES_ID(k1, k2, nopt) && !opt && ev->id == ev->aux)
        d->freedoms++;
    return 0;
}

/* Reads a skippable record's payload length; sets *pend to the payload end. */
static int dec_payload_len(dec_t *d, const uint8_t **pp, const uint8_t *end, unsigned code,
                           const uint8_t **pend) {
    const uint8_t *at = *pp;
    uint64_t n;
    int rc = hr_varint_get(pp, end, &n);
    if (rc)
        return varint_fail(d, at, rc, "payload length", code);
    if (n > (uint64_t)(end - *pp))
        return dec_fail(d, *pp, "truncated record: opcode %u payload needs %llu bytes, %zu left",
                        code, (unsigned long long)n, (size_t)(end - *pp));
    *pend = *pp + n;
    return 0;
}

HR_INLINE int dec_op(dec_t *d, const uint8_t **pp, const uint8_t *end, hr_event_t *ev,
                     unsigned code, int k1, int k2, int k3, int nopt, int opt, int checked,
                     int track) {
    if (code < HR_BIN_SKIPPABLE_MIN)
        return dec_fields(d, pp, end, ev, &d->ch, k1, k2, k3, nopt, opt, checked, track);
    const uint8_t *pend;
    if (dec_payload_len(d, pp, end, code, &pend))
        return -1;
    chain_t local = d->ch; /* skippable records do not advance the chains */
    if (dec_fields(d, pp, pend, ev, &local, k1, k2, k3, nopt, opt, 1, track))
        return -1;
    if (*pp != pend)
        return dec_fail(d, *pp, "%zu unexpected bytes at the end of a '%s' payload",
                        (size_t)(pend - *pp), hr_op_name(code));
    return 0;
}

/* 1.2 size deltas: resolves a delta-coded SIZE against OLD's block and
 * records the bytes of the block an op creates (code is a constant here, so
 * ops that create nothing compile to nothing). */
HR_INLINE int dec_bytes(dec_t *d, hr_event_t *ev, unsigned code, int k1, int k2, int k3,
                        int nopt, int delta, const uint8_t *at, int track) {
    if (HR_SIZE_DELTA_OK(k1, k2, k3, nopt) && (delta || track)) {
        uint64_t old = hr_idtab_get(&d->bytes, ev->aux);
        if (delta) {
            int64_t dv = hr_unzigzag(ev->size);
            if (dv < 0 ? (uint64_t)0 - (uint64_t)dv > old : (uint64_t)dv > UINT64_MAX - old)
                return dec_fail(d, at, "size delta %lld out of range: id %u's block has %llu "
                                "bytes", (long long)dv, ev->aux, (unsigned long long)old);
            ev->size = old + (uint64_t)dv;
        }
        /* Freedom: bit 7 other than the writer's choice (hr_bin_size_delta). */
        if (track && delta != hr_bin_size_delta(ev->size, old, NULL))
            d->freedoms++;
    }
    if (hr_op_creates_block(code) && hr_idtab_set(&d->bytes, ev->id, hr_event_bytes(ev)))
        return dec_fail(d, at, "out of memory for the sizes of %u ids", d->n_ids);
    return 0;
}

/* What the chunked decoder notes besides the freedoms: whether the writer
 * would need minor 3 (pool ops, named frames), and whether string indices
 * appear in first-use order 0, 1, 2, ... (the canonical string numbering). */
HR_INLINE void dec_track(dec_t *d, const hr_event_t *ev, unsigned code, int k1, int k2, int k3,
                         int nopt, int opt) {
    if (hr_op_is_pool(code) || (code == HR_OP_FRAME && opt))
        d->needs_new = 1;
    int str = (k1 == HR_F_STR && HR_PRESENT(0, k1, k2, k3, nopt, opt)) ||
              (k2 == HR_F_STR && HR_PRESENT(1, k1, k2, k3, nopt, opt)) ||
              (k3 == HR_F_STR && HR_PRESENT(2, k1, k2, k3, nopt, opt));
    if (str && ev->aux >= d->next_str) {
        if (ev->aux != d->next_str)
            d->freedoms++; /* not first-use order: hashed over the renumbered table */
        d->next_str = ev->aux + 1;
    }
}

#define DEC_CASE_(e, c, t, f1, f2, f3, o, cls, key)                                        \
    case c:                                                                      \
        if (HR_OPC_##cls == HR_OPC_POOL && d->minor < 3)                         \
            return dec_fail(d, at, "opcode %u ('%s') in a 1.%u file (pool ops "  \
                            "arrived in 1.3)", c, t, d->minor);                  \
        if (c == HR_OP_FRAME && opt && d->minor < 3)                             \
            return dec_fail(d, at, "a named frame stream in a 1.%u file (they "  \
                            "arrived in 1.3)", d->minor);                        \
        if (o == 0 && opt && !HR_ELIDES_ID(HR_F_##f1, HR_F_##f2, o))             \
            return dec_fail(d, at, "'%s' has no optional field but the opcode "  \
                            "byte sets the optional-field bit", t);              \
        if (o == 0)                                                              \
            ev->flags = 0;                                                       \
        if (dec_op(d, &p, end, ev, c, HR_F_##f1, HR_F_##f2, HR_F_##f3, o, opt,   \
                   checked, track) ||                                            \
            dec_bytes(d, ev, c, HR_F_##f1, HR_F_##f2, HR_F_##f3, o, delta, at,   \
                      track))                                                    \
            return -1;                                                           \
        if (track)                                                               \
            dec_track(d, ev, c, HR_F_##f1, HR_F_##f2, HR_F_##f3, o, opt);        \
        break;

/* Decodes one record into *ev (and *ts). Returns 0 (event), 1 (skipped) or -1. */
HR_INLINE int dec_record(dec_t *d, const uint8_t **pp, const uint8_t *end, hr_event_t *ev,
                         uint64_t *ts, int checked, int has_ts, int track) {
    const uint8_t *at = *pp, *p = at;
    unsigned b = *p++, code = b & HR_BIN_OP_MASK;
    int opt = (b & HR_BIN_OPT) != 0;
    uint64_t v;
    int delta = 0;
    if (__builtin_expect(b & HR_BIN_RESERVED, 0)) {
        /* 1.2: the size-delta bit, on realloc only; reserved otherwise */
        const hr_op_info_t *in = code < HR_OP__COUNT ? &hr_op_info[code] : NULL;
        if (d->minor < 2 || !in ||
            !HR_SIZE_DELTA_OK(in->fields[0], in->fields[1], in->fields[2], in->nopt))
            return dec_fail(d, at, "opcode byte 0x%02x sets the reserved bit 7", b);
        delta = 1;
    }
    if (__builtin_expect(b & HR_BIN_THREAD, 0)) {
        const uint8_t *tat = p;
        int rc = GETV(&p, end, &v, checked);
        if (rc)
            return varint_fail(d, tat, rc, "thread", code);
        if (v >= d->n_threads)
            return dec_fail(d, tat, "thread %llu out of range (header says n_threads %u)",
                            (unsigned long long)v, d->n_threads);
        if (track && v == d->thread)
            d->freedoms++; /* freedom: a switch to the current thread */
        d->thread = (uint16_t)v;
    }
    if (has_ts) {
        const uint8_t *tat = p;
        int rc = GETV(&p, end, &v, checked);
        if (rc)
            return varint_fail(d, tat, rc, "timestamp", code);
        d->ts += (uint64_t)hr_unzigzag(v);
        *ts = d->ts;
    }
    ev->op = (uint8_t)code;
    ev->flags = opt ? HR_EVF_HAS_OPT : 0;
    ev->thread = d->thread;
    ev->id = ev->aux = ev->align = 0;
    ev->size = 0;
    switch (code) {
        HR_OP_LIST(DEC_CASE_)
    default: {
        const uint8_t *pend;
        if (code < HR_BIN_SKIPPABLE_MIN)
            return dec_fail(d, at, "unknown opcode %u (codes below %u cannot be skipped; "
                            "written by a newer heapreplay?)", code, HR_BIN_SKIPPABLE_MIN);
        if (dec_payload_len(d, &p, end, code, &pend))
            return -1;
        *pp = pend;
        return 1;
    }
    }
    *pp = p;
    return 0;
}

/* The record loop: unchecked while FAST_MARGIN bytes remain, then checked. */
HR_INLINE int dec_loop(dec_t *d, const uint8_t *p, const uint8_t *end, hr_trace_t *t,
                       uint64_t n_events, uint64_t *skipped, int has_ts) {
    hr_event_t *evs = t->events;
    uint64_t *tss = t->ts, dummy = 0;
    size_t n = 0;
    uint64_t skip = 0;
    while (p < end) {
        if (__builtin_expect(n + skip >= n_events, 0))
            return dec_fail(d, p, "record count mismatch: more records than the header's "
                            "%llu events", (unsigned long long)n_events);
        int rc = end - p >= FAST_MARGIN
                     ? dec_record(d, &p, end, &evs[n], has_ts ? &tss[n] : &dummy, 0, has_ts, 0)
                     : dec_record(d, &p, end, &evs[n], has_ts ? &tss[n] : &dummy, 1, has_ts, 0);
        if (__builtin_expect(rc != 0, 0)) {
            if (rc < 0)
                return -1;
            skip++;
            continue;
        }
        n++;
    }
    t->n_events = n;
    *skipped = skip;
    if (n + skip != n_events)
        return dec_fail(d, end, "record count mismatch: the records section ends after %llu "
                        "records, the header says %llu", (unsigned long long)(n + skip),
                        (unsigned long long)n_events);
    return 0;
}

static int dec_loop_ts(dec_t *d, const uint8_t *p, const uint8_t *end, hr_trace_t *t,
                       uint64_t n, uint64_t *sk) {
    return dec_loop(d, p, end, t, n, sk, 1);
}
static int dec_loop_plain(dec_t *d, const uint8_t *p, const uint8_t *end, hr_trace_t *t,
                          uint64_t n, uint64_t *sk) {
    return dec_loop(d, p, end, t, n, sk, 0);
}

/* Large arrays are filled once, front to back: ask for transparent huge pages
 * so the first touch costs one fault per 2 MiB instead of per 4 KiB (on a VM
 * those faults dominated decoding). Advisory only; errors are ignored. */
static void advise_huge(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (bytes >= 4 * huge && e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

static int dec_strings_all(dec_t *d, const uint8_t *p, const uint8_t *end, hr_trace_t *t);

/* The string table; with the header's command flag (1.8) its last string is
 * the process's command, taken out of the table (no event may name it). */
static int dec_strings(dec_t *d, uint32_t hflags, const uint8_t *p, const uint8_t *end,
                       hr_trace_t *t) {
    if (dec_strings_all(d, p, end, t))
        return -1;
    if (!(hflags & HR_BIN_FLAG_COMMAND))
        return 0;
    char *cmd = t->strings[--t->n_strings];
    t->strings[t->n_strings] = NULL;
    d->n_strings = t->n_strings;
    t->command = cmd;
    if (!*cmd)
        return dec_fail(d, p, "the command (the string table's last string) is empty (expected "
                        "no command flag instead)");
    if (strlen(cmd) > HR_COMMAND_MAX)
        return dec_fail(d, p, "the command (the string table's last string) is %zu bytes "
                        "(expected at most %d)", strlen(cmd), HR_COMMAND_MAX);
    return 0;
}

/* The string table: n varint-length-prefixed names, exactly [p, end). */
static int dec_strings_all(dec_t *d, const uint8_t *p, const uint8_t *end, hr_trace_t *t) {
    if (d->n_strings && !(t->strings = calloc(d->n_strings, sizeof *t->strings)))
        return dec_fail(d, p, "out of memory for %u strings", d->n_strings);
    t->cap_strings = d->n_strings;
    for (uint32_t i = 0; i < d->n_strings; i++) {
        const uint8_t *at = p;
        uint64_t n;
        int rc = hr_varint_get(&p, end, &n);
        if (rc == HR_VARINT_TRUNC)
            return dec_fail(d, at, "truncated string table: expected the length of string %u",
                            i);
        if (rc)
            return dec_fail(d, at, "bad varint (length of string %u)", i);
        if (n > (uint64_t)(end - p))
            return dec_fail(d, p, "truncated string table: string %u needs %llu bytes, %zu "
                            "left", i, (unsigned long long)n, (size_t)(end - p));
        if (memchr(p, 0, n))
            return dec_fail(d, p, "string %u contains a NUL byte", i);
        if (!(t->strings[i] = malloc(n + 1)))
            return dec_fail(d, p, "out of memory");
        memcpy(t->strings[i], p, n);
        t->strings[i][n] = 0;
        t->n_strings = i + 1;
        p += n;
    }
    if (p != end)
        return dec_fail(d, p, "string table has %zu bytes after its %u strings",
                        (size_t)(end - p), d->n_strings);
    return 0;
}

/* Header fields at their offsets (docs/TRACE_FORMAT.md, "Header"). */
typedef struct bin_header {
    uint16_t major, minor;
    uint32_t flags, n_ids, n_threads, n_strings, header_size;
    uint64_t n_events, peak, strings_len, records_len;
    hr_program_time_t program; /* 1.4, header_size >= 112; else runs 0 */
} bin_header_t;

/* The program block's size in a header of this minor and size: 0 (none),
 * HR_BIN_PROGRAM_SIZE (1.4, 1.5) or that plus the noise record (1.6, which
 * writes minor 6 only with the record; from 1.8 its place is always there,
 * all zero when the trace has none). */
static unsigned program_size(const bin_header_t *h) {
    if (h->minor < 4 || h->header_size == HR_BIN_HEADER_SIZE)
        return 0;
    return HR_BIN_PROGRAM_SIZE + (h->minor >= HR_BIN_MINOR_NOISE ? HR_BIN_NOISE_SIZE : 0);
}

/* 1.4: the program-time block at offset 64 (a 64-byte header has none);
 * 1.6: with the noise record after it. */
static int dec_program(dec_t *d, const uint8_t *buf, bin_header_t *h) {
    memset(&h->program, 0, sizeof h->program);
    unsigned ps = program_size(h);
    if (!ps)
        return 0;
    if (h->header_size < HR_BIN_HEADER_SIZE + ps)
        return dec_fail(d, buf + 36, "header size %u: a 1.%u header is %d bytes, or at least %u "
                        "with the program time", h->header_size, h->minor, HR_BIN_HEADER_SIZE,
                        HR_BIN_HEADER_SIZE + ps);
    char what[300];
    hr_program_decode(buf + HR_BIN_HEADER_SIZE, &h->program);
    int off = -1;
    if (ps > HR_BIN_PROGRAM_SIZE &&
        (off = hr_program_decode_noise(buf + HR_BIN_HEADER_SIZE + HR_BIN_PROGRAM_SIZE, h->minor,
                                       &h->program)) >= 0)
        return dec_fail(d, buf + HR_BIN_HEADER_SIZE + off, "program time: the noise record's "
                        "word at 132 is not 0 (other_cpu needs minor 7 and its flag 0x%x)",
                        (unsigned)HR_PROGF_OTHER_CPU);
    if (ps > HR_BIN_PROGRAM_SIZE && !hr_program_has_noise(&h->program) &&
        h->minor < HR_BIN_MINOR_COMMAND)
        return dec_fail(d, buf + HR_BIN_HEADER_SIZE + ps - 8, "program time: cpus is 0 in a 1.%u "
                        "header (minors 6 and 7 hold the noise record: cpus >= 1)", h->minor);
    off = hr_program_check(&h->program, what, sizeof what);
    if (off >= 0)
        return dec_fail(d, buf + HR_BIN_HEADER_SIZE + off, "%s", what);
    if ((h->program.flags & HR_PROGF_OTHER_CPU) && h->minor < HR_BIN_MINOR_OTHER)
        return dec_fail(d, buf + HR_BIN_HEADER_SIZE + 44, "program time: flag 0x%x (other_cpu) "
                        "in a 1.%u header (it arrived in 1.7)", (unsigned)HR_PROGF_OTHER_CPU,
                        h->minor);
    return 0;
}

static int dec_header(dec_t *d, const uint8_t *buf, size_t len, bin_header_t *h) {
    if (len < HR_BIN_MAGIC_LEN ? memcmp(buf, HR_BIN_MAGIC, len) != 0
                               : memcmp(buf, HR_BIN_MAGIC, HR_BIN_MAGIC_LEN) != 0)
        return dec_fail(d, buf, "bad magic: expected \"HRTRACE\\0\"");
    if (len < HR_BIN_HEADER_SIZE)
        return dec_fail(d, buf + len, "truncated header: expected %d bytes, got %zu",
                        HR_BIN_HEADER_SIZE, len);
    h->major = (uint16_t)get_le(buf + 8, 2);
    h->minor = (uint16_t)get_le(buf + 10, 2);
    h->flags = (uint32_t)get_le(buf + 12, 4);
    h->n_events = get_le(buf + 16, 8);
    h->n_ids = (uint32_t)get_le(buf + 24, 4);
    h->n_threads = (uint32_t)get_le(buf + 28, 4);
    h->n_strings = (uint32_t)get_le(buf + 32, 4);
    h->header_size = (uint32_t)get_le(buf + 36, 4);
    h->peak = get_le(buf + 40, 8);
    h->strings_len = get_le(buf + 48, 8);
    h->records_len = get_le(buf + 56, 8);
    if (h->major != HR_BIN_MAJOR)
        return dec_fail(d, buf + 8, "unsupported major version %u (this reader reads %d.x)",
                        h->major, HR_BIN_MAJOR);
    if (h->flags & ~(uint32_t)(HR_TRACEF_TIMESTAMPS | HR_BIN_FLAG_COMMAND))
        return dec_fail(d, buf + 12, "unknown header flags 0x%x", h->flags);
    if ((h->flags & HR_BIN_FLAG_COMMAND) && h->minor < HR_BIN_MINOR_COMMAND)
        return dec_fail(d, buf + 12, "header flag 0x%x (the command) in a 1.%u file (it arrived "
                        "in 1.8)", HR_BIN_FLAG_COMMAND, h->minor);
    if ((h->flags & HR_BIN_FLAG_COMMAND) && h->n_strings == 0)
        return dec_fail(d, buf + 32, "header flag 0x%x says the last string is the command, but "
                        "the string table is empty", HR_BIN_FLAG_COMMAND);
    if (h->n_ids > (uint64_t)HR_ID_MAX + 1)
        return dec_fail(d, buf + 24, "n_ids %u out of range (max 2^31)", h->n_ids);
    if (h->n_threads > 65536)
        return dec_fail(d, buf + 28, "n_threads %u out of range (max 65536)", h->n_threads);
    if (h->header_size < HR_BIN_HEADER_SIZE)
        return dec_fail(d, buf + 36, "header size %u is below %d", h->header_size,
                        HR_BIN_HEADER_SIZE);
    if (h->header_size > len)
        return dec_fail(d, buf + len, "truncated header: expected %u bytes, got %zu",
                        h->header_size, len);
    size_t left = len - h->header_size;
    if (h->strings_len > left)
        return dec_fail(d, buf + len, "truncated string table: expected %llu bytes after the "
                        "header, got %zu", (unsigned long long)h->strings_len, left);
    left -= h->strings_len;
    if (h->records_len > left)
        return dec_fail(d, buf + len, "truncated records: expected %llu bytes after the string "
                        "table, got %zu", (unsigned long long)h->records_len, left);
    if (left > h->records_len)
        return dec_fail(d, buf + len - (left - h->records_len),
                        "%llu unexpected bytes after the records section",
                        (unsigned long long)(left - h->records_len));
    if (h->n_events > h->records_len) /* every record takes at least one byte */
        return dec_fail(d, buf + 16, "record count mismatch: header claims %llu events but "
                        "the records section has only %llu bytes",
                        (unsigned long long)h->n_events, (unsigned long long)h->records_len);
    if (h->n_strings > h->strings_len)
        return dec_fail(d, buf + 32, "header claims %u strings but the string table has only "
                        "%llu bytes", h->n_strings, (unsigned long long)h->strings_len);
    return dec_program(d, buf, h);
}

/* After validation the header's derived counts must match the events. */
static int check_counts(dec_t *d, const bin_header_t *h, const hr_trace_t *t) {
    if (h->n_ids != t->n_ids)
        return dec_fail(d, d->base + 24, "header says n_ids %u but the events need %u",
                        h->n_ids, t->n_ids);
    if (h->n_threads != t->n_threads)
        return dec_fail(d, d->base + 28, "header says n_threads %u but the events use %u",
                        h->n_threads, t->n_threads);
    if (h->peak != t->peak_live)
        return dec_fail(d, d->base + 40, "header says peak live %llu bytes but the events "
                        "give %llu", (unsigned long long)h->peak,
                        (unsigned long long)t->peak_live);
    return 0;
}

int hr_trace_decode_binary(const uint8_t *buf, size_t len, const char *name, hr_trace_t *t,
                           hr_read_stats_t *st, int validate, hr_error_t *err) {
    dec_t d = {.base = buf, .name = name, .err = err};
    bin_header_t h = {0};
    if (dec_header(&d, buf, len, &h))
        return -1;
    d.n_ids = h.n_ids;
    d.n_threads = h.n_threads;
    d.n_strings = h.n_strings;
    d.minor = h.minor;
    const uint8_t *s = buf + h.header_size, *r = s + h.strings_len, *end = r + h.records_len;
    if (dec_strings(&d, h.flags, s, r, t))
        return -1;
    t->program = h.program;
    /* Pre-size from the header; n_events <= records_len bounds it by the file. */
    size_t cap = h.n_events ? (size_t)h.n_events : 1;
    t->events = malloc(cap * sizeof *t->events);
    if (h.flags & HR_TRACEF_TIMESTAMPS) {
        t->ts = malloc(cap * sizeof *t->ts);
        t->flags |= HR_TRACEF_TIMESTAMPS;
    }
    if (!t->events || ((h.flags & HR_TRACEF_TIMESTAMPS) && !t->ts))
        return dec_fail(&d, r, "out of memory for %llu events", (unsigned long long)h.n_events);
    t->cap_events = cap;
    advise_huge(t->events, cap * sizeof *t->events);
    if (t->ts)
        advise_huge(t->ts, cap * sizeof *t->ts);
    /* Sized by the events when the header's n_ids is far above them (a
     * few huge ids, or a lying header: check_counts reports that one). */
    if (hr_idtab_init(&d.bytes, h.n_ids, h.n_events))
        return dec_fail(&d, r, "out of memory for %u ids", h.n_ids);
    uint64_t skipped = 0;
    int rc = (h.flags & HR_TRACEF_TIMESTAMPS) ? dec_loop_ts(&d, r, end, t, h.n_events, &skipped)
                                              : dec_loop_plain(&d, r, end, t, h.n_events, &skipped);
    hr_idtab_free(&d.bytes);
    if (rc)
        return -1;
    if (st) {
        st->skipped = skipped;
        st->major = h.major;
        st->minor = h.minor;
    }
    /* 1.5: the stacks block after the program-time block (older minors
     * may not hold one: their extra header bytes are skipped). */
    unsigned ps = program_size(&h);
    if (h.minor >= HR_BIN_MINOR_STACKS && h.header_size > HR_BIN_HEADER_SIZE + ps &&
        hr_stacks_decode_bin(t, buf + HR_BIN_HEADER_SIZE + ps, buf + h.header_size, buf, name,
                             err))
        return -1;
    if (!validate)
        return 0;
    if (hr_trace_validate(t, name, err))
        return -1;
    return check_counts(&d, &h, t);
}

/* ---- chunked decoding (hr_trace_scan_file) -------------------------------- */

struct hr_bin_scan {
    dec_t          d;
    bin_header_t   h;
    const uint8_t *p, *end;
    uint64_t       n, skipped;
};

hr_bin_scan_t *hr_bin_scan_open(const uint8_t *buf, size_t len, const char *name, hr_trace_t *t,
                                hr_bin_layout_t *lay, hr_error_t *err) {
    hr_bin_scan_t *s = calloc(1, sizeof *s);
    if (!s) {
        hr_error_set(err, "%s: out of memory", name);
        return NULL;
    }
    s->d = (dec_t){.base = buf, .name = name, .err = err};
    if (dec_header(&s->d, buf, len, &s->h) != 0)
        goto fail;
    s->d.n_ids = s->h.n_ids;
    s->d.n_threads = s->h.n_threads;
    s->d.n_strings = s->h.n_strings;
    s->d.minor = s->h.minor;
    const uint8_t *str = buf + s->h.header_size, *r = str + s->h.strings_len;
    if (dec_strings(&s->d, s->h.flags, str, r, t) != 0)
        goto fail;
    if (hr_idtab_init(&s->d.bytes, s->h.n_ids, s->h.n_events)) {
        dec_fail(&s->d, r, "out of memory for %u ids", s->h.n_ids);
        goto fail;
    }
    t->flags |= s->h.flags & HR_TRACEF_TIMESTAMPS;
    t->program = s->h.program;
    s->p = r;
    s->end = r + s->h.records_len;
    lay->minor = s->h.minor;
    lay->header_size = s->h.header_size;
    lay->n_events = s->h.n_events;
    lay->n_ids = s->h.n_ids;
    lay->records = r;
    return s;
fail:
    hr_idtab_free(&s->d.bytes);
    free(s);
    return NULL;
}

/* The chunked record loop (has_ts and track constant: one copy each). */
HR_INLINE long scan_loop(hr_bin_scan_t *s, hr_event_t *evs, uint64_t *ts, size_t cap,
                         int has_ts) {
    dec_t *d = &s->d;
    const uint8_t *p = s->p, *end = s->end;
    uint64_t dummy = 0, left = s->h.n_events - s->n - s->skipped;
    size_t k = 0;
    while (p < end && k < cap) {
        if (__builtin_expect(left == 0, 0)) {
            s->p = p;
            return dec_fail(d, p, "record count mismatch: more records than the header's "
                            "%llu events", (unsigned long long)s->h.n_events);
        }
        left--;
        int rc = end - p >= FAST_MARGIN
                     ? dec_record(d, &p, end, &evs[k], has_ts ? &ts[k] : &dummy, 0, has_ts, 1)
                     : dec_record(d, &p, end, &evs[k], has_ts ? &ts[k] : &dummy, 1, has_ts, 1);
        if (__builtin_expect(rc != 0, 0)) {
            if (rc < 0) {
                s->p = p;
                return -1;
            }
            s->skipped++;
            continue;
        }
        k++;
    }
    s->n += k;
    s->p = p;
    return (long)k;
}

long hr_bin_scan_next(hr_bin_scan_t *s, hr_event_t *evs, uint64_t *ts, size_t cap,
                      const uint8_t **to) {
    long k = s->h.flags & HR_TRACEF_TIMESTAMPS ? scan_loop(s, evs, ts, cap, 1)
                                               : scan_loop(s, evs, ts, cap, 0);
    *to = s->p;
    return k;
}

int hr_bin_scan_canonical(const hr_bin_scan_t *s, int *needs_new, uint32_t *n_used) {
    *needs_new = s->d.needs_new;
    *n_used = s->d.next_str;
    return s->d.freedoms == 0;
}

int hr_bin_scan_close(hr_bin_scan_t *s, const hr_trace_t *derived, uint64_t *skipped) {
    int rc = 0;
    if (s->n + s->skipped != s->h.n_events)
        rc = dec_fail(&s->d, s->end, "record count mismatch: the records section ends after "
                      "%llu records, the header says %llu",
                      (unsigned long long)(s->n + s->skipped), (unsigned long long)s->h.n_events);
    else if (derived)
        rc = check_counts(&s->d, &s->h, derived);
    if (skipped)
        *skipped = s->skipped;
    hr_idtab_free(&s->d.bytes);
    free(s);
    return rc;
}

void hr_bin_scan_abort(hr_bin_scan_t *s) {
    if (s) {
        hr_idtab_free(&s->d.bytes);
        free(s);
    }
}
