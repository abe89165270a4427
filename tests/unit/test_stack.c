/* hr_stack (Box2D b2StackAllocator semantics) and the "stack" backend. */
#include <stdint.h>

#include "alloc/chunk.h"
#include "alloc/stack.h"
#include "backends/inhouse.h"
#include "hr_test.h"
#include "seed_model.h"

extern const hr_backend_t hr_backend_stack;

static hr_stack_t *exact_stack(void) {
    hr_stack_options_t o = hr_stack_default();
    o.granule = 1; /* Box2D's arithmetic: m_index += size */
    return hr_stack_create(&o);
}

static void test_constants(void) {
    hr_stack_options_t o = hr_stack_default();
    HR_CHECK_EQ_U64(o.buffer_size, 102400);
    HR_CHECK_EQ_U64(o.max_entries, 32);
    HR_CHECK_EQ_U64(HR_STACK_BOX2D_SIZE, 100 * 1024);
    HR_CHECK_EQ_U64(HR_STACK_BOX2D_ENTRIES, 32);
    hr_stack_t *s = hr_stack_create(NULL);
    hr_stack_stats_t st;
    hr_stack_stats(s, &st);
    HR_CHECK_EQ_U64(st.head.largest_free, 102400);
    HR_CHECK_EQ_U64(st.head.live_bytes, 0);
    HR_CHECK_EQ_U64(st.head.footprint, 102400 + 32 * sizeof(hr_stack_entry_t));
    HR_CHECK_EQ_U64(hr_stack_check(s), 0);
    hr_stack_destroy(s);
    o.granule = 3;
    HR_CHECK(hr_stack_create(&o) == NULL);
}

static void test_lifo_violation(void) {
    hr_stack_t *s = hr_stack_create(NULL);
    void *a, *b;
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 100, &a), HR_STACK_OK);
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 200, &b), HR_STACK_OK);
    HR_CHECK(hr_stack_top(s) == b);
    HR_CHECK_EQ_I64(hr_stack_free(s, a), HR_STACK_ENOTTOP);
    HR_CHECK_EQ_U64(hr_stack_entry_count(s), 2); /* refused: nothing changed */
    HR_CHECK_EQ_U64(hr_stack_check(s), 0);
    HR_CHECK_EQ_U64(hr_stack_find(s, a), 0);
    HR_CHECK_EQ_U64(hr_stack_find(s, b), 1);
    HR_CHECK_EQ_U64(hr_stack_free(s, b), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, a), 0);
    HR_CHECK_EQ_I64(hr_stack_free(s, a), HR_STACK_EEMPTY);
    HR_CHECK_EQ_U64(hr_stack_max_allocation(s), 300);
    hr_stack_destroy(s);
}

static void test_entry_limit(void) {
    hr_stack_t *s = hr_stack_create(NULL);
    void *p[33];
    for (int i = 0; i < 32; i++)
        HR_CHECK_EQ_U64(hr_stack_alloc(s, 16, &p[i]), 0);
    HR_CHECK_EQ_I64(hr_stack_alloc(s, 16, &p[32]), HR_STACK_EFULL);
    HR_CHECK(p[32] == NULL);
    HR_CHECK_EQ_U64(hr_stack_entry_count(s), 32);
    HR_CHECK_EQ_U64(hr_stack_free(s, p[31]), 0);
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 16, &p[31]), 0); /* room again */
    for (int i = 31; i >= 0; i--)
        HR_CHECK_EQ_U64(hr_stack_free(s, p[i]), 0);
    HR_CHECK_EQ_U64(hr_stack_check(s), 0);
    hr_stack_destroy(s);
}

/* 100 KiB exhausted: malloc per request, then the buffer again when a request
 * fits; entries interleave; max allocation counts both. */
