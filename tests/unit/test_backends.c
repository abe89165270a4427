/* Backend conformance: the contract of src/backends/backend.h, checked
 * table-driven over every backend in hr_backends[]. Each check is one TAP
 * case per backend, named "BACKEND: check", so a new backend is covered by
 * adding it to the table. What one allocator does beyond the contract (its
 * own stats, options, fallback rules) stays in tests/unit/test_<name>.c.
 *
 * In-process checks run on the backends whose functions are the allocator
 * itself: not the test-only ones (crash/hang fault on purpose) and, among the
 * external ones, only those whose worker preloads nothing (glibc): jemalloc
 * and friends only exist inside their LD_PRELOAD worker, so in this process
 * their functions would test glibc again. Their in-process case is a SKIP.
 * An optional op a backend leaves NULL makes its case a SKIP. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/be_system.h"
#include "base/json.h"
#include "hr_test.h"
#include "same_blocks.h"
#include "seed_model.h"

static const size_t sizes[] = {0,   1,    3,    8,    15,    16,     17,     24,
                               100, 255,  256,  1000, 4095,  4096,   5000,   65536,
                               100000, (size_t)1 << 20};
static const size_t aligns[] = {0, 8, 16, 32, 64, 256, 4096};
#define N_SIZES  (sizeof sizes / sizeof sizes[0])
#define N_ALIGNS (sizeof aligns / sizeof aligns[0])

static const hr_backend_t *be; /* the backend of the running case */

/* NULL when `b` can run in this process, else why not. */
static const char *in_process_skip(const hr_backend_t *b) {
    if (b->caps & HR_CAP_TEST_ONLY)
        return "test-only backend (faults on purpose)";
    if (b->caps & HR_CAP_EXTERNAL_PROCESS) {
        const char *lib = hr_external_lib(b->name);
        if (!lib || lib[0])
            return "runs only in its LD_PRELOAD worker";
    }
    return NULL;
}

static void *create_default(void) {
    hr_backend_config_t cfg = hr_backend_config_default();
    hr_error_t err = {{0}};
    void *inst = be->create(&cfg, &err);
    if (!inst)
        printf("# %s: create: %s\n", be->name, err.msg);
    return inst;
}

/* Allocates, checks alignment and non-NULL, fills with a pattern, records. */
static void *alloc_fill(void *inst, hr_tm_t *m, size_t size, size_t align, uint32_t seed) {
    void *p = be->alloc(inst, size, align, -1);
    HR_CHECK(p != NULL);
    if (!p)
        return NULL;
    size_t want = align ? align : 16;
    if ((uintptr_t)p % want != 0) {
        printf("# %s: alloc(%zu, %zu) = %p not aligned to %zu\n", be->name, size, align, p, want);
        hr_t_cur_failed++;
    }
    hr_tm_fill(p, size, seed);
    hr_tm_push(m, p, size, seed);
    return p;
}

/* Verifies block i's pattern, frees it and drops it from the model. */
static void verify_free(void *inst, hr_tm_t *m, size_t i) {
    hr_tm_block_t b = hr_tm_take(m, i, 1);
    HR_CHECK(hr_tm_verify(b.p, b.size, b.seed));
    be->free(inst, b.p, b.size);
}

/* One block of every size at every alignment, all live at once. */
static void fill_all(void *inst, hr_tm_t *m) {
    uint32_t seed = 1;
    for (size_t a = 0; a < N_ALIGNS; a++)
        for (size_t s = 0; s < N_SIZES; s++)
            alloc_fill(inst, m, sizes[s], aligns[a], seed++);
    HR_CHECK(hr_tm_no_overlap(m));
}

/* ---- the checks ----------------------------------------------------------------- */

