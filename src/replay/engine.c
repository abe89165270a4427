/* The replay engine's op loops and instance lifetime (engine.h: the modes).
 * engine_measure.c keeps the measurement bookkeeping, engine_modes.c the
 * modes themselves. */
#include "replay/engine.h"

#include <string.h>

#include "base/hmem.h"
#include "base/sysinfo.h"
#include "replay/engine_access.h"
#include "replay/pollute.h"
#include "replay/engine_int.h"
#include "replay/engine_ops.h"

void hr_run_dispatch(run_t *r, const hr_event_t *ev) { dispatch(r, ev); }

void hr_run_touch_made(run_t *r, void *p, uint64_t from, uint64_t to, int zeroed) {
    touch_made(r, p, from, to, zeroed);
}

void hr_run_access_before(run_t *r, const hr_event_t *ev) {
    if (r->acc)
        hr_access_before(r, ev);
}

void hr_run_access_after(run_t *r, const hr_event_t *ev) {
    if (r->acc)
        hr_access_after(r, ev);
}

/* ---- instance lifetime --------------------------------------------------- */

static size_t slot_bytes(const hr_trace_t *t) {
    return (size_t)(t->n_ids ? t->n_ids : 1) * sizeof(hr_slot_t);
}

/* The slot table and the heap stack of the last closed instance, kept for
 * the next lap: a lap then starts with the table warm in cache and TLB, as a
 * program's own arrays are from one frame to the next, instead of on fresh
 * pages. And no lap pays for a munmap before it: a munmap flushes TLB
 * entries, and one mmap + munmap of a page between the laps of the
 * hand-written replay (tests/tools/fresh_replay.c) made its warm laps 3 %
 * slower on particles (mimalloc, 6 interleaved runs; docs/METRICS.md,
 * "Harness cost"). Every pointer in a kept slot table is NULL. */
typedef struct spare {
    void  *p;
    size_t bytes;
} spare_t;
static spare_t spare_slots, spare_hs;

static void *spare_take(spare_t *s, size_t bytes) {
    if (s->p && s->bytes == bytes) {
        void *p = s->p;
        s->p = NULL;
        return p;
    }
    return hr_hmem_alloc(bytes, HR_HMEM_POPULATE);
}

static void spare_keep(spare_t *s, void *p, size_t bytes) {
    if (s->p)
        hr_hmem_free(s->p, s->bytes);
    s->p = p;
    s->bytes = bytes;
}

void *hr_run_create(const hr_trace_t *t, const hr_run_alloc_t *a,
                    const hr_replay_options_t *opt, hr_error_t *err) {
    hr_backend_config_t cfg = hr_backend_config_default();
    const hr_backend_t *be = a->spec->be;
    cfg.arg = a->spec->arg;
    if (be->caps & HR_CAP_COMPOSITE) { /* the parts, and the plan made from the trace */
        if (!a->plan) {
            hr_error_set(err, "composition '%s': replayed without its routing plan", a->spec->text);
            return NULL;
        }
        cfg.parts = &a->spec->parts;
        cfg.route_plan = a->plan;
    }
    cfg.config_path = opt->heap_config;
    cfg.max_align = t->max_align; /* from hr_trace_validate: laps create instances often */
    cfg.heap_names = (const char *const *)t->strings;
    cfg.n_heap_names = t->n_strings;
    return be->create(&cfg, err);
}

