/* The paced memory laps of a replay's rows (paced.h; docs/METRICS.md,
 * "Memory lap: paced or fast"): which rows get one (in the parent), and the
 * batch that runs them in the server before the trace's timed processes,
 * each in a fresh worker of its own whose figures the row's measure workers
 * then take (HR_PACED_GIVEN). */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/child_int.h"
#include "replay/engine_int.h"

/* At most this many paced laps at once, and at most PACED_PER_CPU per CPU
 * this process may run on: a lap waits for its events' times, sleeping
 * between far ones and spinning the last 0.1 ms before near ones, so a
 * dense trace keeps a lap busy about a quarter of its time (freeciv_ai:
 * 0.45 s of CPU in its 1.6 s; docs/METRICS.md) and more laps than that on
 * a CPU would run late. */
#define PACED_BATCH_MAX 8
#define PACED_PER_CPU   2

void hr_paced_rows_free(hr_paced_rows_t *pr) {
    free(pr->lead);
    free(pr->given);
    memset(pr, 0, sizeof *pr);
}

static int same_row(const hr_child_job_t *a, const hr_child_job_t *b) {
    return a->mode == HR_MODE_MEASURE && b->mode == HR_MODE_MEASURE && a->trace == b->trace &&
           a->spec == b->spec && a->opt == b->opt;
}

/* In the parent, before the server: the rows whose memory lap is paced
 * (hr_paced_choose, the measure worker's own rule), on each trace's
 * timeline built once. Jobs that will not run (wfd -1) have none. 0, or -1
 * when out of memory. */
int hr_paced_rows(const hr_child_job_t *jobs, int n, const int *wfd, hr_paced_rows_t *pr) {
    memset(pr, 0, sizeof *pr);
    pr->lead = malloc((size_t)n * sizeof *pr->lead + 1);
    pr->given = calloc((size_t)n + 1, sizeof *pr->given);
    if (!pr->lead || !pr->given) {
        hr_paced_rows_free(pr);
        return -1;
    }
    hr_paced_map_t map;
    const hr_trace_t *mapped = NULL; /* the trace map is of */
    int has_map = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < i && !same_row(&jobs[k], &jobs[i]))
            k++;
        pr->lead[i] = k < i ? pr->lead[k] : -1;
        if (k < i || jobs[i].mode != HR_MODE_MEASURE || wfd[i] < 0 ||
            jobs[i].opt->memory_lap == HR_MEMLAP_FAST)
            continue;
        if (mapped != jobs[i].trace) {
            if (has_map)
                hr_paced_map_free(&map);
            mapped = jobs[i].trace;
            has_map = hr_trace_has_ts(mapped) && hr_paced_map_build(&map, mapped, NULL) == 0;
        }
        hr_paced_result_t why; /* the worker says why not */
        memset(&why, 0, sizeof why);
        if (has_map && hr_paced_choose(jobs[i].trace, jobs[i].spec, jobs[i].opt, &map, &why)) {
            pr->lead[i] = i;
            pr->n_rows++;
        }
    }
    if (has_map)
        hr_paced_map_free(&map);
    return 0;
}

/* A paced lap's process: a fresh worker of job i's row (its allocator
 * preloaded) that runs the paced lap alone and writes its message on wr
 * (HR_PACED_FD); its result line goes to /dev/null. Never returns. */
static void paced_exec(const hr_child_job_t *job, int wr, const int *wfd, int n, int status_fd,
                       pid_t server, const sigset_t *mask) {
    char fdtext[16];
    sigprocmask(SIG_SETMASK, mask, NULL);
    hr_child_die_with_parent(server);
    for (int k = 0; k < n; k++)
        if (wfd[k] >= 0)
            close(wfd[k]);
    close(status_fd);
    int null_fd = open("/dev/null", O_WRONLY);
    snprintf(fdtext, sizeof fdtext, "%d", wr);
    if (null_fd < 0 || setenv("HR_PACED_FD", fdtext, 1) != 0)
        _exit(4);
    hr_child_exec_worker(job, null_fd);
}