static void check_table_entry(void) {
    HR_CHECK(be->name && be->name[0]);
    HR_CHECK(be->description && be->description[0]);
    HR_CHECK(hr_backend_find(be->name) == be); /* names are unique */
    HR_CHECK(be->create && be->alloc && be->free && be->destroy);
    if (be->caps & HR_CAP_REALLOC)
        HR_CHECK(be->realloc != NULL);
    if (be->caps & HR_CAP_FRAMES)
        HR_CHECK(be->frame != NULL);
    if (be->caps & HR_CAP_HEAP_ROUTING)
        HR_CHECK(be->heap_push != NULL && be->heap_pop != NULL);
    if (be->caps & HR_CAP_EXTERNAL_PROCESS)
        HR_CHECK(be->footprint == NULL); /* the engine samples RSS instead */
}

static void check_in_process(void) {
    const char *why = in_process_skip(be);
    if (why)
        HR_SKIP(why);
}

static void check_create_destroy(void) {
    for (int i = 0; i < 3; i++) { /* instances do not depend on earlier ones */
        void *inst = create_default();
        HR_CHECK(inst != NULL);
        if (inst)
            be->destroy(inst);
    }
}

/* Every size at every alignment, freed newest first (what LIFO allocators
 * serve natively). */
static void check_sizes_lifo(void) {
    void *inst = create_default();
    if (!inst)
        HR_SKIP("create failed");
    hr_tm_t m = {0};
    fill_all(inst, &m);
    while (m.n)
        verify_free(inst, &m, m.n - 1);
    for (size_t s = 0; s < N_SIZES; s++) { /* and again: memory comes back usable */
        alloc_fill(inst, &m, sizes[s], 0, 1000 + (uint32_t)s);
        verify_free(inst, &m, 0);
    }
    hr_tm_free(&m);
    be->destroy(inst);
}

/* Seeded churn: allocations and frees in random order, contents checked at
 * every free, no overlap among live blocks. */
static void check_sizes_random(void) {
    void *inst = create_default();
    if (!inst)
        HR_SKIP("create failed");
    hr_tm_t m = {0};
    uint64_t rng = 42;
    fill_all(inst, &m);
    for (uint32_t op = 0; op < 3000; op++) {
        uint64_t r = hr_tm_rand(&rng);
        if (m.n && (r % 5 < 2 || m.n > 400))
            verify_free(inst, &m, (size_t)(r >> 8) % m.n);
        else
            alloc_fill(inst, &m, (r >> 16) % 8 == 0 ? (size_t)(r >> 24) % 70000 : (size_t)(r >> 24) % 600,
                       aligns[(r >> 40) % N_ALIGNS], 5000 + op);
        if (op % 250 == 0)
            HR_CHECK(hr_tm_no_overlap(&m));
    }
    while (m.n)
        verify_free(inst, &m, 0); /* oldest first */
    hr_tm_free(&m);
    be->destroy(inst);
}

static void check_usable_size(void) {
    if (!be->usable_size)
        HR_SKIP("usable_size not provided");
    void *inst = create_default();
    if (!inst)
        HR_SKIP("create failed");
    hr_tm_t m = {0};
    fill_all(inst, &m);
    for (size_t i = 0; i < m.n; i++) {
        size_t u = be->usable_size(inst, m.v[i].p, m.v[i].size);
        if (u < m.v[i].size) {
            printf("# %s: usable_size %zu < size %zu\n", be->name, u, m.v[i].size);
            hr_t_cur_failed++;
        }
    }
    while (m.n)
        verify_free(inst, &m, m.n - 1);
    hr_tm_free(&m);
    be->destroy(inst);
}

