/* The cost counter's API (src/replay/counter.h): mode names, the counted
 * calls passing arguments and results through, the callgrind command and
 * output parser, and perf_event_open either working or saying why not. The
 * counting itself under valgrind is count_demo's test. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "hr_test.h"
#include "replay/counter.h"

static void test_mode_names(void) {
    static const char *const names[] = {"none", "auto", "perf", "callgrind"};
    for (int i = 0; i < 4; i++) {
        hr_count_mode_t m = HR_COUNT_NONE;
        HR_CHECK(hr_count_mode_parse(names[i], &m) == 0);
        HR_CHECK_EQ_I64(m, i);
        HR_CHECK_STR(hr_count_mode_name(m), names[i]);
    }
    hr_count_mode_t m = HR_COUNT_PERF;
    HR_CHECK(hr_count_mode_parse("cycles", &m) == -1);
    HR_CHECK(hr_count_mode_parse("", &m) == -1);
    HR_CHECK(hr_count_mode_parse(NULL, &m) == -1);
    HR_CHECK_EQ_I64(m, HR_COUNT_PERF); /* untouched on failure */
    HR_CHECK_STR(hr_count_mode_name((hr_count_mode_t)99), "?");
}

/* The fns record what they were given. */
static struct { void *self, *p; size_t a, b, c; int32_t heap; int calls; } seen;

static void *f_alloc(void *self, size_t size, size_t align, int32_t heap) {
    seen.self = self, seen.a = size, seen.b = align, seen.heap = heap, seen.calls++;
    return (char *)self + 1;
}
static void *f_calloc(void *self, size_t n, size_t size, int32_t heap) {
    seen.self = self, seen.a = n, seen.b = size, seen.heap = heap, seen.calls++;
    return (char *)self + 2;
}
static void f_free(void *self, void *p, size_t size) {
    seen.self = self, seen.p = p, seen.a = size, seen.calls++;
}
static void *f_realloc(void *self, void *p, size_t o, size_t n, int32_t heap) {
    seen.self = self, seen.p = p, seen.a = o, seen.b = n, seen.heap = heap, seen.calls++;
    return (char *)self + 3;
}

static void test_counted_pass_through(void) {
    static char inst[8], blk[8];
    memset(&seen, 0, sizeof seen);
    HR_CHECK(hr_counted_alloc(f_alloc, inst, 100, 64, 7) == inst + 1);
    HR_CHECK(seen.self == inst && seen.a == 100 && seen.b == 64 && seen.heap == 7);
    HR_CHECK(hr_counted_calloc(f_calloc, inst, 3, 40, -1) == inst + 2);
    HR_CHECK(seen.a == 3 && seen.b == 40 && seen.heap == -1);
    hr_counted_free(f_free, inst, blk, 24);
    HR_CHECK(seen.p == blk && seen.a == 24);
    HR_CHECK(hr_counted_realloc(f_realloc, inst, blk, 24, 48, 2) == inst + 3);
    HR_CHECK(seen.p == blk && seen.a == 24 && seen.b == 48 && seen.heap == 2);
    HR_CHECK_EQ_I64(seen.calls, 4);
}

static char tmp_path[64];

