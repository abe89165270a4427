/* hr_marker (marker stack, aligned bump) and the "marker" backend. */
#include <stdint.h>

#include "alloc/chunk.h"
#include "alloc/marker.h"
#include "backends/inhouse.h"
#include "hr_test.h"
#include "seed_model.h"

extern const hr_backend_t hr_backend_marker;

static void test_align_methods_agree(void) {
    uint64_t rng = 7, bad = 0;
    for (size_t a = 1; a <= 4096; a *= 2) {
        for (uintptr_t x = 0; x < 20000; x++) {
            uintptr_t m = hr_align_up_mask(x, a), d = hr_align_up_mod(x, a);
            bad += m != d || m % a != 0 || m < x || m - x >= a;
        }
        for (int i = 0; i < 20000; i++) {
            uintptr_t x = (uintptr_t)(hr_tm_rand(&rng) >> 8);
            uintptr_t m = hr_align_up_mask(x, a), d = hr_align_up_mod(x, a);
            bad += m != d || m % a != 0 || m < x || m - x >= a;
        }
    }
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK_EQ_U64(hr_align_up_mask(4096, 4096), 4096); /* aligned stays put */
    HR_CHECK_EQ_U64(hr_align_up_mod(17, 16), 32);
}

static void test_alloc_alignment(void) {
    hr_marker_t *m = hr_marker_create(NULL);
    for (size_t a = 1; a <= 4096; a *= 2) {
        char *p = hr_marker_alloc(m, 3, a); /* 3 bytes: the head is misaligned after */
        HR_CHECK(p != NULL);
        HR_CHECK_EQ_U64((uintptr_t)p % a, 0);
    }
    HR_CHECK(hr_marker_alloc(m, 8, 3) == NULL);  /* not a power of two */
    HR_CHECK(hr_marker_alloc(m, 8, 48) == NULL);
    char *d = hr_marker_alloc(m, 1, 0); /* default 16 */
    HR_CHECK_EQ_U64((uintptr_t)d % 16, 0);
    HR_CHECK_EQ_U64(hr_marker_check(m), 0);
    hr_marker_stats_t st;
    hr_marker_stats(m, &st);
    HR_CHECK_EQ_U64(st.head.objects, 14);
    HR_CHECK_EQ_U64(st.head.live_bytes, 13 * 3 + 1);
    HR_CHECK_EQ_U64(st.head.live_bytes + st.padding, st.used);
    hr_marker_destroy(m);
}

static void test_release(void) {
    hr_marker_options_t o = hr_marker_default();
    o.size = 4096;
    hr_marker_t *m = hr_marker_create(&o);
    char *base = hr_marker_base(m);
    hr_marker_mark_t m0 = hr_marker_get(m);
    char *a = hr_marker_alloc(m, 100, 0);
    HR_CHECK(a == base);
    hr_marker_mark_t m1 = hr_marker_get(m);
    char *b = hr_marker_alloc(m, 200, 0);
    hr_marker_alloc(m, 300, 0);
    HR_CHECK_EQ_U64(hr_marker_release(m, m1), 0);
    HR_CHECK(hr_marker_alloc(m, 50, 0) == b); /* head went back to the marker */
    hr_marker_stats_t st;
    hr_marker_stats(m, &st);
    HR_CHECK_EQ_U64(st.head.objects, 2);
    HR_CHECK_EQ_U64(st.head.live_bytes, 150);
    HR_CHECK_EQ_U64(st.head.high_water, 320 + 300); /* c aligned to 320 */
    HR_CHECK(hr_marker_alloc(m, 5000, 0) == NULL); /* does not fit */
    hr_marker_release_all(m);
    HR_CHECK(hr_marker_alloc(m, 1, 0) == base);
    hr_marker_release(m, m0);
    HR_CHECK_EQ_I64(hr_marker_release(m, m1), HR_MARKER_EINVAL); /* above head */
    HR_CHECK_EQ_U64(hr_marker_check(m), 0);
    hr_marker_destroy(m);
}

static int dlog[16], ndlog;
static void dtor(void *obj, void *ctx) {
    (void)obj;
    dlog[ndlog++] = (int)(intptr_t)ctx;
}

static void test_destructors(void) {
    hr_marker_t *m = hr_marker_create(NULL);
    ndlog = 0;
    hr_marker_alloc_dtor(m, 8, 0, dtor, (void *)1);
    hr_marker_mark_t mk = hr_marker_get(m);
    hr_marker_alloc_dtor(m, 8, 0, dtor, (void *)2);
    hr_marker_alloc(m, 8, 0); /* no destructor */
    hr_marker_alloc_dtor(m, 8, 0, dtor, (void *)3);
    HR_CHECK_EQ_U64(hr_marker_check(m), 0);
    hr_marker_release(m, mk);
    HR_CHECK_EQ_U64(ndlog, 2);
    HR_CHECK_EQ_U64(dlog[0], 3); /* newest first */
    HR_CHECK_EQ_U64(dlog[1], 2);
    hr_marker_alloc_dtor(m, 8, 0, dtor, (void *)4);
    hr_marker_destroy(m); /* runs what is left, newest first */
    HR_CHECK_EQ_U64(ndlog, 4);
    HR_CHECK_EQ_U64(dlog[2], 4);
    HR_CHECK_EQ_U64(dlog[3], 1);
}

