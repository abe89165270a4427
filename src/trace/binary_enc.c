/* Binary trace format: the canonical encoder (decoder: binary.c).
 * The byte layout is specified in docs/TRACE_FORMAT.md; keep the two in step.
 * Records are generated from HR_OP_LIST: each op is one switch case calling an
 * always-inline field coder with its compile-time field kinds. */
#include "trace/format.h"
#include "base/varint.h"
#include "trace/idtab.h"
#include "trace/stacks_bin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Delta chains shared by all records (docs: "Delta state"). */
typedef struct chain {
    uint32_t id;  /* last ID or OLD field */
    uint64_t num; /* last NUM field */
} chain_t;

/* ---- little-endian helpers -------------------------------------------- */
static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
/* The 64-byte header's fields (docs/TRACE_FORMAT.md, "Header"). */
typedef struct enc_header {
    unsigned minor;
    int      has_ts, command; /* the header flags' bits 0 and 1 */
    uint64_t n_events;
    uint32_t n_ids, n_threads, n_strings, header_size;
    uint64_t peak, string_bytes, record_bytes;
} enc_header_t;

static void put_header(uint8_t *h, const enc_header_t *hd) {
    memcpy(h, HR_BIN_MAGIC, HR_BIN_MAGIC_LEN); /* includes the NUL */
    put_le(h + 8, HR_BIN_MAJOR, 2);
    put_le(h + 10, hd->minor, 2);
    put_le(h + 12, (hd->has_ts ? HR_TRACEF_TIMESTAMPS : 0) | (hd->command ? HR_BIN_FLAG_COMMAND : 0),
           4);
    put_le(h + 16, hd->n_events, 8);
    put_le(h + 24, hd->n_ids, 4);
    put_le(h + 28, hd->n_threads, 4);
    put_le(h + 32, hd->n_strings, 4);
    put_le(h + 36, hd->header_size, 4);
    put_le(h + 40, hd->peak, 8);
    put_le(h + 48, hd->string_bytes, 8);
    put_le(h + 56, hd->record_bytes, 8);
}

