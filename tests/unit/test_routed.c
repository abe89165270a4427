/* Tests of the routed heap manager (src/alloc/routed.h), its config
 * parser and the "routed" backend. Test configs live in tests/data/heaps/. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "alloc/routed.h"
#include "trace/trace.h"
#include "hr_test.h"

extern const hr_backend_t hr_backend_routed;

static char path_buf[1024];
static const char *data_path(const char *name) {
    const char *srcdir = getenv("srcdir");
    snprintf(path_buf, sizeof path_buf, "%s/tests/data/heaps/%s", srcdir ? srcdir : ".", name);
    return path_buf;
}

static hr_routed_t *open_small(hr_heapcfg_t *c) {
    hr_error_t err = {{0}};
    if (hr_heapcfg_load(c, data_path("small.conf"), &err) != 0) {
        printf("# %s\n", err.msg);
        return NULL;
    }
    hr_routed_t *m = hr_routed_create(c, &err);
    if (!m)
        printf("# %s\n", err.msg);
    return m;
}

#define T(c, name) hr_heapcfg_lookup((c), (name))

static int owner_is(hr_routed_t *m, const hr_heapcfg_t *c, void *p, const char *name) {
    int o = hr_routed_owner(m, p);
    int want = T(c, name);
    if (!strcmp(name, "malloc"))
        want = c->nheaps;
    if (o != want)
        printf("# owner of %p: %d, expected %s (%d)\n", p, o, name, want);
    return o == want;
}

/* ---- config (the built-in tables: tests/unit/test_routed_tables.c) ------------ */

static void expect_error(const char *text, const char *want) {
    hr_heapcfg_t c;
    hr_error_t err = {{0}};
    int rc = hr_heapcfg_parse(&c, text, strlen(text), "t.conf", &err);
    HR_CHECK(rc == -1);
    if (strncmp(err.msg, want, strlen(want)) != 0)
        printf("# got '%s', expected prefix '%s'\n", err.msg, want);
    HR_CHECK(strncmp(err.msg, want, strlen(want)) == 0);
}

static void test_config_errors(void) {
    expect_error("heap 0 A dlheap 1M\nheap 1 B pool 1M\n", "t.conf:2: expected a kind");
    expect_error("# c\n\nheap 0 A dlheap 12Q\n", "t.conf:3: expected a size");
    expect_error("heap 0 A dlheap 1M\nheap 0 B dlheap 1M\n", "t.conf:2: expected a unique id");
    expect_error("heap 0 A dlheap 1M\nheap 1 A dlheap 1M\n", "t.conf:2: expected a unique name");
    expect_error("heap 0 A dlheap 1M B\n", "t.conf:1: expected a declared heap name as parent");
    expect_error("heap 0 A dlheap 1M\nsearch 9 S A Z\n",
                 "t.conf:2: expected a declared heap name as search list entry");
    expect_error("heap 0 A dlheap 1M\nsearch 9 S\n", "t.conf:2: expected 'search ID NAME HEAP");
    expect_error("heap 0 A dlheap 1M\ncorral x A\n", "t.conf:2: expected 'corral BYTES HEAP'");
    expect_error("heap 0 A dlheap 1M\ncorral_except Q\n", "t.conf:2: expected a declared heap");
    expect_error("heap 0 A dlheap 1M\ndefault Q\n", "t.conf:2: expected a declared heap or search");
    expect_error("heap 0 A static 100\n", "t.conf:1: expected a size of at least 4096");
    expect_error("heap 0 A dlheap\n", "t.conf:1: expected 'heap ID NAME KIND SIZE [PARENT]'");
    expect_error("frobnicate\n", "t.conf:1: expected a directive");
    expect_error("# only a comment\n", "t.conf:2: expected at least one 'heap' line");
    expect_error("heap 0 9A dlheap 1M\n", "t.conf:1: expected a name");
    expect_error("heap 0 A dlheap 1M\nheap 1 B alias 0\n", "t.conf:2: expected the heap an alias");

    hr_heapcfg_t c;
    hr_error_t err = {{0}};
    HR_CHECK(hr_heapcfg_load(&c, data_path("bad_kind.conf"), &err) == -1);
    HR_CHECK(strstr(err.msg, "bad_kind.conf:3: expected a kind") != NULL);
    HR_CHECK(hr_heapcfg_load(&c, data_path("bad_parent.conf"), &err) == -1);
    HR_CHECK(strstr(err.msg, "bad_parent.conf:2: expected a declared heap name") != NULL);
    HR_CHECK(hr_heapcfg_load(&c, data_path("no-such.conf"), &err) == -1);
    HR_CHECK(strstr(err.msg, "cannot open") != NULL);
    /* a default naming a search entry, and "corral off" */
    const char *ok = "heap 0 A dlheap 1M\nsearch 5 S A\ndefault S\ncorral 10 A\ncorral off\n";
    HR_CHECK(hr_heapcfg_parse(&c, ok, strlen(ok), "t.conf", &err) == 0);
    HR_CHECK_EQ_U64(c.default_heap, 1);
    HR_CHECK_EQ_U64(c.corral_below, 0);
}

