/* The composite backend: one instance of each part of a composition
 * (compose.h), each call served by the part the routing plan names.
 *
 * Which part: the engine calls the backend once per memory event, in trace
 * order (alloc, calloc, realloc, free; replay/engine_ops.h), so the instance
 * keeps a cursor into the plan and reads the next memory event's route: no
 * lookup by address, about a nanosecond per call. Two engine rules keep the
 * cursor in step without the events themselves:
 *  - the engine skips the free of a block whose allocation failed (its slot
 *    is empty): on a failure the consumer of that block, when it is a free,
 *    is put in a skip list the cursor steps over;
 *  - after a failed realloc the engine frees the old block itself: that free
 *    is not in the plan and goes to the old block's part.
 * After the lap the engine frees the blocks the trace left live, in its own
 * order: those blocks (the plan knows how many: no event ends them) are kept
 * with their part in a table made at create(), in harness memory, and found
 * by address once the plan is done.
 * A realloc whose old and new parts differ moves the block (alloc on the new
 * part, copy, free on the old). A call the rules above cannot place (none
 * should be) is served by the last part and counted as "route_desync". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/compose.h"
#include "base/hmem.h"
#include "base/json.h"

typedef void *(*alloc_fn_t)(void *self, size_t size, size_t align, int32_t heap);
typedef void (*free_fn_t)(void *self, void *ptr, size_t size);
typedef void *(*realloc_fn_t)(void *self, void *ptr, size_t old_size, size_t new_size,
                              int32_t heap);

typedef struct part_inst {
    const hr_backend_t *be;
    void               *inst;
    uint64_t            calls; /* alloc/calloc/realloc/free calls it served */
    /* what the composition's timed entries call: the part's timed entries,
     * or its others where it has none (backend.h), resolved at create */
    alloc_fn_t          alloc_timed;
    free_fn_t           free_timed;
    realloc_fn_t        realloc_timed;
} part_inst_t;

typedef struct compose {
    hr_compose_spec_t      spec;
    part_inst_t            p[HR_COMPOSE_MAX_PARTS];
    const hr_route_plan_t *plan;
    uint64_t               cur;        /* next event index to look at */
    uint64_t              *skip;       /* sorted event indices to step over */
    size_t                 n_skip, cap_skip, skip_at;
    int                    pending_old; /* part of a failed realloc's old block, or -1 */
    uint64_t               desync, moves;
    struct left {                       /* blocks live at the end of the trace */
        void    *p;
        uint64_t part;
    }                     *left;
    uint64_t               n_left, cap_left;
    int                    left_sorted;
} compose_t;

enum { KIND_CREATE = 0, KIND_FREE = 1, KIND_REALLOC = 2 };

static inline int route_part(uint8_t r) { return r & 7; }
static inline int route_old(uint8_t r) { return (r >> 3) & 7; }
static inline int route_kind(uint8_t r) { return r >> 6; }

/* The next memory event's index, or UINT64_MAX when the plan has none. */
static inline uint64_t next_event(compose_t *c) {
    const uint8_t *route = c->plan->route;
    for (; c->cur < c->plan->n; c->cur++) {
        if (route[c->cur] == HR_ROUTE_NONE)
            continue;
        if (__builtin_expect(c->skip_at < c->n_skip && c->skip[c->skip_at] == c->cur, 0)) {
            c->skip_at++;
            continue;
        }
        return c->cur++;
    }
    return UINT64_MAX;
}

/* A block event k made that no event ends: the engine frees it after the lap. */
static inline void note_made(compose_t *c, uint64_t k, void *p, int part) {
    if (k != UINT64_MAX && c->plan->consumer[k] == HR_ROUTE_NO_CONSUMER && c->n_left < c->cap_left)
        c->left[c->n_left++] = (struct left){p, (uint64_t)part};
}

static int cmp_left(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const struct left *)a)->p, y = (uintptr_t)((const struct left *)b)->p;
    return x < y ? -1 : x > y;
}