static void check_realloc_calloc(void) {
    if (!be->realloc && !be->calloc)
        HR_SKIP("neither realloc nor calloc provided (the engine emulates them)");
    void *inst = create_default();
    if (!inst)
        HR_SKIP("create failed");
    if (be->realloc) { /* grow and shrink keep the common prefix */
        size_t steps[] = {10, 100, 5000, 300000, 64, 1};
        size_t old = 10;
        char *p = be->alloc(inst, old, 0, -1);
        HR_CHECK(p != NULL);
        hr_tm_fill(p, old, 7);
        for (size_t i = 1; p && i < sizeof steps / sizeof steps[0]; i++) {
            char *q = be->realloc(inst, p, old, steps[i], -1);
            HR_CHECK(q != NULL);
            if (!q)
                break;
            HR_CHECK_EQ_U64((uintptr_t)q % 16, 0);
            HR_CHECK(hr_tm_verify(q, old < steps[i] ? old : steps[i], 7));
            old = steps[i];
            hr_tm_fill(q, old, 7);
            p = q;
        }
        if (p)
            be->free(inst, p, old);
    }
    if (be->calloc) { /* zeroed, aligned, freed with the product */
        for (size_t n = 1; n <= 4096; n *= 8) {
            unsigned char *c = be->calloc(inst, n, 24, -1);
            HR_CHECK(c != NULL);
            if (!c)
                continue;
            HR_CHECK_EQ_U64((uintptr_t)c % 16, 0);
            size_t nz = 0;
            for (size_t i = 0; i < n * 24; i++)
                nz += c[i] != 0;
            HR_CHECK_EQ_U64(nz, 0);
            memset(c, 0xA5, n * 24);
            be->free(inst, c, n * 24);
        }
    }
    be->destroy(inst);
}

/* Heap pushes and pops (nested, and one mismatched) and frame marks around
 * allocations: never a crash, blocks stay intact while they are live. Blocks
 * of a frame are freed before the next frame (a frame may reclaim them). */
static void check_heaps_frames(void) {
    if (!be->heap_push && !be->heap_pop && !be->frame)
        HR_SKIP("no heap or frame ops");
    static const char *const names[] = {"Level", "Temp", "NoSuchHeap"};
    hr_backend_config_t cfg = hr_backend_config_default();
    cfg.heap_names = names;
    cfg.n_heap_names = 3;
    hr_error_t err = {{0}};
    void *inst = be->create(&cfg, &err);
    HR_CHECK(inst != NULL);
    if (!inst)
        return;
    hr_tm_t m = {0};
    if (be->heap_push && be->heap_pop) {
        for (uint32_t h = 0; h < 3; h++) {
            be->heap_push(inst, h, names[h]);
            for (size_t s = 0; s < N_SIZES; s += 3) {
                void *p = be->alloc(inst, sizes[s], 0, (int32_t)h);
                HR_CHECK(p != NULL);
                hr_tm_fill(p, sizes[s], h * 100 + (uint32_t)s);
                hr_tm_push(&m, p, sizes[s], h * 100 + (uint32_t)s);
            }
        }
        for (uint32_t h = 3; h-- > 0;)
            be->heap_pop(inst, h, names[h]);
        be->heap_pop(inst, 0, names[0]); /* one pop too many: counted, ignored */
        HR_CHECK(hr_tm_no_overlap(&m));
        while (m.n)
            verify_free(inst, &m, 0);
    }
    if (be->frame) {
        uint64_t fp2 = 0;
        for (uint64_t f = 0; f < 50; f++) {
            be->frame(inst, f);
            for (size_t s = 0; s < N_SIZES; s++)
                alloc_fill(inst, &m, sizes[s], aligns[s % N_ALIGNS], (uint32_t)(f * 100 + s));
            HR_CHECK(hr_tm_no_overlap(&m));
            while (m.n)
                verify_free(inst, &m, m.n - 1);
            if (f == 2 && be->footprint)
                fp2 = be->footprint(inst);
        }
        if (be->footprint) /* the same frame 50 times holds no more than 3 times */
            HR_CHECK(be->footprint(inst) <= fp2);
    }
    hr_tm_free(&m);
    be->destroy(inst);
}

/* footprint() never decreases while only allocating, covers the live bytes,
 * and does not exceed its peak once everything is freed. */