/* ---- routing ------------------------------------------------------------------ */

static void test_top_heap_and_nesting(void) {
    hr_heapcfg_t c;
    hr_routed_t *m = open_small(&c);
    HR_CHECK(m != NULL);
    if (!m)
        return;
    void *p0 = hr_routed_alloc(m, 100, 0); /* empty stack: the default heap */
    HR_CHECK(owner_is(m, &c, p0, "Base"));
    hr_routed_push(m, T(&c, "Stat"));
    void *p1 = hr_routed_alloc(m, 100, 0);
    hr_routed_push(m, T(&c, "DlA"));
    void *p2 = hr_routed_alloc(m, 100, 0);
    hr_routed_push(m, T(&c, "Alias")); /* alias -> DlA */
    void *p3 = hr_routed_alloc(m, 100, 0);
    hr_routed_pop(m, T(&c, "Alias"));
    void *p4 = hr_routed_alloc(m, 100, 0);
    hr_routed_pop(m, T(&c, "DlA"));
    void *p5 = hr_routed_alloc(m, 100, 0);
    hr_routed_pop(m, T(&c, "Stat"));
    void *p6 = hr_routed_alloc(m, 100, 0);
    HR_CHECK(owner_is(m, &c, p1, "Stat"));
    HR_CHECK(owner_is(m, &c, p2, "DlA"));
    HR_CHECK(owner_is(m, &c, p3, "DlA"));
    HR_CHECK(owner_is(m, &c, p4, "DlA"));
    HR_CHECK(owner_is(m, &c, p5, "Stat"));
    HR_CHECK(owner_is(m, &c, p6, "Base"));
    HR_CHECK_EQ_U64(hr_routed_totals(m)->mismatched_pops, 0);
    HR_CHECK_EQ_U64(hr_routed_nheaps(m), 10); /* none heaps need the implicit "malloc" */
    HR_CHECK_EQ_U64(hr_routed_totals(m)->none_mallocs, 0);
    /* none heaps go to plain malloc, parent or not, and are counted */
    hr_routed_push(m, T(&c, "Orphan"));
    void *p7 = hr_routed_alloc(m, 100, 0);
    hr_routed_pop(m, T(&c, "Orphan"));
    hr_routed_push(m, T(&c, "Gone")); /* parent DlA is ignored */
    void *p8 = hr_routed_alloc(m, 100, 0), *p9 = hr_routed_alloc(m, 100, 0);
    hr_routed_pop(m, T(&c, "Gone"));
    HR_CHECK(owner_is(m, &c, p7, "malloc"));
    HR_CHECK(owner_is(m, &c, p8, "malloc"));
    HR_CHECK_EQ_U64(hr_routed_totals(m)->none_mallocs, 3);
    hr_routed_heap_info_t hi;
    hr_routed_heap_info(m, T(&c, "Gone"), &hi);
    HR_CHECK_EQ_U64(hi.to_malloc, 2);
    HR_CHECK_STR(hr_heap_kind_name(hi.kind), "none");
    hr_routed_heap_info(m, c.nheaps, &hi); /* the implicit root */
    HR_CHECK_STR(hi.name, "malloc");
    HR_CHECK_EQ_U64(hi.allocs, 3);
    hr_routed_heap_info(m, T(&c, "DlA"), &hi);
    HR_CHECK_EQ_U64(hi.to_malloc, 0);
    HR_CHECK(hr_routed_free(m, p7, 100) == 0);
    HR_CHECK(hr_routed_free(m, p8, 100) == 0);
    HR_CHECK(hr_routed_free(m, p9, 100) == 0);
    hr_routed_destroy(m);
}

