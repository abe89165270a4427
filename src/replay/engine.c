/* The replay engine (see engine.h for the two-pass contract). */
#include "replay/engine.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "replay/latency.h"
#include "base/sysinfo.h"
#include "replay/engine_int.h"

/* Touch policy: "first" writes one byte per 4 KiB page (so the pages count in
 * RSS, as a program that initialises its objects would), "all" writes every
 * byte. The cost is part of the op loop (it is what a program does). */
#define HR_ALWAYS_INLINE __attribute__((always_inline))

static inline void touch(const run_t *r, void *p, uint64_t from, uint64_t to) {
    if (r->touch == HR_TOUCH_NONE || to <= from)
        return;
    if (r->touch == HR_TOUCH_ALL) {
        memset((char *)p + from, 0xA5, to - from);
        return;
    }
    for (uint64_t off = from; off < to; off += 4096)
        ((volatile char *)p)[off] = 1;
}

/* The failing event's index comes from its address, so the throughput loop
 * need not keep r->i up to date. */
static inline void note_fail(run_t *r, const hr_event_t *ev) {
    if (r->failed++ == 0)
        r->first_failed = (uint64_t)(ev - r->t->events);
}

static inline HR_ALWAYS_INLINE void op_ALLOC(run_t *r, const hr_event_t *ev) {
    void *p = r->alloc(r->inst, ev->size, ev->align, r->top);
    r->slots[ev->id].p = p;
    r->slots[ev->id].size = ev->size;
    if (__builtin_expect(p == NULL, 0))
        note_fail(r, ev);
    else
        touch(r, p, 0, ev->size);
}

static inline HR_ALWAYS_INLINE void op_CALLOC(run_t *r, const hr_event_t *ev) {
    uint64_t bytes = (uint64_t)ev->aux * ev->size;
    void *p;
    if (r->be->calloc) {
        p = r->be->calloc(r->inst, ev->aux, ev->size, r->top);
    } else {
        p = r->alloc(r->inst, bytes, 0, r->top);
        if (p)
            memset(p, 0, bytes);
    }
    r->slots[ev->id].p = p;
    r->slots[ev->id].size = bytes;
    if (__builtin_expect(p == NULL, 0))
        note_fail(r, ev);
}

static inline HR_ALWAYS_INLINE void *realloc_emulated(run_t *r, void *old, uint64_t osz, uint64_t nsz) {
    void *p = r->alloc(r->inst, nsz, 0, r->top);
    if (p && old) {
        memcpy(p, old, osz < nsz ? osz : nsz);
        r->free(r->inst, old, osz);
    }
    return p;
}

static inline HR_ALWAYS_INLINE void op_REALLOC(run_t *r, const hr_event_t *ev) {
    void *old = r->slots[ev->aux].p;
    uint64_t osz = old ? r->slots[ev->aux].size : 0;
    void *p;
    if (!old)
        p = r->alloc(r->inst, ev->size, 0, r->top);
    else if (r->be->realloc)
        p = r->be->realloc(r->inst, old, osz, ev->size, r->top);
    else
        p = realloc_emulated(r, old, osz, ev->size);
    if (__builtin_expect(p == NULL, 0)) {
        /* The old block stays allocated: release it so nothing leaks. */
        if (old)
            r->free(r->inst, old, osz);
        note_fail(r, ev);
    } else {
        touch(r, p, osz, ev->size);
    }
    r->slots[ev->aux].p = NULL;
    r->slots[ev->id].p = p;
    r->slots[ev->id].size = ev->size;
}

static inline HR_ALWAYS_INLINE void op_FREE(run_t *r, const hr_event_t *ev) {
    void *p = r->slots[ev->id].p;
    if (__builtin_expect(p != NULL, 1))
        r->free(r->inst, p, r->slots[ev->id].size);
    r->slots[ev->id].p = NULL;
}

/* r->top caches the top of the heap stack for the alloc path. */
static inline void set_top(run_t *r) {
    r->top = r->hs->n > 0 ? r->hs->heaps[r->hs->n - 1] : -1;
}

static inline HR_ALWAYS_INLINE void op_HEAP_PUSH(run_t *r, const hr_event_t *ev) {
    if (r->hs->n < HR_HEAP_DEPTH)
        r->hs->heaps[r->hs->n++] = (int32_t)ev->aux;
    set_top(r);
    if (r->heap_push)
        r->heap_push(r->inst, ev->aux, r->t->strings[ev->aux]);
}

static inline HR_ALWAYS_INLINE void op_HEAP_POP(run_t *r, const hr_event_t *ev) {
    if (r->hs->n > 0)
        r->hs->n--;
    set_top(r);
    if (r->heap_pop)
        r->heap_pop(r->inst, ev->aux, r->t->strings[ev->aux]);
}

