/* Helpers shared by the seed allocators' backends (src/backends/{stack,
 * marker,block,bank,sizeclass}.c): a pointer set, fallback blocks tracked in
 * it (so ownership is known and destroy can release blocks still live), and a
 * parser for "key=value,key=value" backend arguments. Header-only, internal. */
#ifndef HR_BACKENDS_SEED_UTIL_H
#define HR_BACKENDS_SEED_UTIL_H

#include "backends/fallback.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Open addressing, linear probing, backward-shift deletion. */
typedef struct hr_ptrset {
    uintptr_t *slots; /* 0 = empty */
    size_t     cap, n;
} hr_ptrset_t;

static inline size_t hr_ptrset_hash_(uintptr_t p, size_t cap) {
    return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

static inline int hr_ptrset_grow_(hr_ptrset_t *s) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    uintptr_t *n = calloc(cap, sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i]) {
            size_t j = hr_ptrset_hash_(s->slots[i], cap);
            while (n[j])
                j = (j + 1) & (cap - 1);
            n[j] = s->slots[i];
        }
    free(s->slots);
    s->slots = n;
    s->cap = cap;
    return 0;
}

static inline int hr_ptrset_add(hr_ptrset_t *s, const void *p) {
    if ((s->n + 1) * 2 > s->cap && hr_ptrset_grow_(s) != 0)
        return -1;
    size_t j = hr_ptrset_hash_((uintptr_t)p, s->cap);
    while (s->slots[j])
        j = (j + 1) & (s->cap - 1);
    s->slots[j] = (uintptr_t)p;
    s->n++;
    return 0;
}

/* Removes p; returns 1 if it was there. */
static inline int hr_ptrset_remove(hr_ptrset_t *s, const void *p) {
    if (!s->n)
        return 0;
    size_t m = s->cap - 1, j = hr_ptrset_hash_((uintptr_t)p, s->cap);
    while (s->slots[j] && s->slots[j] != (uintptr_t)p)
        j = (j + 1) & m;
    if (!s->slots[j])
        return 0;
    /* Backward shift: move later entries of the run into the hole. */
    size_t hole = j;
    for (size_t k = (j + 1) & m; s->slots[k]; k = (k + 1) & m) {
        size_t home = hr_ptrset_hash_(s->slots[k], s->cap);
        if (((k - home) & m) >= ((k - hole) & m)) {
            s->slots[hole] = s->slots[k];
            hole = k;
        }
    }
    s->slots[hole] = 0;
    s->n--;
    return 1;
}

static inline int hr_ptrset_has(const hr_ptrset_t *s, const void *p) {
    if (!s->n)
        return 0;
    size_t j = hr_ptrset_hash_((uintptr_t)p, s->cap);
    while (s->slots[j]) {
        if (s->slots[j] == (uintptr_t)p)
            return 1;
        j = (j + 1) & (s->cap - 1);
    }
    return 0;
}

static inline void hr_ptrset_free(hr_ptrset_t *s) {
    free(s->slots);
    s->slots = NULL;
    s->cap = s->n = 0;
}

/* Fallback blocks of one backend: hr_fallback_t accounting + their set. */
typedef struct hr_seed_fb {
    hr_fallback_t fb;
    hr_ptrset_t   set;
} hr_seed_fb_t;

/* A fallback allocation, counted, remembered, and recorded as a violation of
 * kind `why` (a string literal). */
static inline void *hr_seed_fb_alloc(hr_seed_fb_t *f, size_t size, size_t align, const char *why) {
    hr_fallback_violation(&f->fb, why);
    void *p = hr_fallback_alloc(&f->fb, size, align);
    if (p && hr_ptrset_add(&f->set, p) != 0) {
        hr_fallback_free(&f->fb, p, size);
        p = NULL;
    }
    return p;
}

/* Frees p (requested with `size` bytes) if it is a fallback block: 1 if it
 * was, 0 if not ours. */
static inline int hr_seed_fb_free(hr_seed_fb_t *f, void *p, size_t size) {
    if (!f->set.n || !hr_ptrset_remove(&f->set, p))
        return 0;
    hr_fallback_free(&f->fb, p, size);
    return 1;
}

static inline int hr_seed_fb_owns(const hr_seed_fb_t *f, const void *p) {
    return hr_ptrset_has(&f->set, p);
}

/* Releases fallback blocks still live (destroy). */
static inline void hr_seed_fb_release(hr_seed_fb_t *f) {
    for (size_t i = 0; i < f->set.cap; i++)
        if (f->set.slots[i])
            free((void *)f->set.slots[i]);
    hr_ptrset_free(&f->set);
}

/* "123", "16K", "1M", "2G" (binary units) -> bytes; -1 on bad text. */
static inline int hr_seed_parse_size(const char *s, size_t len, uint64_t *out) {
    uint64_t v = 0;
    size_t i = 0;
    if (len == 0)
        return -1;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == 0)
        return -1;
    if (i < len) {
        unsigned sh = 0;
        switch (s[i]) {
        case 'k': case 'K': sh = 10; break;
        case 'm': case 'M': sh = 20; break;
        case 'g': case 'G': sh = 30; break;
        default: return -1;
        }
        if (i + 1 != len || v > (UINT64_MAX >> sh))
            return -1;
        v <<= sh;
    }
    *out = v;
    return 0;
}

/* Parses "k1=v1,k2=v2" against `keys` (NULL-terminated), storing sizes in
 * vals[i]. A bare value (no '=') sets keys[0]. Returns 0, or -1 with *bad
 * pointing at the offending item. */
static inline int hr_seed_parse_kv(const char *arg, const char *const *keys, uint64_t *vals,
                                   const char **bad) {
    const char *p = arg;
    while (p && *p) {
        size_t n = strcspn(p, ",");
        const char *eq = memchr(p, '=', n);
        int k = -1;
        const char *v = p;
        if (!eq) {
            k = 0;
        } else {
            for (int i = 0; keys[i]; i++)
                if (strlen(keys[i]) == (size_t)(eq - p) && strncmp(keys[i], p, (size_t)(eq - p)) == 0)
                    k = i;
            v = eq + 1;
        }
        if (k < 0 || hr_seed_parse_size(v, (size_t)(p + n - v), &vals[k]) != 0) {
            *bad = p;
            return -1;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

#endif
