/* In-memory trace model: growth, string table, validation (see trace.h). */
#include "heapreplay/trace.h"

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
    memset(t, 0, sizeof *t);
}

static int grow_events(hr_trace_t *t) {
    size_t cap = t->cap_events ? t->cap_events * 2 : 1024;
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
    t->cap_events = cap;
    return 0;
}

int hr_trace_push(hr_trace_t *t, const hr_event_t *ev) {
    if (t->n_events == t->cap_events && grow_events(t) != 0)
        return -1;
    if (t->ts)
        t->ts[t->n_events] = 0;
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
    for (uint32_t i = 0; i < t->n_strings; i++)
        if (strcmp(t->strings[i], name) == 0)
            return i;
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
    return t->n_strings++;
}

/* Validation state: alive[id] says whether id is live, live[id] its size,
 * pool[id] its pool (string index + 1; 0: a malloc-family block). */
typedef struct vstate {
    uint64_t *live;
    uint8_t  *alive;
    uint32_t *pool;
    uint32_t  cap;
    uint64_t  cur, peak;
} vstate_t;

static int ensure_id(vstate_t *v, uint32_t id) {
    if (id < v->cap)
        return 0;
    uint32_t cap = v->cap ? v->cap : 1024;
    while (cap <= id)
        cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
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
    v->cap = cap;
    return 0;
}

/* "pool 'NAME'" or "malloc" for messages about a block's kind. */
static const char *kind_of(const hr_trace_t *t, uint32_t pool, char *buf, size_t cap) {
    if (!pool)
        return "malloc";
    snprintf(buf, cap, "pool '%.80s'", pool - 1 < t->n_strings ? t->strings[pool - 1] : "?");
    return buf;
}

/* The checks and bookkeeping of the pool ops (HR_OPC_POOL); the message
 * in what[] on failure. */
static int validate_pool(const hr_trace_t *t, const hr_event_t *ev, vstate_t *v, char *what,
                         size_t cap) {
    char k1[128], k2[128];
    uint32_t str = ev->op == HR_OP_POOL_ALLOC ? ev->aux : ev->op == HR_OP_POOL_FREE ? ev->aux : 0;
    if (ev->op != HR_OP_POOL_REALLOC && str >= t->n_strings) {
        snprintf(what, cap, "string index %u out of range (table has %u)", str, t->n_strings);
        return -1;
    }
    if (ev->op != HR_OP_POOL_ALLOC) { /* pfree, prealloc: the block must be the pool's */
        uint32_t old = ev->op == HR_OP_POOL_FREE ? ev->id : ev->aux;
        if (old >= v->cap || !v->alive[old]) {
            snprintf(what, cap, "id %u is not live", old);
            return -1;
        }
        if (!v->pool[old] || (ev->op == HR_OP_POOL_FREE && v->pool[old] != str + 1)) {
            snprintf(what, cap, "id %u is a block of %s, not of %s", old,
                     kind_of(t, v->pool[old], k1, sizeof k1),
                     ev->op == HR_OP_POOL_FREE ? kind_of(t, str + 1, k2, sizeof k2) : "a pool");
            return -1;
        }
        str = v->pool[old] - 1;
        v->cur -= v->live[old];
        v->alive[old] = 0;
        if (ev->op == HR_OP_POOL_FREE)
            return 0;
    }
    if (ensure_id(v, ev->id) != 0) {
        snprintf(what, cap, "out of memory");
        return -1;
    }
    if (v->alive[ev->id]) {
        snprintf(what, cap, "id %u is already live", ev->id);
        return -1;
    }
    v->alive[ev->id] = 1;
    v->pool[ev->id] = str + 1;
    v->live[ev->id] = ev->size;
    v->cur += ev->size;
    return 0;
}

#define VFAIL(...)                                                            \
    do {                                                                      \
        char what_[400];                                                      \
        snprintf(what_, sizeof what_, __VA_ARGS__);                           \
        hr_error_set(err, "%s: event %zu (%s): %s", name, i, hr_op_name(ev->op), what_); \
        goto fail;                                                            \
    } while (0)

