/* Address -> id mapping for the importers (see import.h).
 *
 * A pointer map (base/ptrmap.h) keyed by address remembers, for every address
 * ever returned, whether it is live, its id, size and allocating thread.
 * Entries are never deleted (a freed entry tells a double free from an
 * unknown free). Ids are dense: freed ids go on a LIFO stack and are handed
 * out again first, so n_ids stays close to the peak number of live blocks.
 *
 * Repairs (all counted in hr_repair_t, none fatal):
 *  - free of an address never allocated: dropped (unknown_frees);
 *  - free of a freed address: dropped (double_frees);
 *  - an address returned while still live (its free was logged later, e.g. a
 *    realloc that moved while another thread reused the old block): the old
 *    block is freed first (reuse_inversions) and the next free of that address
 *    that arrives is taken as the late one and dropped;
 *  - NULL results: dropped (failed_allocs); realloc(NULL,n) -> alloc,
 *    realloc(p,0) returning NULL -> free.
 *
 * Pool blocks (hr_alloc_named: an engine's own allocators) live inside the
 * engine's arenas, which are themselves malloc'd blocks, so their addresses
 * get a map of their own (`pools`): a pool block at an arena's first byte
 * is no reuse of the arena's address. Ids are shared. The same repairs
 * apply; a pfree naming another pool than the block's keeps the block's
 * (pool_mismatches).
 *
 * Touched records (the capture library's page probe, hr_addrmap_touched):
 * the record arrives when a block ends, but the trace's `touched` event must
 * stand right before the event that created the block. So the index of each
 * live id's creating event is kept (born[]), each record notes (that index,
 * bytes), and hr_addrmap_place_touched inserts them all in one pass at the
 * end, once no event moves any more. */
#include <stdlib.h>
#include <string.h>

#include "base/ptrmap.h"
#include "trace/format.h"
#include "trace/import.h"

enum { E_FREED = 0, E_LIVE };

/* The value slot of an address in the map (16 bytes: with the key, a 24-byte
 * slot, one probe per event). */
typedef struct hr_aentry {
    uint64_t size;
    uint32_t id;
    uint16_t thread;
    uint8_t  state;
    uint8_t  stale; /* late frees still expected after a reuse inversion */
} hr_aentry_t;

/* A pool block: the entry, then its pool (string index + 1). */
typedef struct hr_pentry {
    hr_aentry_t e;
    uint32_t    pool, pad;
} hr_pentry_t;

struct hr_addrmap {
    hr_trace_t  *out;
    hr_repair_t *rep;
    int          ts;
    hr_ptrmap_t  tab;       /* address -> hr_aentry_t; address 0 never enters */
    hr_ptrmap_t  pools;     /* pool block address -> hr_pentry_t */
    uint32_t    *free_ids;
    size_t       n_free, cap_free;
    uint32_t     next_id;
    uint64_t    *stream_frames; /* frames so far per string index (named streams) */
    uint32_t     n_stream_frames;
    size_t      *born;      /* id -> index of the event that created its live block */
    uint32_t     cap_born;
    hr_touch_note_t *notes; /* touched records to place (hr_addrmap_place_touched) */
    size_t       n_notes, cap_notes;
    size_t       flushed;   /* events handed on before out's first (hr_addrmap_flushed) */
};

/* The entry for addr in tab, or NULL when the address was never returned. */
static hr_aentry_t *find(const hr_ptrmap_t *tab, uint64_t addr) {
    return hr_ptrmap_get(tab, addr);
}

/* The entry for addr, created (not live: a zero-filled entry is E_FREED with
 * stale 0) if absent; NULL on OOM. */
static hr_aentry_t *insert(hr_ptrmap_t *tab, uint64_t addr) {
    return hr_ptrmap_put(tab, addr, NULL);
}

hr_addrmap_t *hr_addrmap_new(hr_trace_t *out, hr_repair_t *rep, int ts_enabled) {
    hr_addrmap_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->out = out;
    m->rep = rep;
    m->ts = ts_enabled;
    hr_ptrmap_init(&m->tab, sizeof(hr_aentry_t));
    hr_ptrmap_init(&m->pools, sizeof(hr_pentry_t));
    return m;
}

static int emit(hr_addrmap_t *m, const hr_event_t *ev, uint64_t ts) {
    return m->ts ? hr_trace_push_ts(m->out, ev, ts) : hr_trace_push(m->out, ev);
}

static int take_id(hr_addrmap_t *m, uint32_t *id) {
    if (m->n_free) {
        *id = m->free_ids[--m->n_free];
        return 0;
    }
    if (m->next_id == UINT32_MAX)
        return -1;
    *id = m->next_id++;
    return 0;
}

