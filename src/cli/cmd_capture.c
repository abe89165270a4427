/* heapreplay capture [options] [--] CMD [ARGS...]
 *
 * Runs CMD with libheapreplay-capture.so preloaded (docs/CAPTURE.md), then
 * converts the raw log (FILE.raw) into an id-based trace and writes a summary
 * on stderr (or to --summary FILE), never on stdout, so the program's own
 * output stays byte-identical: the program's exit status, events, threads,
 * peak live bytes, repairs, the library's estimate of its own overhead, and
 * with --follow-forks one trace per child process. The trace records the
 * program's own run time (capture_time.h): the captured run's, or with
 * --time-runs N the median of N runs without the library. Exit status: 0 when the
 * trace was written (whatever the program's status, which is printed), 2 on
 * our errors (usage, library not found, unreadable log, write failure). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/capture_time.h"
#include "cli/cli.h"
#include "trace/trace.h"
#include "trace/import.h"

#ifndef HR_CAPTURE_LIB_INSTALLED
#define HR_CAPTURE_LIB_INSTALLED "/usr/local/lib/libheapreplay-capture.so"
#endif
#define HR_CAPTURE_LIB_NAME "libheapreplay-capture.so"
#ifndef HR_BINDIR
#define HR_BINDIR "/usr/local/bin"
#endif
#ifndef HR_LIBDIR
#define HR_LIBDIR "/usr/local/lib"
#endif

typedef struct hr_capture_opts {
    const char *out, *summary;
    int timestamps, keep_raw, follow_forks;
    int time_runs; /* runs without the library for the program time; 0: the captured run's */
    char **cmd;
} hr_capture_opts_t;

static hr_capture_opts_t hr_capture_opts_default(void) {
    hr_capture_opts_t o = {NULL, NULL, 1, 0, 0, 0, NULL};
    return o;
}

static const hr_opt_t capture_opts[] = {
    {'o', "output", "FILE", "the trace to write (required; text when FILE ends in .txt or .hrtt)"},
    {'s', "summary", "FILE", "write the summary there instead of on standard error"},
    {HR_OPT_LONG, "no-timestamps", NULL, "leave timestamps out of the trace"},
    {HR_OPT_LONG + 1, "keep-raw", NULL, "keep the raw capture log FILE.raw (and FILE.raw.PID)"},
    {'f', "follow-forks", NULL, "also record child processes: each child's log becomes its "
                                "own trace, FILE with .PID before the extension"},
    {HR_OPT_LONG + 2, "time-runs", "N", "also run CMD N times without the capture library "
                                        "(output to /dev/null) and record the median of their "
                                        "run times in the trace, not the slowed captured run's"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_capture = {
    .name = "capture", .operands = "[--] CMD [ARGS...]", .opts = capture_opts, .in_order = 1,
    .min_operands = 1, .max_operands = -1,
    .summary = "record a program's allocations into a trace",
    .details = "Runs CMD with the capture library preloaded and converts its log into an\n"
               "id-based trace. The options end at CMD: what follows is CMD's own. The\n"
               "summary goes to standard error (or --summary FILE): CMD's standard output\n"
               "is left untouched. Programs annotate themselves with <heapreplay/annotate.h>\n"
               "(docs/CAPTURE.md).\n"};

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The relative path from the configured bindir to the configured libdir
 * ("../lib", "../lib/x86_64-linux-gnu"), so that an installed tree moved
 * elsewhere still finds its own library. 0 when none can be formed. */
static int rel_libdir(char *out, size_t cap) {
    const char *b = HR_BINDIR, *l = HR_LIBDIR;
    if (b[0] != '/' || l[0] != '/')
        return -1;
    size_t common = 0; /* the longest shared prefix ending at a '/' or the end */
    for (size_t i = 0; b[i] && b[i] == l[i]; i++)
        if (b[i + 1] == '/' || b[i + 1] == 0 || l[i + 1] == 0)
            common = i + 1;
    if ((b[common] && b[common] != '/') || (l[common] && l[common] != '/'))
        return -1;
    out[0] = 0;
    for (const char *p = b + common; *p; p++)
        if (*p == '/' && p[1] && p[1] != '/')
            strncat(out, out[0] ? "/.." : "..", cap - strlen(out) - 1);
    const char *rest = l + common + (l[common] == '/');
    if (*rest)
        snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? "/" : "", rest);
    return out[0] ? 0 : -1;
}

/* $HEAPREPLAY_CAPTURE_LIB, then next to the binary (uninstalled libtool build
 * keeps it in .libs/), then the libdir relative to the binary's own prefix
 * (a relocated install), then the configured path. */
static int find_lib(char *out, size_t cap) {
    const char *env = getenv("HEAPREPLAY_CAPTURE_LIB");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return is_file(out) ? 0 : -1;
    }
    char dir[2048], rel[1024];
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
        if (rel_libdir(rel, sizeof rel) == 0) {
            snprintf(out, cap, "%s/%s/%s", dir, rel, HR_CAPTURE_LIB_NAME);
            if (is_file(out))
                return 0;
        }
    }
    snprintf(out, cap, "%s", HR_CAPTURE_LIB_INSTALLED);
    return is_file(out) ? 0 : -1;
}

