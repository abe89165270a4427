/* Importer for our own raw capture log (src/base/rawlog.h).
 *
 * Reads every whole record of every block (version 2: variable-length,
 * delta-coded records), stops at the first cut or damaged block (reporting
 * where), sorts the records by (clock, thread) (dropping duplicates left by a
 * flush interrupted by a signal: a thread's clock never repeats), converts
 * clocks to ns with the calibration pairs of the header and the last block,
 * and replays them through the address map. TOUCHED records (version 3, the
 * library's page probe) become `touched` events placed before the event that
 * created their block, after everything else (hr_addrmap_place_touched).
 * Frames the library found at present functions (capture --frames: a
 * HR_CAP_FRAME_BY mark before the FRAME) are dropped, with their marks, when
 * the program also marked frames itself (own_frames_only). Version 4
 * (capture --stacks): MODULE and STACK records become the trace's module map
 * and stacks (build_stacks), and each allocation record's stack id the site
 * of the event it became. */
#include <stdlib.h>
#include <string.h>

#include "base/rawlog.h"
#include "trace/import.h"
#include "trace/stacks.h"

_Static_assert(HR_CAP_TOUCH_MIN == HR_TOUCH_PROBE_MIN,
               "the capture library probes the blocks src/trace/trace.h says it does");

typedef struct cap_item {
    hr_cap_rec_t rec;
    size_t name_off; /* offset of the annotation name in the file buffer */
    int drop;        /* not converted (own_frames_only) */
} cap_item_t;

/* A MODULE or STACK record (version 4, capture --stacks): kept aside, not
 * an event; the payload stays in the file buffer. */
typedef struct cap_def {
    uint64_t ptr, a; /* MODULE: load bias, extent; STACK: -, stack id */
    size_t off, len; /* payload */
} cap_def_t;

/* The log's stack ids -> the trace's, sorted by the log's id. */
typedef struct cap_sid {
    uint64_t log_id;
    uint32_t trace_id;
} cap_sid_t;

typedef struct cap_state {
    const char *path;
    unsigned char *buf;
    size_t len;
    cap_item_t *items;
    size_t n, cap;
    int have_end;
    hr_cap_rec_t end;
    uint64_t cal_clk, cal_ns; /* the latest calibration pair (block headers) */
    hr_repair_t *rep;
    unsigned end_op; /* first op the log's version does not have */
    int stacked_ok;  /* version 4: HR_CAP_OP_STACKED may be set */
    cap_def_t *mods, *stks;
    size_t n_mods, cap_mods, n_stks, cap_stks;
    cap_sid_t *sids; /* n_stks entries once build_stacks ran */
    uint32_t *site;  /* per event pushed (before the touched ones are placed); NULL: no stacks */
    size_t cap_site;
} cap_state_t;

static int read_all(const char *path, unsigned char **buf, size_t *len, hr_error_t *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        hr_error_set(err, "%s: cannot open", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    for (;;) {
        if (!b) {
            fclose(f);
            hr_error_set(err, "%s: out of memory", path);
            return -1;
        }
        n += fread(b + n, 1, cap - n, f);
        if (n < cap)
            break;
        unsigned char *nb = realloc(b, cap * 2);
        if (!nb)
            free(b);
        b = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        hr_error_set(err, "%s: read error", path);
        return -1;
    }
    *buf = b;
    *len = n;
    return 0;
}

static void cut(cap_state_t *s, size_t off, const char *what) {
    s->rep->truncated = 1;
    snprintf(s->rep->truncation, sizeof s->rep->truncation, "%s at offset %zu", what, off);
}

static int push_item(cap_state_t *s, const hr_cap_rec_t *r, size_t name_off) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        cap_item_t *it = realloc(s->items, cap * sizeof *it);
        if (!it)
            return -1;
        s->items = it;
        s->cap = cap;
    }
    s->items[s->n].rec = *r;
    s->items[s->n].name_off = name_off;
    s->items[s->n].drop = 0;
    s->n++;
    return 0;
}

