/* Tests of the routed heap manager (include/heapreplay/routed.h), its config
 * parser and the "routed" backend. Test configs live in tests/data/heaps/. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "heapreplay/routed.h"
#include "heapreplay/trace.h"
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

/* ---- config ------------------------------------------------------------------ */

/* The seed's PC build (shar-heaps.md 4.2-4.5), non-release, FUDGE 2.0:
 * sizes are static_cast<unsigned int>(HS_x * MB * FUDGE) in float. Heaps the
 * PC build never creates are "none" (the root malloc). */
typedef struct want_heap {
    int         id;
    const char *name;
    hr_heap_kind_t kind;
    uint64_t    size;
    const char *parent; /* NULL: none */
} want_heap_t;

static const want_heap_t pc_heaps[] = {
    {0, "Default", HR_HEAP_NONE, 0, NULL},                 /* never created on Win32 */
    {1, "Temp", HR_HEAP_DLHEAP, 2097152, "Default"},       /* HS_TEMP 1.0 x 2.0 */
    {3, "Persistent", HR_HEAP_TRACKING, 3460300, "Default"}, /* 1.65 x 2.0, tracking on PC */
    {4, "Level", HR_HEAP_NONE, 0, NULL},                   /* never created */
    {5, "LevelMovie", HR_HEAP_TRACKING, 4131389, "Default"}, /* 3.94, no fudge */
    {6, "LevelFE", HR_HEAP_TRACKING, 10485760, "Default"}, /* 5.0 x 2.0 */
    {7, "LevelZone", HR_HEAP_TRACKING, 16777216, "Default"}, /* 8.0 x 2.0 */
    {8, "LevelOther", HR_HEAP_NONE, 0, NULL},              /* creation commented out */
    {9, "LevelHud", HR_HEAP_DLHEAP, 5242880, "Default"},   /* 2.5 x 2.0 */
    {10, "LevelMission", HR_HEAP_NONE, 0, NULL},           /* creation commented out */
    {11, "LevelAudio", HR_HEAP_TRACKING, 104857, "Default"}, /* in-game 0.05 x 2.0 */
    {12, "Debug", HR_HEAP_NONE, 0, NULL},                  /* NONE type */
    {13, "Special", HR_HEAP_TRACKING, 10485760, "Default"}, /* HS_SPECIAL 10.0 */
    {14, "Music", HR_HEAP_NONE, 0, NULL},                  /* GC/PS2 alias only */
    {15, "AudioPersistent", HR_HEAP_NONE, 0, NULL},        /* GC/PS2 only */
    {16, "SmallAlloc", HR_HEAP_NONE, 0, NULL},             /* CORRAL_SMALL_ALLOCS: PS2 only */
};

static void test_default_config(void) {
    hr_heapcfg_t c;
    hr_heapcfg_default(&c);
    size_t n = sizeof pc_heaps / sizeof *pc_heaps;
    HR_CHECK_EQ_U64(c.nheaps, n);
    for (size_t i = 0; i < n && i < (size_t)c.nheaps; i++) {
        const want_heap_t *w = &pc_heaps[i];
        const hr_heapcfg_heap_t *h = &c.heaps[i];
        HR_CHECK_STR(h->name, w->name);
        HR_CHECK_EQ_U64(h->id, w->id);
        HR_CHECK_STR(hr_heap_kind_name(h->kind), hr_heap_kind_name(w->kind));
        HR_CHECK_EQ_U64(h->size, w->size);
        HR_CHECK_STR(h->parent >= 0 ? c.heaps[h->parent].name : "-", w->parent ? w->parent : "-");
        HR_CHECK(!h->corral_exempt);
    }
    static const char *const lists[3][6] = {
        {"ANYWHERE_IN_LEVEL", "Temp", "LevelZone", "LevelOther", "LevelMission", "LevelHud"},
        {"ANYWHERE_IN_FE", "LevelMovie", "LevelFE", "LevelAudio", NULL, NULL},
        {"EITHER_OTHER_OR_ZONE", "LevelOther", "LevelZone", NULL, NULL, NULL}};
    HR_CHECK_EQ_U64(c.nsearches, 3);
    for (int s = 0; s < 3 && s < c.nsearches; s++) {
        HR_CHECK_STR(c.searches[s].name, lists[s][0]);
        HR_CHECK_EQ_U64(c.searches[s].id, 25 + s);
        int k = 0;
        for (; k < 5 && lists[s][k + 1]; k++)
            HR_CHECK_STR(c.heaps[c.searches[s].heaps[k]].name, lists[s][k + 1]);
        HR_CHECK_EQ_U64(c.searches[s].n, k);
    }
    HR_CHECK_EQ_U64(c.corral_below, 0); /* no corral on PC */
    HR_CHECK_EQ_I64(c.corral_heap, -1);
    HR_CHECK_STR(c.heaps[c.default_heap].name, "Default");
    hr_error_t err;
    hr_routed_t *m = hr_routed_create(&c, &err);
    HR_CHECK(m != NULL);
    if (!m)
        return;
    HR_CHECK_EQ_U64(hr_routed_nheaps(m), n + 1); /* + the root "malloc" */
    /* only the two Doug Lea heaps reserve memory: Temp + LevelHud = 7 MiB */
    HR_CHECK_EQ_U64(hr_routed_footprint(m), 2097152 + 5242880);
    hr_routed_destroy(m);
}

