/* Doug-Lea-style boundary-tag heap over one fixed region (see dlheap.h for
 * the layout and the exact meaning of every status figure). */
#include "alloc/dlheap.h"

#include <string.h>

#define HDR       ((size_t)HR_DLHEAP_HEADER)
#define MINC      ((size_t)HR_DLHEAP_MIN_CHUNK)
#define INUSE     ((size_t)1)
#define NSMALL    63 /* exact bins for chunk sizes 32..1024 */

typedef struct chunk {
    size_t prev_size;   /* size of the chunk physically before (0: none) */
    size_t head;        /* size | INUSE */
    struct chunk *next; /* free-list links: valid only while free */
    struct chunk *prev;
} chunk_t;

static inline size_t csize(const chunk_t *c) { return c->head & ~INUSE; }
static inline int inuse(const chunk_t *c) { return (int)(c->head & INUSE); }
static inline chunk_t *at(const void *p, size_t off) { return (chunk_t *)((unsigned char *)p + off); }
static inline chunk_t *next_chunk(const chunk_t *c) { return at(c, csize(c)); }
static inline chunk_t *mem2chunk(const void *p) { return (chunk_t *)((unsigned char *)p - HDR); }
static inline void *chunk2mem(chunk_t *c) { return (unsigned char *)c + HDR; }

hr_dlheap_options_t hr_dlheap_options_default(void) {
    hr_dlheap_options_t o = {0};
    return o;
}

/* Bin of a chunk size: exact below 1040, then 4 bins per power of two; the
 * ranges increase with the index, so the first non-empty bin above a
 * request's own bin holds only chunks that fit. */
static unsigned bin_index(size_t sz) {
    if (sz <= 1024)
        return (unsigned)(sz / 16 - 2);
    unsigned b = 63u - (unsigned)__builtin_clzll((unsigned long long)sz); /* >= 10 */
    unsigned idx = NSMALL + (b - 10) * 4 + (unsigned)((sz >> (b - 2)) & 3);
    return idx < HR_DLHEAP_NBINS ? idx : HR_DLHEAP_NBINS - 1;
}

static void bin_insert(hr_dlheap_t *h, chunk_t *c) {
    unsigned i = bin_index(csize(c));
    chunk_t *first = h->bins[i];
    c->prev = NULL;
    c->next = first;
    if (first)
        first->prev = c;
    h->bins[i] = c;
    h->bitmap[i >> 6] |= 1ull << (i & 63);
    h->free_bytes += csize(c);
    h->free_chunks++;
}

static void bin_unlink(hr_dlheap_t *h, chunk_t *c) {
    unsigned i = bin_index(csize(c));
    if (c->prev)
        c->prev->next = c->next;
    else
        h->bins[i] = c->next;
    if (c->next)
        c->next->prev = c->prev;
    if (!h->bins[i])
        h->bitmap[i >> 6] &= ~(1ull << (i & 63));
    h->free_bytes -= csize(c);
    h->free_chunks--;
}

int hr_dlheap_init(hr_dlheap_t *h, void *mem, size_t size) {
    memset(h, 0, sizeof *h);
    uintptr_t a = ((uintptr_t)mem + 15) & ~(uintptr_t)15;
    size_t skew = (size_t)(a - (uintptr_t)mem);
    if (!mem || size < skew + HDR + MINC)
        return -1;
    size_t usable = (size - skew) & ~(size_t)15;
    if (usable < HDR + MINC)
        return -1;
    h->base = (unsigned char *)a;
    h->end = h->base + usable - HDR;
    chunk_t *first = (chunk_t *)h->base;
    first->prev_size = 0;
    first->head = usable - HDR;
    chunk_t *sentinel = (chunk_t *)h->end;
    sentinel->prev_size = csize(first);
    sentinel->head = INUSE; /* size 0, never free: stops coalescing */
    bin_insert(h, first);
    return 0;
}

uint64_t hr_dlheap_capacity(const hr_dlheap_t *h) {
    return h->base ? (uint64_t)(h->end - h->base) - HDR : 0;
}