/* The part of a block freed after the plan is done (the lap's leftovers). */
static int left_part(compose_t *c, void *p) {
    if (!c->left_sorted) {
        qsort(c->left, c->n_left, sizeof *c->left, cmp_left);
        c->left_sorted = 1;
    }
    size_t lo = 0, hi = c->n_left;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((uintptr_t)c->left[mid].p < (uintptr_t)p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->n_left && c->left[lo].p == p)
        return (int)c->left[lo].part;
    c->desync++;
    return c->spec.n - 1;
}

static inline int part_of(compose_t *c, uint64_t k) {
    if (__builtin_expect(k == UINT64_MAX, 0)) {
        c->desync++;
        return c->spec.n - 1;
    }
    return route_part(c->plan->route[k]);
}

/* The block event k created is not there: the engine will skip its free. */
static void note_failed(compose_t *c, uint64_t k) {
    if (k == UINT64_MAX)
        return;
    uint64_t f = c->plan->consumer[k];
    if (f == HR_ROUTE_NO_CONSUMER || route_kind(c->plan->route[f]) != KIND_FREE)
        return;
    if (c->n_skip == c->cap_skip) {
        size_t cap = c->cap_skip ? c->cap_skip * 2 : 16;
        uint64_t *s = realloc(c->skip, cap * sizeof *s);
        if (!s) { /* the engine's skipped free cannot be stepped over: say so */
            c->desync++;
            return;
        }
        c->skip = s, c->cap_skip = cap;
    }
    size_t i = c->n_skip++;
    for (; i > c->skip_at && c->skip[i - 1] > f; i--)
        c->skip[i] = c->skip[i - 1];
    c->skip[i] = f;
}

/* A part's alloc, free and realloc as the lap calling the composition
 * wants them: the counting ones, or (`counted` 0, the timed laps) the
 * part's timed entries where it has them (backend.h). The per-part call
 * counts are statistics too. */
static inline alloc_fn_t alloc_of(const part_inst_t *p, const int counted) {
    return counted ? p->be->alloc : p->alloc_timed;
}

static inline free_fn_t free_of(const part_inst_t *p, const int counted) {
    return counted ? p->be->free : p->free_timed;
}

static inline realloc_fn_t realloc_of(const part_inst_t *p, const int counted) {
    return counted ? p->be->realloc : p->realloc_timed;
}

static inline __attribute__((always_inline)) void *
compose_alloc_as(void *self, size_t size, size_t align, int32_t heap, const int counted) {
    compose_t *c = self;
    uint64_t k = next_event(c);
    part_inst_t *p = &c->p[part_of(c, k)];
    if (counted)
        p->calls++;
    void *ptr = alloc_of(p, counted)(p->inst, size, align, heap);
    if (!ptr)
        note_failed(c, k);
    else
        note_made(c, k, ptr, (int)(p - c->p));
    return ptr;
}

static void *compose_alloc(void *self, size_t size, size_t align, int32_t heap) {
    return compose_alloc_as(self, size, align, heap, 1);
}

static void *compose_alloc_timed(void *self, size_t size, size_t align, int32_t heap) {
    return compose_alloc_as(self, size, align, heap, 0);
}

static void *compose_calloc(void *self, size_t n, size_t size, int32_t heap) {
    compose_t *c = self;
    uint64_t k = next_event(c);
    part_inst_t *p = &c->p[part_of(c, k)];
    p->calls++;
    void *ptr;
    if (p->be->calloc) {
        ptr = p->be->calloc(p->inst, n, size, heap);
    } else if ((ptr = p->be->alloc(p->inst, n * size, 0, heap)) != NULL) {
        memset(ptr, 0, n * size);
    }
    if (!ptr)
        note_failed(c, k);
    else
        note_made(c, k, ptr, (int)(p - c->p));
    return ptr;
}

