/* heapreplay replay: the option table (opts.h) and the arguments: traces
 * and directories, allocator specs (-a, split only before an allocator name),
 * --pool routes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/backend.h"
#include "backends/be_system.h"
#include "backends/spec.h"
#include "cli/replay_int.h"
#include "alloc/routed.h"
#include "replay/counter.h"
#include "replay/memlimit.h"
#include "replay/pollute.h"
#include "report/paired.h"
#include "report/wholeprog.h"
#include "base/outfile.h"

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
    O_TOUCH = HR_OPT_LONG, O_ACCESS, O_TIMEOUT, O_BUDGET, O_HEAPCFG, O_WARM, O_WARM_STOP, O_STALL, O_THREADS, O_PACE,
    O_COUNT, O_VERIFY, O_POOL, O_DETAIL, O_SHARD, O_FORM, O_ROUTE_PLAN,
    O_MEMLIMIT, O_THREAD, O_PAIR, O_PAIR_TOL,
    O_MEMORY_LAP, O_POLLUTE
};

static const hr_opt_t replay_opts[] = {
    {'a', "allocators", "LIST", "allocator specs separated by commas, or 'all' (default: "
     "all built); may be repeated. A comma splits only before an "
     "allocator name, so a spec keeps its own options:\n"
     "-a glibc,sizeclass:max=32K,refill=1 -a bank:round=16"},
    {'r', "repeat", "N", "samples per trace x allocator, 1..1000 (default 3), each "
     "made of fresh processes, interleaved across allocators; "
     "figures are medians, with min/max and spread"},
    {'o', "output", "FILE", "write the report to FILE, checked before any replay: as JSON, or "
     "as text, CSV, Markdown or HTML when FILE ends in .txt, .csv, .md or .html (on "
     "SIGINT/SIGTERM: the rows finished so far, marked interrupted)"},
    {'f', "format", "FMT", "standard output: text (default), json, csv, md, html (one "
                           "self-contained page with the charts)"},
    {O_DETAIL, "detail", NULL, "text, md and html: after each trace's summary (ranking table, "
     "verdict, notes) also the full tables: every metric, ns/op by op type, per-class and "
     "per-heap native stats, ranking lines"},
    {O_TOUCH, "touch", "POLICY", "none | first | all | recorded (default: first, but a block with a `touched` record in the trace gets the bytes the program used); :SIZE after the last three: only a block's first SIZE bytes"},
    {O_ACCESS, "access", "MODEL", "the program's use of its live blocks between ops, timed with "
     "them: none (default) | reuse:N (after each op N cache lines of the new block and of "
     "recently allocated ones) | spread:N (N lines of blocks picked from the whole heap); "
     "+free also reads a block before its free. N 1..64. Serial laps only"},
    {O_POLLUTE, "pollute", "SIZE[:LINES]|none", "after each allocator call of a timed lap, write "
     "LINES cache lines (default 16) of a SIZE-byte scratch buffer (64K..1G), as the program's "
     "own work evicts the allocator's metadata between calls; the same writes for every "
     "allocator. Default none (docs/METRICS.md, \"Cache pollution\")"},
    {O_TIMEOUT, "timeout", "SECONDS", "per replay process (default 600)"},
    {O_MEMLIMIT, "mem-limit", "SIZE|none", "per replay process: its anonymous resident memory "
     "(RSS less shared pages), read every 5 ms; over it the process is killed and its row is "
     "oom. Default: 4 x the trace's peak live bytes + 256M, at least 1G, plus 64 bytes per "
     "block id, at most 3/4 of the RAM"},
    {O_BUDGET, "budget", "BYTES", "report the first op whose footprint exceeds it (64M)"},
    {O_HEAPCFG, "heap-config", "FILE", "heap table for the routed allocator"},
    {O_WARM_STOP, "warm-stop", "PCT|off", "warm laps per sample run until the median lap is "
     "known to +-PCT % (its 95% interval from order statistics; default 2), after at least 8 "
     "laps and 20 ms, for at most --warm-time (default 0.25); off: --warm-time is a fixed "
     "budget. The cold lap is always the first (docs/METRICS.md)"},
    {O_WARM, "warm-time", "SECONDS", "alone: a fixed budget, warm laps per sample run this long "
     "(0: one warm lap); with --warm-stop PCT: its cap"},
    {O_STALL, "stall-us", "US", "ops slower than this are checked for a context switch "
     "and kept out of latency and frames (default 20)"},
    {O_THREADS, "threads", "MODE", "recorded: one OS thread per recorded thread, blocks "
     "shared across threads wait for each other (default "
     "when the trace has several threads); serial: every "
     "event on one thread in trace order; auto. Timed laps "
     "and the paced memory lap (--memory-lap) only: the measure lap runs in trace order"},
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
    {O_ROUTE_PLAN, "plan", "PLAN", "route allocations by call site as the routing plan PLAN "
     "says ('heapreplay plan', docs/SITES.md): each -a allocator X is replayed alone, behind "
     "the plan's frame stack, pools and level heap, and behind the oracle composition "
     "stack+marker+bank+X; each rule's violations go to standard error and the report"},
    {O_SHARD, "shard", "K/N", "replay only shard K of N of the (trace, allocator) matrix "
     "(a deterministic, balanced share: the cells sorted by trace and allocator, dealt "
     "round-robin); 'heapreplay merge' joins the N reports"},
    {O_FORM, "event-form", "FORM", "how the replay processes hold the events: decoded (24 "
     "bytes each), packed (~4 bytes, decoded 64 k at a time outside the timing; traces "
     "without pools), auto (default: packed for a binary file of 4 Mi events or more)"},
    {O_THREAD, "thread", "ID,...", "replay only these recorded threads (e.g. the game thread "
     "without a driver's helpers): their events, and the frees other threads do of their "
     "blocks, kept on those threads; another thread's blocks dropped, a chosen thread's "
     "realloc of one becoming an alloc (docs/METRICS.md, \"Threads of a trace\")"},
    {O_PAIR, "pair", NULL, "paired A/B of exactly two allocators (-a A,B, e.g. two builds "
     "preload:old.so,preload:new.so; -r 6 or more, 20 and --warm-time 0.3 advised): per "
     "trace the ratios B/A of the interleaved samples' warm ns/op, their centre and a "
     "signed-rank interval of at least 95 %; exit 1 when B is slower by more than --pair-tol "
     "and the interval lies above 1"},
    {O_PAIR_TOL, "pair-tol", "PCT", "--pair's tolerance on the ratio, percent "
     "(default 3)"},
    {O_MEMORY_LAP, "memory-lap", "MODE", "the lap whose peak RSS is memory.peak_rss and "
     "the RSS prediction: paced (the events at their recorded times, idle gaps over 12 s "
     "cut to 12 s, so time-based release happens as recorded; takes as long as the trace "
     "did, in a process of its own, once per row for all its samples, the rows of a trace "
     "at once), fast (the measure lap, back to back), auto (default: paced when the trace "
     "has timestamps and its paced duration is at most 10 s)"},
    {'q', "quiet", NULL, "no progress on standard error"},
    {'v', "verbose", NULL, "progress lines even when standard error is not a terminal"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_replay = {
    .name = "replay", .operands = "TRACE|DIR...", .opts = replay_opts, .min_operands = 1,
    .max_operands = -1, .summary = "replay traces against allocators and report",
    .details = "A DIR stands for every *.hrt and *.hrtt file in it (or .zst, .gz): a\n"
               "--follow-forks capture's folder is its whole program. Every (trace, allocator,\n"
               "sample) runs in its own fresh process; the processes end with heapreplay.\n"
               "On a terminal, progress is one line: [k/N] processes, how far the running\n"
               "one is, an ETA; elsewhere nothing unless -v. SIGINT or SIGTERM stops the\n"
               "replay: the rows finished so far are reported (and written to -o) marked\n"
               "interrupted, exit 130 or 143. 'heapreplay list' names the allocators and\n"
               "the compositions (PART+PART).\n"};

/* -o's format by the file's extension, as capture and gen choose theirs;
 * JSON for any other name (the report that compare, merge and report read). */