/* Two tables are the same in effect: heaps (name, id, kind, size, parent,
 * corral exemption), search lists, default target and corral. */
static void check_same_table(const hr_heapcfg_t *a, const hr_heapcfg_t *b) {
    HR_CHECK_EQ_U64(a->nheaps, b->nheaps);
    for (int i = 0; i < a->nheaps && i < b->nheaps; i++) {
        const hr_heapcfg_heap_t *x = &a->heaps[i], *y = &b->heaps[i];
        HR_CHECK_STR(x->name, y->name);
        HR_CHECK(x->id == y->id && x->kind == y->kind && x->size == y->size &&
                 x->parent == y->parent && x->corral_exempt == y->corral_exempt);
    }
    HR_CHECK_EQ_U64(a->nsearches, b->nsearches);
    for (int s = 0; s < a->nsearches && s < b->nsearches; s++) {
        HR_CHECK_STR(a->searches[s].name, b->searches[s].name);
        HR_CHECK(a->searches[s].id == b->searches[s].id && a->searches[s].n == b->searches[s].n);
        for (int k = 0; k < a->searches[s].n && k < HR_HEAPCFG_MAX_LIST; k++)
            HR_CHECK_EQ_U64(a->searches[s].heaps[k], b->searches[s].heaps[k]);
    }
    HR_CHECK_EQ_U64(a->default_heap, b->default_heap);
    HR_CHECK_EQ_U64(a->corral_below, b->corral_below);
    HR_CHECK_EQ_I64(a->corral_heap, b->corral_heap);
}

/* configs/*.heaps are the annotated copies of the built-in tables. */
static void test_shipped_configs(void) {
    static const char *const names[] = {"shar-pc", "shar-ps2"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        const char *srcdir = getenv("srcdir");
        snprintf(path, sizeof path, "%s/configs/%s.heaps", srcdir ? srcdir : ".", names[i]);
        hr_heapcfg_t file, builtin;
        hr_error_t err = {{0}};
        HR_CHECK(hr_heapcfg_load(&file, path, &err) == 0);
        if (err.msg[0])
            printf("# %s\n", err.msg);
        HR_CHECK(hr_heapcfg_builtin(&builtin, names[i]) == 0);
        check_same_table(&file, &builtin);
    }
    hr_heapcfg_t a, b;
    hr_heapcfg_default(&a);
    HR_CHECK(hr_heapcfg_builtin(&b, "shar-pc") == 0);
    check_same_table(&a, &b);
    HR_CHECK(hr_heapcfg_builtin(&b, "no-such-table") == -1);
}

/* The PS2 table: corral on (< 201 bytes into SmallAlloc, except Persistent,
 * Temp and AudioPersistent), aliases of Default and of AudioPersistent. */
