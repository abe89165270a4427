/* Each allocator's process start-up (startup.h). */
#include "replay/startup.h"
#include "base/order.h"
#include "base/signrank.h"
#include "base/sysinfo.h"
#include "replay/child.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* 7 rounds at least (a signed-rank interval needs 6); then until each
 * library's difference is known to +-10 % or +-20 us (a 43-process build
 * multiplies the term by 43), at most 41 rounds or 0.5 s: about 0.1 s for
 * four libraries on a quiet machine, the cap on a loaded one. */
hr_startup_options_t hr_startup_default(void) {
    hr_startup_options_t o = {7, 41, 0.10, 20e-6, 0.5};
    return o;
}

int hr_startup_probe_main(void) {
    /* volatile: the compiler may not drop the pair, so the allocator's
     * first-call set-up (arenas, thread cache) happens as in a program */
    void *volatile p = malloc(64);
    free(p);
    return 0;
}

/* One probe run with lib preloaded: its CPU seconds and peak RSS. */
static int probe_once(const char *self_exe, const char *lib, double *cpu_s, uint64_t *rss,
                      hr_error_t *err) {
    pid_t pid = fork();
    if (pid < 0) {
        hr_error_set(err, "start-up probe: fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        if (lib[0])
            setenv("LD_PRELOAD", lib, 1);
        else
            unsetenv("LD_PRELOAD");
        execl(self_exe, HR_WORKER_ARGV0, "__startup-probe", (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage ru;
    pid_t w;
    while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
        ;
    if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        hr_error_set(err, "start-up probe %s with %s preloaded did not exit normally", self_exe,
                     lib[0] ? lib : "nothing");
        return -1;
    }
    *cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    *rss = (uint64_t)ru.ru_maxrss * 1024u;
    return 0;
}

/* The q-quantile of sorted v[0..n) by linear interpolation. */
static double quantile(const double *v, unsigned n, double q) {
    double pos = q * (double)(n - 1);
    unsigned i = (unsigned)pos;
    return i + 1 < n ? v[i] + (pos - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* Library i's per-round differences from the C library's over rounds
 * [0, runs) (cpu is library-major, stride max) and their estimate. */
static int over_of(const double *cpu, size_t i, unsigned runs, unsigned max, hr_startup_t *o) {
    double d[HR_STARTUP_MAX_RUNS];
    for (unsigned r = 0; r < runs; r++)
        d[r] = cpu[i * max + r] - cpu[r];
    return hr_signrank_hl(d, (int)runs, &o->over_s, &o->over_lo_s, &o->over_hi_s, &o->over_conf);
}

/* Whether every library's interval is within the tolerance. */
static int tight(const double *cpu, size_t n, unsigned runs, const hr_startup_options_t *opt) {
    for (size_t i = 1; i < n; i++) {
        hr_startup_t o;
        if (over_of(cpu, i, runs, opt->max_runs, &o) != 0)
            return 0;
        double tol = fmax(opt->rel_tol * fabs(o.over_s), opt->abs_tol_s);
        if (o.over_hi_s - o.over_s > tol || o.over_s - o.over_lo_s > tol)
            return 0;
    }
    return 1;
}

int hr_startup_measure(const char *self_exe, const char *const *libs, size_t n,
                       const hr_startup_options_t *opt_in, hr_startup_t *out, hr_error_t *err) {
    hr_startup_options_t o = *opt_in;
    o.max_runs = o.max_runs > HR_STARTUP_MAX_RUNS ? HR_STARTUP_MAX_RUNS : o.max_runs < 1 ? 1 : o.max_runs;
    o.min_runs = o.min_runs > o.max_runs ? o.max_runs : o.min_runs < 1 ? 1 : o.min_runs;
    double *cpu = calloc(n * o.max_runs, sizeof *cpu);
    uint64_t *rss = calloc(n * o.max_runs, sizeof *rss);
    int rc = cpu && rss ? 0 : -1;
    if (rc)
        hr_error_set(err, "start-up probe: out of memory");
    /* interleaved: every library once per round, so a slow patch of the
     * machine falls on all of them alike, and a round's differences are
     * taken within it; the order turns by one each round, since the first
     * run of a round pays for caches the run before left to another
     * library (a fixed order charged it to the C library's runs: ~0.2 ms,
     * bench/startup) */
    unsigned runs = 0;
    uint64_t t0 = hr_now_ns();
    while (rc == 0 && runs < o.max_runs &&
           (runs < o.min_runs ||
            ((double)(hr_now_ns() - t0) / 1e9 < o.max_s && !tight(cpu, n, runs, &o)))) {
        for (size_t j = 0; rc == 0 && j < n; j++) {
            size_t i = (j + runs) % n;
            rc = probe_once(self_exe, libs[i], &cpu[i * o.max_runs + runs],
                            &rss[i * o.max_runs + runs], err);
        }
        runs += rc == 0;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) { /* the paired figures first: sorting unpairs */
        out[i] = (hr_startup_t){.lib = libs[i], .runs = runs};
        if (i > 0)
            over_of(cpu, i, runs, o.max_runs, &out[i]);
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        hr_startup_t *r = &out[i];
        double *c = &cpu[i * o.max_runs];
        uint64_t *m = &rss[i * o.max_runs];
        qsort(c, runs, sizeof *c, hr_cmp_f64);
        qsort(m, runs, sizeof *m, hr_cmp_u64);
        r->cpu_s = quantile(c, runs, 0.5);
        r->cpu_q1_s = quantile(c, runs, 0.25);
        r->cpu_q3_s = quantile(c, runs, 0.75);
        r->max_rss = m[runs / 2];
    }
    free(cpu);
    free(rss);
    return rc;
}
