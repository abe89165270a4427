/* heapreplay capture: the program's own run time (capture_time.h).
 *
 * A run's CPU time is the user + system time of the program and of every
 * descendant it waited for (wait4's rusage, what getrusage(RUSAGE_CHILDREN)
 * adds up), its max RSS the largest peak resident set among them (ru_maxrss),
 * its wall time from before fork to after the wait (CLOCK_MONOTONIC). */
#include "cli/capture_time.h"
#include "base/order.h"
#include "base/sysinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static uint64_t tv_ns(struct timeval tv) {
    return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

void hr_tty_give(int tty, pid_t pg) {
    sigset_t s, old;
    sigemptyset(&s);
    sigaddset(&s, SIGTTOU);
    sigprocmask(SIG_BLOCK, &s, &old);
    (void)tcsetpgrp(tty, pg);
    sigprocmask(SIG_SETMASK, &old, NULL);
}

int hr_run_wait_job(pid_t pid, uint64_t t0, int tty, hr_run_time_t *rt) {
    struct rusage ru;
    int status = -1;
    memset(&ru, 0, sizeof ru);
    for (;;) {
        if (wait4(pid, &status, tty >= 0 ? WUNTRACED : 0, &ru) < 0) {
            if (errno != EINTR)
                return -1;
            continue;
        }
        if (!WIFSTOPPED(status))
            break;
        /* stopped at the terminal: the shell must get it back, through us */
        hr_tty_give(tty, getpgrp());
        raise(SIGSTOP);
        if (tcgetpgrp(tty) == getpgrp()) /* continued in the foreground (fg, not bg) */
            hr_tty_give(tty, pid);
        kill(-pid, SIGCONT);
    }
    rt->wall_ns = hr_now_ns() - t0;
    rt->cpu_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
    rt->max_rss = (uint64_t)ru.ru_maxrss * 1024u; /* Linux: kilobytes */
    rt->status = status;
    return 0;
}

int hr_run_wait(pid_t pid, uint64_t t0, hr_run_time_t *rt) { return hr_run_wait_job(pid, t0, -1, rt); }


