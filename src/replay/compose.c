/* Routing plans of compositions (backends/compose.h): the whole trace is
 * known before the replay, so every block is classified once and given to
 * the first part whose rule takes it.
 *
 * Two walks over the trace. The first finds each block's consumer (the free
 * or realloc that ends it) and the frame it ends in. The second gives each
 * block, in trace order, its part:
 *  - frame-scoped: no frame mark between the event that makes the block and
 *    the one that ends it;
 *  - temporary: frame-scoped when the trace has frame marks, else any block
 *    that is freed;
 *  - LIFO: a stack part holds its blocks as a stack of consumer indices (top
 *    = the one freed first); before event i the blocks consumed before i are
 *    popped, and a temporary is taken when the stack is empty or it is freed
 *    before the top is (its lifetime nests inside every block the part
 *    holds), with fewer than `entries` live. A never-freed block is never a
 *    temporary, so it never pins a stack or outlives a frame. A block made
 *    by a realloc is not given to a stack (it cannot grow a block: the move
 *    would free the old block from under the new one).
 * lifo_temps counts the temporaries that nest with no entry limit (what a
 * stack part could hold at best). The plan lives in harness memory (hmem):
 * nothing comes from the allocator under test. The replay makes one plan
 * per (trace, spec) and hands it to every instance it creates (engine_int.h:
 * hr_run_alloc_t). */
#include <stdio.h>
#include <string.h>

#include "backends/compose.h"
#include "base/hmem.h"
#include "replay/engine_int.h"

/* The plan and the arrays it points to (plan first: the plan's address is
 * the store's). */
typedef struct plan_store {
    hr_route_plan_t plan;
    uint64_t        n;
    uint8_t        *route;
    uint64_t       *consumer;
} plan_store_t;

/* Bytes of the block an event creates. */
static uint64_t block_bytes(const hr_event_t *ev) {
    return ev->op == HR_OP_CALLOC ? (uint64_t)ev->aux * ev->size : ev->size;
}

/* A LIFO simulation: consumer indices of the blocks held, top last. */
typedef struct lifo {
    uint64_t *c;
    uint32_t  n, cap;
} lifo_t;

/* Before event i: the blocks ended before it, or by it (a realloc ends its
 * old block at the event that makes the new one), leave the stack. */
static void lifo_pop_done(lifo_t *s, uint64_t i) {
    while (s->n && s->c[s->n - 1] <= i)
        s->n--;
}

/* Takes the block (consumer index f) when it nests and fits. */
static int lifo_take(lifo_t *s, uint64_t f) {
    if (s->n >= s->cap || (s->n && f >= s->c[s->n - 1]))
        return 0;
    s->c[s->n++] = f;
    return 1;
}

/* First walk: consumers, and which blocks are frame-scoped (bit 0 of `fs`). */
static int find_consumers(const hr_trace_t *t, uint64_t *consumer, uint8_t *fs, int *has_frames) {
    size_t n_ids = t->n_ids ? t->n_ids : 1, ids = n_ids * 2 * sizeof(uint64_t);
    uint64_t *maker = hr_hmem_alloc(ids, 0), *frame_of = maker ? maker + n_ids : NULL; /* per id */
    if (!maker)
        return -1;
    uint64_t frames = 0;
    *has_frames = 0;
    hr_evwin_t w;
    if (hr_evwin_open(&w, t, NULL) != 0) {
        hr_hmem_free(maker, ids);
        return -1;
    }
    while (hr_evwin_next(&w)) {
        for (size_t k = 0; k < w.n; k++) {
            const hr_event_t *ev = &w.ev[k];
            size_t i = (size_t)w.base + k;
            consumer[i] = HR_ROUTE_NO_CONSUMER;
            if (ev->op == HR_OP_FRAME) {
                frames++, *has_frames = 1;
                continue;
            }
            if (ev->op == HR_OP_FREE || ev->op == HR_OP_REALLOC) {
                uint32_t id = ev->op == HR_OP_FREE ? ev->id : ev->aux;
                consumer[maker[id]] = i;
                fs[maker[id]] = frame_of[id] == frames;
            }
            if (hr_op_creates_block(ev->op)) {
                maker[ev->id] = i;
                frame_of[ev->id] = frames;
            }
        }
    }
    hr_evwin_close(&w);
    hr_hmem_free(maker, ids);
    return 0;
}

/* pool: the block's pool (string index + 1, 0 = malloc); want: the part's
 * pool, the same way (UINT32_MAX when the trace has no pool of that name). */
static int part_takes(const hr_compose_part_t *p, const hr_event_t *ev, int temp, int fscoped,
                      uint64_t f, lifo_t *st, uint32_t pool, uint32_t want) {
    switch (p->take) {
    case HR_TAKE_POOL: return pool != 0 && pool == want;
    case HR_TAKE_LIFO_TEMP: return temp && ev->op != HR_OP_REALLOC && lifo_take(st, f);
    case HR_TAKE_FRAME: return fscoped;
    case HR_TAKE_SIZE: return block_bytes(ev) <= p->max_size && ev->align <= 16;
    default: return 1;
    }
}

