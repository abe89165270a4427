/* Child processes: every replay process is a re-executed worker
 * (`heapreplay __worker`) that sends its result object back as one line of
 * JSON over a pipe. External allocators run with LD_PRELOAD set to their
 * library, so two malloc replacements never meet in one process; in-house
 * allocators run with none. Every process is a fresh program: an in-house
 * allocator's own blocks come from the C library's malloc, and a fork of
 * this process would hand it a heap shaped by the parent's history (its
 * mmap/trim thresholds decide whether freed chunks go back to the system, and
 * the same trace measured 30 or 212 ns/op on block depending on it). The
 * decoded trace reaches every worker through one shared memfd. A crash (signal), a timeout or
 * an exit without a result is reported as that allocator's result; the run
 * goes on. */
#include "replay/child.h"

#include <errno.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/be_system.h"
#include "base/sysinfo.h"
#include "replay/counter.h"

/* Interruption (hr_child_trap_signals): the signal caught, and the server
 * to stop. The handler only stores and kills (async-signal-safe). */
static volatile sig_atomic_t stop_sig;
static volatile pid_t server_pid;

static void on_stop(int sig) {
    if (!stop_sig)
        stop_sig = sig;
    if (server_pid > 0)
        kill(server_pid, SIGKILL); /* the worker follows it (die_with_parent) */
}

void hr_child_trap_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: a blocked read returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int hr_child_interrupted(void) { return stop_sig; }

/* In a freshly forked process: SIGKILL when the parent dies, whatever kills
 * it (SIGKILL included, which no handler sees), so that no replay outlives
 * heapreplay. The death signal survives exec; a parent already gone before
 * prctl took effect is caught by the getppid test. */
static void die_with_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(1);
}

/* Builds a result object for a replay that produced none. */
static char *synth_result(const hr_child_job_t *job, const char *status, const char *msg,
                          int sig) {
    hr_emit_mem_t m;
    if (hr_emit_mem_open(&m, 1) != 0)
        return NULL;
    hr_emit_t *em = &m.em;
    hr_result_head(em, job->trace_name, job->digest, job->spec->text, status, job->opt);
    hr_emit_str(em, "error", msg);
    if (sig)
        hr_emit_u64(em, "signal", (uint64_t)sig);
    hr_emit_obj_end(em);
    return hr_emit_mem_close(&m);
}

/* The worker's command line (argv[0] is the program to run). */
typedef struct worker_cmd {
    char        fd[16], tfd[16], budget[32], warm[32], stall[32], pace[32], touch[48], hz[32], access[32];
    const char *argv[34];
} worker_cmd_t;

static void worker_argv(worker_cmd_t *w, const hr_child_job_t *job, int fd) {
    const hr_replay_options_t *o = job->opt;
    snprintf(w->fd, sizeof w->fd, "%d", fd);
    snprintf(w->tfd, sizeof w->tfd, "%d", job->trace_fd);
    snprintf(w->budget, sizeof w->budget, "%llu", (unsigned long long)o->budget);
    snprintf(w->warm, sizeof w->warm, "%.17g", o->warm_time_s);
    snprintf(w->stall, sizeof w->stall, "%.17g", o->stall_us);
    snprintf(w->pace, sizeof w->pace, "%.17g", o->pace);
    snprintf(w->hz, sizeof w->hz, "%.17g", hr_cycle_hz()); /* measured once, in the parent */
    const char *argv[] = {job->self_exe, "__worker", "--fd", w->fd, "--trace-fd", w->tfd,
                          "--spec", job->spec->text, "--mode", hr_replay_mode_name(job->mode),
                          "--touch", hr_touch_spec(o->touch, o->touch_cap, w->touch, sizeof w->touch),
                          "--access", hr_access_spec(&o->access, w->access, sizeof w->access),
                          "--budget", w->budget,
                          "--warm-time", w->warm, "--stall-us", w->stall, "--pace", w->pace,
                          "--cycle-hz", w->hz,
                          "--threads", hr_threads_mode_name((hr_threads_mode_t)o->threads),
                          "--count", hr_count_mode_name((hr_count_mode_t)o->count),
                          "--name", job->trace_name,
                          o->heap_config ? "--heap-config" : NULL, o->heap_config, NULL};
    _Static_assert(sizeof argv <= sizeof w->argv, "worker argv fits");
    memcpy(w->argv, argv, sizeof argv);
}

/* Writes an error result for a worker that could not be started, and ends
 * the forked child. */
static void exec_failed(const hr_child_job_t *job, int fd, const char *what, const char *why) {
    char msg[700];
    snprintf(msg, sizeof msg, "cannot run %s: %s", what, why);
    char *line = synth_result(job, "error", msg, 0);
    if (line)
        dprintf(fd, "%s\n", line);
    _exit(4);
}

/* In the forked child: exec the worker with the allocator preloaded (and,
 * for a count under callgrind, under valgrind with the allocators' clock-
 * driven purging pinned: counter.h). */