static void test_malloc_fallback_interleave(void) {
    hr_stack_t *s = exact_stack();
    void *a, *b, *c, *d;
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 102000, &a), 0);
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 1000, &b), 0);  /* 102000+1000 > 100 KiB */
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 400, &c), 0);   /* fits exactly */
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 1, &d), 0);     /* buffer full */
    int expect[4] = {0, 1, 0, 1};
    for (int i = 0; i < 4; i++)
        HR_CHECK_EQ_U64(hr_stack_entry(s, i)->used_malloc, expect[i]);
    HR_CHECK(c == (char *)a + 102000);
    hr_stack_stats_t st;
    hr_stack_stats(s, &st);
    HR_CHECK_EQ_U64(st.index, 102400);
    HR_CHECK_EQ_U64(st.head.live_bytes, 103401);
    HR_CHECK_EQ_U64(st.malloc_entries, 2);
    /* malloc entries charged as glibc holds them (alloc/chunk.h): 1000 and 24 */
    HR_CHECK_EQ_U64(st.head.footprint, 102400 + 32 * sizeof(hr_stack_entry_t) + 1000 + 24);
    memset(b, 0xAB, 1000); /* the malloc entry is usable memory */
    HR_CHECK_EQ_U64(hr_stack_check(s), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, d), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, c), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, b), 0);
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 300, &b), 0); /* buffer again */
    HR_CHECK_EQ_U64(hr_stack_entry(s, 1)->used_malloc, 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, b), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, a), 0);
    HR_CHECK_EQ_U64(hr_stack_max_allocation(s), 103401);
    hr_stack_stats(s, &st);
    HR_CHECK_EQ_U64(st.index, 0);
    HR_CHECK_EQ_U64(st.malloc_total, 2);
    hr_stack_destroy(s);
}

static void test_granule(void) {
    hr_stack_t *s = hr_stack_create(NULL);
    void *a, *b;
    hr_stack_alloc(s, 13, &a);
    hr_stack_alloc(s, 5, &b);
    HR_CHECK(b == (char *)a + 16);
    HR_CHECK_EQ_U64((uintptr_t)a % 16, 0);
    HR_CHECK_EQ_U64(hr_stack_entry(s, 1)->size, 5);
    HR_CHECK_EQ_U64(hr_stack_entry(s, 1)->span, 16);
    hr_stack_free(s, b);
    hr_stack_free(s, a);
    hr_stack_destroy(s);
}

/* Thousands of seeded ops against a model stack, patterns verified at free. */
static void test_property(void) {
    uint64_t rng = 3;
    hr_stack_t *s = hr_stack_create(NULL);
    hr_tm_t m = {0};
    uint64_t maxalloc = 0, bad = 0;
    for (int op = 0; op < 20000; op++) {
        uint64_t r = hr_tm_rand(&rng);
        if (m.n > 0 && r % 3 == 0 && m.n > 1 && r % 7 == 0) {
            /* a non-top free must be refused without change */
            size_t i = (size_t)(r >> 8) % (m.n - 1);
            bad += hr_stack_free(s, m.v[i].p) != HR_STACK_ENOTTOP;
        } else if (m.n > 0 && (r % 2 == 0 || m.n == 32)) {
            if (m.n == 32 && r % 5 == 0) {
                void *p;
                bad += hr_stack_alloc(s, 8, &p) != HR_STACK_EFULL;
            }
            hr_tm_block_t b = m.v[m.n - 1];
            bad += !hr_tm_verify(b.p, b.size, b.seed);
            bad += hr_stack_free(s, b.p) != 0;
            hr_tm_take(&m, m.n - 1, 1);
        } else {
            size_t size = (r >> 16) % 4 == 0 ? (size_t)(r >> 20) % 40000 : (size_t)(r >> 20) % 512;
            void *p;
            bad += hr_stack_alloc(s, size, &p) != 0;
            hr_tm_fill(p, size, (uint32_t)op);
            hr_tm_push(&m, p, size, (uint32_t)op);
            if (m.live > maxalloc)
                maxalloc = m.live;
        }
        if (op % 97 == 0) {
            hr_stack_stats_t st;
            hr_stack_stats(s, &st);
            bad += st.head.live_bytes != m.live || st.head.objects != m.n;
            bad += hr_stack_check(s) != 0 || !hr_tm_no_overlap(&m);
        }
    }
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK_EQ_U64(hr_stack_max_allocation(s), maxalloc);
    while (m.n) {
        hr_tm_block_t b = hr_tm_take(&m, m.n - 1, 1);
        HR_CHECK(hr_tm_verify(b.p, b.size, b.seed));
        HR_CHECK_EQ_U64(hr_stack_free(s, b.p), 0);
    }
    HR_CHECK_EQ_U64(hr_stack_check(s), 0);
    hr_tm_free(&m);
    hr_stack_destroy(s);
}

