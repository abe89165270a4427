/* Tests of the routed backend's built-in heap tables (heapcfg.c): the
 * default is the game's PC build (createheap.cpp, srrmemory.cpp), configs/shar-*.heaps
 * are the same tables as annotated files, and the PS2 table has the corral.
 * The manager and parser themselves: test_routed.c. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "alloc/routed.h"
#include "hr_test.h"

extern const hr_backend_t hr_backend_routed;

#define T(c, name) hr_heapcfg_lookup((c), (name))

static int owner_is(hr_routed_t *m, const hr_heapcfg_t *c, void *p, const char *name) {
    int o = hr_routed_owner(m, p), want = T(c, name);
    if (o != want)
        printf("# owner of %p: %d, expected %s (%d)\n", p, o, name, want);
    return o == want;
}

/* The game's PC build (createheap.cpp, srrmemory.cpp), non-release, FUDGE 2.0:
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

static void test_pc_default_table(void) {
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

/* configs/shar-*.heaps are the annotated copies of the built-in tables. */
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

/* The backend: no config is the PC default; -a routed:NAME / routed:FILE. */
static void test_backend_tables(void) {
    /* no config and no heap events: the compiled-in PC default, whose Default
     * heap is never created: plain malloc, counted */
    const hr_backend_t *be = &hr_backend_routed;
    hr_backend_config_t cfg = hr_backend_config_default();
    hr_error_t err = {{0}};
    char *js;
    void *inst = be->create(&cfg, &err);
    HR_CHECK(inst != NULL);
    if (inst) {
        void *p = be->alloc(inst, 4096, 0, -1);
        js = hr_backend_stats_json(be, inst);
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
        js = hr_backend_stats_json(be, inst);
        HR_CHECK(strstr(js, "\"heap_config\":\"shar-ps2\"") != NULL);
        HR_CHECK(strstr(js, "\"corralled\":1,") != NULL);
        HR_CHECK(strstr(js, "{\"name\":\"SmallAlloc\",\"kind\":\"dlheap\",\"size\":8593408,"
                            "\"peak\":100,") != NULL);
        free(js);
        be->free(inst, p, 100);
        be->destroy(inst);
    }
    char path[1024];
    const char *srcdir = getenv("srcdir");
    snprintf(path, sizeof path, "%s/configs/shar-ps2.heaps", srcdir ? srcdir : ".");
    cfg.arg = path;
    inst = be->create(&cfg, &err);
    HR_CHECK(inst != NULL);
    if (inst)
        be->destroy(inst);
    cfg.arg = "no-such-table"; /* neither a built-in name nor a file */
    HR_CHECK(be->create(&cfg, &err) == NULL);
    HR_CHECK(strstr(err.msg, "no-such-table: cannot open") != NULL);
}

int main(void) {
    HR_RUN(test_pc_default_table);
    HR_RUN(test_shipped_configs);
    HR_RUN(test_ps2_corral);
    HR_RUN(test_backend_tables);
    return hr_test_done();
}