static int on_opt(void *ctx, const hr_optarg_t *opt) {
    hr_capture_opts_t *o = ctx;
    switch (opt->key) {
    case 'o': o->out = opt->arg; break;
    case 's': o->summary = opt->arg; break;
    case 'f': o->follow_forks = 1; break;
    case HR_OPT_LONG: o->timestamps = 0; break;
    case HR_OPT_LONG + 2: {
        uint64_t n;
        if (hr_opt_uint(opt, 0, 1000, &n))
            return 2;
        o->time_runs = (int)n;
        break;
    }
    default: o->keep_raw = 1; break;
    }
    return 0;
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

/* Runs the command; returns its wait status, or -1. rt: its run time. */
static int run(const hr_capture_opts_t *o, const char *lib, const char *raw, hr_run_time_t *rt) {
    /* Like system(): ^C goes to the program (which flushes and dies); we live on to convert. */
    void (*old_int)(int) = signal(SIGINT, SIG_IGN);
    void (*old_quit)(int) = signal(SIGQUIT, SIG_IGN);
    uint64_t t0 = hr_run_clock();
    pid_t pid = fork();
    if (pid == 0)
        child_exec(o, lib, raw);
    int ok = pid > 0 && hr_run_wait(pid, t0, rt) == 0;
    signal(SIGINT, old_int);
    signal(SIGQUIT, old_quit);
    return ok ? rt->status : -1;
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

static void summary(FILE *f, const char *out, const hr_trace_t *t, const hr_repair_t *rep,
                    double secs) {
    uint64_t pool_ops = t->op_counts[HR_OP_POOL_ALLOC] + t->op_counts[HR_OP_POOL_FREE] +
                        t->op_counts[HR_OP_POOL_REALLOC];
    fprintf(f, "trace: %s: %zu events (%llu alloc, %llu calloc, %llu realloc, %llu free, "
            "%llu pool ops, %llu annotations), %u threads, %u ids, peak live %llu bytes\n",
            out, t->n_events, (unsigned long long)t->op_counts[HR_OP_ALLOC],
            (unsigned long long)t->op_counts[HR_OP_CALLOC],
            (unsigned long long)t->op_counts[HR_OP_REALLOC],
            (unsigned long long)t->op_counts[HR_OP_FREE], (unsigned long long)pool_ops,
            (unsigned long long)(t->n_events - hr_trace_mem_ops(t)),
            t->n_threads, t->n_ids, (unsigned long long)t->peak_live);
    hr_pool_stat_t *ps;
    int np = hr_trace_pools(t, &ps);
    for (int i = 0; i < np; i++)
        fprintf(f, "%s%s (%llu allocs, %llu reallocs, peak live %llu bytes)%s", i ? ", " : "pools: ",
                t->strings[ps[i].name], (unsigned long long)ps[i].allocs,
                (unsigned long long)ps[i].reallocs, (unsigned long long)ps[i].peak_live,
                i + 1 == np ? "\n" : "");
    free(ps);
    hr_repair_print(rep, f);
    if (rep->overhead_ns && rep->events_in && secs > 0) {
        double ms = rep->overhead_ns / 1e6;
        fprintf(f, "overhead: ~%.1f ms in the capture library (%.0f ns/event, %.1f%% of %.3f s run "
                "time; sampled by the library)\n",
                ms, (double)rep->overhead_ns / (double)rep->events_in,
                100.0 * ms / 1e3 / secs, secs);
    }
}

/* Imports one raw log and writes its trace (with the program time `prog`
 * when not NULL); prints the summary. 0 or 2. */
static int convert_log(const char *raw, const char *out, FILE *sum, double secs,
                       const hr_program_time_t *prog) {
    hr_trace_t t;
    hr_repair_t rep;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    int rc = 0;
    int irc = hr_import_file(raw, HR_IMPORT_CAPTURE, &t, &rep, &err);
    if (irc == 0 && prog)
        t.program = *prog;
    if (irc != 0 || hr_trace_write_file(out, out_format(out), &t, &err) != 0) {
        fprintf(stderr, "heapreplay capture: %s\n", err.msg);
        rc = 2;
    } else {
        summary(sum, out, &t, &rep, secs);
    }
    hr_trace_free(&t);
    return rc;
}

/* OUT with ".PID" before its extension: game.hrt -> game.1234.hrt. */
static void child_name(const char *out, const char *pid, char *buf, size_t cap) {
    const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : out))
        snprintf(buf, cap, "%s.%s", out, pid);
    else
        snprintf(buf, cap, "%.*s.%s%s", (int)(dot - out), out, pid, dot);
}