static void check_footprint(void) {
    if (!be->footprint)
        HR_SKIP("footprint not provided (external: RSS is sampled)");
    void *inst = create_default();
    if (!inst)
        HR_SKIP("create failed");
    hr_tm_t m = {0};
    uint64_t prev = be->footprint(inst), bad = 0;
    for (size_t a = 0; a < N_ALIGNS; a++)
        for (size_t s = 0; s < N_SIZES; s++) {
            alloc_fill(inst, &m, sizes[s], aligns[a], (uint32_t)(a * 100 + s));
            uint64_t fp = be->footprint(inst);
            if (fp < prev || fp < m.live) {
                printf("# %s: footprint %" PRIu64 " after %" PRIu64 " (live %" PRIu64 ")\n",
                       be->name, fp, prev, m.live);
                bad++;
            }
            prev = fp;
        }
    HR_CHECK_EQ_U64(bad, 0);
    uint64_t peak = prev;
    while (m.n)
        verify_free(inst, &m, m.n - 1);
    HR_CHECK(be->footprint(inst) <= peak);
    hr_tm_free(&m);
    be->destroy(inst);
}

/* stats() is one valid JSON object; an in-house backend counts every alloc
 * and free as native or fallback, and keeps violations in an object. */
static void check_stats_json(void) {
    if (!be->stats)
        HR_SKIP("stats not provided");
    void *inst = create_default();
    if (!inst)
        HR_SKIP("create failed");
    hr_tm_t m = {0};
    fill_all(inst, &m);
    uint64_t ops = 2 * m.n;
    while (m.n)
        verify_free(inst, &m, m.n - 1);
    char *js = hr_backend_stats_json(be, inst);
    HR_CHECK(js != NULL);
    hr_error_t err = {""};
    hr_json_t *doc = js ? hr_json_parse(js, strlen(js), be->name, &err) : NULL;
    HR_CHECK(doc != NULL);
    HR_CHECK(hr_json_type(doc) == HR_JSON_OBJECT);
    if (doc && !(be->caps & HR_CAP_EXTERNAL_PROCESS)) {
        uint64_t native = 0, fallback = 0;
        HR_CHECK_EQ_U64(hr_json_get_u64(hr_json_get(doc, "native_ops"), &native), 0);
        HR_CHECK_EQ_U64(hr_json_get_u64(hr_json_get(doc, "fallback_ops"), &fallback), 0);
        HR_CHECK_EQ_U64(native + fallback, ops);
        const hr_json_t *v = hr_json_get(doc, "violations");
        HR_CHECK(v == NULL || hr_json_type(v) == HR_JSON_OBJECT);
    }
    if (hr_t_cur_failed)
        printf("# %s %s\n", js ? js : "(null)", err.msg);
    hr_json_free(doc);
    free(js);
    hr_tm_free(&m);
    be->destroy(inst);
}

/* destroy() releases blocks that are still live (nothing to observe here
 * but that it returns; leak checkers see the rest). */
static void check_destroy_live(void) {
    void *inst = create_default();
    if (!inst)
        HR_SKIP("create failed");
    hr_tm_t m = {0};
    fill_all(inst, &m);
    if (be->frame)
        be->frame(inst, 0);
    for (size_t s = 0; s < N_SIZES; s++)
        alloc_fill(inst, &m, sizes[s], 0, 900 + (uint32_t)s);
    hr_tm_free(&m);
    be->destroy(inst);
}

/* The block ordinals of a churn of TIMED_OPS ops on a fresh instance,
 * through the timed entries (timed 1) or the others: ord[k] numbers op k's
 * block (same_blocks.h). Small requests, which the in-house allocators
 * mostly serve themselves. */