static void test_mismatched_pop(void) {
    hr_heapcfg_t c;
    hr_routed_t *m = open_small(&c);
    if (!m)
        return;
    hr_routed_push(m, T(&c, "Stat"));
    hr_routed_push(m, T(&c, "DlA"));
    hr_routed_pop(m, T(&c, "DlB")); /* top is DlA: mismatch, DlA popped anyway */
    HR_CHECK_EQ_U64(hr_routed_totals(m)->mismatched_pops, 1);
    HR_CHECK(hr_routed_top(m) == T(&c, "Stat"));
    hr_routed_pop(m, T(&c, "Stat"));
    hr_routed_pop(m, T(&c, "Stat")); /* empty stack */
    HR_CHECK_EQ_U64(hr_routed_totals(m)->mismatched_pops, 2);
    HR_CHECK(hr_routed_top(m) == c.default_heap);
    hr_routed_heap_info_t hi;
    hr_routed_heap_info(m, T(&c, "DlB"), &hi);
    HR_CHECK_EQ_U64(hi.mismatched_pops, 1);
    hr_routed_heap_info(m, T(&c, "Stat"), &hi);
    HR_CHECK_EQ_U64(hi.mismatched_pops, 1);
    /* pushes beyond the depth are dropped, counted, and their pops absorbed */
    for (int i = 0; i < HR_ROUTED_STACK_DEPTH + 3; i++)
        hr_routed_push(m, T(&c, "DlA"));
    HR_CHECK_EQ_U64(hr_routed_totals(m)->stack_overflows, 3);
    for (int i = 0; i < HR_ROUTED_STACK_DEPTH + 3; i++)
        hr_routed_pop(m, T(&c, "DlA"));
    HR_CHECK_EQ_U64(hr_routed_totals(m)->mismatched_pops, 2);
    hr_routed_destroy(m);
}

static void test_search_order_and_skipping(void) {
    hr_heapcfg_t c;
    hr_routed_t *m = open_small(&c);
    if (!m)
        return;
    int s = T(&c, "EITHER");
    hr_routed_push(m, s);
    void *a = hr_routed_alloc(m, 5000, 0);
    HR_CHECK(owner_is(m, &c, a, "DlA")); /* first in the list */
    /* DlA: payload capacity 8160, the 5000-byte block takes a 5024-byte chunk:
     * 3136 bytes left, so a 4000-byte request skips it */
    hr_heap_status_t st;
    hr_routed_status(m, T(&c, "DlA"), &st);
    HR_CHECK_EQ_U64(st.total_free, 3136);
    void *b = hr_routed_alloc(m, 4000, 0);
    HR_CHECK(owner_is(m, &c, b, "DlB"));
    hr_routed_search_info_t si;
    hr_routed_search_info(m, 0, &si);
    HR_CHECK_EQ_U64(si.skips, 1);
    HR_CHECK_EQ_U64(si.allocs, 2);
    hr_routed_heap_info_t hi;
    hr_routed_heap_info(m, T(&c, "DlA"), &hi);
    HR_CHECK_EQ_U64(hi.failures, 0); /* skipped, not tried */
    /* 3000 fits DlA's free total: first success wins, DlA again */
    void *d = hr_routed_alloc(m, 3000, 0);
    HR_CHECK(owner_is(m, &c, d, "DlA"));
    /* nothing has 7000 free: NULL, blamed on the last heap of the list */
    HR_CHECK(hr_routed_alloc(m, 7000, 0) == NULL);
    HR_CHECK(hr_routed_last_failure(m) == T(&c, "DlB"));
    hr_routed_search_info(m, 0, &si);
    HR_CHECK_EQ_U64(si.failures, 1);
    HR_CHECK_EQ_U64(si.skips, 3);
    const hr_routed_totals_t *t = hr_routed_totals(m);
    HR_CHECK_EQ_U64(t->oom_count, 1);
    HR_CHECK(strstr(t->oom_first, "heap 'DlB' via EITHER: 7000 bytes") != NULL);
    HR_CHECK(strstr(t->oom_first, "total_free=") != NULL);
    hr_routed_destroy(m);
}

