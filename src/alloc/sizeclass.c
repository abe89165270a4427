/* hr_sizeclass: power-of-two free lists over malloc (see
 * include/heapreplay/sizeclass.h). */
#include "heapreplay/sizeclass.h"

#include <stdlib.h>
#include <string.h>

typedef struct hr_sc_node { struct hr_sc_node *next; } hr_sc_node_t;

struct hr_sizeclass {
    hr_sizeclass_options_t opt;
    int           nclasses;
    unsigned      min_shift;
    hr_sc_node_t *lists[HR_SIZECLASS_MAX_CLASSES];
    uint64_t      taken[HR_SIZECLASS_MAX_CLASSES];  /* blocks from malloc */
    uint64_t      cached[HR_SIZECLASS_MAX_CLASSES]; /* blocks on the list */
    uint64_t      live_bytes, high_water, footprint, peak_footprint, waste;
    uint64_t      large_live, large_bytes, hits, misses;
};

hr_sizeclass_options_t hr_sizeclass_default(void) {
    hr_sizeclass_options_t o = {32 * 1024};
    return o;
}

static unsigned log2_ceil(size_t x) { return x <= 1 ? 0 : 64u - (unsigned)__builtin_clzll(x - 1); }

hr_sizeclass_t *hr_sizeclass_create(const hr_sizeclass_options_t *opt) {
    hr_sizeclass_options_t o = opt ? *opt : hr_sizeclass_default();
    if (o.max_class < sizeof(void *) || (o.max_class & (o.max_class - 1)))
        return NULL;
    hr_sizeclass_t *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    sc->opt = o;
    sc->min_shift = log2_ceil(sizeof(hr_sc_node_t));
    sc->nclasses = (int)(log2_ceil(o.max_class) - sc->min_shift) + 1;
    if (sc->nclasses > HR_SIZECLASS_MAX_CLASSES) {
        free(sc);
        return NULL;
    }
    return sc;
}

uint64_t hr_sizeclass_trim(hr_sizeclass_t *sc) {
    uint64_t released = 0;
    for (int c = 0; c < sc->nclasses; c++) {
        size_t cs = (size_t)1 << (c + (int)sc->min_shift);
        for (hr_sc_node_t *n = sc->lists[c], *nx; n; n = nx) {
            nx = n->next;
            free(n);
            released += cs;
        }
        sc->lists[c] = NULL;
        sc->taken[c] -= sc->cached[c];
        sc->cached[c] = 0;
    }
    sc->footprint -= released;
    return released;
}

void hr_sizeclass_destroy(hr_sizeclass_t *sc) {
    if (!sc)
        return;
    hr_sizeclass_trim(sc);
    free(sc);
}

static int class_of(const hr_sizeclass_t *sc, size_t size) {
    if (size > sc->opt.max_class)
        return -1;
    unsigned s = log2_ceil(size);
    return s <= sc->min_shift ? 0 : (int)(s - sc->min_shift);
}

size_t hr_sizeclass_round(const hr_sizeclass_t *sc, size_t size) {
    int c = class_of(sc, size);
    return c < 0 ? 0 : (size_t)1 << (c + (int)sc->min_shift);
}

static void note_peaks(hr_sizeclass_t *sc) {
    if (sc->live_bytes > sc->high_water)
        sc->high_water = sc->live_bytes;
    if (sc->footprint > sc->peak_footprint)
        sc->peak_footprint = sc->footprint;
}

void *hr_sizeclass_alloc(hr_sizeclass_t *sc, size_t size) {
    int c = class_of(sc, size);
    void *p;
    if (c < 0) {
        if (!(p = malloc(size)))
            return NULL;
        sc->large_live++;
        sc->large_bytes += size;
        sc->footprint += size;
    } else {
        size_t cs = (size_t)1 << (c + (int)sc->min_shift);
        if (sc->lists[c]) {
            p = sc->lists[c];
            sc->lists[c] = sc->lists[c]->next;
            sc->cached[c]--;
            sc->hits++;
        } else {
            if (!(p = malloc(cs)))
                return NULL;
            sc->taken[c]++;
            sc->footprint += cs;
            sc->misses++;
        }
        sc->waste += cs - size;
    }
    sc->live_bytes += size;
    note_peaks(sc);
    return p;
}

void hr_sizeclass_free(hr_sizeclass_t *sc, void *p, size_t size) {
    if (!p)
        return;
    int c = class_of(sc, size);
    sc->live_bytes -= size;
    if (c < 0) {
        free(p);
        sc->large_live--;
        sc->large_bytes -= size;
        sc->footprint -= size;
        return;
    }
    hr_sc_node_t *n = p;
    n->next = sc->lists[c];
    sc->lists[c] = n;
    sc->cached[c]++;
    sc->waste -= ((size_t)1 << (c + (int)sc->min_shift)) - size;
}

uint64_t hr_sizeclass_footprint(const hr_sizeclass_t *sc) { return sc->footprint; }

void hr_sizeclass_stats(const hr_sizeclass_t *sc, hr_sizeclass_stats_t *st) {
    memset(st, 0, sizeof *st);
    st->head.live_bytes = sc->live_bytes;
    st->head.footprint = sc->footprint;
    st->head.high_water = sc->high_water;
    st->head.peak_footprint = sc->peak_footprint;
    st->internal_waste = sc->waste;
    st->large_live = sc->large_live;
    st->large_bytes = sc->large_bytes;
    st->hits = sc->hits;
    st->misses = sc->misses;
    st->nclasses = sc->nclasses;
    st->head.objects = sc->large_live;
    for (int c = 0; c < sc->nclasses; c++) {
        size_t cs = (size_t)1 << (c + (int)sc->min_shift);
        st->head.objects += sc->taken[c] - sc->cached[c];
        st->cached_bytes += sc->cached[c] * cs;
        if (sc->cached[c])
            st->head.largest_free = cs;
    }
}

static int cmp_ptr(const void *a, const void *b) {
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

int hr_sizeclass_check(const hr_sizeclass_t *sc) {
    uint64_t total = 0, fp = sc->large_bytes;
    for (int c = 0; c < sc->nclasses; c++) {
        total += sc->cached[c];
        fp += sc->taken[c] << (c + (int)sc->min_shift);
        if (sc->cached[c] > sc->taken[c])
            return HR_SIZECLASS_ECORRUPT;
    }
    if (fp != sc->footprint)
        return HR_SIZECLASS_ECORRUPT;
    uintptr_t *all = malloc((total + 1) * sizeof *all);
    if (!all)
        return HR_SIZECLASS_ECORRUPT;
    size_t k = 0;
    int rc = HR_SIZECLASS_OK;
    for (int c = 0; c < sc->nclasses && rc == 0; c++) {
        uint64_t n = 0;
        for (hr_sc_node_t *p = sc->lists[c]; p && rc == 0; p = p->next) {
            if (++n > sc->cached[c] || ((uintptr_t)p & (sizeof(void *) - 1)))
                rc = HR_SIZECLASS_ECORRUPT; /* cycle, miscount or misaligned */
            else
                all[k++] = (uintptr_t)p;
        }
        if (rc == 0 && n != sc->cached[c])
            rc = HR_SIZECLASS_ECORRUPT;
    }
    if (rc == 0) {
        qsort(all, k, sizeof *all, cmp_ptr);
        for (size_t i = 1; i < k; i++)
            if (all[i] == all[i - 1])
                rc = HR_SIZECLASS_ECORRUPT; /* a block cached twice */
    }
    free(all);
    return rc;
}
