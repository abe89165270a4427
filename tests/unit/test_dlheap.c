/* Tests of the Doug-Lea-style heap (src/alloc/dlheap.h): exact
 * status figures, coalescing, best fit, exhaustion, alignment, ownership, and
 * a seeded randomized run against a reference model with content checks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/dlheap.h"
#include "hr_test.h"

#define HDR 16u

static _Alignas(64) unsigned char region[1 << 20];

static void check_ok(const hr_dlheap_t *h) {
    hr_error_t err = {""};
    int rc = hr_dlheap_check(h, &err);
    if (rc != 0)
        printf("# invariant: %s\n", err.msg);
    HR_CHECK(rc == 0);
}

static hr_heap_status_t status(const hr_dlheap_t *h) {
    hr_heap_status_t st;
    hr_dlheap_status(h, &st);
    return st;
}

static void test_init_and_capacity(void) {
    hr_dlheap_t h;
    HR_CHECK(hr_dlheap_init(&h, region, 47) == -1);
    HR_CHECK(hr_dlheap_init(&h, region, 48) == 0); /* one 32-byte chunk + sentinel */
    HR_CHECK_EQ_U64(hr_dlheap_capacity(&h), 16);
    HR_CHECK(hr_dlheap_init(&h, region, 4096) == 0);
    /* 4096 - 16 (end sentinel) - 16 (header of the one free chunk) */
    HR_CHECK_EQ_U64(hr_dlheap_capacity(&h), 4064);
    hr_heap_status_t st = status(&h);
    HR_CHECK_EQ_U64(st.total_free, 4064);
    HR_CHECK_EQ_U64(st.largest_free, 4064);
    HR_CHECK_EQ_U64(st.objects, 0);
    HR_CHECK_EQ_U64(st.high_water, 0);
    /* a misaligned start loses the skew */
    HR_CHECK(hr_dlheap_init(&h, region + 8, 4096) == 0);
    HR_CHECK_EQ_U64(hr_dlheap_capacity(&h), 4096 - 16 - 16 - 16);
    check_ok(&h);
}

/* Status figures on a hand-built sequence, computed by hand. */
static void test_status_exact(void) {
    hr_dlheap_t h;
    hr_dlheap_init(&h, region, 4096);
    void *a = hr_dlheap_alloc(&h, 100, 0); /* chunk 128 */
    void *b = hr_dlheap_alloc(&h, 1, 0);   /* chunk 32 (minimum) */
    void *c = hr_dlheap_alloc(&h, 496, 0); /* chunk 512 */
    HR_CHECK(a && b && c);
    HR_CHECK_EQ_U64(hr_dlheap_usable(&h, a), 112);
    HR_CHECK_EQ_U64(hr_dlheap_usable(&h, b), 16);
    HR_CHECK_EQ_U64(hr_dlheap_usable(&h, c), 496);
    hr_heap_status_t st = status(&h);
    /* free chunk: 4080 - 128 - 32 - 512 = 3408 bytes, payload 3392 */
    HR_CHECK_EQ_U64(st.total_free, 3392);
    HR_CHECK_EQ_U64(st.largest_free, 3392);
    HR_CHECK_EQ_U64(st.objects, 3);
    HR_CHECK_EQ_U64(st.high_water, 672);
    hr_dlheap_free(&h, a); /* a hole of 128 before b */
    st = status(&h);
    HR_CHECK_EQ_U64(st.total_free, 3392 + 112);
    HR_CHECK_EQ_U64(st.largest_free, 3392);
    HR_CHECK_EQ_U64(st.objects, 2);
    HR_CHECK_EQ_U64(st.high_water, 672);
    hr_dlheap_free(&h, c); /* merges with the tail */
    st = status(&h);
    HR_CHECK_EQ_U64(st.total_free, 112 + 3408 + 512 - 16);
    HR_CHECK_EQ_U64(st.largest_free, 3408 + 512 - 16);
    HR_CHECK_EQ_U64(st.objects, 1);
    hr_dlheap_free(&h, b); /* everything merges back into one chunk */
    st = status(&h);
    HR_CHECK_EQ_U64(st.total_free, 4064);
    HR_CHECK_EQ_U64(st.largest_free, 4064);
    HR_CHECK_EQ_U64(h.free_chunks, 1);
    HR_CHECK_EQ_U64(st.high_water, 672);
    check_ok(&h);
}