/* Room for `extra` more bytes (format.h). */
int hr_buf_reserve(hr_buf_t *b, size_t extra) {
    if (b->cap - b->len >= extra)
        return 0;
    size_t cap = b->cap ? b->cap : (extra > 4096 ? extra : 4096);
    while (cap - b->len < extra) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    uint8_t *d = realloc(b->data, cap);
    if (!d)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

/* The string table: t's strings, then (1.8) its command as the last one. */
static int put_strings(hr_buf_t *b, const hr_trace_t *t) {
    for (uint32_t i = 0; i <= t->n_strings; i++) {
        const char *str = i < t->n_strings ? t->strings[i] : t->command;
        if (!str)
            break;
        size_t n = strlen(str);
        if (hr_buf_reserve(b, n + HR_VARINT_MAX))
            return -1;
        b->len += hr_varint_put(b->data + b->len, n);
        memcpy(b->data + b->len, str, n);
        b->len += n;
    }
    return 0;
}


void hr_buf_free(hr_buf_t *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* ---- encoder ------------------------------------------------------------ */

/* Alignment byte: 0 = default, k = 2^(k-1). -1 if not a power of two. */
static int align_code(uint32_t a) {
    if (a == 0)
        return 0;
    if (a & (a - 1))
        return -1;
    return 1 + __builtin_ctz(a);
}

/* Appends one field; returns the new end, or NULL if the value cannot be held. */
HR_INLINE uint8_t *enc_field(uint8_t *p, int kind, const hr_event_t *ev, chain_t *c) {
    uint32_t id;
    switch (kind) {
    case HR_F_ID:
    case HR_F_OLD:
        id = kind == HR_F_ID ? ev->id : ev->aux;
        if (id > HR_ID_MAX)
            return NULL;
        p += hr_varint_put(p, hr_zigzag((int64_t)id - (int64_t)c->id));
        c->id = id;
        break;
    case HR_F_SIZE:
        p += hr_varint_put(p, ev->size);
        break;
    case HR_F_ALIGN: {
        int k = align_code(ev->align);
        if (k < 0)
            return NULL;
        *p++ = (uint8_t)k;
        break;
    }
    case HR_F_COUNT:
    case HR_F_STR:
        p += hr_varint_put(p, ev->aux);
        break;
    case HR_F_NUM:
        p += hr_varint_put(p, hr_zigzag((int64_t)(ev->size - c->num)));
        c->num = ev->size;
        break;
    default:
        break;
    }
    return p;
}

HR_INLINE uint8_t *enc_fields(uint8_t *p, const hr_event_t *ev, chain_t *c, int k1, int k2,
                              int k3, int nopt, int opt) {
    if (p && k1 != HR_F_NONE && HR_PRESENT(0, k1, k2, k3, nopt, opt))
        p = enc_field(p, k1, ev, c);
    if (p && k2 != HR_F_NONE && HR_PRESENT(1, k1, k2, k3, nopt, opt) &&
        !(HR_ELIDES_ID(k1, k2, nopt) && opt))
        p = enc_field(p, k2, ev, c);
    if (p && k3 != HR_F_NONE && HR_PRESENT(2, k1, k2, k3, nopt, opt))
        p = enc_field(p, k3, ev, c);
    return p;
}

/* Fields of one op; skippable codes get a length prefix and do not advance
 * the delta chains (a reader that skips them must stay in step). */
HR_INLINE uint8_t *enc_op(uint8_t *p, const hr_event_t *ev, chain_t *c, unsigned code, int k1,
                          int k2, int k3, int nopt, int opt) {
    if (code < HR_BIN_SKIPPABLE_MIN)
        return enc_fields(p, ev, c, k1, k2, k3, nopt, opt);
    uint8_t tmp[3 * HR_VARINT_MAX];
    chain_t local = *c;
    uint8_t *q = enc_fields(tmp, ev, &local, k1, k2, k3, nopt, opt);
    if (!q)
        return NULL;
    p += hr_varint_put(p, (uint64_t)(q - tmp));
    memcpy(p, tmp, (size_t)(q - tmp));
    return p + (q - tmp);
}

#define ENC_CASE_(e, c, t, f1, f2, f3, o, cls, key)                                        \
    case c:                                                                      \
        p = enc_op(p, ev, ch, c, HR_F_##f1, HR_F_##f2, HR_F_##f3, o,             \
                   (b & HR_BIN_OPT) != 0);                                       \
        break;

/* 1.2 size delta: when the zig-zag delta from the old block's bytes is shorter
 * than the size, sets bit 7 and returns a copy of ev whose size is the delta. */
static const hr_event_t *size_delta(const hr_event_t *ev, const hr_op_info_t *in,
                                    const hr_idtab_t *bytes, hr_event_t *tmp, uint8_t *b) {
    if (!HR_SIZE_DELTA_OK(in->fields[0], in->fields[1], in->fields[2], in->nopt))
        return ev;
    uint64_t z;
    if (!hr_bin_size_delta(ev->size, hr_idtab_get(bytes, ev->aux), &z))
        return ev;
    *tmp = *ev;
    tmp->size = z;
    *b |= HR_BIN_SIZE_DELTA;
    return tmp;
}

/* One record at p (HR_REC_MAX bytes of room); returns its end or NULL (EINVAL).
 * bytes: the requested size of each id's block, kept up to date here. */
static uint8_t *enc_record(uint8_t *p, const hr_event_t *ev, chain_t *ch, uint16_t *thread,
                           const uint64_t *ts, uint64_t *prev_ts, hr_idtab_t *bytes) {
    if (ev->op >= HR_OP__COUNT)
        return NULL;
    uint8_t b = ev->op;
    const hr_op_info_t *in = &hr_op_info[ev->op];
    const hr_event_t *orig = ev;
    hr_event_t tmp;
    ev = size_delta(ev, in, bytes, &tmp, &b);
    if (in->nopt && (ev->flags & HR_EVF_HAS_OPT))
        b |= HR_BIN_OPT;
    if (HR_ELIDES_ID(in->fields[0], in->fields[1], in->nopt) && ev->id == ev->aux)
        b |= HR_BIN_OPT;
    if (ev->thread != *thread)
        b |= HR_BIN_THREAD;
    *p++ = b;
    if (b & HR_BIN_THREAD) {
        p += hr_varint_put(p, ev->thread);
        *thread = ev->thread;
    }
    if (ts) {
        p += hr_varint_put(p, hr_zigzag((int64_t)(*ts - *prev_ts)));
        *prev_ts = *ts;
    }
    switch (ev->op) {
        HR_OP_LIST(ENC_CASE_)
    default:
        return NULL;
    }
    if (p && hr_op_creates_block(orig->op) && hr_idtab_set(bytes, orig->id, hr_event_bytes(orig)))
        return NULL; /* out of memory: reported as EINVAL, a rare mislabel */
    return p;
}

/* Header counts the writer derives from the events (never trusted from t).
 * Returns -1 when an id is above HR_ID_MAX (the format cannot hold it), -2
 * when out of memory (validating the events for the peak). */
static int header_counts(const hr_trace_t *t, uint32_t *n_ids, uint32_t *n_threads,
                         uint64_t *peak) {
    uint64_t max_id = 0;
    int any = 0;
    uint32_t max_thr = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (ev->thread > max_thr)
            max_thr = ev->thread;
        if (ev->op >= HR_OP__COUNT)
            continue;
        const hr_op_info_t *in = &hr_op_info[ev->op];
        for (int f = 0; f < in->nfields; f++) {
            uint32_t v = in->fields[f] == HR_F_ID ? ev->id : in->fields[f] == HR_F_OLD ? ev->aux : 0;
            if (in->fields[f] == HR_F_ID || in->fields[f] == HR_F_OLD) {
                any = 1;
                if (v > max_id)
                    max_id = v;
            }
        }
    }
    if (max_id > HR_ID_MAX)
        return -1;
    *n_ids = any ? (uint32_t)(max_id + 1) : 0;
    *n_threads = t->n_events ? max_thr + 1 : 0;
    hr_trace_t copy = *t; /* validate writes only scalar fields of the copy */
    hr_error_t verr = {{0}};
    *peak = hr_trace_validate(&copy, "", &verr) == 0 ? copy.peak_live : 0;
    if (strstr(verr.msg, "out of memory")) /* not an invalid trace: no header */
        return -2;
    return 0;
}

int hr_trace_encode_binary(const hr_trace_t *t, hr_buf_t *b) {
    int has_ts = (t->flags & HR_TRACEF_TIMESTAMPS) && t->ts;
    uint32_t n_ids, n_threads;
    uint64_t peak;
    int hc = header_counts(t, &n_ids, &n_threads, &peak);
    if (hc != 0) {
        errno = hc == -2 ? ENOMEM : EINVAL;
        return -1;
    }
    hr_idtab_t bytes;
    if (hr_idtab_init(&bytes, n_ids, t->n_events)) {
        errno = ENOMEM;
        return -1;
    }
    /* 1.5: the stacks block follows the program-time block (zeros when the
     * trace has no program time) inside the header. */
    hr_buf_t stk = {0};
    int stacks = hr_stacks_has(t);
    if (stacks && hr_stacks_encode_bin(t, &stk) != 0) {
        hr_buf_free(&stk);
        hr_idtab_free(&bytes);
        errno = EINVAL;
        return -1;
    }
    /* 1.6: the noise record after the program time, when there is one */
    int noise = t->program.runs && hr_program_has_noise(&t->program);
    /* 1.8 (a command): the noise record's place is always there after a
     * program block, zero when the trace has none (cpus 0) */
    size_t psize = t->program.runs || stacks
                       ? HR_BIN_PROGRAM_SIZE + (noise || t->command ? HR_BIN_NOISE_SIZE : 0) : 0;
    size_t start = b->len, hsize = HR_BIN_HEADER_SIZE + psize + stk.len;
    if (hsize > UINT32_MAX || hr_buf_reserve(b, hsize))
        goto oom;
    memset(b->data + b->len, 0, hsize);
    if (stk.len)
        memcpy(b->data + b->len + HR_BIN_HEADER_SIZE + psize, stk.data, stk.len);
    hr_buf_free(&stk);
    b->len += hsize;
    if (put_strings(b, t) != 0)
        goto oom;
    size_t rec_start = b->len;
    chain_t ch = {0, 0};
    uint16_t thread = 0;
    uint64_t prev_ts = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        if (b->cap - b->len < HR_REC_MAX && hr_buf_reserve(b, HR_REC_MAX * 1024))
            goto oom;
        uint8_t *e = enc_record(b->data + b->len, &t->events[i], &ch, &thread,
                                has_ts ? &t->ts[i] : NULL, &prev_ts, &bytes);
        if (!e) {
            b->len = start;
            hr_idtab_free(&bytes);
            errno = EINVAL;
            return -1;
        }
        b->len = (size_t)(e - b->data);
    }
    /* The lowest minor that holds the trace: 1.3 only with pool ops or a
     * named frame stream, 1.4 only with program time, so a trace without
     * them is byte-identical to what 1.2 wrote (same digest, readable by 1.2
     * readers); 1.5 only with stacks. The digest is taken without the
     * program time and the stacks (io.c). */
    unsigned minor = noise && (t->program.flags & HR_PROGF_OTHER_CPU) ? HR_BIN_MINOR_OTHER
                     : noise ? HR_BIN_MINOR_NOISE
                     : stacks ? HR_BIN_MINOR_STACKS
                     : t->program.runs ? HR_BIN_MINOR_PROGRAM : HR_BIN_MINOR_PLAIN;
    for (size_t i = 0; i < t->n_events && minor < HR_BIN_MINOR_POOLS; i++)
        if (hr_op_is_pool(t->events[i].op) ||
            (t->events[i].op == HR_OP_FRAME && (t->events[i].flags & HR_EVF_HAS_OPT)))
            minor = HR_BIN_MINOR_POOLS;
    if (t->command) /* 1.8 */
        minor = HR_BIN_MINOR_COMMAND;
    uint8_t *h = b->data + start;
    enc_header_t hd = {minor, has_ts, t->command != NULL, t->n_events, n_ids, n_threads,
                       t->n_strings + (t->command != NULL), (uint32_t)hsize, peak,
                       rec_start - start - hsize, b->len - rec_start};
    put_header(h, &hd);
    if (t->program.runs)
        hr_program_encode(&t->program, h + HR_BIN_HEADER_SIZE);
    if (noise)
        hr_program_encode_noise(&t->program, h + HR_BIN_HEADER_SIZE + HR_BIN_PROGRAM_SIZE);
    hr_idtab_free(&bytes);
    return 0;
oom:
    hr_idtab_free(&bytes);
    b->len = start;
    errno = ENOMEM;
    return -1;
}

