/* Compositions (backends/compose.h, replay/compose.c): spec parsing, the
 * routing plan on a hand-built trace whose classes are known, a replay
 * that keeps the plan's cursor in step across a failed allocation, and the
 * timed entries handing out the counting ones' blocks. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/compose.h"
#include "base/json.h"
#include "hr_test.h"
#include "same_blocks.h"
#include "replay/engine.h"
#include "replay/engine_int.h"

static void push(hr_trace_t *t, unsigned op, uint32_t id, uint32_t aux, uint64_t size) {
    hr_event_t ev = {0};
    ev.op = (uint8_t)op;
    ev.id = id;
    ev.aux = aux;
    ev.size = size;
    hr_trace_push(t, &ev);
}

static int validate(hr_trace_t *t) {
    hr_error_t err;
    int rc = hr_trace_validate(t, "test", &err);
    if (rc)
        printf("# %s\n", err.msg);
    return rc;
}

static void test_parse(void) {
    hr_compose_spec_t s;
    hr_error_t err;
    HR_CHECK(hr_compose_parse("stack:entries=8+marker+block", &s, &err) == 0);
    HR_CHECK_EQ_U64(s.n, 3);
    HR_CHECK_EQ_U64(s.part[0].take, HR_TAKE_LIFO_TEMP);
    HR_CHECK_EQ_U64(s.part[0].entries, 8);
    HR_CHECK_STR(s.part[0].spec, "stack:entries=8");
    HR_CHECK_EQ_U64(s.part[1].take, HR_TAKE_FRAME);
    HR_CHECK_EQ_U64(s.part[2].take, HR_TAKE_SIZE);
    HR_CHECK_EQ_U64(s.part[2].max_size, 640);
    HR_CHECK(hr_compose_parse("glibc+stack", &s, &err) == -1 && strstr(err.msg, "last part"));
    HR_CHECK(hr_compose_parse("stack+", &s, &err) == -1 && strstr(err.msg, "empty part"));
    HR_CHECK(hr_compose_parse("stack+nosuch", &s, &err) == -1 && strstr(err.msg, "'nosuch'"));
    HR_CHECK(hr_compose_parse("stack+crash", &s, &err) == -1); /* test-only backends */
    HR_CHECK(hr_compose_parse("stack+marker+block+bank+glibc", &s, &err) == -1);
    HR_CHECK(hr_compose_parse("jemalloc+mimalloc", &s, &err) == -1); /* one malloc per process */
    const hr_backend_t *in = hr_backend_find("stack+block"), *ex = hr_backend_find("marker+glibc");
    HR_CHECK(in && (in->caps & HR_CAP_COMPOSITE) && !(in->caps & HR_CAP_EXTERNAL_PROCESS) &&
             in->footprint);
    HR_CHECK(ex && (ex->caps & HR_CAP_EXTERNAL_PROCESS) && !ex->footprint);
    HR_CHECK(hr_backend_find("stack+nosuch") == NULL);
}

/* Frame 0: A and B nest (A outlives B): both on the stack; C then D freed in
 * allocation order: C on the stack, D would break LIFO -> block; L is never
 * freed -> block. Frame 1: E outlives its frame -> block; a 1 KiB temporary
 * X -> stack (the stack's rule does not look at size), grown by a realloc:
 * the new block goes to block (a stack does not take a realloc's block). */
static void make_trace(hr_trace_t *t) {
    hr_trace_init(t);
    push(t, HR_OP_ALLOC, 0, 0, 100);   /* 0 A */
    push(t, HR_OP_ALLOC, 1, 0, 200);   /* 1 B */
    push(t, HR_OP_FREE, 1, 0, 0);      /* 2 */
    push(t, HR_OP_FREE, 0, 0, 0);      /* 3 */
    push(t, HR_OP_ALLOC, 2, 0, 50);    /* 4 C */
    push(t, HR_OP_ALLOC, 3, 0, 60);    /* 5 D */
    push(t, HR_OP_FREE, 2, 0, 0);      /* 6 */
    push(t, HR_OP_FREE, 3, 0, 0);      /* 7 */
    push(t, HR_OP_ALLOC, 4, 0, 70);    /* 8 L */
    push(t, HR_OP_ALLOC, 5, 0, 80);    /* 9 E */
    push(t, HR_OP_FRAME, 0, 0, 1);     /* 10 */
    push(t, HR_OP_FREE, 5, 0, 0);      /* 11 */
    push(t, HR_OP_ALLOC, 6, 0, 1024);  /* 12 X */
    push(t, HR_OP_REALLOC, 6, 6, 2048); /* 13 X grows: consumes X, makes X' */
    push(t, HR_OP_FREE, 6, 0, 0);      /* 14 */
}