static int push_def(cap_state_t *s, const hr_cap_rec_t *r, size_t name_off) {
    int mod = r->op == HR_CAP_MODULE;
    cap_def_t **v = mod ? &s->mods : &s->stks;
    size_t *n = mod ? &s->n_mods : &s->n_stks, *cap = mod ? &s->cap_mods : &s->cap_stks;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        cap_def_t *nv = realloc(*v, c * sizeof *nv);
        if (!nv)
            return -1;
        *v = nv;
        *cap = c;
    }
    (*v)[(*n)++] = (cap_def_t){r->ptr, r->a, name_off, (size_t)r->b};
    return 0;
}

/* Decodes one record at [*off, end) with the block's delta state; returns 0
 * (record in *r, *off advanced), 1 when cut, 2 on an unknown op. */
static int get_rec(const cap_state_t *s, size_t *off, size_t end, hr_cap_delta_t *d,
                   hr_cap_rec_t *r, size_t *name_off) {
    const uint8_t *p = s->buf + *off, *e = s->buf + end;
    uint64_t dc, dp, a = 0, b = 0, st = 0;
    if (p >= e)
        return 1;
    r->op = *p++;
    int stacked = s->stacked_ok && (r->op & HR_CAP_OP_STACKED);
    if (stacked)
        r->op &= (uint8_t)~HR_CAP_OP_STACKED;
    if (r->op == 0 || r->op >= s->end_op)
        return 2;
    if (hr_varint_get(&p, e, &dc) != HR_VARINT_OK || hr_varint_get(&p, e, &dp) != HR_VARINT_OK)
        return 1;
    if (r->op != HR_CAP_FREE &&
        (hr_varint_get(&p, e, &a) != HR_VARINT_OK || hr_varint_get(&p, e, &b) != HR_VARINT_OK))
        return 1;
    r->clk = d->clk + dc;
    r->ptr = d->ptr + (uint64_t)hr_unzigzag(dp);
    r->a = hr_cap_is_realloc(r->op) ? r->ptr + (uint64_t)hr_unzigzag(a) : a;
    r->b = b;
    d->clk = r->clk;
    d->ptr = r->ptr;
    *name_off = (size_t)(p - s->buf);
    if (hr_cap_has_name(r->op)) {
        if (b > (uint64_t)(e - p))
            return 1;
        p += b;
    }
    if (stacked && hr_varint_get(&p, e, &st) != HR_VARINT_OK)
        return 1;
    r->stack = st > UINT32_MAX ? 0 : (uint32_t)st;
    *off = (size_t)(p - s->buf);
    return 0;
}

/* Parses the records of one block payload [off, end). Returns 0 when whole,
 * 1 when cut (reported), -1 on OOM. */
static int parse_block(cap_state_t *s, size_t off, size_t end, size_t block_off,
                       const hr_cap_block_t *h) {
    uint32_t got = 0;
    hr_cap_delta_t d = {0, 0};
    while (off < end) {
        hr_cap_rec_t r;
        size_t name_off, at = off;
        int rc = get_rec(s, &off, end, &d, &r, &name_off);
        if (rc == 2) {
            char what[96];
            snprintf(what, sizeof what, "unknown record op %u in block at offset %zu", r.op,
                     block_off);
            cut(s, at, what);
            return 1;
        }
        if (rc == 1) {
            off = at;
            break;
        }
        r.tid = h->tid;
        if (r.op == HR_CAP_END) {
            s->have_end = 1;
            s->end = r;
        } else if (r.op == HR_CAP_MODULE || r.op == HR_CAP_STACK) {
            if (push_def(s, &r, name_off) != 0)
                return -1;
        } else if (push_item(s, &r, name_off) != 0) {
            return -1;
        }
        got++;
    }
    if (off < end || got < h->nrecs) {
        char what[128];
        snprintf(what, sizeof what, "block at offset %zu cut after %u of %u records", block_off,
                 got, h->nrecs);
        cut(s, off, what);
        return 1;
    }
    return 0;
}

