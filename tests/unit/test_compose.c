/* Compositions (backends/compose.h, replay/compose.c): spec parsing, the
 * routing plan on a hand-built trace whose classes are known, and a replay
 * that keeps the plan's cursor in step across a failed allocation. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/compose.h"
#include "base/json.h"
#include "hr_test.h"
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

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_parse);
    HR_RUN(test_plan_classes);
    HR_RUN(test_failed_alloc_keeps_step);
    HR_RUN(test_footprint_is_sum);
    return hr_test_done();
}