static inline HR_ALWAYS_INLINE void op_FRAME(run_t *r, const hr_event_t *ev) {
    if (r->frame)
        r->frame(r->inst, ev->size);
}

static inline HR_ALWAYS_INLINE void op_MARK(run_t *r, const hr_event_t *ev) { (void)r, (void)ev; }

/* The replay switch, generated from the opcode table. free and alloc, nearly
 * every event of a trace, are tested first, and the throughput loop is built
 * without jump tables (fast_loop): measured on the bump backend
 * (bench_overhead), one indirect jump per event, mispredicted around the rare
 * frame and heap ops, cost 0.2-0.8 ns per event, the whole harness budget. */
#define HR_REPLAY_CASE_(e, c, t, f1, f2, f3, o, cls, key) \
    case HR_OP_##e:                             \
        op_##e(r, ev);                          \
        break;
static inline HR_ALWAYS_INLINE void dispatch(run_t *r, const hr_event_t *ev) {
    if (ev->op == HR_OP_FREE) {
        op_FREE(r, ev);
        return;
    }
    if (ev->op == HR_OP_ALLOC) {
        op_ALLOC(r, ev);
        return;
    }
    switch (ev->op) {
        HR_OP_LIST(HR_REPLAY_CASE_)
    default:
        break;
    }
}


/* ---- instance lifetime --------------------------------------------------- */

static int run_open(run_t *r, const hr_trace_t *t, const hr_backend_t *be, const char *spec,
                    const hr_replay_options_t *opt, hr_error_t *err) {
    memset(r, 0, sizeof *r);
    r->t = t;
    r->be = be;
    r->alloc = be->alloc;
    r->free = be->free;
    r->frame = be->frame;
    r->heap_push = be->heap_push;
    r->heap_pop = be->heap_pop;
    r->top = -1;
    r->touch = opt->touch;
    size_t n = t->n_ids ? t->n_ids : 1;
    r->slots = calloc(n, sizeof *r->slots);
    r->hs = calloc(1, sizeof *r->hs);
    if (!r->slots || !r->hs) {
        hr_error_set(err, "out of memory for %zu slots", n);
        return -1;
    }
    /* Fault the table in now: its page faults are the harness's, not the
     * allocator's, and must not land in the timed loop (calloc of a fresh
     * mapping leaves the pages untouched). */
    memset(r->slots, 0, n * sizeof *r->slots);
    hr_backend_config_t cfg = hr_backend_config_default();
    const char *colon = strchr(spec, ':');
    cfg.arg = colon ? colon + 1 : NULL;
    cfg.config_path = opt->heap_config;
    cfg.max_align = hr_trace_max_align(t);
    cfg.heap_names = (const char *const *)t->strings;
    cfg.n_heap_names = t->n_strings;
    r->inst = be->create(&cfg, err);
    return r->inst ? 0 : -1;
}

/* Frees what the trace left live (not timed), then destroys the instance. */
static void run_close(run_t *r, int destroy) {
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
}

static void run_free(run_t *r) {
    free(r->slots);
    free(r->hs);
    r->slots = NULL;
    r->hs = NULL;
}

/* ---- measurement pass ------------------------------------------------------ */

static uint64_t usable(const run_t *r, void *p, uint64_t size) {
    return p ? r->be->usable_size(r->inst, p, size) : size;
}

/* Slop bookkeeping around one op: `sign` -1 before the op (blocks it removes),
 * +1 after it (blocks it creates). */
static void slop_update(measure_t *m, const run_t *r, const hr_event_t *ev, int sign) {
    if (!r->be->usable_size)
        return;
    if (sign < 0 && (ev->op == HR_OP_FREE || ev->op == HR_OP_REALLOC)) {
        uint32_t id = ev->op == HR_OP_FREE ? ev->id : ev->aux;
        if (r->slots[id].p)
            m->slop -= (int64_t)(usable(r, r->slots[id].p, r->slots[id].size) - r->slots[id].size);
    } else if (sign > 0 && ev->op != HR_OP_FREE && hr_op_is_mem(ev->op)) {
        if (r->slots[ev->id].p)
            m->slop += (int64_t)(usable(r, r->slots[ev->id].p, r->slots[ev->id].size) - r->slots[ev->id].size);
    }
}

/* Bytes of the harness's own live blocks in this process (decoded trace, string
 * table, slot arrays): in a worker they come from the measured allocator and
 * stay live for the whole replay, so they are subtracted from its footprint. */