static int parse_blocks(cap_state_t *s, hr_error_t *err) {
    size_t off = sizeof(hr_cap_header_t);
    while (off < s->len) {
        hr_cap_block_t h;
        if (s->len - off < sizeof h) {
            cut(s, off, "block header cut");
            return 0;
        }
        memcpy(&h, s->buf + off, sizeof h);
        if (h.magic != HR_CAP_BLOCK_MAGIC) {
            cut(s, off, "damaged block (bad magic); read up to here");
            return 0;
        }
        size_t start = off + sizeof h;
        size_t avail = s->len - start < h.nbytes ? s->len - start : h.nbytes;
        if (h.clk > s->cal_clk) {
            s->cal_clk = h.clk;
            s->cal_ns = h.ns;
        }
        int rc = parse_block(s, start, start + avail, off, &h);
        if (rc < 0) {
            hr_error_set(err, "%s: out of memory", s->path);
            return -1;
        }
        if (rc > 0)
            return 0;
        if (avail < h.nbytes) {
            char what[96];
            snprintf(what, sizeof what, "block at offset %zu cut (%zu of %u bytes)", off, avail,
                     h.nbytes);
            cut(s, s->len, what);
            return 0;
        }
        off = start + h.nbytes;
    }
    return 0;
}

/* ---- stacks (capture --stacks) ----------------------------------------- */
static int by_log_id(const void *a, const void *b) {
    const cap_sid_t *x = a, *y = b;
    return x->log_id < y->log_id ? -1 : x->log_id > y->log_id;
}

/* Adds the log's module map and stacks to the trace (frames by address,
 * stacks by content: a stack the library wrote twice is one stack) and
 * fills s->sids. Modules first: a frame takes its module when interned.
 * 0, or -1 on out of memory. */
static int build_stacks(cap_state_t *s, hr_trace_t *out) {
    hr_stacks_t *st = s->n_stks ? hr_trace_stacks(out) : NULL;
    if (!s->n_stks)
        return 0;
    s->sids = malloc(s->n_stks * sizeof *s->sids);
    if (!st || !s->sids)
        return -1;
    char path[4097];
    for (size_t i = 0; i < s->n_mods; i++) {
        const cap_def_t *d = &s->mods[i];
        size_t n = d->len < sizeof path - 1 ? d->len : sizeof path - 1;
        memcpy(path, s->buf + d->off, n);
        path[n] = 0;
        size_t pl = strlen(path);
        const char *bid = pl + 1 < n ? path + pl + 1 : NULL;
        if (hr_stacks_add_module(st, path, bid, d->ptr, d->a) < 0)
            return -1;
    }
    uint32_t fr[HR_CAP_STACK_DEPTH_MAX];
    for (size_t i = 0; i < s->n_stks; i++) {
        const cap_def_t *d = &s->stks[i];
        size_t n = d->len / 8 < HR_CAP_STACK_DEPTH_MAX ? d->len / 8 : HR_CAP_STACK_DEPTH_MAX;
        for (size_t k = 0; k < n; k++) {
            uint64_t addr = 0;
            for (int b = 7; b >= 0; b--)
                addr = addr << 8 | s->buf[d->off + 8 * k + (size_t)b];
            int64_t ix = hr_stacks_frame_addr(st, addr);
            if (ix < 0)
                return -1;
            fr[k] = (uint32_t)ix;
        }
        /* a STACK without a whole frame (a damaged log) gives no site */
        int64_t id = n ? hr_stacks_intern(st, fr, (uint32_t)n) : 0;
        if (id < 0)
            return -1;
        s->sids[i] = (cap_sid_t){d->a, (uint32_t)id};
    }
    qsort(s->sids, s->n_stks, sizeof *s->sids, by_log_id);
    return 0;
}

/* The trace's stack id of the log's stack `log_id`; 0 when the log never
 * defined it (its STACK record was in a block that was lost). */
static uint32_t trace_sid(const cap_state_t *s, uint64_t log_id) {
    cap_sid_t key = {log_id, 0};
    const cap_sid_t *f = s->n_stks ? bsearch(&key, s->sids, s->n_stks, sizeof key, by_log_id) : NULL;
    return f ? f->trace_id : 0;
}

/* After an allocation record became events [before, out->n_events): its
 * stack goes with the last of them when that one creates a block (a repair
 * may have pushed others first). 0, or -1 on out of memory. */
