/* Child processes: every replay process is a re-executed worker
 * (`heapreplay __worker`) that sends its result object back as one line of
 * JSON over a pipe of its own (not its standard output, which goes to
 * heapreplay's standard error: an allocator that prints cannot corrupt the
 * result). External allocators run with LD_PRELOAD set to their
 * library, so two malloc replacements never meet in one process; in-house
 * allocators run with none. Every process is a fresh program: an in-house
 * allocator's own blocks come from the C library's malloc, and a fork of
 * this process would hand it a heap shaped by the parent's history (its
 * mmap/trim thresholds decide whether freed chunks go back to the system, and
 * the same trace measured 30 or 212 ns/op on block depending on it). The
 * decoded trace reaches every worker through one shared memfd. Each replay
 * process leads its own process group, bounded in time (--timeout) and in
 * anonymous resident memory (memlimit.h); the group is killed when the
 * process ends, so nothing an allocator forked outlives its row. A crash
 * (signal), a timeout, a memory limit or an exit without a readable result
 * is reported as that allocator's result; the run goes on. */
#include "replay/child.h"

#include <errno.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/be_system.h"
#include "base/json.h"
#include "base/metrics.h"
#include "base/sysinfo.h"
#include "replay/counter.h"
#include "replay/memlimit.h"
#include "replay/child_int.h"
#include "replay/paced.h"

/* Interruption (hr_child_trap_signals): the signal caught, and the server
 * to stop. The handler only stores and kills (async-signal-safe). */
static volatile sig_atomic_t stop_sig;
static volatile pid_t server_pid;