/* ---- streaming encoder -------------------------------------------------- */

/* The same bytes as hr_trace_encode_binary for a trace without stacks, in
 * pieces: a counting pass (f == NULL) learns the header's
 * fields, then hr_binenc_header writes header and string table and a second
 * encoder writes the records. No seek: any stream will do. Memory follows the
 * id space, not the event count. */
struct hr_binenc {
    FILE      *f;
    int        has_ts;
    chain_t    ch;
    uint16_t   thread;
    uint64_t   prev_ts, n_events, rec_bytes;
    uint32_t   max_thr, cap_ids;
    uint64_t   max_id;
    int        any_id;
    unsigned   minor;
    hr_idtab_t bytes; /* dense, grown to cap_ids here */
    hr_buf_t   buf;
};

hr_binenc_t *hr_binenc_open(FILE *f, int has_ts) {
    hr_binenc_t *e = calloc(1, sizeof *e);
    if (!e || hr_idtab_init(&e->bytes, 1024, 0)) {
        free(e);
        errno = ENOMEM;
        return NULL;
    }
    e->f = f;
    e->cap_ids = 1024;
    e->has_ts = has_ts != 0;
    e->minor = HR_BIN_MINOR_PLAIN;
    return e;
}

uint64_t hr_binenc_bytes(const hr_binenc_t *e) { return e->rec_bytes; }