static uint64_t harness_bytes(const run_t *r) {
    const hr_trace_t *t = r->t;
    uint64_t n = malloc_usable_size(t->events) + malloc_usable_size(t->ts) +
                 malloc_usable_size(t->strings) + malloc_usable_size(r->slots);
    for (uint32_t i = 0; i < t->n_strings; i++)
        n += malloc_usable_size(t->strings[i]);
    return n;
}

static uint64_t sample_fp(const run_t *r, const hr_extstats_t *ext, const measure_t *m) {
    if (r->be->footprint)
        return r->be->footprint(r->inst);
    if (m->ext_ok) {
        /* The allocator's held bytes minus the harness's own live blocks. */
        uint64_t v = ext->footprint();
        return v > m->ext_base ? v - m->ext_base : 0;
    }
    uint64_t rss = hr_rss_now();
    return rss > m->rss_base ? rss - m->rss_base : 0;
}

static void track_memory(measure_t *m, const run_t *r, const hr_extstats_t *ext,
                         const hr_replay_options_t *opt, int force) {
    int exact = r->be->footprint != NULL;
    if (!exact && m->live > m->next_live_sample) {
        /* New live high: sample too, at most once per 1/16 growth, so the
         * sampled peak footprint is not missed between periodic samples. */
        force = 1;
        m->next_live_sample = m->live + m->live / 16;
    }
    if (exact || force) {
        m->fp = sample_fp(r, ext, m);
        if (!exact) {
            uint64_t rss = hr_rss_now();
            if (rss > m->peak_rss)
                m->peak_rss = rss;
        }
    }
    if (m->live > m->peak_live) {
        m->peak_live = m->live;
        m->fp_at_peak_live = m->fp;
        m->slop_at_peak_live = m->slop;
    }
    if (m->fp > m->peak_fp) {
        m->peak_fp = m->fp;
        m->live_at_peak_fp = m->live;
    }
    if (opt->budget && !m->have_budget_fail && m->fp > opt->budget) {
        m->have_budget_fail = 1;
        m->budget_fail_at = r->i;
    }
}

static int64_t live_delta(const run_t *r, const hr_event_t *ev) {
    switch (ev->op) {
    case HR_OP_ALLOC:
    case HR_OP_CALLOC:
        return (int64_t)hr_event_bytes(ev);
    case HR_OP_REALLOC:
        return (int64_t)ev->size - (int64_t)r->slots[ev->aux].size;
    case HR_OP_FREE:
        return -(int64_t)r->slots[ev->id].size;
    default:
        return 0;
    }
}

static void measure_pass(run_t *r, measure_t *m, const hr_extstats_t *ext,
                         const hr_replay_options_t *opt) {
    const uint64_t ovh = hr_timer_overhead();
    const hr_trace_t *t = r->t;
    track_memory(m, r, ext, opt, 1);
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        r->i = i;
        int64_t dl = live_delta(r, ev);
        slop_update(m, r, ev, -1);
        uint64_t c0 = hr_cycles();
        dispatch(r, ev);
        uint64_t c1 = hr_cycles();
        uint64_t d = c1 - c0 > ovh ? c1 - c0 - ovh : 0;
        m->cyc[ev->op] += d;
        m->cnt[ev->op]++;
        m->frame_cyc += d;
        if (hr_op_is_mem(ev->op))
            hr_lat_add(&m->lat, d);
        else if (ev->op == HR_OP_FRAME) {
            if (m->frame_cyc > m->worst_frame_cyc) {
                m->worst_frame_cyc = m->frame_cyc;
                m->worst_frame_index = ev->size;
            }
            m->frame_cyc = 0;
            m->frames++;
        }
        slop_update(m, r, ev, +1);
        m->live += dl;
        track_memory(m, r, ext, opt, (i % HR_SAMPLE_EVERY) == 0 || ev->op == HR_OP_FRAME);
    }
    track_memory(m, r, ext, opt, 1);
    m->failed = r->failed;
    m->first_failed = r->first_failed;
}

/* ---- throughput pass ------------------------------------------------------ */

/* A local copy whose address does not escape lets the compiler keep the hot
 * fields (slot arrays, function pointers, instance) in registers; the touch
 * policy is a constant in each instantiation, so its test folds away. */
static inline __attribute__((always_inline)) void fast_loop_t(run_t *r, hr_touch_t touch) {
    run_t lr = *r;
    lr.touch = touch;
    const hr_event_t *ev = lr.t->events, *end = ev + lr.t->n_events;
    for (; ev < end; ev++)
        dispatch(&lr, ev);
    *r = lr;
}