static int note_site(cap_state_t *s, const hr_trace_t *out, size_t before, uint32_t log_id) {
    size_t n = out->n_events;
    if (!log_id || n == before)
        return 0;
    uint8_t op = out->events[n - 1].op;
    if (op != HR_OP_ALLOC && op != HR_OP_CALLOC && op != HR_OP_REALLOC)
        return 0;
    if (n > s->cap_site) {
        size_t c = s->cap_site ? s->cap_site : 4096;
        while (c < n)
            c *= 2;
        uint32_t *v = realloc(s->site, c * sizeof *v);
        if (!v)
            return -1;
        memset(v + s->cap_site, 0, (c - s->cap_site) * sizeof *v);
        s->site = v;
        s->cap_site = c;
    }
    s->site[n - 1] = trace_sid(s, log_id);
    return 0;
}

/* Moves the sites noted per pushed event onto the final events: the touched
 * events hr_addrmap_place_touched inserted are the only events of op
 * touched (the log's own TOUCHED records push none). 0, or -1 on OOM. */
static int apply_sites(const cap_state_t *s, hr_trace_t *out) {
    if (!s->site)
        return 0;
    for (size_t j = 0, i = 0; j < out->n_events; j++) {
        if (out->events[j].op == HR_OP_TOUCHED)
            continue;
        uint32_t id = i < s->cap_site ? s->site[i] : 0;
        i++;
        if (id && hr_trace_set_site(out, j, id) != 0)
            return -1;
    }
    return 0;
}

/* Total order: clock, then thread (equal clocks of different threads are
 * concurrent events; equal (clock, thread) pairs are duplicates). */