/* The routing plan of spec on t (the one before released). */
static const hr_route_plan_t *plan_of(const hr_trace_t *t, const char *spec, hr_error_t *err) {
    static const hr_route_plan_t *last;
    hr_compose_spec_t cs;
    hr_compose_plan_free(last);
    last = hr_compose_parse(spec, &cs, err) == 0 ? hr_compose_plan_new(t, &cs, spec, err) : NULL;
    return last;
}

static void test_plan_classes(void) {
    hr_trace_t t;
    make_trace(&t);
    HR_CHECK(validate(&t) == 0);
    hr_error_t err;
    const hr_route_plan_t *p = plan_of(&t, "stack+block", &err);
    HR_CHECK(p != NULL);
    if (!p)
        return;
    static const uint8_t part[] = {0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0xFF, 1, 0, 1, 1};
    for (size_t i = 0; i < sizeof part; i++) {
        uint8_t r = p->route[i];
        HR_CHECK_EQ_U64(r == HR_ROUTE_NONE ? 0xFF : (r & 7), part[i]);
    }
    HR_CHECK_EQ_U64(p->route[13] >> 6, 2); /* realloc: old part 0, the new block on block */
    HR_CHECK_EQ_U64((p->route[13] >> 3) & 7, 0);
    HR_CHECK_EQ_U64(p->consumer[0], 3);
    HR_CHECK_EQ_U64(p->consumer[8], HR_ROUTE_NO_CONSUMER);
    HR_CHECK_EQ_U64(p->consumer[12], 13);
    HR_CHECK_EQ_U64(p->blocks, 8);
    HR_CHECK_EQ_U64(p->frame_scoped, 6);  /* all but L and E */
    HR_CHECK_EQ_U64(p->lifo_temps, 4);    /* A B C X (D breaks LIFO, X' is a realloc's) */
    HR_CHECK_EQ_U64(p->part_blocks[0], 4);
    HR_CHECK_EQ_U64(p->part_blocks[1], 4);
    HR_CHECK_EQ_U64(p->part_bytes[1], 60 + 70 + 80 + 2048);
    /* marker takes every frame-scoped block, LIFO or not */
    p = plan_of(&t, "marker+glibc", &err);
    HR_CHECK(p && p->part_blocks[0] == 6 && p->part_blocks[1] == 2);
    /* a size rule: block takes what fits in 640 B */
    p = plan_of(&t, "block+glibc", &err);
    HR_CHECK(p && p->part_blocks[0] == 6 && p->part_blocks[1] == 2);
    /* an entry limit of 1: B cannot join A */
    p = plan_of(&t, "stack:entries=1+block", &err);
    HR_CHECK(p && p->part_blocks[0] == 3 && (p->route[1] & 7) == 1);
    plan_of(&t, "", &err); /* releases the last plan */
    hr_trace_free(&t);
}

static hr_json_t *measure(hr_trace_t *t, const char *spec) {
    hr_emit_mem_t m;
    hr_emit_mem_open(&m, 1);
    hr_replay_options_t opt = hr_replay_options_default();
    opt.mode = HR_MODE_MEASURE;
    opt.touch = HR_TOUCH_NONE;
    const hr_backend_t *be = hr_backend_find(spec);
    hr_replay_one(t, "test", "0000000000000000", be, spec, NULL, &opt, &m.em);
    char *buf = hr_emit_mem_close(&m);
    hr_json_t *v = hr_json_parse(buf, strlen(buf), "result", NULL);
    if (!v || strcmp(hr_json_path_str(v, "status"), "ok") != 0)
        printf("# %s\n", buf);
    free(buf);
    return v;
}

/* The huge block (block part, outlives its frame) fails; the engine skips
 * its free (event 3), so the composite must too: the stack's temporaries T
 * and U then come back to the stack in LIFO order. */
static void test_failed_alloc_keeps_step(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    push(&t, HR_OP_ALLOC, 0, 0, (uint64_t)1 << 62); /* 0 A: fails */
    push(&t, HR_OP_FRAME, 0, 0, 1);                 /* 1 */
    push(&t, HR_OP_ALLOC, 1, 0, 16);                /* 2 T */
    push(&t, HR_OP_FREE, 0, 0, 0);                  /* 3: skipped */
    push(&t, HR_OP_FREE, 1, 0, 0);                  /* 4 */
    push(&t, HR_OP_ALLOC, 1, 0, 16);                /* 5 U */
    push(&t, HR_OP_FREE, 1, 0, 0);                  /* 6 */
    HR_CHECK(validate(&t) == 0);
    hr_json_t *r = measure(&t, "stack+block");
    HR_CHECK(r != NULL);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "failed_allocs"), 1);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "native.violations.route_desync"), 0);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "native.parts.0.native_ops"), 4);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "native.parts.0.fallback_ops"), 0);
    HR_CHECK(hr_json_path_num(r, "native.parts.0.footprint") > 0);
    hr_json_free(r);
    hr_trace_free(&t);
}