static hr_emit_format_t out_format(const char *path) {
    static const struct {
        const char      *ext;
        hr_emit_format_t fmt;
    } exts[] = {{".txt", HR_EMIT_TEXT}, {".csv", HR_EMIT_CSV}, {".md", HR_EMIT_MARKDOWN},
                {".html", HR_EMIT_HTML}, {".htm", HR_EMIT_HTML}};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i].ext);
        if (n > e && strcmp(path + n - e, exts[i].ext) == 0)
            return exts[i].fmt;
    }
    return HR_EMIT_JSON;
}

/* -o is tried before any replay (a run of minutes must not be lost at its
 * end): the same temporary file the report will be written through is
 * created in the target's directory and removed. 0, or 2 after a usage
 * error naming the path and the reason. */
static int check_output(const char *path) {
    struct stat st;
    hr_outfile_t o;
    hr_error_t err = {{0}};
    if (strcmp(path, "-") == 0)
        return 0;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return hr_cli_usage_error("replay", "-o %s: is a directory", path);
    if (!hr_outfile_open(&o, path, &err))
        return hr_cli_usage_error("replay", "-o %s (checked before replaying)", err.msg);
    hr_outfile_abort(&o);
    return 0;
}

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
    case 'o':
        a->output = o->arg;
        a->out_format = out_format(o->arg);
        return 0;
    case 'f':
        return hr_emit_format_parse_html(o->arg, &a->format) != 0
                   ? hr_opt_bad(o, "text|json|csv|md|html") : 0;
    case O_TOUCH:
        return hr_touch_parse(o->arg, &a->opt.touch, &a->opt.touch_cap) != 0
                   ? hr_opt_bad(o, "none|first|all|recorded, or one of the last three :SIZE")
                   : 0;
    case O_ACCESS:
        return hr_access_parse(o->arg, &a->opt.access) != 0
                   ? hr_opt_bad(o, "none, reuse:N or spread:N (N 1..64), optionally +free, or free")
                   : 0;
    case O_POLLUTE: { /* to the workers through their environment (replay/pollute.h) */
        hr_pollute_t p;
        char b[48];
        if (hr_pollute_parse(o->arg, &p) != 0)
            return hr_opt_bad(o, "none or SIZE[:LINES], SIZE 64K..1G, LINES 1..1024");
        return setenv(HR_POLLUTE_ENV, hr_pollute_spec(&p, b, sizeof b), 1) == 0 ? 0 : -1;
    }
    case O_TIMEOUT: return hr_opt_double(o, 0, 1e7, 1, &a->opt.timeout_s);
    case O_MEMLIMIT:
        if (strcmp(o->arg, "none") == 0) {
            a->opt.mem_limit = HR_MEM_LIMIT_NONE;
            return 0;
        }
        if (hr_opt_bytes(o, &n) != 0)
            return 2;
        if (n < ((uint64_t)1 << 20) || n == HR_MEM_LIMIT_NONE)
            return hr_opt_bad(o, "a size of at least 1M (e.g. 512M, 4G), or none");
        a->opt.mem_limit = n;
        return 0;
    case O_BUDGET:
        if (hr_opt_bytes(o, &n) != 0)
            return 2;
        a->opt.budget = n;
        return 0;
    case O_HEAPCFG: a->opt.heap_config = o->arg; return 0;
    case O_WARM: return hr_opt_double(o, 0, 3600, 0, &a->opt.warm_time_s);
    case O_WARM_STOP: {
        double pct = 0;
        if (strcmp(o->arg, "off") != 0 && hr_opt_double(o, 0, 50, 1, &pct) != 0)
            return 2;
        a->opt.warm_stop = pct / 100;
        return 0;
    }
    case O_STALL: return hr_opt_double(o, 0, 1e9, 1, &a->opt.stall_us);
    case O_THREADS: {
        hr_threads_mode_t m;
        if (hr_threads_mode_parse(o->arg, &m) != 0)
            return hr_opt_bad(o, "recorded|serial|auto");
        a->opt.threads = (int)m;
        return 0;
    }
    case O_MEMORY_LAP: {
        hr_memory_lap_t m;
        if (hr_memory_lap_parse(o->arg, &m) != 0)
            return hr_opt_bad(o, "auto|fast|paced");
        a->opt.memory_lap = (int)m;
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
    case O_FORM: {
        hr_event_form_t f;
        if (hr_event_form_parse(o->arg, &f) != 0)
            return hr_opt_bad(o, "auto|decoded|packed");
        a->opt.event_form = (int)f;
        return 0;
    }
    case O_DETAIL: a->render.detail = 1; return 0;
    case O_THREAD: {
        hr_error_t err = {{0}};
        if (hr_threadsel_parse(o->arg, &a->threads, &err) != 0)
            return hr_cli_usage_error("replay", "--thread: %s", err.msg);
        a->threads_arg = o->arg;
        return 0;
    }
    case O_POOL: return hr_pool_route_add(&a->pools, o);
    case O_ROUTE_PLAN: return hr_replay_route_load(a, o);
    case O_SHARD:
        return hr_shard_parse(o->arg, &a->shard) != 0
                   ? hr_opt_bad(o, "K/N with 1 <= K <= N <= 1000")
                   : 0;
    case O_PAIR: a->pair = 1; return 0;
    case O_PAIR_TOL: return hr_opt_double(o, 0, 1000, 0, &a->pair_tol);
    case 'q': a->quiet = 1; return 0;
    default: a->verbose = 1; return 0;
    }
}

