/* hr_sizeclass (power-of-two free lists over malloc) and its backend. */
#include <stdint.h>

#include "heapreplay/sizeclass.h"
#include "hr_test.h"
#include "seed_model.h"

extern const hr_backend_t hr_backend_sizeclass;

static void test_rounding(void) {
    hr_sizeclass_t *sc = hr_sizeclass_create(NULL);
    HR_CHECK_EQ_U64(hr_sizeclass_default().max_class, 32768);
    HR_CHECK_EQ_U64(hr_sizeclass_round(sc, 0), sizeof(void *));
    HR_CHECK_EQ_U64(hr_sizeclass_round(sc, 1), sizeof(void *));
    HR_CHECK_EQ_U64(hr_sizeclass_round(sc, 9), 16);
    HR_CHECK_EQ_U64(hr_sizeclass_round(sc, 16), 16);
    HR_CHECK_EQ_U64(hr_sizeclass_round(sc, 17), 32);
    HR_CHECK_EQ_U64(hr_sizeclass_round(sc, 32768), 32768);
    HR_CHECK_EQ_U64(hr_sizeclass_round(sc, 32769), 0);
    uint64_t bad = 0;
    for (size_t s = 1; s <= 32768; s++) {
        size_t r = hr_sizeclass_round(sc, s);
        bad += r < s || (r & (r - 1)) || (r > sizeof(void *) && r / 2 >= s);
    }
    HR_CHECK_EQ_U64(bad, 0);
    hr_sizeclass_stats_t st;
    hr_sizeclass_stats(sc, &st);
    HR_CHECK_EQ_U64(st.nclasses, 13); /* 8 .. 32768 */
    hr_sizeclass_options_t o = {48};
    HR_CHECK(hr_sizeclass_create(&o) == NULL);
    hr_sizeclass_destroy(sc);
}

static void test_reuse_and_waste(void) {
    hr_sizeclass_t *sc = hr_sizeclass_create(NULL);
    void *a = hr_sizeclass_alloc(sc, 9);
    void *b = hr_sizeclass_alloc(sc, 100);
    void *big = hr_sizeclass_alloc(sc, 40000);
    hr_sizeclass_stats_t st;
    hr_sizeclass_stats(sc, &st);
    HR_CHECK_EQ_U64(st.internal_waste, 7 + 28);
    HR_CHECK_EQ_U64(st.head.footprint, 16 + 128 + 40000);
    HR_CHECK_EQ_U64(st.head.live_bytes, 9 + 100 + 40000);
    HR_CHECK_EQ_U64(st.large_live, 1);
    hr_sizeclass_free(sc, a, 9);
    hr_sizeclass_free(sc, big, 40000);
    HR_CHECK(hr_sizeclass_alloc(sc, 16) == a); /* same class: reused */
    hr_sizeclass_free(sc, a, 16);
    hr_sizeclass_stats(sc, &st);
    HR_CHECK_EQ_U64(st.head.footprint, 16 + 128);
    HR_CHECK_EQ_U64(st.cached_bytes, 16);
    HR_CHECK_EQ_U64(st.head.largest_free, 16);
    HR_CHECK_EQ_U64(st.hits, 1);
    HR_CHECK_EQ_U64(st.misses, 2);
    HR_CHECK_EQ_U64(hr_sizeclass_check(sc), 0);
    HR_CHECK_EQ_U64(hr_sizeclass_trim(sc), 16);
    hr_sizeclass_stats(sc, &st);
    HR_CHECK_EQ_U64(st.head.footprint, 128);
    hr_sizeclass_free(sc, b, 100);
    HR_CHECK_EQ_U64(hr_sizeclass_check(sc), 0);
    void *saved = *(void **)b;
    *(void **)b = b; /* a write after free links the block to itself */
    HR_CHECK(hr_sizeclass_check(sc) != 0);
    *(void **)b = saved;
    HR_CHECK_EQ_U64(hr_sizeclass_check(sc), 0);
    hr_sizeclass_destroy(sc);
}

static void test_property(void) {
    uint64_t rng = 23, bad = 0;
    hr_sizeclass_t *sc = hr_sizeclass_create(NULL);
    hr_tm_t m = {0};
    uint64_t waste = 0;
    for (int op = 0; op < 50000; op++) {
        uint64_t r = hr_tm_rand(&rng);
        if (m.n > 0 && (r % 100 < 48 || m.n > 2000)) {
            hr_tm_block_t k = hr_tm_take(&m, (size_t)(r >> 8) % m.n, 0);
            bad += !hr_tm_verify(k.p, k.size, k.seed);
            size_t rr = hr_sizeclass_round(sc, k.size);
            waste -= rr ? rr - k.size : 0;
            hr_sizeclass_free(sc, k.p, k.size);
        } else {
            size_t size = (size_t)(r >> 20) % ((r >> 62) ? 300 : 50000);
            void *p = hr_sizeclass_alloc(sc, size);
            bad += p == NULL || (uintptr_t)p % 16 != 0;
            size_t rr = hr_sizeclass_round(sc, size);
            waste += rr ? rr - size : 0;
            hr_tm_fill(p, size, (uint32_t)op);
            hr_tm_push(&m, p, size, (uint32_t)op);
        }
        if (op % 503 == 0) {
            hr_sizeclass_stats_t st;
            hr_sizeclass_stats(sc, &st);
            bad += st.head.live_bytes != m.live || st.head.objects != m.n || st.internal_waste != waste;
            bad += st.head.high_water != m.peak;
            bad += hr_sizeclass_check(sc) != 0 || !hr_tm_no_overlap(&m);
        }
    }
    while (m.n) {
        hr_tm_block_t k = hr_tm_take(&m, m.n - 1, 0);
        bad += !hr_tm_verify(k.p, k.size, k.seed);
        hr_sizeclass_free(sc, k.p, k.size);
    }
    HR_CHECK_EQ_U64(bad, 0);
    hr_sizeclass_stats_t st;
    hr_sizeclass_stats(sc, &st);
    HR_CHECK_EQ_U64(st.head.footprint, st.cached_bytes); /* everything cached, nothing live */
    hr_tm_free(&m);
    hr_sizeclass_destroy(sc);
}

static void test_backend(void) {
    const hr_backend_t *be = &hr_backend_sizeclass;
    hr_error_t err = {{0}};
    HR_CHECK(hr_tm_create(be, "max=1000", &err) == NULL);
    void *inst = hr_tm_create(be, "max=1K", &err);
    HR_CHECK(inst != NULL);
    void *a = be->alloc(inst, 100, 0, -1);
    void *l = be->alloc(inst, 2000, 0, -1);
    void *al = be->alloc(inst, 100, 128, -1);
    HR_CHECK_EQ_U64(be->usable_size(inst, a, 100), 128);
    HR_CHECK_EQ_U64(be->usable_size(inst, l, 2000), 2000);
    be->free(inst, al, 100);
    be->free(inst, l, 2000);
    be->free(inst, a, 100);
    HR_CHECK_EQ_U64(be->footprint(inst), 128);
    char *js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "native_ops", 4));
    HR_CHECK(hr_tm_json_has(js, "fallback_ops", 2));
    HR_CHECK(hr_tm_json_has(js, "align", 1));
    HR_CHECK(hr_tm_json_has(js, "cached_bytes", 128));
    HR_TM_STATS_END(be, inst, js);
}

int main(void) {
    HR_RUN(test_rounding);
    HR_RUN(test_reuse_and_waste);
    HR_RUN(test_property);
    HR_RUN(test_backend);
    return hr_test_done();
}
