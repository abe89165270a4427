/* Hash index over a string table (see names.h): open addressing with linear
 * probing, kept at most half full so a miss ends after a few slots. */
#include "trace/names.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a 32 over the name's bytes. */
static uint32_t name_hash(const char *s) {
    uint32_t h = 2166136261u; /* FNV-1a 32 offset basis */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u; /* FNV 32 prime */
    }
    return h;
}

void hr_names_init(hr_names_t *x) { memset(x, 0, sizeof *x); }

void hr_names_free(hr_names_t *x) {
    free(x->slot);
    memset(x, 0, sizeof *x);
}

/* The slot holding name, or the empty slot where it would go. */
static uint32_t probe(hr_names_t *x, char *const *strings, const char *name, uint32_t h) {
    uint32_t mask = x->cap - 1, k = h & mask;
    for (;;) {
        x->probes++;
        uint32_t v = x->slot[k];
        if (v == 0 || strcmp(strings[v - 1], name) == 0)
            return k;
        k = (k + 1) & mask;
    }
}

int64_t hr_names_find(hr_names_t *x, char *const *strings, const char *name) {
    if (x->n == 0)
        return -1;
    uint32_t v = x->slot[probe(x, strings, name, name_hash(name))];
    return v ? (int64_t)v - 1 : -1;
}

/* Doubles the table and re-inserts every position (their names are distinct,
 * so no comparison is needed). */
static int grow(hr_names_t *x, char *const *strings) {
    uint32_t cap = x->cap ? x->cap * 2 : 64;
    if (cap == 0)
        return -1; /* 2^32 slots: never reached, a table holds < 2^32 names */
    uint32_t *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t k = 0; k < x->cap; k++) {
        uint32_t v = x->slot[k];
        if (!v)
            continue;
        uint32_t j = name_hash(strings[v - 1]) & (cap - 1);
        while (s[j])
            j = (j + 1) & (cap - 1);
        s[j] = v;
    }
    free(x->slot);
    x->slot = s;
    x->cap = cap;
    return 0;
}

int hr_names_add(hr_names_t *x, char *const *strings, uint32_t i) {
    if ((uint64_t)(x->n + 1) * 2 > x->cap && grow(x, strings) != 0)
        return -1;
    uint32_t k = probe(x, strings, strings[i], name_hash(strings[i]));
    if (!x->slot[k]) {
        x->slot[k] = i + 1;
        x->n++;
    }
    if (i >= x->upto)
        x->upto = i + 1;
    return 0;
}

int hr_names_catch_up(hr_names_t *x, char *const *strings, uint32_t n) {
    for (uint32_t i = x->upto; i < n; i++)
        if (hr_names_add(x, strings, i) != 0)
            return -1;
    return 0;
}