static int add_path(replay_args_t *a, const char *p) {
    if (a->npaths == a->cap_paths) {
        int cap = a->cap_paths ? a->cap_paths * 2 : 16;
        char **grown = realloc(a->paths, (size_t)cap * sizeof *a->paths);
        if (!grown)
            return hr_cli_usage_error("replay", "out of memory");
        a->paths = grown;
        a->cap_paths = cap;
    }
    if (!(a->paths[a->npaths] = strdup(p)))
        return hr_cli_usage_error("replay", "out of memory");
    a->npaths++;
    return 0;
}

static int cmp_str(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* A trace's file name in a directory: *.hrt or *.hrtt, or either compressed
 * (.zst, .gz: every reader detects them, docs/TRACE_FORMAT.md). */
static int is_trace_name(const char *name) {
    static const char *const ext[] = {".hrt", ".hrtt"}, *const zip[] = {"", ".zst", ".gz"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++)
        for (size_t k = 0; k < sizeof zip / sizeof *zip; k++) {
            size_t le = strlen(ext[i]), lz = strlen(zip[k]);
            if (n > le + lz && strncmp(name + n - le - lz, ext[i], le) == 0 &&
                strcmp(name + n - lz, zip[k]) == 0)
                return 1;
        }
    return 0;
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
        if (is_trace_name(e->d_name)) {
            char path[4096];
            snprintf(path, sizeof path, "%.*s/%s", (int)alen, arg, e->d_name);
            if (add_path(a, path) != 0) {
                closedir(d);
                return 2;
            }
        }
    }
    closedir(d);
    qsort(a->paths + first, (size_t)(a->npaths - first), sizeof *a->paths, cmp_str);
    if (a->npaths == first)
        return hr_cli_usage_error("replay", "%s: no *.hrt or *.hrtt traces (or .zst, .gz) in "
                                  "directory", arg);
    return 0;
}

