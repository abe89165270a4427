/* hr_block (Box2D b2BlockAllocator semantics) and the "block" backend. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/block.h"
#include "hr_test.h"
#include "seed_model.h"

extern const hr_backend_t hr_backend_block;

static void test_constants(void) {
    static const size_t box2d[14] = {16, 32, 64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640};
    HR_CHECK_EQ_U64(HR_BLOCK_NUM_CLASSES, 14);
    HR_CHECK_EQ_U64(HR_BLOCK_MAX_SIZE, 640);
    HR_CHECK_EQ_U64(HR_BLOCK_CHUNK_SIZE, 16384);
    HR_CHECK_EQ_U64(HR_BLOCK_CHUNK_ARRAY_INC, 128);
    for (int i = 0; i < 14; i++)
        HR_CHECK_EQ_U64(hr_block_class_sizes[i], box2d[i]);
    hr_block_options_t o = hr_block_default();
    HR_CHECK_EQ_U64(o.chunk_size, 16384);
    HR_CHECK_EQ_U64(o.chunk_array_inc, 128);
}

/* Every size 1..641: the smallest class that holds it, through the table. */
static void test_class_rounding(void) {
    uint64_t bad = 0;
    hr_block_t *b = hr_block_create(NULL);
    for (size_t s = 1; s <= 641; s++) {
        int want = -1;
        for (int c = 0; c < 14 && want < 0; c++)
            if (hr_block_class_sizes[c] >= s)
                want = c;
        int got = hr_block_class_of(s);
        bad += got != want;
        bad += hr_block_usable(s) != (want < 0 ? s : hr_block_class_sizes[want]);
        void *p = hr_block_alloc(b, s);
        bad += p == NULL || (uintptr_t)p % 16 != 0;
        memset(p, 0x5A, s);
        hr_block_free(b, p, s);
    }
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK_EQ_I64(hr_block_class_of(0), -1);
    HR_CHECK_EQ_I64(hr_block_class_of(641), -1);
    HR_CHECK_EQ_U64(hr_block_class_of(17), 1);
    HR_CHECK_EQ_U64(hr_block_class_of(321), 10);
    HR_CHECK(hr_block_alloc(b, 0) == NULL); /* Box2D: 0 bytes -> NULL */
    hr_block_stats_t st;
    hr_block_stats(b, &st);
    HR_CHECK_EQ_U64(st.chunk_count, 14); /* one chunk per class touched */
    HR_CHECK_EQ_U64(st.head.live_bytes, 0);
    HR_CHECK_EQ_U64(hr_block_check(b), 0);
    hr_block_destroy(b);
}