static int by_pid(const void *a, const void *b) {
    long x = atol(*(char *const *)a), y = atol(*(char *const *)b);
    return (x > y) - (x < y);
}

/* The PIDs of the child logs RAW.PID that exist, ascending; the caller frees
 * each and the array. Returns their count (0 when none or on error). */
static size_t child_logs(const char *raw, char ***out) {
    char dir[PATH_MAX];
    const char *slash = strrchr(raw, '/');
    const char *base = slash ? slash + 1 : raw;
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", slash == raw ? 1 : (int)(slash - raw), raw);
    else
        snprintf(dir, sizeof dir, ".");
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t blen = strlen(base), n = 0, cap = 0;
    char **pids = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        const char *p = e->d_name + blen + 1;
        if (strncmp(e->d_name, base, blen) != 0 || e->d_name[blen] != '.' || !*p ||
            strspn(p, "0123456789") != strlen(p))
            continue;
        if (n == cap) {
            char **np = realloc(pids, (cap = cap ? 2 * cap : 8) * sizeof *pids);
            if (!np)
                break;
            pids = np;
        }
        if ((pids[n] = strdup(p)))
            n++;
    }
    closedir(d);
    if (n)
        qsort(pids, n, sizeof *pids, by_pid);
    *out = pids;
    return n;
}

/* --follow-forks: every child's RAW.PID becomes OUT.PID.ext, named in the
 * summary; a log that cannot be converted is reported and kept. Returns
 * 0, or 2 when some log failed. */
static int convert_children(const hr_capture_opts_t *o, const char *raw, FILE *sum) {
    char **pids;
    size_t n = child_logs(raw, &pids);
    int rc = 0;
    if (!n)
        fprintf(sum, "child processes: none recorded\n");
    for (size_t i = 0; i < n; i++) {
        char craw[PATH_MAX + 32], cout[PATH_MAX + 32];
        snprintf(craw, sizeof craw, "%s.%s", raw, pids[i]);
        child_name(o->out, pids[i], cout, sizeof cout);
        fprintf(sum, "child process %s:\n", pids[i]);
        if (convert_log(craw, cout, sum, 0, NULL) != 0)
            rc = 2;
        else if (!o->keep_raw)
            unlink(craw);
        free(pids[i]);
    }
    free(pids);
    return rc;
}