/* Smallest chunk in bin i that is >= nb (NULL if none). */
static chunk_t *best_in_bin(const hr_dlheap_t *h, unsigned i, size_t nb) {
    chunk_t *best = NULL;
    for (chunk_t *c = h->bins[i]; c; c = c->next) {
        size_t s = csize(c);
        if (s >= nb && (!best || s < csize(best))) {
            best = c;
            if (s == nb || i < NSMALL)
                break; /* exact bins: every member has the same size */
        }
    }
    return best;
}

/* First non-empty bin with index >= i, or -1. */
static int next_bin(const hr_dlheap_t *h, unsigned i) {
    for (unsigned w = i >> 6; w < 2; w++) {
        uint64_t bits = h->bitmap[w];
        if (w == i >> 6)
            bits &= ~0ull << (i & 63);
        if (bits)
            return (int)(w * 64 + (unsigned)__builtin_ctzll(bits));
    }
    return -1;
}

/* Unlinks and returns the best-fitting free chunk of at least nb bytes. */
static chunk_t *take_best(hr_dlheap_t *h, size_t nb) {
    unsigned i = bin_index(nb);
    chunk_t *c = h->bins[i] ? best_in_bin(h, i, nb) : NULL;
    if (!c) {
        int j = next_bin(h, i + 1);
        if (j < 0)
            return NULL;
        c = best_in_bin(h, (unsigned)j, nb);
    }
    if (c)
        bin_unlink(h, c);
    return c;
}

/* Marks the free (unlinked) chunk c in use with size nb, binning the tail
 * when it is large enough to be a chunk of its own. */
static void carve(hr_dlheap_t *h, chunk_t *c, size_t nb) {
    size_t s = csize(c);
    if (s - nb >= MINC) {
        chunk_t *rest = at(c, nb);
        rest->head = s - nb;
        rest->prev_size = nb;
        next_chunk(rest)->prev_size = s - nb;
        bin_insert(h, rest); /* its next neighbour is in use: no merge */
        s = nb;
    }
    c->head = s | INUSE;
    h->in_use += s;
    if (h->in_use > h->high_water)
        h->high_water = h->in_use;
    h->objects++;
}

/* Splits off the front of free chunk c so that the payload is aligned;
 * returns the aligned chunk (still free, unlinked). c's neighbour before is
 * in use (free chunks are never adjacent), so the front piece needs no merge. */
static chunk_t *align_front(hr_dlheap_t *h, chunk_t *c, size_t align) {
    uintptr_t mem = (uintptr_t)chunk2mem(c);
    if ((mem & (align - 1)) == 0)
        return c;
    uintptr_t want = (mem + MINC + align - 1) & ~(uintptr_t)(align - 1);
    size_t lead = (size_t)(want - mem);
    size_t s = csize(c);
    chunk_t *nc = at(c, lead);
    nc->head = s - lead;
    nc->prev_size = lead;
    next_chunk(nc)->prev_size = s - lead;
    c->head = lead;
    bin_insert(h, c);
    return nc;
}

void *hr_dlheap_alloc(hr_dlheap_t *h, size_t size, size_t align) {
    if (!h->base || size > (size_t)(h->end - h->base) || align > (size_t)(h->end - h->base) ||
        (align & (align - 1)) != 0) {
        h->failures++;
        return NULL;
    }
    size_t nb = (size + HDR + 15) & ~(size_t)15;
    if (nb < MINC)
        nb = MINC;
    size_t want = nb;
    if (align > 16)
        want = nb + align + MINC; /* room to cut an aligned chunk out */
    chunk_t *c = take_best(h, want);
    if (!c) {
        h->failures++;
        return NULL;
    }
    if (align > 16)
        c = align_front(h, c, align);
    carve(h, c, nb);
    return chunk2mem(c);
}

int hr_dlheap_owns(const hr_dlheap_t *h, const void *p) {
    const unsigned char *q = p;
    return q >= h->base + HDR && q < h->end;
}

size_t hr_dlheap_usable(const hr_dlheap_t *h, const void *p) {
    (void)h;
    return csize(mem2chunk(p)) - HDR;
}