/* The index in sorted[0..n) of the path that `child` (a directory entry
 * not replayed) is a child process's trace of (b.PID.hrt of b.hrt), or -1. */
static int parent_in(char *const *sorted, int n, const char *child) {
    char cand[4096];
    const char *at = NULL;
    while (hr_wholeprog_parent_candidate(child, &at, cand, sizeof cand)) {
        const char *key = cand;
        char *const *hit = bsearch(&key, sorted, (size_t)n, sizeof *sorted, cmp_str);
        if (hit && hr_wholeprog_is_child(child, *hit))
            return (int)(hit - sorted);
    }
    return -1;
}

/* Counts in left[] (by sorted[]'s index) the traces of the folder `prefix`
 * (a path's text up to its last '/', "" for the working directory) that
 * are child processes' traces of a replayed trace and are not replayed. */
static void count_children_left(const char *prefix, char *const *sorted, int n, int *left) {
    DIR *d = opendir(*prefix ? prefix : ".");
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[4096];
        const char *key = path;
        int par;
        if (!is_trace_name(e->d_name) ||
            snprintf(path, sizeof path, "%s%s", prefix, e->d_name) >= (int)sizeof path)
            continue;
        if (!bsearch(&key, sorted, (size_t)n, sizeof *sorted, cmp_str) &&
            (par = parent_in(sorted, n, path)) >= 0)
            left[par]++;
    }
    if (d)
        closedir(d);
}

/* A --follow-forks capture's parent replayed without its children would
 * predict the parent's own process (make's, a launcher's), not the program:
 * one note per such trace, naming how many child traces lie beside it. */
static void note_children_left(const replay_args_t *a) {
    int n = a->npaths, ndirs = 0;
    char **sorted = malloc(((size_t)n + 1) * sizeof *sorted);
    char **dirs = calloc((size_t)n + 1, sizeof *dirs);
    int *left = calloc((size_t)n + 1, sizeof *left);
    if (sorted && dirs && left) {
        memcpy(sorted, a->paths, (size_t)n * sizeof *sorted);
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
    }
    for (int i = 0; sorted && dirs && left && i < n; i++) {
        const char *slash = strrchr(sorted[i], '/');
        size_t plen = slash ? (size_t)(slash - sorted[i]) + 1 : 0;
        int seen = 0;
        for (int k = 0; k < ndirs && !seen; k++) /* each folder once */
            seen = strlen(dirs[k]) == plen && strncmp(dirs[k], sorted[i], plen) == 0;
        if (seen || !(dirs[ndirs] = strndup(sorted[i], plen)))
            continue;
        count_children_left(dirs[ndirs++], sorted, n, left);
    }
    for (int i = 0; sorted && left && i < n; i++)
        if (left[i])
            fprintf(stderr, "heapreplay replay: note: %s has %d child process trace%s beside it "
                    "(a --follow-forks capture) that %s not replayed: replay its folder for the "
                    "whole program's prediction\n", sorted[i], left[i], left[i] == 1 ? "" : "s",
                    left[i] == 1 ? "is" : "are");
    for (int k = 0; k < ndirs; k++)
        free(dirs[k]);
    free(dirs);
    free(sorted);
    free(left);
}