int hr_run_open(run_t *r, const hr_trace_t *t, const hr_run_alloc_t *a,
                const hr_replay_options_t *opt, hr_error_t *err) {
    memset(r, 0, sizeof *r);
    r->t = t;
    hr_run_bind(r, a->spec->be);
    r->touch = opt->touch;
    r->touch_cap = opt->touch_cap;
    r->win = t->events; /* a packed trace's loops set each window */
    r->win_base = 0;
    r->access = opt->access;
    if (hr_access_on(&r->access)) { /* a fresh ring and seed: every lap makes the same picks */
        if (!(r->acc = hr_hmem_alloc(sizeof *r->acc, HR_HMEM_POPULATE))) {
            hr_error_set(err, "out of memory for the access model");
            return -1;
        }
        r->acc->rng = HR_ACCESS_SEED;
    }
    /* Harness memory, faulted in now: its page faults are the harness's, not
     * the allocator's, and must not land in a timed loop. */
    r->slots = spare_take(&spare_slots, slot_bytes(t));
    r->hs = spare_take(&spare_hs, sizeof *r->hs);
    if (r->hs)
        r->hs->n = 0; /* a kept stack starts empty, as a fresh one */
    if (!r->slots || !r->hs) {
        hr_error_set(err, "out of memory for %u slots", t->n_ids);
        return -1;
    }
    r->inst = hr_run_create(t, a, opt, err);
    return r->inst ? 0 : -1;
}

void hr_run_bind(run_t *r, const hr_backend_t *be) {
    r->be = be;
    r->alloc = be->alloc;
    r->free = be->free;
    r->realloc = be->realloc;
    r->frame = be->frame;
    r->heap_push = be->heap_push;
    r->heap_pop = be->heap_pop;
    r->top = -1;
}

void hr_run_use_timed(run_t *r) {
    if (r->be->alloc_timed)
        r->alloc = r->be->alloc_timed;
    if (r->be->free_timed)
        r->free = r->be->free_timed;
    if (r->be->realloc_timed)
        r->realloc = r->be->realloc_timed;
}

void hr_run_close(run_t *r, int destroy) {
    if (r->inst) {
        for (uint32_t id = 0; id < r->t->n_ids; id++)
            if (r->slots[id].p) {
                r->free(r->inst, r->slots[id].p, r->slots[id].size);
                r->slots[id].p = NULL;
            }
        if (destroy)
            r->be->destroy(r->inst);
    }
    r->inst = NULL;
    if (r->slots)
        spare_keep(&spare_slots, r->slots, slot_bytes(r->t));
    if (r->hs)
        spare_keep(&spare_hs, r->hs, sizeof *r->hs);
    if (r->acc)
        hr_hmem_free(r->acc, sizeof *r->acc);
    r->slots = NULL;
    r->hs = NULL;
    r->acc = NULL;
}

/* ---- the uninstrumented lap ------------------------------------------------ */

/* A local copy whose address does not escape lets the compiler keep the hot
 * fields (slot arrays, function pointers, instance) in registers; the touch
 * policy, the libc switch and the access model's on/off are constants in
 * each instantiation, so their tests fold away. */
static inline __attribute__((always_inline)) void fast_loop_t(run_t *r, const hr_event_t *ev,
                                                              const hr_event_t *end,
                                                              hr_touch_t touch, int libc,
                                                              int access) {
    run_t lr = *r;
    lr.touch = touch;
    lr.libc = libc;
    for (; ev < end; ev++) {
        if (access)
            hr_access_before(&lr, ev);
        dispatch(&lr, ev);
        if (access)
            hr_access_after(&lr, ev);
    }
    lr.libc = r->libc;
    *r = lr;
}

/* The loops with the access model on, apart from hr_run_range so that its
 * loops without it keep their code (and its layout) as before the model
 * existed; the model's uses dominate them, so the touch policy is tested at
 * run time here. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-jump-tables")))
#endif
static __attribute__((noinline)) void run_range_access(run_t *r, const hr_event_t *from,
                                                       const hr_event_t *to, int libc) {
    if (libc)
        fast_loop_t(r, from, to, r->touch, 1, 1);
    else
        fast_loop_t(r, from, to, r->touch, 0, 1);
}

/* ---- the lean loop: the default replay on a plain system allocator ------- */

/* Every op other than alloc and free, out of the lean loop's body so that the
 * body keeps only the few values a hand-written replay keeps (r->libc is set
 * around the loop: the ops call the C library as the loop does). */
static __attribute__((noinline)) void lean_other(run_t *r, const hr_event_t *ev) {
    dispatch(r, ev);
}

