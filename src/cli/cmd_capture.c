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
 * our errors (usage, library not found, unreadable log, write failure, a
 * launcher's trace: check_launcher), 128 + N when interrupted by signal N
 * (run(), docs/CAPTURE.md "Interrupting a capture"). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/capture_run.h"
#include "cli/capture_time.h"
#include "cli/cli.h"
#include "cli/frames_by.h"
#include "trace/trace.h"
#include "trace/import.h"
#include "trace/stacks.h"
#include "trace/symbols.h"

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

#define HR_STACKS_DEFAULT 16 /* --stacks without a depth */

static hr_capture_opts_t hr_capture_opts_default(void) {
    hr_capture_opts_t o = {NULL, NULL, 1, 0, 0, 0, "auto", NULL, 0};
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
    {HR_OPT_LONG + 3, "frames", "auto|none|NAME[,NAME...]",
     "mark a frame each time the program returns from a present function: auto (default) "
     "watches glXSwapBuffers, eglSwapBuffers, SDL_GL_SwapWindow, SDL_RenderPresent, "
     "vkQueuePresentKHR and the others of docs/CAPTURE.md, NAME,... only those, none no "
     "function; the program's own hr_frame() marks win"},
    {HR_OPT_LONG + 4, "stacks", "[DEPTH]",
     "record the call stack of each allocation (not of frees), up to DEPTH frames (1..128, "
     "default 16), with the module map: the trace says where each block was allocated "
     "(function, file:line: symbols are resolved when the trace is written, docs/CAPTURE.md)"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_capture = {
    .name = "capture", .operands = "[--] CMD [ARGS...]", .opts = capture_opts, .in_order = 1,
    .min_operands = 1, .max_operands = -1,
    .summary = "record a program's allocations into a trace",
    .details = "Runs CMD with the capture library preloaded and converts its log into an\n"
               "id-based trace. The options end at CMD: what follows is CMD's own. The\n"
               "summary goes to standard error (or --summary FILE): CMD's standard output\n"
               "is left untouched. Programs annotate themselves with <heapreplay/annotate.h>\n"
               "(docs/CAPTURE.md). CMD runs in a process group of its own; SIGTERM, SIGINT,\n"
               "SIGHUP and SIGQUIT sent to capture are forwarded there, what was logged is\n"
               "converted and capture exits 128 + the signal's number. A CMD that forked\n"
               "children which allocated more than it did (a launcher such as sh -c 'a; b')\n"
               "fails with exit 2 unless --follow-forks. Without annotations, frames are\n"
               "marked where the program returns from a present function (--frames); the\n"
               "summary and 'heapreplay info' say how many each function found.\n"};

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
    case HR_OPT_LONG + 3:
        o->frames = opt->arg;
        return hr_frames_check_names(opt->arg);
    case HR_OPT_LONG + 4: {
        uint64_t n = HR_STACKS_DEFAULT;
        if (opt->arg && hr_opt_uint(opt, 1, 128, &n))
            return 2;
#ifndef HAVE_LIBUNWIND
        return hr_cli_usage_error("capture", "--stacks: this build has no libunwind "
                                  "(install libunwind-dev and configure again)");
#endif
        o->stacks = (int)n;
        break;
    }
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

/* --time-runs N: the measured overhead, the captured run's CPU time less the
 * median of the N runs without the library, with those runs' spread: the
 * farthest one of them fell from their median (`noise`; none for one run).
 * A difference within it is not a measurement of the library; an estimate
 * within it of the difference agrees as well as this measurement can say. */
static void measured(FILE *f, double est, double cpu, const hr_program_time_t *prog) {
    double plain = (double)prog->cpu_ns / 1e9, lo = (double)prog->cpu_min_ns / 1e9,
           hi = (double)prog->cpu_max_ns / 1e9, diff = cpu - plain;
    double noise = plain - lo > hi - plain ? plain - lo : hi - plain;
    fprintf(f, "overhead measured: CPU %.3f s with the library, %.3f s without (median of %u "
            "run%s, min %.3f, max %.3f), %+.0f%% (%+.1f ms)", cpu, plain, prog->runs,
            prog->runs == 1 ? "" : "s", lo, hi, 100.0 * diff / plain, diff * 1e3);
    if (prog->runs < 2)
        fprintf(f, "; one run without: its noise is unknown");
    else if (fabs(diff) <= noise)
        fprintf(f, "; within the runs' spread (+-%.1f ms): too small to measure this way, "
                "the library's ~%.1f ms is the figure", noise * 1e3, est * 1e3);
    else if (diff <= 0)
        fprintf(f, "; the captured run was the faster: the runs scatter more than the library "
                "costs, the library's ~%.1f ms is the figure", est * 1e3);
    else if (fabs(est - diff) <= noise)
        fprintf(f, "; the library's ~%.1f ms is within the runs' spread (+-%.1f ms) of it",
                est * 1e3, noise * 1e3);
    else
        fprintf(f, "; the library's ~%.1f ms is %.2fx it (runs' spread +-%.1f ms)", est * 1e3,
                est / diff, noise * 1e3);
    fputc('\n', f);
}

/* The library's overhead (docs/CAPTURE.md "Overhead"): its estimate of its
 * own time (END record: the hook calls x the mean own time of the timed
 * ones, plus the CPU time of its flushes, start-up and exit), set against
 * the captured run's CPU time: the program alone took about cpu - estimate,
 * so the capture made it estimate / (cpu - estimate) more expensive. With
 * --time-runs the program also ran without the library: measured() prints
 * that difference beside it. rt: the captured run (NULL: a child process,
 * whose run is not timed on its own). */
static void overhead(FILE *f, const hr_repair_t *rep, const hr_run_time_t *rt,
                     const hr_program_time_t *prog) {
    if (!rep->overhead_ns || !rep->events_in || !rt || !rt->cpu_ns)
        return;
    double est = (double)rep->overhead_ns / 1e9, cpu = (double)rt->cpu_ns / 1e9;
    fprintf(f, "overhead: ~%.1f ms in the capture library (%.0f ns/event; timed by the "
            "library: its hooks, flushes, start-up and exit)", est * 1e3,
            (double)rep->overhead_ns / (double)rep->events_in);
    if (est < cpu)
        fprintf(f, ": CPU %.3f s with it, ~%.3f s without, +%.0f%%", cpu, cpu - est,
                100.0 * est / (cpu - est));
    fputc('\n', f);
    if (prog && prog->runs && !(prog->flags & HR_PROGF_CAPTURED) && prog->cpu_ns)
        measured(f, est, cpu, prog);
}

/* t: the trace, or what hr_import_capture_write leaves of it (its counts and
 * annotations; the event count is rep->events_out either way). */
static void summary(FILE *f, const char *out, const hr_trace_t *t, const hr_repair_t *rep,
                    const hr_run_time_t *rt, const hr_program_time_t *prog) {
    uint64_t pool_ops = t->op_counts[HR_OP_POOL_ALLOC] + t->op_counts[HR_OP_POOL_FREE] +
                        t->op_counts[HR_OP_POOL_REALLOC];
    fprintf(f, "trace: %s: %zu events (%llu alloc, %llu calloc, %llu realloc, %llu free, "
            "%llu pool ops, %llu annotations), %u threads, %u ids, peak live %llu bytes\n",
            out, (size_t)rep->events_out, (unsigned long long)t->op_counts[HR_OP_ALLOC],
            (unsigned long long)t->op_counts[HR_OP_CALLOC],
            (unsigned long long)t->op_counts[HR_OP_REALLOC],
            (unsigned long long)t->op_counts[HR_OP_FREE], (unsigned long long)pool_ops,
            (unsigned long long)(rep->events_out - hr_trace_mem_ops(t)),
            t->n_threads, t->n_ids, (unsigned long long)t->peak_live);
    hr_pool_stat_t *ps;
    int np = hr_trace_pools(t, &ps);
    for (int i = 0; i < np; i++)
        fprintf(f, "%s%s (%llu allocs, %llu reallocs, peak live %llu bytes)%s", i ? ", " : "pools: ",
                t->strings[ps[i].name], (unsigned long long)ps[i].allocs,
                (unsigned long long)ps[i].reallocs, (unsigned long long)ps[i].peak_live,
                i + 1 == np ? "\n" : "");
    free(ps);
    hr_frames_by_summary(f, t);
    hr_repair_print(rep, f);
    overhead(f, rep, rt, prog);
}

/* Imports one raw log and writes its trace (with the program time `prog`
 * when not NULL); prints the summary; *events (when not NULL): the records
 * the log held. 0 or 2. */
static int convert_log(const char *raw, const char *out, FILE *sum, const hr_run_time_t *rt,
                       const hr_program_time_t *prog, uint64_t *events) {
    hr_trace_t t;
    hr_repair_t rep;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    int rc = 0;
    hr_symbolize_opts_t so = hr_symbolize_default();
    so.notes = sum;
    /* A binary trace is written as the log is read (memory independent of
     * the events); a text trace, or one with stacks (their sites precede
     * the events), is built in memory first. */
    int irc = out_format(out) == HR_FMT_BINARY
                  ? hr_import_capture_write(raw, out, prog, &t, &rep, &err) : 1;
    if (irc == 1) {
        irc = hr_import_file(raw, HR_IMPORT_CAPTURE, &t, &rep, &err);
        if (irc == 0 && prog)
            t.program = *prog;
        if (irc == 0 && t.stacks)
            irc = hr_stacks_symbolize(&t, &so, &err);
        if (irc == 0 && hr_trace_write_file(out, out_format(out), &t, &err) != 0)
            irc = -1;
    }
    if (irc != 0) {
        fprintf(stderr, "heapreplay capture: %s\n", err.msg);
        rc = 2;
    } else {
        summary(sum, out, &t, &rep, rt, prog);
        if (t.stacks)
            fprintf(sum, "stacks: %u unique stacks of %u unique frames from %u modules; symbols: "
                    "%u frames named, %u left as module+0xOFF\n", t.stacks->n_stacks,
                    t.stacks->n_frames, t.stacks->n_modules, so.frames_named,
                    so.frames_unnamed);
        if (events)
            *events = rep.events_in;
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

/* The PIDs of the child files RAW.PID<suffix> that exist (suffix "": the
 * logs of --follow-forks; ".events": the counts of children not followed),
 * ascending; the caller frees each and the array. Returns their count (0
 * when none or on error). */
static size_t child_logs(const char *raw, const char *suffix, char ***out) {
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
        size_t digits = strncmp(e->d_name, base, blen) == 0 && e->d_name[blen] == '.'
                            ? strspn(p, "0123456789") : 0;
        if (!digits || strcmp(p + digits, suffix) != 0)
            continue;
        if (n == cap) {
            char **np = realloc(pids, (cap = cap ? 2 * cap : 8) * sizeof *pids);
            if (!np)
                break;
            pids = np;
        }
        if ((pids[n] = strndup(p, digits)))
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
    size_t n = child_logs(raw, "", &pids);
    int rc = 0;
    if (!n)
        fprintf(sum, "child processes: none recorded\n");
    for (size_t i = 0; i < n; i++) {
        char craw[PATH_MAX + 32], cout[PATH_MAX + 32];
        snprintf(craw, sizeof craw, "%s.%s", raw, pids[i]);
        child_name(o->out, pids[i], cout, sizeof cout);
        fprintf(sum, "child process %s:\n", pids[i]);
        if (convert_log(craw, cout, sum, NULL, NULL, NULL) != 0)
            rc = 2;
        else if (!o->keep_raw)
            unlink(craw);
        free(pids[i]);
    }
    free(pids);
    return rc;
}

/* Removes the RAW.PID<suffix> files (child_logs) left by an earlier capture
 * to the same FILE, so that only this run's children are read. */
static void remove_child_logs(const char *raw, const char *suffix) {
    char **pids;
    size_t n = child_logs(raw, suffix, &pids);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX + 48];
        snprintf(path, sizeof path, "%s.%s%s", raw, pids[i], suffix);
        unlink(path);
        free(pids[i]);
    }
    free(pids);
}

/* Without --follow-forks the program's child processes (and the programs
 * they exec) record nothing but count their allocation-family calls in
 * RAW.PID.events (one line per image, src/capture/log.c). When they made more
 * calls than the traced process recorded events, the trace is a launcher's
 * (a shell, a driver that ran the real program in a child): says so, with
 * the remedy. Removes the count files. 0, or 2 for a launcher's trace. */
static int check_launcher(const hr_capture_opts_t *o, const char *raw, uint64_t own, FILE *sum) {
    char **pids;
    size_t n = child_logs(raw, ".events", &pids);
    unsigned long long calls = 0;
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX + 48];
        snprintf(path, sizeof path, "%s.%s.events", raw, pids[i]);
        FILE *f = fopen(path, "r");
        for (unsigned long long v; f && fscanf(f, "%llu", &v) == 1;)
            calls += v;
        if (f)
            fclose(f);
        unlink(path);
        free(pids[i]);
    }
    free(pids);
    if (!n)
        return 0;
    fprintf(sum, "child processes: %zu, not recorded (%llu allocation calls; --follow-forks "
            "records each in a trace of its own)\n", n, calls);
    if (calls <= own)
        return 0;
    return hr_cli_usage_error("capture", "%s: '%s' itself made %llu allocation events, but the "
                              "%zu child process%s it started made %llu, which are not in the "
                              "trace: it looks like a launcher of the program that did the work; "
                              "capture again with --follow-forks to record each child process in "
                              "a trace of its own", o->out, o->cmd[0], (unsigned long long)own,
                              n, n == 1 ? "" : "es", calls);
}

/* The trace's program time: the captured run's own, or (--time-runs N) the
 * median of N runs without the library. 0, or 2 when they cannot run. */
static int program_time(const hr_capture_opts_t *o, const hr_run_time_t *captured, off_t in_off,
                        FILE *sum, hr_program_time_t *prog) {
    if (o->time_runs == 0 || hr_capture_signal()) { /* an interrupted run is not re-run */
        hr_program_from_runs(captured, 1, 1, prog);
        return 0;
    }
    if (hr_time_runs(o->cmd, o->time_runs, in_off, captured->status, prog, sum) != 0)
        return hr_cli_usage_error("capture", "--time-runs: cannot run '%s': %s", o->cmd[0],
                                  strerror(errno));
    return 0;
}

/* FILE made absolute (against the current directory) into out: the
 * library gets it through the environment, and the program may change
 * directory before it starts logging (a wrapper's `cd dir && exec prog`).
 * -1 when it does not fit. */
static int absolute(const char *path, char *out, size_t cap) {
    char cwd[PATH_MAX];
    if (path[0] == '/')
        return snprintf(out, cap, "%s", path) < (int)cap ? 0 : -1;
    if (!getcwd(cwd, sizeof cwd))
        return -1;
    return snprintf(out, cap, "%s/%s", cwd, path) < (int)cap ? 0 : -1;
}

/* After the run: the program time, the trace, the child traces or the
 * launcher check. Returns capture's exit status. */
static int after_run(const hr_capture_opts_t *o, const char *raw, const hr_run_time_t *rt,
                     off_t in_off, FILE *sum) {
    char how[128];
    double secs = (double)rt->wall_ns / 1e9;
    hr_program_time_t prog;
    uint64_t own = 0;
    int rc = 0;
    describe_status(rt->status, how, sizeof how);
    fprintf(sum, "capture: %s %s after %.3f s (CPU %.3f s, max RSS %.1f MiB)\n", o->cmd[0], how,
            secs, (double)rt->cpu_ns / 1e9, (double)rt->max_rss / 1048576.0);
    int sig = hr_capture_signal();
    if (sig)
        fprintf(sum, "capture: interrupted by signal %d (%s), forwarded to the program; what it "
                "logged is converted\n", sig, strsignal(sig));
    if (!is_file(raw))
        rc = hr_cli_usage_error("capture", "%s: no capture log written (did '%s' start? static "
                                "and setuid programs ignore LD_PRELOAD)", raw, o->cmd[0]);
    else if ((rc = program_time(o, rt, in_off, sum, &prog)) == 0 &&
             (rc = convert_log(raw, o->out, sum, rt, &prog, &own)) == 0 && !o->keep_raw)
        unlink(raw);
    if (o->follow_forks && convert_children(o, raw, sum) != 0)
        rc = 2;
    if (!o->follow_forks) {
        int lrc = check_launcher(o, raw, own, sum);
        rc = rc ? rc : lrc;
    }
    /* interrupted: capture's own signal, or ^C at the terminal (which reaches
     * the program's process group only) */
    if (rc == 0 && hr_capture_signal())
        rc = 128 + hr_capture_signal();
    else if (rc == 0 && WIFSIGNALED(rt->status) && WTERMSIG(rt->status) == SIGINT)
        rc = 128 + SIGINT;
    return rc;
}

/* 1 (errno set) when the directory of the absolute path `out` cannot be
 * entered: the library would find nowhere to write its log, and the
 * program's run would be lost. */
static int out_dir_missing(const char *out) {
    char dir[PATH_MAX + 16];
    struct stat st;
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    slash[slash == dir] = 0; /* "/x" -> "/" */
    if (stat(dir, &st) != 0)
        return 1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return 1;
    }
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
    char lib[PATH_MAX], found[4096], raw[PATH_MAX + 8];
    if (strlen(o.out) > 4000 || absolute(o.out, raw, PATH_MAX) != 0)
        return hr_cli_usage_error("capture", "-o path too long");
    if (out_dir_missing(raw))
        return hr_cli_usage_error("capture", "-o %s: the directory does not exist (%s)", o.out,
                                  strerror(errno));
    strcat(raw, ".raw");
    if (o.time_runs && !hr_stdin_rerunnable())
        return hr_cli_usage_error("capture", "--time-runs re-runs '%s', but its standard input is "
                                  "a pipe, which cannot be read again (redirect a file: < FILE)",
                                  o.cmd[0]);
    if (find_lib(found, sizeof found) != 0 || !realpath(found, lib))
        return hr_cli_usage_error("capture", "capture library not found (tried %s; set "
                                  "HEAPREPLAY_CAPTURE_LIB)", found);
    FILE *sum = o.summary ? fopen(o.summary, "w") : stderr;
    if (!sum)
        return hr_cli_usage_error("capture", "%s: cannot write: %s", o.summary, strerror(errno));
    unlink(raw);
    remove_child_logs(raw, "");
    remove_child_logs(raw, ".events");
    hr_run_time_t rt = {0, 0, 0, -1};
    off_t in_off = hr_stdin_offset();
    int rc;
    if (hr_capture_run(&o, lib, raw, &rt) == -1)
        rc = hr_cli_usage_error("capture", "cannot start '%s': %s", o.cmd[0], strerror(errno));
    else
        rc = after_run(&o, raw, &rt, in_off, sum);
    if (o.summary && fclose(sum) != 0 && rc == 0)
        rc = hr_cli_usage_error("capture", "%s: write failed", o.summary);
    return rc;
}
