/* Routing plans by call site (src/replay/route.h): patterns, the plan file,
 * and the violations hr_route_apply counts on hand-written traces. */
#include "hr_test.h"
#include "replay/route.h"
#include "trace/stacks.h"

#include <unistd.h>

static void test_glob(void) {
    HR_CHECK(hr_route_glob("update_frame", "update_frame"));
    HR_CHECK(!hr_route_glob("update_frame", "update_frames"));
    HR_CHECK(hr_route_glob("operator new*", "operator new[](unsigned long)"));
    HR_CHECK(hr_route_glob("*::alloc*", "Pool<48>::alloc_cell"));
    HR_CHECK(!hr_route_glob("*::alloc*", "Pool<48>::free"));
    HR_CHECK(hr_route_glob("*", ""));
    HR_CHECK(hr_route_skipped("malloc,g_malloc*", "g_malloc0"));
    HR_CHECK(!hr_route_skipped("malloc,g_malloc*", "spawn"));
    HR_CHECK(!hr_route_skipped("", "malloc"));
}

static char *write_tmp(const char *text) {
    static char path[64];
    snprintf(path, sizeof path, "/tmp/hr_route_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_plan_file(void) {
    hr_route_plan_file_t p, q;
    hr_error_t err = {""};
    hr_route_plan_init(&p);
    hr_route_plan_init(&q);
    char *path = write_tmp("# a plan\nheapreplay-plan 1\nskip malloc\nset level_bytes=4096\n\n"
                           "frame-stack update_frame\npool 48 Pool<48>::alloc *\nlevel load*\n");
    HR_CHECK(path && hr_route_plan_read(path, &p, &err) == 0);
    HR_CHECK_EQ_U64(p.n, 3);
    HR_CHECK(p.n == 3 && p.rules[1].route == HR_ROUTE_POOL && p.rules[1].cell == 48);
    HR_CHECK(p.n == 3 && strcmp(p.rules[1].pattern, "Pool<48>::alloc *") == 0);
    HR_CHECK(p.level_bytes == 4096 && p.skip && strcmp(p.skip, "malloc") == 0);
    /* written and read again: the same rules */
    HR_CHECK(hr_route_plan_write(path, &p, NULL, NULL, &err) == 0);
    HR_CHECK(hr_route_plan_read(path, &q, &err) == 0);
    HR_CHECK(q.n == 3 && strcmp(q.rules[2].pattern, "load*") == 0 && q.level_bytes == 4096);
    unlink(path);
    hr_route_plan_free(&p);
    hr_route_plan_free(&q);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"frame-stack x\n", ":1: expected the header line 'heapreplay-plan 1'"},
        {"heapreplay-plan 1\npool x y\n", ":2: expected 'pool BYTES PATTERN'"},
        {"heapreplay-plan 1\nlevel\n", ":2: expected a function name pattern"},
        {"heapreplay-plan 1\nset stack_entries=5000\n", ":2: expected 'set stack_bytes=N'"},
        {"heapreplay-plan 1\nheap x\n", ":2: expected 'frame-stack PATTERN'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hr_route_plan_init(&p);
        path = write_tmp(bad[i].text);
        err.msg[0] = 0;
        HR_CHECK(hr_route_plan_read(path, &p, &err) == -1);
        if (!strstr(err.msg, bad[i].msg))
            printf("# case %zu: %s\n", i, err.msg);
        HR_CHECK(strstr(err.msg, bad[i].msg) != NULL);
        unlink(path);
        hr_route_plan_free(&p);
    }
}

/* Three blocks at update_frame: a LIFO pair, then one freed in the next
 * frame; two at spawn: 48 and 64 bytes. */
static const char trace_text[] =
    "heapreplay-trace 1\n"
    "at 1 f=malloc\nat 2 f=update_frame\nat 3 f=spawn\n"
    "stack 1 1,2\nstack 2 1,3\n"
    "alloc 0 16 s=1\nalloc 1 32 s=1\nfree 1\nfree 0\n"
    "alloc 2 8 s=1\nalloc 3 48 s=2\nalloc 4 64 s=2\n"
    "frame 1\nfree 2\nfree 3\nfree 4\n";

static void test_apply_counts_violations(void) {
    hr_trace_t t;
    hr_error_t err = {""};
    hr_route_plan_file_t p;
    hr_route_plan_init(&p);
    HR_CHECK(hr_trace_read_mem(trace_text, strlen(trace_text), "r.txt", HR_FMT_AUTO, &t, &err) == 0);
    hr_route_plan_add(&p, HR_ROUTE_FRAME_STACK, 0, "update_frame");
    hr_route_plan_add(&p, HR_ROUTE_POOL, 48, "spawn");
    int32_t *m = NULL;
    HR_CHECK(hr_route_match_stacks(&t, &p, &m) == 0);
    HR_CHECK(m && m[1] == 0 && m[2] == 1);
    free(m);
    HR_CHECK(hr_route_apply(&t, &p, &err) == 0);
    HR_CHECK(p.rules[0].blocks == 3 && p.rules[0].routed == 2 && p.rules[0].outlived == 1);
    HR_CHECK(p.rules[1].blocks == 2 && p.rules[1].routed == 1 && p.rules[1].wrong_size == 1);
    HR_CHECK(t.events[0].op == HR_OP_POOL_ALLOC && t.events[3].op == HR_OP_POOL_FREE);
    HR_CHECK(t.events[4].op == HR_OP_ALLOC); /* the block that outlived its frame */
    HR_CHECK(t.events[6].op == HR_OP_ALLOC); /* 64 bytes: not a 48-byte cell */
    HR_CHECK(t.op_counts[HR_OP_POOL_ALLOC] == 3);
    hr_route_plan_free(&p);
    hr_trace_free(&t);
}

int main(void) {
    HR_RUN(test_glob);
    HR_RUN(test_plan_file);
    HR_RUN(test_apply_counts_violations);
    return hr_test_done();
}