/* op_REALLOC and op_CALLOC of engine_ops.h with libc set, no touch cap and
 * the pending `touched` record in *pend: inline in the lean loop as in the
 * hand-written replay, where a call to lean_other per op (dispatch on a
 * run_t in memory, touch policy tested at run time) cost strings.hrt, 57 %
 * reallocs, 3-5 % beside it (docs/METRICS.md, "Harness cost"). A failed
 * realloc frees the old block, as op_REALLOC does. */
static inline __attribute__((always_inline)) void lean_realloc(run_t *r, hr_slot_t *s,
                                                               const hr_event_t *ev,
                                                               hr_touch_t touch, uint64_t *pend,
                                                               uint64_t *empty) {
    void *old = s[ev->aux].p, *p;
    const uint64_t size = ev->size, osz = old ? s[ev->aux].size : 0;
    uint64_t used = size;
    if (__builtin_expect(old != NULL, 1)) {
        p = realloc(old, size);
    } else {
        ++*empty;
        p = malloc(size);
    }
    if (touch == HR_TOUCH_RECORDED && __builtin_expect(*pend != 0, 0)) {
        used = *pend - 1 < size ? *pend - 1 : size;
        *pend = 0;
    }
    if (__builtin_expect(p == NULL, 0)) {
        if (!hr_zero_realloc_freed(r, old, size)) {
            if (old)
                free(old);
            note_fail(r, ev);
        }
    } else if (touch != HR_TOUCH_NONE) {
        touch_pages(p, osz, used, 1);
    }
    s[ev->aux].p = NULL;
    s[ev->id].p = p;
    s[ev->id].size = size;
}

/* A calloc'd block is zeroed: only a `touched` record writes it (zeros). */
static inline __attribute__((always_inline)) void lean_calloc(run_t *r, hr_slot_t *s,
                                                              const hr_event_t *ev,
                                                              hr_touch_t touch, uint64_t *pend) {
    const uint64_t bytes = (uint64_t)ev->aux * ev->size;
    void *p = calloc(ev->aux, ev->size);
    s[ev->id].p = p;
    s[ev->id].size = bytes;
    if (__builtin_expect(p == NULL, 0))
        note_fail(r, ev);
    if (touch == HR_TOUCH_RECORDED && __builtin_expect(*pend != 0, 0)) {
        uint64_t used = *pend - 1 < bytes ? *pend - 1 : bytes;
        *pend = 0;
        if (p)
            touch_pages(p, 0, used, 0);
    }
}

/* The loop a hand-written replay runs (tests/tools/fresh_replay.c): alloc,
 * free, realloc and calloc inline, the slot table and the event pointer in registers and
 * nothing else live across the calls. fast_loop_t's copy of run_t kept
 * ~20 values live across each malloc and free; GCC spilled them, moved the
 * malloc call out of line and reloaded the touch cap from the stack on every
 * alloc, which on the 3-8 ns/op traces cost 5-15 % beside the hand-written
 * loop (docs/METRICS.md, "Harness cost"). Same semantics as fast_loop_t
 * with libc set, no access model and no touch cap (the other ops, rare in
 * a trace, go through lean_other): a failed alloc is noted,
 * an empty free counted, a block touched one byte a page (touch `first`),
 * or as far as its `touched` record says (`recorded`: the pending record is
 * a local here, in r->pend around the other ops), or not at all (`none`).
 * `touch`: a constant in each instantiation. */
