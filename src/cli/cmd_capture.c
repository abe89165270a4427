/* heapreplay capture -o FILE [--no-timestamps] [--keep-raw] [--follow-forks] -- CMD...
 *
 * Runs CMD with libheapreplay-capture.so preloaded (docs/CAPTURE.md), then
 * converts the raw log (FILE.raw) into an id-based trace and prints a summary:
 * the program's exit status, events, threads, peak live bytes, repairs, and
 * the library's estimate of its own overhead. Exit status: 0 when the trace
 * was written (whatever the program's status, which is printed), 2 on our
 * errors (usage, library not found, unreadable log, write failure). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "heapreplay/trace.h"
#include "trace/import.h"

#ifndef HR_CAPTURE_LIB_INSTALLED
#define HR_CAPTURE_LIB_INSTALLED "/usr/local/lib/libheapreplay-capture.so"
#endif
#define HR_CAPTURE_LIB_NAME "libheapreplay-capture.so"

typedef struct hr_capture_opts {
    const char *out;
    int timestamps, keep_raw, follow_forks;
    char **cmd;
} hr_capture_opts_t;

static hr_capture_opts_t hr_capture_opts_default(void) {
    hr_capture_opts_t o = {NULL, 1, 0, 0, NULL};
    return o;
}

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* $HEAPREPLAY_CAPTURE_LIB, then next to the binary (uninstalled libtool build
 * keeps it in .libs/), then the installed path. */
static int find_lib(char *out, size_t cap) {
    const char *env = getenv("HEAPREPLAY_CAPTURE_LIB");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return is_file(out) ? 0 : -1;
    }
    char dir[2048];
    snprintf(dir, sizeof dir, "%s", hr_cli_self_exe());
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
        snprintf(out, cap, "%s/.libs/%s", dir, HR_CAPTURE_LIB_NAME);
        if (is_file(out))
            return 0;
        snprintf(out, cap, "%s/%s", dir, HR_CAPTURE_LIB_NAME);
        if (is_file(out))
            return 0;
    }
    snprintf(out, cap, "%s", HR_CAPTURE_LIB_INSTALLED);
    return is_file(out) ? 0 : -1;
}

static int parse(int argc, char **argv, hr_capture_opts_t *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            o->cmd = argv + i + 1;
            return i + 1 < argc ? 0 : hr_cli_usage_error("capture", "expected a command after --");
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            o->out = argv[++i];
        } else if (strcmp(a, "--no-timestamps") == 0) {
            o->timestamps = 0;
        } else if (strcmp(a, "--keep-raw") == 0) {
            o->keep_raw = 1;
        } else if (strcmp(a, "--follow-forks") == 0) {
            o->follow_forks = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("usage: heapreplay capture -o FILE [--no-timestamps] [--keep-raw] "
                   "[--follow-forks] -- CMD [ARGS...]\n"
                   "Runs CMD with the capture library preloaded and writes an id-based trace\n"
                   "(text when FILE ends in .txt/.hrtt). --keep-raw keeps FILE.raw;\n"
                   "--follow-forks lets child processes write FILE.raw.<pid>.\n");
            return 1;
        } else {
            return hr_cli_usage_error("capture", "unexpected argument '%s' (the command goes after --)", a);
        }
    }
    return hr_cli_usage_error("capture", "expected -- CMD...");
}

