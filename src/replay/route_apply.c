/* Routing a trace's blocks by a site plan (route.h, hr_route_apply): two
 * walks, as the compositions' oracle plan makes them (compose.c), but the
 * part of a block comes from its call site, not from its future. The first
 * walk finds each block's consumer (the free or realloc that ends it) and
 * whether a main-stream frame mark lies between; the second checks each
 * routed block against its route's promise and rewrites the blocks that
 * keep it as pool ops of the route's pool. */
#include "replay/route.h"

#include <stdlib.h>
#include <string.h>

#include "trace/format.h"
#include "trace/idtab.h"
#include "trace/lifetime.h"
#include "trace/stacks.h"

#define NO_CONSUMER UINT64_MAX

typedef struct walk {
    uint64_t *consumer; /* per event: the event ending the block it makes */
    uint8_t  *same;     /* per event: the block ends in the frame it was made in */
} walk_t;

static int find_consumers(const hr_trace_t *t, walk_t *w) {
    size_t n = t->n_events ? t->n_events : 1;
    hr_idtab_t maker, frame_of; /* per id, sized by the ids used */
    int bad = hr_idtab_init(&maker, t->n_ids, t->n_events);
    bad |= hr_idtab_init(&frame_of, t->n_ids, t->n_events);
    w->consumer = malloc(n * sizeof *w->consumer);
    w->same = calloc(n, 1);
    if (bad || !w->consumer || !w->same) {
        hr_idtab_free(&maker);
        hr_idtab_free(&frame_of);
        return -1;
    }
    uint64_t frames = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        w->consumer[i] = NO_CONSUMER;
        if (hr_event_is_main_frame(ev))
            frames++;
        uint32_t old = ev->op == HR_OP_FREE || ev->op == HR_OP_POOL_FREE ? ev->id
                       : ev->op == HR_OP_REALLOC || ev->op == HR_OP_POOL_REALLOC ? ev->aux
                                                                                 : UINT32_MAX;
        if (old != UINT32_MAX) {
            uint64_t m = hr_idtab_get(&maker, old);
            w->consumer[m] = i;
            w->same[m] = hr_idtab_get(&frame_of, old) == frames;
        }
        if (hr_op_creates_block(ev->op) &&
            (hr_idtab_set(&maker, ev->id, i) || hr_idtab_set(&frame_of, ev->id, frames)))
            bad = 1;
    }
    hr_idtab_free(&maker);
    hr_idtab_free(&frame_of);
    return bad ? -1 : 0;
}

/* The frame stack's LIFO test: consumer indices of the blocks it holds,
 * top last; a block is taken when it is freed before the top is. */
typedef struct lifo {
    uint64_t *c;
    size_t    n, cap;
} lifo_t;

static int lifo_take(lifo_t *s, uint64_t i, uint64_t f, uint32_t max_entries) {
    while (s->n && s->c[s->n - 1] <= i)
        s->n--;
    if (s->n >= max_entries || (s->n && f >= s->c[s->n - 1]))
        return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        uint64_t *c = realloc(s->c, cap * sizeof *c);
        if (!c)
            return -1;
        s->c = c;
        s->cap = cap;
    }
    s->c[s->n++] = f;
    return 1;
}

/* Whether rule r can serve the block event i makes; counts a violation
 * when not. -1 out of memory. */
static int keeps_promise(hr_route_rule_t *r, const hr_event_t *ev, const walk_t *w, size_t i,
                         const hr_trace_t *t, lifo_t *st, uint32_t entries) {
    uint64_t f = w->consumer[i];
    int ok = 1;
    if (f != NO_CONSUMER && t->events[f].op == HR_OP_REALLOC) {
        r->resized++, ok = 0;
    } else if (r->route == HR_ROUTE_FRAME_STACK) {
        if (f == NO_CONSUMER || !w->same[i]) {
            r->outlived++, ok = 0;
        } else {
            int took = lifo_take(st, i, f, entries);
            if (took < 0)
                return -1;
            if (!took)
                r->not_lifo++, ok = 0;
        }
    } else if (r->route == HR_ROUTE_POOL && hr_event_bytes(ev) != r->cell) {
        r->wrong_size++, ok = 0;
    }
    if (ok && ev->align > 16) /* a pool op has no alignment field */
        ok = 0;
    r->violations += !ok;
    return ok;
}

/* The block event i makes becomes a block of pool `name` (a string index). */
static void to_pool(hr_trace_t *t, size_t i, uint64_t f, uint32_t name) {
    hr_event_t *ev = &t->events[i];
    ev->size = hr_event_bytes(ev);
    ev->op = HR_OP_POOL_ALLOC;
    ev->aux = name;
    ev->align = 0;
    ev->flags = 0;
    if (f != NO_CONSUMER) {
        hr_event_t *fr = &t->events[f];
        fr->op = HR_OP_POOL_FREE;
        fr->aux = name;
        fr->size = 0;
        fr->flags = 0;
    }
}

int hr_route_apply(hr_trace_t *t, hr_route_plan_file_t *p, hr_error_t *err) {
    static const char *const pools[HR_ROUTE__COUNT] = {HR_ROUTE_POOL_STACK, HR_ROUTE_POOL_CELLS,
                                                       HR_ROUTE_POOL_LEVEL, NULL};
    int64_t name[HR_ROUTE__COUNT] = {-1, -1, -1, -1};
    int32_t *rule_of = NULL;
    walk_t w = {NULL, NULL};
    lifo_t st = {NULL, 0, 0};
    int rc = -1;
    if (hr_route_match_stacks(t, p, &rule_of) || find_consumers(t, &w))
        goto out;
    for (int r = 0; r < HR_ROUTE_GENERAL; r++)
        if ((name[r] = hr_trace_intern(t, pools[r])) < 0)
            goto out;
    uint32_t n_stacks = t->stacks ? t->stacks->n_stacks : 0;
    for (size_t i = 0; t->site && i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        uint32_t s = t->site[i];
        if ((ev->op != HR_OP_ALLOC && ev->op != HR_OP_CALLOC) || !s || s > n_stacks ||
            rule_of[s] < 0)
            continue;
        hr_route_rule_t *r = &p->rules[rule_of[s]];
        r->blocks++;
        if (r->route == HR_ROUTE_GENERAL)
            continue;
        int ok = keeps_promise(r, ev, &w, i, t, &st, p->stack_entries);
        if (ok < 0)
            goto out;
        if (ok) {
            r->routed++;
            to_pool(t, i, w.consumer[i], (uint32_t)name[r->route]);
        }
    }
    rc = hr_trace_validate(t, "routed trace", err);
    free(rule_of);
    free(w.consumer);
    free(w.same);
    free(st.c);
    return rc;
out:
    hr_error_set(err, "routing plan: out of memory");
    free(rule_of);
    free(w.consumer);
    free(w.same);
    free(st.c);
    return -1;
}