static void test_chunk_growth(void) {
    hr_block_t *b = hr_block_create(NULL);
    hr_block_stats_t st;
    void **p = malloc(4000 * sizeof *p);
    for (int i = 0; i < 1024; i++) /* 16 KiB / 16 B = 1024 blocks: one chunk */
        p[i] = hr_block_alloc(b, 16);
    hr_block_stats(b, &st);
    HR_CHECK_EQ_U64(st.chunk_count, 1);
    HR_CHECK_EQ_U64(st.class_free[0], 0);
    HR_CHECK(p[1] == (char *)p[0] + 16); /* a fresh chunk is handed out in order */
    p[1024] = hr_block_alloc(b, 16);
    hr_block_stats(b, &st);
    HR_CHECK_EQ_U64(st.chunk_count, 2);
    HR_CHECK_EQ_U64(st.class_free[0], 1023);
    for (int i = 0; i <= 1024; i++)
        hr_block_free(b, p[i], 16);
    /* 640 B: 25 blocks per chunk; 129 chunks need the array grown by 128. */
    for (int i = 0; i < 25 * 128; i++)
        p[i] = hr_block_alloc(b, 600);
    hr_block_stats(b, &st);
    HR_CHECK_EQ_U64(st.chunk_count, 2 + 128);
    HR_CHECK_EQ_U64(st.chunk_space, 256);
    HR_CHECK_EQ_U64(st.internal_waste, 25 * 128 * 40);
    HR_CHECK_EQ_U64(st.head.footprint, 130 * 16384 + 256 * 2 * sizeof(void *));
    HR_CHECK_EQ_U64(hr_block_check(b), 0);
    for (int i = 0; i < 25 * 128; i++)
        hr_block_free(b, p[i], 600);
    hr_block_stats(b, &st);
    HR_CHECK_EQ_U64(st.chunk_count, 130); /* nothing returned on free */
    HR_CHECK_EQ_U64(st.head.live_bytes, 0);
    HR_CHECK_EQ_U64(st.head.largest_free, 640);
    hr_block_clear(b);
    hr_block_stats(b, &st);
    HR_CHECK_EQ_U64(st.chunk_count, 0);
    HR_CHECK_EQ_U64(st.head.footprint, 256 * 2 * sizeof(void *));
    HR_CHECK_EQ_U64(st.head.high_water, 25 * 128 * 600);
    HR_CHECK_EQ_U64(hr_block_check(b), 0);
    /* LIFO reuse of a freed block; large requests to malloc */
    void *x = hr_block_alloc(b, 100);
    hr_block_free(b, x, 100);
    HR_CHECK(hr_block_alloc(b, 97) == x);
    void *big = hr_block_alloc(b, 641);
    hr_block_stats(b, &st);
    HR_CHECK_EQ_U64(st.large_live, 1);
    HR_CHECK_EQ_U64(st.large_bytes, 641);
    HR_CHECK(!hr_block_owns(b, big));
    HR_CHECK(hr_block_owns(b, x));
    hr_block_free(b, big, 641);
    free(p);
    hr_block_destroy(b);
}

static void test_property(void) {
    uint64_t rng = 5, bad = 0, waste = 0; /* class size - requested, small blocks */
    hr_block_t *b = hr_block_create(NULL);
    hr_tm_t m = {0};
    for (int op = 0; op < 60000; op++) {
        uint64_t r = hr_tm_rand(&rng);
        if (m.n > 0 && (r % 100 < 45 || m.n > 3000)) {
            hr_tm_block_t k = hr_tm_take(&m, (size_t)(r >> 8) % m.n, 0);
            bad += !hr_tm_verify(k.p, k.size, k.seed);
            hr_block_free(b, k.p, k.size);
            waste -= hr_block_usable(k.size) - k.size;
        } else {
            size_t size = 1 + (size_t)(r >> 20) % ((r >> 60) ? 640 : 2000);
            void *p = hr_block_alloc(b, size);
            bad += p == NULL || (uintptr_t)p % 16 != 0;
            hr_tm_fill(p, size, (uint32_t)op);
            hr_tm_push(&m, p, size, (uint32_t)op);
            waste += hr_block_usable(size) - size;
        }
        if (op % 499 == 0) {
            hr_block_stats_t st;
            hr_block_stats(b, &st);
            bad += st.head.live_bytes != m.live || st.head.objects != m.n || st.head.high_water != m.peak;
            bad += st.internal_waste != waste;
            bad += hr_block_check(b) != 0 || !hr_tm_no_overlap(&m);
        }
    }
    while (m.n) {
        hr_tm_block_t k = hr_tm_take(&m, m.n - 1, 0);
        bad += !hr_tm_verify(k.p, k.size, k.seed);
        hr_block_free(b, k.p, k.size);
    }
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK_EQ_U64(hr_block_check(b), 0);
    hr_tm_free(&m);
    hr_block_destroy(b);
}

static void test_check_detects(void) {
    hr_block_t *b = hr_block_create(NULL);
    void *p = hr_block_alloc(b, 32);
    hr_block_free(b, p, 32);
    hr_block_free(b, p, 32); /* double free: the list now holds p twice */
    HR_CHECK(hr_block_check(b) != 0);
    hr_block_destroy(b);
}

/* The end of a backend test that freed every block and made two chunks:
 * the footprint back to the empty instance's and the two chunks, the
 * counts as given, nothing live; the instance released. */