int hr_stdin_rerunnable(void) {
    struct stat st;
    if (fstat(0, &st) != 0)
        return 1; /* closed: every run reads nothing alike */
    return !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* One run of cmd without the capture library: its output to /dev/null (the
 * captured run's output is the one the user sees), standard input rewound
 * to `in_off` when it is a regular file. */
static int run_plain(char **cmd, off_t in_off, hr_run_time_t *rt) {
    void (*old_int)(int) = signal(SIGINT, SIG_IGN);
    void (*old_quit)(int) = signal(SIGQUIT, SIG_IGN);
    uint64_t t0 = hr_now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        if (in_off >= 0)
            (void)lseek(0, in_off, SEEK_SET);
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        execvp(cmd[0], cmd);
        _exit(127);
    }
    int rc = pid > 0 ? hr_run_wait(pid, t0, rt) : -1;
    signal(SIGINT, old_int);
    signal(SIGQUIT, old_quit);
    return rc;
}

void hr_program_from_runs(const hr_run_time_t *runs, int n, int captured, hr_program_time_t *p) {
    memset(p, 0, sizeof *p);
    if (n <= 0)
        return;
    uint64_t *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return;
    p->runs = (uint32_t)n;
    p->flags = captured ? HR_PROGF_CAPTURED : 0;
    for (int i = 0; i < n; i++)
        v[i] = runs[i].wall_ns;
    p->wall_ns = hr_median_u64(v, (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = runs[i].max_rss;
    p->max_rss = hr_median_u64(v, (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = runs[i].cpu_ns;
    p->cpu_ns = hr_median_u64(v, (size_t)n);
    p->cpu_min_ns = v[0];
    p->cpu_max_ns = v[n - 1];
    /* the runs' spread that one slow run does not set: the median absolute
     * deviation from the median (docs/METRICS.md, "Program noise") */
    for (int i = 0; i < n; i++)
        v[i] = runs[i].cpu_ns > p->cpu_ns ? runs[i].cpu_ns - p->cpu_ns : p->cpu_ns - runs[i].cpu_ns;
    p->cpu_mad_ns = hr_median_u64(v, (size_t)n);
    free(v);
}

/* The 1-minute load average x 100 (0 when the system does not say). */
static uint32_t load_now(void) {
    double l[1];
    return getloadavg(l, 1) == 1 && l[0] >= 0 && l[0] < 4e7 ? (uint32_t)(l[0] * 100 + 0.5) : 0;
}

/* The machine's busy CPU time so far, in seconds over all CPUs: /proc/stat's
 * "cpu" line, user + nice + system + irq + softirq + steal (a hypervisor's
 * stolen time is load too: the runs could not have the CPU); -1 when it
 * cannot be read (not Linux, no /proc). */
static double busy_cpu_s(void) {
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8] = {0};
    long hz = sysconf(_SC_CLK_TCK);
    int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                       &v[3], &v[4], &v[5], &v[6], &v[7])
              : 0;
    if (f)
        fclose(f);
    if (n < 8 || hz <= 0)
        return -1;
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)hz;
}

/* The CPUs other programs kept busy on average between busy0 (at t0) and
 * now, less the runs' own CPU time (wait4: the program and its children):
 * x 100, in [0, cpus x 100]; sets the flag, or leaves it clear when the
 * busy time cannot be read. */
static void other_cpu(hr_program_time_t *p, double busy0, uint64_t t0, const hr_run_time_t *runs,
                      int n) {
    double busy1 = busy_cpu_s(), wall = (double)(hr_now_ns() - t0) / 1e9, own = 0;
    if (busy0 < 0 || busy1 < 0 || wall <= 0)
        return;
    for (int i = 0; i < n; i++)
        own += (double)runs[i].cpu_ns / 1e9;
    double other = (busy1 - busy0 - own) / wall;
    other = other < 0 ? 0 : other > p->cpus ? p->cpus : other;
    p->other_cpu_c = (uint32_t)(other * 100 + 0.5);
    p->flags |= HR_PROGF_OTHER_CPU;
}

off_t hr_stdin_offset(void) {
    struct stat st;
    return fstat(0, &st) == 0 && S_ISREG(st.st_mode) ? lseek(0, 0, SEEK_CUR) : -1;
}

int hr_time_runs(char **cmd, int n, off_t in_off, int expect_status, hr_program_time_t *p,
                 FILE *sum) {
    hr_run_time_t *runs = calloc((size_t)n, sizeof *runs);
    if (!runs)
        return -1;
    int differ = 0;
    uint32_t load_before = load_now();
    double busy0 = busy_cpu_s();
    uint64_t t0 = hr_now_ns();
    for (int i = 0; i < n; i++) {
        if (run_plain(cmd, in_off, &runs[i]) != 0) {
            free(runs);
            return -1;
        }
        differ += runs[i].status != expect_status;
    }
    if (in_off >= 0)
        (void)lseek(0, in_off, SEEK_SET);
    hr_program_from_runs(runs, n, 0, p);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    p->load_before_c = load_before;
    p->load_after_c = load_now();
    p->cpus = cpus > 0 && cpus <= (long)UINT32_MAX ? (uint32_t)cpus : 1;
    other_cpu(p, busy0, t0, runs, n);
    fprintf(sum, "program time: median of %d run%s without the capture library: wall %.3f s, "
            "CPU %.3f s (min %.3f, max %.3f, MAD %.3f), max RSS %.1f MiB; load average %.2f "
            "before, %.2f after, %u CPUs", n, n == 1 ? "" : "s",
            (double)p->wall_ns / 1e9, (double)p->cpu_ns / 1e9, (double)p->cpu_min_ns / 1e9,
            (double)p->cpu_max_ns / 1e9, (double)p->cpu_mad_ns / 1e9,
            (double)p->max_rss / 1048576.0, p->load_before_c / 100.0, p->load_after_c / 100.0,
            p->cpus);
    if (p->flags & HR_PROGF_OTHER_CPU)
        fprintf(sum, "; other programs kept %.2f CPUs busy meanwhile", p->other_cpu_c / 100.0);
    fputc('\n', sum);
    if (differ)
        fprintf(sum, "warning: %d of the %d timing runs ended unlike the captured run (exit "
                "status or signal): they may not have done the same work\n", differ, n);
    free(runs);
    return 0;
}