static inline __attribute__((always_inline)) void lean_loop_t(run_t *r, const hr_event_t *ev,
                                                              const hr_event_t *end,
                                                              hr_touch_t touch) {
    hr_slot_t *const s = r->slots;
    uint64_t empty = 0, pend = r->pend;
    r->libc = 1;
    for (; ev < end; ev++) {
        const uint8_t op = ev->op;
        if (op == HR_OP_FREE) {
            void *p = s[ev->id].p;
            if (__builtin_expect(p != NULL, 1))
                free(p);
            else
                empty++;
            s[ev->id].p = NULL;
        } else if (op == HR_OP_ALLOC) {
            const uint64_t size = ev->size;
            uint64_t used = size;
            void *p = __builtin_expect(ev->align > 16, 0) ? hr_sys_alloc_inline(size, ev->align)
                                                          : malloc(size);
            s[ev->id].p = p;
            s[ev->id].size = size;
            if (touch == HR_TOUCH_RECORDED && __builtin_expect(pend != 0, 0)) {
                used = pend - 1 < size ? pend - 1 : size;
                pend = 0;
            }
            if (__builtin_expect(p == NULL, 0))
                note_fail(r, ev);
            else if (touch != HR_TOUCH_NONE)
                touch_pages(p, 0, used, 1);
        } else if (op == HR_OP_REALLOC) {
            lean_realloc(r, s, ev, touch, &pend, &empty);
        } else if (op == HR_OP_CALLOC) {
            lean_calloc(r, s, ev, touch, &pend);
        } else if (touch == HR_TOUCH_RECORDED && op == HR_OP_TOUCHED) {
            pend = ev->size < UINT64_MAX ? ev->size + 1 : ev->size; /* as op_TOUCHED */
        } else {
            r->pend = pend;
            lean_other(r, ev);
            pend = r->pend;
        }
    }
    r->pend = pend;
    r->libc = 0;
    r->empty_frees += empty;
}

/* Each lean loop starts on a 64-byte boundary: where a loop falls against
 * cache lines and fetch blocks moves a 5-10 ns/op allocator's figure by up
 * to 10 %, and without it a change anywhere earlier in the binary moved
 * the loops (docs/METRICS.md, "Code alignment"). */
static __attribute__((noinline, aligned(64))) void
lean_range_first(run_t *r, const hr_event_t *from, const hr_event_t *to) {
    lean_loop_t(r, from, to, HR_TOUCH_FIRST);
}

static __attribute__((noinline, aligned(64))) void
lean_range_recorded(run_t *r, const hr_event_t *from, const hr_event_t *to) {
    lean_loop_t(r, from, to, HR_TOUCH_RECORDED);
}

static __attribute__((noinline, aligned(64))) void
lean_range_none(run_t *r, const hr_event_t *from, const hr_event_t *to) {
    lean_loop_t(r, from, to, HR_TOUCH_NONE);
}

/* The run calls the C library directly in its loops: a system backend that
 * frees plainly, called through its own functions (the counting and
 * verifying laps wrap them and go through engine_slow.c). */
static int run_libc(const run_t *r) {
    return r->alloc == r->be->alloc && r->free == r->be->free && hr_sys_is_plain(r->be);
}

/* The lean loop serves the run: no access model, no touch cap (what
 * `all` writes is a memset, not worth a loop of its own). */
static int lean_ok(const run_t *r) {
    return !r->acc && !r->touch_cap && r->touch != HR_TOUCH_ALL;
}

/* GCC: compare-and-branch chains instead of a jump table (see dispatch).
 * The libc loops serve system backends that free plainly, only while the run
 * calls the backend's own functions (the counting and verifying laps wrap
 * them and go through engine_slow.c). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-jump-tables")))
#endif
void hr_run_range(run_t *r, const hr_event_t *from, const hr_event_t *to) {
    int libc = run_libc(r);
    if (__builtin_expect(hr_pollute_on(), 0)) { /* --pollute: its own loop (replay/pollute.h) */
        hr_pollute_range(r, from, to, libc);
        return;
    }
    if (__builtin_expect(r->acc != NULL, 0)) {
        run_range_access(r, from, to, libc);
        return;
    }
    if (libc && lean_ok(r)) {
        if (r->touch == HR_TOUCH_NONE)
            lean_range_none(r, from, to);
        else if (r->touch == HR_TOUCH_FIRST ||
                 r->t->op_counts[HR_OP_TOUCHED] == 0) /* recorded without a record */
            lean_range_first(r, from, to);
        else
            lean_range_recorded(r, from, to);
        return;
    }
    if (libc) {
        switch (r->touch) {
        case HR_TOUCH_NONE: fast_loop_t(r, from, to, HR_TOUCH_NONE, 1, 0); break;
        case HR_TOUCH_FIRST: fast_loop_t(r, from, to, HR_TOUCH_FIRST, 1, 0); break;
        case HR_TOUCH_ALL: fast_loop_t(r, from, to, HR_TOUCH_ALL, 1, 0); break;
        case HR_TOUCH_RECORDED: fast_loop_t(r, from, to, HR_TOUCH_RECORDED, 1, 0); break;
        }
        return;
    }
    switch (r->touch) {
    case HR_TOUCH_NONE: fast_loop_t(r, from, to, HR_TOUCH_NONE, 0, 0); break;
    case HR_TOUCH_FIRST: fast_loop_t(r, from, to, HR_TOUCH_FIRST, 0, 0); break;
    case HR_TOUCH_ALL: fast_loop_t(r, from, to, HR_TOUCH_ALL, 0, 0); break;
    case HR_TOUCH_RECORDED: fast_loop_t(r, from, to, HR_TOUCH_RECORDED, 0, 0); break;
    }
}