/* Regression: index + span wrapped for a request near 2^64, so the stack
 * returned a pointer inside its buffer for a block it could never hold (a
 * write through it crashed, or overwrote the live blocks). Such a request
 * must take the per-request malloc path like any request that does not fit;
 * malloc refuses it, so the push is refused (ENOMEM) with nothing changed. */
static void test_huge_request_never_wraps(void) {
    static const size_t sizes[] = {SIZE_MAX - 15, SIZE_MAX, SIZE_MAX - 100, SIZE_MAX / 2 + 1};
    for (int g = 0; g < 2; g++) {
        hr_stack_t *s = g ? exact_stack() : hr_stack_create(NULL);
        void *a, *p;
        HR_CHECK_EQ_U64(hr_stack_alloc(s, 16, &a), 0);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            HR_CHECK_EQ_I64(hr_stack_alloc(s, sizes[i], &p), HR_STACK_ENOMEM);
            HR_CHECK(p == NULL);
        }
        hr_stack_stats_t st;
        hr_stack_stats(s, &st);
        HR_CHECK_EQ_U64(st.index, 16);
        HR_CHECK_EQ_U64(st.head.live_bytes, 16);
        HR_CHECK_EQ_U64(hr_stack_entry_count(s), 1);
        HR_CHECK_EQ_U64(hr_stack_check(s), 0);
        HR_CHECK_EQ_U64(hr_stack_free(s, a), 0);
        hr_stack_destroy(s);
    }
    /* Through the backend: no pointer into the buffer, the refusal counted. */
    const hr_backend_t *be = &hr_backend_stack;
    hr_error_t err = {{0}};
    void *inst = hr_tm_create(be, NULL, &err);
    char *a = be->alloc(inst, 16, 0, -1);
    uint64_t fp = be->footprint(inst);
    char *h = be->alloc(inst, SIZE_MAX - 15, 0, -1);
    HR_CHECK(h == NULL || h < a || h >= a + 102400);
    HR_CHECK_EQ_U64(be->footprint(inst), fp);
    be->free(inst, h, SIZE_MAX - 15);
    be->free(inst, a, 16);
    char *js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "out_of_memory", 1));
    HR_CHECK(hr_tm_json_has(js, "entries", 0));
    HR_TM_STATS_END(be, inst, js);
}

/* Regression: with granule=1 (Box2D's m_index += size) blocks followed each
 * other byte by byte, so a 16-aligned request came back misaligned and
 * nothing was counted. Every block must be aligned as asked, or as malloc
 * would align a plain request (min(16, largest power of two <= size)). */
static void test_granule1_alignment(void) {
    const hr_backend_t *be = &hr_backend_stack;
    hr_error_t err = {{0}};
    void *inst = hr_tm_create(be, "granule=1", &err);
    HR_CHECK(inst != NULL);
    static const struct { size_t size, align, need; } rq[] = {
        {3, 0, 2}, {16, 16, 16}, {5, 0, 4}, {8, 0, 8}, {1, 0, 1}, {24, 8, 8},
        {7, 0, 4}, {100, 0, 16}, {1, 16, 16}, {2, 0, 2}, {40, 0, 16},
    };
    enum { N = sizeof rq / sizeof *rq };
    void *p[N];
    for (int i = 0; i < N; i++) {
        p[i] = be->alloc(inst, rq[i].size, rq[i].align, -1);
        HR_CHECK(p[i] != NULL && (uintptr_t)p[i] % rq[i].need == 0);
    }
    for (int i = N - 1; i >= 0; i--)
        be->free(inst, p[i], rq[i].size);
    char *js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "native_ops", 2 * N)); /* all honoured in the buffer */
    HR_CHECK(hr_tm_json_has(js, "index", 0));
    HR_TM_STATS_END(be, inst, js);
}

