/* One trace's threads apart (threadsel.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/threadsel.h"

int hr_threadsel_parse(const char *s, hr_threadsel_t *sel, hr_error_t *err) {
    memset(sel, 0, sizeof *sel);
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || *p == '-' || *p == '+' || errno || v > 65535 || (*end && *end != ',')) {
            hr_error_set(err, "thread '%.*s' in '%s': expected a thread index 0..65535",
                         (int)strcspn(p, ","), p, s);
            return -1;
        }
        if (sel->n == HR_THREADSEL_MAX) {
            hr_error_set(err, "'%s': at most %d threads", s, HR_THREADSEL_MAX);
            return -1;
        }
        sel->ids[sel->n++] = (uint32_t)v;
        if (!*end)
            return 0;
        p = end + 1;
    }
}

/* Owner per id: the recorded thread + 1 that made the id's live block's
 * lineage, 0 = none. What happens to one event; 1 kept (possibly rewritten). */
static int keep_event(hr_event_t *ev, uint32_t *owner, const uint8_t *chosen) {
    int mine = chosen[ev->thread];
    switch (ev->op) {
    case HR_OP_ALLOC:
    case HR_OP_CALLOC:
    case HR_OP_POOL_ALLOC:
        owner[ev->id] = ev->thread + 1u;
        return mine;
    case HR_OP_FREE:
    case HR_OP_POOL_FREE: {
        int keep = owner[ev->id] && chosen[owner[ev->id] - 1];
        owner[ev->id] = 0;
        return keep;
    }
    case HR_OP_REALLOC:
    case HR_OP_POOL_REALLOC: {
        uint32_t o = owner[ev->aux];
        owner[ev->aux] = 0;
        if (o && chosen[o - 1]) { /* a chosen thread's block, whoever reallocs it */
            owner[ev->id] = o;
            return 1;
        }
        if (!mine) /* another thread's block, by another thread */
            return 0;
        /* a chosen thread reallocs another's block: its new block is made */
        owner[ev->id] = ev->thread + 1u;
        ev->op = HR_OP_ALLOC; /* a prealloc's pool was the old block's: not known here */
        ev->aux = 0;
        ev->align = 0;
        ev->flags &= (uint8_t)~HR_EVF_HAS_OPT;
        return 1;
    }
    default: /* frames, marks, heap ops, hints: the thread's own */
        return mine;
    }
}

int64_t hr_threadsel_apply(hr_trace_t *t, const hr_threadsel_t *sel, const char *name,
                           hr_error_t *err) {
    if (!t->events && t->n_events) {
        hr_error_set(err, "%s: --thread needs the trace's events decoded", name);
        return -1;
    }
    uint8_t *chosen = calloc(65536, 1);
    uint32_t *owner = calloc(t->n_ids ? t->n_ids : 1, sizeof *owner);
    if (!chosen || !owner) {
        free(chosen), free(owner);
        hr_error_set(err, "%s: --thread: out of memory", name);
        return -1;
    }
    for (uint32_t k = 0; k < sel->n; k++) {
        if (sel->ids[k] >= t->n_threads) {
            hr_error_set(err, "%s: no thread %u: the trace has threads 0..%u", name, sel->ids[k],
                         t->n_threads ? t->n_threads - 1 : 0);
            free(chosen), free(owner);
            return -1;
        }
        chosen[sel->ids[k]] = 1;
    }
    size_t w = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        hr_event_t ev = t->events[i];
        if (!keep_event(&ev, owner, chosen))
            continue;
        if (t->ts)
            t->ts[w] = t->ts[i];
        if (t->site) /* the call sites stay in step with their events */
            t->site[w] = t->site[i];
        t->events[w++] = ev;
    }
    free(chosen), free(owner);
    t->n_events = w;
    if (w == 0) {
        hr_error_set(err, "%s: the chosen threads have no event to replay", name);
        return -1;
    }
    if (hr_trace_validate(t, name, err) != 0)
        return -1;
    return (int64_t)w;
}

/* Ends the block `id` at an event of thread th: its maker's and th's counts. */
static void ended(hr_thread_stat_t *st, const uint16_t *maker, uint32_t id, unsigned th) {
    st[th].frees++;
    if (maker[id] != th) {
        st[th].xfrees++;
        st[maker[id]].xfreed++;
    }
}

int hr_thread_stats(const hr_trace_t *t, hr_thread_stat_t **out) {
    *out = NULL;
    if (!t->events && t->n_events)
        return -1;
    hr_thread_stat_t *st = calloc(t->n_threads ? t->n_threads : 1, sizeof *st);
    uint16_t *maker = calloc(t->n_ids ? t->n_ids : 1, sizeof *maker);
    if (!st || !maker) {
        free(st), free(maker);
        return -1;
    }
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        hr_thread_stat_t *me = &st[ev->thread];
        me->events++;
        if (ev->op == HR_OP_FREE || ev->op == HR_OP_POOL_FREE)
            ended(st, maker, ev->id, ev->thread);
        else if (ev->op == HR_OP_REALLOC || ev->op == HR_OP_POOL_REALLOC)
            ended(st, maker, ev->aux, ev->thread);
        if (hr_op_creates_block(ev->op)) {
            me->blocks++;
            maker[ev->id] = ev->thread;
        }
        if (ev->op == HR_OP_FRAME && !(ev->flags & HR_EVF_HAS_OPT))
            me->frames++;
    }
    free(maker);
    *out = st;
    return 0;
}