/* How many paced laps run at once: PACED_BATCH_MAX, PACED_PER_CPU per CPU
 * of this process's affinity, and what half the machine's memory holds at
 * twice the trace's peak live bytes and 64 MiB of a worker's own per lap
 * (the trace's events are shared, not counted). At least 1. */
static int batch_width(const hr_child_job_t *job) {
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t each = job->trace->peak_live * 2 + ((uint64_t)64 << 20);
    uint64_t w = ram / 2 / each;
    cpu_set_t cpus;
    int ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
    if (w > (uint64_t)ncpu * PACED_PER_CPU)
        w = (uint64_t)ncpu * PACED_PER_CPU;
    return w < 1 ? 1 : w > PACED_BATCH_MAX ? PACED_BATCH_MAX : (int)w;
}

/* In the server, before the trace's timed processes: every paced row's lap
 * in its own process, up to batch_width at once (never beside a timed
 * lap), each bounded by --timeout (not --mem-limit, which watches the
 * workers). Fills pr->given of each lead job. */
void hr_paced_batch(const hr_child_job_t *jobs, int n, const int *wfd, int status_fd,
                    hr_paced_rows_t *pr, const sigset_t *chld, const sigset_t *mask) {
    hr_child_watch_t w[PACED_BATCH_MAX];
    int rd[PACED_BATCH_MAX], of[PACED_BATCH_MAX], running = 0, next = 0;
    int width = pr->n_rows ? batch_width(&jobs[0]) : 0;
    pid_t self = getpid();
    while ((next < n && width > 0) || running > 0) {
        for (; next < n && running < width; next++) {
            int pfd[2];
            if (pr->lead[next] != next)
                continue;
            hr_paced_msg_t none = {-1, 0, 0, "no pipe for its process"};
            if (pipe(pfd) != 0) {
                hr_paced_given_text(&none, 1, 0, 0, 0, pr->given[next], HR_PACED_GIVEN_MAX);
                continue;
            }
            /* not awaited to its end: a process the allocator forked may
             * hold the pipe open (the message is written before the exit) */
            fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
            fcntl(pfd[0], F_SETFL, O_NONBLOCK);
            pid_t pid = fork();
            if (pid == 0) {
                close(pfd[0]);
                paced_exec(&jobs[next], pfd[1], wfd, n, status_fd, self, mask);
            }
            close(pfd[1]);
            if (pid < 0) {
                close(pfd[0]);
                hr_paced_given_text(&none, 0, 127 << 8, 0, 0, pr->given[next], HR_PACED_GIVEN_MAX);
                continue;
            }
            setpgid(pid, pid); /* as the child does: whichever runs first */
            hr_child_watch_start(&w[running], pid, &jobs[next], 0);
            rd[running] = pfd[0];
            of[running++] = next;
        }
        for (int k = 0; k < running; k++) {
            if (!hr_child_watch_poll(&w[k]))
                continue;
            hr_paced_msg_t m;
            ssize_t got = read(rd[k], &m, sizeof m);
            close(rd[k]);
            hr_paced_given_text(&m, got == (ssize_t)sizeof m, w[k].e.status, w[k].e.timed_out,
                                hr_child_job_timeout(w[k].job), pr->given[of[k]], HR_PACED_GIVEN_MAX);
            running--;
            w[k] = w[running];
            rd[k] = rd[running];
            of[k--] = of[running];
        }
        if (running > 0) { /* until a paced process ends or one's deadline or RSS reading */
            uint64_t due = hr_child_watch_due(&w[0]);
            for (int k = 1; k < running; k++) {
                uint64_t d = hr_child_watch_due(&w[k]);
                due = d < due ? d : due;
            }
            hr_child_watch_sleep(chld, due);
        }
    }
}