#define TIMED_OPS 20000
#define TIMED_IDS 256
static int timed_churn(int timed, uint32_t *ord) {
    void *(*alloc)(void *, size_t, size_t, int32_t) = timed ? be->alloc_timed : be->alloc;
    void (*freef)(void *, void *, size_t) = timed ? be->free_timed : be->free;
    void *(*re)(void *, void *, size_t, size_t, int32_t) =
        timed && be->realloc_timed ? be->realloc_timed : be->realloc;
    void *inst = create_default();
    if (!inst)
        return -1;
    static void *seen[TIMED_OPS];
    void *live[TIMED_IDS] = {0};
    size_t size[TIMED_IDS] = {0}, n_seen = 0;
    uint32_t x = 12345;
    for (size_t k = 0; k < TIMED_OPS; k++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        size_t id = x % TIMED_IDS, sz = 1 + (x >> 8) % 120;
        void *p;
        if (!live[id]) {
            p = alloc(inst, sz, 0, -1);
        } else if (re && (x >> 20) % 4 == 0) {
            p = re(inst, live[id], size[id], sz, -1);
        } else {
            freef(inst, live[id], size[id]);
            live[id] = NULL;
            ord[k] = UINT32_MAX;
            continue;
        }
        live[id] = p, size[id] = sz;
        ord[k] = same_blocks_ordinal(seen, &n_seen, TIMED_OPS, p);
    }
    for (size_t id = 0; id < TIMED_IDS; id++)
        if (live[id])
            be->free(inst, live[id], size[id]);
    be->destroy(inst);
    return 0;
}

/* timed_churn in a child (same_blocks.h); ord in shared memory. 0 when the
 * child succeeded. */
static int forked_churn(int timed, uint32_t *ord) {
    pid_t pid = same_blocks_fork();
    if (pid == 0)
        _exit(timed_churn(timed, ord) == 0 ? 0 : 1);
    return same_blocks_child_ok(pid) ? 0 : -1;
}

/* alloc_timed/free_timed/realloc_timed, where a backend has them, hand out
 * the same blocks as alloc/free/realloc (backend.h): only the counting is
 * left out. */
static void check_timed_same_blocks(void) {
    if (!be->alloc_timed && !be->free_timed && !be->realloc_timed)
        HR_SKIP("no timed entries");
    HR_CHECK(be->alloc_timed != NULL && be->free_timed != NULL); /* a pair or neither */
    size_t bytes = 2 * TIMED_OPS * sizeof(uint32_t);
    uint32_t *a = same_blocks_shared(bytes);
    if (!a)
        HR_SKIP("no shared memory");
    uint32_t *b = a + TIMED_OPS;
    if (forked_churn(0, a) != 0 || forked_churn(1, b) != 0) {
        munmap(a, bytes);
        HR_SKIP("create failed");
    }
    size_t k = same_blocks_first_diff(a, b, TIMED_OPS);
    HR_CHECK_EQ_U64(k, TIMED_OPS);
    if (k < TIMED_OPS)
        printf("# op %zu: block %u counted, %u timed\n", k, a[k], b[k]);
    munmap(a, bytes);
}

/* ---- the table ------------------------------------------------------------------ */

static const struct {
    const char *name;
    void (*fn)(void);
} checks[] = {
    {"create and destroy, three times", check_create_destroy},
    {"every size at every alignment, LIFO frees", check_sizes_lifo},
    {"random churn, frees in any order", check_sizes_random},
    {"usable_size covers the size", check_usable_size},
    {"realloc and calloc", check_realloc_calloc},
    {"heap push/pop and frames", check_heaps_frames},
    {"footprint: monotone while allocating, covers live bytes", check_footprint},
    {"stats() is a JSON object with op counts", check_stats_json},
    {"destroy with blocks still live", check_destroy_live},
    {"timed entries hand out the same blocks", check_timed_same_blocks},
};

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    char name[160];
    for (size_t b = 0; hr_backends[b]; b++) {
        be = hr_backends[b];
        snprintf(name, sizeof name, "%s: table entry and caps", be->name);
        HR_RUN_AS(name, check_table_entry());
        if (in_process_skip(be)) {
            snprintf(name, sizeof name, "%s: in-process conformance", be->name);
            HR_RUN_AS(name, check_in_process());
            continue;
        }
        for (size_t c = 0; c < sizeof checks / sizeof checks[0]; c++) {
            snprintf(name, sizeof name, "%s: %s", be->name, checks[c].name);
            HR_RUN_AS(name, checks[c].fn());
        }
    }
    return hr_test_done();
}