static void test_coalescing(void) {
    hr_dlheap_t h;
    hr_dlheap_init(&h, region, 16384);
    void *a = hr_dlheap_alloc(&h, 1008, 0), *b = hr_dlheap_alloc(&h, 1008, 0);
    void *c = hr_dlheap_alloc(&h, 1008, 0), *guard = hr_dlheap_alloc(&h, 16, 0);
    HR_CHECK(a && b && c && guard);
    uint64_t before = h.free_chunks; /* the tail */
    hr_dlheap_free(&h, a);
    hr_dlheap_free(&h, c);
    HR_CHECK_EQ_U64(h.free_chunks, before + 2);
    hr_dlheap_free(&h, b); /* merges with both neighbours */
    HR_CHECK_EQ_U64(h.free_chunks, before + 1);
    check_ok(&h);
    /* a request of the merged size fits exactly in the merged chunk, which
     * is the best fit (the tail is larger) */
    void *m = hr_dlheap_alloc(&h, 3 * 1024 - 16, 0);
    HR_CHECK(m == a);
    HR_CHECK_EQ_U64(h.free_chunks, before);
    /* without the merge no single hole would have held it */
    check_ok(&h);
}

static void test_best_fit(void) {
    hr_dlheap_t h;
    hr_dlheap_init(&h, region, 65536);
    size_t sizes[] = {496, 240, 368, 2032, 1520};
    void *hole[5], *guard[5];
    for (int i = 0; i < 5; i++) {
        hole[i] = hr_dlheap_alloc(&h, sizes[i], 0);
        guard[i] = hr_dlheap_alloc(&h, 16, 0);
    }
    for (int i = 0; i < 5; i++)
        hr_dlheap_free(&h, hole[i]);
    check_ok(&h);
    HR_CHECK(hr_dlheap_alloc(&h, 300, 0) == hole[2]);  /* 368 beats 496 */
    HR_CHECK(hr_dlheap_alloc(&h, 200, 0) == hole[1]);  /* 240 */
    HR_CHECK(hr_dlheap_alloc(&h, 400, 0) == hole[0]);  /* 496 */
    HR_CHECK(hr_dlheap_alloc(&h, 1100, 0) == hole[4]); /* 1520 beats 2032 and the tail */
    HR_CHECK(hr_dlheap_alloc(&h, 1600, 0) == hole[3]); /* 2032 */
    /* the 1536-byte chunk was split at 1120: its 416-byte rest is an exact fit */
    HR_CHECK(hr_dlheap_alloc(&h, 400, 0) == (unsigned char *)hole[4] + 1120);
    check_ok(&h);
    (void)guard;
}

static void test_exhaustion(void) {
    hr_dlheap_t h;
    hr_dlheap_init(&h, region, 8192);
    int n = 0;
    while (hr_dlheap_alloc(&h, 1000, 0))
        n++;
    HR_CHECK_EQ_U64(n, 8160 / 1024);
    HR_CHECK_EQ_U64(h.failures, 1);
    hr_heap_status_t st = status(&h);
    HR_CHECK(st.largest_free < 1008);
    if (st.largest_free) {
        HR_CHECK(hr_dlheap_alloc(&h, st.largest_free + 1, 0) == NULL);
        HR_CHECK(hr_dlheap_alloc(&h, st.largest_free, 0) != NULL);
    }
    HR_CHECK(hr_dlheap_alloc(&h, (size_t)1 << 40, 0) == NULL);
    HR_CHECK(hr_dlheap_alloc(&h, SIZE_MAX, 0) == NULL);
    check_ok(&h);
}

static void test_alignment(void) {
    hr_dlheap_t h;
    hr_dlheap_init(&h, region, 1 << 16);
    size_t aligns[] = {32, 64, 256, 4096, 16, 0, 128};
    void *p[7];
    for (int i = 0; i < 7; i++) {
        p[i] = hr_dlheap_alloc(&h, 100 + (size_t)i * 10, aligns[i]);
        HR_CHECK(p[i] != NULL);
        size_t a = aligns[i] ? aligns[i] : 16;
        HR_CHECK(((uintptr_t)p[i] & (a - 1)) == 0);
        memset(p[i], 0xA0 + i, 100 + (size_t)i * 10);
        check_ok(&h);
    }
    HR_CHECK(hr_dlheap_alloc(&h, 10, 24) == NULL); /* not a power of two */
    for (int i = 0; i < 7; i++)
        HR_CHECK(hr_dlheap_free(&h, p[i]) == 0);
    HR_CHECK_EQ_U64(status(&h).total_free, hr_dlheap_capacity(&h));
    check_ok(&h);
}

