/* Building a threaded replay's schedule (sched.h: the ordering model). Walks
 * over the trace in order: the first renames ids to slots (per-thread free
 * lists), the second finds, per event, which of its chain neighbours run on
 * another thread (marks), the last ones cut the trace into per-thread streams
 * and write the sync records, recomputing each event's position in its
 * chains. Scratch and result live in harness memory. */
#include "replay/sched.h"

#include <string.h>

#include "base/hmem.h"
#include "replay/engine_int.h"

/* Marks per event: wait on / post to chain slot 0 or 1. */
enum { M_WAIT = 1, M_POST = 2 };

/* The slot an event's chain runs through: `cur` maps ids to slots, `nslot`
 * is the slot a creating event takes. A realloc keeps its block's slot
 * (rename_ids gives the old slot back to the same thread, which takes it at
 * once), so every memory event is on exactly one chain, and a sync record
 * has one slot. 1 and *sl for a memory event, else 0. The walk keeps `cur`
 * current with update_slots. */
static int event_slot(const hr_event_t *ev, const uint32_t *cur, uint32_t nslot, uint32_t *sl) {
    *sl = HR_SCHED_NONE;
    if (!hr_op_is_mem(ev->op))
        return 0;
    *sl = ev->op == HR_OP_ALLOC || ev->op == HR_OP_CALLOC ? nslot : cur[ev->op == HR_OP_FREE ? ev->id : ev->aux];
    return 1;
}

static inline void update_slots(const hr_event_t *ev, uint32_t *cur, uint32_t nslot) {
    if (hr_op_creates_block(ev->op))
        cur[ev->id] = nslot;
}

typedef struct scratch {
    uint32_t *nslot;    /* per event: the slot a creating event takes */
    uint32_t *cur;      /* per id: its block's slot */
    uint32_t *next;     /* per slot: next free slot of the same thread's list */
    uint32_t *head;     /* per thread: its free list */
    uint64_t *last;     /* per slot: 1 + index of the chain's latest event, 0 none */
    uint16_t *last_th;  /* per slot: the thread of that event */
    uint16_t *owner;    /* per slot: owning instance */
    uint16_t *maker;    /* per slot: thread that made the live block */
    uint32_t *ord;      /* per slot: chain events so far */
    uint8_t  *mark;     /* per event: M_* */
    size_t    n_ev, n_ids, n_sl, n_th;
} scratch_t;

#define SCRATCH_ARRAYS(X)                                                               \
    X(nslot, n_ev) X(cur, n_ids) X(next, n_sl) X(head, n_th) X(last, n_sl) X(last_th, n_sl) \
    X(owner, n_sl) X(maker, n_sl) X(ord, n_sl) X(mark, n_ev)

static void scratch_free(scratch_t *x) {
#define FREE_(a, n) hr_hmem_free(x->a, x->n * sizeof *x->a);
    SCRATCH_ARRAYS(FREE_)
#undef FREE_
}

/* Slots are at most the blocks the trace creates. */
static int scratch_new(scratch_t *x, const hr_trace_t *t) {
    memset(x, 0, sizeof *x);
    uint64_t creates = 1;
    for (unsigned op = 0; op < HR_OP__COUNT; op++)
        if (hr_op_creates_block(op))
            creates += t->op_counts[op];
    if (creates > UINT32_MAX - 1)
        return -1;
    x->n_ev = t->n_events ? t->n_events : 1;
    x->n_ids = t->n_ids ? t->n_ids : 1;
    x->n_sl = (size_t)creates;
    x->n_th = t->n_threads ? t->n_threads : 1;
    int ok = 1;
#define ALLOC_(a, n) ok &= (x->a = hr_hmem_alloc(x->n * sizeof *x->a, 0)) != NULL;
    SCRATCH_ARRAYS(ALLOC_)
#undef ALLOC_
    return ok ? 0 : -1;
}

/* Renaming walk: per-thread free lists of slots. Returns the slots used. */
static uint32_t rename_ids(hr_evwin_t *w, scratch_t *x) {
    uint32_t n = 0;
    memset(x->head, 0xff, x->n_th * sizeof *x->head);
    while (hr_evwin_next(w)) {
        for (size_t k = 0, i = (size_t)w->base; k < w->n; k++, i++) {
            const hr_event_t *ev = &w->ev[k];
            uint32_t th = ev->thread, *head = &x->head[th];
            if (ev->op == HR_OP_FREE || ev->op == HR_OP_REALLOC) {
                uint32_t s = x->cur[ev->op == HR_OP_FREE ? ev->id : ev->aux];
                x->next[s] = *head;
                *head = s;
            }
            if (!hr_op_creates_block(ev->op))
                continue;
            uint32_t s = *head != HR_SCHED_NONE ? *head : n++;
            if (*head != HR_SCHED_NONE)
                *head = x->next[s];
            x->nslot[i] = s;
            x->cur[ev->id] = s;
        }
    }
    return n;
}