/* ---- the lean lap's events: memory ops only ------------------------------ */

/* Frame marks, marks and heap pushes and pops do nothing in the lean loop of
 * a backend without frame or heap hooks (the C library's allocators): the
 * loop calls no hook and passes no heap to malloc. Nor does a `touched`
 * record unless the touch policy is `recorded`. */
static inline int lean_drops(uint8_t op, hr_touch_t touch) {
    return op == HR_OP_FRAME || op == HR_OP_MARK || op == HR_OP_HEAP_PUSH ||
           op == HR_OP_HEAP_POP || (op == HR_OP_TOUCHED && touch != HR_TOUCH_RECORDED);
}

/* Whether a timed lap of r may run the memory ops alone: the lean loop
 * serves it and nothing the dropped events would do is seen. Walking them
 * cost a branch misprediction each: frame_loop (3.7 % of its events are
 * frames, marks and heap ops) and game_session (6.4 %) ran 2-4 % slower
 * than the hand-written replay, which has only the memory ops
 * (docs/METRICS.md, "Harness cost"). */
static int lean_compacts(const run_t *r) {
    return r->lean && run_libc(r) && lean_ok(r) && !r->frame && !r->heap_push && !r->heap_pop;
}

/* Copies the events of src[0..n) that the lean loop acts on to dst (which
 * may be src: in place); returns how many. */
static size_t lean_compact(hr_event_t *dst, const hr_event_t *src, size_t n, hr_touch_t touch) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!lean_drops(src[i].op, touch))
            dst[k++] = src[i];
    return k;
}

/* A decoded trace's memory ops, copied once per time process (the first
 * lap that may use them) into harness memory, at most HR_LEAN_MAX_BYTES: a
 * larger trace's laps walk every event (its copy would weigh on the
 * process's memory limit, memlimit.h). The copy also does the pre-walk's
 * job: the lap's events are in cache, as the copy just wrote them. */
#define HR_LEAN_MAX_BYTES ((size_t)64 << 20)

static const hr_event_t *lean_events(run_t *r, size_t *n) {
    hr_lean_t *l = r->lean;
    const hr_trace_t *t = r->t;
    if (!l->ev && !l->tried) {
        l->tried = 1;
        size_t mem = 0;
        for (size_t i = 0; i < t->n_events; i++)
            mem += !lean_drops(t->events[i].op, r->touch);
        size_t bytes = (mem ? mem : 1) * sizeof(hr_event_t);
        if (mem == t->n_events || bytes > HR_LEAN_MAX_BYTES ||
            !(l->ev = hr_hmem_alloc(bytes, HR_HMEM_POPULATE)))
            return NULL; /* nothing to drop, or too large: every event */
        l->bytes = bytes;
        l->n = lean_compact(l->ev, t->events, t->n_events, r->touch);
    }
    *n = l->n;
    return l->ev;
}

void hr_lean_free(hr_lean_t *l) {
    if (l->ev)
        hr_hmem_free(l->ev, l->bytes);
    memset(l, 0, sizeof *l);
}