static inline __attribute__((always_inline)) void *
compose_realloc_as(void *self, void *old, size_t osz, size_t nsz, int32_t heap, const int counted) {
    compose_t *c = self;
    uint64_t k = next_event(c);
    int to = part_of(c, k), from = k == UINT64_MAX ? to : route_old(c->plan->route[k]);
    part_inst_t *pt = &c->p[to], *pf = &c->p[from];
    void *ptr;
    if (counted)
        pt->calls++;
    if (to == from && pt->be->realloc) {
        ptr = realloc_of(pt, counted)(pt->inst, old, osz, nsz, heap);
    } else if ((ptr = alloc_of(pt, counted)(pt->inst, nsz, 0, heap)) != NULL) {
        memcpy(ptr, old, osz < nsz ? osz : nsz);
        if (counted)
            pf->calls++;
        free_of(pf, counted)(pf->inst, old, osz);
        c->moves++;
    }
    if (!ptr) {
        c->pending_old = from; /* the engine frees the old block next */
        note_failed(c, k);
    } else {
        note_made(c, k, ptr, to);
    }
    return ptr;
}

static void *compose_realloc(void *self, void *old, size_t osz, size_t nsz, int32_t heap) {
    return compose_realloc_as(self, old, osz, nsz, heap, 1);
}

static void *compose_realloc_timed(void *self, void *old, size_t osz, size_t nsz, int32_t heap) {
    return compose_realloc_as(self, old, osz, nsz, heap, 0);
}

static inline __attribute__((always_inline)) void compose_free_as(void *self, void *ptr,
                                                                  size_t size, const int counted) {
    compose_t *c = self;
    int part;
    if (c->pending_old >= 0) {
        part = c->pending_old;
        c->pending_old = -1;
    } else {
        uint64_t k = next_event(c);
        part = k == UINT64_MAX ? left_part(c, ptr) : route_part(c->plan->route[k]);
    }
    part_inst_t *p = &c->p[part];
    if (counted)
        p->calls++;
    free_of(p, counted)(p->inst, ptr, size);
}

HR_TIMED_FREE_PAIR(compose_free)

static void compose_frame(void *self, uint64_t n) {
    compose_t *c = self;
    for (int i = 0; i < c->spec.n; i++)
        if (c->p[i].be->frame)
            c->p[i].be->frame(c->p[i].inst, n);
}

static void compose_heap_push(void *self, uint32_t heap, const char *name) {
    compose_t *c = self;
    for (int i = 0; i < c->spec.n; i++)
        if (c->p[i].be->heap_push)
            c->p[i].be->heap_push(c->p[i].inst, heap, name);
}

static void compose_heap_pop(void *self, uint32_t heap, const char *name) {
    compose_t *c = self;
    for (int i = 0; i < c->spec.n; i++)
        if (c->p[i].be->heap_pop)
            c->p[i].be->heap_pop(c->p[i].inst, heap, name);
}

/* In-house compositions: the sum of the parts' exact footprints. */
static uint64_t compose_footprint(void *self) {
    compose_t *c = self;
    uint64_t sum = 0;
    for (int i = 0; i < c->spec.n; i++)
        if (c->p[i].be->footprint)
            sum += c->p[i].be->footprint(c->p[i].inst);
    return sum;
}

static void compose_destroy(void *self) {
    compose_t *c = self;
    if (!c)
        return;
    for (int i = c->spec.n - 1; i >= 0; i--)
        if (c->p[i].inst)
            c->p[i].be->destroy(c->p[i].inst);
    free(c->skip);
    hr_hmem_free(c->left, c->cap_left * sizeof *c->left);
    free(c);
}