/* Marking walk: the waits and the posts they need. */
static void mark_deps(hr_evwin_t *w, scratch_t *x) {
    while (hr_evwin_next(w)) {
        for (size_t k = 0, i = (size_t)w->base; k < w->n; k++, i++) {
            const hr_event_t *ev = &w->ev[k];
            uint32_t sl;
            int n = event_slot(ev, x->cur, x->nslot[i], &sl);
            update_slots(ev, x->cur, x->nslot[i]);
            if (!n)
                continue;
            uint64_t p = x->last[sl];
            uint16_t pth = x->last_th[sl];
            x->last[sl] = i + 1;
            x->last_th[sl] = ev->thread;
            if (!p || pth == ev->thread)
                continue;
            x->mark[i] |= M_WAIT;
            x->mark[p - 1] |= M_POST;
        }
    }
}

/* Owner and maker bookkeeping of one event on its slot; fills the ownership
 * part of its sync record. Returns 1 when the event needs a record for
 * ownership alone. */
static int track_owner(const hr_event_t *ev, uint32_t slot, scratch_t *x, hr_sync_t *sy) {
    uint16_t th = ev->thread;
    if (ev->op == HR_OP_ALLOC || ev->op == HR_OP_CALLOC) {
        x->owner[slot] = th;
        x->maker[slot] = th;
        return 0;
    }
    if (ev->op != HR_OP_FREE && ev->op != HR_OP_REALLOC)
        return 0;
    sy->owner = x->owner[slot];
    sy->foreign = x->owner[slot] != th;
    sy->xfree = x->maker[slot] != th;
    if (ev->op == HR_OP_REALLOC)
        x->maker[slot] = th; /* the owner stays: a block stays on its instance */
    return sy->foreign;
}

/* Sync record of event i (marks, chain position, ownership), 1 if it needs
 * one. Rewrites the event's ids into slots in `out` (may be NULL). */
static int make_sync(const hr_event_t *ev, size_t i, scratch_t *x, hr_sync_t *sy,
                     hr_event_t *out) {
    uint32_t sl;
    int n = event_slot(ev, x->cur, x->nslot[i], &sl);
    update_slots(ev, x->cur, x->nslot[i]);
    memset(sy, 0, sizeof *sy);
    sy->wait_slot = sy->post_slot = HR_SCHED_NONE;
    sy->owner = ev->thread;
    if (out && n) {
        out->id = sl;
        if (ev->op == HR_OP_REALLOC)
            out->aux = sl;
    }
    int need = n ? track_owner(ev, sl, x, sy) : 0;
    if (n) {
        uint32_t pos = x->ord[sl]++;
        if (x->mark[i] & M_WAIT) {
            sy->wait_slot = sl;
            sy->wait_seq = pos;
            need = 1;
        }
        if (x->mark[i] & M_POST) {
            sy->post_slot = sl;
            sy->post_seq = pos + 1;
            need = 1;
        }
    }
    return need || sy->xfree;
}

static int alloc_streams(hr_sched_t *s, int has_ts, const uint64_t *n_ev,
                         const uint64_t *n_sync) {
    for (uint32_t k = 0; k < s->n; k++) {
        hr_stream_t *st = &s->s[k];
        st->cap = n_ev[k] ? n_ev[k] : 1;
        st->cap_sync = n_sync[k] ? n_sync[k] : 1;
        st->ev = hr_hmem_alloc(st->cap * sizeof *st->ev, HR_HMEM_POPULATE);
        st->sync = hr_hmem_alloc(st->cap_sync * sizeof *st->sync, HR_HMEM_POPULATE);
        if (has_ts)
            st->ts = hr_hmem_alloc(st->cap * 8, HR_HMEM_POPULATE);
        s->bytes += n_ev[k] * (sizeof *st->ev + (has_ts ? 8 : 0)) + n_sync[k] * sizeof *st->sync;
        if (!st->ev || !st->sync || (has_ts && !st->ts))
            return -1;
    }
    return 0;
}

