/* Each allocator's process start-up (startup.h). */
#include "replay/startup.h"
#include "base/order.h"
#include "replay/child.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

hr_startup_options_t hr_startup_default(void) {
    hr_startup_options_t o = {7};
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

int hr_startup_measure(const char *self_exe, const char *const *libs, size_t n,
                       const hr_startup_options_t *opt, hr_startup_t *out, hr_error_t *err) {
    unsigned runs = opt->runs < 1 ? 1 : opt->runs > HR_STARTUP_MAX_RUNS ? HR_STARTUP_MAX_RUNS
                                                                         : opt->runs;
    double *cpu = calloc(n * runs, sizeof *cpu);
    uint64_t *rss = calloc(n * runs, sizeof *rss);
    int rc = cpu && rss ? 0 : -1;
    if (rc)
        hr_error_set(err, "start-up probe: out of memory");
    /* interleaved: every library once per round, so a slow patch of the
     * machine falls on all of them alike */
    for (unsigned r = 0; rc == 0 && r < runs; r++)
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = probe_once(self_exe, libs[i], &cpu[i * runs + r], &rss[i * runs + r], err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        double *c = &cpu[i * runs];
        uint64_t *m = &rss[i * runs];
        qsort(c, runs, sizeof *c, hr_cmp_f64);
        qsort(m, runs, sizeof *m, hr_cmp_u64);
        out[i] = (hr_startup_t){libs[i], runs, quantile(c, runs, 0.5), quantile(c, runs, 0.25),
                                quantile(c, runs, 0.75), m[runs / 2]};
    }
    free(cpu);
    free(rss);
    return rc;
}
