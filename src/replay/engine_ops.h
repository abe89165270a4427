/* The replay's op semantics, one static inline function per opcode and the
 * dispatcher generated from the opcode table: included by the loops that must
 * inline them (engine.c's laps, threads.c's per-thread streams). Internal. */
#ifndef HR_REPLAY_ENGINE_OPS_H
#define HR_REPLAY_ENGINE_OPS_H

#include <string.h>

#include "backends/be_system.h"
#include "replay/engine_int.h"

/* Touch policy: "first" (and "recorded" for a block without a record) writes
 * one byte per 4 KiB page (so the pages count in RSS, as a program that
 * initialises its objects would), "all" writes every byte. The cost is part
 * of the op loop (it is what a program does). */
#define HR_ALWAYS_INLINE __attribute__((always_inline))

/* One byte `b` per 4 KiB page of [from, to) of p. */
static inline void touch_pages(void *p, uint64_t from, uint64_t to, char b) {
    for (uint64_t off = from; off < to; off += 4096)
        ((volatile char *)p)[off] = b;
}

static inline void touch(const run_t *r, void *p, uint64_t from, uint64_t to) {
    if (r->touch == HR_TOUCH_NONE)
        return;
    if (r->touch_cap && to > r->touch_cap) /* only the block's first touch_cap bytes */
        to = r->touch_cap;
    if (to <= from)
        return;
    if (r->touch == HR_TOUCH_ALL) {
        memset((char *)p + from, 0xA5, to - from);
        return;
    }
    touch_pages(p, from, to, 1);
}

/* The touch of a block just made, bytes [from, to) of it (realloc: from its
 * old size). Under --touch recorded a pending `touched` record (op_TOUCHED)
 * decides instead of the policy: the block's first BYTES bytes, one byte a
 * page, past the cap (the record is what the program used), still from
 * `from` so that a realloc's copied bytes stay as they are. A calloc'd block
 * (zeroed) is touched only by a record, with zeros. p may be NULL (the
 * allocation failed): the record is used up all the same. */
static inline HR_ALWAYS_INLINE void touch_made(run_t *r, void *p, uint64_t from, uint64_t to,
                                               int zeroed) {
    if (r->touch == HR_TOUCH_RECORDED && __builtin_expect(r->pend != 0, 0)) {
        uint64_t used = r->pend - 1 < to ? r->pend - 1 : to;
        r->pend = 0;
        if (p)
            touch_pages(p, from, used, (char)!zeroed);
        return;
    }
    if (p && !zeroed)
        touch(r, p, from, to);
}

/* The backend calls. r->libc is a constant in engine.c's throughput loop
 * (see fast_loop_t), so each instantiation keeps one of the two paths: a
 * system backend freeing plainly is then called as a program calls the
 * library, with no function pointer in between (the fresh-program check of
 * bench/fresh/fresh_agreement.sh measured the indirect calls at ~0.4 ns/op, 10-15 %
 * of a 3 ns/op trace). */
static inline HR_ALWAYS_INLINE void *be_alloc(run_t *r, size_t size, size_t align) {
    return r->libc ? hr_sys_alloc_inline(size, align) : r->alloc(r->inst, size, align, r->top);
}

static inline HR_ALWAYS_INLINE void be_free(run_t *r, void *p, size_t size) {
    if (r->libc)
        free(p);
    else
        r->free(r->inst, p, size);
}

/* The failing event's index comes from its address, so the throughput loop
 * need not keep r->i up to date. */
static inline void note_fail(run_t *r, const hr_event_t *ev) {
    if (r->failed++ == 0)
        r->first_failed = r->win_base + (uint64_t)(ev - r->win);
}

static inline HR_ALWAYS_INLINE void op_ALLOC(run_t *r, const hr_event_t *ev) {
    void *p = be_alloc(r, ev->size, ev->align);
    r->slots[ev->id].p = p;
    r->slots[ev->id].size = ev->size;
    if (__builtin_expect(p == NULL, 0))
        note_fail(r, ev);
    touch_made(r, p, 0, ev->size, 0);
}