static void on_stop(int sig) {
    if (!stop_sig)
        stop_sig = sig;
    if (server_pid > 0)
        kill(server_pid, SIGKILL); /* the worker follows it (hr_child_die_with_parent) */
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
void hr_child_die_with_parent(pid_t parent) {
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
    char        fd[16], tfd[16], budget[32], warm[32], wstop[32], stall[32], pace[32], touch[48], hz[32], access[32];
    const char *argv[40];
} worker_cmd_t;

static void worker_argv(worker_cmd_t *w, const hr_child_job_t *job, int fd) {
    const hr_replay_options_t *o = job->opt;
    snprintf(w->fd, sizeof w->fd, "%d", fd);
    snprintf(w->tfd, sizeof w->tfd, "%d", job->trace_fd);
    snprintf(w->budget, sizeof w->budget, "%llu", (unsigned long long)o->budget);
    snprintf(w->warm, sizeof w->warm, "%.17g", o->warm_time_s);
    snprintf(w->wstop, sizeof w->wstop, "%.17g", o->warm_stop);
    snprintf(w->stall, sizeof w->stall, "%.17g", o->stall_us);
    snprintf(w->pace, sizeof w->pace, "%.17g", o->pace);
    snprintf(w->hz, sizeof w->hz, "%.17g", hr_cycle_hz()); /* measured once, in the parent */
    const char *argv[] = {job->self_exe, "__worker", "--fd", w->fd, "--trace-fd", w->tfd,
                          "--spec", job->spec->text, "--mode", hr_replay_mode_name(job->mode),
                          "--touch", hr_touch_spec(o->touch, o->touch_cap, w->touch, sizeof w->touch),
                          "--access", hr_access_spec(&o->access, w->access, sizeof w->access),
                          "--budget", w->budget,
                          "--warm-time", w->warm, "--warm-stop", w->wstop, "--stall-us", w->stall, "--pace", w->pace,
                          "--cycle-hz", w->hz,
                          "--threads", hr_threads_mode_name((hr_threads_mode_t)o->threads),
                          "--count", hr_count_mode_name((hr_count_mode_t)o->count),
                          "--memory-lap", hr_memory_lap_name((hr_memory_lap_t)o->memory_lap),
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
void hr_child_exec_worker(const hr_child_job_t *job, int fd) {
    worker_cmd_t w;
    int ext = (job->spec->be->caps & HR_CAP_EXTERNAL_PROCESS) != 0;
    const char *lib = ext ? job->spec->lib : "";
    setpgid(0, 0); /* its own group: the server ends whatever it forked (wait_job) */
    if (fd <= STDERR_FILENO) { /* heapreplay started with a standard stream closed */
        int hi = fcntl(fd, F_DUPFD, STDERR_FILENO + 1);
        if (hi < 0)
            _exit(4);
        close(fd);
        fd = hi;
    }
    /* The allocator's own prints (printf, write(1)) land on heapreplay's
     * standard error (nowhere when it has none): never in the result, never
     * in a report on stdout. */
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        int nul = open("/dev/null", O_WRONLY);
        if (nul > STDOUT_FILENO && dup2(nul, STDOUT_FILENO) == STDOUT_FILENO)
            close(nul);
    }
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
    /* argv[0] the same wherever heapreplay is installed: the dynamic
     * linker names the program by it in the error string a failed dlsym
     * leaves on the heap (extstats.c looks up every allocator's statistics
     * call), so a longer path made the allocator under test start from
     * another heap (jemalloc's footprint moved by 28 KiB on particles) */
    w.argv[0] = HR_WORKER_ARGV0;
    execv(job->self_exe, (char *const *)w.argv);
    exec_failed(job, fd, job->self_exe, strerror(errno));
}

/* Problems known before any process starts (allocator not built, unreadable
 * preload). Returns a result line, or NULL when the job can run. */
static char *precheck(const hr_child_job_t *job) {
    int ext = (job->spec->be->caps & HR_CAP_EXTERNAL_PROCESS) != 0;
    const char *lib = job->spec->lib;
    if (ext && HR_ASAN_BUILD)
        return synth_result(job, "error", "skipped: in an AddressSanitizer build the sanitizer's "
                            "runtime provides malloc; external allocators replay in a build "
                            "without --enable-asan", 0);
    if (ext && !lib)
        return synth_result(job, "error", "allocator not found at configure time (not built)", 0);
    if (ext && lib[0] && access(lib, R_OK) != 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: cannot read the library to preload (%s)", lib, strerror(errno));
        return synth_result(job, "error", msg, 0);
    }
    return NULL;
}

/* Valgrind runs a program ~50 times slower. */
static int under_callgrind(const hr_child_job_t *job) {
    return job->mode == HR_MODE_COUNT && job->opt->count == HR_COUNT_CALLGRIND;
}

double hr_child_job_timeout(const hr_child_job_t *job) {
    return job->opt->timeout_s * (under_callgrind(job) ? 50 : 1);
}

/* Valgrind's own tables (translations, its heap) are resident in the same
 * process: a count under callgrind gets 1 GiB more. 0: no limit. */
static uint64_t job_mem_limit(const hr_child_job_t *job) {
    uint64_t lim = job->mem_limit;
    return lim && under_callgrind(job) ? lim + ((uint64_t)1 << 30) : lim;
}

void hr_child_watch_start(hr_child_watch_t *w, pid_t pid, const hr_child_job_t *job, uint64_t limit) {
    memset(w, 0, sizeof *w);
    w->pid = pid;
    w->job = job;
    w->t0 = w->next_poll = hr_now_ns();
    w->deadline = w->t0 + (uint64_t)(hr_child_job_timeout(job) * 1e9);
    w->limit = limit;
}

/* Nanoseconds until the next look at a process whose anonymous RSS is rss
 * under limit: the time the headroom takes to fill at HR_MEM_GROWTH_MAX
 * bytes a second, between HR_MEM_POLL_MS and HR_MEM_POLL_MAX_MS. Far from
 * its limit a process is read a few dozen times a second, not 200. */
static uint64_t mem_poll_gap_ns(uint64_t limit, uint64_t rss) {
    uint64_t lo = HR_MEM_POLL_MS * 1000000ull, hi = HR_MEM_POLL_MAX_MS * 1000000ull;
    if (rss >= limit)
        return lo;
    double ns = (double)(limit - rss) / (double)HR_MEM_GROWTH_MAX * 1e9;
    return ns < (double)lo ? lo : ns > (double)hi ? hi : (uint64_t)ns;
}

/* One look at the process: kills its group at the deadline or when its
 * anonymous RSS is over the limit (read as mem_poll_gap_ns says). 1 once it
 * has ended (whatever it forked and left running is then killed too), 0
 * while it runs. */
int hr_child_watch_poll(hr_child_watch_t *w) {
    hr_child_end_t *e = &w->e;
    pid_t r = waitpid(w->pid, &e->status, WNOHANG);
    if (r == w->pid || (r < 0 && errno != EINTR)) {
        kill(-w->pid, SIGKILL); /* the group: children the allocator forked (ESRCH: none) */
        return 1;
    }
    uint64_t now = hr_now_ns();
    if (!e->timed_out && !e->oom && now >= w->deadline) {
        kill(-w->pid, SIGKILL);
        kill(w->pid, SIGKILL);
        e->timed_out = 1;
    }
    if (w->limit && !e->timed_out && !e->oom && now >= w->next_poll) {
        uint64_t rss = hr_proc_anon_rss(w->pid);
        w->next_poll = now + mem_poll_gap_ns(w->limit, rss);
        if (rss > w->limit) {
            kill(-w->pid, SIGKILL);
            kill(w->pid, SIGKILL);
            e->oom = 1;
            e->rss = rss;
            e->secs = (double)(now - w->t0) / 1e9;
        }
    }
    return 0;
}

uint64_t hr_child_watch_due(const hr_child_watch_t *w) {
    if (w->e.timed_out || w->e.oom)
        return hr_now_ns() + 1000000ull; /* killed: reaped on its SIGCHLD in any case */
    return w->limit && w->next_poll < w->deadline ? w->next_poll : w->deadline;
}

void hr_child_watch_sleep(const sigset_t *chld, uint64_t until) {
    uint64_t now = hr_now_ns(), ns = until > now ? until - now : 0;
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    sigtimedwait(chld, NULL, &ts);
}

/* Waits for the replay process pid, asleep until it ends, its deadline or
 * the next reading of its RSS (hr_child_watch_sleep). The server shares a
 * CPU with the process it times when both are pinned to one: it used to
 * wake every millisecond (a waitpid each and a /proc read every 5 ms), a
 * thousand switches a second into the timed lap. That cost no measurable
 * time (docs/METRICS.md, "Harness cost"), but a sleeping server leaves the
 * CPU to the replay. */
static hr_child_end_t wait_job(pid_t pid, const hr_child_job_t *job, const sigset_t *chld) {
    hr_child_watch_t w;
    hr_child_watch_start(&w, pid, job, job_mem_limit(job));
    while (!hr_child_watch_poll(&w))
        hr_child_watch_sleep(chld, hr_child_watch_due(&w));
    return w.e;
}

/* The server: forked once, before any job runs, it starts every replay
 * process in turn (fork + exec of the worker, so one job never runs beside
 * another on a 2-core machine), waits for it with the deadline and the
 * memory limit and reports how it ended on `status_fd`. It allocates
 * nothing between forks. */
static void server_main(const hr_child_job_t *jobs, int n, const int *wfd, int status_fd,
                        hr_paced_rows_t *pr) {
    pid_t self = getpid();
    signal(SIGINT, SIG_DFL); /* the parent's handlers are not the server's */
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    /* SIGCHLD blocked from here: a replay process's end stays pending for
     * hr_child_watch_sleep's sigtimedwait (blocked, it is queued though its
     * default action is to be ignored); each replay process starts with the
     * mask it had before. */
    sigset_t chld, mask;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &mask);
    hr_paced_batch(jobs, n, wfd, status_fd, pr, &chld, &mask);
    for (int i = 0; i < n; i++) {
        hr_child_end_t e = {0, 0, 0, 0, 0};
        if (wfd[i] >= 0) {
            pid_t pid = fork();
            if (pid == 0) {
                sigprocmask(SIG_SETMASK, &mask, NULL);
                hr_child_die_with_parent(self);
                for (int k = 0; k < n; k++)
                    if (k != i && wfd[k] >= 0)
                        close(wfd[k]);
                close(status_fd);
                /* a measure worker of a paced row: that row's one paced lap */
                if (pr->lead[i] >= 0)
                    setenv("HR_PACED_GIVEN", pr->given[pr->lead[i]], 1);
                else
                    unsetenv("HR_PACED_GIVEN");
                hr_child_exec_worker(&jobs[i], wfd[i]);
            }
            close(wfd[i]);
            if (pid > 0) {
                setpgid(pid, pid); /* as the child does: whichever runs first */
                e = wait_job(pid, &jobs[i], &chld);
            } else {
                e.status = 127 << 8;
            }
        }
        if (write(status_fd, &e, sizeof e) != (ssize_t)sizeof e)
            _exit(5);
    }
    _exit(0);
}

/* A growing buffer for what a replay process sends. */
typedef struct outbuf {
    char  *buf;
    size_t len, cap;
    int    oom; /* the buffer could not grow: the rest was read and dropped */
} outbuf_t;

/* Reads what is there on fd (blocking or not, as fd is); 0 at its end or
 * on error, 1 when more may come. */
static int outbuf_read(outbuf_t *o, int fd) {
    if (o->len + 4096 > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 8192;
        char *b = o->oom ? NULL : realloc(o->buf, cap);
        if (!b) { /* keep reading (the writer must not block), drop it */
            char sink[4096];
            ssize_t r = read(fd, sink, sizeof sink);
            o->oom = 1;
            return r > 0 || (r < 0 && errno == EINTR);
        }
        o->buf = b;
        o->cap = cap;
    }
    ssize_t r = read(fd, o->buf + o->len, o->cap - o->len - 1);
    if (r < 0 && errno == EINTR)
        return 1;
    if (r <= 0)
        return 0;
    o->len += (size_t)r;
    return 1;
}

/* Collects one job: what its process sends on rfd until the server says on
 * sp how it ended (*e; 0 when it did, -1 when the server is gone or the
 * run was interrupted), then what is left in the pipe. The end of the pipe
 * is not awaited: a child the allocator forked may hold it open. While
 * nothing arrives, tick (if any) is called about every HR_CHILD_TICK_MS. */
static int collect(int rfd, int sp, outbuf_t *o, hr_child_end_t *e, void (*tick)(void *), void *ctx) {
    int open_r = rfd >= 0;
    for (;;) {
        struct pollfd pfd[2] = {{sp, POLLIN, 0}, {rfd, POLLIN, 0}};
        int r = poll(pfd, open_r ? 2 : 1, tick ? HR_CHILD_TICK_MS : -1);
        if (stop_sig)
            return -1;
        if (r == 0 && tick)
            tick(ctx);
        if (r <= 0)
            continue;
        if (open_r && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
            open_r = outbuf_read(o, rfd);
        if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t got = read(sp, e, sizeof *e);
            if (got < 0 && errno == EINTR)
                continue;
            if (open_r && fcntl(rfd, F_SETFL, O_NONBLOCK) == 0)
                while (outbuf_read(o, rfd))
                    ;
            return got == (ssize_t)sizeof *e ? 0 : -1;
        }
    }
}

/* NULL when line is one JSON result object with a status; else why not. */
static const char *unreadable(const char *line, size_t len, char *why, size_t cap) {
    hr_error_t err = {{0}};
    hr_json_t *v = hr_json_parse(line, len, "result", &err);
    const char *st = hr_json_path_str(v, "status");
    if (!v)
        snprintf(why, cap, "%.180s", err.msg);
    else if (hr_json_type(v) != HR_JSON_OBJECT || !st)
        snprintf(why, cap, "no status in it");
    hr_json_free(v);
    return v && st ? NULL : why;
}

/* A verify process that found a violation and then died (the allocator had
 * corrupted its heap) keeps its verdict: it came first, and it explains the
 * death. */
static int verdict_then_died(const hr_child_job_t *job, const char *out, size_t len) {
    hr_json_t *v = job->mode == HR_MODE_VERIFY && len ? hr_json_parse(out, len, "result", NULL)
                                                      : NULL;
    const char *st = hr_json_path_str(v, hr_metrics[HR_M_VERIFY_STATUS].path);
    int keep = st && strcmp(st, "ok") != 0;
    hr_json_free(v);
    return keep;
}

/* Turns what one replay process sent and how it ended into a result line
 * (out is taken over). */
static char *finish_job(const hr_child_job_t *job, char *out, size_t len, hr_child_end_t e) {
    char msg[400], a[32], b[32];
    int st = e.status;
    while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
        out[--len] = 0;
    if (e.oom) {
        free(out);
        snprintf(msg, sizeof msg, "RSS %s > limit %s after %.2f s (killed; --mem-limit)",
                 hr_mem_fmt(e.rss, a, sizeof a), hr_mem_fmt(job_mem_limit(job), b, sizeof b),
                 e.secs);
        return synth_result(job, "oom", msg, 0);
    }
    if (e.timed_out) {
        free(out);
        snprintf(msg, sizeof msg, "no result within %g s (killed)", hr_child_job_timeout(job));
        return synth_result(job, "timeout", msg, 0);
    }
    if (WIFSIGNALED(st) && !verdict_then_died(job, out, len)) {
        free(out);
        int sig = WTERMSIG(st);
        snprintf(msg, sizeof msg, "crashed with signal %d (%s)%s", sig, strsignal(sig),
                 sig == SIGKILL ? ", possibly out of memory" : "");
        return synth_result(job, "crashed", msg, sig);
    }
    char why[200];
    if (len == 0 || unreadable(out, len, why, sizeof why)) {
        if (len == 0)
            snprintf(msg, sizeof msg, "replay process exited with status %d and no result",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        else
            snprintf(msg, sizeof msg, "replay process exited with status %d and an unreadable "
                     "result (%.200s)", WIFEXITED(st) ? WEXITSTATUS(st) : -1, why);
        free(out);
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

/* After an interruption: jobs [i, n) have no result. */
static void drop_rest(int i, int n, const int *rfd, char **results) {
    for (int k = i; k < n; k++) {
        if (rfd[k] >= 0)
            close(rfd[k]);
        free(results[k]);
        results[k] = NULL;
    }
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
        /* the parent's read ends never reach a worker */
        if (!results[i] && pipe(fds) != 0)
            results[i] = synth_result(&jobs[i], "error", strerror(errno), 0);
        if (fds[0] >= 0)
            fcntl(fds[0], F_SETFD, FD_CLOEXEC);
        rfd[i] = fds[0];
        wfd[i] = fds[1];
    }
    hr_paced_rows_t pr;
    if (pipe(sp) != 0 || hr_paced_rows(jobs, n, wfd, &pr) != 0)
        return -1;
    fflush(NULL);
    pid_t parent = getpid();
    pid_t server = stop_sig ? -1 : fork();
    if (server == 0) {
        hr_child_die_with_parent(parent);
        close(sp[0]);
        for (int i = 0; i < n; i++)
            if (rfd[i] >= 0)
                close(rfd[i]);
        server_main(jobs, n, wfd, sp[1], &pr);
    }
    hr_paced_rows_free(&pr);
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
        outbuf_t o = {NULL, 0, 0, 0};
        hr_child_end_t e = {0, 0, 0, 0, 0};
        tick_ctx_t tc = {progress, &jobs[i], i, ctx};
        int got = stop_sig ? -1 : collect(rfd[i], sp[0], &o, &e, progress ? tick : NULL, &tc);
        if (stop_sig) { /* this job and the rest have no result */
            free(o.buf);
            drop_rest(i, n, rfd, results);
            break;
        }
        if (got != 0)
            e = (hr_child_end_t){0, 0, 0, 0, 0};
        if (rfd[i] >= 0) {
            close(rfd[i]);
            if (o.oom) { /* part of the result was dropped: none is kept */
                free(o.buf);
                o.buf = NULL;
                o.len = 0;
            }
            lost |= o.oom;
            if (!o.buf)
                o.buf = calloc(1, 1);
            lost |= !o.buf;
            if (o.buf)
                o.buf[o.len] = 0;
            results[i] = finish_job(&jobs[i], o.buf, o.buf ? o.len : 0, e);
        } else {
            free(o.buf);
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