static void child_exec_worker(const hr_child_job_t *job, int fd, const char *lib) {
    worker_cmd_t w;
    worker_argv(&w, job, fd);
    if (lib[0])
        setenv("LD_PRELOAD", lib, 1);
    else
        unsetenv("LD_PRELOAD");
    setenv("HEAPREPLAY_EXPECT_LIB", lib, 1);
    if (job->mode == HR_MODE_COUNT && job->opt->count == HR_COUNT_CALLGRIND) {
        static hr_callgrind_cmd_t cg;
        hr_error_t err = {{0}};
        unsetenv("VALGRIND_OPTS");
        hr_count_pin_env();
        if (hr_callgrind_cmd(&cg, job->count_out, &err) != 0)
            exec_failed(job, fd, "valgrind", err.msg);
        for (int i = 0; w.argv[i] && cg.argc < HR_CALLGRIND_MAX_ARGS - 1; i++)
            cg.argv[cg.argc++] = w.argv[i];
        cg.argv[cg.argc] = NULL;
        execv(cg.valgrind, (char *const *)cg.argv);
        exec_failed(job, fd, cg.valgrind, strerror(errno));
    }
    execv(job->self_exe, (char *const *)w.argv);
    exec_failed(job, fd, job->self_exe, strerror(errno));
}

/* Problems known before any process starts (allocator not built, unreadable
 * preload). Returns a result line, or NULL when the job can run. */
static char *precheck(const hr_child_job_t *job) {
    int ext = (job->spec->be->caps & HR_CAP_EXTERNAL_PROCESS) != 0;
    const char *lib = job->spec->lib;
    if (ext && !lib)
        return synth_result(job, "error", "allocator not found at configure time (not built)", 0);
    if (ext && lib[0] && access(lib, R_OK) != 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: cannot read the library to preload (%s)", lib, strerror(errno));
        return synth_result(job, "error", msg, 0);
    }
    return NULL;
}

/* How the server saw one replay process end. */
typedef struct job_end {
    int status;    /* waitpid status */
    int timed_out; /* killed at the deadline */
} job_end_t;