static int by_clock(const void *a, const void *b) {
    const hr_cap_rec_t *x = &((const cap_item_t *)a)->rec, *y = &((const cap_item_t *)b)->rec;
    if (x->clk != y->clk)
        return x->clk < y->clk ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Clock -> ns since the header's start time. */
typedef struct cap_cal {
    uint64_t clk0;
    double ns_per_clk;
} cap_cal_t;

/* UINT64_MAX when the result does not fit (a damaged calibration: the caller
 * reports it; converting an out-of-range double is undefined). */
static uint64_t cal_ts(const cap_cal_t *c, uint64_t clk) {
    if (clk <= c->clk0)
        return 0;
    double ns = (double)(clk - c->clk0) * c->ns_per_clk;
    return ns >= 0 && ns < 18446744073709549568.0 ? (uint64_t)ns : UINT64_MAX;
}

static int replay_item(cap_state_t *s, hr_addrmap_t *m, const cap_item_t *it, uint16_t th,
                       uint64_t ts) {
    const hr_cap_rec_t *r = &it->rec;
    char name[256];
    switch (r->op) {
    case HR_CAP_MALLOC: return hr_addrmap_alloc(m, th, r->ptr, r->a, 0, ts);
    case HR_CAP_CALLOC: return hr_addrmap_calloc(m, th, r->ptr, r->a, r->b, ts);
    case HR_CAP_REALLOC: return hr_addrmap_realloc(m, th, r->a, r->ptr, r->b, ts);
    case HR_CAP_FREE: return hr_addrmap_free(m, th, r->ptr, ts);
    case HR_CAP_MEMALIGN:
        return hr_addrmap_alloc(m, th, r->ptr, r->a, r->b > UINT32_MAX ? 0 : (uint32_t)r->b, ts);
    case HR_CAP_FRAME: return hr_addrmap_annot(m, th, HR_OP_FRAME, NULL, r->a, ts);
    case HR_CAP_POOL_REALLOC: return hr_addrmap_pool_realloc(m, th, r->a, r->ptr, r->b, ts);
    case HR_CAP_TOUCHED: return hr_addrmap_touched(m, r->ptr, r->a);
    default: {
        size_t n = r->b < sizeof name - 1 ? (size_t)r->b : sizeof name - 1;
        memcpy(name, s->buf + it->name_off, n);
        name[n] = 0;
        if (r->op == HR_CAP_POOL_ALLOC)
            return hr_addrmap_pool_alloc(m, th, r->ptr, r->a, name, ts);
        if (r->op == HR_CAP_POOL_FREE)
            return hr_addrmap_pool_free(m, th, r->ptr, name, ts);
        if (r->op == HR_CAP_FRAME_NAMED)
            return hr_addrmap_stream_frame(m, th, name, ts);
        hr_op_t op = r->op == HR_CAP_HEAP_PUSH ? HR_OP_HEAP_PUSH
                     : r->op == HR_CAP_HEAP_POP ? HR_OP_HEAP_POP : HR_OP_MARK;
        return hr_addrmap_annot(m, th, op, name, 0, ts);
    }
    }
}

static void describe_end(cap_state_t *s) {
    hr_repair_t *rep = s->rep;
    if (!s->have_end) {
        if (!rep->truncated)
            cut(s, s->len, "no END record (killed by SIGKILL, a raw exit syscall, or a crash)");
        snprintf(rep->ended, sizeof rep->ended, "unknown (no END record)");
        return;
    }
    rep->overhead_ns = s->end.a;
    uint64_t how = s->end.b;
    if (how == 0)
        snprintf(rep->ended, sizeof rep->ended, "exit");
    else if (how == 1)
        snprintf(rep->ended, sizeof rep->ended, "_exit");
    else if (how >= 128)
        snprintf(rep->ended, sizeof rep->ended, "signal %llu (buffers flushed)",
                 (unsigned long long)(how - 128));
    else
        snprintf(rep->ended, sizeof rep->ended, "code %llu", (unsigned long long)how);
}

/* 1 for a frame-by mark (src/base/rawlog.h, HR_CAP_FRAME_BY). */
static int is_frame_by(const cap_state_t *s, const cap_item_t *it) {
    size_t n = sizeof HR_CAP_FRAME_BY - 1;
    return it->rec.op == HR_CAP_MARK && it->rec.b > n &&
           memcmp(s->buf + it->name_off, HR_CAP_FRAME_BY, n) == 0;
}

/* The program's own frames win over the ones capture --frames found: when
 * both are in the log (the automatic marks stop at the program's first
 * hr_frame(); the ones before it are here), every automatic frame and its
 * mark are dropped and the other frames renumbered without them. A frame is
 * automatic when a frame-by mark carries its number (the mark's `a`).
 * 0, or -1 on out of memory. */
static int own_frames_only(cap_state_t *s) {
    uint64_t maxno = 0, nauto = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->items[i].rec.op == HR_CAP_FRAME && s->items[i].rec.a > maxno)
            maxno = s->items[i].rec.a;
    if (maxno == 0 || maxno > s->n)
        return 0; /* no frames, or numbers no library wrote */
    uint64_t *below = calloc(maxno + 2, sizeof *below); /* below[k]: automatic numbers < k */
    if (!below)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        if (is_frame_by(s, &s->items[i]) && s->items[i].rec.a && s->items[i].rec.a <= maxno &&
            !below[s->items[i].rec.a + 1]) {
            below[s->items[i].rec.a + 1] = 1;
            nauto++;
        }
    uint64_t frames = 0;
    for (size_t i = 0; i < s->n; i++)
        frames += s->items[i].rec.op == HR_CAP_FRAME;
    if (nauto && frames > nauto) {
        for (uint64_t k = 1; k <= maxno + 1; k++)
            below[k] += below[k - 1];
        for (size_t i = 0; i < s->n; i++) {
            cap_item_t *it = &s->items[i];
            if (is_frame_by(s, it))
                it->drop = 1;
            else if (it->rec.op == HR_CAP_FRAME && below[it->rec.a + 1] > below[it->rec.a])
                it->drop = 1, s->rep->auto_frames_dropped++;
            else if (it->rec.op == HR_CAP_FRAME)
                it->rec.a -= below[it->rec.a];
        }
    }
    free(below);
    return 0;
}