int hr_binenc_header(const hr_binenc_t *c, uint64_t peak, const hr_trace_t *t, FILE *f) {
    hr_buf_t b = {0};
    /* 1.6: the noise record after the program time, as hr_trace_encode_binary */
    int noise = t->program.runs && hr_program_has_noise(&t->program);
    uint32_t hsize = HR_BIN_HEADER_SIZE + (t->program.runs ? HR_BIN_PROGRAM_SIZE : 0) +
                     (t->program.runs && (noise || t->command) ? HR_BIN_NOISE_SIZE : 0);
    if (hr_buf_reserve(&b, hsize))
        return -1;
    memset(b.data, 0, hsize);
    if (t->program.runs)
        hr_program_encode(&t->program, b.data + HR_BIN_HEADER_SIZE);
    if (noise)
        hr_program_encode_noise(&t->program, b.data + HR_BIN_HEADER_SIZE + HR_BIN_PROGRAM_SIZE);
    b.len = hsize;
    if (put_strings(&b, t) != 0) {
        hr_buf_free(&b);
        return -1;
    }
    /* as hr_trace_encode_binary: no timestamp flag without events, the
     * program-time minor when t has program time, the noise minor with
     * its record, 1.7 with its other_cpu */
    unsigned minor = c->minor;
    if (t->program.runs && minor < HR_BIN_MINOR_PROGRAM)
        minor = HR_BIN_MINOR_PROGRAM;
    if (noise && minor < HR_BIN_MINOR_NOISE)
        minor = HR_BIN_MINOR_NOISE;
    if (noise && (t->program.flags & HR_PROGF_OTHER_CPU))
        minor = HR_BIN_MINOR_OTHER;
    if (t->command)
        minor = HR_BIN_MINOR_COMMAND;
    enc_header_t hd = {minor,
                       c->has_ts && c->n_events, t->command != NULL, c->n_events,
                       c->any_id ? (uint32_t)(c->max_id + 1) : 0,
                       c->n_events ? c->max_thr + 1 : 0, t->n_strings + (t->command != NULL),
                       hsize, peak,
                       b.len - hsize, c->rec_bytes};
    put_header(b.data, &hd);
    int rc = fwrite(b.data, 1, b.len, f) == b.len ? 0 : -1;
    hr_buf_free(&b);
    return rc;
}

