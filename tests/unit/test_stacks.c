/* The stack model (src/trace/stacks.h): interning of frames and stacks,
 * the module map, per-event site ids kept in step with pushed events. */
#include "hr_test.h"
#include "trace_mem.h"
#include "trace/format.h"
#include "trace/stacks.h"

#include <stdio.h>

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

/* A hand-written trace with a module, address and named frames, three
 * stacks and sites on a thread and with timestamps. */
static const char with_stacks[] =
    "heapreplay-trace 1 timestamps\n"
    "module 1 /usr/bin/game 0x400000 0x10000 build=ab12\n"
    "module 2 /lib/x%20y.so 0x7f0000000000 0x2000\n"
    "at 1 0x401000 m=1\n"
    "at 2 0x7f0000000100 m=2 f=operator%20new file=new.cc line=3 inline\n"
    "at 3 f=update_frame file=game.c line=12\n"
    "at 4 f=main\n"
    "stack 1 1,3,4\n"
    "stack 2 2,4\n"
    "stack 3 -\n"
    "alloc 0 64 s=1 @10\n"
    "calloc 1 4 8 t=1 s=2 @11\n"
    "mark level @12\n"
    "realloc 0 0 128 s=3 @13\n"
    "alloc 2 8 @14\n"
    "free 0 @15\n"
    "free 1 t=1 @16\n"
    "free 2 @17\n";

/* The text form is canonical (read, write: same bytes), binary keeps every
 * part, and the digest is that of the same events without stacks. */
static void test_text_binary_round_trip(void) {
    hr_trace_t t, u, plain;
    hr_error_t err = {""};
    hr_trace_init(&u);
    hr_trace_init(&plain);
    HR_CHECK(hr_trace_read_mem(with_stacks, strlen(with_stacks), "s.txt", HR_FMT_AUTO, &t, &err) ==
             0);
    printf("# %s\n", err.msg);
    HR_CHECK(t.stacks && t.stacks->n_modules == 2 && t.stacks->n_frames == 4 &&
             t.stacks->n_stacks == 3);
    HR_CHECK(t.site && t.site[0] == 1 && t.site[1] == 2 && t.site[3] == 3 && t.site[4] == 0);
    size_t tl = 0, bl = 0;
    char *text = write_mem(&t, 1, &tl), *bin = write_mem(&t, 0, &bl);
    HR_CHECK(text && tl == strlen(with_stacks) && memcmp(text, with_stacks, tl) == 0);
    HR_CHECK(bin && hr_trace_read_mem(bin, bl, "s.hrt", HR_FMT_AUTO, &u, &err) == 0);
    HR_CHECK(bin && bin[10] == HR_BIN_MINOR_STACKS);
    size_t tl2 = 0;
    char *text2 = write_mem(&u, 1, &tl2);
    HR_CHECK(text2 && tl2 == tl && memcmp(text2, with_stacks, tl) == 0);
    /* the same events without the stack lines and s= suffixes */
    char stripped[sizeof with_stacks];
    size_t n = 0;
    for (const char *p = with_stacks; *p;) {
        const char *e = strchr(p, '\n') + 1;
        if (strncmp(p, "module", 6) && strncmp(p, "at ", 3) && strncmp(p, "stack", 5))
            for (const char *q = p; q < e; q++) {
                if (q[0] == ' ' && q[1] == 's' && q[2] == '=')
                    for (q++; *q != ' '; q++)
                        ;
                stripped[n++] = *q;
            }
        p = e;
    }
    stripped[n] = 0;
    HR_CHECK(hr_trace_read_mem(stripped, n, "p.txt", HR_FMT_AUTO, &plain, &err) == 0);
    char d1[17], d2[17], d3[17];
    hr_trace_digest(&t, d1);
    hr_trace_digest(&u, d2);
    hr_trace_digest(&plain, d3);
    HR_CHECK_STR(d1, d3);
    HR_CHECK_STR(d2, d3);
    HR_CHECK(plain.stacks == NULL && plain.site == NULL);
    free(text);
    free(text2);
    free(bin);
    hr_trace_free(&t);
    hr_trace_free(&u);
    hr_trace_free(&plain);
}

/* Bad stack lines: one line naming what was expected. */
static void test_text_errors(void) {
    static const struct {
        const char *body, *msg;
    } cases[] = {
        {"at 2 f=x\n", "s.txt:2: frame ('at') number '2': expected 1"},
        {"at 1 line=3\n", "s.txt:2: a frame needs an address"},
        {"at 1 f=x\nstack 1 2\n", "s.txt:3: stack frame '2': expected frame numbers 1..1"},
        {"alloc 0 8 s=1\n", "s.txt:2: expected one s=STACK with a stack number 1..0"},
        {"at 1 f=x\nstack 1 1\nalloc 0 8\nfree 0 s=1\n", "s.txt:5: s=STACK on 'free'"},
        {"at 1 0x10 m=1\n", "s.txt:2: m='1': expected a module number 1..0"},
        {"module 1 /a 0x10\n", "s.txt:2: expected 'module N PATH BASE SIZE"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[256];
        snprintf(buf, sizeof buf, "heapreplay-trace 1\n%s", cases[i].body);
        hr_trace_t t;
        hr_error_t err = {""};
        HR_CHECK(hr_trace_read_mem(buf, strlen(buf), "s.txt", HR_FMT_AUTO, &t, &err) == -1);
        if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
            printf("# case %zu: got '%s'\n", i, err.msg);
        HR_CHECK(strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) == 0);
        hr_trace_free(&t);
    }
}

/* A damaged stacks block is refused with its offset. */
static void test_binary_block_errors(void) {
    hr_trace_t t, u;
    hr_error_t err = {""};
    HR_CHECK(hr_trace_read_mem(with_stacks, strlen(with_stacks), "s.txt", HR_FMT_AUTO, &t, &err) ==
             0);
    size_t bl = 0;
    char *bin = write_mem(&t, 0, &bl);
    HR_CHECK(bin != NULL);
    if (bin) {
        bin[HR_BIN_HEADER_SIZE + HR_BIN_PROGRAM_SIZE] = 9; /* 9 modules: the block runs short */
        HR_CHECK(hr_trace_read_mem(bin, bl, "s.hrt", HR_FMT_AUTO, &u, &err) == -1);
        HR_CHECK(strstr(err.msg, "s.hrt: offset ") && strstr(err.msg, "stacks block"));
        printf("# %s\n", err.msg);
        hr_trace_free(&u);
    }
    free(bin);
    hr_trace_free(&t);
}

int main(void) {
    HR_RUN(test_text_binary_round_trip);
    HR_RUN(test_text_errors);
    HR_RUN(test_binary_block_errors);
    HR_RUN(test_modules_and_addr_frames);
    HR_RUN(test_named_frames_intern_strings);
    HR_RUN(test_stacks_dedupe_by_content);
    HR_RUN(test_many_stacks);
    HR_RUN(test_site_follows_push);
    return hr_test_done();
}
