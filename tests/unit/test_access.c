/* The access model (replay/access.h, --access): parsing and names, and that
 * its uses land on live blocks only. The second part replays a churning
 * trace on a "fence" backend: every block on pages of its own, ending at a
 * guard page, and made PROT_NONE (never unmapped, never reused) when freed.
 * A use of a freed block, or past a block's end, is then a SIGSEGV that
 * ends this test; and the pages the uses wrote are resident, which shows
 * the model did use the blocks (with --touch none nothing else writes them). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backends/backend.h"
#include "base/json.h"
#include "hr_test.h"
#include "replay/engine.h"

extern const hr_backend_t hr_backend_bump;

/* ---- parsing ---------------------------------------------------------------- */

static void test_access_parse(void) {
    hr_access_t a;
    char b[32];
    HR_CHECK(hr_access_parse("none", &a) == 0 && !hr_access_on(&a));
    HR_CHECK(hr_access_parse("reuse:4", &a) == 0 && a.kind == HR_ACCESS_REUSE && a.lines == 4 &&
             !a.read_free && hr_access_on(&a));
    HR_CHECK(hr_access_parse("spread:64", &a) == 0 && a.kind == HR_ACCESS_SPREAD && a.lines == 64);
    HR_CHECK(hr_access_parse("reuse:1+free", &a) == 0 && a.kind == HR_ACCESS_REUSE && a.read_free);
    HR_CHECK(hr_access_parse("free+spread:2", &a) == 0 && a.kind == HR_ACCESS_SPREAD && a.read_free);
    HR_CHECK(hr_access_parse("free", &a) == 0 && a.kind == HR_ACCESS_NONE && a.read_free &&
             hr_access_on(&a));
    static const char *const bad[] = {"", "some", "reuse", "reuse:", "reuse:0", "reuse:65",
                                      "reuse:4x", "reuse:-1", "spread:99999999999", "none+free",
                                      "free+free", "reuse:4+spread:4", "reuse:4+", "+free",
                                      "reuse:4+free+x", "REUSE:4", "reuse:4 "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        a.kind = HR_ACCESS_SPREAD;
        a.lines = 7;
        int rc = hr_access_parse(bad[i], &a);
        if (rc != -1 || a.kind != HR_ACCESS_SPREAD || a.lines != 7)
            printf("# accepted or changed by '%s'\n", bad[i]);
        HR_CHECK(rc == -1 && a.kind == HR_ACCESS_SPREAD && a.lines == 7); /* untouched */
    }
    static const char *const round[] = {"none", "free", "reuse:4", "spread:16+free"};
    for (size_t i = 0; i < 4; i++) {
        HR_CHECK(hr_access_parse(round[i], &a) == 0);
        HR_CHECK_STR(hr_access_spec(&a, b, sizeof b), round[i]);
    }
    HR_CHECK(hr_access_parse("free+reuse:2", &a) == 0);
    HR_CHECK_STR(hr_access_spec(&a, b, sizeof b), "reuse:2+free");
    hr_replay_options_t o = hr_replay_options_default();
    HR_CHECK(!hr_access_on(&o.access)); /* the default is none */
}

/* ---- the fence backend ------------------------------------------------------ */

#define PAGE      4096u
#define MAX_MAPS  65536

static struct { char *base; size_t len; } maps[MAX_MAPS];
static size_t n_maps;

static size_t data_pages(size_t size) { return (size ? size + PAGE - 1 : PAGE) / PAGE; }

/* The block ends where the guard page starts (rounded to 16 bytes). */
static void *fence_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)self, (void)align, (void)heap;
    size_t np = data_pages(size), len = (np + 1) * PAGE;
    if (n_maps == MAX_MAPS)
        return NULL;
    char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    mprotect(base + np * PAGE, PAGE, PROT_NONE);
    maps[n_maps].base = base;
    maps[n_maps++].len = len;
    return base + np * PAGE - (((size ? size : 1) + 15) & ~(size_t)15);
}

static void fence_free(void *self, void *ptr, size_t size) {
    (void)self;
    char *base = (char *)((uintptr_t)ptr & ~(uintptr_t)(PAGE - 1));
    mprotect(base, data_pages(size) * PAGE, PROT_NONE); /* any later use faults */
}

/* Resident data pages of every block made so far (guard pages never are). */
static size_t fence_resident(void) {
    size_t n = 0;
    unsigned char vec[64];
    for (size_t i = 0; i < n_maps; i++) {
        size_t np = maps[i].len / PAGE;
        if (np <= sizeof vec && mincore(maps[i].base, maps[i].len, vec) == 0)
            for (size_t k = 0; k < np; k++)
                n += vec[k] & 1;
    }
    return n;
}

static void fence_reset(void) {
    for (size_t i = 0; i < n_maps; i++)
        munmap(maps[i].base, maps[i].len);
    n_maps = 0;
}

/* A churning trace: allocations of 1..6000 bytes (some of 0), frees in a
 * scrambled order, reallocs, callocs and frames; ids reused. `plain`: alloc
 * and free only (the engine writes nothing into their blocks by itself; it
 * zeroes a calloc and copies a realloc on this backend). */
