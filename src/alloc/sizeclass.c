/* hr_sizeclass: power-of-two free lists over malloc, refilled a chunk of
 * `refill` blocks at a time (see src/alloc/sizeclass.h). */
#include "alloc/sizeclass.h"

#include <stdlib.h>
#include <string.h>

#include "alloc/chunk.h"

_Static_assert(sizeof(hr_sc_chunk_t) == HR_SIZECLASS_CHUNK_HEADER, "chunk header");

hr_sizeclass_options_t hr_sizeclass_default(void) {
    hr_sizeclass_options_t o = {HR_SIZECLASS_SGI_MAX, HR_SIZECLASS_SGI_REFILL, 16};
    return o;
}

static unsigned log2_ceil(size_t x) { return hr_sizeclass_log2_ceil(x); }

static size_t class_size(const hr_sizeclass_t *sc, int c) {
    return (size_t)1 << (c + (int)sc->min_shift);
}

size_t hr_sizeclass_chunk_request(const hr_sizeclass_t *sc, size_t cls) {
    return HR_SIZECLASS_CHUNK_HEADER + (size_t)sc->opt.refill * cls;
}

hr_sizeclass_t *hr_sizeclass_create(const hr_sizeclass_options_t *opt) {
    hr_sizeclass_options_t o = opt ? *opt : hr_sizeclass_default();
    if (o.min_class == 0)
        o.min_class = 16;
    /* max_class <= 1 GiB and refill <= 65535 keep a chunk request far below
     * 2^64. */
    if (o.min_class < sizeof(hr_sc_node_t) || (o.min_class & (o.min_class - 1)) ||
        o.max_class < o.min_class || (o.max_class & (o.max_class - 1)) ||
        o.max_class > ((size_t)1 << 30) || o.refill == 0 || o.refill > 65535)
        return NULL;
    hr_sizeclass_t *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    sc->opt = o;
    sc->min_shift = log2_ceil(o.min_class);
    sc->nclasses = (int)(log2_ceil(o.max_class) - sc->min_shift) + 1;
    for (int c = 0; c < sc->nclasses; c++)
        sc->charge[c] = hr_chunk_usable(hr_sizeclass_chunk_request(sc, class_size(sc, c)));
    return sc;
}

void hr_sizeclass_destroy(hr_sizeclass_t *sc) {
    if (!sc)
        return;
    for (int c = 0; c < sc->nclasses; c++)
        for (hr_sc_chunk_t *k = sc->chunks[c], *nx; k; k = nx) {
            nx = k->next;
            free(k);
        }
    free(sc);
}

static int class_of(const hr_sizeclass_t *sc, size_t size) { return hr_sizeclass_class_of(sc, size); }

size_t hr_sizeclass_round(const hr_sizeclass_t *sc, size_t size) {
    int c = class_of(sc, size);
    return c < 0 ? 0 : class_size(sc, c);
}

static void note_peaks(hr_sizeclass_t *sc) {
    if (sc->live_bytes > sc->high_water)
        sc->high_water = sc->live_bytes;
    if (sc->footprint > sc->peak_footprint)
        sc->peak_footprint = sc->footprint;
}

/* One chunk for class c from malloc: its first block is returned, the other
 * refill - 1 go on the list in address order (the lowest is popped first). */
static void *refill(hr_sizeclass_t *sc, int c) {
    size_t cs = class_size(sc, c);
    hr_sc_chunk_t *k = malloc(hr_sizeclass_chunk_request(sc, cs));
    if (!k)
        return NULL;
    k->next = sc->chunks[c];
    sc->chunks[c] = k;
    sc->nchunks[c]++;
    sc->footprint += sc->charge[c];
    char *first = (char *)(k + 1);
    for (unsigned i = sc->opt.refill - 1; i >= 1; i--) {
        hr_sc_node_t *n = (hr_sc_node_t *)(first + (size_t)i * cs);
        n->next = sc->lists[c];
        sc->lists[c] = n;
    }
    sc->cached[c] += sc->opt.refill - 1;
    return first;
}

static void *alloc_large(hr_sizeclass_t *sc, size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p)
        return NULL;
    sc->large_live++;
    sc->large_bytes += size;
    sc->large_charged += hr_chunk_usable(size);
    sc->footprint += hr_chunk_usable(size);
    return p;
}

/* The rest of hr_sizeclass_alloc (sizeclass.h): a large block, or a class
 * whose list is empty (a refill). */