/* Footprint of an in-house composition = the sum of its parts'. */
static void test_footprint_is_sum(void) {
    hr_trace_t t;
    make_trace(&t);
    HR_CHECK(validate(&t) == 0);
    hr_json_t *r = measure(&t, "stack+block");
    HR_CHECK(r != NULL);
    double a = hr_json_path_num(r, "native.parts.0.footprint");
    double b = hr_json_path_num(r, "native.parts.1.footprint");
    HR_CHECK(a > 0 && b > 0);
    HR_CHECK_STR(hr_json_path_str(r, "memory.footprint_source"), "exact");
    HR_CHECK_EQ_U64(hr_json_path_num(r, "native.blocks"), 8);
    /* L is never freed: the engine frees it after the lap, outside the plan,
     * and the composite finds its part by address */
    HR_CHECK_EQ_U64(hr_json_path_num(r, "native.violations.route_desync"), 0);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "native.fallback_ops"), 0);
    hr_json_free(r);
    r = measure(&t, "block+bank");
    HR_CHECK(r && hr_json_path_num(r, "native.violations.route_desync") == 0);
    HR_CHECK(r && hr_json_path_num(r, "native.parts.0.blocks") == 6);
    hr_json_free(r);
    hr_trace_free(&t);
}

/* frames of temporaries (LIFO, and one freed out of order), long-lived
 * blocks freed frames later, reallocs that grow: every part's rule and a
 * move between parts. */
static void make_churn(hr_trace_t *t) {
    hr_trace_init(t);
    uint32_t x = 7, id = 0, keep[64] = {0}, nkeep = 0;
    for (uint32_t f = 0; f < 200; f++) {
        uint32_t tmp[8];
        for (int k = 0; k < 8; k++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            tmp[k] = id;
            push(t, HR_OP_ALLOC, id++, 0, 16 + x % 700);
        }
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        push(t, HR_OP_REALLOC, id, tmp[7], 800 + x % 3000); /* the last one grows */
        tmp[7] = id++;
        push(t, HR_OP_FREE, tmp[3], 0, 0); /* out of LIFO order */
        for (int k = 7; k >= 0; k--)
            if (k != 3)
                push(t, HR_OP_FREE, tmp[k], 0, 0);
        if (nkeep == 64) { /* the oldest long-lived ones go */
            for (uint32_t k = 0; k < 32; k++)
                push(t, HR_OP_FREE, keep[k], 0, 0);
            memmove(keep, keep + 32, 32 * sizeof keep[0]);
            nkeep = 32;
        }
        keep[nkeep++] = id;
        push(t, HR_OP_ALLOC, id++, 0, 24 + x % 200);
        push(t, HR_OP_FRAME, 0, 0, f);
    }
}

/* The blocks a composition hands out through its counting entries or its
 * timed ones (backend.h), numbered by first appearance (same_blocks.h):
 * the event loop of the engine, by hand. */