static void ends_even(void *inst, uint64_t base, uint64_t native, uint64_t fallback,
                      uint64_t align) {
    const hr_backend_t *be = &hr_backend_block;
    HR_CHECK_EQ_U64(be->footprint(inst), base + 2 * 16384);
    char *js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "native_ops", native));
    HR_CHECK(hr_tm_json_has(js, "fallback_ops", fallback));
    HR_CHECK(hr_tm_json_has(js, "align", align));
    HR_CHECK(hr_tm_json_has(js, "chunks", 2));
    HR_CHECK(hr_tm_json_has(js, "live_bytes", 0));
    HR_TM_STATS_END(be, inst, js);
}

static void test_backend(void) {
    const hr_backend_t *be = &hr_backend_block;
    hr_error_t err = {{0}};
    HR_CHECK(be->caps & HR_CAP_NEEDS_SIZE_ON_FREE);
    HR_CHECK(hr_tm_create(be, "chunk=100", &err) == NULL);
    void *inst = hr_tm_create(be, NULL, &err);
    uint64_t base = be->footprint(inst);
    HR_CHECK_EQ_U64(base, 128 * 2 * sizeof(void *));
    void *a = be->alloc(inst, 20, 0, -1);
    void *z = be->alloc(inst, 0, 0, -1);
    void *big = be->alloc(inst, 5000, 0, -1);
    void *al = be->alloc(inst, 20, 256, -1);
    HR_CHECK_EQ_U64(be->usable_size(inst, a, 20), 32);
    HR_CHECK_EQ_U64(be->usable_size(inst, z, 0), 16);
    HR_CHECK(be->footprint(inst) >= base + 2 * 16384 + 5000 + 20);
    be->free(inst, al, 20);
    be->free(inst, big, 5000);
    be->free(inst, z, 0);
    be->free(inst, a, 20);
    ends_even(inst, base, 6, 2, 1);
}

/* Frees around live align-refused blocks: native blocks of the same and of
 * another size, and the refused blocks themselves (before and after the
 * others), each go to their own allocator, so the fallback bytes and the
 * counts come back even. */
static void test_fallback_steps(void) {
    const hr_backend_t *be = &hr_backend_block;
    hr_error_t err = {{0}};
    void *inst = hr_tm_create(be, NULL, &err);
    uint64_t base = be->footprint(inst);
    void *al = be->alloc(inst, 20, 256, -1);   /* refused: step 1 */
    void *al2 = be->alloc(inst, 600, 256, -1); /* refused: step 37 */
    void *same = be->alloc(inst, 24, 0, -1);   /* step 1, native */
    void *other = be->alloc(inst, 40, 0, -1);  /* step 2, native */
    uint64_t held = be->footprint(inst);
    be->free(inst, other, 40);  /* no fallback block of its step: not searched */
    be->free(inst, same, 24);   /* searched, not found: native */
    be->free(inst, al, 20);     /* found: the fallback's */
    void *again = be->alloc(inst, 24, 0, -1); /* back on its list */
    HR_CHECK(again == same);
    be->free(inst, again, 24);  /* its step empty again: not searched */
    be->free(inst, al2, 600);
    HR_CHECK(held > be->footprint(inst));
    ends_even(inst, base, 6, 4, 2);
}

/* A free skips the set of fallback blocks when its pointer's filter bucket
 * holds none of them (inhouse.h, hr_inhouse_not_fb): with blocks refused for
 * a 32- and then a 256-byte alignment live, 64 native blocks of 16 bytes are
 * freed natively, and each refused block, freed between and after them, is
 * still found as the fallback's. */