/* The per-id byte table covers every id of ev (ids are < 2^31). */
static int binenc_room(hr_binenc_t *e, uint32_t id) {
    if (id < e->cap_ids)
        return 0;
    uint32_t cap = e->cap_ids;
    while (cap <= id)
        cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
    uint64_t *d = realloc(e->bytes.dense, (size_t)cap * sizeof *d);
    if (!d)
        return -1;
    memset(d + e->cap_ids, 0, (size_t)(cap - e->cap_ids) * sizeof *d);
    e->bytes.dense = d;
    e->cap_ids = cap;
    return 0;
}

/* Header counts as header_counts() derives them, one event at a time;
 * returns the largest id (ID or OLD field) of ev. */
static uint32_t binenc_count(hr_binenc_t *e, const hr_event_t *ev) {
    uint32_t top = 0;
    if (ev->thread > e->max_thr)
        e->max_thr = ev->thread;
    const hr_op_info_t *in = &hr_op_info[ev->op];
    for (int f = 0; f < in->nfields; f++)
        if (in->fields[f] == HR_F_ID || in->fields[f] == HR_F_OLD) {
            uint32_t v = in->fields[f] == HR_F_ID ? ev->id : ev->aux;
            e->any_id = 1;
            if (v > e->max_id)
                e->max_id = v;
            if (v > top)
                top = v;
        }
    if (e->minor < HR_BIN_MINOR_POOLS &&
        (hr_op_is_pool(ev->op) || (ev->op == HR_OP_FRAME && (ev->flags & HR_EVF_HAS_OPT))))
        e->minor = HR_BIN_MINOR_POOLS;
    return top;
}

int hr_binenc_put(hr_binenc_t *e, const hr_event_t *evs, const uint64_t *ts, size_t n) {
    e->buf.len = 0;
    for (size_t i = 0; i < n; i++) {
        const hr_event_t *ev = &evs[i];
        if (ev->op >= HR_OP__COUNT || ev->id > HR_ID_MAX) {
            errno = EINVAL;
            return -1;
        }
        uint32_t top = binenc_count(e, ev);
        if (top > HR_ID_MAX) {
            errno = EINVAL;
            return -1;
        }
        if (binenc_room(e, top) ||
            (e->buf.cap - e->buf.len < HR_REC_MAX && hr_buf_reserve(&e->buf, HR_REC_MAX * 1024))) {
            errno = ENOMEM;
            return -1;
        }
        uint8_t *p = enc_record(e->buf.data + e->buf.len, ev, &e->ch, &e->thread,
                                e->has_ts ? &ts[i] : NULL, &e->prev_ts, &e->bytes);
        if (!p) {
            errno = EINVAL;
            return -1;
        }
        e->buf.len = (size_t)(p - e->buf.data);
    }
    e->n_events += n;
    e->rec_bytes += e->buf.len;
    if (e->f && fwrite(e->buf.data, 1, e->buf.len, e->f) != e->buf.len)
        return -1;
    return 0;
}

void hr_binenc_free(hr_binenc_t *e) {
    if (!e)
        return;
    hr_idtab_free(&e->bytes);
    hr_buf_free(&e->buf);
    free(e);
}