static int compose_ordinals(const hr_trace_t *t, const char *spec, int timed, uint32_t *ord,
                            double *ops) {
    hr_error_t err;
    hr_compose_spec_t cs;
    const hr_route_plan_t *plan = NULL;
    const hr_backend_t *be = hr_backend_find(spec);
    if (!be || hr_compose_parse(spec, &cs, &err) != 0 || !(plan = hr_compose_plan_new(t, &cs, spec, &err)))
        return -1;
    hr_backend_config_t cfg = hr_backend_config_default();
    cfg.parts = &cs;
    cfg.route_plan = plan;
    cfg.max_align = t->max_align;
    void *inst = be->create(&cfg, &err);
    if (!inst) {
        hr_compose_plan_free(plan);
        return -1;
    }
    void *(*alloc)(void *, size_t, size_t, int32_t) = timed ? be->alloc_timed : be->alloc;
    void (*freef)(void *, void *, size_t) = timed ? be->free_timed : be->free;
    void *(*re)(void *, void *, size_t, size_t, int32_t) = timed ? be->realloc_timed : be->realloc;
    static void *p[4096], *seen[8192];
    static uint64_t sz[4096];
    size_t n_seen = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        void *q = NULL;
        ord[i] = UINT32_MAX;
        if (ev->op == HR_OP_ALLOC)
            q = alloc(inst, ev->size, 0, -1);
        else if (ev->op == HR_OP_REALLOC)
            q = re(inst, p[ev->aux], sz[ev->aux], ev->size, -1), p[ev->aux] = NULL;
        else if (ev->op == HR_OP_FREE)
            freef(inst, p[ev->id], sz[ev->id]), p[ev->id] = NULL;
        else if (ev->op == HR_OP_FRAME && be->frame)
            be->frame(inst, ev->size);
        if (!q)
            continue;
        p[ev->id] = q, sz[ev->id] = ev->size;
        ord[i] = same_blocks_ordinal(seen, &n_seen, 8192, q);
    }
    for (size_t id = 0; id < 4096; id++)
        if (p[id])
            freef(inst, p[id], sz[id]), p[id] = NULL;
    /* Which entries of the parts served: ops[k], part k's native_ops (-1: a
     * part without timed entries), counted only outside the timed entries'
     * common path. Read here on purpose, against backend.h's "not to be
     * read" for a timed instance. */
    int rc = 0;
    char *js = hr_backend_stats_json(be, inst);
    hr_json_t *doc = js ? hr_json_parse(js, strlen(js), spec, &err) : NULL;
    const hr_json_t *parts = doc ? hr_json_get(doc, "parts") : NULL;
    for (size_t k = 0; k < HR_COMPOSE_MAX_PARTS; k++) {
        const hr_json_t *pt = k < hr_json_len(parts) ? hr_json_at(parts, k) : NULL;
        const char *name = pt ? hr_json_str(hr_json_get(pt, "part")) : NULL;
        const hr_backend_t *pb = name ? hr_backend_find(name) : NULL;
        ops[k] = pb && pb->alloc_timed
                     ? hr_json_num(hr_json_get(hr_json_get(pt, "stats"), "native_ops"), -1)
                     : -1;
    }
    if (!parts)
        rc = -1;
    hr_json_free(doc);
    free(js);
    be->destroy(inst);
    hr_compose_plan_free(plan);
    return rc;
}

/* compose_ordinals in a child (same_blocks.h); 0 when it succeeded. */
static int forked_ordinals(const hr_trace_t *t, const char *spec, int timed, uint32_t *ord,
                           double *ops) {
    pid_t pid = same_blocks_fork();
    if (pid == 0)
        _exit(compose_ordinals(t, spec, timed, ord, ops) == 0 ? 0 : 1);
    return same_blocks_child_ok(pid) ? 0 : -1;
}

/* A composition's timed entries call its parts' timed entries and hand out
 * the same blocks as its counting ones. */
static void test_timed_same_blocks(void) {
    hr_trace_t t;
    make_churn(&t);
    HR_CHECK(validate(&t) == 0);
    HR_CHECK(t.n_events < 8192 && t.n_ids < 4096);
    static const char *const specs[] = {"stack+block", "stack+bank", "marker+sizeclass",
                                        "block+glibc"};
    size_t bytes = 2 * 8192 * sizeof(uint32_t) + 2 * HR_COMPOSE_MAX_PARTS * sizeof(double);
    uint32_t *a = same_blocks_shared(bytes);
    HR_CHECK(a != NULL);
    if (!a)
        return;
    uint32_t *b = a + 8192;
    double *ops_a = (double *)(b + 8192), *ops_b = ops_a + HR_COMPOSE_MAX_PARTS;
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        const hr_backend_t *be = hr_backend_find(specs[s]);
        HR_CHECK(be && be->alloc_timed && be->free_timed && be->realloc_timed);
        HR_CHECK(forked_ordinals(&t, specs[s], 0, a, ops_a) == 0);
        HR_CHECK(forked_ordinals(&t, specs[s], 1, b, ops_b) == 0);
        /* the parts with timed entries counted most of their ops through the
         * counting calls and few (their slow paths) through the timed ones */
        for (size_t k = 0; k < HR_COMPOSE_MAX_PARTS; k++)
            if (ops_a[k] >= 0) {
                HR_CHECK(ops_a[k] > 100 && ops_b[k] < ops_a[k] / 2);
                if (hr_t_cur_failed)
                    printf("# %s part %zu: %.0f counted ops, %.0f timed\n", specs[s], k, ops_a[k],
                           ops_b[k]);
            }
        size_t k = same_blocks_first_diff(a, b, t.n_events);
        HR_CHECK_EQ_U64(k, t.n_events);
        if (k < t.n_events)
            printf("# %s: event %zu: block %u counted, %u timed\n", specs[s], k, a[k], b[k]);
    }
    munmap(a, bytes);
    hr_trace_free(&t);
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_parse);
    HR_RUN(test_plan_classes);
    HR_RUN(test_failed_alloc_keeps_step);
    HR_RUN(test_footprint_is_sum);
    HR_RUN(test_timed_same_blocks);
    return hr_test_done();
}
