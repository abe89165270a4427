/* The stack model (src/trace/stacks.h): interning of frames and stacks,
 * the module map, per-event site ids kept in step with pushed events. */
#include "hr_test.h"
#include "trace/stacks.h"

static void test_modules_and_addr_frames(void) {
    hr_stacks_t *s = hr_stacks_new();
    HR_CHECK(s != NULL);
    HR_CHECK_EQ_I64(hr_stacks_add_module(s, "/usr/bin/game", "abcd", 0x400000, 0x1000), 0);
    HR_CHECK_EQ_I64(hr_stacks_add_module(s, "/lib/libc.so.6", NULL, 0x7f0000000000ull, 0x20000), 1);
    HR_CHECK_EQ_I64(hr_stacks_frame_addr(s, 0x400123), 0);
    HR_CHECK_EQ_I64(hr_stacks_frame_addr(s, 0x7f0000000010ull), 1);
    HR_CHECK_EQ_I64(hr_stacks_frame_addr(s, 0x999), 2);
    HR_CHECK_EQ_I64(hr_stacks_frame_addr(s, 0x400123), 0); /* interned */
    HR_CHECK_EQ_U64(s->n_frames, 3);
    HR_CHECK_EQ_U64(s->frames[0].module, 1);
    HR_CHECK_EQ_U64(s->frames[1].module, 2);
    HR_CHECK_EQ_U64(s->frames[2].module, 0); /* outside every module */
    HR_CHECK_EQ_U64(hr_stacks_module_of(s, 0x401000), 0); /* one past the end */
    HR_CHECK_STR(s->modules[0].build_id, "abcd");
    HR_CHECK(s->modules[1].build_id == NULL);
    hr_stacks_free(s);
}

static void test_named_frames_intern_strings(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    int64_t a = hr_stacks_frame_named(&t, 0, "spawn_entity", "game.c", 42, 0);
    int64_t b = hr_stacks_frame_named(&t, 0, "spawn_entity", "game.c", 43, 0);
    int64_t c = hr_stacks_frame_named(&t, 0, "spawn_entity", "game.c", 42, 1);
    HR_CHECK(a == 0 && b == 1 && c == 2);
    HR_CHECK_EQ_I64(hr_stacks_frame_named(&t, 0, "spawn_entity", "game.c", 42, 0), a);
    HR_CHECK_EQ_U64(t.n_strings, 2); /* func and file once each */
    HR_CHECK(t.stacks != NULL);
    if (t.stacks) {
        const hr_frame_t *f = &t.stacks->frames[a];
        HR_CHECK_STR(t.strings[f->func - 1], "spawn_entity");
        HR_CHECK_STR(t.strings[f->file - 1], "game.c");
        HR_CHECK_EQ_U64(f->line, 42);
        /* a name without a file */
        int64_t d = hr_stacks_frame_named(&t, 0x10, "main", NULL, 0, 0);
        HR_CHECK(d == 3 && t.stacks->frames[d].file == 0);
        /* an address frame and a named frame at one address are two frames */
        HR_CHECK_EQ_I64(hr_stacks_frame_addr(t.stacks, 0x10), 4);
    }
    hr_trace_free(&t);
    HR_CHECK(t.stacks == NULL && t.site == NULL);
}

static void test_stacks_dedupe_by_content(void) {
    hr_stacks_t *s = hr_stacks_new();
    for (uint64_t a = 1; a <= 4; a++)
        hr_stacks_frame_addr(s, a * 16);
    uint32_t x[] = {0, 1, 2}, y[] = {0, 1}, z[] = {1, 0, 2};
    HR_CHECK_EQ_I64(hr_stacks_intern(s, x, 3), 1);
    HR_CHECK_EQ_I64(hr_stacks_intern(s, y, 2), 2);
    HR_CHECK_EQ_I64(hr_stacks_intern(s, z, 3), 3); /* order matters */
    HR_CHECK_EQ_I64(hr_stacks_intern(s, x, 3), 1);
    HR_CHECK_EQ_I64(hr_stacks_intern(s, NULL, 0), 4); /* the empty stack */
    HR_CHECK_EQ_I64(hr_stacks_intern(s, NULL, 0), 4);
    uint32_t n;
    const uint32_t *fx = hr_stacks_get(s, 3, &n);
    HR_CHECK(n == 3 && fx[0] == 1 && fx[1] == 0 && fx[2] == 2);
    HR_CHECK_EQ_U64(s->off[0], 0);
    HR_CHECK_EQ_U64(s->n_ix, 8);
    hr_stacks_free(s);
}

/* Many stacks and frames: the tables grow and every lookup finds the first
 * copy (a lost or stale hash slot would add a duplicate). */
static void test_many_stacks(void) {
    hr_stacks_t *s = hr_stacks_new();
    enum { N = 20000 };
    for (uint32_t i = 0; i < N; i++)
        HR_CHECK_EQ_I64(hr_stacks_frame_addr(s, 0x1000 + 8 * (uint64_t)i), i);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t fx[3] = {i, (i * 7) % N, (i * 13) % N};
        HR_CHECK_EQ_I64(hr_stacks_intern(s, fx, 1 + i % 3), (int64_t)i + 1);
    }
    for (uint32_t i = 0; i < N; i += 3) {
        uint32_t fx[3] = {i, (i * 7) % N, (i * 13) % N};
        HR_CHECK_EQ_I64(hr_stacks_intern(s, fx, 1 + i % 3), (int64_t)i + 1);
        HR_CHECK_EQ_I64(hr_stacks_frame_addr(s, 0x1000 + 8 * (uint64_t)i), i);
    }
    HR_CHECK_EQ_U64(s->n_stacks, N);
    HR_CHECK_EQ_U64(s->n_frames, N);
    hr_stacks_free(s);
}

static void test_site_follows_push(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    hr_event_t ev = {.op = HR_OP_ALLOC, .id = 0, .size = 8};
    for (int i = 0; i < 3; i++)
        hr_trace_push(&t, &ev);
    HR_CHECK(hr_trace_set_site(&t, 1, 0) == 0);
    HR_CHECK(t.site == NULL); /* 0 allocates nothing */
    HR_CHECK(hr_trace_set_site(&t, 1, 7) == 0);
    HR_CHECK(t.site != NULL);
    for (int i = 0; i < 5000; i++)
        hr_trace_push(&t, &ev);
    HR_CHECK(hr_trace_set_site(&t, 5002, 9) == 0);
    HR_CHECK(t.site && t.site[0] == 0 && t.site[1] == 7 && t.site[2] == 0);
    HR_CHECK(t.site && t.site[4000] == 0 && t.site[5002] == 9);
    hr_trace_free(&t);
}

int main(void) {
    HR_RUN(test_modules_and_addr_frames);
    HR_RUN(test_named_frames_intern_strings);
    HR_RUN(test_stacks_dedupe_by_content);
    HR_RUN(test_many_stacks);
    HR_RUN(test_site_follows_push);
    return hr_test_done();
}
