/* In-memory trace model: growth, string table, validation (see trace.h). */
#include "trace/trace.h"
#include "trace/format.h"
#include "trace/idtab.h"
#include "trace/names.h"
#include "trace/stacks.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HR_OP_INFO_(e, c, t, f1, f2, f3, o, cls, key)                         \
    [c] = {t, {HR_F_##f1, HR_F_##f2, HR_F_##f3},                                 \
           (uint8_t)((HR_F_##f1 != HR_F_NONE) + (HR_F_##f2 != HR_F_NONE) +      \
                     (HR_F_##f3 != HR_F_NONE)),                                 \
           o, HR_OPC_##cls, key},
const hr_op_info_t hr_op_info[HR_OP__COUNT] = {HR_OP_LIST(HR_OP_INFO_)};
#undef HR_OP_INFO_

const char *hr_op_name(unsigned op) {
    return op < HR_OP__COUNT ? hr_op_info[op].name : "?";
}

int hr_op_from_name(const char *name, size_t len) {
    for (unsigned i = 0; i < HR_OP__COUNT; i++)
        if (strlen(hr_op_info[i].name) == len && memcmp(hr_op_info[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

uint64_t hr_trace_mem_ops(const hr_trace_t *t) {
    uint64_t n = 0;
    for (unsigned op = 0; op < HR_OP__COUNT; op++)
        if (hr_op_is_mem(op) || hr_op_is_pool(op))
            n += t->op_counts[op];
    return n;
}

void hr_trace_init(hr_trace_t *t) { memset(t, 0, sizeof *t); }

void hr_trace_free(hr_trace_t *t) {
    free(t->events);
    free(t->ts);
    for (uint32_t i = 0; i < t->n_strings; i++)
        free(t->strings[i]);
    free(t->strings);
    if (t->names) {
        hr_names_free(t->names);
        free(t->names);
    }
    hr_trace_drop_stacks(t);
    free(t->command);
    memset(t, 0, sizeof *t);
}

int hr_trace_reserve(hr_trace_t *t, size_t cap) {
    if (cap <= t->cap_events)
        return 0;
    hr_event_t *ev = realloc(t->events, cap * sizeof *ev);
    if (!ev)
        return -1;
    t->events = ev;
    if (t->ts) {
        uint64_t *ts = realloc(t->ts, cap * sizeof *ts);
        if (!ts)
            return -1;
        t->ts = ts;
    }
    if (t->site) {
        uint32_t *site = realloc(t->site, cap * sizeof *site);
        if (!site)
            return -1;
        memset(site + t->cap_events, 0, (cap - t->cap_events) * sizeof *site);
        t->site = site;
    }
    t->cap_events = cap;
    return 0;
}

int hr_trace_push(hr_trace_t *t, const hr_event_t *ev) {
    if (t->n_events == t->cap_events &&
        hr_trace_reserve(t, t->cap_events ? t->cap_events * 2 : 1024) != 0)
        return -1;
    if (t->ts)
        t->ts[t->n_events] = 0;
    if (t->site)
        t->site[t->n_events] = 0;
    t->events[t->n_events++] = *ev;
    return 0;
}

int hr_trace_push_ts(hr_trace_t *t, const hr_event_t *ev, uint64_t ts) {
    if (!t->ts) {
        t->ts = calloc(t->cap_events ? t->cap_events : 1, sizeof *t->ts);
        if (!t->ts)
            return -1;
        t->flags |= HR_TRACEF_TIMESTAMPS;
    }
    if (hr_trace_push(t, ev) != 0)
        return -1;
    t->ts[t->n_events - 1] = ts;
    return 0;
}

int64_t hr_trace_intern(hr_trace_t *t, const char *name) {
    if (!t->names && !(t->names = calloc(1, sizeof *t->names)))
        return -1;
    if (hr_names_catch_up(t->names, t->strings, t->n_strings) != 0)
        return -1;
    int64_t found = hr_names_find(t->names, t->strings, name);
    if (found >= 0)
        return found;
    if (t->n_strings == t->cap_strings) {
        uint32_t cap = t->cap_strings ? t->cap_strings * 2 : 16;
        char **s = realloc(t->strings, cap * sizeof *s);
        if (!s)
            return -1;
        t->strings = s;
        t->cap_strings = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return -1;
    t->strings[t->n_strings] = copy;
    if (hr_names_add(t->names, t->strings, t->n_strings) != 0) {
        free(copy);
        return -1;
    }
    return t->n_strings++;
}

/* Validation state: alive[id] says whether id is live, live[id] its size,
 * pool[id] its pool (string index + 1; 0: a malloc-family block). The arrays
 * grow with the largest id seen, up to HR_IDTAB_DENSE_MAX of the trace's
 * events; past that (a few huge ids) the live ids move to a hash map
 * (`sparse`, id + 1 -> vval_t, present = live), so memory follows the ids
 * used. */
typedef struct vval {
    uint64_t bytes;
    uint32_t pool;
    uint32_t pad;
} vval_t;

typedef struct vstate {
    uint64_t   *live;
    uint8_t    *alive;
    uint32_t   *pool;
    uint32_t    cap;
    uint64_t    dense_max;
    int         is_sparse;
    hr_ptrmap_t sparse;
    uint64_t    cur, peak;
} vstate_t;

static int go_sparse(vstate_t *v) {
    for (uint32_t id = 0; id < v->cap; id++) {
        vval_t *p;
        if (v->alive[id] && !(p = hr_ptrmap_put(&v->sparse, (uint64_t)id + 1, NULL)))
            return -1;
        if (v->alive[id])
            *p = (vval_t){v->live[id], v->pool[id], 0};
    }
    free(v->live);
    free(v->alive);
    free(v->pool);
    v->live = NULL;
    v->alive = NULL;
    v->pool = NULL;
    v->cap = 0;
    v->is_sparse = 1;
    return 0;
}

static int ensure_id(vstate_t *v, uint32_t id) {
    if (id < v->cap || v->is_sparse)
        return 0;
    if (id >= v->dense_max)
        return go_sparse(v);
    uint64_t cap = v->cap ? v->cap : 1024;
    while (cap <= id)
        cap *= 2;
    if (cap > v->dense_max)
        cap = v->dense_max;
    uint64_t *l = realloc(v->live, (size_t)cap * sizeof *l);
    if (!l)
        return -1;
    v->live = l;
    uint8_t *a = realloc(v->alive, cap);
    if (!a)
        return -1;
    memset(a + v->cap, 0, cap - v->cap);
    v->alive = a;
    uint32_t *pl = realloc(v->pool, (size_t)cap * sizeof *pl);
    if (!pl)
        return -1;
    v->pool = pl;
    v->cap = (uint32_t)cap;
    return 0;
}

/* Whether id is live; its size in *bytes and its pool in *pool. */
static int v_live(const vstate_t *v, uint32_t id, uint64_t *bytes, uint32_t *pool) {
    if (v->is_sparse) {
        const vval_t *p = hr_ptrmap_get(&v->sparse, (uint64_t)id + 1);
        if (p)
            *bytes = p->bytes, *pool = p->pool;
        return p != NULL;
    }
    if (id >= v->cap || !v->alive[id])
        return 0;
    *bytes = v->live[id];
    *pool = v->pool[id];
    return 1;
}

/* Marks id live with `bytes` in `pool` (0: malloc); -1 on OOM. The caller
 * checked it was dead. */
static int v_birth(vstate_t *v, uint32_t id, uint64_t bytes, uint32_t pool) {
    if (ensure_id(v, id))
        return -1;
    if (v->is_sparse) {
        vval_t *p = hr_ptrmap_put(&v->sparse, (uint64_t)id + 1, NULL);
        if (!p)
            return -1;
        *p = (vval_t){bytes, pool, 0};
        return 0;
    }
    v->alive[id] = 1;
    v->live[id] = bytes;
    v->pool[id] = pool;
    return 0;
}

static void v_death(vstate_t *v, uint32_t id) {
    if (v->is_sparse)
        hr_ptrmap_remove(&v->sparse, (uint64_t)id + 1, NULL);
    else
        v->alive[id] = 0;
}

static void v_free(vstate_t *v) {
    free(v->live);
    free(v->alive);
    free(v->pool);
    hr_ptrmap_free(&v->sparse);
}

/* "pool 'NAME'" or "malloc" for messages about a block's kind. */
static const char *kind_of(const char *const *strings, uint32_t n_strings, uint32_t pool,
                           char *buf, size_t cap) {
    if (!pool)
        return "malloc";
    snprintf(buf, cap, "pool '%.80s'", strings && pool - 1 < n_strings ? strings[pool - 1] : "?");
    return buf;
}

#define VFAIL(...)                                                            \
    do {                                                                      \
        char what_[400];                                                      \
        snprintf(what_, sizeof what_, __VA_ARGS__);                           \
        hr_error_set(err, "%s: event %zu (%s): %s", name, i, hr_op_name(ev->op), what_); \
        goto fail;                                                            \
    } while (0)

/* The validator's state across calls (format.h). */
struct hr_validator {
    vstate_t    v;
    const char *name;
    size_t      next;        /* index of the next event */
    uint32_t    max_id, max_thread, max_align;
    int         any_id;
    uint32_t    touched;     /* 1 + thread of a `touched` awaiting its block; 0: none */
    size_t      touched_at;  /* that record's index */
    uint64_t    op_counts[HR_OP__COUNT];
};

hr_validator_t *hr_validator_new(uint64_t n_events, const char *name) {
    hr_validator_t *vd = calloc(1, sizeof *vd);
    if (!vd)
        return NULL;
    vd->v.dense_max = HR_IDTAB_DENSE_MAX(n_events);
    hr_ptrmap_init(&vd->v.sparse, sizeof(vval_t));
    vd->name = name;
    return vd;
}

void hr_validator_free(hr_validator_t *vd) {
    if (vd) {
        v_free(&vd->v);
        free(vd);
    }
}

int hr_validator_end(const hr_validator_t *vd, hr_error_t *err) {
    if (!vd->touched)
        return 0;
    hr_error_set(err, "%s: event %zu (touched): the trace ends before the block it describes",
                 vd->name, vd->touched_at);
    return -1;
}

void hr_validator_result(const hr_validator_t *vd, hr_trace_t *t) {
    t->n_ids = vd->any_id ? vd->max_id + 1 : 0;
    t->n_threads = vd->next ? vd->max_thread + 1 : 0;
    t->peak_live = vd->v.peak;
    t->max_align = vd->max_align;
    memcpy(t->op_counts, vd->op_counts, sizeof t->op_counts);
}

/* A block's birth, with its checks: the id in range and dead, the live
 * bytes below 2^64. `which` is "" or "new " for the message in what[]. */
static int v_create(vstate_t *vp, uint32_t id, uint64_t bytes, uint32_t pool, const char *which,
                    char *what, size_t cap) {
    uint64_t had;
    uint32_t hp;
    if (id > HR_ID_MAX)
        snprintf(what, cap, "id %u out of range (max 2^31-1)", id);
    else if (v_live(vp, id, &had, &hp))
        snprintf(what, cap, "%sid %u is already live", which, id);
    else if (bytes > UINT64_MAX - vp->cur)
        snprintf(what, cap, "live bytes overflow 2^64 (%llu live, %llu more)",
                 (unsigned long long)vp->cur, (unsigned long long)bytes);
    else if (v_birth(vp, id, bytes, pool))
        snprintf(what, cap, "out of memory");
    else {
        vp->cur += bytes;
        return 0;
    }
    return -1;
}

/* The pool ops (HR_OPC_POOL): the block must be the pool's own. */
static int step_pool(vstate_t *vp, const hr_event_t *ev, const char *const *strings,
                     uint32_t n_strings, char *what, size_t cap) {
    char k1[128], k2[128];
    uint64_t had;
    uint32_t hp, str = ev->op == HR_OP_POOL_REALLOC ? 0 : ev->aux;
    if (ev->op != HR_OP_POOL_REALLOC && str >= n_strings) {
        snprintf(what, cap, "string index %u out of range (table has %u)", str, n_strings);
        return -1;
    }
    if (ev->op != HR_OP_POOL_ALLOC) { /* pfree, prealloc */
        uint32_t old = ev->op == HR_OP_POOL_FREE ? ev->id : ev->aux;
        if (!v_live(vp, old, &had, &hp)) {
            snprintf(what, cap, "id %u is not live", old);
            return -1;
        }
        if (!hp || (ev->op == HR_OP_POOL_FREE && hp != str + 1)) {
            snprintf(what, cap, "id %u is a block of %s, not of %s", old,
                     kind_of(strings, n_strings, hp, k1, sizeof k1),
                     ev->op == HR_OP_POOL_FREE ? kind_of(strings, n_strings, str + 1, k2, sizeof k2)
                                               : "a pool");
            return -1;
        }
        str = hp - 1;
        vp->cur -= had;
        v_death(vp, old);
        if (ev->op == HR_OP_POOL_FREE)
            return 0;
    }
    return v_create(vp, ev->id, ev->size, str + 1, "", what, cap);
}

int hr_validator_step(hr_validator_t *vd, const hr_event_t *evs, size_t n,
                      const char *const *strings, uint32_t n_strings, hr_error_t *err) {
    vstate_t *vp = &vd->v;
    const char *name = vd->name;
    uint64_t had;
    uint32_t pool;
    char what[320];
    for (size_t k = 0; k < n; k++) {
        const hr_event_t *ev = &evs[k];
        size_t i = vd->next + k;
        if (ev->op >= HR_OP__COUNT)
            VFAIL("unknown opcode %u", ev->op);
        vd->op_counts[ev->op]++;
        if (ev->thread > vd->max_thread)
            vd->max_thread = ev->thread;
        if (vd->touched && (!hr_op_creates_block(ev->op) || ev->thread != vd->touched - 1))
            VFAIL("expected the block that the touched record at event %zu describes (an "
                  "alloc, calloc, realloc, palloc or prealloc of thread %u)",
                  vd->touched_at, vd->touched - 1);
        vd->touched = 0;
        switch ((hr_op_t)ev->op) {
        case HR_OP_ALLOC:
        case HR_OP_CALLOC:
            if (ev->op == HR_OP_ALLOC && ev->align && (ev->align & (ev->align - 1)))
                VFAIL("alignment %u is not a power of two", ev->align);
            if (ev->op == HR_OP_ALLOC && ev->align > vd->max_align)
                vd->max_align = ev->align;
            if (ev->op == HR_OP_CALLOC && ev->aux && ev->size > UINT64_MAX / ev->aux)
                VFAIL("calloc %u x %llu overflows", ev->aux, (unsigned long long)ev->size);
            if (v_create(vp, ev->id, hr_event_bytes(ev), 0, "", what, sizeof what))
                VFAIL("%s", what);
            break;
        case HR_OP_FREE:
            if (!v_live(vp, ev->id, &had, &pool))
                VFAIL("id %u is not live (free of a dead id or double free)", ev->id);
            if (pool)
                VFAIL("id %u is a block of %s (expected pfree)", ev->id,
                      kind_of(strings, n_strings, pool, what, sizeof what));
            if ((ev->flags & HR_EVF_HAS_OPT) && ev->size != had)
                VFAIL("free size %llu differs from the allocated size %llu",
                      (unsigned long long)ev->size, (unsigned long long)had);
            vp->cur -= had;
            v_death(vp, ev->id);
            break;
        case HR_OP_REALLOC:
            if (!v_live(vp, ev->aux, &had, &pool))
                VFAIL("old id %u is not live", ev->aux);
            if (pool)
                VFAIL("old id %u is a block of %s (expected prealloc)", ev->aux,
                      kind_of(strings, n_strings, pool, what, sizeof what));
            vp->cur -= had;
            v_death(vp, ev->aux);
            if (v_create(vp, ev->id, ev->size, 0, "new ", what, sizeof what))
                VFAIL("%s", what);
            break;
        case HR_OP_HEAP_PUSH:
        case HR_OP_HEAP_POP:
        case HR_OP_MARK:
            if (ev->aux >= n_strings)
                VFAIL("string index %u out of range (table has %u)", ev->aux, n_strings);
            break;
        case HR_OP_POOL_ALLOC:
        case HR_OP_POOL_FREE:
        case HR_OP_POOL_REALLOC:
            if (step_pool(vp, ev, strings, n_strings, what, sizeof what) != 0)
                VFAIL("%s", what);
            break;
        case HR_OP_FRAME:
            if ((ev->flags & HR_EVF_HAS_OPT) && ev->aux >= n_strings)
                VFAIL("string index %u out of range (table has %u)", ev->aux, n_strings);
            break;
        case HR_OP_TOUCHED: /* the next event of the thread, checked above */
            vd->touched = (uint32_t)ev->thread + 1;
            vd->touched_at = i;
            break;
        case HR_OP__COUNT:
            break;
        }
        if (hr_op_creates_block(ev->op)) {
            vd->any_id = 1;
            if (ev->id > vd->max_id)
                vd->max_id = ev->id;
        }
        if (vp->cur > vp->peak)
            vp->peak = vp->cur;
    }
    vd->next += n;
    return 0;
fail:
    return -1;
}

int hr_trace_validate(hr_trace_t *t, const char *name, hr_error_t *err) {
    hr_validator_t *vd = hr_validator_new(t->n_events, name);
    if (!vd) {
        hr_error_set(err, "%s: out of memory validating %zu events", name, t->n_events);
        return -1;
    }
    memset(t->op_counts, 0, sizeof t->op_counts);
    t->max_align = 0;
    int rc = hr_validator_step(vd, t->events, t->n_events, (const char *const *)t->strings,
                               t->n_strings, err);
    if (rc == 0)
        rc = hr_validator_end(vd, err);
    if (rc == 0)
        hr_validator_result(vd, t);
    hr_validator_free(vd);
    return rc;
}

/* Renames ids to 0..k-1 (k = most ids live at once), reusing the most
 * recently freed id first (so a realloc that keeps its id still does). */
struct hr_id_renamer {
    hr_ptrmap_t map;   /* old id + 1 -> new id */
    uint32_t   *spare; /* freed new ids, a stack */
    size_t      n_spare, cap_spare;
    uint32_t    next;  /* new ids handed out so far */
};

hr_id_renamer_t *hr_id_renamer_new(void) {
    hr_id_renamer_t *rn = calloc(1, sizeof *rn);
    if (rn)
        hr_ptrmap_init(&rn->map, sizeof(uint32_t));
    return rn;
}

static int push_spare(hr_id_renamer_t *rn, uint32_t id) {
    if (rn->n_spare == rn->cap_spare) {
        size_t cap = rn->cap_spare ? rn->cap_spare * 2 : 1024;
        uint32_t *s = realloc(rn->spare, cap * sizeof *s);
        if (!s)
            return -1;
        rn->spare = s;
        rn->cap_spare = cap;
    }
    rn->spare[rn->n_spare++] = id;
    return 0;
}

int hr_id_renamer_event(hr_id_renamer_t *rn, hr_event_t *ev) {
    uint64_t gone; /* the map's value slot is 8 bytes */
    if (ev->op == HR_OP_FREE || ev->op == HR_OP_REALLOC || ev->op == HR_OP_POOL_FREE ||
        ev->op == HR_OP_POOL_REALLOC) {
        int by_id = ev->op == HR_OP_FREE || ev->op == HR_OP_POOL_FREE;
        uint32_t *old = by_id ? &ev->id : &ev->aux;
        if (hr_ptrmap_remove(&rn->map, (uint64_t)*old + 1, &gone) == 0)
            return 0; /* not live: hr_trace_validate rejects such traces */
        *old = (uint32_t)gone;
        if (push_spare(rn, (uint32_t)gone) != 0)
            return -1;
    }
    if (hr_op_creates_block(ev->op)) {
        uint32_t *slot = hr_ptrmap_put(&rn->map, (uint64_t)ev->id + 1, NULL);
        if (!slot)
            return -1;
        *slot = ev->id = rn->n_spare ? rn->spare[--rn->n_spare] : rn->next++;
    }
    return 0;
}

uint32_t hr_id_renamer_count(const hr_id_renamer_t *rn) { return rn->next; }

void hr_id_renamer_free(hr_id_renamer_t *rn) {
    if (!rn)
        return;
    hr_ptrmap_free(&rn->map);
    free(rn->spare);
    free(rn);
}

/* Only when the id space is far above the events: then the replay's slot
 * table follows the live ids, not the largest id. */
int hr_trace_compact_ids(hr_trace_t *t, hr_error_t *err) {
    if (t->n_ids <= HR_IDTAB_DENSE_MAX(t->n_events))
        return 0;
    hr_id_renamer_t *rn = hr_id_renamer_new();
    int rc = rn ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < t->n_events; i++)
        rc = hr_id_renamer_event(rn, &t->events[i]);
    if (rc) {
        hr_id_renamer_free(rn);
        hr_error_set(err, "out of memory renaming %u ids", t->n_ids);
        return -1;
    }
    t->n_ids = hr_id_renamer_count(rn);
    hr_id_renamer_free(rn);
    return 0;
}