int hr_dlheap_free(hr_dlheap_t *h, void *p) {
    if (!p)
        return 0;
    if (!hr_dlheap_owns(h, p) || ((uintptr_t)p & 15) != 0 || !inuse(mem2chunk(p))) {
        h->bad_frees++;
        return -1;
    }
    chunk_t *c = mem2chunk(p);
    size_t s = csize(c);
    h->in_use -= s;
    h->objects--;
    chunk_t *n = at(c, s);
    if (!inuse(n)) { /* merge with the free chunk after */
        bin_unlink(h, n);
        s += csize(n);
    }
    if (c->prev_size) {
        chunk_t *pc = (chunk_t *)((unsigned char *)c - c->prev_size);
        if (!inuse(pc)) { /* merge into the free chunk before */
            bin_unlink(h, pc);
            s += csize(pc);
            c = pc;
        }
    }
    c->head = s;
    next_chunk(c)->prev_size = s;
    bin_insert(h, c);
    return 0;
}

void hr_dlheap_status(const hr_dlheap_t *h, hr_heap_status_t *st) {
    st->total_free = h->free_bytes - h->free_chunks * HDR;
    st->objects = h->objects;
    st->high_water = h->high_water;
    st->largest_free = 0;
    int top = -1;
    for (int w = 1; w >= 0 && top < 0; w--)
        if (h->bitmap[w])
            top = w * 64 + 63 - __builtin_clzll(h->bitmap[w]);
    if (top >= 0)
        for (chunk_t *c = h->bins[top]; c; c = c->next)
            if (csize(c) - HDR > st->largest_free)
                st->largest_free = csize(c) - HDR;
}

int hr_dlheap_check(const hr_dlheap_t *h, hr_error_t *err) {
    uint64_t nfree = 0, fbytes = 0, ubytes = 0, nused = 0;
    size_t prev = 0;
    int prev_free = 0;
    const chunk_t *c = (const chunk_t *)h->base;
    while ((const unsigned char *)c < h->end) {
        size_t s = csize(c);
        if (s < MINC || (s & 15) || (const unsigned char *)c + s > h->end) {
            hr_error_set(err, "chunk at +%zu: bad size %zu",
                     (size_t)((const unsigned char *)c - h->base), s);
            return -1;
        }
        if (c->prev_size != prev) {
            hr_error_set(err, "chunk at +%zu: prev_size %zu, expected %zu",
                     (size_t)((const unsigned char *)c - h->base), c->prev_size, prev);
            return -1;
        }
        if (!inuse(c) && prev_free) {
            hr_error_set(err, "adjacent free chunks at +%zu",
                     (size_t)((const unsigned char *)c - h->base));
            return -1;
        }
        if (inuse(c))
            nused++, ubytes += s;
        else
            nfree++, fbytes += s;
        prev_free = !inuse(c);
        prev = s;
        c = next_chunk(c);
    }
    if ((const unsigned char *)c != h->end || c->prev_size != prev || !inuse(c)) {
        hr_error_set(err, "chunk walk does not end at the sentinel");
        return -1;
    }
    uint64_t binned = 0;
    for (unsigned i = 0; i < HR_DLHEAP_NBINS; i++) {
        int bit = (int)((h->bitmap[i >> 6] >> (i & 63)) & 1);
        if (bit != (h->bins[i] != NULL)) {
            hr_error_set(err, "bitmap bit %u disagrees with its bin", i);
            return -1;
        }
        for (const chunk_t *f = h->bins[i]; f; f = f->next, binned++)
            if (inuse(f) || bin_index(csize(f)) != i) {
                hr_error_set(err, "bin %u holds a wrong chunk", i);
                return -1;
            }
    }
    if (binned != nfree || nfree != h->free_chunks || fbytes != h->free_bytes ||
        ubytes != h->in_use || nused != h->objects) {
        hr_error_set(err, "counters disagree (free %llu/%llu/%llu, used %llu/%llu)",
                 (unsigned long long)nfree, (unsigned long long)binned,
                 (unsigned long long)h->free_chunks, (unsigned long long)nused,
                 (unsigned long long)h->objects);
        return -1;
    }
    return 0;
}