/* GCC: compare-and-branch chains instead of a jump table (see dispatch). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-jump-tables")))
#endif
static void fast_loop(run_t *r) {
    switch (r->touch) {
    case HR_TOUCH_NONE: fast_loop_t(r, HR_TOUCH_NONE); break;
    case HR_TOUCH_FIRST: fast_loop_t(r, HR_TOUCH_FIRST); break;
    case HR_TOUCH_ALL: fast_loop_t(r, HR_TOUCH_ALL); break;
    }
}

/* Runs `passes` timed replays on fresh instances and keeps the fastest. The
 * last instance is handed back open in `keep` (blocks still live) so that the
 * caller can read the backend's stats at the end of the trace. */
static int throughput_pass(const run_t *proto, const char *spec, const hr_replay_options_t *opt,
                           timing_t *best, run_t *keep, hr_error_t *err) {
    int passes = opt->passes > 0 ? opt->passes : 1;
    best->wall_ns = UINT64_MAX;
    for (int k = 0; k < passes; k++) {
        if (run_open(keep, proto->t, proto->be, spec, opt, err) != 0)
            return -1;
        uint64_t w0 = hr_now_ns(), c0 = hr_cpu_ns();
        fast_loop(keep);
        uint64_t w1 = hr_now_ns(), c1 = hr_cpu_ns();
        if (w1 - w0 < best->wall_ns) {
            best->wall_ns = w1 - w0;
            best->cpu_ns = c1 - c0;
        }
        if (k + 1 < passes) {
            run_close(keep, 1);
            run_free(keep);
        }
    }
    return 0;
}

hr_replay_options_t hr_replay_options_default(void) {
    hr_replay_options_t o;
    memset(&o, 0, sizeof o);
    o.touch = HR_TOUCH_FIRST;
    o.timeout_s = 600;
    o.repeat = 1;
    o.passes = 1;
    return o;
}

int hr_replay_one(const hr_trace_t *t, const char *trace_name, const char *digest,
                  const hr_backend_t *be, const char *spec, const hr_extstats_t *ext,
                  const hr_replay_options_t *opt, hr_emit_t *em) {
    hr_error_t err = {{0}};
    result_t res = {t, trace_name, digest, spec, be, ext, opt, NULL, NULL, {0, 0}};
    run_t r, keep;
    memset(&r, 0, sizeof r); /* run_close/run_free below are safe on a failed open */
    memset(&keep, 0, sizeof keep);
    measure_t *m = calloc(1, sizeof *m);
    if (!m || run_open(&r, t, be, spec, opt, &err) != 0) {
        if (!err.msg[0])
            hr_error_set(&err, "out of memory");
        hr_result_emit_error(&res, em, "error", err.msg);
        run_close(&r, 1);
        run_free(&r);
        free(m);
        return -1;
    }
    /* Baseline: the trace and the slot arrays (faulted in by run_open) are
     * loaded and resident. */
    hr_rss_peak_reset();
    m->rss_base = hr_rss_now();
    m->peak_rss = m->rss_base;
    if (ext && ext->footprint) {
        m->ext_ok = ext->footprint() > 0;
        m->ext_base = harness_bytes(&r);
    }
    measure_pass(&r, m, ext, opt);
    uint64_t hwm = hr_rss_peak();
    if (hwm > m->peak_rss)
        m->peak_rss = hwm;
    run_close(&r, 1);
    int rc = throughput_pass(&r, spec, opt, &res.tm, &keep, &err);
    run_free(&r);
    res.m = m;
    res.r = &keep;
    if (rc != 0)
        hr_result_emit_error(&res, em, "error", err.msg);
    else
        hr_result_emit(&res, em);
    run_close(&keep, 1);
    run_free(&keep);
    free(m);
    return rc;
}

static const char *const touch_names[] = {"none", "first", "all"};

const char *hr_touch_name(hr_touch_t t) {
    return (unsigned)t < 3 ? touch_names[t] : "?";
}

int hr_touch_parse(const char *s, hr_touch_t *out) {
    for (int i = 0; i < 3; i++)
        if (strcmp(s, touch_names[i]) == 0) {
            *out = (hr_touch_t)i;
            return 0;
        }
    return -1;
}

int hr_replay_time(const hr_trace_t *t, const hr_backend_t *be, const char *spec,
                   const hr_replay_options_t *opt, uint64_t *wall_ns) {
    hr_error_t err = {{0}};
    run_t proto, keep;
    memset(&proto, 0, sizeof proto);
    proto.t = t;
    proto.be = be;
    timing_t tm;
    int rc = throughput_pass(&proto, spec, opt, &tm, &keep, &err);
    if (rc == 0) {
        run_close(&keep, 1);
        *wall_ns = tm.wall_ns;
    }
    run_free(&keep);
    return rc;
}
