/* heapreplay replay [options] TRACE|DIR...: every (trace, allocator, repeat)
 * in its own child process; results aggregated (median timings) into one
 * report, written as JSON with -o and rendered on stdout. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/compose.h"
#include "backends/be_system.h"
#include "cli/cli.h"
#include "cli/replay_pools.h"
#include "report/builder.h"
#include "heapreplay/routed.h"
#include "replay/child.h"
#include "report/report.h"
#include "trace/shared.h"
#include "replay/counter.h"
#include "base/json.h"

typedef struct replay_args {
    hr_replay_options_t opt;
    char *allocators; /* every -a joined by commas; NULL: all */
    const char *output;
    hr_emit_format_t format;
    int quiet, verbose;
    hr_pool_routes_t pools;
    char **paths;
    int npaths, cap_paths;
} replay_args_t;

/* "none" -> 0; "timestamps" -> 1; "timestamps:F" -> F (> 0). */
static int parse_pace(const char *v, double *out) {
    if (!strcmp(v, "none")) {
        *out = 0;
        return 0;
    }
    if (strncmp(v, "timestamps", 10) != 0 || (v[10] && v[10] != ':'))
        return -1;
    if (!v[10]) {
        *out = 1;
        return 0;
    }
    char *end;
    *out = strtod(v + 11, &end);
    return *end || v[11] == 0 || !(*out > 0 && *out <= 1e6) ? -1 : 0;
}

enum {
    O_TOUCH = HR_OPT_LONG, O_TIMEOUT, O_BUDGET, O_HEAPCFG, O_WARM, O_STALL, O_THREADS, O_PACE,
    O_COUNT, O_VERIFY, O_POOL
};

