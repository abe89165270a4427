/* The access model's uses (replay/access.h), inline in the loops that must
 * fold them away when the model is off: engine.c's laps call
 * hr_access_before/after around each op only in the instantiation built
 * with the model on (fast_loop_t), the measure pass calls them outside each
 * op's timed region, the verify and count laps through engine.c's wrappers.
 * Internal. */
#ifndef HR_REPLAY_ENGINE_ACCESS_H
#define HR_REPLAY_ENGINE_ACCESS_H

#include "replay/engine_int.h"

/* The state of one lap: the generator and the ring of recently allocated
 * ids. Harness memory (hr_run_open maps it), never the allocator's. */
#define HR_ACCESS_RING 64 /* a power of two */
#define HR_ACCESS_SEED 0x9E3779B97F4A7C15ull
#define HR_ACCESS_LINE 64

struct hr_access_state {
    uint64_t rng;
    uint32_t pos;
    uint32_t ring[HR_ACCESS_RING];
};

static inline uint64_t access_rand(hr_access_state_t *s) {
    uint64_t x = s->rng; /* xorshift64 */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return s->rng = x;
}

/* The bytes of a block the model may use: the block, or its first
 * touch_cap bytes when the touch policy has a cap (so --touch first:64K
 * keeps its meaning for RSS). */
static inline uint64_t access_extent(const run_t *r, uint64_t size) {
    return r->touch_cap && size > r->touch_cap ? r->touch_cap : size;
}

/* One use of the line at `off` in p: read a byte, write it back unchanged. */
static inline void access_line(void *p, uint64_t off) {
    volatile unsigned char *q = (volatile unsigned char *)p + off;
    *q = *q;
}

/* One use of a line of id's block chosen by the 32 bits of rnd; nothing
 * when the id holds no block (freed, failed, not yet made) or 0 bytes. */
static inline void access_slot(const run_t *r, uint32_t id, uint32_t rnd) {
    const hr_slot_t *s = &r->slots[id];
    uint64_t ext = access_extent(r, s->size);
    if (!s->p || ext == 0)
        return;
    uint64_t lines = (ext + HR_ACCESS_LINE - 1) / HR_ACCESS_LINE;
    access_line(s->p, lines == 1 ? 0 : (((uint64_t)rnd * lines) >> 32) * HR_ACCESS_LINE);
}

/* Before the op: +free reads the first max(N, 1) lines of the block freed. */
static inline void hr_access_before(run_t *r, const hr_event_t *ev) {
    if (!r->access.read_free || ev->op != HR_OP_FREE)
        return;
    const hr_slot_t *s = &r->slots[ev->id];
    uint64_t ext = access_extent(r, s->size), n = r->access.lines ? r->access.lines : 1;
    if (!s->p)
        return;
    for (uint64_t off = 0; off < ext && n--; off += HR_ACCESS_LINE)
        (void)((volatile unsigned char *)s->p)[off];
}

/* After the op: reuse:N / spread:N uses. */
static inline void hr_access_after(run_t *r, const hr_event_t *ev) {
    hr_access_state_t *st = r->acc;
    uint32_t k = 0, n = r->access.lines;
    if (r->access.kind == HR_ACCESS_NONE)
        return;
    switch (ev->op) {
    case HR_OP_ALLOC:
    case HR_OP_CALLOC:
    case HR_OP_REALLOC:
        if (r->slots[ev->id].p) { /* the new block: remembered, and used first */
            st->ring[st->pos++ & (HR_ACCESS_RING - 1)] = ev->id;
            access_slot(r, ev->id, (uint32_t)(access_rand(st) >> 32));
            k = 1;
        }
        break;
    case HR_OP_FREE: break;
    default: return; /* heap, frame and mark ops: no allocator call, no use */
    }
    uint32_t n_ids = r->t->n_ids;
    for (; k < n; k++) {
        uint64_t x = access_rand(st);
        uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
        if (r->access.kind == HR_ACCESS_REUSE)
            access_slot(r, st->ring[lo & (HR_ACCESS_RING - 1)], hi);
        else
            access_slot(r, (uint32_t)(((uint64_t)hi * n_ids) >> 32), lo);
    }
}

#endif