static void *compose_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    if (!cfg->route_plan || !cfg->parts) {
        hr_error_set(err, "a composition is replayed with its trace's routing plan");
        return NULL;
    }
    compose_t *c = calloc(1, sizeof *c);
    if (!c) {
        hr_error_set(err, "composition: out of memory");
        return NULL;
    }
    c->plan = cfg->route_plan;
    c->pending_old = -1;
    c->cap_left = c->plan->live_at_end;
    if (c->cap_left && !(c->left = hr_hmem_alloc(c->cap_left * sizeof *c->left, 0))) {
        hr_error_set(err, "composition: out of memory");
        free(c);
        return NULL;
    }
    c->spec = *cfg->parts;
    for (int i = 0; i < c->spec.n; i++) {
        hr_backend_config_t pc = *cfg;
        const hr_compose_part_t *part = &c->spec.part[i];
        pc.arg = part->arg_at ? part->spec + part->arg_at : NULL;
        pc.route_plan = NULL;
        pc.parts = NULL;
        const hr_backend_t *pb = c->p[i].be = c->spec.part[i].be;
        c->p[i].alloc_timed = pb->alloc_timed ? pb->alloc_timed : pb->alloc;
        c->p[i].free_timed = pb->free_timed ? pb->free_timed : pb->free;
        c->p[i].realloc_timed = pb->realloc_timed ? pb->realloc_timed : pb->realloc;
        if (!(c->p[i].inst = c->p[i].be->create(&pc, err))) {
            compose_destroy(c);
            return NULL;
        }
    }
    return c;
}

/* Each part's own stats, parsed (NULL where it has none). */
static void parts_stats(compose_t *c, hr_json_t **out) {
    for (int i = 0; i < c->spec.n; i++) {
        char *json = hr_backend_stats_json(c->p[i].be, c->p[i].inst);
        out[i] = json ? hr_json_parse(json, strlen(json), "part stats", NULL) : NULL;
        free(json);
    }
}

/* The ops a part served natively and by fallback: its own counts where it
 * keeps them (in-house), else every call (a general allocator serves all). */
static void part_counts(const part_inst_t *p, const hr_json_t *v, uint64_t *nat, uint64_t *fb) {
    const hr_json_t *n = hr_json_get(v, "native_ops"), *f = hr_json_get(v, "fallback_ops");
    *nat = n ? (uint64_t)hr_json_num(n, 0) : p->calls;
    *fb = f ? (uint64_t)hr_json_num(f, 0) : 0;
}

/* A parsed value written back through the emitter (a part's own stats). */
static void emit_json(hr_emit_t *em, const char *key, const hr_json_t *v) {
    switch (hr_json_type(v)) {
    case HR_JSON_BOOL: hr_emit_bool(em, key, hr_json_is_true(v)); break;
    case HR_JSON_NUMBER: {
        uint64_t u;
        if (hr_json_get_u64(v, &u) == 0)
            hr_emit_u64(em, key, u);
        else
            hr_emit_f64(em, key, hr_json_num(v, 0));
        break;
    }
    case HR_JSON_STRING: hr_emit_str(em, key, hr_json_str(v)); break;
    case HR_JSON_ARRAY:
    case HR_JSON_OBJECT: {
        int obj = hr_json_type(v) == HR_JSON_OBJECT;
        if (obj)
            hr_emit_obj_begin(em, key);
        else
            hr_emit_arr_begin(em, key);
        for (size_t i = 0; i < hr_json_len(v); i++)
            emit_json(em, obj ? hr_json_key_at(v, i) : NULL, hr_json_at(v, i));
        if (obj)
            hr_emit_obj_end(em);
        else
            hr_emit_arr_end(em);
        break;
    }
    default: hr_emit_null(em, key); break;
    }
}

static void emit_part(hr_emit_t *em, const compose_t *c, int i, uint64_t nat, uint64_t fb,
                      const hr_json_t *stats) {
    const hr_route_plan_t *pl = c->plan;
    const part_inst_t *p = &c->p[i];
    hr_emit_obj_begin(em, NULL);
    hr_emit_str(em, "part", c->spec.part[i].spec);
    hr_emit_u64(em, "blocks", pl->part_blocks[i]);
    hr_emit_u64(em, "bytes", pl->part_bytes[i]);
    hr_emit_f64(em, "block_share", pl->blocks ? (double)pl->part_blocks[i] / (double)pl->blocks : 0);
    if (p->be->footprint)
        hr_emit_u64(em, "footprint", p->be->footprint(p->inst));
    else
        hr_emit_null(em, "footprint");
    hr_emit_u64(em, "native_ops", nat);
    hr_emit_u64(em, "fallback_ops", fb);
    if (stats)
        emit_json(em, "stats", stats);
    hr_emit_obj_end(em);
}