int hr_trace_validate(hr_trace_t *t, const char *name, hr_error_t *err) {
    vstate_t v = {0};
    char what[320];
    uint32_t max_id = 0, max_thread = 0;
    int any_id = 0;
    memset(t->op_counts, 0, sizeof t->op_counts);
    t->max_align = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (ev->op >= HR_OP__COUNT)
            VFAIL("unknown opcode %u", ev->op);
        t->op_counts[ev->op]++;
        if (ev->thread > max_thread)
            max_thread = ev->thread;
        switch ((hr_op_t)ev->op) {
        case HR_OP_ALLOC:
        case HR_OP_CALLOC:
            if (ev->op == HR_OP_ALLOC && ev->align && (ev->align & (ev->align - 1)))
                VFAIL("alignment %u is not a power of two", ev->align);
            if (ev->op == HR_OP_ALLOC && ev->align > t->max_align)
                t->max_align = ev->align;
            if (ev->op == HR_OP_CALLOC && ev->aux && ev->size > UINT64_MAX / ev->aux)
                VFAIL("calloc %u x %llu overflows", ev->aux, (unsigned long long)ev->size);
            if (ensure_id(&v, ev->id))
                VFAIL("out of memory");
            if (v.alive[ev->id])
                VFAIL("id %u is already live", ev->id);
            v.alive[ev->id] = 1;
            v.pool[ev->id] = 0;
            v.live[ev->id] = hr_event_bytes(ev);
            v.cur += hr_event_bytes(ev);
            break;
        case HR_OP_FREE:
            if (ev->id >= v.cap || !v.alive[ev->id])
                VFAIL("id %u is not live (free of a dead id or double free)", ev->id);
            if (v.pool[ev->id])
                VFAIL("id %u is a block of %s (expected pfree)", ev->id,
                      kind_of(t, v.pool[ev->id], what, sizeof what));
            if ((ev->flags & HR_EVF_HAS_OPT) && ev->size != v.live[ev->id])
                VFAIL("free size %llu differs from the allocated size %llu",
                      (unsigned long long)ev->size, (unsigned long long)v.live[ev->id]);
            v.cur -= v.live[ev->id];
            v.alive[ev->id] = 0;
            break;
        case HR_OP_REALLOC:
            if (ev->aux >= v.cap || !v.alive[ev->aux])
                VFAIL("old id %u is not live", ev->aux);
            if (v.pool[ev->aux])
                VFAIL("old id %u is a block of %s (expected prealloc)", ev->aux,
                      kind_of(t, v.pool[ev->aux], what, sizeof what));
            v.cur -= v.live[ev->aux];
            v.alive[ev->aux] = 0;
            if (ensure_id(&v, ev->id))
                VFAIL("out of memory");
            if (v.alive[ev->id])
                VFAIL("new id %u is already live", ev->id);
            v.alive[ev->id] = 1;
            v.pool[ev->id] = 0;
            v.live[ev->id] = ev->size;
            v.cur += ev->size;
            break;
        case HR_OP_POOL_ALLOC:
        case HR_OP_POOL_FREE:
        case HR_OP_POOL_REALLOC:
            if (validate_pool(t, ev, &v, what, sizeof what) != 0)
                VFAIL("%s", what);
            break;
        case HR_OP_HEAP_PUSH:
        case HR_OP_HEAP_POP:
        case HR_OP_MARK:
            if (ev->aux >= t->n_strings)
                VFAIL("string index %u out of range (table has %u)", ev->aux, t->n_strings);
            break;
        case HR_OP_FRAME:
            if ((ev->flags & HR_EVF_HAS_OPT) && ev->aux >= t->n_strings)
                VFAIL("string index %u out of range (table has %u)", ev->aux, t->n_strings);
            break;
        case HR_OP__COUNT:
            break;
        }
        if (hr_op_creates_block(ev->op)) {
            any_id = 1;
            if (ev->id > max_id)
                max_id = ev->id;
        }
        if (v.cur > v.peak)
            v.peak = v.cur;
    }
    t->n_ids = any_id ? max_id + 1 : 0;
    t->n_threads = t->n_events ? max_thread + 1 : 0;
    t->peak_live = v.peak;
    free(v.live);
    free(v.alive);
    free(v.pool);
    return 0;
fail:
    free(v.live);
    free(v.alive);
    free(v.pool);
    return -1;
}
