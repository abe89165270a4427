/* Block lifetimes in frames (lifetime.h): one walk over the events with,
 * per id, the event that made its live block and the phase it was made in,
 * and per thread a stack of the blocks it made in the current frame (the
 * LIFO test). */
#include <stdlib.h>
#include <string.h>

#include "base/rawlog.h"
#include "trace/lifetime.h"

static const char *const k_names[HR_LIFE__COUNT] = {
    "same-frame-lifo", "same-frame", "next-frame", "phase", "long", "leaked",
};

const char *hr_life_name(unsigned cls) {
    return cls < HR_LIFE__COUNT ? k_names[cls] : "?";
}

/* The blocks one thread made in the current frame, in order; an entry whose
 * block is already freed is dropped when it comes to the top (lazily). */
typedef struct lstack {
    size_t *v;
    size_t  n, cap;
} lstack_t;

typedef struct walk {
    const hr_trace_t *t;
    hr_life_t *out;
    size_t    *made;   /* per id: index of the event that made its live block */
    uint32_t  *phase;  /* per id: the phase that block was made in */
    lstack_t  *stacks; /* per thread */
    uint32_t   frame, cur_phase;
} walk_t;

static int stack_push(lstack_t *s, size_t i) {
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        size_t *v = realloc(s->v, nc * sizeof *v);
        if (!v)
            return -1;
        s->v = v, s->cap = nc;
    }
    s->v[s->n++] = i;
    return 0;
}

/* Ends the life of the block `id` at an event of thread `th`. */
static void end_block(walk_t *w, uint32_t id, unsigned th) {
    size_t i = w->made[id];
    hr_life_t *l = &w->out[i];
    const hr_event_t *mk = &w->t->events[i];
    l->free_frame = w->frame;
    if (l->alloc_frame == w->frame) {
        /* Still in its frame: LIFO when, its freed successors dropped, it
         * is the top of its own thread's stack. */
        lstack_t *s = &w->stacks[mk->thread];
        l->cls = HR_LIFE_SAME; /* marks it freed for the lazy drop below */
        while (s->n && s->v[s->n - 1] != i && w->out[s->v[s->n - 1]].cls != HR_LIFE_LEAKED)
            s->n--;
        if (mk->thread == th && s->n && s->v[s->n - 1] == i) {
            l->cls = HR_LIFE_SAME_LIFO;
            s->n--;
        }
    } else if (l->alloc_frame + 1 == w->frame) {
        l->cls = HR_LIFE_NEXT;
    } else {
        l->cls = w->phase[id] == w->cur_phase ? HR_LIFE_PHASE : HR_LIFE_LONG;
    }
}

static int start_block(walk_t *w, uint32_t id, size_t i) {
    const hr_event_t *ev = &w->t->events[i];
    w->out[i].alloc_frame = w->frame;
    w->out[i].cls = HR_LIFE_LEAKED; /* until freed */
    w->made[id] = i;
    w->phase[id] = w->cur_phase;
    return stack_push(&w->stacks[ev->thread], i);
}

/* 1 for the mark a capture puts before each frame it found, naming the
 * present call (`mark frame-by:SYMBOL`, docs/TRACE_FORMAT.md): it says
 * where the frame came from and starts no phase. */
static int frame_source(const hr_trace_t *t, const hr_event_t *ev) {
    size_t n = sizeof HR_CAP_FRAME_BY - 1;
    return ev->aux < t->n_strings && strncmp(t->strings[ev->aux], HR_CAP_FRAME_BY, n) == 0;
}

/* A frame or a mark: a new frame empties every thread's stack (the blocks on
 * them can no longer be freed in their frame). */
static void boundary(walk_t *w, const hr_event_t *ev) {
    if (hr_event_is_main_frame(ev)) {
        if (w->frame == 0)
            w->cur_phase++; /* the load ends */
        w->frame++;
        for (uint32_t th = 0; th < w->t->n_threads; th++)
            w->stacks[th].n = 0;
    } else if (ev->op == HR_OP_MARK && !frame_source(w->t, ev)) {
        w->cur_phase++;
    }
}

static int walk_events(walk_t *w) {
    const hr_trace_t *t = w->t;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        w->out[i] = (hr_life_t){UINT32_MAX, UINT32_MAX, HR_LIFE__COUNT};
        switch (ev->op) {
        case HR_OP_FREE:
        case HR_OP_POOL_FREE:
            end_block(w, ev->id, ev->thread);
            break;
        case HR_OP_REALLOC:
        case HR_OP_POOL_REALLOC:
            end_block(w, ev->aux, ev->thread);
            if (start_block(w, ev->id, i) != 0)
                return -1;
            break;
        case HR_OP_ALLOC:
        case HR_OP_CALLOC:
        case HR_OP_POOL_ALLOC:
            if (start_block(w, ev->id, i) != 0)
                return -1;
            break;
        default:
            boundary(w, ev);
            break;
        }
    }
    return 0;
}

int hr_lifetime_compute(const hr_trace_t *t, hr_life_t *out, hr_error_t *err) {
    if (!t->events && t->n_events) {
        hr_error_set(err, "lifetimes: the trace's events are not in memory (packed form)");
        return -1;
    }
    size_t nid = t->n_ids ? t->n_ids : 1, nth = t->n_threads ? t->n_threads : 1;
    walk_t w = {.t = t, .out = out};
    w.made = malloc(nid * sizeof *w.made);
    w.phase = malloc(nid * sizeof *w.phase);
    w.stacks = calloc(nth, sizeof *w.stacks);
    int rc = -1;
    if (w.made && w.phase && w.stacks)
        rc = walk_events(&w);
    if (w.stacks)
        for (size_t th = 0; th < nth; th++)
            free(w.stacks[th].v);
    free(w.made);
    free(w.phase);
    free(w.stacks);
    if (rc != 0)
        hr_error_set(err, "lifetimes: out of memory");
    return rc;
}