int hr_replay_parse_args(int argc, char **argv, replay_args_t *a) {
    memset(a, 0, sizeof *a);
    a->opt = hr_replay_options_default();
    a->opt.repeat = 3;
    a->format = HR_EMIT_TEXT;
    a->out_format = HR_EMIT_JSON;
    a->pair_tol = HR_PAIRED_DEFAULT_TOL;
    a->render = hr_render_opts_default();
    a->opt.warm_time_s = a->opt.warm_stop = -1; /* not given */
    int first, rc = hr_opts_parse(&hr_spec_replay, argc, argv, on_opt, a, &first);
    if (rc)
        return rc == HR_OPTS_HELP ? 1 : rc;
    /* --warm-time alone is a fixed budget; with --warm-stop, the rule's cap */
    hr_replay_options_t def = hr_replay_options_default();
    if (a->opt.warm_stop < 0)
        a->opt.warm_stop = a->opt.warm_time_s < 0 ? def.warm_stop : 0;
    if (a->opt.warm_time_s < 0)
        a->opt.warm_time_s = def.warm_time_s;
    for (int i = first; i < argc; i++)
        if (add_trace_arg(a, argv[i]) != 0)
            return 2;
    if (!a->quiet)
        note_children_left(a);
    if (a->output && check_output(a->output) != 0)
        return 2;
    if (a->pair && a->opt.repeat < HR_PAIRED_MIN)
        return hr_cli_usage_error("replay", "--pair needs -r %d or more (a signed-rank interval "
                                  "of 95 %% needs %d pairs)", HR_PAIRED_MIN, HR_PAIRED_MIN);
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

/* Appends the spec `text` to *specs. 0, or 2 after a usage error. */
static int push_spec(hr_alloc_spec_t **specs, int *n, const char *text) {
    hr_alloc_spec_t *grown = realloc(*specs, (size_t)(*n + 1) * sizeof **specs);
    hr_error_t err = {{0}};
    if (!grown)
        return hr_cli_usage_error("replay", "out of memory");
    *specs = grown;
    if (hr_alloc_spec_parse(text, &grown[*n], &err) != 0)
        return hr_cli_usage_error("replay", "%s", err.msg);
    (*n)++;
    return 0;
}

/* Every built allocator that "-a all" stands for. 0, or 2. */
static int push_all(hr_alloc_spec_t **specs, int *n, int quiet) {
    for (size_t i = 0; hr_backends[i]; i++) {
        const hr_backend_t *b = hr_backends[i];
        if (b->caps & (HR_CAP_TEST_ONLY | HR_CAP_NOT_IN_ALL))
            continue;
        if ((b->caps & HR_CAP_EXTERNAL_PROCESS) && !hr_external_lib(b->name)) {
            if (!quiet)
                fprintf(stderr, "heapreplay replay: %s not found at configure time, skipped\n", b->name);
            continue;
        }
        if (push_spec(specs, n, b->name) != 0)
            return 2;
    }
    return 0;
}

int hr_replay_expand_allocators(const char *list, hr_alloc_spec_t **specs, int *n, int quiet) {
    char *copy = strdup(list ? list : "all"), *cursor = copy;
    int rc = copy ? 0 : hr_cli_usage_error("replay", "out of memory");
    *specs = NULL;
    *n = 0;
    for (char *tok; rc == 0 && (tok = hr_alloc_spec_next(&cursor));)
        rc = hr_alloc_spec_is_all(tok) ? push_all(specs, n, quiet) : push_spec(specs, n, tok);
    free(copy);
    if (rc == 0 && *n == 0)
        rc = hr_cli_usage_error("replay", "no allocator selected");
    if (rc != 0) {
        hr_replay_specs_free(*specs, *n);
        *specs = NULL;
        *n = 0;
    }
    return rc;
}

void hr_replay_specs_free(hr_alloc_spec_t *specs, int n) {
    for (int i = 0; i < n; i++)
        hr_alloc_spec_free(&specs[i]);
    free(specs);
}