/* One event into its thread's stream, with its sync record if it needs one. */
static void put_event(hr_sched_t *s, scratch_t *x, const hr_event_t *ev, const uint64_t *ts,
                      size_t i) {
    hr_stream_t *st = &s->s[ev->thread];
    hr_event_t *out = &st->ev[st->n];
    hr_sync_t sy;
    *out = *ev;
    if (st->ts)
        st->ts[st->n] = ts ? *ts : 0;
    st->n++;
    st->mem_ops += (uint64_t)hr_op_is_mem(ev->op);
    if (!make_sync(ev, i, x, &sy, out))
        return;
    out->flags |= HR_EVF_SYNC;
    sy.at = st->n - 1;
    st->sync[st->n_sync++] = sy;
    st->cross_frees += sy.xfree;
    st->sync_waits += sy.wait_slot != HR_SCHED_NONE;
    if (sy.foreign)
        s->s[sy.owner].locked = 1;
}

/* Last walks: count, then fill the streams (the window is reopened for
 * each walk: the caller's first two walks used it before). */
static int fill_streams(hr_sched_t *s, const hr_trace_t *t, scratch_t *x) {
    size_t cnt_bytes = (size_t)s->n * 8 * 2;
    uint64_t *n_ev = hr_hmem_alloc(cnt_bytes, 0), *n_sync = n_ev ? n_ev + s->n : NULL;
    hr_evwin_t w;
    hr_sync_t sy;
    if (!n_ev || hr_evwin_open(&w, t, NULL) != 0) {
        hr_hmem_free(n_ev, cnt_bytes);
        return -1;
    }
    while (hr_evwin_next(&w))
        for (size_t k = 0; k < w.n; k++) {
            n_ev[w.ev[k].thread]++;
            n_sync[w.ev[k].thread] += (uint64_t)make_sync(&w.ev[k], w.base + k, x, &sy, NULL);
        }
    hr_evwin_close(&w);
    int rc = alloc_streams(s, hr_trace_has_ts(t), n_ev, n_sync);
    memset(x->ord, 0, x->n_sl * sizeof *x->ord);
    if (rc == 0 && (rc = hr_evwin_open_ts(&w, t, NULL)) == 0) {
        while (hr_evwin_next(&w)) {
            if (w.base == 0 && w.n && w.ts)
                s->ts0 = w.ts[0];
            for (size_t k = 0; k < w.n; k++)
                put_event(s, x, &w.ev[k], w.ts ? &w.ts[k] : NULL, w.base + k);
        }
        hr_evwin_close(&w);
    }
    hr_hmem_free(n_ev, cnt_bytes);
    return rc;
}

/* The first two walks, each over its own windows. */
static int walk_ids(hr_sched_t *s, const hr_trace_t *t, scratch_t *x) {
    hr_evwin_t w;
    if (hr_evwin_open(&w, t, NULL) != 0)
        return -1;
    s->n_slots = rename_ids(&w, x);
    hr_evwin_close(&w);
    if (!s->n_slots)
        s->n_slots = 1;
    return 0;
}

int hr_sched_build(hr_sched_t *s, const hr_trace_t *t, hr_error_t *err) {
    memset(s, 0, sizeof *s);
    if (t->n_threads > 65535) {
        hr_error_set(err, "threaded replay: %u threads (at most 65535)", t->n_threads);
        return -1;
    }
    s->n = t->n_threads ? t->n_threads : 1;
    scratch_t x;
    hr_evwin_t w;
    int rc = -1;
    s->s = hr_hmem_alloc(s->n * sizeof *s->s, 0);
    if (s->s && scratch_new(&x, t) == 0 && walk_ids(s, t, &x) == 0) {
        s->owner_end = hr_hmem_alloc((size_t)s->n_slots * 2, 0);
        if (s->owner_end && hr_evwin_open(&w, t, NULL) == 0) {
            mark_deps(&w, &x);
            hr_evwin_close(&w);
            rc = fill_streams(s, t, &x);
            memcpy(s->owner_end, x.owner, (size_t)s->n_slots * 2);
        }
    }
    scratch_free(&x);
    if (rc != 0) {
        hr_sched_free(s);
        hr_error_set(err, "threaded replay: out of memory for the schedule of %zu events",
                     t->n_events);
        return -1;
    }
    for (uint32_t k = 0; k < s->n; k++)
        s->cross_frees += s->s[k].cross_frees;
    return 0;
}

void hr_sched_free(hr_sched_t *s) {
    if (s->s)
        for (uint32_t k = 0; k < s->n; k++) {
            hr_stream_t *st = &s->s[k];
            hr_hmem_free(st->ev, st->cap * sizeof *st->ev);
            hr_hmem_free(st->sync, st->cap_sync * sizeof *st->sync);
            hr_hmem_free(st->ts, st->cap * 8);
        }
    hr_hmem_free(s->s, s->n * sizeof *s->s);
    hr_hmem_free(s->owner_end, (size_t)s->n_slots * 2);
    memset(s, 0, sizeof *s);
}