/* Removes RAW.PID logs left by an earlier capture to the same FILE, so that
 * only this run's children are converted. */
static void remove_child_logs(const char *raw) {
    char **pids;
    size_t n = child_logs(raw, &pids);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s.%s", raw, pids[i]);
        unlink(path);
        free(pids[i]);
    }
    free(pids);
}

/* The trace's program time: the captured run's own, or (--time-runs N) the
 * median of N runs without the library. 0, or 2 when they cannot run. */
static int program_time(const hr_capture_opts_t *o, const hr_run_time_t *captured, off_t in_off,
                        FILE *sum, hr_program_time_t *prog) {
    if (o->time_runs == 0) {
        hr_program_from_runs(captured, 1, 1, prog);
        return 0;
    }
    if (hr_time_runs(o->cmd, o->time_runs, in_off, captured->status, prog, sum) != 0)
        return hr_cli_usage_error("capture", "--time-runs: cannot run '%s': %s", o->cmd[0],
                                  strerror(errno));
    return 0;
}

int hr_cmd_capture(int argc, char **argv) {
    hr_capture_opts_t o = hr_capture_opts_default();
    int first, prc = hr_opts_parse(&hr_spec_capture, argc, argv, on_opt, &o, &first);
    if (prc)
        return prc == HR_OPTS_HELP ? 0 : prc;
    o.cmd = argv + first;
    if (!o.out)
        return hr_cli_usage_error("capture", "expected -o FILE (see 'heapreplay capture --help')");
    char lib[4096], raw[4096 + 8], how[128];
    if (strlen(o.out) > 4000)
        return hr_cli_usage_error("capture", "-o path too long");
    if (o.time_runs && !hr_stdin_rerunnable())
        return hr_cli_usage_error("capture", "--time-runs re-runs '%s', but its standard input is "
                                  "a pipe, which cannot be read again (redirect a file: < FILE)",
                                  o.cmd[0]);
    if (find_lib(lib, sizeof lib) != 0)
        return hr_cli_usage_error("capture", "capture library not found (tried %s; set "
                                  "HEAPREPLAY_CAPTURE_LIB)", lib);
    FILE *sum = o.summary ? fopen(o.summary, "w") : stderr;
    if (!sum)
        return hr_cli_usage_error("capture", "%s: cannot write: %s", o.summary, strerror(errno));
    snprintf(raw, sizeof raw, "%s.raw", o.out);
    unlink(raw);
    if (o.follow_forks)
        remove_child_logs(raw);
    hr_run_time_t rt = {0, 0, 0, -1};
    hr_program_time_t prog;
    off_t in_off = hr_stdin_offset();
    int status = run(&o, lib, raw, &rt), rc = 0;
    double secs = (double)rt.wall_ns / 1e9;
    if (status == -1) {
        rc = hr_cli_usage_error("capture", "cannot start '%s': %s", o.cmd[0], strerror(errno));
    } else {
        describe_status(status, how, sizeof how);
        fprintf(sum, "capture: %s %s after %.3f s (CPU %.3f s, max RSS %.1f MiB)\n", o.cmd[0],
                how, secs, (double)rt.cpu_ns / 1e9, (double)rt.max_rss / 1048576.0);
        if (!is_file(raw))
            rc = hr_cli_usage_error("capture", "%s: no capture log written (did '%s' start? static "
                                    "and setuid programs ignore LD_PRELOAD)", raw, o.cmd[0]);
        else if ((rc = program_time(&o, &rt, in_off, sum, &prog)) == 0 &&
                 (rc = convert_log(raw, o.out, sum, secs, &prog)) == 0 && !o.keep_raw)
            unlink(raw);
        if (o.follow_forks && convert_children(&o, raw, sum) != 0)
            rc = 2;
    }
    if (o.summary && fclose(sum) != 0 && rc == 0)
        rc = hr_cli_usage_error("capture", "%s: write failed", o.summary);
    return rc;
}