/* hr_stack_alloc_aligned on Box2D's exact arithmetic: the padding is part of
 * the entry, popped with it; the buffer stays contiguous (check). */
static void test_aligned_padding(void) {
    hr_stack_t *s = exact_stack();
    void *a, *b, *c;
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 3, &a), 0);
    HR_CHECK_EQ_U64(hr_stack_alloc_aligned(s, 10, 16, &b), 0);
    HR_CHECK(b == (char *)a + 16); /* the buffer starts 16-aligned */
    HR_CHECK_EQ_U64(hr_stack_entry(s, 1)->pad, 13);
    HR_CHECK_EQ_U64(hr_stack_entry(s, 1)->span, 23);
    HR_CHECK_EQ_U64(hr_stack_alloc_aligned(s, 1, 1, &c), 0);
    HR_CHECK(c == (char *)b + 10); /* align 1: Box2D's m_index += size */
    HR_CHECK_EQ_I64(hr_stack_alloc_aligned(s, 1, 24, &c), HR_STACK_EALIGN);
    hr_stack_stats_t st;
    hr_stack_stats(s, &st);
    HR_CHECK_EQ_U64(st.index, 27);
    HR_CHECK_EQ_U64(st.head.live_bytes, 14);
    HR_CHECK_EQ_U64(hr_stack_check(s), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, (char *)b + 10), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, b), 0);
    hr_stack_stats(s, &st);
    HR_CHECK_EQ_U64(st.index, 3);
    /* Not enough room for the padding: the malloc path, aligned too. */
    HR_CHECK_EQ_U64(hr_stack_alloc(s, 102400 - 3 - 8, &b), 0);
    HR_CHECK_EQ_U64(hr_stack_alloc_aligned(s, 4, 64, &c), 0);
    HR_CHECK_EQ_U64(hr_stack_entry(s, 2)->used_malloc, 1);
    HR_CHECK_EQ_U64((uintptr_t)c % 64, 0);
    HR_CHECK_EQ_U64(hr_stack_check(s), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, c), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, b), 0);
    HR_CHECK_EQ_U64(hr_stack_free(s, a), 0);
    HR_CHECK_EQ_U64(hr_stack_check(s), 0);
    hr_stack_destroy(s);
}

