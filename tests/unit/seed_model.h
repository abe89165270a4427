/* Test helpers for the in-house allocators: a seeded PRNG, content patterns
 * written into blocks and verified at free, a reference model of live blocks
 * with an overlap check, and a driver that runs a backend's stats() into a
 * string. Header-only, included by tests/unit/test_{stack,marker,block,bank,
 * sizeclass,backends}.c. */
#ifndef HR_TESTS_SEED_MODEL_H
#define HR_TESTS_SEED_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "base/emit.h"

static inline uint64_t hr_tm_rand(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline unsigned char hr_tm_byte(uint32_t seed, size_t i) {
    return (unsigned char)((seed * 2654435761u) ^ (uint32_t)(i * 131u) ^ (uint32_t)(i >> 8));
}

static inline void hr_tm_fill(void *p, size_t n, uint32_t seed) {
    unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        c[i] = hr_tm_byte(seed, i);
}

/* 1 if the pattern is intact. */
static inline int hr_tm_verify(const void *p, size_t n, uint32_t seed) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != hr_tm_byte(seed, i))
            return 0;
    return 1;
}

typedef struct hr_tm_block {
    void    *p;
    size_t   size;
    uint32_t seed;
} hr_tm_block_t;

typedef struct hr_tm {
    hr_tm_block_t *v;
    size_t         n, cap;
    uint64_t       live, peak;
} hr_tm_t;

static inline void hr_tm_push(hr_tm_t *m, void *p, size_t size, uint32_t seed) {
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 256;
        m->v = realloc(m->v, m->cap * sizeof *m->v);
    }
    m->v[m->n++] = (hr_tm_block_t){p, size, seed};
    m->live += size;
    if (m->live > m->peak)
        m->peak = m->live;
}

/* Removes block i (keeping order when `ordered`); returns it. */
static inline hr_tm_block_t hr_tm_take(hr_tm_t *m, size_t i, int ordered) {
    hr_tm_block_t b = m->v[i];
    if (ordered)
        memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof *m->v);
    else
        m->v[i] = m->v[m->n - 1];
    m->n--;
    m->live -= b.size;
    return b;
}

static inline int hr_tm_cmp_(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const hr_tm_block_t *)a)->p;
    uintptr_t y = (uintptr_t)((const hr_tm_block_t *)b)->p;
    return x < y ? -1 : x > y;
}

/* 1 if no two live blocks overlap (0-byte blocks count as 1 byte only when
 * both are non-empty). */
static inline int hr_tm_no_overlap(const hr_tm_t *m) {
    hr_tm_block_t *s = malloc((m->n + 1) * sizeof *s);
    memcpy(s, m->v, m->n * sizeof *s);
    qsort(s, m->n, sizeof *s, hr_tm_cmp_);
    int ok = 1;
    for (size_t i = 1; i < m->n && ok; i++)
        if (s[i - 1].size && (char *)s[i - 1].p + s[i - 1].size > (char *)s[i].p)
            ok = 0;
    free(s);
    return ok;
}

static inline void hr_tm_free(hr_tm_t *m) {
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* The backend's stats() as compact JSON (caller frees). */
static inline char *hr_tm_stats_json(const hr_backend_t *be, void *inst) {
    return hr_backend_stats_json(be, inst);
}

/* 1 if json contains "key":value exactly. */
static inline int hr_tm_json_has(const char *json, const char *key, unsigned long long v) {
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":%llu", key, v);
    const char *p = json;
    while ((p = strstr(p, pat))) {
        char c = p[strlen(pat)];
        if (c < '0' || c > '9')
            return 1;
        p++;
    }
    return 0;
}

/* A backend instance from "name" or "name:arg". */
static inline void *hr_tm_create(const hr_backend_t *be, const char *arg, hr_error_t *err) {
    hr_backend_config_t cfg = hr_backend_config_default();
    cfg.arg = arg;
    return be->create(&cfg, err);
}

/* The end of a backend test: its stats say the allocator's own check found
 * nothing ("check":0); the JSON is printed when a check of the case failed;
 * then the stats text and the instance are released. Needs hr_test.h. */
#define HR_TM_STATS_END(be, inst, js)                                         \
    do {                                                                      \
        HR_CHECK(strstr((js), "\"check\":0") != NULL);                        \
        if (hr_t_cur_failed)                                                  \
            printf("# %s\n", (js));                                           \
        free(js);                                                             \
        (be)->destroy(inst);                                                  \
    } while (0)

#endif
