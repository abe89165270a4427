/* Child processes: every (trace, allocator) replay runs in its own process and
 * sends its result object back as one line of JSON over a pipe. In-house
 * backends replay in a fork of this process (the decoded trace is shared
 * copy-on-write); external allocators replay in a re-executed worker
 * (`heapreplay __worker`) started with LD_PRELOAD set to their library, so two
 * malloc replacements never meet in one process. A crash (signal), a timeout or
 * an exit without a result is reported as that allocator's result; the run
 * goes on. */
#include "replay/child.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/system.h"
#include "replay/sysinfo.h"

/* Builds a result object for a replay that produced none. */
static char *synth_result(const hr_child_job_t *job, const char *status, const char *msg,
                          int sig) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    hr_emit_t em;
    hr_emit_init(&em, f, HR_EMIT_JSON);
    em.compact = 1;
    hr_emit_obj_begin(&em, NULL);
    hr_emit_str(&em, "trace", job->trace_name);
    hr_emit_str(&em, "trace_digest", job->digest);
    hr_emit_str(&em, "allocator", job->spec);
    hr_emit_str(&em, "status", status);
    hr_emit_u64(&em, "runs", 1);
    hr_emit_str(&em, "touch", hr_touch_name(job->opt->touch));
    hr_emit_str(&em, "error", msg);
    if (sig)
        hr_emit_u64(&em, "signal", (uint64_t)sig);
    hr_emit_obj_end(&em);
    fclose(f);
    return buf;
}

/* In the forked child: replay in-house and write the result to fd. */
static void child_inhouse(const hr_child_job_t *job, int fd) {
    FILE *out = fdopen(fd, "w");
    if (!out)
        _exit(3);
    hr_emit_t em;
    hr_emit_init(&em, out, HR_EMIT_JSON);
    em.compact = 1;
    hr_replay_options_t opt = *job->opt;
    hr_replay_one(job->trace, job->trace_name, job->digest, job->be, job->spec, NULL, &opt, &em);
    fputc('\n', out);
    fflush(out);
    _exit(0);
}

/* In the forked child: exec the worker with the allocator preloaded. */
static void child_exec_worker(const hr_child_job_t *job, int fd, const char *lib) {
    char fdbuf[16], timeout[32], budget[32], passes[16];
    snprintf(fdbuf, sizeof fdbuf, "%d", fd);
    snprintf(timeout, sizeof timeout, "%g", job->opt->timeout_s);
    snprintf(budget, sizeof budget, "%llu", (unsigned long long)job->opt->budget);
    snprintf(passes, sizeof passes, "%d", job->opt->passes);
    if (lib[0])
        setenv("LD_PRELOAD", lib, 1);
    else
        unsetenv("LD_PRELOAD");
    setenv("HEAPREPLAY_EXPECT_LIB", lib, 1);
    const char *argv[] = {"heapreplay", "__worker", "--fd", fdbuf, "--spec", job->spec,
                          "--touch", hr_touch_name(job->opt->touch), "--budget", budget,
                          "--passes", passes, "--name", job->trace_name,
                          job->trace_path, NULL};
    execv(job->self_exe, (char *const *)argv);
    dprintf(fd, "{\"status\":\"error\",\"error\":\"cannot run worker %s: %s\"}\n",
            job->self_exe, strerror(errno));
    _exit(4);
}

/* Reads the child's output until EOF or the deadline; returns 1 on timeout. */
static int read_until(int fd, double timeout_s, char **buf, size_t *len) {
    size_t cap = 4096;
    *buf = malloc(cap);
    *len = 0;
    uint64_t deadline = hr_now_ns() + (uint64_t)(timeout_s * 1e9);
    for (;;) {
        uint64_t now = hr_now_ns();
        if (now >= deadline)
            return 1;
        struct pollfd p = {fd, POLLIN, 0};
        int ms = (int)((deadline - now) / 1000000u) + 1;
        int rc = poll(&p, 1, ms);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            continue;
        if (*len + 4096 > cap)
            *buf = realloc(*buf, cap *= 2);
        ssize_t n = read(fd, *buf + *len, cap - *len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        *len += (size_t)n;
    }
    (*buf)[*len] = 0;
    return 0;
}

char *hr_child_run(const hr_child_job_t *job) {
    int ext = (job->be->caps & HR_CAP_EXTERNAL_PROCESS) != 0;
    const char *lib = ext ? hr_external_lib(job->spec) : NULL;
    if (ext && !lib)
        return synth_result(job, "error", "allocator not found at configure time (not built)", 0);
    if (ext && lib[0] && access(lib, R_OK) != 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: cannot read the library to preload (%s)", lib, strerror(errno));
        return synth_result(job, "error", msg, 0);
    }
    int fds[2];
    if (pipe(fds) != 0)
        return synth_result(job, "error", strerror(errno), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return synth_result(job, "error", strerror(errno), 0);
    }
    if (pid == 0) {
        close(fds[0]);
        if (ext)
            child_exec_worker(job, fds[1], lib);
        child_inhouse(job, fds[1]);
    }
    close(fds[1]);
    char *out;
    size_t len;
    int timed_out = read_until(fds[0], job->opt->timeout_s, &out, &len);
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    char msg[160];
    if (timed_out) {
        free(out);
        snprintf(msg, sizeof msg, "no result within %g s (killed)", job->opt->timeout_s);
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