static void churn(hr_trace_t *t, int plain) {
    enum { IDS = 200, EVENTS = 3000 };
    unsigned live[IDS] = {0}, next = 1, x = 12345;
    hr_trace_init(t);
    for (unsigned i = 0; i < EVENTS; i++) {
        x = x * 1103515245u + 12345u;
        unsigned id = (x >> 8) % IDS, r = (x >> 20) % 8;
        hr_event_t ev = {0};
        if (!live[id]) {
            ev.op = r == 0 && !plain ? HR_OP_CALLOC : HR_OP_ALLOC;
            ev.id = id;
            ev.size = r == 1 ? 0 : 1 + (x >> 4) % 6000;
            if (ev.op == HR_OP_CALLOC) {
                ev.aux = 1 + r;
                ev.size = 1 + ev.size / 8;
            }
            live[id] = next++;
        } else if (r < 2 && !plain) { /* realloc id -> a free id */
            unsigned to = (id + 1 + (x >> 12) % (IDS - 1)) % IDS;
            if (live[to])
                continue;
            ev.op = HR_OP_REALLOC;
            ev.aux = id;
            ev.id = to;
            ev.size = 1 + (x >> 3) % 9000;
            live[to] = live[id];
            live[id] = 0;
        } else {
            ev.op = HR_OP_FREE;
            ev.id = id;
            live[id] = 0;
        }
        hr_trace_push(t, &ev);
        if (i % 97 == 0) {
            hr_event_t f = {0};
            f.op = HR_OP_FRAME;
            f.size = i;
            hr_trace_push(t, &f);
        }
    }
}

/* Replays the churn in `mode` with `model` and --touch `touch`; 0 when the
 * result is ok (and, in verify mode, the checker found nothing). */
static int fence_replay(const char *model, hr_touch_t touch, hr_replay_mode_t mode, int plain) {
    hr_backend_t be = hr_backend_bump;
    be.name = "fence";
    be.alloc = fence_alloc;
    be.free = fence_free;
    be.calloc = NULL;
    be.realloc = NULL;
    hr_trace_t t;
    churn(&t, plain);
    hr_error_t err;
    if (hr_trace_validate(&t, "test", &err) != 0) {
        printf("# validate: %s\n", err.msg);
        return -1;
    }
    hr_replay_options_t opt = hr_replay_options_default();
    opt.touch = touch;
    opt.mode = mode;
    opt.warm_time_s = 0;
    if (hr_access_parse(model, &opt.access) != 0)
        return -1;
    hr_emit_mem_t m;
    hr_emit_mem_open(&m, 1);
    hr_replay_one(&t, "test", "0000000000000000", &be, be.name, NULL, &opt, &m.em);
    char *buf = hr_emit_mem_close(&m);
    hr_json_t *r = hr_json_parse(buf, strlen(buf), "result", &err);
    int rc = -1;
    if (r && hr_json_path_str(r, "status") && strcmp(hr_json_path_str(r, "status"), "ok") == 0)
        rc = 0;
    if (r && mode == HR_MODE_VERIFY && hr_json_path_str(r, "verify.status") &&
        strcmp(hr_json_path_str(r, "verify.status"), "ok") != 0)
        rc = -1;
    if (r && hr_access_on(&opt.access) && !hr_json_path_str(r, "access"))
        rc = -1; /* the result names the model when it is on */
    if (rc)
        printf("# %s: %s\n", model, buf);
    hr_json_free(r);
    free(buf);
    hr_trace_free(&t);
    return rc;
}

/* Every model in every mode that applies it: no use of a freed block (that
 * would be a SIGSEGV here) and the result is ok. */
static void test_access_live_only(void) {
    static const char *const models[] = {"reuse:16+free", "spread:16+free", "reuse:1", "free"};
    static const hr_replay_mode_t modes[] = {HR_MODE_TIME, HR_MODE_MEASURE, HR_MODE_VERIFY,
                                             HR_MODE_COUNT};
    for (size_t i = 0; i < 4; i++)
        for (size_t k = 0; k < 4; k++) {
            HR_CHECK(fence_replay(models[i], HR_TOUCH_FIRST, modes[k], 0) == 0);
            fence_reset();
        }
}

/* With --touch none nothing but the model writes into a block: its pages are
 * resident only when a model ran (and a read-only model reads the zero page:
 * nothing becomes resident). */
static void test_access_uses_blocks(void) {
    HR_CHECK(fence_replay("none", HR_TOUCH_NONE, HR_MODE_TIME, 1) == 0);
    size_t none = fence_resident();
    fence_reset();
    HR_CHECK(fence_replay("reuse:4", HR_TOUCH_NONE, HR_MODE_TIME, 1) == 0);
    size_t reuse = fence_resident();
    fence_reset();
    HR_CHECK(fence_replay("spread:4", HR_TOUCH_NONE, HR_MODE_TIME, 1) == 0);
    size_t spread = fence_resident();
    fence_reset();
    printf("# resident pages: none %zu, reuse:4 %zu, spread:4 %zu\n", none, reuse, spread);
    HR_CHECK_EQ_U64(none, 0);
    HR_CHECK(reuse > 100);
    HR_CHECK(spread > 100);
}

int main(void) {
    HR_RUN(test_access_parse);
    HR_RUN(test_access_live_only);
    HR_RUN(test_access_uses_blocks);
    return hr_test_done();
}