static int write_tmp(const char *text) {
    snprintf(tmp_path, sizeof tmp_path, "/tmp/hr-cg-test-%d", (int)getpid());
    FILE *f = fopen(tmp_path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* A callgrind file as callgrind 3.19 writes it, cut down; two event columns
 * so that the Ir column is chosen by name, and a "cmd:" line longer than the
 * parser's line buffer. */
static void test_callgrind_total(void) {
    char *big = malloc(10000);
    HR_CHECK(big != NULL);
    if (!big)
        return;
    memset(big, 'x', 9999);
    big[9999] = 0;
    char *text = malloc(11000);
    snprintf(text, 11000,
             "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 4242\n"
             "cmd:  ./heapreplay __worker totals: 7 %s\npart: 1\n\n"
             "positions: line\nevents: Dr Ir\nsummary: 5 123456\n\n"
             "fl=(1) a.c\nfn=(1) hr_counted_alloc\n3 2 4\n\ntotals: 5 123457\n", big);
    uint64_t ir = 0;
    hr_error_t err = {{0}};
    HR_CHECK(write_tmp(text) == 0);
    HR_CHECK(hr_callgrind_total(tmp_path, &ir, &err) == 0);
    HR_CHECK_EQ_U64(ir, 123457); /* totals: over summary:, column Ir */
    HR_CHECK(write_tmp("# callgrind format\nevents: Ir\nsummary: 99\n") == 0);
    HR_CHECK(hr_callgrind_total(tmp_path, &ir, &err) == 0);
    HR_CHECK_EQ_U64(ir, 99);
    HR_CHECK(write_tmp("# callgrind format\nevents: Dr\ntotals: 5\n") == 0);
    HR_CHECK(hr_callgrind_total(tmp_path, &ir, &err) == -1);
    HR_CHECK(strstr(err.msg, "no Ir total") != NULL);
    HR_CHECK(write_tmp("hello\ntotals: 5\n") == 0);
    HR_CHECK(hr_callgrind_total(tmp_path, &ir, &err) == -1);
    HR_CHECK(strstr(err.msg, "not a callgrind output file") != NULL);
    unlink(tmp_path);
    HR_CHECK(hr_callgrind_total(tmp_path, &ir, &err) == -1);
    HR_CHECK(strstr(err.msg, tmp_path) && strstr(err.msg, strerror(ENOENT)));
    free(text);
    free(big);
}

/* System calls by kind: each function's self sysCount (compressed names
 * defined on fn= or cfn= lines, "+N" and "*" positions, trailing zeros left
 * off), the inclusive line after calls= not counted again. */
static void test_callgrind_syscalls(void) {
    hr_callgrind_sums_t s;
    hr_error_t err = {{0}};
    HR_CHECK(write_tmp("# callgrind format\npositions: line\nevents: Ir sysCount sysTime\n"
                       "summary: 900 9 50\n\n"
                       "fl=(1) malloc.c\nfn=(1) malloc\n10 100\n+2 20\n"
                       "cfl=(2) mmap.c\ncfn=(2) __mmap64\ncalls=2 5\n12 40 2 9\n"
                       "fl=(2)\nfn=(2)\n5 30 2 9\n* 1 1\n"
                       "fn=(3) __munmap\n7 10 3 4\n"
                       "fn=(4) sbrk\n1 5\n"
                       "fn=(5) __brk\n2 5 1\n"
                       "fn=(6) getrandom\n3 1 1\n"
                       "\ntotals: 900 8 30\n") == 0);
    HR_CHECK(hr_callgrind_read(tmp_path, &s, &err) == 0);
    HR_CHECK_EQ_U64(s.ir, 900);
    HR_CHECK(s.have_sys);
    HR_CHECK_EQ_U64(s.sys, 8);
    HR_CHECK_EQ_U64(s.sys_kind[HR_SYS_MMAP], 3);
    HR_CHECK_EQ_U64(s.sys_kind[HR_SYS_MUNMAP], 3);
    HR_CHECK_EQ_U64(s.sys_kind[HR_SYS_BRK], 1);
    HR_CHECK_EQ_U64(s.sys_kind[HR_SYS_OTHER], 1);
    HR_CHECK(write_tmp("# callgrind format\nevents: Ir\ntotals: 7\n") == 0);
    HR_CHECK(hr_callgrind_read(tmp_path, &s, &err) == 0);
    HR_CHECK(!s.have_sys && s.sys == 0); /* an older file: no system calls, not zero */
    unlink(tmp_path);
}

static void test_kcount(void) {
    HR_CHECK_EQ_I64(hr_sys_kind_of("mmap64"), HR_SYS_MMAP);
    HR_CHECK_EQ_I64(hr_sys_kind_of("__munmap"), HR_SYS_MUNMAP);
    HR_CHECK_EQ_I64(hr_sys_kind_of("mremap"), HR_SYS_MREMAP);
    HR_CHECK_EQ_I64(hr_sys_kind_of("sbrk"), HR_SYS_BRK);
    HR_CHECK_EQ_I64(hr_sys_kind_of("madvise"), HR_SYS_MADVISE);
    HR_CHECK_EQ_I64(hr_sys_kind_of("__mprotect"), HR_SYS_MPROTECT);
    HR_CHECK_EQ_I64(hr_sys_kind_of("hr_counted_alloc"), HR_SYS_OTHER);
    HR_CHECK_EQ_U64(hr_kcost(100, 2, 3), 100 + 2 * HR_KCOST_FAULT + 3 * HR_KCOST_SYSCALL);
    HR_CHECK_EQ_U64(hr_kcost(UINT64_MAX - 1, 1, 0), UINT64_MAX);
    /* faults: a fresh mapping written page by page faults at least once a page */
    hr_kfaults_t a, b;
    size_t len = 64 * 4096;
    hr_kfaults_now(&a);
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    HR_CHECK(p != MAP_FAILED);
    for (size_t i = 0; p != MAP_FAILED && i < len; i += 4096)
        p[i] = 1;
    hr_kfaults_now(&b);
    hr_kfaults_t d = hr_kfaults_diff(&a, &b);
    HR_CHECK(d.minor + d.major >= 64);
    d = hr_kfaults_diff(&b, &a);
    HR_CHECK(d.minor == 0 && d.major == 0);
    if (p != MAP_FAILED)
        munmap(p, len);
}

static void test_callgrind_cmd(void) {
    hr_callgrind_cmd_t cmd;
    hr_error_t err = {{0}};
    char vg[PATH_MAX];
    if (hr_valgrind_find(vg, sizeof vg) != 0) {
        HR_CHECK(hr_callgrind_cmd(&cmd, "/tmp/o", &err) == -1);
        HR_CHECK(strstr(err.msg, "valgrind not found") != NULL);
        HR_SKIP("valgrind not on PATH");
    }
    HR_CHECK(hr_callgrind_cmd(&cmd, "/tmp/out.cg", &err) == 0);
    HR_CHECK(cmd.argc > 4 && cmd.argc + 32 <= HR_CALLGRIND_MAX_ARGS); /* room for the worker command */
    HR_CHECK_STR(cmd.argv[0], vg);
    int tool = 0, toggle = 0, atstart = 0, out = 0;
    for (int i = 0; i < cmd.argc; i++) {
        tool += strcmp(cmd.argv[i], "--tool=callgrind") == 0;
        toggle += strcmp(cmd.argv[i], "--toggle-collect=hr_counted_*") == 0;
        atstart += strcmp(cmd.argv[i], "--collect-atstart=no") == 0;
        out += strcmp(cmd.argv[i], "--callgrind-out-file=/tmp/out.cg") == 0;
    }
    HR_CHECK(tool == 1 && toggle == 1 && atstart == 1 && out == 1);
}

/* Without valgrind on PATH, callgrind is refused with the reason. */
static void test_resolve_without_valgrind(void) {
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    setenv("PATH", "/nonexistent-hr-dir", 1);
    hr_count_mode_t got = HR_COUNT_AUTO;
    hr_error_t err = {{0}};
    HR_CHECK(hr_count_resolve(HR_COUNT_CALLGRIND, &got, &err) == -1);
    HR_CHECK(strstr(err.msg, "valgrind not found on PATH") != NULL);
    HR_CHECK(hr_count_resolve(HR_COUNT_NONE, &got, &err) == 0);
    HR_CHECK_EQ_I64(got, HR_COUNT_NONE);
    /* auto: perf if this machine has it, else an error naming both reasons */
    if (hr_count_resolve(HR_COUNT_AUTO, &got, &err) == 0)
        HR_CHECK_EQ_I64(got, HR_COUNT_PERF);
    else
        HR_CHECK(strstr(err.msg, "perf_event_open") && strstr(err.msg, "valgrind"));
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
}

/* perf either opens (and then counts) or fails naming the reason. */
static void test_perf_open(void) {
    hr_error_t err = {{0}};
    int fd = hr_perf_open(&err);
    if (fd < 0) {
        printf("# %s\n", err.msg);
        HR_CHECK(strncmp(err.msg, "perf_event_open: ", 17) == 0);
        HR_CHECK(strstr(err.msg, "use --count callgrind") != NULL);
        if (errno == ENOENT)
            HR_CHECK(strstr(err.msg, "no hardware instructions counter (ENOENT)") != NULL);
        hr_count_mode_t got;
        HR_CHECK(hr_count_resolve(HR_COUNT_PERF, &got, &err) == -1);
        HR_SKIP("no perf instructions counter here");
    }
    uint64_t per = 0, n = 0;
    HR_CHECK(hr_perf_calibrate(fd, 3, 100, &per, &err) == 0);
    printf("# perf: %llu instructions per counted no-op call\n", (unsigned long long)per);
    HR_CHECK(hr_perf_read(fd, &n, &err) == 0);
    HR_CHECK_EQ_U64(n, 0); /* calibrate leaves it reset */
    close(fd);
}

static void test_pin_env(void) {
    setenv("MALLOC_CONF", "narenas:1", 1);
    unsetenv("MIMALLOC_DECOMMIT_DELAY");
    hr_count_pin_env();
    HR_CHECK_STR(getenv("MALLOC_CONF"), "narenas:1"); /* the user's wins */
    HR_CHECK_STR(getenv("MIMALLOC_DECOMMIT_DELAY"), "1000000000");
    unsetenv("MALLOC_CONF");
    hr_count_pin_env();
    HR_CHECK_STR(getenv("MALLOC_CONF"), "dirty_decay_ms:-1,muzzy_decay_ms:-1");
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_mode_names);
    HR_RUN(test_counted_pass_through);
    HR_RUN(test_callgrind_total);
    HR_RUN(test_callgrind_syscalls);
    HR_RUN(test_kcount);
    HR_RUN(test_callgrind_cmd);
    HR_RUN(test_resolve_without_valgrind);
    HR_RUN(test_perf_open);
    HR_RUN(test_pin_env);
    return hr_test_done();
}