static int give_id(hr_addrmap_t *m, uint32_t id) {
    if (m->n_free == m->cap_free) {
        size_t cap = m->cap_free ? m->cap_free * 2 : 1024;
        uint32_t *f = realloc(m->free_ids, cap * sizeof *f);
        if (!f)
            return -1;
        m->free_ids = f;
        m->cap_free = cap;
    }
    m->free_ids[m->n_free++] = id;
    return 0;
}

/* Frees the live block in e (emits the free event: pfree when pool, the
 * block's pool + 1, is not 0). */
static int kill_entry(hr_addrmap_t *m, hr_aentry_t *e, uint16_t thread, uint64_t ts,
                      uint32_t pool) {
    hr_event_t ev = {.op = HR_OP_FREE, .thread = thread, .id = e->id};
    if (pool)
        ev.op = HR_OP_POOL_FREE, ev.aux = pool - 1;
    e->state = E_FREED;
    if (give_id(m, e->id) != 0)
        return -1;
    return emit(m, &ev, ts);
}

/* The pool of a pool-map entry (0 for the malloc map). */
static uint32_t pool_of(const hr_addrmap_t *m, const hr_ptrmap_t *tab, const hr_aentry_t *e) {
    return tab == &m->pools ? ((const hr_pentry_t *)e)->pool : 0;
}

/* Prepares e (the entry of a newly returned address) to become live. */
static int make_room(hr_addrmap_t *m, hr_ptrmap_t *tab, hr_aentry_t *e, uint16_t thread,
                     uint64_t ts) {
    if (e->state != E_LIVE)
        return 0;
    m->rep->reuse_inversions++;
    e->stale++;
    return kill_entry(m, e, thread, ts, pool_of(m, tab, e));
}

/* Remembers that id's live block was created by the last event emitted. */
static int note_born(hr_addrmap_t *m, uint32_t id) {
    if (id >= m->cap_born) {
        uint32_t cap = m->cap_born ? m->cap_born : 1024;
        while (cap <= id && cap < UINT32_MAX / 2)
            cap *= 2;
        if (cap <= id)
            cap = UINT32_MAX;
        size_t *b = realloc(m->born, (size_t)cap * sizeof *b);
        if (!b)
            return -1;
        m->born = b;
        m->cap_born = cap;
    }
    m->born[id] = m->flushed + m->out->n_events - 1;
    return 0;
}

/* Makes addr live in tab with the id of a new event; pool: the pool map's
 * value (string index + 1). */
static int add_live_in(hr_addrmap_t *m, hr_ptrmap_t *tab, hr_event_t *ev, uint64_t addr,
                       uint64_t bytes, uint64_t ts, uint32_t pool) {
    hr_aentry_t *e = insert(tab, addr);
    if (!e || make_room(m, tab, e, ev->thread, ts) != 0 || take_id(m, &ev->id) != 0)
        return -1;
    if (tab == &m->pools)
        ((hr_pentry_t *)e)->pool = pool;
    e->state = E_LIVE;
    e->id = ev->id;
    e->size = bytes;
    e->thread = ev->thread;
    if (emit(m, ev, ts) != 0)
        return -1;
    return note_born(m, ev->id);
}

static int add_live(hr_addrmap_t *m, hr_event_t *ev, uint64_t addr, uint64_t bytes, uint64_t ts) {
    return add_live_in(m, &m->tab, ev, addr, bytes, ts, 0);
}

int hr_addrmap_alloc(hr_addrmap_t *m, uint16_t thread, uint64_t addr, uint64_t size,
                     uint32_t align, uint64_t ts) {
    if (!addr) {
        m->rep->failed_allocs++;
        return 0;
    }
    hr_event_t ev = {.op = HR_OP_ALLOC, .thread = thread, .size = size};
    if (align > 16 && !(align & (align - 1))) { /* default alignment needs no field */
        ev.align = align;
        ev.flags = HR_EVF_HAS_OPT;
    }
    return add_live(m, &ev, addr, size, ts);
}

int hr_addrmap_calloc(hr_addrmap_t *m, uint16_t thread, uint64_t addr, uint64_t n,
                      uint64_t size, uint64_t ts) {
    if (!addr) {
        m->rep->failed_allocs++;
        return 0;
    }
    if (n > UINT32_MAX || (size && n > UINT64_MAX / size))
        return hr_addrmap_alloc(m, thread, addr, n * size, 0, ts);
    hr_event_t ev = {.op = HR_OP_CALLOC, .thread = thread, .aux = (uint32_t)n, .size = size};
    return add_live(m, &ev, addr, n * size, ts);
}

