/* The one pointer-keyed hash map of the project (header-only, internal).
 *
 * Open addressing with linear probing and backward-shift deletion (no
 * tombstones, so lookups never slow down after many removals). Keys are
 * addresses as uint64_t (a pointer converts through uintptr_t without loss;
 * importers key addresses read from traces of 64-bit programs). Each slot
 * holds the key followed by a value of `val_size` bytes fixed at init: 0
 * makes a set, sizeof(uint64_t) a ptr -> u64 map, a struct size a ptr ->
 * record map (the record lives in the table: one probe, one cache line).
 *
 * Contract:
 *  - key 0 is reserved (it marks an empty slot): never insert it; looking it
 *    up returns NULL;
 *  - capacity is a power of two and the table is at most half full, so every
 *    probe run ends at an empty slot;
 *  - a value pointer returned by get/put stays valid until the next put or
 *    remove on the same map (both may move slots); values are 8-byte aligned;
 *  - a new value is zero-filled;
 *  - iteration order is unspecified (callers must not let it show).
 * Not thread-safe. Zero-initialised memory is NOT a valid map: call init. */
#ifndef HR_BASE_PTRMAP_H
#define HR_BASE_PTRMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct hr_ptrmap {
    unsigned char *slots;  /* cap slots of `stride` bytes: uint64_t key, value */
    size_t         cap;    /* 0 (nothing allocated yet) or a power of two */
    size_t         n;      /* keys present */
    size_t         stride; /* 8 + val_size rounded up to 8 */
} hr_ptrmap_t;

#define HR_PTRMAP_MIN_CAP 64u

static inline void hr_ptrmap_init(hr_ptrmap_t *m, size_t val_size) {
    m->slots = NULL;
    m->cap = m->n = 0;
    m->stride = sizeof(uint64_t) + ((val_size + 7) & ~(size_t)7);
}

/* Releases the table (values that own memory are the caller's); the map is
 * left empty and usable. */
static inline void hr_ptrmap_free(hr_ptrmap_t *m) {
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}

/* Home slot of a key: a 64-bit mix so that aligned addresses (low bits zero,
 * nearby high bits) spread over the whole table. */
static inline size_t hr_ptrmap_home_(const hr_ptrmap_t *m, uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (m->cap - 1);
}

static inline unsigned char *hr_ptrmap_slot_(const hr_ptrmap_t *m, size_t i) {
    return m->slots + i * m->stride;
}

static inline uint64_t hr_ptrmap_key_(const hr_ptrmap_t *m, size_t i) {
    uint64_t k;
    memcpy(&k, hr_ptrmap_slot_(m, i), sizeof k);
    return k;
}

/* Index of key's slot, or of the empty slot that ends its probe run. */
static inline size_t hr_ptrmap_probe_(const hr_ptrmap_t *m, uint64_t key) {
    size_t mask = m->cap - 1, i = hr_ptrmap_home_(m, key);
    for (;;) {
        uint64_t k = hr_ptrmap_key_(m, i);
        if (k == key || k == 0)
            return i;
        i = (i + 1) & mask;
    }
}

/* Value of key, or NULL when absent. */
static inline void *hr_ptrmap_get(const hr_ptrmap_t *m, uint64_t key) {
    if (!m->n || !key)
        return NULL;
    size_t i = hr_ptrmap_probe_(m, key);
    if (hr_ptrmap_key_(m, i) != key)
        return NULL;
    return hr_ptrmap_slot_(m, i) + sizeof(uint64_t);
}

static inline int hr_ptrmap_has(const hr_ptrmap_t *m, uint64_t key) {
    return hr_ptrmap_get(m, key) != NULL;
}

/* Doubles the table (or allocates the first one); -1 on OOM, map unchanged. */
static inline int hr_ptrmap_grow_(hr_ptrmap_t *m) {
    hr_ptrmap_t big = *m;
    big.cap = m->cap ? m->cap * 2 : HR_PTRMAP_MIN_CAP;
    big.slots = calloc(big.cap, m->stride);
    if (!big.slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        uint64_t k = hr_ptrmap_key_(m, i);
        if (k)
            memcpy(hr_ptrmap_slot_(&big, hr_ptrmap_probe_(&big, k)), hr_ptrmap_slot_(m, i),
                   m->stride);
    }
    free(m->slots);
    *m = big;
    return 0;
}

/* Value of key, inserted (zero-filled) if absent; *added (may be NULL) tells
 * which. NULL on OOM or key 0, map unchanged. */
static inline void *hr_ptrmap_put(hr_ptrmap_t *m, uint64_t key, int *added) {
    if (!key)
        return NULL;
    size_t i = m->cap ? hr_ptrmap_probe_(m, key) : 0;
    int fresh = !m->cap || hr_ptrmap_key_(m, i) != key;
    if (fresh && (m->n + 1) * 2 > m->cap) {
        if (hr_ptrmap_grow_(m) != 0)
            return NULL;
        i = hr_ptrmap_probe_(m, key);
    }
    unsigned char *s = hr_ptrmap_slot_(m, i);
    if (fresh) {
        memset(s, 0, m->stride);
        memcpy(s, &key, sizeof key);
        m->n++;
    }
    if (added)
        *added = fresh;
    return s + sizeof(uint64_t);
}

/* Removes key, copying its value to val_out (may be NULL) first: 1 if it was
 * present, 0 if not. Later entries of the probe run are shifted back into the
 * hole unless their home lies cyclically in (hole, entry]. */
static inline int hr_ptrmap_remove(hr_ptrmap_t *m, uint64_t key, void *val_out) {
    if (!m->n || !key)
        return 0;
    size_t mask = m->cap - 1, hole = hr_ptrmap_probe_(m, key);
    if (hr_ptrmap_key_(m, hole) != key)
        return 0;
    if (val_out)
        memcpy(val_out, hr_ptrmap_slot_(m, hole) + sizeof(uint64_t), m->stride - sizeof key);
    for (size_t j = (hole + 1) & mask;; j = (j + 1) & mask) {
        uint64_t k = hr_ptrmap_key_(m, j);
        if (!k)
            break;
        size_t home = hr_ptrmap_home_(m, k);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
            memcpy(hr_ptrmap_slot_(m, hole), hr_ptrmap_slot_(m, j), m->stride);
            hole = j;
        }
    }
    memset(hr_ptrmap_slot_(m, hole), 0, m->stride);
    m->n--;
    return 1;
}

/* Iteration: `for (size_t it = 0; (it = hr_ptrmap_next(m, it, &k, &v));)`
 * visits every key once (v may be NULL when the value is not wanted). Returns
 * 0 at the end. Do not put or remove while iterating. */
static inline size_t hr_ptrmap_next(const hr_ptrmap_t *m, size_t it, uint64_t *key, void **val) {
    for (; it < m->cap; it++) {
        uint64_t k = hr_ptrmap_key_(m, it);
        if (k) {
            *key = k;
            if (val)
                *val = hr_ptrmap_slot_(m, it) + sizeof(uint64_t);
            return it + 1;
        }
    }
    return 0;
}

#endif
