/* heapreplay replay [options] TRACE|DIR...: every (trace, allocator, repeat)
 * in its own child process; results aggregated (median timings) into one
 * report, written as JSON with -o and rendered on stdout. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/compose.h"
#include "backends/be_system.h"
#include "cli/cli.h"
#include "report/builder.h"
#include "heapreplay/routed.h"
#include "replay/child.h"
#include "report/report.h"
#include "trace/format.h"
#include "trace/shared.h"
#include "replay/counter.h"
#include "base/json.h"

typedef struct replay_args {
    hr_replay_options_t opt;
    const char *allocators, *output;
    hr_emit_format_t format;
    int quiet;
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

static void usage(FILE *f) {
    fprintf(f,
            "usage: heapreplay replay [options] TRACE|DIR...\n"
            "  -a, --allocators LIST  comma-separated specs, or 'all' (default: all built)\n"
            "                         e.g. glibc,jemalloc,bank:round=16,preload:/path/lib.so\n"
            "  -r, --repeat N         samples per trace x allocator (default 3), each made\n"
            "                         of fresh processes, interleaved across allocators;\n"
            "                         figures are medians, with min/max and spread\n"
            "  -o, --output FILE      write the report as JSON\n"
            "  -f, --format FMT       stdout: text (default), json, csv, md\n"
            "      --touch POLICY     none | first (default) | all\n"
            "      --timeout SECONDS  per replay child (default 600)\n"
            "      --budget BYTES     report the first op whose footprint exceeds it\n"
            "      --heap-config FILE heap table for the routed allocator\n"
            "      --warm-time SECONDS  warm laps per sample run this long (default 0.5;\n"
            "                         0: one warm lap); the cold lap is always the first\n"
            "      --stall-us US      ops slower than this are checked for a context\n"
            "                         switch and kept out of latency and frames (default 20)\n"
            "      --threads MODE     recorded: one OS thread per recorded thread, blocks\n"
            "                         shared across threads wait for each other (default\n"
            "                         when the trace has several threads); serial: every\n"
            "                         event on one thread in trace order. Timed laps only:\n"
            "                         memory figures always come from trace order\n"
            "      --pace timestamps[:F]  threaded laps also wait for each event's\n"
            "                         recorded time (times F, default 1); none (default)\n"
            "      --count MODE       also count the instructions of the allocator calls\n"
            "                         (one lap per allocator, deterministic): perf (hardware\n"
            "                         counter), callgrind (valgrind, ~50x slower), auto,\n"
            "                         none (default)\n"
            "      --verify           also check every pointer each allocator returns\n"
            "                         (alignment, overlap, contents); a violation makes\n"
            "                         the row invalid\n"
            "  -q, --quiet            no progress lines on stderr\n"
            "A DIR stands for every *.hrt and *.hrtt file in it.\n");
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
    a->allocators = "all";
    a->format = HR_EMIT_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long n;
        if ((!strcmp(k, "-a") || !strcmp(k, "--allocators")) && v)
            a->allocators = v, i++;
        else if ((!strcmp(k, "-r") || !strcmp(k, "--repeat")) && v) {
            a->opt.repeat = atoi(v), i++;
            if (a->opt.repeat < 1 || a->opt.repeat > 1000)
                return hr_cli_usage_error("replay", "--repeat expects 1..1000, got '%s'", v);
        } else if ((!strcmp(k, "-o") || !strcmp(k, "--output")) && v)
            a->output = v, i++;
        else if ((!strcmp(k, "-f") || !strcmp(k, "--format")) && v) {
            if (hr_emit_format_parse(v, &a->format) != 0)
                return hr_cli_usage_error("replay", "--format expects text|json|csv|md, got '%s'", v);
            i++;
        } else if (!strcmp(k, "--touch") && v) {
            if (hr_touch_parse(v, &a->opt.touch) != 0)
                return hr_cli_usage_error("replay", "--touch expects none|first|all, got '%s'", v);
            i++;
        } else if (!strcmp(k, "--timeout") && v) {
            a->opt.timeout_s = atof(v), i++;
            if (a->opt.timeout_s <= 0)
                return hr_cli_usage_error("replay", "--timeout expects seconds > 0, got '%s'", v);
        } else if (!strcmp(k, "--budget") && v) {
            if (hr_cli_parse_size(v, &n) != 0)
                return hr_cli_usage_error("replay", "--budget expects bytes (e.g. 64M), got '%s'", v);
            a->opt.budget = n, i++;
        } else if (!strcmp(k, "--heap-config") && v)
            a->opt.heap_config = v, i++;
        else if (!strcmp(k, "--warm-time") && v) {
            char *end;
            a->opt.warm_time_s = strtod(v, &end), i++;
            if (*end || !(a->opt.warm_time_s >= 0 && a->opt.warm_time_s <= 3600))
                return hr_cli_usage_error("replay", "--warm-time expects seconds 0..3600, got '%s'", v);
        } else if (!strcmp(k, "--stall-us") && v) {
            char *end;
            a->opt.stall_us = strtod(v, &end), i++;
            if (*end || !(a->opt.stall_us > 0))
                return hr_cli_usage_error("replay", "--stall-us expects microseconds > 0, got '%s'", v);
        } else if (!strcmp(k, "--threads") && v) {
            hr_threads_mode_t m;
            if (hr_threads_mode_parse(v, &m) != 0)
                return hr_cli_usage_error("replay", "--threads expects recorded|serial|auto, got '%s'", v);
            a->opt.threads = (int)m, i++;
        } else if (!strcmp(k, "--pace") && v) {
            if (parse_pace(v, &a->opt.pace) != 0)
                return hr_cli_usage_error("replay", "--pace expects none|timestamps[:FACTOR > 0], got '%s'", v);
            i++;
        } else if (!strcmp(k, "--count") && v) {
            hr_count_mode_t want, got;
            hr_error_t err = {{0}};
            if (hr_count_mode_parse(v, &want) != 0)
                return hr_cli_usage_error("replay", "--count expects none|auto|perf|callgrind, got '%s'", v);
            if (hr_count_resolve(want, &got, &err) != 0)
                return hr_cli_usage_error("replay", "%s", err.msg);
            a->opt.count = (int)got, i++;
        } else if (!strcmp(k, "--verify"))
            a->opt.verify = 1;
        else if (!strcmp(k, "-q") || !strcmp(k, "--quiet"))
            a->quiet = 1;
        else if (!strcmp(k, "-h") || !strcmp(k, "--help")) {
            usage(stdout);
            return 1;
        } else if (k[0] == '-')
            return hr_cli_usage_error("replay", "unknown option '%s' (see --help)", k);
        else if (add_trace_arg(a, k) != 0)
            return 2;
    }
    if (a->npaths == 0)
        return hr_cli_usage_error("replay", "expected at least one TRACE or DIR (see --help)");
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

/* Expands "all" and checks every spec; fills specs[] (borrowed/strdup'd). */
static int expand_allocators(const char *list, char ***specs, int *n, int quiet) {
    char *copy = strdup(list), *save = NULL;
    *specs = NULL;
    *n = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
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

/* Progress line per replay process. */
static void progress(const hr_child_job_t *job, int index, void *ctx) {
    (void)index, (void)ctx;
    fprintf(stderr, "replay %s on %s (%s)\n", job->trace_name, job->spec,
            hr_replay_mode_name(job->mode));
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

/* Joins each sample's process lines and adds one result per allocator. */
static int add_results(const plan_t *p, char **lines, char **specs, const char *path,
                       hr_report_builder_t *rb) {
    char **samples = calloc((size_t)p->rep, sizeof *samples);
    int failed = 0;
    for (int s = 0; s < p->nspecs && !failed; s++) {
        const char *verify = p->verify ? lines[job_index(p, s, 0, HR_MODE_VERIFY)] : NULL;
        const char *count = p->count ? lines[job_index(p, s, 0, HR_MODE_COUNT)] : NULL;
        for (int r = 0; r < p->rep; r++)
            samples[r] = hr_result_join(lines[job_index(p, s, r, HR_MODE_MEASURE)],
                                        lines[job_index(p, s, r, HR_MODE_TIME)], verify, count);
        hr_error_t err = {{0}};
        if (hr_report_builder_add(rb, samples, p->rep, &err) != 0) {
            fprintf(stderr, "heapreplay replay: %s on %s: %s\n", path, specs[s], err.msg);
            failed = 1;
        }
        for (int r = 0; r < p->rep; r++)
            free(samples[r]);
    }
    free(samples);
    return failed;
}

/* From here on the parent reads the shared copy, as the workers do, and
 * drops its own decoded one (24 bytes per event): the trace is resident once
 * for the whole process tree. Returns 1 when t is now the mapping. */
static int adopt_shared(hr_trace_t *t, int tfd) {
    hr_trace_t m;
    char d[17];
    if (hr_trace_map(tfd, &m, d, NULL) != 0)
        return 0; /* keep the private copy: it serves as well */
    hr_trace_free(t);
    *t = m;
    return 1;
}

static void release_trace(hr_trace_t *t, int mapped) {
    if (mapped)
        hr_trace_unmap(t);
    else
        hr_trace_free(t);
}

/* Replays one trace on every allocator (all processes forked from one
 * pristine server); appends the merged results. */
static int replay_trace(const replay_args_t *a, const char *path, char **specs, int nspecs,
                        hr_report_builder_t *rb) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    if (hr_trace_read_file(path, HR_FMT_AUTO, &t, &err) != 0) {
        fprintf(stderr, "heapreplay replay: %s\n", err.msg);
        hr_trace_free(&t);
        return 2;
    }
    char digest[17];
    hr_trace_digest(&t, digest);
    int tfd = hr_trace_compact_ids(&t, &err) == 0 ? hr_trace_share(&t, digest, &err) : -1;
    if (tfd < 0) {
        fprintf(stderr, "heapreplay replay: %s: %s\n", path, err.msg);
        hr_trace_free(&t);
        return 2;
    }
    int mapped = adopt_shared(&t, tfd);
    plan_t p = {nspecs, a->opt.repeat, a->opt.verify, a->opt.count != HR_COUNT_NONE, "", NULL};
    if (a->opt.count == HR_COUNT_CALLGRIND && plan_count_files(&p) != 0) {
        fprintf(stderr, "heapreplay replay: cannot create a temporary directory: %s\n", strerror(errno));
        close(tfd);
        release_trace(&t, mapped);
        return 2;
    }
    int n = plan_jobs(&p), failed = 0;
    hr_child_job_t *jobs = calloc((size_t)n, sizeof *jobs);
    char **lines = calloc((size_t)n, sizeof *lines);
    hr_child_job_t proto = {&t, tfd, path, digest, NULL, NULL, &a->opt, hr_cli_self_exe(),
                            HR_MODE_MEASURE, NULL};
    fill_jobs(&p, jobs, &proto, specs);
    if (hr_child_run_all(jobs, n, lines, a->quiet ? NULL : progress, NULL) != 0) {
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
        failed = add_results(&p, lines, specs, path, rb);
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    free(jobs);
    close(tfd);
    release_trace(&t, mapped);
    return failed;
}

int hr_cmd_replay(int argc, char **argv) {
    replay_args_t a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    char **specs;
    int nspecs;
    if ((rc = expand_allocators(a.allocators, &specs, &nspecs, a.quiet)) != 0)
        return rc;
    hr_report_builder_t *rb = hr_report_builder_new(&a.opt);
    hr_report_builder_set_command(rb, argc, argv);
    int failed = 0;
    for (int i = 0; i < a.npaths && rc == 0; i++) {
        int r = replay_trace(&a, a.paths[i], specs, nspecs, rb);
        if (r == 2)
            rc = 2;
        failed |= r;
    }
    if (rc == 0)
        rc = hr_report_builder_finish(rb, a.output, a.format, stdout);
    if (rc == 0 && (failed || hr_report_builder_failures(rb)))
        rc = 1;
    hr_report_builder_free(rb);
    for (int i = 0; i < nspecs; i++)
        free(specs[i]);
    free(specs);
    for (int i = 0; i < a.npaths; i++)
        free(a.paths[i]);
    free(a.paths);
    return rc;
}