static job_end_t wait_with_deadline(pid_t pid, double timeout_s) {
    job_end_t e = {0, 0};
    uint64_t deadline = hr_now_ns() + (uint64_t)(timeout_s * 1e9);
    struct timespec nap = {0, 1000000}; /* 1 ms */
    for (;;) {
        pid_t r = waitpid(pid, &e.status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return e;
        if (!e.timed_out && hr_now_ns() >= deadline) {
            kill(pid, SIGKILL);
            e.timed_out = 1;
        }
        nanosleep(&nap, NULL);
    }
}

/* Valgrind runs a program ~50 times slower. */
static double job_timeout(const hr_child_job_t *job) {
    int cg = job->mode == HR_MODE_COUNT && job->opt->count == HR_COUNT_CALLGRIND;
    return job->opt->timeout_s * (cg ? 50 : 1);
}

/* The server: forked once, before any job runs, it starts every replay
 * process in turn (fork + exec of the worker, so one job never runs beside
 * another on a 2-core machine), waits for it with the deadline and reports how
 * it ended on `status_fd`. It allocates nothing between forks. */
static void server_main(const hr_child_job_t *jobs, int n, const int *wfd, int status_fd) {
    pid_t self = getpid();
    signal(SIGINT, SIG_DFL); /* the parent's handlers are not the server's */
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    for (int i = 0; i < n; i++) {
        job_end_t e = {0, 0};
        if (wfd[i] >= 0) {
            pid_t pid = fork();
            if (pid == 0) {
                die_with_parent(self);
                for (int k = 0; k < n; k++)
                    if (k != i && wfd[k] >= 0)
                        close(wfd[k]);
                close(status_fd);
                int ext = (jobs[i].spec->be->caps & HR_CAP_EXTERNAL_PROCESS) != 0;
                child_exec_worker(&jobs[i], wfd[i], ext ? jobs[i].spec->lib : "");
            }
            close(wfd[i]);
            if (pid > 0)
                e = wait_with_deadline(pid, job_timeout(&jobs[i]));
            else
                e.status = 127 << 8;
        }
        if (write(status_fd, &e, sizeof e) != (ssize_t)sizeof e)
            _exit(5);
    }
    _exit(0);
}

/* Reads fd to its end; while nothing arrives, calls tick (if any) about
 * every HR_CHILD_TICK_MS (the caller's progress display). Out of memory:
 * still reads to the end (the writer must not block), returns NULL. */
static char *read_all(int fd, size_t *len, void (*tick)(void *), void *ctx) {
    size_t cap = 4096;
    char *buf = malloc(cap);
    *len = 0;
    for (;;) {
        char *nb = buf && *len + 4096 > cap ? realloc(buf, cap *= 2) : buf;
        if (!nb) {
            char sink[4096];
            free(buf);
            while (read(fd, sink, sizeof sink) > 0 || errno == EINTR)
                ;
            return NULL;
        }
        buf = nb;
        struct pollfd pfd = {fd, POLLIN, 0};
        if (tick && poll(&pfd, 1, HR_CHILD_TICK_MS) == 0) {
            tick(ctx);
            continue;
        }
        ssize_t r = read(fd, buf + *len, cap - *len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        *len += (size_t)r;
    }
    buf[*len] = 0;
    return buf;
}

/* Turns what one replay process sent and how it ended into a result line. */
static char *finish_job(const hr_child_job_t *job, char *out, size_t len, job_end_t e) {
    char msg[160];
    int st = e.status;
    if (e.timed_out) {
        free(out);
        snprintf(msg, sizeof msg, "no result within %g s (killed)", job_timeout(job));
        return synth_result(job, "timeout", msg, 0);
    }
    if (WIFSIGNALED(st)) {
        free(out);
        int sig = WTERMSIG(st);
        snprintf(msg, sizeof msg, "crashed with signal %d (%s)%s", sig, strsignal(sig),
                 sig == SIGKILL ? ", possibly out of memory" : "");
        return synth_result(job, "crashed", msg, sig);
    }
    if (len == 0 || (WIFEXITED(st) && WEXITSTATUS(st) != 0 && !strstr(out, "\"status\""))) {
        free(out);
        snprintf(msg, sizeof msg, "replay process exited with status %d and no result",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return synth_result(job, "error", msg, 0);
    }
    return out;
}

/* The progress callback again, for the job that is running. */
typedef struct tick_ctx {
    hr_child_progress_fn fn;
    const hr_child_job_t *job;
    int index;
    void *ctx;
} tick_ctx_t;

static void tick(void *p) {
    tick_ctx_t *t = p;
    if (!stop_sig)
        t->fn(t->job, t->index, t->ctx);
}

int hr_child_run_all(const hr_child_job_t *jobs, int n, char **results,
                     hr_child_progress_fn progress, void *ctx) {
    int *rfd = malloc((size_t)n * sizeof *rfd), *wfd = malloc((size_t)n * sizeof *wfd), sp[2];
    if (!rfd || !wfd) {
        free(rfd);
        free(wfd);
        return -1;
    }
    int lost = 0; /* a result that could not be read (out of memory) */
    for (int i = 0; i < n; i++) {
        int fds[2] = {-1, -1};
        results[i] = precheck(&jobs[i]);
        if (!results[i] && pipe(fds) != 0)
            results[i] = synth_result(&jobs[i], "error", strerror(errno), 0);
        rfd[i] = fds[0];
        wfd[i] = fds[1];
    }
    if (pipe(sp) != 0)
        return -1;
    fflush(NULL);
    pid_t parent = getpid();
    pid_t server = stop_sig ? -1 : fork();
    if (server == 0) {
        die_with_parent(parent);
        close(sp[0]);
        for (int i = 0; i < n; i++)
            if (rfd[i] >= 0)
                close(rfd[i]);
        server_main(jobs, n, wfd, sp[1]);
    }
    server_pid = server;
    if (stop_sig && server > 0) /* a signal came during the fork */
        kill(server, SIGKILL);
    close(sp[1]);
    for (int i = 0; i < n; i++)
        if (wfd[i] >= 0)
            close(wfd[i]);
    for (int i = 0; i < n; i++) {
        if (progress && !stop_sig)
            progress(&jobs[i], i, ctx);
        size_t len = 0;
        tick_ctx_t tc = {progress, &jobs[i], i, ctx};
        char *out = rfd[i] >= 0 && !stop_sig ? read_all(rfd[i], &len, progress ? tick : NULL, &tc)
                                             : NULL;
        lost |= rfd[i] >= 0 && !stop_sig && !out;
        job_end_t e;
        ssize_t got = stop_sig ? 0 : read(sp[0], &e, sizeof e);
        while (got < 0 && errno == EINTR && !stop_sig)
            got = read(sp[0], &e, sizeof e);
        if (stop_sig) { /* this job and the rest have no result */
            free(out);
            for (int k = i; k < n; k++) {
                if (rfd[k] >= 0)
                    close(rfd[k]);
                free(results[k]);
                results[k] = NULL;
            }
            break;
        }
        if (got != (ssize_t)sizeof e) {
            e.status = 0;
            e.timed_out = 0;
        }
        if (rfd[i] >= 0) {
            close(rfd[i]);
            results[i] = finish_job(&jobs[i], out, len, e);
        }
    }
    close(sp[0]);
    int st;
    while (server > 0 && waitpid(server, &st, 0) < 0 && errno == EINTR)
        ;
    server_pid = 0;
    free(rfd);
    free(wfd);
    return stop_sig ? 1 : lost ? -1 : 0;
}
