/* The untimed laps (engine.h): HR_MODE_VERIFY checks every pointer an
 * allocator returns (replay/verify.h), HR_MODE_COUNT sends every allocator
 * call through the counted wrappers (replay/counter.h). Both replay the same
 * ops as the timed laps (engine.c: same slot bookkeeping, touch policy,
 * realloc emulation and failure handling), one event at a time, with their
 * hooks around the calls; they are not timed, so they need none of the timed
 * loop's care. */
#include <string.h>

#include "base/hmem.h"
#include "replay/counter.h"
#include "replay/engine_ops.h"
#include "replay/engine_int.h"
#include "replay/verify.h"

typedef struct slow {
    run_t       *r;
    hr_verify_t *v;       /* verify mode, else NULL; the lap stops at its first violation */
    int          counted; /* count mode: calls through hr_counted_* */
    uint64_t     calls;   /* allocator calls made */
    uint64_t     ev;      /* current event index */
} slow_t;

static void *call_alloc(slow_t *s, size_t size, size_t align) {
    run_t *r = s->r;
    s->calls++;
    return s->counted ? hr_counted_alloc(r->alloc, r->inst, size, align, r->top)
                      : r->alloc(r->inst, size, align, r->top);
}

static void call_free(slow_t *s, void *p, size_t size) {
    run_t *r = s->r;
    s->calls++;
    if (s->counted)
        hr_counted_free(r->free, r->inst, p, size);
    else
        r->free(r->inst, p, size);
}

static void *call_calloc(slow_t *s, size_t n, size_t size) {
    run_t *r = s->r;
    if (!r->be->calloc) {
        void *p = call_alloc(s, n * size, 0);
        if (p && s->counted) { /* the zeroing is the allocator's work (counter.h) */
            s->calls++;
            hr_counted_zero(p, n * size);
        } else if (p) {
            memset(p, 0, n * size);
        }
        return p;
    }
    s->calls++;
    return s->counted ? hr_counted_calloc(r->be->calloc, r->inst, n, size, r->top)
                      : r->be->calloc(r->inst, n, size, r->top);
}

/* A backend without realloc: alloc + copy + free, as the timed laps do. */
static void *call_realloc(slow_t *s, void *old, uint64_t osz, uint64_t nsz) {
    run_t *r = s->r;
    if (r->realloc) {
        s->calls++;
        return s->counted ? hr_counted_realloc(r->realloc, r->inst, old, osz, nsz, r->top)
                          : r->realloc(r->inst, old, osz, nsz, r->top);
    }
    void *p = call_alloc(s, nsz, 0);
    if (p) {
        size_t n = osz < nsz ? osz : nsz;
        if (s->counted) { /* the copy is the allocator's work (counter.h) */
            s->calls++;
            hr_counted_copy(p, old, n);
        } else {
            memcpy(p, old, n);
        }
        call_free(s, old, osz);
    }
    return p;
}

static void note_null(run_t *r, uint64_t ev) {
    if (r->failed++ == 0)
        r->first_failed = ev;
}

static void slow_alloc(slow_t *s, const hr_event_t *ev, int is_calloc) {
    run_t *r = s->r;
    uint64_t bytes = hr_event_bytes(ev);
    void *p = is_calloc ? call_calloc(s, ev->aux, ev->size) : call_alloc(s, ev->size, ev->align);
    r->slots[ev->id].p = p;
    r->slots[ev->id].size = bytes;
    hr_run_touch_made(r, p, 0, bytes, is_calloc);
    if (!p) {
        note_null(r, s->ev);
        return;
    }
    if (s->v)
        hr_verify_alloc(s->v, s->ev, ev->id, p, bytes, is_calloc ? 0 : ev->align, is_calloc);
}

