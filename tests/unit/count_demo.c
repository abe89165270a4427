/* Determinism of the callgrind cost counter (docs/METRICS.md): a fixed
 * malloc/calloc/realloc/free workload goes through the hr_counted_* calls
 * under `valgrind --tool=callgrind` (hr_callgrind_cmd), twice per allocator,
 * and the two Ir totals must be nonzero and within 0.1 %.
 *
 *   count_demo                  TAP: glibc, each external allocator configure
 *                               found, and a no-op fn (the wrapper's own
 *                               cost); SKIP when valgrind is not on PATH.
 *                               About 1 s per case (two runs) on 2 cores.
 *   count_demo --workload [null]  the workload itself (re-executed under
 *                               valgrind); `null` calls a no-op fn instead of
 *                               the allocator, giving the wrapper's own cost
 *
 * The child runs with hr_count_pin_env() (time-driven purging pinned), as a
 * count run must. It checks with dladdr that malloc comes from $HR_EXPECT_LIB (libc
 * when empty) and exits 3 otherwise: callgrind does not replace malloc, so
 * the preloaded allocator must be the one counted. */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hr_test.h"
#include "replay/counter.h"

#define DEMO_SLOTS 1024
#define DEMO_STEPS 20000

/* ---- the workload (child) ------------------------------------------------- */

static void *a_alloc(void *self, size_t size, size_t align, int32_t heap) { return malloc(size); }
static void *a_calloc(void *self, size_t n, size_t size, int32_t heap) { return calloc(n, size); }
static void a_free(void *self, void *p, size_t size) { free(p); }
static void *a_realloc(void *self, void *p, size_t o, size_t n, int32_t heap) { return realloc(p, n); }
static void *n_alloc(void *self, size_t size, size_t align, int32_t heap) { return self; }
static void n_free(void *self, void *p, size_t size) {}

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* 70 % 16-256 B, 25 % up to 4 KiB, 5 % up to 64 KiB. */
static size_t demo_size(uint64_t *s) {
    uint64_t r = lcg(s) % 100, x = lcg(s);
    return r < 70 ? 16 + x % 241 : r < 95 ? 257 + x % 3840 : 4097 + x % 61440;
}

/* Every step frees a random slot's block if it has one, then fills it by
 * malloc (80 %), calloc (10 %) or realloc of another live block (10 %).
 * Returns the number of counted calls. */
static uint64_t workload(int null) {
    static void *slot[DEMO_SLOTS];
    static size_t len[DEMO_SLOTS];
    uint64_t s = 42, ops = 0;
    hr_count_alloc_fn al = null ? n_alloc : a_alloc;
    hr_count_free_fn fr = null ? n_free : a_free;
    for (int i = 0; i < DEMO_STEPS; i++) {
        uint32_t k = (uint32_t)(lcg(&s) % DEMO_SLOTS), kind = (uint32_t)(lcg(&s) % 10);
        size_t n = demo_size(&s);
        if (slot[k]) {
            hr_counted_free(fr, NULL, slot[k], len[k]), ops++;
            slot[k] = NULL;
        }
        uint32_t o = (k + 1 + (uint32_t)(lcg(&s) % (DEMO_SLOTS - 1))) % DEMO_SLOTS;
        if (!null && kind == 9 && slot[o]) {
            slot[k] = hr_counted_realloc(a_realloc, NULL, slot[o], len[o], n, -1), ops++;
            slot[o] = NULL;
        } else if (!null && kind == 8) {
            slot[k] = hr_counted_calloc(a_calloc, NULL, 1, n, -1), ops++;
        } else {
            slot[k] = hr_counted_alloc(al, NULL, n, 0, -1), ops++;
        }
        len[k] = n;
    }
    for (int k = 0; k < DEMO_SLOTS; k++)
        if (slot[k])
            hr_counted_free(fr, NULL, slot[k], len[k]), ops++;
    return ops;
}

/* 0 when malloc comes from $HR_EXPECT_LIB (the C library when empty). */
static int check_provider(void) {
    const char *want = getenv("HR_EXPECT_LIB");
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    char a[PATH_MAX], b[PATH_MAX];
    if (!sym || !dladdr(sym, &info) || !info.dli_fname || !realpath(info.dli_fname, a))
        return -1;
    if (!want || !*want)
        return strstr(a, "/libc.so") || strstr(a, "/libc-") ? 0 : -1;
    return realpath(want, b) && strcmp(a, b) == 0 ? 0 : -1;
}

static int workload_main(int null) {
    if (check_provider() != 0)
        return 3;
    printf("%llu\n", (unsigned long long)workload(null));
    return 0;
}

/* ---- the driver (TAP) ----------------------------------------------------- */