static inline HR_ALWAYS_INLINE void op_CALLOC(run_t *r, const hr_event_t *ev) {
    uint64_t bytes = (uint64_t)ev->aux * ev->size;
    void *p;
    if (r->libc) {
        p = calloc(ev->aux, ev->size);
    } else if (r->be->calloc) {
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
    touch_made(r, p, 0, bytes, 1); /* zeroed: only a record writes it */
}

static inline HR_ALWAYS_INLINE void *realloc_emulated(run_t *r, void *old, uint64_t osz, uint64_t nsz) {
    void *p = r->alloc(r->inst, nsz, 0, r->top);
    if (p && old) {
        memcpy(p, old, osz < nsz ? osz : nsz);
        r->free(r->inst, old, osz);
    }
    return p;
}

/* Whether a realloc(old, 0) that returned NULL has freed old: the C
 * library's realloc does (glibc; jemalloc's and tcmalloc's defaults), so the
 * replay must neither free old again nor count a failure. A capture records
 * such a call as a free; hand-written and imported traces may still hold it. */
static inline int hr_zero_realloc_freed(const run_t *r, const void *old, uint64_t size) {
    return old && size == 0 && (r->libc || r->be->realloc == hr_sys_realloc);
}

static inline HR_ALWAYS_INLINE void op_REALLOC(run_t *r, const hr_event_t *ev) {
    void *old = r->slots[ev->aux].p;
    uint64_t osz = old ? r->slots[ev->aux].size : 0;
    void *p;
    if (!old) {
        r->empty_frees++;
        p = be_alloc(r, ev->size, 0);
    } else if (r->libc)
        p = realloc(old, ev->size);
    else if (r->realloc)
        p = r->realloc(r->inst, old, osz, ev->size, r->top);
    else
        p = realloc_emulated(r, old, osz, ev->size);
    if (__builtin_expect(p == NULL, 0)) {
        /* realloc(old, 0) of the C library may free old and return NULL
         * (glibc, jemalloc's and tcmalloc's default): a free, not a failure;
         * the slot stays empty. Otherwise the old block stays allocated:
         * release it so nothing leaks. */
        if (!hr_zero_realloc_freed(r, old, ev->size)) {
            if (old)
                be_free(r, old, osz);
            note_fail(r, ev);
        }
    }
    touch_made(r, p, osz, ev->size, 0);
    r->slots[ev->aux].p = NULL;
    r->slots[ev->id].p = p;
    r->slots[ev->id].size = ev->size;
}

static inline HR_ALWAYS_INLINE void op_FREE(run_t *r, const hr_event_t *ev) {
    void *p = r->slots[ev->id].p;
    if (__builtin_expect(p != NULL, 1))
        be_free(r, p, r->slots[ev->id].size);
    else
        r->empty_frees++;
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

/* Pool ops: replay lowers them to alloc/free/realloc before a worker sees
 * the trace (hr_trace_lower_pools, cmd_replay.c); should one reach the
 * engine, it runs as that plain op (their fields are laid out alike). */
static inline HR_ALWAYS_INLINE void op_POOL_ALLOC(run_t *r, const hr_event_t *ev) { op_ALLOC(r, ev); }
static inline HR_ALWAYS_INLINE void op_POOL_FREE(run_t *r, const hr_event_t *ev) { op_FREE(r, ev); }
static inline HR_ALWAYS_INLINE void op_POOL_REALLOC(run_t *r, const hr_event_t *ev) {
    op_REALLOC(r, ev);
}

/* A `touched` record: the block the thread's next event makes was used in
 * its first ev->size bytes (trace.h); only --touch recorded reads it. */
static inline HR_ALWAYS_INLINE void op_TOUCHED(run_t *r, const hr_event_t *ev) {
    if (r->touch == HR_TOUCH_RECORDED)
        r->pend = ev->size < UINT64_MAX ? ev->size + 1 : ev->size;
}

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

#endif