static int convert_items(cap_state_t *s, hr_trace_t *out, int ts, const cap_cal_t *cal,
                         hr_error_t *err) {
    if (s->n) /* qsort(NULL, 0) is undefined */
        qsort(s->items, s->n, sizeof *s->items, by_clock);
    hr_addrmap_t *m = hr_addrmap_new(out, s->rep, ts);
    hr_tidmap_t tids = {0};
    int rc = m && own_frames_only(s) == 0 && build_stacks(s, out) == 0 ? 0 : -1;
    uint64_t last_tid = 0;
    int last_idx = -1;
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        const cap_item_t *it = &s->items[i];
        if (i && it->rec.clk == s->items[i - 1].rec.clk && it->rec.tid == s->items[i - 1].rec.tid) {
            s->rep->duplicates++;
            continue;
        }
        if (it->drop)
            continue;
        if (last_idx < 0 || it->rec.tid != last_tid) {
            last_tid = it->rec.tid;
            last_idx = hr_tidmap_get(&tids, last_tid);
        }
        if (last_idx == HR_TIDMAP_FULL) {
            hr_error_set(err, "%s: record %zu: more than %u threads (trace thread indices are "
                         "0..65535)", s->path, i, HR_TIDMAP_MAX);
            rc = -2;
            break;
        }
        uint64_t ns = ts ? cal_ts(cal, it->rec.clk) : 0;
        if (ns == UINT64_MAX) {
            hr_error_set(err, "%s: record %zu: timestamp beyond 2^64 ns (clock %llu, the "
                         "calibration gives %g ns per tick)", s->path, i,
                         (unsigned long long)it->rec.clk, cal->ns_per_clk);
            rc = -2;
            break;
        }
        size_t before = out->n_events;
        rc = last_idx < 0 ? -1 : replay_item(s, m, it, (uint16_t)last_idx, ns);
        if (rc == 0 && it->rec.stack)
            rc = note_site(s, out, before, it->rec.stack);
    }
    if (rc == 0)
        rc = hr_addrmap_place_touched(m);
    if (rc == 0)
        rc = apply_sites(s, out);
    s->rep->threads = tids.n;
    hr_tidmap_free(&tids);
    hr_addrmap_finish(m);
    if (rc == -1)
        hr_error_set(err, "%s: out of memory while converting", s->path);
    return rc ? -1 : 0;
}

int hr_import_capture(const char *path, hr_trace_t *out, hr_repair_t *rep, hr_error_t *err) {
    cap_state_t s = {.path = path, .rep = rep};
    if (read_all(path, &s.buf, &s.len, err) != 0)
        return -1;
    hr_cap_header_t h;
    int rc = -1;
    if (s.len < sizeof h) {
        hr_error_set(err, "%s: offset %zu: file ends inside the %zu-byte capture header", path, s.len,
                     sizeof h);
        goto done;
    }
    memcpy(&h, s.buf, sizeof h);
    if (memcmp(h.magic, HR_CAP_MAGIC, 8) != 0 || h.version < HR_CAP_VERSION_MIN ||
        h.version > HR_CAP_VERSION || h.endian != HR_CAP_ENDIAN_TAG) {
        hr_error_set(err, "%s: offset 0: expected a version %u to %u capture header (magic %s)",
                     path, HR_CAP_VERSION_MIN, HR_CAP_VERSION, HR_CAP_MAGIC);
        goto done;
    }
    s.end_op = h.version >= 4 ? HR_CAP__COUNT : h.version >= 3 ? HR_CAP_MODULE : HR_CAP_TOUCHED;
    s.stacked_ok = h.version >= 4;
    if (parse_blocks(&s, err) != 0)
        goto done;
    rep->events_in = s.n;
    describe_end(&s);
    cap_cal_t cal = {h.start_clk, 1.0};
    if (!(h.flags & HR_CAPF_CLK_NS) && s.cal_clk > h.start_clk && s.cal_ns > h.start_ns)
        cal.ns_per_clk = (double)(s.cal_ns - h.start_ns) / (double)(s.cal_clk - h.start_clk);
    rc = convert_items(&s, out, (h.flags & HR_CAPF_TIMESTAMPS) != 0, &cal, err);
done:
    free(s.mods);
    free(s.stks);
    free(s.sids);
    free(s.site);
    free(s.items);
    free(s.buf);
    return rc;
}