void *hr_sizeclass_alloc_slow(hr_sizeclass_t *sc, size_t size) {
    int c = class_of(sc, size);
    void *p;
    if (c < 0) {
        if (!(p = alloc_large(sc, size)))
            return NULL;
    } else if (sc->lists[c]) {
        return hr_sizeclass_alloc(sc, size);
    } else {
        if (!(p = refill(sc, c)))
            return NULL;
        sc->misses++;
    }
    sc->live_bytes += size;
    note_peaks(sc);
    return p;
}

/* The rest of hr_sizeclass_free (sizeclass.h): a large block. */
void hr_sizeclass_free_slow(hr_sizeclass_t *sc, void *p, size_t size) {
    sc->live_bytes -= size;
    free(p);
    sc->large_live--;
    sc->large_bytes -= size;
    sc->large_charged -= hr_chunk_usable(size);
    sc->footprint -= hr_chunk_usable(size);
}

void *hr_sizeclass_realloc(hr_sizeclass_t *sc, void *p, size_t old_size, size_t new_size) {
    int co = class_of(sc, old_size), cn = class_of(sc, new_size);
    if (co >= 0 && co == cn) {
        hr_sizeclass_resize(sc, old_size, new_size);
        return p;
    }
    if (co < 0 && cn < 0) { /* large to large: malloc's realloc */
        void *q = realloc(p, new_size ? new_size : 1);
        if (!q)
            return NULL;
        size_t oc = hr_chunk_usable(old_size), nc = hr_chunk_usable(new_size);
        sc->large_bytes += new_size - old_size;
        sc->large_charged += nc - oc;
        sc->footprint += nc - oc;
        hr_sizeclass_resize(sc, old_size, new_size);
        note_peaks(sc);
        return q;
    }
    void *q = hr_sizeclass_alloc(sc, new_size);
    if (!q)
        return NULL;
    memcpy(q, p, old_size < new_size ? old_size : new_size);
    hr_sizeclass_free(sc, p, old_size);
    return q;
}

static int cmp_ptr(const void *a, const void *b) {
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* The chunks of class c, sorted by address, in a malloc'd array (NULL when
 * out of memory; n = 0 gives a 1-element array). */
static uintptr_t *chunk_table(const hr_sizeclass_t *sc, int c) {
    uintptr_t *t = malloc((sc->nchunks[c] + 1) * sizeof *t);
    if (!t)
        return NULL;
    size_t n = 0;
    for (hr_sc_chunk_t *k = sc->chunks[c]; k && n < sc->nchunks[c]; k = k->next)
        t[n++] = (uintptr_t)k;
    qsort(t, n, sizeof *t, cmp_ptr);
    return t;
}

/* Index in the sorted table t[n] of the chunk holding block p of class c at
 * a block boundary, or -1. */
static long chunk_find(const hr_sizeclass_t *sc, int c, const uintptr_t *t, size_t n,
                       uintptr_t p) {
    size_t lo = 0, hi = n; /* first chunk starting above p */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t[mid] <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    uintptr_t base = t[lo - 1] + HR_SIZECLASS_CHUNK_HEADER;
    size_t cs = class_size(sc, c);
    if (p < base || p >= base + (uintptr_t)sc->opt.refill * cs || (p - base) % cs)
        return -1;
    return (long)(lo - 1);
}

/* Trim of one class: chunks whose every block is cached are freed. */
static uint64_t trim_class(hr_sizeclass_t *sc, int c) {
    size_t n = sc->nchunks[c];
    uintptr_t *t = chunk_table(sc, c);
    uint32_t *cnt = calloc(n + 1, sizeof *cnt);
    uint64_t released = 0;
    if (t && cnt) {
        for (hr_sc_node_t *b = sc->lists[c]; b; b = b->next) {
            long i = chunk_find(sc, c, t, n, (uintptr_t)b);
            if (i >= 0)
                cnt[i]++;
        }
        hr_sc_node_t **pp = &sc->lists[c]; /* unlink the blocks of full chunks */
        while (*pp) {
            long i = chunk_find(sc, c, t, n, (uintptr_t)*pp);
            if (i >= 0 && cnt[i] == sc->opt.refill) {
                *pp = (*pp)->next;
                sc->cached[c]--;
            } else {
                pp = &(*pp)->next;
            }
        }
        hr_sc_chunk_t **kp = &sc->chunks[c];
        while (*kp) {
            hr_sc_chunk_t *k = *kp;
            long i = chunk_find(sc, c, t, n, (uintptr_t)(k + 1));
            if (i >= 0 && cnt[i] == sc->opt.refill) {
                *kp = k->next;
                free(k);
                sc->nchunks[c]--;
                released += sc->charge[c];
            } else {
                kp = &k->next;
            }
        }
    }
    free(t);
    free(cnt);
    sc->footprint -= released;
    return released;
}