static void test_corral(void) {
    hr_heapcfg_t c;
    hr_routed_t *m = open_small(&c);
    if (!m)
        return;
    hr_routed_push(m, T(&c, "DlB"));
    void *a = hr_routed_alloc(m, 63, 0);
    void *b = hr_routed_alloc(m, 64, 0); /* the threshold is strict: < 64 */
    HR_CHECK(owner_is(m, &c, a, "Small"));
    HR_CHECK(owner_is(m, &c, b, "DlB"));
    hr_routed_push(m, T(&c, "Stat")); /* exempt */
    void *d = hr_routed_alloc(m, 10, 0);
    HR_CHECK(owner_is(m, &c, d, "Stat"));
    hr_routed_push(m, T(&c, "Track")); /* exempt */
    void *e = hr_routed_alloc(m, 10, 0);
    HR_CHECK(owner_is(m, &c, e, "Track"));
    hr_routed_push(m, T(&c, "EITHER")); /* a search target is never exempt */
    void *f = hr_routed_alloc(m, 10, 0);
    HR_CHECK(owner_is(m, &c, f, "Small"));
    HR_CHECK_EQ_U64(hr_routed_totals(m)->corralled, 2);
    hr_routed_destroy(m);
}

static void test_static_heap(void) {
    hr_heapcfg_t c;
    hr_routed_t *m = open_small(&c);
    if (!m)
        return;
    int h = T(&c, "Stat");
    hr_routed_push(m, h);
    void *p[9];
    for (int i = 0; i < 8; i++)
        p[i] = hr_routed_alloc(m, 1000, 0); /* 1008 bytes each */
    hr_heap_status_t st;
    hr_routed_status(m, h, &st);
    HR_CHECK_EQ_U64(st.total_free, 8192 - 8 * 1008);
    HR_CHECK_EQ_U64(st.largest_free, 128);
    HR_CHECK_EQ_U64(st.objects, 8);
    HR_CHECK_EQ_U64(st.high_water, 8 * 1008);
    HR_CHECK(hr_routed_free(m, p[7], 1000) == 0); /* a no-op */
    hr_routed_status(m, h, &st);
    HR_CHECK_EQ_U64(st.total_free, 128);
    p[8] = hr_routed_alloc(m, 1000, 0);
    HR_CHECK(p[8] == NULL);
    HR_CHECK(hr_routed_last_failure(m) == h);
    hr_routed_heap_info_t hi;
    hr_routed_heap_info(m, h, &hi);
    HR_CHECK_EQ_U64(hi.frees_ignored, 1);
    HR_CHECK_EQ_U64(hi.failures, 1);
    HR_CHECK_EQ_U64(hi.live_blocks, 7);
    HR_CHECK_EQ_U64(hi.peak_bytes, 8000);
    HR_CHECK(strstr(hr_routed_totals(m)->oom_first, "heap 'Stat': 1000 bytes requested; "
                                                    "total_free=128 largest_free=128") != NULL);
    hr_routed_destroy(m);
}

static void test_tracking_leaks_and_budget(void) {
    hr_heapcfg_t c;
    hr_routed_t *m = open_small(&c);
    if (!m)
        return;
    int h = T(&c, "Track");
    hr_routed_push(m, h);
    void *a = hr_routed_alloc(m, 300, 0), *b = hr_routed_alloc(m, 300, 0);
    void *d = hr_routed_alloc(m, 300, 64);
    HR_CHECK(a && b && d && ((uintptr_t)d & 63) == 0);
    HR_CHECK(hr_routed_free(m, b, 300) == 0);
    hr_heap_status_t st;
    hr_routed_status(m, h, &st);
    HR_CHECK_EQ_U64(st.objects, 2);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    HR_CHECK_EQ_U64(hr_routed_leak_report(m, f), 1);
    fclose(f);
    HR_CHECK_STR(buf, "heap 'Track': 2 blocks, 600 bytes\n");
    free(buf);
    /* the 16K budget is reported, not enforced */
    void *big = hr_routed_alloc(m, 20000, 0);
    HR_CHECK(big != NULL);
    hr_routed_heap_info_t hi;
    hr_routed_heap_info(m, h, &hi);
    HR_CHECK_EQ_U64(hi.over_budget, 1);
    HR_CHECK_EQ_U64(hi.status.total_free, 0);
    HR_CHECK_EQ_U64(hi.failures, 0);
    HR_CHECK(hi.held >= 20600);
    hr_routed_destroy(m); /* frees a, d and big: checked by valgrind/ASan runs */
}