static void test_ownership(void) {
    hr_dlheap_t h;
    hr_dlheap_init(&h, region, 4096);
    void *a = hr_dlheap_alloc(&h, 64, 0);
    int on_stack;
    HR_CHECK(hr_dlheap_owns(&h, a));
    HR_CHECK(hr_dlheap_owns(&h, region + 4000));
    HR_CHECK(!hr_dlheap_owns(&h, region + 4096));
    HR_CHECK(!hr_dlheap_owns(&h, &on_stack));
    HR_CHECK(hr_dlheap_free(&h, &on_stack) == -1);
    HR_CHECK(hr_dlheap_free(&h, a) == 0);
    HR_CHECK(hr_dlheap_free(&h, a) == -1); /* double free refused */
    HR_CHECK_EQ_U64(h.bad_frees, 2);
    HR_CHECK(hr_dlheap_free(&h, NULL) == 0);
    check_ok(&h);
}

/* ---- randomized property test --------------------------------------------- */

typedef struct live {
    unsigned char *p;
    size_t size;
    unsigned char fill;
} live_t;

static uint64_t rng_state;
static uint64_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static int verify(const live_t *l) {
    for (size_t i = 0; i < l->size; i++)
        if (l->p[i] != (unsigned char)(l->fill + i))
            return 0;
    return 1;
}

static size_t random_size(void) {
    switch (rnd() % 4) {
    case 0:  return rnd() % 64;
    case 1:  return rnd() % 1100;
    case 2:  return rnd() % 9000;
    default: return rnd() % 60000;
    }
}

static void test_random_model(void) {
    enum { OPS = 40000, MAXLIVE = 2000 };
    static live_t live[MAXLIVE];
    size_t nlive = 0;
    hr_dlheap_t h;
    hr_dlheap_init(&h, region, sizeof region);
    const uint64_t cap = hr_dlheap_capacity(&h);
    rng_state = 0x9E3779B97F4A7C15ull;
    uint64_t bad = 0, fails = 0, sum_chunks = 0;
    for (int op = 0; op < OPS && !bad; op++) {
        int do_alloc = nlive == 0 || (nlive < MAXLIVE && rnd() % 100 < 55);
        if (do_alloc) {
            size_t sz = random_size();
            size_t al = rnd() % 8 == 0 ? (size_t)32 << (rnd() % 6) : 0;
            hr_heap_status_t st = status(&h);
            unsigned char *p = hr_dlheap_alloc(&h, sz, al);
            if (!p) {
                fails++;
                /* best fit over every free chunk: failure means none is big enough */
                if (al == 0 && st.largest_free >= ((sz + 15) & ~(size_t)15))
                    bad++;
                continue;
            }
            if (((uintptr_t)p & ((al ? al : 16) - 1)) || hr_dlheap_usable(&h, p) < sz)
                bad++;
            live_t l = {p, sz, (unsigned char)rnd()};
            for (size_t i = 0; i < sz; i++)
                p[i] = (unsigned char)(l.fill + i);
            live[nlive++] = l;
        } else {
            size_t k = rnd() % nlive;
            if (!verify(&live[k]))
                bad++;
            if (hr_dlheap_free(&h, live[k].p) != 0)
                bad++;
            live[k] = live[--nlive];
        }
        if (op % 500 == 0) {
            for (size_t k = 0; k < nlive; k++)
                if (!verify(&live[k]))
                    bad++;
            check_ok(&h);
        }
    }
    sum_chunks = 0;
    for (size_t k = 0; k < nlive; k++)
        sum_chunks += hr_dlheap_usable(&h, live[k].p) + HDR;
    HR_CHECK_EQ_U64(sum_chunks, h.in_use);
    HR_CHECK_EQ_U64(h.objects, nlive);
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK(fails > 0); /* the region was really pushed to exhaustion */
    for (size_t k = 0; k < nlive; k++) {
        HR_CHECK(verify(&live[k]));
        hr_dlheap_free(&h, live[k].p);
    }
    check_ok(&h);
    hr_heap_status_t st = status(&h);
    HR_CHECK_EQ_U64(st.total_free, cap);
    HR_CHECK_EQ_U64(st.largest_free, cap);
    HR_CHECK_EQ_U64(h.free_chunks, 1);
}

int main(void) {
    HR_RUN(test_init_and_capacity);
    HR_RUN(test_status_exact);
    HR_RUN(test_coalescing);
    HR_RUN(test_best_fit);
    HR_RUN(test_exhaustion);
    HR_RUN(test_alignment);
    HR_RUN(test_ownership);
    HR_RUN(test_random_model);
    return hr_test_done();
}