static void slow_realloc(slow_t *s, const hr_event_t *ev) {
    run_t *r = s->r;
    void *old = r->slots[ev->aux].p;
    uint64_t osz = old ? r->slots[ev->aux].size : 0;
    if (!old) {
        slow_alloc(s, ev, 0);
        return;
    }
    /* realloc(old, 0) may free old (hr_zero_realloc_freed): the checker
     * sees old freed first and any block returned as a new one of 0 bytes */
    const int to_zero = ev->size == 0;
    if (s->v && to_zero)
        hr_verify_before_free(s->v, s->ev, ev->aux, old, osz);
    else if (s->v)
        hr_verify_before_realloc(s->v, s->ev, ev->aux, old, osz);
    void *p = call_realloc(s, old, osz, ev->size);
    hr_run_touch_made(r, p, osz, ev->size, 0);
    if (!p) {
        /* the old block stays allocated: release it so nothing leaks */
        if (!hr_zero_realloc_freed(r, old, ev->size)) {
            if (s->v && !to_zero)
                hr_verify_before_free(s->v, s->ev, ev->aux, old, osz);
            call_free(s, old, osz);
            note_null(r, s->ev);
        }
    } else if (s->v && to_zero) {
        hr_verify_alloc(s->v, s->ev, ev->id, p, 0, 0, 0);
    } else if (s->v) {
        hr_verify_after_realloc(s->v, s->ev, ev->aux, ev->id, p, osz, ev->size);
    }
    r->slots[ev->aux].p = NULL;
    r->slots[ev->id].p = p;
    r->slots[ev->id].size = ev->size;
}

static void slow_free(slow_t *s, const hr_event_t *ev) {
    run_t *r = s->r;
    void *p = r->slots[ev->id].p;
    if (p) {
        if (s->v)
            hr_verify_before_free(s->v, s->ev, ev->id, p, r->slots[ev->id].size);
        call_free(s, p, r->slots[ev->id].size);
    }
    r->slots[ev->id].p = NULL;
}

/* Events [base, base + n) at evs, with the hooks of `s`. 0, or -1 when
 * the checker found a violation (the lap stops there). */
static int slow_window(slow_t *s, const hr_event_t *evs, size_t n, uint64_t base) {
    s->r->win = evs;
    s->r->win_base = base;
    for (size_t k = 0; k < n; k++) {
        if (s->v && hr_verify_result(s->v, NULL, NULL) != HR_VERIFY_OK)
            return -1;
        const hr_event_t *ev = &evs[k];
        s->ev = base + k;
        s->r->i = (size_t)(base + k);
        hr_run_access_before(s->r, ev); /* the access model, as the timed laps use it */
        switch (ev->op) {
        case HR_OP_ALLOC: slow_alloc(s, ev, 0); break;
        case HR_OP_CALLOC: slow_alloc(s, ev, 1); break;
        case HR_OP_REALLOC: slow_realloc(s, ev); break;
        case HR_OP_FREE: slow_free(s, ev); break;
        default: hr_run_dispatch(s->r, ev); break; /* heap and frame ops: no allocator call */
        }
        hr_run_access_after(s->r, ev);
    }
    return s->v && hr_verify_result(s->v, NULL, NULL) != HR_VERIFY_OK ? -1 : 0;
}

/* Replays the whole trace once with the hooks of `s`. */
static void slow_lap(slow_t *s) {
    hr_evwin_t w;
    if (hr_evwin_open(&w, s->r->t, NULL) != 0)
        return;
    while (hr_evwin_next(&w) && slow_window(s, w.ev, w.n, w.base) == 0)
        ;
    hr_evwin_close(&w);
}

int hr_verify_lap(run_t *r, hr_verify_t *v) {
    slow_t s = {r, v, 0, 0, 0};
    slow_lap(&s);
    if (hr_verify_result(v, NULL, NULL) != HR_VERIFY_OK) {
        /* The allocator broke its contract: what is still live is
         * abandoned, not handed back, so that a heap it has corrupted
         * cannot crash the process before the verdict is out. */
        for (uint32_t id = 0; id < r->t->n_ids; id++)
            r->slots[id].p = NULL;
        return -1;
    }
    /* what the trace leaves live is checked as it is freed */
    for (uint32_t id = 0; id < r->t->n_ids; id++)
        if (r->slots[id].p) {
            hr_verify_before_free(v, r->t->n_events, id, r->slots[id].p, r->slots[id].size);
            call_free(&s, r->slots[id].p, r->slots[id].size);
            r->slots[id].p = NULL;
        }
    return 0;
}

uint64_t hr_count_lap(run_t *r) {
    slow_t s = {r, NULL, 1, 0, 0};
    slow_lap(&s);
    return s.calls;
}