static void test_ps2_corral(void) {
    hr_heapcfg_t c;
    HR_CHECK(hr_heapcfg_builtin(&c, "shar-ps2") == 0);
    HR_CHECK_EQ_U64(c.corral_below, 201);
    HR_CHECK_STR(c.heaps[c.corral_heap].name, "SmallAlloc");
    HR_CHECK_EQ_U64(c.heaps[c.corral_heap].size, 8593408); /* 4 MB x 2.0 + 200 KB */
    HR_CHECK(c.heaps[T(&c, "Persistent")].kind == HR_HEAP_STATIC);
    hr_error_t err;
    hr_routed_t *m = hr_routed_create(&c, &err);
    HR_CHECK(m != NULL);
    if (!m)
        return;
    hr_routed_push(m, T(&c, "LevelZone"));
    void *a = hr_routed_alloc(m, 200, 0), *b = hr_routed_alloc(m, 201, 0);
    HR_CHECK(owner_is(m, &c, a, "SmallAlloc"));
    HR_CHECK(owner_is(m, &c, b, "LevelZone"));
    hr_routed_push(m, T(&c, "Temp")); /* exempt */
    void *d = hr_routed_alloc(m, 8, 0);
    HR_CHECK(owner_is(m, &c, d, "Temp"));
    hr_routed_push(m, T(&c, "Music")); /* alias of AudioPersistent, not exempt */
    void *e = hr_routed_alloc(m, 300, 0), *f = hr_routed_alloc(m, 100, 0);
    HR_CHECK(owner_is(m, &c, e, "AudioPersistent"));
    HR_CHECK(owner_is(m, &c, f, "SmallAlloc"));
    hr_routed_push(m, T(&c, "LevelOther")); /* alias of Default */
    void *g = hr_routed_alloc(m, 4000, 0);
    HR_CHECK(owner_is(m, &c, g, "Default"));
    HR_CHECK_EQ_U64(hr_routed_totals(m)->corralled, 2);
    HR_CHECK_EQ_U64(hr_routed_totals(m)->none_mallocs, 0);
    hr_routed_destroy(m);
}

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
    HR_CHECK(strstr(js, "\"heaps\":[{\"name\":\"Base\",\"kind\":\"dlheap\"") != NULL);
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
    /* no config path and no heap events: the compiled-in PC default, whose
     * Default heap is never created: plain malloc, counted */
    hr_trace_t empty;
    hr_trace_init(&empty);
    cfg.config_path = NULL;
    cfg.heap_names = NULL;
    cfg.n_heap_names = 0;
    inst = be->create(&cfg, &err);
    HR_CHECK(inst != NULL);
    if (inst) {
        void *p = be->alloc(inst, 4096, 0, -1);
        js = run_stats(be, inst);
        HR_CHECK(strstr(js, "\"heap_config\":\"(default)\"") != NULL);
        HR_CHECK(strstr(js, "{\"name\":\"Default\",\"kind\":\"none\",\"size\":0,") != NULL);
        HR_CHECK(strstr(js, "\"to_malloc\":1,") != NULL);
        HR_CHECK(strstr(js, "\"none_heap_mallocs\":1,") != NULL);
        HR_CHECK(strstr(js, "\"corralled\":0,") != NULL);
        HR_CHECK(strstr(js, "{\"name\":\"malloc\",\"kind\":\"tracking\",\"size\":0,"
                            "\"peak\":4096,") != NULL);
        free(js);
        be->free(inst, p, 4096);
        be->destroy(inst);
    }
    /* -a routed:shar-ps2 names a built-in table: its corral moves a small
     * request; -a routed:FILE loads a file */
    cfg.arg = "shar-ps2";
    inst = be->create(&cfg, &err);
    HR_CHECK(inst != NULL);
    if (inst) {
        void *p = be->alloc(inst, 100, 0, -1);
        js = run_stats(be, inst);
        HR_CHECK(strstr(js, "\"heap_config\":\"shar-ps2\"") != NULL);
        HR_CHECK(strstr(js, "\"corralled\":1,") != NULL);
        HR_CHECK(strstr(js, "{\"name\":\"SmallAlloc\",\"kind\":\"dlheap\",\"size\":8593408,"
                            "\"peak\":100,") != NULL);
        free(js);
        be->free(inst, p, 100);
        be->destroy(inst);
    }
    cfg.arg = data_path("small.conf");
    inst = be->create(&cfg, &err);
    HR_CHECK(inst != NULL);
    if (inst)
        be->destroy(inst);
    cfg.arg = NULL;
    /* a bad config file fails create() with the file:line message */
    cfg.config_path = data_path("bad_kind.conf");
    HR_CHECK(be->create(&cfg, &err) == NULL);
    HR_CHECK(strstr(err.msg, "bad_kind.conf:3: expected a kind") != NULL);
    hr_trace_free(&empty);
    hr_trace_free(&t);
}

int main(void) {
    HR_RUN(test_default_config);
    HR_RUN(test_shipped_configs);
    HR_RUN(test_ps2_corral);
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