/* Random allocations and releases to random earlier markers vs a model. */
static void test_property(void) {
    uint64_t rng = 11, bad = 0;
    hr_marker_options_t o = hr_marker_default();
    o.size = 256 * 1024;
    hr_marker_t *m = hr_marker_create(&o);
    hr_tm_t model = {0};
    hr_marker_mark_t marks[64];
    size_t mark_n[64];
    int nmarks = 0;
    for (int op = 0; op < 30000; op++) {
        uint64_t r = hr_tm_rand(&rng);
        if (r % 10 == 0 && nmarks < 64) {
            marks[nmarks] = hr_marker_get(m);
            mark_n[nmarks++] = model.n;
        } else if (r % 23 == 0 && nmarks > 0) {
            int k = (int)((r >> 8) % (uint64_t)nmarks);
            bad += hr_marker_release(m, marks[k]) != 0;
            while (model.n > mark_n[k]) {
                hr_tm_block_t b = hr_tm_take(&model, model.n - 1, 1);
                (void)b;
            }
            nmarks = k + 1;
            for (size_t i = 0; i < model.n; i++) /* survivors are intact */
                bad += !hr_tm_verify(model.v[i].p, model.v[i].size, model.v[i].seed);
        } else {
            size_t size = (size_t)(r >> 12) % 700, align = (size_t)1 << ((r >> 40) % 8);
            void *p = hr_marker_alloc(m, size, align);
            if (!p) {
                bad += model.live + size + align <= o.size / 2; /* only near the end */
                continue;
            }
            bad += (uintptr_t)p % align != 0;
            hr_tm_fill(p, size, (uint32_t)op);
            hr_tm_push(&model, p, size, (uint32_t)op);
        }
        if (op % 101 == 0) {
            hr_marker_stats_t st;
            hr_marker_stats(m, &st);
            bad += st.head.live_bytes != model.live || st.head.objects != model.n;
            bad += hr_marker_check(m) != 0 || !hr_tm_no_overlap(&model);
        }
    }
    for (size_t i = 0; i < model.n; i++)
        bad += !hr_tm_verify(model.v[i].p, model.v[i].size, model.v[i].seed);
    HR_CHECK_EQ_U64(bad, 0);
    hr_tm_free(&model);
    hr_marker_destroy(m);
}

static void test_backend(void) {
    const hr_backend_t *be = &hr_backend_marker;
    hr_error_t err = {{0}};
    HR_CHECK(hr_tm_create(be, "12Q", &err) == NULL);
    void *inst = hr_tm_create(be, "64K", &err);
    HR_CHECK(inst != NULL);
    HR_CHECK_EQ_U64(be->footprint(inst), 65536);
    char *level = be->alloc(inst, 1000, 0, -1); /* before the first frame: stays */
    be->frame(inst, 0);
    char *t1 = be->alloc(inst, 500, 0, -1);
    be->free(inst, t1, 500); /* no-op */
    char *t2 = be->alloc(inst, 500, 0, -1);
    HR_CHECK(t2 > t1);
    char *live = be->alloc(inst, 100, 0, -1); /* outlives the frame */
    be->frame(inst, 1); /* t2 and live are still held: released above them only */
    char *u1 = be->alloc(inst, 500, 0, -1);
    HR_CHECK(u1 >= live + 100); /* memory the trace still holds is not handed out */
    be->free(inst, t2, 500);
    be->free(inst, live, 100);
    be->free(inst, u1, 500);
    be->frame(inst, 2); /* nothing live above the level data: all released */
    char *u2 = be->alloc(inst, 500, 0, -1);
    HR_CHECK(u2 == t1); /* frame 0's memory reused */
    HR_CHECK(u2 >= level + 1000);
    char *big = be->alloc(inst, 100000, 0, -1); /* larger than 64K: fallback */
    HR_CHECK(be->footprint(inst) > 65536 + 100000 - 1);
    HR_CHECK_EQ_U64(be->usable_size(inst, t1, 500), 500);
    /* the fallback block is told by its address (outside the buffer): no set kept */
    HR_CHECK_EQ_U64(be->usable_size(inst, big, 100000), hr_chunk_usable(100000));
    HR_CHECK_EQ_U64(((hr_inhouse_t *)inst)->fb_set.n, 0);
    be->free(inst, big, 100000);
    HR_CHECK_EQ_U64(be->footprint(inst), 65536);
    char *js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "free_noop", 4));
    HR_CHECK(hr_tm_json_has(js, "overflow", 1));
    HR_CHECK(hr_tm_json_has(js, "frames", 3));
    HR_CHECK(hr_tm_json_has(js, "outlived_frame", 2)); /* t2 and live, at frame 1 */
    HR_CHECK(hr_tm_json_has(js, "native_ops", 10));
    HR_CHECK(hr_tm_json_has(js, "fallback_ops", 2));
    HR_CHECK(hr_tm_json_has(js, "live_bytes", 1500));
    HR_TM_STATS_END(be, inst, js);
}

int main(void) {
    HR_RUN(test_align_methods_agree);
    HR_RUN(test_alloc_alignment);
    HR_RUN(test_release);
    HR_RUN(test_destructors);
    HR_RUN(test_property);
    HR_RUN(test_backend);
    return hr_test_done();
}