static void test_backend(void) {
    const hr_backend_t *be = &hr_backend_stack;
    hr_error_t err = {{0}};
    HR_CHECK(hr_tm_create(be, "size=banana", &err) == NULL);
    HR_CHECK(strstr(err.msg, "stack: bad option") != NULL);
    void *inst = hr_tm_create(be, NULL, &err);
    HR_CHECK(inst != NULL);
    uint64_t base = be->footprint(inst);
    HR_CHECK_EQ_U64(base, 102400 + 32 * sizeof(hr_stack_entry_t));
    void *p[40];
    for (int i = 0; i < 40; i++) /* 8 past the entry limit -> fallback */
        p[i] = be->alloc(inst, 24, 0, -1);
    HR_CHECK(be->footprint(inst) > base);
    HR_CHECK_EQ_U64(be->usable_size(inst, p[0], 24), 32);
    /* A fallback block is told by its address (outside the buffer, no
     * entry of the stack's): no set of them is kept. */
    HR_CHECK_EQ_U64(be->usable_size(inst, p[35], 24), hr_chunk_usable(24));
    HR_CHECK_EQ_U64(((hr_inhouse_t *)inst)->fb_set.n, 0);
    void *al = be->alloc(inst, 10, 64, -1); /* align above 16 -> fallback */
    be->free(inst, al, 10);
    for (int i = 39; i >= 32; i--)
        be->free(inst, p[i], 24);
    be->free(inst, p[10], 24); /* out of order: deferred */
    be->free(inst, p[5], 24);
    for (int i = 31; i >= 0; i--)
        if (i != 10 && i != 5)
            be->free(inst, p[i], 24);
    HR_CHECK_EQ_U64(be->footprint(inst), base);
    char *js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "entry_limit", 8));
    HR_CHECK(hr_tm_json_has(js, "align", 1));
    HR_CHECK(hr_tm_json_has(js, "non_lifo_free", 2));
    HR_CHECK(hr_tm_json_has(js, "native_ops", 32 + 30));
    HR_CHECK(hr_tm_json_has(js, "fallback_ops", 18 + 2));
    HR_CHECK(hr_tm_json_has(js, "entries", 0));
    HR_CHECK(hr_tm_json_has(js, "max_allocation", 32 * 24));
    HR_TM_STATS_END(be, inst, js);
}

/* The backend's inline push and pop (a request that fits, a free of the
 * top) against its general path (entries past the limit, blocks past the
 * buffer, alignments above 16, zero bytes, frees out of order): random
 * mostly-LIFO traffic; every live block keeps its contents, the stack's
 * own check holds and the footprint comes back to the empty stack's. */
static void test_backend_mixed(void) {
    enum { N = 60 };
    static const size_t aligns[] = {0, 0, 0, 8, 16, 64};
    const hr_backend_t *be = &hr_backend_stack;
    hr_error_t err = {{0}};
    void *inst = hr_tm_create(be, "size=16K,entries=40", &err);
    uint64_t base = be->footprint(inst), rng = 5, bad = 0;
    char *p[N];
    size_t sz[N];
    int n = 0;
    for (int op = 0; op < 20000; op++) {
        uint64_t r = hr_tm_rand(&rng);
        if (n && (r % 100 < 48 || n == N)) {
            int k = r % 7 == 0 ? (int)((r >> 8) % (uint64_t)n) : n - 1; /* mostly the top */
            bad += !hr_tm_verify(p[k], sz[k], (uint32_t)k);
            be->free(inst, p[k], sz[k]);
            for (int j = k; j < n - 1; j++) { /* the rest keep their seeds: refill */
                p[j] = p[j + 1];
                sz[j] = sz[j + 1];
                bad += !hr_tm_verify(p[j], sz[j], (uint32_t)(j + 1));
                hr_tm_fill(p[j], sz[j], (uint32_t)j);
            }
            n--;
        } else {
            size_t size = (r >> 8) % 5 == 0 ? (r >> 16) % 3000 : (r >> 16) % 200;
            p[n] = be->alloc(inst, size, aligns[(r >> 32) % 6], -1);
            sz[n] = size;
            hr_tm_fill(p[n], size, (uint32_t)n);
            n++;
        }
    }
    for (; n > 0; n--)
        be->free(inst, p[n - 1], sz[n - 1]);
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK_EQ_U64(be->footprint(inst), base);
    char *js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "entries", 0));
    HR_CHECK(hr_tm_json_has(js, "dead_entries", 0));
    HR_TM_STATS_END(be, inst, js);
}

int main(void) {
    HR_RUN(test_constants);
    HR_RUN(test_lifo_violation);
    HR_RUN(test_entry_limit);
    HR_RUN(test_malloc_fallback_interleave);
    HR_RUN(test_granule);
    HR_RUN(test_property);
    HR_RUN(test_backend);
    HR_RUN(test_backend_mixed);
    HR_RUN(test_huge_request_never_wraps);
    HR_RUN(test_granule1_alignment);
    HR_RUN(test_aligned_padding);
    return hr_test_done();
}
