/* Importer for our own raw capture log (src/base/rawlog.h).
 *
 * capture_log.c reads the log: every whole record of every block (version
 * 2: variable-length, delta-coded records) up to the first cut or damaged
 * block (reporting where), in (clock, thread) order, with the duplicates a
 * flush interrupted by a signal leaves next to each other (a thread's clock
 * never repeats: dropped here). Clocks become ns with the calibration pairs
 * of the header and the last block, and the records go through the address
 * map. TOUCHED records (version 3, the library's page probe) become
 * `touched` events placed before the event that created their block.
 * Frames the library found at present functions (capture --frames: a
 * HR_CAP_FRAME_BY mark before the FRAME) are dropped, with their marks, when
 * the program also marked frames itself (capture_log.c). Version 4 (capture
 * --stacks): MODULE and STACK records become the trace's module map and
 * stacks (build_stacks), and each allocation record's stack id the site of
 * the event it became.
 *
 * Two ways out: hr_import_capture builds the whole trace in memory (what
 * convert and the readers need); hr_import_capture_write streams it into a
 * binary trace file, holding only a chunk of events, the address map (live
 * and freed addresses), the strings and the annotations (docs/CAPTURE.md
 * "Conversion"). Both make the same events in the same order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "trace/capture_log.h"
#include "trace/format.h"
#include "trace/import.h"
#include "trace/stacks.h"

_Static_assert(HR_CAP_TOUCH_MIN == HR_TOUCH_PROBE_MIN,
               "the capture library probes the blocks src/trace/trace.h says it does");

/* The log's stack ids -> the trace's, sorted by the log's id. */
typedef struct cap_sid {
    uint64_t log_id;
    uint32_t trace_id;
} cap_sid_t;

/* Clock -> ns since the header's start time. */
typedef struct cap_cal {
    uint64_t clk0;
    double ns_per_clk;
} cap_cal_t;

