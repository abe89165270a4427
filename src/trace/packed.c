/* The packed event form (packed.h): writer and reader. */
#include "trace/packed.h"

#include "base/varint.h"

enum {
    PK_OP = 0x0f,
    PK_AUX = 1u << 4,
    PK_ALIGN = 1u << 5,
    PK_FLAGS = 1u << 6,
    PK_THREAD = 1u << 7,
};

hr_pack_state_t hr_pack_state_default(int has_ts) {
    hr_pack_state_t st = {0, 0, 0, has_ts != 0};
    return st;
}

/* Ops whose id field is a block id (coded as a delta from the last one). */
static inline int id_is_block(unsigned op) { return hr_op_is_mem(op) || hr_op_is_pool(op); }

/* Ops whose aux is an old block id (coded as a delta from the new id). */
static inline int aux_is_id(unsigned op) {
    return op == HR_OP_REALLOC || op == HR_OP_POOL_REALLOC;
}

static inline unsigned log2_u32(uint32_t v) {
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

size_t hr_pack_event(hr_pack_state_t *st, const hr_event_t *ev, uint64_t ts, uint8_t *p) {
    unsigned h = ev->op & PK_OP;
    h |= ev->aux ? PK_AUX : 0;
    h |= ev->align ? PK_ALIGN : 0;
    h |= ev->flags ? PK_FLAGS : 0;
    h |= ev->thread != st->thread ? PK_THREAD : 0;
    size_t n = 0;
    p[n++] = (uint8_t)h;
    if (h & PK_THREAD) {
        n += hr_varint_put(p + n, ev->thread);
        st->thread = ev->thread;
    }
    if (id_is_block(ev->op)) {
        n += hr_varint_put(p + n, hr_zigzag((int64_t)ev->id - (int64_t)st->prev_id));
        st->prev_id = ev->id;
    } else {
        n += hr_varint_put(p + n, ev->id);
    }
    n += hr_varint_put(p + n, ev->size);
    if (h & PK_AUX)
        n += hr_varint_put(p + n, aux_is_id(ev->op) ? hr_zigzag((int64_t)ev->aux - (int64_t)ev->id)
                                                    : ev->aux);
    if (h & PK_ALIGN)
        p[n++] = (uint8_t)log2_u32(ev->align);
    if (h & PK_FLAGS)
        p[n++] = ev->flags;
    if (st->has_ts) {
        n += hr_varint_put(p + n, hr_zigzag((int64_t)(ts - st->prev_ts)));
        st->prev_ts = ts;
    }
    return n;
}

void hr_unpack_start(hr_unpack_t *u, const uint8_t *buf, size_t len, int has_ts) {
    u->p = buf;
    u->end = buf + len;
    u->st = hr_pack_state_default(has_ts);
    u->index = 0;
}

/* One varint: unchecked (two bytes without a branch on the value) when a
 * whole record's worth of bytes remains, else bounds-checked. */
static inline __attribute__((always_inline)) int get(const uint8_t **p, const uint8_t *end,
                                                     int room, uint64_t *v) {
    return room ? hr_varint_get_unchecked(p, v) : hr_varint_get(p, end, v);
}

/* Decodes one record at *pp; 0, or -1 when it runs past end. `room`: at
 * least HR_PACK_MAX_EVENT bytes remain (a compile-time constant at each
 * call, so the common instance has no bounds tests). */
static inline __attribute__((always_inline)) int
one(hr_pack_state_t *st, const uint8_t **pp, const uint8_t *end, int room, hr_event_t *ev,
    uint64_t *ts) {
    const uint8_t *p = *pp;
    uint64_t v;
    if (!room && p >= end)
        return -1;
    unsigned h = *p++;
    ev->op = (uint8_t)(h & PK_OP);
    if (h & PK_THREAD) {
        if (get(&p, end, room, &v))
            return -1;
        st->thread = (uint32_t)v;
    }
    ev->thread = (uint16_t)st->thread;
    if (get(&p, end, room, &v))
        return -1;
    if (id_is_block(ev->op))
        st->prev_id = (uint32_t)((int64_t)st->prev_id + hr_unzigzag(v));
    ev->id = id_is_block(ev->op) ? st->prev_id : (uint32_t)v;
    if (get(&p, end, room, &v))
        return -1;
    ev->size = v;
    ev->aux = 0;
    if (h & PK_AUX) {
        if (get(&p, end, room, &v))
            return -1;
        ev->aux = aux_is_id(ev->op) ? (uint32_t)((int64_t)ev->id + hr_unzigzag(v)) : (uint32_t)v;
    }
    ev->align = 0;
    ev->flags = 0;
    if (h & PK_ALIGN) {
        if (!room && p >= end)
            return -1;
        ev->align = 1u << (*p++ & 31);
    }
    if (h & PK_FLAGS) {
        if (!room && p >= end)
            return -1;
        ev->flags = *p++;
    }
    if (st->has_ts) {
        if (get(&p, end, room, &v))
            return -1;
        st->prev_ts += (uint64_t)hr_unzigzag(v);
        if (ts)
            *ts = st->prev_ts;
    }
    *pp = p;
    return 0;
}

long hr_unpack_next(hr_unpack_t *u, hr_event_t *evs, uint64_t *ts, size_t cap) {
    size_t n = 0;
    const uint8_t *p = u->p;
    uint64_t dummy;
    while (n < cap && p < u->end) {
        uint64_t *t = ts ? &ts[n] : &dummy;
        int rc = u->end - p >= HR_PACK_MAX_EVENT ? one(&u->st, &p, u->end, 1, &evs[n], t)
                                                 : one(&u->st, &p, u->end, 0, &evs[n], t);
        if (rc != 0)
            return -1;
        n++;
    }
    u->p = p;
    u->index += n;
    return (long)n;
}

int hr_unpack_at(const uint8_t *buf, size_t len, int has_ts, uint64_t i, hr_event_t *ev,
                 uint64_t *ts) {
    hr_unpack_t u;
    hr_unpack_start(&u, buf, len, has_ts);
    uint64_t t = 0;
    for (uint64_t k = 0; k <= i; k++)
        if (hr_unpack_next(&u, ev, &t, 1) != 1)
            return -1;
    if (ts)
        *ts = t;
    return 0;
}