static void test_can_free_every_kind(void) {
    hr_heapcfg_t c;
    hr_routed_t *m = open_small(&c);
    if (!m)
        return;
    const char *kinds[] = {"Base", "Stat", "Track", "DlA", "DlB", "Small"};
    void *p[6];
    for (int i = 0; i < 6; i++) {
        hr_routed_push(m, T(&c, kinds[i]));
        p[i] = hr_routed_alloc(m, i == 5 ? 8 : 200, 0);
        hr_routed_pop(m, T(&c, kinds[i]));
        HR_CHECK(owner_is(m, &c, p[i], kinds[i]));
    }
    void *foreign = malloc(200);
    int local;
    HR_CHECK(hr_routed_owner(m, foreign) == -1);
    HR_CHECK(hr_routed_owner(m, &local) == -1);
    HR_CHECK(hr_routed_free(m, foreign, 200) == -1);
    HR_CHECK_EQ_U64(hr_routed_totals(m)->unowned_frees, 1);
    free(foreign);
    /* probe cost: heaps with storage in table order Base, Stat, Track, DlA, DlB,
     * Small, then the implicit "malloc" */
    uint64_t before = hr_routed_totals(m)->free_probes; /* 7 for the foreign pointer */
    HR_CHECK_EQ_U64(before, 7);
    HR_CHECK(hr_routed_free(m, p[4], 200) == 0); /* DlB: 5th probe */
    HR_CHECK_EQ_U64(hr_routed_totals(m)->free_probes - before, 5);
    HR_CHECK(hr_routed_free(m, p[0], 200) == 0); /* Base: 1st probe */
    HR_CHECK_EQ_U64(hr_routed_totals(m)->free_probes - before, 6);
    HR_CHECK_EQ_U64(hr_routed_totals(m)->free_probes_max, 7);
    HR_CHECK(hr_routed_free(m, p[3], 200) == 0);
    HR_CHECK(hr_routed_free(m, p[3], 200) == -2); /* double free refused by DlA */
    HR_CHECK(hr_routed_free(m, p[2], 200) == 0);
    HR_CHECK(hr_routed_owner(m, p[2]) == -1); /* tracking forgets freed blocks */
    HR_CHECK(hr_routed_free(m, p[1], 200) == 0);
    HR_CHECK(owner_is(m, &c, p[1], "Stat")); /* static keeps the range */
    hr_routed_destroy(m);
}

/* ---- the backend ------------------------------------------------------------------ */

static char *run_stats(const hr_backend_t *be, void *inst) {
    return hr_backend_stats_json(be, inst);
}

