/* The --verify checker (see verify.h for what is checked and the call
 * order). Live blocks live in a treap keyed by start address whose nodes are
 * indexed by block id: an id holds at most one block at a time, so the node
 * array (n_ids entries, mapped once from hmem) needs no free list, and a
 * node is found from its id in O(1). */
#include "replay/verify.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base/hmem.h"

#define NIL UINT32_MAX
#define PAT_BYTES (2 * HR_VERIFY_EDGE)

/* One id's live block, split in two arrays indexed by id: the treap walk
 * touches only the hot part, the cold part is read when a block is checked.
 * Parent links let a free unlink its node without walking from the root. A node's treap priority is a hash of
 * its key, computed when needed, not stored. */
typedef struct vhot {
    uintptr_t key;   /* start address; 0 while the id holds no block */
    uint32_t  l, r;  /* treap children (node indices), NIL for none */
    uint32_t  up;    /* treap parent, NIL for the root */
} vhot_t;

typedef struct vcold {
    uint64_t len;    /* requested size */
    uint64_t ev;     /* event index of the allocation (the pattern's seed) */
} vcold_t;

struct hr_verify {
    vhot_t          *hot;
    vcold_t         *cold;
    size_t           hot_bytes, cold_bytes;
    uint32_t         n_ids, root;
    uint64_t         live, checked;
    hr_verify_kind_t kind;      /* first violation, HR_VERIFY_OK while none */
    uint64_t         event;
    char             msg[384];
};

const char *hr_verify_kind_name(hr_verify_kind_t k) {
    switch (k) {
    case HR_VERIFY_OK: return "ok";
    case HR_VERIFY_MISALIGNED: return "misaligned";
    case HR_VERIFY_OVERLAP: return "overlap";
    case HR_VERIFY_CORRUPT: return "corrupt";
    case HR_VERIFY_NOT_ZERO: return "calloc_not_zero";
    }
    return "?";
}

uint64_t hr_verify_required_align(uint64_t size, uint32_t align) {
    if (align)
        return align;
    uint64_t a = HR_VERIFY_DEFAULT_ALIGN;
    uint64_t n = size ? size : 1;
    while (a > n) /* the largest power of two <= n, capped at the default */
        a >>= 1;
    return a;
}

void hr_verify_free(hr_verify_t *v) {
    if (!v)
        return;
    hr_hmem_free(v->hot, v->hot_bytes);
    hr_hmem_free(v->cold, v->cold_bytes);
    hr_hmem_free(v, sizeof *v);
}

hr_verify_t *hr_verify_new(uint32_t n_ids, hr_error_t *err) {
    hr_verify_t *v = hr_hmem_alloc(sizeof *v, 0);
    if (!v) {
        hr_error_set(err, "verify: out of memory");
        return NULL;
    }
    size_t n = n_ids ? n_ids : 1;
    v->n_ids = n_ids;
    v->root = NIL;
    v->hot_bytes = n * sizeof(vhot_t);
    v->cold_bytes = n * sizeof(vcold_t);
    /* zeroed pages: every id starts without a block, and the pages of ids
     * never used are never faulted in */
    v->hot = hr_hmem_alloc(v->hot_bytes, 0);
    v->cold = hr_hmem_alloc(v->cold_bytes, 0);
    if (!v->hot || !v->cold) {
        hr_error_set(err, "verify: out of memory for %" PRIu32 " block ids", n_ids);
        hr_verify_free(v);
        return NULL;
    }
    /* The treap walk of a large trace is a chain of dependent loads at random
     * ids: huge pages (where the kernel offers them on request) save a TLB
     * miss per step. Small tables keep small pages (no RSS to waste). */
#ifdef MADV_HUGEPAGE
    if (v->hot_bytes >= ((size_t)4 << 20))
        (void)madvise(v->hot, v->hot_bytes, MADV_HUGEPAGE);
#endif
    return v;
}

hr_verify_kind_t hr_verify_result(const hr_verify_t *v, uint64_t *event, const char **msg) {
    if (event)
        *event = v->kind ? v->event : 0;
    if (msg)
        *msg = v->kind ? v->msg : "";
    return v->kind;
}

uint64_t hr_verify_checked(const hr_verify_t *v) { return v->checked; }
uint64_t hr_verify_live(const hr_verify_t *v) { return v->live; }

/* ---- the treap ---------------------------------------------------------- */