static char tmpdir[] = "/tmp/hr-count-XXXXXX";

/* Runs the workload under callgrind with `lib` preloaded ("" none); the
 * counted calls' Ir in *ir and their number in *ops. */
static int run_counted(const char *lib, int null, uint64_t *ir, uint64_t *ops, hr_error_t *err) {
    char out[PATH_MAX], ops_file[PATH_MAX], self[PATH_MAX];
    static int seq;
    snprintf(out, sizeof out, "%s/cg.%d", tmpdir, seq);
    snprintf(ops_file, sizeof ops_file, "%s/ops.%d", tmpdir, seq++);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        hr_error_set(err, "readlink /proc/self/exe failed");
        return -1;
    }
    self[n] = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        hr_callgrind_cmd_t cmd;
        if (hr_callgrind_cmd(&cmd, out, NULL) != 0)
            _exit(126);
        cmd.argv[cmd.argc++] = self;
        cmd.argv[cmd.argc++] = "--workload";
        cmd.argv[cmd.argc++] = null ? "null" : "real";
        cmd.argv[cmd.argc] = NULL;
        if (lib[0])
            setenv("LD_PRELOAD", lib, 1);
        else
            unsetenv("LD_PRELOAD");
        setenv("HR_EXPECT_LIB", lib, 1);
        unsetenv("VALGRIND_OPTS");
        hr_count_pin_env();
        int fd = open(ops_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 1) < 0)
            _exit(126);
        execv(cmd.argv[0], (char *const *)cmd.argv);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        hr_error_set(err, "callgrind run failed (status %d%s)", WEXITSTATUS(st),
                     WEXITSTATUS(st) == 3 ? ": malloc not from the preloaded library" : "");
        return -1;
    }
    FILE *f = fopen(ops_file, "r");
    unsigned long long o = 0;
    int ok = f && fscanf(f, "%llu", &o) == 1;
    if (f)
        fclose(f);
    if (!ok) {
        hr_error_set(err, "no op count from the workload");
        return -1;
    }
    *ops = o;
    return hr_callgrind_total(out, ir, err);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *cur_lib; /* the case's library, "" for glibc */
static int cur_null;

/* Two counted runs: nonzero, within 0.1 % of each other. */
static void test_deterministic(void) {
    char vg[PATH_MAX];
    if (hr_valgrind_find(vg, sizeof vg) != 0)
        HR_SKIP("valgrind not on PATH");
    uint64_t ir[2] = {0, 0}, ops[2] = {0, 0};
    double t0 = now_s();
    for (int k = 0; k < 2; k++) {
        hr_error_t err = {{0}};
        if (run_counted(cur_lib, cur_null, &ir[k], &ops[k], &err) != 0) {
            printf("# %s\n", err.msg);
            HR_CHECK(0);
            return;
        }
    }
    double secs = now_s() - t0;
    uint64_t hi = ir[0] > ir[1] ? ir[0] : ir[1], lo = ir[0] + ir[1] - hi;
    HR_CHECK(lo > 0);
    HR_CHECK_EQ_U64(ops[0], ops[1]);
    HR_CHECK((hi - lo) * 1000 <= hi); /* within 0.1 % */
    printf("# %s: %llu ops, Ir %llu and %llu (%.2f Ir/op, run-to-run %.4f %%), %.1f s for both\n",
           cur_null ? "no-op fn (wrapper cost)" : cur_lib[0] ? cur_lib : "glibc",
           (unsigned long long)ops[0], (unsigned long long)ir[0], (unsigned long long)ir[1],
           ops[0] ? (double)ir[0] / (double)ops[0] : 0.0, hi ? 100.0 * (double)(hi - lo) / (double)hi : 0.0,
           secs);
}

static void run_case(const char *name, const char *lib, int null) {
    cur_lib = lib;
    cur_null = null;
    HR_RUN_AS(name, test_deterministic());
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--workload") == 0)
        return workload_main(argc > 2 && strcmp(argv[2], "null") == 0);
    hr_test_args(argc, argv);
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! mkdtemp %s failed\n", tmpdir);
        return 1;
    }
    run_case("callgrind count deterministic: glibc", "", 0);
    if (HR_JEMALLOC_SO[0])
        run_case("callgrind count deterministic: jemalloc", HR_JEMALLOC_SO, 0);
    if (HR_MIMALLOC_SO[0])
        run_case("callgrind count deterministic: mimalloc", HR_MIMALLOC_SO, 0);
    if (HR_TCMALLOC_SO[0])
        run_case("callgrind count deterministic: tcmalloc", HR_TCMALLOC_SO, 0);
    run_case("callgrind count deterministic: wrapper only", "", 1);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return hr_test_done();
}