typedef struct cap_state {
    const char *path;
    hr_caplog_t L;
    int ts;          /* the log has timestamps */
    cap_cal_t cal;
    cap_sid_t *sids; /* L.n_stks entries once build_stacks ran */
    uint32_t *site;  /* per event pushed (before the touched ones are placed); NULL: no stacks */
    size_t cap_site;
} cap_state_t;

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
    hr_stacks_t *st = s->L.n_stks ? hr_trace_stacks(out) : NULL;
    if (!s->L.n_stks)
        return 0;
    s->sids = malloc(s->L.n_stks * sizeof *s->sids);
    if (!st || !s->sids)
        return -1;
    char path[4097];
    for (size_t i = 0; i < s->L.n_mods; i++) {
        const hr_capdef_t *d = &s->L.mods[i];
        size_t n = d->len < sizeof path - 1 ? d->len : sizeof path - 1;
        memcpy(path, s->L.buf + d->off, n);
        path[n] = 0;
        size_t pl = strlen(path);
        const char *bid = pl + 1 < n ? path + pl + 1 : NULL;
        if (hr_stacks_add_module(st, path, bid, d->ptr, d->a) < 0)
            return -1;
    }
    uint32_t fr[HR_CAP_STACK_DEPTH_MAX];
    for (size_t i = 0; i < s->L.n_stks; i++) {
        const hr_capdef_t *d = &s->L.stks[i];
        size_t n = d->len / 8 < HR_CAP_STACK_DEPTH_MAX ? d->len / 8 : HR_CAP_STACK_DEPTH_MAX;
        for (size_t k = 0; k < n; k++) {
            uint64_t addr = 0;
            for (int b = 7; b >= 0; b--)
                addr = addr << 8 | s->L.buf[d->off + 8 * k + (size_t)b];
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
    qsort(s->sids, s->L.n_stks, sizeof *s->sids, by_log_id);
    return 0;
}

/* The trace's stack id of the log's stack `log_id`; 0 when the log never
 * defined it (its STACK record was in a block that was lost). */
static uint32_t trace_sid(const cap_state_t *s, uint64_t log_id) {
    cap_sid_t key = {log_id, 0};
    const cap_sid_t *f = s->L.n_stks ? bsearch(&key, s->sids, s->L.n_stks, sizeof key, by_log_id) : NULL;
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


/* UINT64_MAX when the result does not fit (a damaged calibration: the caller
 * reports it; converting an out-of-range double is undefined). */
static uint64_t cal_ts(const cap_cal_t *c, uint64_t clk) {
    if (clk <= c->clk0)
        return 0;
    double ns = (double)(clk - c->clk0) * c->ns_per_clk;
    return ns >= 0 && ns < 18446744073709549568.0 ? (uint64_t)ns : UINT64_MAX;
}

static int replay_item(const cap_state_t *s, hr_addrmap_t *m, const hr_cap_rec_t *r,
                       size_t name_off, uint16_t th, uint64_t ts) {
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
        memcpy(name, s->L.buf + name_off, n);
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


/* Hands the events of `out` on and empties it (streaming); 0 or -1. */
typedef int (*cap_flush_fn)(void *ctx, hr_addrmap_t *m, hr_trace_t *out);
#define CAP_CHUNK 65536 /* events handed on at a time */

/* One pass over the log's records into m (events in `out`, repairs in rep),
 * handing them on every CAP_CHUNK events when flush is not NULL. 0, -1 on
 * out of memory, -2 with err set. */
static int convert_pass(cap_state_t *s, hr_trace_t *out, hr_repair_t *rep, hr_addrmap_t *m,
                        cap_flush_fn flush, void *ctx, hr_error_t *err) {
    hr_tidmap_t tids = {0};
    hr_cap_rec_t r, prev = {0};
    size_t name_off, i = 0;
    int drop, have_prev = 0, last_idx = -1;
    uint64_t last_tid = 0;
    int rc = hr_caplog_rewind(&s->L);
    for (; rc == 0 && hr_caplog_next(&s->L, &r, &name_off, &drop); i++) {
        if (have_prev && r.clk == prev.clk && r.tid == prev.tid) {
            rep->duplicates++;
            continue;
        }
        prev = r;
        have_prev = 1;
        if (drop)
            continue;
        if (last_idx < 0 || r.tid != last_tid) {
            last_tid = r.tid;
            last_idx = hr_tidmap_get(&tids, last_tid);
        }
        if (last_idx == HR_TIDMAP_FULL) {
            hr_error_set(err, "%s: record %zu: more than %u threads (trace thread indices are "
                         "0..65535)", s->path, i, HR_TIDMAP_MAX);
            rc = -2;
            break;
        }
        uint64_t ns = s->ts ? cal_ts(&s->cal, r.clk) : 0;
        if (ns == UINT64_MAX) {
            hr_error_set(err, "%s: record %zu: timestamp beyond 2^64 ns (clock %llu, the "
                         "calibration gives %g ns per tick)", s->path, i,
                         (unsigned long long)r.clk, s->cal.ns_per_clk);
            rc = -2;
            break;
        }
        size_t before = out->n_events;
        rc = last_idx < 0 ? -1 : replay_item(s, m, &r, name_off, (uint16_t)last_idx, ns);
        if (rc == 0 && r.stack)
            rc = note_site(s, out, before, r.stack);
        if (rc == 0 && flush && out->n_events >= CAP_CHUNK)
            rc = flush(ctx, m, out);
    }
    if (rc == 0 && flush)
        rc = flush(ctx, m, out);
    rep->threads = tids.n;
    hr_tidmap_free(&tids);
    return rc;
}

/* Maps and indexes the log; the summary fields of rep that come from it. */
static int cap_open(cap_state_t *s, const char *path, hr_repair_t *rep, hr_error_t *err) {
    memset(s, 0, sizeof *s);
    s->path = path;
    if (hr_caplog_open(&s->L, path, rep, err) != 0)
        return -1;
    const hr_cap_header_t *h = &s->L.h;
    rep->events_in = s->L.n_items;
    s->cal = (cap_cal_t){h->start_clk, 1.0};
    if (!(h->flags & HR_CAPF_CLK_NS) && s->L.cal_clk > h->start_clk && s->L.cal_ns > h->start_ns)
        s->cal.ns_per_clk =
            (double)(s->L.cal_ns - h->start_ns) / (double)(s->L.cal_clk - h->start_clk);
    s->ts = (h->flags & HR_CAPF_TIMESTAMPS) != 0;
    return 0;
}

static void cap_close(cap_state_t *s) {
    hr_caplog_close(&s->L);
    free(s->sids);
    free(s->site);
}

int hr_import_capture(const char *path, hr_trace_t *out, hr_repair_t *rep, hr_error_t *err) {
    cap_state_t s;
    if (cap_open(&s, path, rep, err) != 0) {
        cap_close(&s);
        return -1;
    }
    hr_addrmap_t *m = hr_addrmap_new(out, rep, s.ts);
    int rc = m && build_stacks(&s, out) == 0 ? 0 : -1;
    if (rc == 0)
        rc = convert_pass(&s, out, rep, m, NULL, NULL, err);
    if (rc == 0)
        rc = hr_addrmap_place_touched(m);
    if (rc == 0)
        rc = apply_sites(&s, out);
    if (rc == 0) /* the process's own time; capture sets the whole run's over it */
        hr_caplog_program(&s.L, &out->program);
    if (rc == 0 && !out->command && hr_caplog_command(&s.L, &out->command) != 0)
        rc = -1;
    hr_addrmap_finish(m);
    if (rc == -1)
        hr_error_set(err, "%s: out of memory while converting", path);
    cap_close(&s);
    return rc ? -1 : 0;
}

/* ---- streaming: hr_import_capture_write --------------------------------- */

/* Where the events go while streaming: the `touched` events put in before
 * their blocks' events, then the validator (the header's counts and peak)
 * and the encoder, which writes the records to a scratch file. */
typedef struct cap_stream {
    const hr_touch_note_t *notes; /* sorted by the event they go before */
    size_t n_notes, next_note;
    size_t base;         /* events handed on so far (before touched ones) */
    uint64_t total;      /* events written (touched ones included) */
    hr_event_t *evs;     /* a chunk with its touched events: 2 * CAP_CHUNK */
    uint64_t *ts;
    hr_validator_t *vd;  /* NULL: the notes pass (nothing is written) */
    hr_binenc_t *enc;
    hr_event_t *kept;    /* annotations and pool ops, for the summary */
    size_t n_kept, cap_kept;
    hr_error_t *err;
    const char *path;
} cap_stream_t;

static int keep_event(cap_stream_t *w, const hr_event_t *ev) {
    if (hr_op_is_mem(ev->op) || ev->op == HR_OP_TOUCHED)
        return 0;
    if (w->n_kept == w->cap_kept) {
        size_t c = w->cap_kept ? 2 * w->cap_kept : 256;
        hr_event_t *k = realloc(w->kept, c * sizeof *k);
        if (!k)
            return -1;
        w->kept = k;
        w->cap_kept = c;
    }
    w->kept[w->n_kept++] = *ev;
    return 0;
}

static int stream_flush(void *ctx, hr_addrmap_t *m, hr_trace_t *out) {
    cap_stream_t *w = ctx;
    size_t n = out->n_events, j = 0;
    for (size_t i = 0; w->vd && i < n; i++) {
        const hr_event_t *ev = &out->events[i];
        uint64_t ts = out->ts ? out->ts[i] : 0;
        if (w->next_note < w->n_notes && w->notes[w->next_note].at == w->base + i) {
            w->evs[j] = (hr_event_t){.op = HR_OP_TOUCHED, .thread = ev->thread,
                                     .size = w->notes[w->next_note++].bytes};
            w->ts[j++] = ts;
        }
        w->evs[j] = *ev;
        w->ts[j++] = ts;
        if (keep_event(w, ev) != 0)
            return -1;
    }
    if (w->vd && hr_validator_step(w->vd, w->evs, j, (const char *const *)out->strings,
                                   out->n_strings, w->err) != 0)
        return -2;
    errno = 0;
    if (w->vd && hr_binenc_put(w->enc, w->evs, w->ts, j) != 0) {
        hr_error_set(w->err, "%s: cannot encode the trace: %s", w->path,
                     errno == EINVAL ? "an event holds a value the format cannot represent"
                                     : strerror(errno ? errno : EIO));
        return -2;
    }
    w->base += n;
    w->total += j;
    hr_addrmap_flushed(m, n);
    out->n_events = 0;
    return 0;
}

/* The notes pass (a log with TOUCHED records): the whole conversion once
 * without output, for the index of the event each touched block was created
 * by; repairs go to a scratch copy. *notes: a malloc'd copy. -1 on OOM. */
static int touch_notes(cap_state_t *s, hr_touch_note_t **notes, size_t *n, hr_error_t *err) {
    hr_trace_t t;
    hr_trace_init(&t);
    hr_repair_t scratch = *s->L.rep;
    cap_stream_t w = {0};
    hr_addrmap_t *m = hr_addrmap_new(&t, &scratch, s->ts);
    int rc = m ? convert_pass(s, &t, &scratch, m, stream_flush, &w, err) : -1;
    const hr_touch_note_t *got = NULL;
    *n = rc == 0 ? hr_addrmap_touch_notes(m, &got) : 0;
    *notes = *n ? malloc(*n * sizeof **notes) : NULL;
    if (*n && !*notes)
        rc = -1;
    else if (*n)
        memcpy(*notes, got, *n * sizeof **notes);
    hr_addrmap_finish(m);
    hr_trace_free(&t);
    return rc;
}

/* Copies the scratch records after the header. */
static int copy_records(FILE *from, FILE *to) {
    char buf[1 << 16];
    size_t n;
    if (fseek(from, 0, SEEK_SET) != 0)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        if (fwrite(buf, 1, n, to) != n)
            return -1;
    return ferror(from) ? -1 : 0;
}

/* The events of the summary: info gets the kept events. */
static int give_kept(cap_stream_t *w, hr_trace_t *info) {
    info->n_events = 0;
    for (size_t i = 0; i < w->n_kept; i++)
        if (hr_trace_push(info, &w->kept[i]) != 0)
            return -1;
    return 0;
}

/* Converts and writes; the records first go to a scratch file (the header
 * before them needs the counts and the string table of the whole trace). */
static int stream_write(cap_state_t *s, const char *out, const hr_program_time_t *prog,
                        hr_trace_t *info, hr_repair_t *rep, cap_stream_t *w, hr_error_t *err) {
    FILE *tmp = tmpfile();
    w->vd = hr_validator_new(s->L.n_items, s->path);
    w->enc = tmp ? hr_binenc_open(tmp, s->ts) : NULL;
    w->evs = malloc(2 * CAP_CHUNK * sizeof *w->evs);
    w->ts = malloc(2 * CAP_CHUNK * sizeof *w->ts);
    hr_addrmap_t *m = hr_addrmap_new(info, rep, s->ts);
    int rc = tmp && w->vd && w->enc && w->evs && w->ts && m ? 0 : -1;
    if (rc == 0)
        rc = convert_pass(s, info, rep, m, stream_flush, w, err);
    hr_addrmap_finish(m);
    if (rc == 0 && hr_validator_end(w->vd, err) != 0)
        rc = -2;
    rep->touched = w->n_notes;
    rep->events_out = w->total;
    if (rc == 0) {
        hr_validator_result(w->vd, info);
        if (prog)
            info->program = *prog;
        else /* a --follow-forks child: its own time from its log */
            hr_caplog_program(&s->L, &info->program);
        if (!info->command && hr_caplog_command(&s->L, &info->command) != 0)
            rc = -1;
        if (rc == 0)
            rc = give_kept(w, info);
    }
    hr_outfile_t o;
    FILE *f = rc == 0 ? hr_outfile_open(&o, out, err) : NULL;
    if (rc == 0 && !f)
        rc = -2;
    if (f && (hr_binenc_header(w->enc, info->peak_live, info, f) != 0 ||
              copy_records(tmp, f) != 0)) {
        hr_outfile_abort(&o); /* the commit reports write errors; this is a read or OOM */
        hr_error_set(err, "%s: cannot write the trace: %s", out, strerror(errno ? errno : EIO));
        f = NULL;
        rc = -2;
    }
    if (f && hr_outfile_commit(&o, err) != 0)
        rc = -2;
    if (tmp)
        fclose(tmp);
    return rc;
}

int hr_import_capture_write(const char *path, const char *out, const hr_program_time_t *prog,
                            hr_trace_t *info, hr_repair_t *rep, hr_error_t *err) {
    memset(rep, 0, sizeof *rep);
    cap_state_t s;
    if (cap_open(&s, path, rep, err) != 0) {
        cap_close(&s);
        return -1;
    }
    if (s.L.n_stks) { /* the sites go in the header: hr_import_capture */
        cap_close(&s);
        return 1;
    }
    cap_stream_t w = {.err = err, .path = path};
    hr_touch_note_t *notes = NULL;
    int rc = s.L.n_touched ? touch_notes(&s, &notes, &w.n_notes, err) : 0;
    w.notes = notes;
    if (rc == 0)
        rc = stream_write(&s, out, prog, info, rep, &w, err);
    if (rc == -1)
        hr_error_set(err, "%s: out of memory while converting", path);
    free(notes);
    free(w.evs);
    free(w.ts);
    free(w.kept);
    if (w.vd)
        hr_validator_free(w.vd);
    hr_binenc_free(w.enc);
    cap_close(&s);
    return rc ? -1 : 0;
}