/* The live block being freed; NULL (and counted) when the free is dropped.
 * A freshly inserted entry is E_FREED with stale 0, so "never seen" is told
 * apart by find() returning NULL. */
static hr_aentry_t *freeing(hr_addrmap_t *m, const hr_ptrmap_t *tab, uint64_t addr,
                            uint16_t thread) {
    hr_aentry_t *e = find(tab, addr);
    if (!e) {
        m->rep->unknown_frees++;
        return NULL;
    }
    if (e->stale) { /* the late free announced by a reuse inversion */
        e->stale--;
        return NULL;
    }
    if (e->state != E_LIVE) {
        m->rep->double_frees++;
        return NULL;
    }
    if (e->thread != thread)
        m->rep->cross_thread_frees++;
    return e;
}

int hr_addrmap_free(hr_addrmap_t *m, uint16_t thread, uint64_t addr, uint64_t ts) {
    if (!addr)
        return 0;
    hr_aentry_t *e = freeing(m, &m->tab, addr, thread);
    if (!e)
        return 0;
    return kill_entry(m, e, thread, ts, 0);
}

int hr_addrmap_realloc(hr_addrmap_t *m, uint16_t thread, uint64_t old, uint64_t addr,
                       uint64_t size, uint64_t ts) {
    if (!old) {
        m->rep->realloc_null++;
        return hr_addrmap_alloc(m, thread, addr, size, 0, ts);
    }
    if (!addr) {
        if (size == 0) {
            m->rep->realloc_zero++;
            return hr_addrmap_free(m, thread, old, ts);
        }
        m->rep->failed_allocs++; /* the old block stays live */
        return 0;
    }
    hr_aentry_t *o = freeing(m, &m->tab, old, thread);
    if (!o)
        return hr_addrmap_alloc(m, thread, addr, size, 0, ts);
    uint32_t old_id = o->id;
    o->state = E_FREED;
    if (give_id(m, old_id) != 0)
        return -1;
    hr_event_t ev = {.op = HR_OP_REALLOC, .thread = thread, .aux = old_id, .size = size};
    return add_live(m, &ev, addr, size, ts);
}

int hr_addrmap_annot(hr_addrmap_t *m, uint16_t thread, hr_op_t op, const char *name,
                     uint64_t num, uint64_t ts) {
    hr_event_t ev = {.op = (uint8_t)op, .thread = thread};
    if (op == HR_OP_FRAME) {
        ev.size = num;
    } else {
        int64_t s = hr_trace_intern(m->out, name ? name : "");
        if (s < 0)
            return -1;
        ev.aux = (uint32_t)s;
    }
    return emit(m, &ev, ts);
}

int hr_addrmap_pool_alloc(hr_addrmap_t *m, uint16_t thread, uint64_t addr, uint64_t size,
                          const char *pool, uint64_t ts) {
    if (!addr) {
        m->rep->failed_allocs++;
        return 0;
    }
    int64_t s = hr_trace_intern(m->out, pool ? pool : "");
    if (s < 0)
        return -1;
    hr_event_t ev = {.op = HR_OP_POOL_ALLOC, .thread = thread, .size = size, .aux = (uint32_t)s};
    return add_live_in(m, &m->pools, &ev, addr, size, ts, (uint32_t)s + 1);
}

int hr_addrmap_pool_free(hr_addrmap_t *m, uint16_t thread, uint64_t addr, const char *pool,
                         uint64_t ts) {
    if (!addr)
        return 0;
    hr_aentry_t *e = freeing(m, &m->pools, addr, thread);
    if (!e)
        return 0;
    uint32_t p = ((hr_pentry_t *)e)->pool;
    if (p - 1 < m->out->n_strings && strcmp(m->out->strings[p - 1], pool ? pool : "") != 0)
        m->rep->pool_mismatches++;
    return kill_entry(m, e, thread, ts, p);
}

int hr_addrmap_pool_realloc(hr_addrmap_t *m, uint16_t thread, uint64_t old, uint64_t addr,
                            uint64_t size, uint64_t ts) {
    hr_aentry_t *o = old && addr ? freeing(m, &m->pools, old, thread) : NULL;
    if (!o) { /* no block to move: counted by freeing(), or a NULL pointer */
        if (!addr)
            m->rep->failed_allocs++;
        return 0;
    }
    uint32_t old_id = o->id, p = ((hr_pentry_t *)o)->pool;
    o->state = E_FREED;
    if (give_id(m, old_id) != 0)
        return -1;
    hr_event_t ev = {.op = HR_OP_POOL_REALLOC, .thread = thread, .aux = old_id, .size = size};
    return add_live_in(m, &m->pools, &ev, addr, size, ts, p);
}