/* Second walk: a part per block; route bytes for every memory event. */
static int assign_parts(const hr_trace_t *t, const hr_compose_spec_t *sp, plan_store_t *ps,
                        const uint8_t *fs, int has_frames) {
    hr_route_plan_t *pl = &ps->plan;
    lifo_t st[HR_COMPOSE_MAX_PARTS], any = {NULL, 0, UINT32_MAX};
    size_t lifo_bytes = (size_t)(HR_COMPOSE_MAX_PARTS + 1) * 4096 * sizeof(uint64_t);
    uint64_t *mem = hr_hmem_alloc(lifo_bytes, 0);
    uint8_t *part_of = hr_hmem_alloc(t->n_ids ? t->n_ids : 1, 0);
    if (!mem || !part_of)
        return -1;
    uint32_t want[HR_COMPOSE_MAX_PARTS], *pool_of = NULL; /* pool per id (lowered pool ops) */
    size_t pool_bytes = (t->n_ids ? t->n_ids : 1) * sizeof *pool_of;
    for (int k = 0; k < sp->n; k++) {
        st[k] = (lifo_t){mem + (size_t)k * 4096, 0, sp->part[k].entries < 4096 ? sp->part[k].entries : 4096};
        want[k] = UINT32_MAX;
        for (uint32_t s = 0; sp->part[k].take == HR_TAKE_POOL && s < t->n_strings; s++)
            if (strcmp(t->strings[s], sp->part[k].pool) == 0)
                want[k] = s + 1;
        if (sp->part[k].take == HR_TAKE_POOL && !pool_of && !(pool_of = hr_hmem_alloc(pool_bytes, 0)))
            return -1;
    }
    any.c = mem + (size_t)HR_COMPOSE_MAX_PARTS * 4096, any.cap = 4096;
    hr_evwin_t w;
    if (hr_evwin_open(&w, t, NULL) != 0)
        return -1;
    while (hr_evwin_next(&w)) {
        for (size_t e = 0; e < w.n; e++) {
            const hr_event_t *ev = &w.ev[e];
            size_t i = (size_t)w.base + e;
            uint8_t old = 0, kind = ev->op == HR_OP_FREE ? 1 : ev->op == HR_OP_REALLOC ? 2 : 0;
            ps->route[i] = HR_ROUTE_NONE;
            if (!hr_op_is_mem(ev->op))
                continue;
            if (ev->op == HR_OP_FREE || ev->op == HR_OP_REALLOC)
                old = part_of[ev->op == HR_OP_FREE ? ev->id : ev->aux];
            if (ev->op == HR_OP_FREE) {
                ps->route[i] = (uint8_t)(kind << 6 | old);
                continue;
            }
            uint64_t f = ps->consumer[i];
            int fscoped = f != HR_ROUTE_NO_CONSUMER && fs[i], temp = has_frames ? fscoped : f != HR_ROUTE_NO_CONSUMER;
            int k = 0;
            for (int j = 0; j < sp->n; j++)
                lifo_pop_done(&st[j], i);
            lifo_pop_done(&any, i);
            pl->blocks++;
            pl->live_at_end += (uint64_t)(f == HR_ROUTE_NO_CONSUMER);
            pl->frame_scoped += (uint64_t)fscoped;
            pl->lifo_temps += (uint64_t)(temp && ev->op != HR_OP_REALLOC && lifo_take(&any, f));
            uint32_t pool = 0;
            if (pool_of) { /* a lowered palloc carries its pool in aux; prealloc inherits */
                pool = ev->op == HR_OP_ALLOC ? ev->aux : ev->op == HR_OP_REALLOC ? pool_of[ev->aux] : 0;
                pool_of[ev->id] = pool;
            }
            while (k < sp->n - 1 &&
                   !part_takes(&sp->part[k], ev, temp, fscoped, f, &st[k], pool, want[k]))
                k++;
            part_of[ev->id] = (uint8_t)k;
            pl->part_blocks[k]++;
            pl->part_bytes[k] += block_bytes(ev);
            ps->route[i] = (uint8_t)(kind << 6 | old << 3 | k);
        }
    }
    hr_evwin_close(&w);
    hr_hmem_free(mem, lifo_bytes);
    hr_hmem_free(part_of, t->n_ids ? t->n_ids : 1);
    if (pool_of)
        hr_hmem_free(pool_of, pool_bytes);
    return 0;
}

static void plan_release(plan_store_t *ps) {
    hr_hmem_free(ps->route, ps->n ? ps->n : 1);
    hr_hmem_free(ps->consumer, (ps->n ? ps->n : 1) * sizeof *ps->consumer);
    hr_hmem_free(ps, sizeof *ps);
}

void hr_compose_plan_free(const hr_route_plan_t *plan) {
    if (plan)
        plan_release((plan_store_t *)(void *)plan);
}

const hr_route_plan_t *hr_compose_plan_new(const hr_trace_t *t, const hr_compose_spec_t *sp,
                                           const char *text, hr_error_t *err) {
    plan_store_t *ps = hr_hmem_alloc(sizeof *ps, 0);
    size_t n = t->n_events ? t->n_events : 1;
    uint8_t *fs = hr_hmem_alloc(n, 0);
    int has_frames = 0;
    if (ps) {
        memset(ps, 0, sizeof *ps);
        ps->n = t->n_events; /* for plan_release's sizes */
        ps->route = hr_hmem_alloc(n, 0);
        ps->consumer = hr_hmem_alloc(n * sizeof *ps->consumer, 0);
    }
    if (!ps || !ps->route || !ps->consumer || !fs ||
        find_consumers(t, ps->consumer, fs, &has_frames) != 0 ||
        assign_parts(t, sp, ps, fs, has_frames) != 0) {
        hr_hmem_free(fs, n);
        if (ps)
            plan_release(ps);
        hr_error_set(err, "composition '%s': out of memory for the routing plan", text);
        return NULL;
    }
    hr_hmem_free(fs, n);
    ps->plan.route = ps->route;
    ps->plan.consumer = ps->consumer;
    ps->plan.n = t->n_events;
    return &ps->plan;
}