/* Figures of the composition: the plan's classification, each part's share,
 * footprint and native/fallback ops, their sums (so native.share means what
 * it means for any in-house row), and every part's violations as
 * "PART/KIND". */
static void compose_stats(void *self, hr_emit_t *em) {
    compose_t *c = self;
    const hr_route_plan_t *pl = c->plan;
    hr_json_t *st[HR_COMPOSE_MAX_PARTS] = {NULL};
    uint64_t nat[HR_COMPOSE_MAX_PARTS], fb[HR_COMPOSE_MAX_PARTS], tn = 0, tf = 0;
    parts_stats(c, st);
    hr_emit_u64(em, "blocks", pl->blocks);
    hr_emit_u64(em, "frame_scoped_blocks", pl->frame_scoped);
    hr_emit_u64(em, "lifo_temporaries", pl->lifo_temps);
    hr_emit_u64(em, "moves", c->moves);
    hr_emit_arr_begin(em, "parts");
    for (int i = 0; i < c->spec.n; i++) {
        part_counts(&c->p[i], st[i], &nat[i], &fb[i]);
        tn += nat[i], tf += fb[i];
        emit_part(em, c, i, nat[i], fb[i], st[i]);
    }
    hr_emit_arr_end(em);
    hr_emit_u64(em, "native_ops", tn);
    hr_emit_u64(em, "fallback_ops", tf);
    hr_emit_obj_begin(em, "violations");
    hr_emit_u64(em, "route_desync", c->desync);
    for (int i = 0; i < c->spec.n; i++) {
        const hr_json_t *v = hr_json_get(st[i], "violations");
        char key[160];
        for (size_t k = 0; k < hr_json_len(v); k++) {
            snprintf(key, sizeof key, "%s/%s", c->p[i].be->name, hr_json_key_at(v, k));
            hr_emit_u64(em, key, (uint64_t)hr_json_num(hr_json_at(v, k), 0));
        }
        hr_json_free(st[i]);
    }
    hr_emit_obj_end(em);
}

#define HR_COMPOSE_CAPS                                                                  \
    (HR_CAP_ALIGNED | HR_CAP_REALLOC | HR_CAP_FRAMES | HR_CAP_HEAP_ROUTING |              \
     HR_CAP_NEEDS_SIZE_ON_FREE | HR_CAP_COMPOSITE | HR_CAP_SERIAL_ONLY | HR_CAP_NOT_IN_ALL)
#define HR_COMPOSE_FNS                                                                   \
    .create = compose_create, .alloc = compose_alloc, .calloc = compose_calloc,           \
    .free = compose_free, .realloc = compose_realloc, .heap_push = compose_heap_push,     \
    .heap_pop = compose_heap_pop, .frame = compose_frame, .stats = compose_stats,         \
    .destroy = compose_destroy, .alloc_timed = compose_alloc_timed,                       \
    .free_timed = compose_free_timed, .realloc_timed = compose_realloc_timed

/* In-house parts only: exact footprint, the sum of the parts'. */
static const hr_backend_t hr_backend_compose_inhouse = {
    .name = "compose", .description = "a composition of in-house allocators (a+b)",
    .caps = HR_COMPOSE_CAPS, HR_COMPOSE_FNS, .footprint = compose_footprint,
};
/* The last part is the process's malloc (glibc) or a preloaded one: measured
 * like that allocator (its statistics and RSS hold every part's memory). */
static const hr_backend_t hr_backend_compose_ext = {
    .name = "compose", .description = "a composition ending in a general allocator (a+glibc)",
    .caps = HR_COMPOSE_CAPS | HR_CAP_EXTERNAL_PROCESS, HR_COMPOSE_FNS,
};

const hr_backend_t *hr_compose_backend(const hr_compose_spec_t *parts) {
    return (parts->part[parts->n - 1].be->caps & HR_CAP_EXTERNAL_PROCESS) ? &hr_backend_compose_ext
                                                                          : &hr_backend_compose_inhouse;
}