int hr_addrmap_stream_frame(hr_addrmap_t *m, uint16_t thread, const char *stream, uint64_t ts) {
    int64_t s = hr_trace_intern(m->out, stream ? stream : "");
    if (s < 0)
        return -1;
    if ((uint32_t)s >= m->n_stream_frames) {
        uint32_t n = (uint32_t)s + 16;
        uint64_t *f = realloc(m->stream_frames, n * sizeof *f);
        if (!f)
            return -1;
        memset(f + m->n_stream_frames, 0, (n - m->n_stream_frames) * sizeof *f);
        m->stream_frames = f;
        m->n_stream_frames = n;
    }
    hr_event_t ev = {.op = HR_OP_FRAME, .flags = HR_EVF_HAS_OPT, .thread = thread,
                     .aux = (uint32_t)s, .size = ++m->stream_frames[s]};
    return emit(m, &ev, ts);
}

int hr_addrmap_touched(hr_addrmap_t *m, uint64_t addr, uint64_t bytes) {
    hr_aentry_t *e = find(&m->tab, addr);
    /* stale: the address was reused before the late free this record goes
     * with; the block it measured is already gone */
    if (!e || e->state != E_LIVE || e->stale || e->id >= m->cap_born) {
        m->rep->touched_unknown++;
        return 0;
    }
    if (m->n_notes == m->cap_notes) {
        size_t cap = m->cap_notes ? m->cap_notes * 2 : 256;
        hr_touch_note_t *n = realloc(m->notes, cap * sizeof *n);
        if (!n)
            return -1;
        m->notes = n;
        m->cap_notes = cap;
    }
    m->notes[m->n_notes] = (hr_touch_note_t){m->born[e->id], m->n_notes, bytes};
    m->n_notes++;
    return 0;
}

static int by_at(const void *a, const void *b) {
    const hr_touch_note_t *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts the notes by creating event and keeps the last of each; returns how
 * many remain. */
static size_t notes_unique(hr_addrmap_t *m) {
    if (!m->n_notes)
        return 0;
    qsort(m->notes, m->n_notes, sizeof *m->notes, by_at);
    size_t k = 0;
    for (size_t i = 0; i < m->n_notes; i++) {
        if (k && m->notes[k - 1].at == m->notes[i].at)
            k--; /* a later record for the same block (a realloc that failed) */
        m->notes[k++] = m->notes[i];
    }
    return k;
}

void hr_addrmap_flushed(hr_addrmap_t *m, size_t n) { m->flushed += n; }

size_t hr_addrmap_touch_notes(hr_addrmap_t *m, const hr_touch_note_t **notes) {
    size_t k = notes_unique(m);
    m->n_notes = k;
    *notes = m->notes;
    return k;
}

int hr_addrmap_place_touched(hr_addrmap_t *m) {
    size_t k = notes_unique(m);
    m->rep->touched = k;
    if (!k)
        return 0;
    hr_trace_t *t = m->out;
    size_t n = t->n_events, total = n + k;
    if (hr_trace_reserve(t, total) != 0)
        return -1;
    /* From the back: every event moves up by the notes at or before it; a
     * note's event goes right below its creating event, with its thread and
     * timestamp. Each event is moved once. */
    size_t j = total;
    for (size_t i = n; i-- > 0;) {
        j--;
        t->events[j] = t->events[i];
        if (t->ts)
            t->ts[j] = t->ts[i];
        if (k && m->notes[k - 1].at == i) {
            k--;
            j--;
            t->events[j] = (hr_event_t){.op = HR_OP_TOUCHED, .thread = t->events[j + 1].thread,
                                        .size = m->notes[k].bytes};
            if (t->ts)
                t->ts[j] = t->ts[j + 1];
        }
    }
    t->n_events = total;
    return 0;
}

void hr_addrmap_finish(hr_addrmap_t *m) {
    if (!m)
        return;
    uint64_t addr;
    void *v;
    for (size_t it = 0; (it = hr_ptrmap_next(&m->tab, it, &addr, &v));)
        if (((const hr_aentry_t *)v)->state == E_LIVE)
            m->rep->leaked_at_end++;
    for (size_t it = 0; (it = hr_ptrmap_next(&m->pools, it, &addr, &v));)
        if (((const hr_aentry_t *)v)->state == E_LIVE)
            m->rep->leaked_at_end++;
    hr_ptrmap_free(&m->pools);
    free(m->stream_frames);
    free(m->born);
    free(m->notes);
    m->rep->events_out = m->out->n_events;
    hr_ptrmap_free(&m->tab);
    free(m->free_ids);
    free(m);
}