static void child_exec(const hr_capture_opts_t *o, const char *lib, const char *raw) {
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *pre = malloc(n), pid[32];
    if (!pre)
        _exit(127);
    snprintf(pre, n, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    setenv("LD_PRELOAD", pre, 1);
    setenv("HEAPREPLAY_CAPTURE_FILE", raw, 1);
    setenv("HEAPREPLAY_CAPTURE_PID", pid, 1);
    setenv("HEAPREPLAY_CAPTURE_CHILDREN", o->follow_forks ? "1" : "0", 1);
    if (!o->timestamps)
        setenv("HEAPREPLAY_CAPTURE_NO_TIMESTAMPS", "1", 1);
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    execvp(o->cmd[0], o->cmd);
    fprintf(stderr, "heapreplay capture: cannot run '%s': %s\n", o->cmd[0], strerror(errno));
    _exit(127);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs the command; returns its wait status, or -1. */
static int run(const hr_capture_opts_t *o, const char *lib, const char *raw, double *secs) {
    /* Like system(): ^C goes to the program (which flushes and dies); we live on to convert. */
    void (*old_int)(int) = signal(SIGINT, SIG_IGN);
    void (*old_quit)(int) = signal(SIGQUIT, SIG_IGN);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0)
        child_exec(o, lib, raw);
    int status = -1;
    if (pid > 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    *secs = now_s() - t0;
    signal(SIGINT, old_int);
    signal(SIGQUIT, old_quit);
    return pid > 0 ? status : -1;
}

static void describe_status(int status, char *buf, size_t cap) {
    if (WIFEXITED(status))
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(buf, cap, "ended (status 0x%x)", status);
}

static hr_format_t out_format(const char *path) {
    size_t n = strlen(path);
    if ((n > 4 && strcmp(path + n - 4, ".txt") == 0) || (n > 5 && strcmp(path + n - 5, ".hrtt") == 0))
        return HR_FMT_TEXT;
    return HR_FMT_BINARY;
}

static void summary(const hr_capture_opts_t *o, const hr_trace_t *t, const hr_repair_t *rep,
                    double secs) {
    printf("trace: %s: %zu events (%llu alloc, %llu calloc, %llu realloc, %llu free, "
           "%llu annotations), %u threads, %u ids, peak live %llu bytes\n",
           o->out, t->n_events, (unsigned long long)t->op_counts[HR_OP_ALLOC],
           (unsigned long long)t->op_counts[HR_OP_CALLOC],
           (unsigned long long)t->op_counts[HR_OP_REALLOC],
           (unsigned long long)t->op_counts[HR_OP_FREE],
           (unsigned long long)(t->n_events - hr_trace_mem_ops(t)),
           t->n_threads, t->n_ids, (unsigned long long)t->peak_live);
    hr_repair_print(rep, stdout);
    if (rep->overhead_ns && rep->events_in) {
        double ms = rep->overhead_ns / 1e6;
        printf("overhead: ~%.1f ms in the capture library (%.0f ns/event, %.1f%% of %.3f s run "
               "time; sampled by the library)\n",
               ms, (double)rep->overhead_ns / (double)rep->events_in,
               secs > 0 ? 100.0 * ms / 1e3 / secs : 0.0, secs);
    }
}

int hr_cmd_capture(int argc, char **argv) {
    hr_capture_opts_t o = hr_capture_opts_default();
    int prc = parse(argc, argv, &o);
    if (prc != 0)
        return prc == 1 ? 0 : prc;
    if (!o.out)
        return hr_cli_usage_error("capture", "expected -o FILE");
    char lib[4096], raw[4096 + 8], how[128];
    if (strlen(o.out) > 4000)
        return hr_cli_usage_error("capture", "-o path too long");
    if (find_lib(lib, sizeof lib) != 0)
        return hr_cli_usage_error("capture", "capture library not found (tried %s; set "
                                  "HEAPREPLAY_CAPTURE_LIB)", lib);
    snprintf(raw, sizeof raw, "%s.raw", o.out);
    unlink(raw);
    double secs = 0;
    int status = run(&o, lib, raw, &secs);
    if (status == -1)
        return hr_cli_usage_error("capture", "cannot start '%s': %s", o.cmd[0], strerror(errno));
    describe_status(status, how, sizeof how);
    printf("capture: %s %s after %.3f s\n", o.cmd[0], how, secs);
    if (!is_file(raw))
        return hr_cli_usage_error("capture", "%s: no capture log written (did '%s' start? static "
                                  "and setuid programs ignore LD_PRELOAD)", raw, o.cmd[0]);
    hr_trace_t t;
    hr_repair_t rep;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    int rc = 0;
    if (hr_import_file(raw, HR_IMPORT_CAPTURE, &t, &rep, &err) != 0 ||
        hr_trace_write_file(o.out, out_format(o.out), &t, &err) != 0) {
        fprintf(stderr, "heapreplay capture: %s\n", err.msg);
        rc = 2;
    } else {
        summary(&o, &t, &rep, secs);
    }
    hr_trace_free(&t);
    if (!o.keep_raw && rc == 0)
        unlink(raw);
    return rc;
}