/* A packed trace's windows are each timed apart: the clocks are read
 * 2 * n_events / HR_EVWIN times (a wall + thread-CPU pair costs ~0.4 us
 * here, about half of it inside a stretch: ~0.05 ns/op over 4 k events).
 * 4 k, not more: a window's decoding writes it through the cache between two
 * stretches, and a 64 k window (1.5 MiB) evicted the allocator's own data
 * each time, where a 4 k one (96 KiB) stays beside it (results/evwin-size-vm.md,
 * docs/METRICS.md "Harness cost"). Where the lean loop runs
 * the memory ops alone (lean_compacts), a decoded trace's lap walks their
 * copy and a packed window is compacted in place after its decoding, both
 * untimed; an op's index (note_fail) then counts the memory ops, which the
 * time process reports nowhere (the measure process reports failures). */
void hr_run_lap_timed(run_t *r, uint64_t *wall, uint64_t *cpu) {
    hr_evwin_t w;
    uint64_t ws = 0, cs = 0;
    int compact = lean_compacts(r);
    if (!r->t->packed) { /* one stretch, no window to decode */
        const hr_event_t *ev = r->t->events, *lev;
        size_t n = r->t->n_events, ln;
        if (compact && (lev = lean_events(r, &ln)))
            ev = r->win = lev, n = ln;
        uint64_t w0 = hr_now_ns(), c0 = hr_thread_cpu_ns();
        hr_run_range(r, ev, ev + n);
        uint64_t w1 = hr_now_ns(), c1 = hr_thread_cpu_ns();
        *wall = w1 - w0;
        *cpu = c1 - c0;
        return;
    }
    if (hr_evwin_open(&w, r->t, NULL) == 0) {
        uint64_t kept = 0;
        while (hr_evwin_next(&w)) {
            size_t n = w.n;
            if (compact) {
                n = lean_compact(w.buf, w.ev, w.n, r->touch);
                w.base = kept;
                kept += n;
            }
            r->win = w.ev;
            r->win_base = w.base;
            uint64_t w0 = hr_now_ns(), c0 = hr_thread_cpu_ns();
            hr_run_range(r, w.ev, w.ev + n);
            uint64_t w1 = hr_now_ns(), c1 = hr_thread_cpu_ns();
            ws += w1 - w0;
            cs += c1 - c0;
        }
        hr_evwin_close(&w);
    }
    *wall = ws;
    *cpu = cs;
}

/* ---- the instrumented lap --------------------------------------------------- */

/* The instrumented ops of one window (the whole trace when it is decoded). */
static void measure_window(run_t *r, measure_t *m, const hr_extstats_t *ext,
                           const hr_replay_options_t *opt, const hr_evwin_t *w, uint64_t ovh) {
    r->win = w->ev;
    r->win_base = w->base;
    for (size_t k = 0; k < w->n; k++) {
        const hr_event_t *ev = &w->ev[k];
        r->i = (size_t)w->base + k;
        if (r->acc) /* the access model: in the lap's time, not in the op's latency */
            hr_access_before(r, ev);
        int64_t dl = hr_measure_live_delta(r, ev);
        hr_measure_slop(m, r, ev, -1);
        uint64_t c0 = hr_cycles();
        dispatch(r, ev);
        uint64_t c1 = hr_cycles();
        uint64_t d = c1 - c0 > ovh ? c1 - c0 - ovh : 0;
        hr_measure_op(m, ev, d);
        hr_measure_slop(m, r, ev, +1);
        m->live += (uint64_t)dl;
        if (r->acc)
            hr_access_after(r, ev);
        hr_measure_track(m, r, ext, opt, c1);
    }
}

void hr_measure_pass(run_t *r, measure_t *m, const hr_extstats_t *ext,
                     const hr_replay_options_t *opt) {
    const uint64_t ovh = hr_timer_overhead();
    hr_evwin_t w;
    hr_measure_begin(m, r, ext, opt);
    if (hr_evwin_open(&w, r->t, NULL) == 0) {
        while (hr_evwin_next(&w))
            measure_window(r, m, ext, opt, &w, ovh);
        hr_evwin_close(&w);
    }
    hr_measure_end(m, r, ext, opt);
}