static uint64_t mix64(uint64_t x) { /* splitmix64's finaliser */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A parent's priority is >= its children's; hashing the address makes the
 * tree a random one whatever order the allocator hands addresses out in
 * (expected depth O(log n)). */
static inline uint64_t pri(uintptr_t key) { return mix64(key); }

/* The neighbours of a new key k seen on its search path: the last node with
 * a key <= k and the first with a key > k (or >= k once the split runs). */
typedef struct nbrs {
    uint32_t pred, succ;
} nbrs_t;

/* Splits subtree t into keys < k, hung as x's left child, and keys >= k, as
 * its right child, iteratively; updates the neighbours of k on the way (the
 * split walks the rest of k's search path). */
static void tsplit(vhot_t *n, uint32_t t, uintptr_t k, uint32_t x, nbrs_t *nb) {
    uint32_t *a = &n[x].l, *b = &n[x].r, pa = x, pb = x; /* link, its owner */
    while (t != NIL) {
        if (n[t].key < k) {
            *a = t;
            n[t].up = pa;
            nb->pred = pa = t;
            a = &n[t].r;
            t = n[t].r;
        } else {
            *b = t;
            n[t].up = pb;
            nb->succ = pb = t;
            b = &n[t].l;
            t = n[t].l;
        }
    }
    *a = *b = NIL;
}

/* Merges subtrees a and b (every key of a < every key of b) into *link,
 * a link owned by node `up`. */
static void tmerge(vhot_t *n, uint32_t a, uint32_t b, uint32_t *link, uint32_t up) {
    while (a != NIL && b != NIL) {
        uint32_t t;
        if (pri(n[a].key) >= pri(n[b].key)) {
            t = a;
            a = n[a].r;
            *link = t;
            link = &n[t].r;
        } else {
            t = b;
            b = n[b].l;
            *link = t;
            link = &n[t].l;
        }
        n[t].up = up;
        up = t;
    }
    uint32_t rest = a != NIL ? a : b;
    *link = rest;
    if (rest != NIL)
        n[rest].up = up;
}

/* Inserts id x at address k and returns the blocks that were its neighbours,
 * in one walk. The caller then tests those for overlap: when one overlaps,
 * the checker stops, so a tree holding overlapping keys is never walked. */
static nbrs_t tinsert(hr_verify_t *v, uint32_t x, uintptr_t k) {
    vhot_t *n = v->hot;
    nbrs_t nb = {NIL, NIL};
    uint64_t px = pri(k);
    uint32_t *link = &v->root, up = NIL;
    while (*link != NIL && pri(n[*link].key) >= px) {
        uint32_t t = up = *link;
        if (k < n[t].key) {
            nb.succ = t;
            link = &n[t].l;
        } else {
            nb.pred = t;
            link = &n[t].r;
        }
    }
    n[x].key = k;
    tsplit(n, *link, k, x, &nb);
    *link = x;
    n[x].up = up;
    v->live++;
    return nb;
}

/* Removes live id x: its children merge into its place (expected O(1)). */
static void terase(hr_verify_t *v, uint32_t x) {
    vhot_t *n = v->hot;
    uint32_t up = n[x].up;
    uint32_t *link = up == NIL ? &v->root : n[up].l == x ? &n[up].l : &n[up].r;
    tmerge(n, n[x].l, n[x].r, link, up);
    n[x].key = 0;
    v->live--;
}

/* The neighbour overlapping the new block [k, k + max(len, 1)), or NIL.
 * Live blocks never overlap each other, so only these two can. */
static uint32_t overlapping(const hr_verify_t *v, nbrs_t nb, uintptr_t k, uint64_t len) {
    if (nb.pred != NIL) {
        uint64_t pl = v->cold[nb.pred].len;
        if (k - v->hot[nb.pred].key < (pl ? pl : 1))
            return nb.pred;
    }
    if (nb.succ != NIL && v->hot[nb.succ].key - k < (len ? len : 1))
        return nb.succ;
    return NIL;
}

/* ---- patterns ----------------------------------------------------------- */

/* The 32 pattern bytes of the block id allocated at event ev: bytes 0..15
 * go to the head, 16..31 to the tail. No byte is zero, so a block zeroed by
 * the allocator is always seen. */
static void pattern(uint64_t ev, uint32_t id, uint8_t pat[PAT_BYTES]) {
    uint64_t seed = mix64(ev ^ ((uint64_t)id << 32) ^ 0x68727665ull);
    for (int w = 0; w < PAT_BYTES / 8; w++) {
        uint64_t x = mix64(seed + (uint64_t)w);
        for (int b = 0; b < 8; b++) {
            uint8_t c = (uint8_t)(x >> (8 * b));
            pat[w * 8 + b] = c ? c : 0xA5;
        }
    }
}

/* The head [0, h) and tail [ts, size) of a block: h = min(16, size), the
 * tail is the last up to 16 bytes that are not in the head. */
static uint64_t head_end(uint64_t size) { return size < HR_VERIFY_EDGE ? size : HR_VERIFY_EDGE; }
static uint64_t tail_start(uint64_t size) {
    if (size <= HR_VERIFY_EDGE)
        return size;
    return size - HR_VERIFY_EDGE > HR_VERIFY_EDGE ? size - HR_VERIFY_EDGE : HR_VERIFY_EDGE;
}

static void write_edges(uint8_t *p, uint64_t size, const uint8_t pat[PAT_BYTES]) {
    uint64_t h = head_end(size), ts = tail_start(size);
    memcpy(p, pat, h);
    memcpy(p + ts, pat + HR_VERIFY_EDGE, size - ts);
}

/* Compares the edge bytes of a block of `size` bytes at p with pat (NULL:
 * zero), reading only offsets < limit. Returns the first differing offset,
 * or UINT64_MAX when all match; got and want take the bytes there. */
static uint64_t check_edges(const uint8_t *p, uint64_t size, uint64_t limit, const uint8_t *pat, uint8_t *got,
                            uint8_t *want) {
    uint64_t h = head_end(size), ts = tail_start(size);
    uint64_t hl = h < limit ? h : limit, tl = size < limit ? size : limit;
    for (uint64_t off = 0; off < hl; off++) {
        uint8_t w = pat ? pat[off] : 0;
        if (p[off] != w)
            return *got = p[off], *want = w, off;
    }
    for (uint64_t off = ts; off < tl; off++) {
        uint8_t w = pat ? pat[HR_VERIFY_EDGE + off - ts] : 0;
        if (p[off] != w)
            return *got = p[off], *want = w, off;
    }
    return UINT64_MAX;
}

/* ---- checks ------------------------------------------------------------- */

/* A block as the checker saw it at its allocation. */
typedef struct blk {
    uint32_t  id;
    uintptr_t p;
    uint64_t  len, ev;
} blk_t;

static blk_t blk_of(const hr_verify_t *v, uint32_t x) {
    blk_t b = {x, v->hot[x].key, v->cold[x].len, v->cold[x].ev};
    return b;
}

/* The allocator call being checked, described only when it is at fault (a
 * message formatted per call would cost more than the check). */
typedef struct vop {
    uint64_t    ev;
    const char *name;       /* "alloc", "calloc", "free", "realloc" */
    uint32_t    id, new_id;
    uint64_t    size, new_size;
    int         moved;      /* after a realloc: "id A -> B, X -> Y bytes" */
} vop_t;

/* Records the first violation: "event N (OP id I, S bytes): DETAIL". */
static void violate(hr_verify_t *v, hr_verify_kind_t k, const vop_t *op, const char *detail) {
    v->kind = k;
    v->event = op->ev;
    if (op->moved)
        snprintf(v->msg, sizeof v->msg, "event %" PRIu64 " (%s id %" PRIu32 " -> %" PRIu32 ", %" PRIu64
                 " -> %" PRIu64 " bytes): %s", op->ev, op->name, op->id, op->new_id, op->size, op->new_size,
                 detail);
    else
        snprintf(v->msg, sizeof v->msg, "event %" PRIu64 " (%s id %" PRIu32 ", %" PRIu64 " bytes): %s", op->ev,
                 op->name, op->id, op->size, detail);
}

static int check_align(hr_verify_t *v, const vop_t *op, uintptr_t p, uint64_t size,
                       uint32_t align) {
    uint64_t need = hr_verify_required_align(size, align);
    if (p % need == 0)
        return 0;
    char d[160];
    snprintf(d, sizeof d, "0x%" PRIxPTR " is not aligned to %" PRIu64 " (address mod %" PRIu64 " = %" PRIu64 ")",
             p, need, need, (uint64_t)(p % need));
    violate(v, HR_VERIFY_MISALIGNED, op, d);
    return -1;
}

/* Makes id x live at p with the given size; 0 unless it overlaps a live
 * block (then the violation is recorded and the checker stops). */
static int insert_checked(hr_verify_t *v, const vop_t *op, uint32_t x, uintptr_t p,
                          uint64_t size) {
    v->cold[x].len = size;
    v->cold[x].ev = op->ev;
    uint32_t o = overlapping(v, tinsert(v, x, p), p, size);
    if (o == NIL)
        return 0;
    blk_t b = blk_of(v, o);
    char d[200];
    snprintf(d, sizeof d, "0x%" PRIxPTR " overlaps live block id %" PRIu32 " [0x%" PRIxPTR ",+%" PRIu64
             ") allocated at event %" PRIu64, p, b.id, b.p, b.len, b.ev);
    violate(v, HR_VERIFY_OVERLAP, op, d);
    return -1;
}

/* Checks block b's pattern, read at p (offsets < limit only); 0 if intact.
 * `where` says which bytes were compared, for the message. */
static int check_pattern(hr_verify_t *v, const vop_t *op, blk_t b, const uint8_t *p,
                         uint64_t limit, const char *where) {
    uint8_t pat[PAT_BYTES], got = 0, want = 0;
    pattern(b.ev, b.id, pat);
    uint64_t off = check_edges(p, b.len, limit, pat, &got, &want);
    if (off == UINT64_MAX)
        return 0;
    char d[256];
    snprintf(d, sizeof d, "%s byte %" PRIu64 " is 0x%02x, expected 0x%02x (pattern of block id %" PRIu32
             " [0x%" PRIxPTR ",+%" PRIu64 ") written at event %" PRIu64 ")",
             where, off, got, want, b.id, b.p, b.len, b.ev);
    violate(v, HR_VERIFY_CORRUPT, op, d);
    return -1;
}

static void write_pattern(uint64_t ev, uint32_t id, void *p, uint64_t size) {
    uint8_t pat[PAT_BYTES];
    pattern(ev, id, pat);
    write_edges(p, size, pat);
}

/* The live id whose block starts at p, or NIL. */
static uint32_t live_at(const hr_verify_t *v, uint32_t id, const void *p) {
    if (id >= v->n_ids || !p || v->hot[id].key != (uintptr_t)p)
        return NIL;
    return id;
}

void hr_verify_alloc(hr_verify_t *v, uint64_t ev, uint32_t id, void *p, uint64_t size, uint32_t align,
                     int is_calloc) {
    if (v->kind || !p || id >= v->n_ids)
        return;
    v->checked++;
    /* an id still live here is the engine overwriting its slot (the old block
     * leaks): forget it, which can only hide an overlap, never invent one */
    if (v->hot[id].key)
        terase(v, id);
    const vop_t op = {ev, is_calloc ? "calloc" : "alloc", id, id, size, size, 0};
    if (check_align(v, &op, (uintptr_t)p, size, align) != 0 ||
        insert_checked(v, &op, id, (uintptr_t)p, size) != 0)
        return;
    if (is_calloc) {
        uint8_t got = 0, want = 0;
        uint64_t off = check_edges(p, size, size, NULL, &got, &want);
        if (off != UINT64_MAX) {
            char d[160];
            snprintf(d, sizeof d, "0x%" PRIxPTR " byte %" PRIu64 " is 0x%02x, not zero", (uintptr_t)p, off, got);
            violate(v, HR_VERIFY_NOT_ZERO, &op, d);
            return;
        }
    }
    write_pattern(ev, id, p, size);
}

void hr_verify_before_free(hr_verify_t *v, uint64_t ev, uint32_t id, void *p, uint64_t size) {
    if (v->kind || !p)
        return;
    v->checked++;
    uint32_t x = live_at(v, id, p);
    if (x == NIL) /* a block the checker was not shown: nothing to compare */
        return;
    const vop_t op = {ev, "free", id, id, size, size, 0};
    blk_t b = blk_of(v, x);
    if (check_pattern(v, &op, b, p, size < b.len ? size : b.len, "before free:") == 0)
        terase(v, x);
}

void hr_verify_before_realloc(hr_verify_t *v, uint64_t ev, uint32_t old_id, void *p_old, uint64_t old_size) {
    if (v->kind)
        return;
    v->checked++;
    uint32_t x = live_at(v, old_id, p_old);
    if (x == NIL)
        return;
    const vop_t op = {ev, "realloc", old_id, old_id, old_size, old_size, 0};
    blk_t b = blk_of(v, x);
    check_pattern(v, &op, b, p_old, old_size < b.len ? old_size : b.len, "before realloc:");
}

void hr_verify_after_realloc(hr_verify_t *v, uint64_t ev, uint32_t old_id, uint32_t new_id, void *p_new,
                             uint64_t old_size, uint64_t new_size) {
    if (v->kind || !p_new || new_id >= v->n_ids)
        return; /* NULL: the old block stays live, freed next by the engine */
    const vop_t op = {ev, "realloc", old_id, new_id, old_size, new_size, 1};
    int had_old = old_id < v->n_ids && v->hot[old_id].key != 0;
    blk_t old = had_old ? blk_of(v, old_id) : (blk_t){0, 0, 0, 0};
    if (had_old) /* the old block is gone: the new one may reuse its place */
        terase(v, old_id);
    if (v->hot[new_id].key)
        terase(v, new_id);
    if (check_align(v, &op, (uintptr_t)p_new, new_size, 0) != 0 ||
        insert_checked(v, &op, new_id, (uintptr_t)p_new, new_size) != 0)
        return;
    if (had_old) {
        uint64_t keep = old.len < new_size ? old.len : new_size;
        if (old_size < keep)
            keep = old_size;
        if (check_pattern(v, &op, old, p_new, keep, "contents not preserved:") != 0)
            return;
    }
    write_pattern(ev, new_id, p_new, new_size);
}