static void test_fallback_filter(void) {
    const hr_backend_t *be = &hr_backend_block;
    hr_error_t err = {{0}};
    void *inst = hr_tm_create(be, NULL, &err);
    uint64_t base = be->footprint(inst);
    void *a32 = be->alloc(inst, 16, 32, -1);
    void *a256 = be->alloc(inst, 16, 256, -1);
    HR_CHECK((uintptr_t)a256 % 256 == 0 && (uintptr_t)a32 % 32 == 0);
    void *nat[64];
    int off32 = 0;
    for (int i = 0; i < 64; i++) { /* 16-byte blocks: every other one 32-aligned */
        nat[i] = be->alloc(inst, 16, 0, -1);
        off32 += (uintptr_t)nat[i] % 32 != 0;
    }
    HR_CHECK_EQ_U64(off32, 32);
    void *other = be->alloc(inst, 48, 0, -1); /* a second chunk, another class */
    for (int i = 0; i < 32; i++)
        be->free(inst, nat[i], 16);
    be->free(inst, a256, 16);
    for (int i = 32; i < 64; i++)
        be->free(inst, nat[i], 16);
    be->free(inst, a32, 16);
    be->free(inst, other, 48);
    void *again = be->alloc(inst, 16, 0, -1); /* the native blocks are back on their list */
    HR_CHECK(again == nat[63]);
    be->free(inst, again, 16);
    ends_even(inst, base, 2 * 65 + 2, 4, 2);
}

/* A filter bucket whose count reached its top (255) stays there: 260 blocks refused for a 64 KiB alignment all share one
 * bucket (their addresses agree modulo 64 KiB), and every one of them, freed
 * among native frees, is still the fallback's, the 256th to 260th too (a
 * count that went on down from 255 would reach 0 with five of them live and
 * hand those to block's lists). */
static void test_fallback_filter_full(void) {
    enum { N = 260 };
    const hr_backend_t *be = &hr_backend_block;
    hr_error_t err = {{0}};
    void *inst = hr_tm_create(be, NULL, &err);
    uint64_t base = be->footprint(inst);
    static void *fb[N];
    for (int i = 0; i < N; i++) {
        fb[i] = be->alloc(inst, 16, 65536, -1);
        HR_CHECK(fb[i] != NULL && (uintptr_t)fb[i] % 65536 == 0);
    }
    void *nat = be->alloc(inst, 16, 0, -1);
    void *other = be->alloc(inst, 48, 0, -1);
    for (int i = 0; i < N; i++) {
        be->free(inst, nat, 16);
        be->free(inst, fb[i], 16);
        nat = be->alloc(inst, 16, 0, -1);
    }
    be->free(inst, nat, 16);
    be->free(inst, other, 48);
    void *a = be->alloc(inst, 16, 0, -1); /* the set empty: every free native */
    HR_CHECK(a == nat);
    be->free(inst, a, 16);
    ends_even(inst, base, 2 * (N + 1) + 2 + 2, 2 * N, N);
}

/* An in-house backend's create() sets the fallback's glibc as a long-running
 * program has it (backends/fallback.h): a 1 MiB block comes from the heap,
 * not a mapping of its own, and freeing the heap's top gives nothing back. */
static void test_fallback_keeps_heap(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    hr_error_t err = {{0}};
    void *inst = hr_tm_create(&hr_backend_block, NULL, &err);
    HR_CHECK(inst != NULL);
    struct mallinfo2 before = mallinfo2();
    char *volatile big = malloc((size_t)1 << 20); /* volatile: kept, not elided */
    HR_CHECK(big != NULL);
    memset(big, 1, (size_t)1 << 20);
    struct mallinfo2 held = mallinfo2();
    HR_CHECK_EQ_U64(held.hblks, before.hblks); /* not mmapped (default: >= 128 KiB) */
    free(big);
    struct mallinfo2 after = mallinfo2();
    HR_CHECK_EQ_U64(after.arena, held.arena); /* not trimmed (default: > 128 KiB free on top) */
    hr_backend_block.destroy(inst);
#endif
}

int main(void) {
    HR_RUN(test_constants);
    HR_RUN(test_class_rounding);
    HR_RUN(test_chunk_growth);
    HR_RUN(test_property);
    HR_RUN(test_check_detects);
    HR_RUN(test_backend);
    HR_RUN(test_fallback_steps);
    HR_RUN(test_fallback_filter);
    HR_RUN(test_fallback_filter_full);
    HR_RUN(test_fallback_keeps_heap);
    return hr_test_done();
}