uint64_t hr_sizeclass_trim(hr_sizeclass_t *sc) {
    uint64_t released = 0;
    for (int c = 0; c < sc->nclasses; c++)
        if (sc->cached[c])
            released += trim_class(sc, c);
    return released;
}

uint64_t hr_sizeclass_footprint(const hr_sizeclass_t *sc) { return sc->footprint; }

void hr_sizeclass_stats(const hr_sizeclass_t *sc, hr_sizeclass_stats_t *st) {
    memset(st, 0, sizeof *st);
    st->head.live_bytes = sc->live_bytes;
    st->head.footprint = sc->footprint;
    st->head.high_water = sc->high_water;
    st->head.peak_footprint = sc->peak_footprint;
    st->large_live = sc->large_live;
    st->large_bytes = sc->large_bytes;
    st->hits = sc->hits;
    st->misses = sc->misses;
    st->nclasses = sc->nclasses;
    st->head.objects = sc->large_live;
    /* Class - requested over the live small blocks: their class bytes less
     * the small bytes live (summed here, not kept per op). */
    uint64_t class_bytes = 0;
    for (int c = 0; c < sc->nclasses; c++) {
        size_t cs = class_size(sc, c);
        uint64_t live = sc->nchunks[c] * sc->opt.refill - sc->cached[c];
        st->head.objects += live;
        class_bytes += live * cs;
        st->cached_bytes += sc->cached[c] * cs;
        st->chunks += sc->nchunks[c];
        if (sc->cached[c])
            st->head.largest_free = cs;
    }
    st->internal_waste = class_bytes - (sc->live_bytes - sc->large_bytes);
}

/* The blocks on class c's list: each inside one of its chunks at a block
 * boundary, count = cached[c]; appended to all[*k]. */
static int check_list(const hr_sizeclass_t *sc, int c, uintptr_t *all, size_t *k) {
    uintptr_t *t = chunk_table(sc, c);
    if (!t)
        return HR_SIZECLASS_ECORRUPT;
    uint64_t n = 0;
    int rc = HR_SIZECLASS_OK;
    for (hr_sc_node_t *p = sc->lists[c]; p && rc == 0; p = p->next) {
        if (++n > sc->cached[c] || chunk_find(sc, c, t, sc->nchunks[c], (uintptr_t)p) < 0)
            rc = HR_SIZECLASS_ECORRUPT; /* cycle, miscount or a stray block */
        else
            all[(*k)++] = (uintptr_t)p;
    }
    free(t);
    return rc == 0 && n != sc->cached[c] ? HR_SIZECLASS_ECORRUPT : rc;
}

int hr_sizeclass_check(const hr_sizeclass_t *sc) {
    uint64_t total = 0, fp = sc->large_charged;
    for (int c = 0; c < sc->nclasses; c++) {
        uint64_t chain = 0;
        for (hr_sc_chunk_t *k = sc->chunks[c]; k && chain <= sc->nchunks[c]; k = k->next)
            chain++;
        if (chain != sc->nchunks[c] || sc->cached[c] > sc->nchunks[c] * sc->opt.refill)
            return HR_SIZECLASS_ECORRUPT;
        total += sc->cached[c];
        fp += sc->nchunks[c] * sc->charge[c];
    }
    if (fp != sc->footprint)
        return HR_SIZECLASS_ECORRUPT;
    uintptr_t *all = malloc((total + 1) * sizeof *all);
    if (!all)
        return HR_SIZECLASS_ECORRUPT;
    size_t k = 0;
    int rc = HR_SIZECLASS_OK;
    for (int c = 0; c < sc->nclasses && rc == 0; c++)
        rc = check_list(sc, c, all, &k);
    if (rc == 0) {
        qsort(all, k, sizeof *all, cmp_ptr);
        for (size_t i = 1; i < k; i++)
            if (all[i] == all[i - 1])
                rc = HR_SIZECLASS_ECORRUPT; /* a block cached twice */
    }
    free(all);
    return rc;
}