static void test_backend(void) {
    const hr_backend_t *be = &hr_backend_routed;
    hr_trace_t t;
    hr_trace_init(&t);
    int64_t s_dla = hr_trace_intern(&t, "DlA");
    int64_t s_unknown = hr_trace_intern(&t, "NoSuchHeap");
    int64_t s_ghost = hr_trace_intern(&t, "Ghost");
    hr_trace_intern(&t, "a mark, never pushed"); /* the string table also holds marks */
    hr_backend_config_t cfg = hr_backend_config_default();
    cfg.config_path = data_path("small.conf");
    cfg.heap_names = (const char *const *)t.strings;
    cfg.n_heap_names = t.n_strings;
    hr_error_t err = {{0}};
    void *inst = be->create(&cfg, &err);
    HR_CHECK(inst != NULL);
    if (!inst) {
        printf("# %s\n", err.msg);
        hr_trace_free(&t);
        return;
    }
    uint64_t fp0 = be->footprint(inst);
    HR_CHECK_EQ_U64(fp0, 64 * 1024 + 4 * 8192); /* regions held in full */
    be->heap_push(inst, (uint32_t)s_dla, "DlA");
    void *a = be->alloc(inst, 1000, 0, (int32_t)s_dla);
    void *big = be->alloc(inst, 100000, 0, (int32_t)s_dla); /* > DlA: fallback */
    HR_CHECK(a && big);
    HR_CHECK(be->usable_size(inst, a, 1000) == 1008);
    HR_CHECK(be->footprint(inst) >= fp0 + 100000);
    be->heap_pop(inst, (uint32_t)s_dla, "DlA");
    be->heap_push(inst, (uint32_t)s_unknown, "NoSuchHeap"); /* -> default heap Base */
    void *b = be->alloc(inst, 500, 0, (int32_t)s_unknown);
    be->heap_pop(inst, (uint32_t)s_dla, "DlA"); /* mismatched */
    be->heap_push(inst, (uint32_t)s_unknown, "NoSuchHeap"); /* same name: counted once */
    void *b2 = be->alloc(inst, 300, 0, (int32_t)s_unknown);
    be->heap_pop(inst, (uint32_t)s_unknown, "NoSuchHeap"); /* matches its push */
    be->heap_push(inst, (uint32_t)s_ghost, "Ghost");
    be->heap_pop(inst, (uint32_t)s_ghost, "Ghost");
    be->free(inst, big, 100000);
    be->free(inst, a, 1000);
    HR_CHECK_EQ_U64(be->footprint(inst), fp0);
    char *js = run_stats(be, inst);
    HR_CHECK(strstr(js, "\"native_ops\":4") != NULL);
    HR_CHECK(strstr(js, "\"fallback_ops\":2") != NULL);
    HR_CHECK(strstr(js, "\"unknown_heap\":2") != NULL); /* distinct names */
    HR_CHECK(strstr(js, "\"unknown_heaps\":[{\"name\":\"NoSuchHeap\",\"pushes\":2,\"allocs\":2},"
                        "{\"name\":\"Ghost\",\"pushes\":1,\"allocs\":0}]") != NULL);
    HR_CHECK(strstr(js, "\"mismatched_pop\":1") != NULL);
    HR_CHECK(strstr(js, "\"out_of_memory\":1") != NULL);
    HR_CHECK(strstr(js, "\"free_owner_probes\":") != NULL);
    HR_CHECK(strstr(js, "\"oom_first\":\"out of memory in heap 'DlA'") != NULL);
    HR_CHECK(strstr(js, "\"heaps\":[{\"name\":\"malloc\",\"kind\":\"tracking\"") != NULL);
    HR_CHECK(strstr(js, "\"held\":0},{\"name\":\"Base\",\"kind\":\"dlheap\"") != NULL);
    HR_CHECK(strstr(js, "\"name\":\"DlA\",\"kind\":\"dlheap\",\"size\":8192,\"peak\":1000,") !=
             NULL);
    HR_CHECK(strstr(js, "\"fallbacks\":1,") != NULL);
    HR_CHECK(strstr(js, "\"leaks_blocks\":2,\"leaks_bytes\":800,") != NULL); /* b, b2: Base */
    HR_CHECK(strstr(js, "\"searches\":[{\"name\":\"EITHER\"") != NULL);
    if (!strstr(js, "\"heaps\":["))
        printf("# %s\n", js);
    free(js);
    be->free(inst, b, 500);
    be->free(inst, b2, 300);
    be->destroy(inst);
    /* a bad config file fails create() with the file:line message */
    cfg.config_path = data_path("bad_kind.conf");
    HR_CHECK(be->create(&cfg, &err) == NULL);
    HR_CHECK(strstr(err.msg, "bad_kind.conf:3: expected a kind") != NULL);
    hr_trace_free(&t);
}

int main(void) {
    HR_RUN(test_config_errors);
    HR_RUN(test_top_heap_and_nesting);
    HR_RUN(test_mismatched_pop);
    HR_RUN(test_search_order_and_skipping);
    HR_RUN(test_corral);
    HR_RUN(test_static_heap);
    HR_RUN(test_tracking_leaks_and_budget);
    HR_RUN(test_can_free_every_kind);
    HR_RUN(test_backend);
    return hr_test_done();
}