static const hr_opt_t replay_opts[] = {
    {'a', "allocators", "LIST", "allocator specs separated by commas, or 'all' (default: "
     "all built); may be repeated. A comma splits only before an "
     "allocator name, so a spec keeps its own options:\n"
     "-a glibc,sizeclass:max=32K,refill=1 -a bank:round=16"},
    {'r', "repeat", "N", "samples per trace x allocator, 1..1000 (default 3), each "
     "made of fresh processes, interleaved across allocators; "
     "figures are medians, with min/max and spread"},
    {'o', "output", "FILE", "write the report as JSON (on SIGINT/SIGTERM: the rows "
     "finished so far, marked interrupted)"},
    {'f', "format", "FMT", "standard output: text (default), json, csv, md"},
    {O_TOUCH, "touch", "POLICY", "none | first (default) | all"},
    {O_TIMEOUT, "timeout", "SECONDS", "per replay process (default 600)"},
    {O_BUDGET, "budget", "BYTES", "report the first op whose footprint exceeds it (64M)"},
    {O_HEAPCFG, "heap-config", "FILE", "heap table for the routed allocator"},
    {O_WARM, "warm-time", "SECONDS", "warm laps per sample run this long (default 0.5; 0: one "
     "warm lap); the cold lap is always the first"},
    {O_STALL, "stall-us", "US", "ops slower than this are checked for a context switch "
     "and kept out of latency and frames (default 20)"},
    {O_THREADS, "threads", "MODE", "recorded: one OS thread per recorded thread, blocks "
     "shared across threads wait for each other (default "
     "when the trace has several threads); serial: every "
     "event on one thread in trace order; auto. Timed laps "
     "only: memory figures always come from trace order"},
    {O_PACE, "pace", "timestamps[:F]", "threaded laps also wait for each event's recorded time "
     "(times F, default 1); none (default)"},
    {O_COUNT, "count", "MODE", "also count the instructions of the allocator calls (one "
     "lap per allocator, deterministic): perf (hardware "
     "counter), callgrind (valgrind, ~50x slower), auto, "
     "none (default)"},
    {O_VERIFY, "verify", NULL, "also check every pointer each allocator returns "
     "(alignment, overlap, contents); a violation makes the "
     "row invalid"},
    {O_POOL, "pool", "NAME=ALLOC", "replay the engine's pool NAME (hr_alloc_named in the "
     "program) on ALLOC: stack, marker, block, bank or sizeclass (with its options), in "
     "front of each -a allocator; or malloc. Default: every pool is replayed as plain "
     "malloc calls of the row's allocator. Up to 3, repeated"},
    {'q', "quiet", NULL, "no progress on standard error"},
    {'v', "verbose", NULL, "progress lines even when standard error is not a terminal"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_replay = {
    .name = "replay", .operands = "TRACE|DIR...", .opts = replay_opts, .min_operands = 1,
    .max_operands = -1, .summary = "replay traces against allocators and report",
    .details = "A DIR stands for every *.hrt and *.hrtt file in it. Every (trace, allocator,\n"
               "sample) runs in its own fresh process; the processes end with heapreplay.\n"
               "On a terminal, progress is one line, [k/N] processes and an ETA; elsewhere\n"
               "nothing unless -v. SIGINT or SIGTERM stops the replay: the rows finished so\n"
               "far are reported (and written to -o) marked interrupted, exit 130 or 143.\n"
               "'heapreplay list' names the allocators and the compositions (PART+PART).\n"};

static int on_opt(void *ctx, const hr_optarg_t *o) {
    replay_args_t *a = ctx;
    uint64_t n;
    switch (o->key) {
    case 'a': {
        size_t old = a->allocators ? strlen(a->allocators) + 1 : 0;
        char *s = realloc(a->allocators, old + strlen(o->arg) + 1);
        if (!s)
            return hr_cli_usage_error("replay", "out of memory");
        if (old)
            s[old - 1] = ',';
        strcpy(s + old, o->arg);
        a->allocators = s;
        return 0;
    }
    case 'r':
        if (hr_opt_uint(o, 1, 1000, &n) != 0)
            return 2;
        a->opt.repeat = (int)n;
        return 0;
    case 'o': a->output = o->arg; return 0;
    case 'f':
        return hr_emit_format_parse(o->arg, &a->format) != 0 ? hr_opt_bad(o, "text|json|csv|md") : 0;
    case O_TOUCH:
        return hr_touch_parse(o->arg, &a->opt.touch) != 0 ? hr_opt_bad(o, "none|first|all") : 0;
    case O_TIMEOUT: return hr_opt_double(o, 0, 1e7, 1, &a->opt.timeout_s);
    case O_BUDGET:
        if (hr_opt_bytes(o, &n) != 0)
            return 2;
        a->opt.budget = n;
        return 0;
    case O_HEAPCFG: a->opt.heap_config = o->arg; return 0;
    case O_WARM: return hr_opt_double(o, 0, 3600, 0, &a->opt.warm_time_s);
    case O_STALL: return hr_opt_double(o, 0, 1e9, 1, &a->opt.stall_us);
    case O_THREADS: {
        hr_threads_mode_t m;
        if (hr_threads_mode_parse(o->arg, &m) != 0)
            return hr_opt_bad(o, "recorded|serial|auto");
        a->opt.threads = (int)m;
        return 0;
    }
    case O_PACE:
        return parse_pace(o->arg, &a->opt.pace) != 0 ? hr_opt_bad(o, "none|timestamps[:FACTOR > 0]")
                                                     : 0;
    case O_COUNT: {
        hr_count_mode_t want, got;
        hr_error_t err = {{0}};
        if (hr_count_mode_parse(o->arg, &want) != 0)
            return hr_opt_bad(o, "none|auto|perf|callgrind");
        if (hr_count_resolve(want, &got, &err) != 0)
            return hr_cli_usage_error("replay", "%s", err.msg);
        a->opt.count = (int)got;
        return 0;
    }
    case O_VERIFY: a->opt.verify = 1; return 0;
    case O_POOL: return hr_pool_route_add(&a->pools, o);
    case 'q': a->quiet = 1; return 0;
    default: a->verbose = 1; return 0;
    }
}

static int add_path(replay_args_t *a, const char *p) {
    if (a->npaths == a->cap_paths) {
        a->cap_paths = a->cap_paths ? a->cap_paths * 2 : 16;
        a->paths = realloc(a->paths, (size_t)a->cap_paths * sizeof *a->paths);
    }
    a->paths[a->npaths++] = strdup(p);
    return 0;
}

static int cmp_str(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static int add_trace_arg(replay_args_t *a, const char *arg) {
    struct stat st;
    if (stat(arg, &st) != 0)
        return hr_cli_usage_error("replay", "%s: no such file or directory", arg);
    if (!S_ISDIR(st.st_mode))
        return add_path(a, arg);
    DIR *d = opendir(arg);
    if (!d)
        return hr_cli_usage_error("replay", "%s: cannot read directory", arg);
    int first = a->npaths;
    size_t alen = strlen(arg);
    while (alen > 1 && arg[alen - 1] == '/')
        alen--;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if ((n > 4 && strcmp(e->d_name + n - 4, ".hrt") == 0) ||
            (n > 5 && strcmp(e->d_name + n - 5, ".hrtt") == 0)) {
            char path[4096];
            snprintf(path, sizeof path, "%.*s/%s", (int)alen, arg, e->d_name);
            add_path(a, path);
        }
    }
    closedir(d);
    qsort(a->paths + first, (size_t)(a->npaths - first), sizeof *a->paths, cmp_str);
    if (a->npaths == first)
        return hr_cli_usage_error("replay", "%s: no *.hrt or *.hrtt traces in directory", arg);
    return 0;
}

static int parse_args(int argc, char **argv, replay_args_t *a) {
    memset(a, 0, sizeof *a);
    a->opt = hr_replay_options_default();
    a->opt.repeat = 3;
    a->format = HR_EMIT_TEXT;
    int first, rc = hr_opts_parse(&hr_spec_replay, argc, argv, on_opt, a, &first);
    if (rc)
        return rc == HR_OPTS_HELP ? 1 : rc;
    for (int i = first; i < argc; i++)
        if (add_trace_arg(a, argv[i]) != 0)
            return 2;
    if (a->opt.heap_config) { /* bad input is found before any replay */
        hr_heapcfg_t *cfg = malloc(sizeof *cfg);
        hr_error_t err = {{0}};
        int bad = !cfg || hr_heapcfg_load(cfg, a->opt.heap_config, &err) != 0;
        free(cfg);
        if (bad)
            return hr_cli_usage_error("replay", "%s", err.msg[0] ? err.msg : "out of memory");
    }
    return 0;
}

/* Does an allocator spec start at s? "all", or a backend's name followed by
 * the end of its name (':', '+', ',' or the end), not by '=' (an option). */
static int starts_spec(const char *s) {
    size_t n = strcspn(s, ":+,=");
    if (s[n] == '=')
        return 0;
    if (n == 3 && strncmp(s, "all", 3) == 0)
        return 1;
    for (size_t i = 0; hr_backends[i]; i++)
        if (strlen(hr_backends[i]->name) == n && strncmp(hr_backends[i]->name, s, n) == 0)
            return 1;
    return 0;
}

/* Next spec of a -a list, in place: a comma ends a spec only when an
 * allocator name follows it ("sizeclass:max=32K,refill=1,glibc" is two
 * specs). Empty specs are skipped. */
static char *next_spec(char **cursor) {
    char *p = *cursor;
    while (p && *p == ',')
        p++;
    if (!p || !*p)
        return NULL;
    char *tok = p;
    for (;;) {
        char *c = strchr(p, ',');
        if (!c) {
            *cursor = NULL;
            return tok;
        }
        if (c[1] == ',' || c[1] == 0 || starts_spec(c + 1)) {
            *c = 0;
            *cursor = c + 1;
            return tok;
        }
        p = c + 1;
    }
}

/* Expands "all" and checks every spec; fills specs[] (borrowed/strdup'd). */
static int expand_allocators(const char *list, char ***specs, int *n, int quiet) {
    char *copy = strdup(list ? list : "all"), *cursor = copy;
    *specs = NULL;
    *n = 0;
    for (char *tok; (tok = next_spec(&cursor));) {
        if (strcmp(tok, "all") == 0) {
            for (size_t i = 0; hr_backends[i]; i++) {
                const hr_backend_t *b = hr_backends[i];
                if (b->caps & (HR_CAP_TEST_ONLY | HR_CAP_NOT_IN_ALL))
                    continue;
                if ((b->caps & HR_CAP_EXTERNAL_PROCESS) && !hr_external_lib(b->name)) {
                    if (!quiet)
                        fprintf(stderr, "heapreplay replay: %s not found at configure time, skipped\n", b->name);
                    continue;
                }
                *specs = realloc(*specs, (size_t)(*n + 1) * sizeof **specs);
                (*specs)[(*n)++] = strdup(b->name);
            }
            continue;
        }
        hr_compose_spec_t cs;
        hr_error_t cerr = {{0}};
        if (hr_compose_is(tok) && hr_compose_parse(tok, &cs, &cerr) != 0) {
            hr_cli_usage_error("replay", "%s", cerr.msg);
            free(copy);
            return 2;
        }
        if (!hr_backend_find(tok)) {
            hr_cli_usage_error("replay", "unknown allocator '%s' (see 'heapreplay list')", tok);
            free(copy);
            return 2;
        }
        *specs = realloc(*specs, (size_t)(*n + 1) * sizeof **specs);
        (*specs)[(*n)++] = strdup(tok);
    }
    free(copy);
    if (*n == 0)
        return hr_cli_usage_error("replay", "no allocator selected");
    return 0;
}

/* Progress over the whole run: on a terminal one line rewritten in place
 * ([k/N] processes, percent, ETA from the mean time per finished process);
 * elsewhere nothing, or with -v one line per process. */
typedef struct progress {
    int tty, lines;     /* rewrite one line; print lines */
    int done, total;    /* processes started before the current trace, all */
    double t0;          /* start of the run */
    int shown;          /* a terminal line is on screen */
} progress_t;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress(const hr_child_job_t *job, int index, void *ctx) {
    progress_t *pg = ctx;
    int k = pg->done + index; /* processes finished */
    char eta[32] = "";
    double el = now_s() - pg->t0;
    if (k > 0) {
        double left = el / k * (pg->total - k);
        snprintf(eta, sizeof eta, ", ETA %dm%02ds", (int)(left / 60), (int)left % 60);
    }
    if (pg->tty) { /* cut to the terminal's width: a wrapped line would scroll */
        char line[512];
        struct winsize ws;
        int cols = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 8 ? ws.ws_col - 1 : 79;
        snprintf(line, sizeof line, "[%d/%d] %3.0f%%%s  %s on %s (%s)", k + 1, pg->total,
                 100.0 * k / pg->total, eta, job->trace_name, job->spec,
                 hr_replay_mode_name(job->mode));
        fprintf(stderr, "\r\033[K%.*s", cols, line);
        pg->shown = 1;
    } else if (pg->lines) {
        fprintf(stderr, "[%d/%d] replay %s on %s (%s)\n", k + 1, pg->total, job->trace_name,
                job->spec, hr_replay_mode_name(job->mode));
    }
}

static void progress_end(progress_t *pg) {
    if (pg->shown)
        fputs("\r\033[K", stderr);
    pg->shown = 0;
}

/* "SIGINT" for the exit message and the report. */
static const char *sig_name(int sig) {
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* The processes of one trace: for each sample, a measure and a time process
 * per allocator, allocators interleaved (A B A B ...) so that phases of a
 * shared host hit them alike; then one verify process per allocator when
 * asked. job_index() finds a (spec, sample, mode) job. */
typedef struct plan {
    int nspecs, rep, verify, count;
    char dir[64];        /* count under callgrind: its output files */
    char (*outs)[96];    /* one per spec */
} plan_t;

static int plan_jobs(const plan_t *p) {
    return p->nspecs * (p->rep * 2 + !!p->verify + !!p->count);
}

static int job_index(const plan_t *p, int spec, int sample, hr_replay_mode_t mode) {
    int base = p->nspecs * p->rep * 2;
    if (mode == HR_MODE_VERIFY)
        return base + spec;
    if (mode == HR_MODE_COUNT)
        return base + (p->verify ? p->nspecs : 0) + spec;
    return (sample * p->nspecs + spec) * 2 + (mode == HR_MODE_TIME);
}

/* A private directory for callgrind's output files, one path per spec. */
static int plan_count_files(plan_t *p) {
    const char *tmp = getenv("TMPDIR");
    snprintf(p->dir, sizeof p->dir, "%s/heapreplay-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(p->dir))
        return -1;
    p->outs = calloc((size_t)p->nspecs, sizeof *p->outs);
    for (int s = 0; p->outs && s < p->nspecs; s++)
        snprintf(p->outs[s], sizeof p->outs[s], "%s/count-%d.out", p->dir, s);
    return p->outs ? 0 : -1;
}

static void fill_jobs(const plan_t *p, hr_child_job_t *jobs, const hr_child_job_t *proto,
                      char **specs) {
    for (int s = 0; s < p->nspecs; s++)
        for (int r = 0; r < p->rep; r++)
            for (int k = 0; k < 2; k++) {
                hr_replay_mode_t m = k ? HR_MODE_TIME : HR_MODE_MEASURE;
                hr_child_job_t *j = &jobs[job_index(p, s, r, m)];
                *j = *proto;
                j->spec = specs[s];
                j->be = hr_backend_find(specs[s]);
                j->mode = m;
            }
    for (int k = 0; k < 2; k++)
        for (int s = 0; (k ? p->count : p->verify) && s < p->nspecs; s++) {
            hr_replay_mode_t m = k ? HR_MODE_COUNT : HR_MODE_VERIFY;
            hr_child_job_t *j = &jobs[job_index(p, s, 0, m)];
            *j = *proto;
            j->spec = specs[s];
            j->be = hr_backend_find(specs[s]);
            j->mode = m;
            j->count_out = p->outs ? p->outs[s] : NULL;
        }
}

/* A count under callgrind: the total comes from callgrind's file, read here
 * once the process has ended, into the count line's "count" group. */
static char *count_from_callgrind(char *line, const char *out) {
    hr_json_t *v = line ? hr_json_parse(line, strlen(line), "count result", NULL) : NULL;
    hr_json_t *c = (hr_json_t *)hr_json_get(v, "count");
    const char *st = hr_json_path_str(v, "status");
    if (!c || !st || strcmp(st, "ok") != 0) {
        hr_json_free(v);
        return line;
    }
    uint64_t ir = 0;
    hr_error_t err = {{0}};
    double ops = hr_json_path_num(v, "ops.total");
    if (hr_callgrind_total(out, &ir, &err) != 0 || (ir == 0 && ops > 0)) {
        hr_json_set(v, "status", hr_json_new_str("error"));
        hr_json_set(v, "error", hr_json_new_str(err.msg[0] ? err.msg : "callgrind counted nothing "
                                                "(is the binary stripped?)"));
    } else {
        hr_json_set(c, "instructions", hr_json_new_u64(ir));
        hr_json_set(c, "per_op", hr_json_new_num(ops > 0 ? (double)ir / ops : NAN));
    }
    unlink(out);
    free(line);
    line = hr_json_to_string(v, 1);
    hr_json_free(v);
    return line;
}

/* Joins each sample's process lines and adds one result per allocator.
 * After an interruption (stop != 0) only the samples whose processes all
 * ended are joined; an allocator with none is left out, one with fewer
 * than asked for (or without its verify or count process) is marked. */
static int add_results(const plan_t *p, char **lines, char **specs, const char *path,
                       int stop, const hr_pool_info_t *pi, hr_report_builder_t *rb) {
    char **samples = calloc((size_t)p->rep, sizeof *samples);
    int failed = 0;
    for (int s = 0; s < p->nspecs && !failed; s++) {
        const char *verify = p->verify ? lines[job_index(p, s, 0, HR_MODE_VERIFY)] : NULL;
        const char *count = p->count ? lines[job_index(p, s, 0, HR_MODE_COUNT)] : NULL;
        int n = 0;
        for (int r = 0; r < p->rep; r++) {
            const char *m = lines[job_index(p, s, r, HR_MODE_MEASURE)];
            const char *t = lines[job_index(p, s, r, HR_MODE_TIME)];
            if (!stop || (m && t))
                samples[n++] = hr_result_join(m, t, verify, count);
        }
        int partial = n < p->rep || (p->verify && !verify) || (p->count && !count);
        hr_error_t err = {{0}};
        if (n == 0)
            continue;
        if (hr_report_builder_add(rb, samples, n, &err) != 0) {
            fprintf(stderr, "heapreplay replay: %s on %s: %s\n", path, specs[s], err.msg);
            failed = 1;
        } else {
            hr_json_t *pools = hr_pool_json(pi);
            if (pools)
                hr_report_builder_set_last(rb, "pools", pools);
            if (stop)
                hr_report_builder_interrupted(rb, sig_name(stop), partial);
        }
        for (int r = 0; r < n; r++)
            free(samples[r]);
    }
    free(samples);
    return failed;
}

/* Replays one trace on every allocator (all processes forked from one
 * pristine server); appends the merged results. */
static int replay_trace(const replay_args_t *a, const char *path, char **specs, int nspecs,
                        progress_t *pg, hr_report_builder_t *rb) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    if (hr_trace_read_file(path, HR_FMT_AUTO, &t, &err) != 0) {
        fprintf(stderr, "heapreplay replay: %s\n", err.msg);
        hr_trace_free(&t);
        return 2;
    }
    char digest[17];
    hr_trace_digest(&t, digest); /* of the trace as read, before lowering its pools */
    hr_pool_info_t pi;
    int tfd = hr_pool_prepare(&a->pools, &t, path, a->quiet, &pi, &err) == 0
                  ? hr_trace_share(&t, digest, &err) : -1;
    if (tfd < 0) {
        fprintf(stderr, "heapreplay replay: %s: %s\n", path, err.msg);
        hr_pool_info_free(&pi);
        hr_trace_free(&t);
        return 2;
    }
    plan_t p = {nspecs, a->opt.repeat, a->opt.verify, a->opt.count != HR_COUNT_NONE, "", NULL};
    if (a->opt.count == HR_COUNT_CALLGRIND && plan_count_files(&p) != 0) {
        fprintf(stderr, "heapreplay replay: cannot create a temporary directory: %s\n", strerror(errno));
        close(tfd);
        hr_pool_info_free(&pi);
        hr_trace_free(&t);
        return 2;
    }
    int n = plan_jobs(&p), failed = 0;
    hr_child_job_t *jobs = calloc((size_t)n, sizeof *jobs);
    char **lines = calloc((size_t)n, sizeof *lines);
    hr_child_job_t proto = {&t, tfd, path, digest, NULL, NULL, &a->opt, hr_cli_self_exe(),
                            HR_MODE_MEASURE, NULL};
    fill_jobs(&p, jobs, &proto, specs);
    int run = hr_child_run_all(jobs, n, lines, a->quiet ? NULL : progress, pg);
    int stop = run == 1 ? hr_child_interrupted() : 0;
    pg->done += n;
    progress_end(pg);
    if (run < 0) {
        fprintf(stderr, "heapreplay replay: cannot start replay processes\n");
        failed = 1;
    }
    for (int s = 0; p.outs && s < nspecs; s++) {
        int k = job_index(&p, s, 0, HR_MODE_COUNT);
        lines[k] = count_from_callgrind(lines[k], p.outs[s]);
    }
    if (p.outs) {
        rmdir(p.dir);
        free(p.outs);
    }
    if (!failed)
        failed = add_results(&p, lines, specs, path, stop, &pi, rb);
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    free(jobs);
    close(tfd);
    hr_pool_info_free(&pi);
    hr_trace_free(&t);
    return stop ? 3 : failed;
}

int hr_cmd_replay(int argc, char **argv) {
    replay_args_t a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    char **specs;
    int nspecs;
    if ((rc = expand_allocators(a.allocators, &specs, &nspecs, a.quiet)) != 0 ||
        (rc = hr_pool_routes_apply(&a.pools, specs, nspecs)) != 0)
        return rc;
    hr_report_builder_t *rb = hr_report_builder_new(&a.opt);
    hr_report_builder_set_command(rb, argc, argv);
    plan_t per = {nspecs, a.opt.repeat, a.opt.verify, a.opt.count != HR_COUNT_NONE, "", NULL};
    progress_t pg = {isatty(2) && !a.verbose, a.verbose, 0, plan_jobs(&per) * a.npaths, now_s(), 0};
    int failed = 0, stop = 0;
    hr_child_trap_signals();
    for (int i = 0; i < a.npaths && rc == 0 && !stop; i++) {
        int r = replay_trace(&a, a.paths[i], specs, nspecs, &pg, rb);
        if (r == 2)
            rc = 2;
        else if (r == 3 || hr_child_interrupted())
            stop = hr_child_interrupted();
        else
            failed |= r;
    }
    if (stop) { /* the rows finished so far, marked (add_results) */
        hr_report_builder_interrupted(rb, sig_name(stop), 0);
        fprintf(stderr, "heapreplay replay: interrupted by %s%s%s\n", sig_name(stop),
                a.output ? "; partial report in " : "", a.output ? a.output : "");
    }
    if (rc == 0)
        rc = hr_report_builder_finish(rb, a.output, a.format, stdout);
    if (rc == 0 && (failed || hr_report_builder_failures(rb)))
        rc = 1;
    if (stop && rc != 2)
        rc = 128 + stop;
    hr_report_builder_free(rb);
    for (int i = 0; i < nspecs; i++)
        free(specs[i]);
    free(specs);
    for (int i = 0; i < a.npaths; i++)
        free(a.paths[i]);
    free(a.paths);
    free(a.allocators);
    return rc;
}
