/* heapreplay replay [options] TRACE|DIR...: every (trace, allocator, repeat)
 * in its own child process; results aggregated (median timings) into one
 * report, written as JSON with -o and rendered on stdout. The options and
 * arguments are read in replay_args.c, the engine's pools handled in
 * replay_pools.c; this file plans and runs the processes, shows progress
 * and stops cleanly on SIGINT/SIGTERM. */
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
#include "cli/cli.h"
#include "cli/replay_int.h"
#include "report/builder.h"
#include "replay/child.h"
#include "report/report.h"
#include "trace/format.h"
#include "trace/shared.h"
#include "trace/share_file.h"
#include "replay/counter.h"
#include "base/json.h"

/* Progress over the whole run: on a terminal one line rewritten in place
 * (every HR_CHILD_TICK_MS): [k/N] processes, the share of processes done,
 * how far the current process is (its elapsed time over the time the same
 * allocator took in the same mode for the previous sample; the elapsed
 * time alone for a first sample) and an ETA from the mean time per finished
 * process. Off a terminal nothing, or with -v one line per process. */
typedef struct progress {
    int tty, lines;     /* rewrite one line; print lines */
    int done, total;    /* processes started before the current trace, all */
    double t0;          /* start of the run */
    int shown;          /* a terminal line is on screen */
    int cur;            /* the current trace's running job (-1: none yet) */
    double cur_t0;      /* when it started */
    double *dur;        /* seconds per job of the current trace (0: not ended) */
    const hr_child_job_t **job; /* the jobs seen, for their spec and mode */
    int n;              /* jobs of the current trace */
} progress_t;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ", this one 40%" from the previous sample of the same allocator and mode,
 * or ", this one 12 s" when there is none. Returns the share done (0..0.99),
 * or 0 when unknown. */
static double current_share(const progress_t *pg, int index, double now, char *out, size_t cap) {
    const hr_child_job_t *j = pg->job[index];
    double el = now - pg->cur_t0;
    for (int i = index - 1; i >= 0; i--)
        if (pg->job[i] && pg->dur[i] > 0 && pg->job[i]->mode == j->mode &&
            strcmp(pg->job[i]->spec, j->spec) == 0) {
            double pct = 100.0 * el / pg->dur[i];
            pct = pct < 99 ? pct : 99;
            snprintf(out, cap, ", this one %.0f%%", pct);
            return pct / 100;
        }
    snprintf(out, cap, ", this one %.0f s", el);
    return 0;
}

static void progress(const hr_child_job_t *job, int index, void *ctx) {
    progress_t *pg = ctx;
    double now = now_s();
    int fresh = index != pg->cur;
    if (fresh && pg->dur && index < pg->n) {
        if (pg->cur >= 0)
            pg->dur[pg->cur] = now - pg->cur_t0;
        pg->job[index] = job;
        pg->cur = index;
        pg->cur_t0 = now;
    }
    int k = pg->done + index; /* processes finished */
    char eta[32] = "", cur[32] = "";
    double el = now - pg->t0;
    double part = pg->dur && index < pg->n ? current_share(pg, index, now, cur, sizeof cur) : 0;
    if (k + part > 0) { /* the mean time per process so far, the current one's share counted */
        double left = el / (k + part) * (pg->total - k - part);
        snprintf(eta, sizeof eta, ", ETA %dm%02ds", (int)(left / 60), (int)left % 60);
    }
    if (pg->tty) { /* cut to the terminal's width: a wrapped line would scroll */
        char line[512];
        struct winsize ws;
        int cols = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 8 ? ws.ws_col - 1 : 79;
        snprintf(line, sizeof line, "[%d/%d] %3.0f%%%s%s  %s on %s (%s)", k + 1, pg->total,
                 100.0 * k / pg->total, cur, eta, job->trace_name, job->spec,
                 hr_replay_mode_name(job->mode));
        fprintf(stderr, "\r\033[K%.*s", cols, line);
        pg->shown = 1;
    } else if (pg->lines && fresh) {
        fprintf(stderr, "[%d/%d] replay %s on %s (%s)\n", k + 1, pg->total, job->trace_name,
                job->spec, hr_replay_mode_name(job->mode));
    }
}

/* Before a trace's n jobs run: fresh per-job records. */
static void progress_trace(progress_t *pg, int n) {
    free(pg->dur);
    free(pg->job);
    pg->dur = calloc((size_t)n, sizeof *pg->dur);
    pg->job = calloc((size_t)n, sizeof *pg->job);
    pg->n = pg->dur && pg->job ? n : 0;
    pg->cur = -1;
}

static void progress_end(progress_t *pg) {
    if (pg->shown)
        fputs("\r\033[K", stderr);
    pg->shown = 0;
    free(pg->dur);
    free(pg->job);
    pg->dur = NULL;
    pg->job = NULL;
    pg->n = 0;
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
                       int stop, const hr_pool_info_t *pi, const hr_program_time_t *prog,
                       hr_report_builder_t *rb) {
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
            hr_json_t *pj = hr_program_json(prog); /* the trace's program time, if any */
            if (pj)
                hr_report_builder_set_last(rb, "program", pj);
            if (stop)
                hr_report_builder_interrupted(rb, sig_name(stop), partial);
        }
        for (int r = 0; r < n; r++)
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

/* Whether to try the packed form for path (hr_event_form_t): never with
 * pool routes nor for stdin or a FIFO; forced; or auto for a plain binary
 * file of at least HR_FORM_AUTO_EVENTS events. */
static int want_packed(const replay_args_t *a, const char *path) {
    uint64_t n = 0;
    struct stat st;
    /* Only a regular file: a pipe or FIFO cannot be read again by the
     * decoded path when the packed one declines the trace. */
    if (a->opt.event_form == HR_FORM_DECODED || a->pools.n || strcmp(path, "-") == 0 ||
        stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    int bin = hr_trace_peek(path, &n) == 0;
    return a->opt.event_form == HR_FORM_PACKED || (bin && n >= HR_FORM_AUTO_EVENTS);
}

/* The packed path: the file is read in slices straight into the shared
 * memfd, which t then maps. Returns the descriptor; -1 with err (a bad
 * trace: the same message the decoded path gives); -2 when the trace
 * cannot be packed after all (it has pools, which the parent lowers in the
 * decoded events): decode it. */
static int share_packed(const replay_args_t *a, const char *path, hr_trace_t *t, char digest[17],
                        hr_program_time_t *prog, hr_error_t *err) {
    hr_trace_summary_t s;
    int fd = hr_trace_share_file(path, &s, err);
    if (fd < 0)
        return -1;
    int pools = s.t.op_counts[HR_OP_POOL_ALLOC] || s.t.op_counts[HR_OP_POOL_FREE] ||
                s.t.op_counts[HR_OP_POOL_REALLOC];
    if (pools) {
        if (a->opt.event_form == HR_FORM_PACKED && !a->quiet)
            fprintf(stderr, "heapreplay replay: %s: the trace has pools: its events are decoded "
                    "(--event-form packed serves traces without pools)\n", path);
        hr_trace_summary_free(&s);
        close(fd);
        return -2;
    }
    memcpy(digest, s.digest, 17);
    *prog = s.t.program;
    hr_trace_summary_free(&s);
    char d[17];
    if (hr_trace_map(fd, t, d, err) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The decoded path: read whole, lower pools, rename sparse ids, share; the
 * parent then maps the shared copy too (adopt_shared). */
static int share_decoded(const replay_args_t *a, const char *path, hr_trace_t *t, char digest[17],
                         hr_program_time_t *prog, hr_pool_info_t *pi, int *mapped,
                         hr_error_t *err) {
    if (hr_trace_read_file(path, HR_FMT_AUTO, t, err) != 0)
        return -1;
    hr_trace_digest(t, digest); /* of the trace as read, before lowering its pools */
    *prog = t->program; /* the shared copy does not carry it */
    int tfd = hr_pool_prepare(&a->pools, t, path, a->quiet, pi, err) == 0 &&
                      hr_trace_compact_ids(t, err) == 0
                  ? hr_trace_share(t, digest, err)
                  : -1;
    if (tfd < 0) { /* pool and sharing messages do not name the file */
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err->msg);
        hr_error_set(err, "%s: %s", path, m);
        return -1;
    }
    *mapped = adopt_shared(t, tfd);
    return tfd;
}

/* Replays one trace on every allocator (all processes forked from one
 * pristine server); appends the merged results. */
static int replay_trace(const replay_args_t *a, const char *path, char **specs, int nspecs,
                        progress_t *pg, hr_report_builder_t *rb) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    char digest[17];
    hr_program_time_t prog;
    hr_pool_info_t pi;
    int mapped = 0, tfd = -2;
    hr_trace_init(&t);
    memset(&pi, 0, sizeof pi);
    pi.routes = &a->pools;
    pi.t = &t;
    if (want_packed(a, path) && (tfd = share_packed(a, path, &t, digest, &prog, &err)) >= 0)
        mapped = 1;
    if (tfd == -2)
        tfd = share_decoded(a, path, &t, digest, &prog, &pi, &mapped, &err);
    if (tfd < 0) {
        fprintf(stderr, "heapreplay replay: %s\n", err.msg);
        hr_pool_info_free(&pi);
        release_trace(&t, mapped);
        return 2;
    }
    plan_t p = {nspecs, a->opt.repeat, a->opt.verify, a->opt.count != HR_COUNT_NONE, "", NULL};
    if (a->opt.count == HR_COUNT_CALLGRIND && plan_count_files(&p) != 0) {
        fprintf(stderr, "heapreplay replay: cannot create a temporary directory: %s\n", strerror(errno));
        close(tfd);
        hr_pool_info_free(&pi);
        release_trace(&t, mapped);
        return 2;
    }
    int n = plan_jobs(&p), failed = 0;
    hr_child_job_t *jobs = calloc((size_t)n, sizeof *jobs);
    char **lines = calloc((size_t)n, sizeof *lines);
    hr_child_job_t proto = {&t, tfd, path, digest, NULL, NULL, &a->opt, hr_cli_self_exe(),
                            HR_MODE_MEASURE, NULL};
    fill_jobs(&p, jobs, &proto, specs);
    progress_trace(pg, n);
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
        failed = add_results(&p, lines, specs, path, stop, &pi, &prog, rb);
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    free(jobs);
    close(tfd);
    hr_pool_info_free(&pi);
    release_trace(&t, mapped);
    return stop ? 3 : failed;
}

/* --shard K/N: which (trace, allocator) cells this run replays
 * (report/merge.h: the cells sorted, dealt round-robin). mine[t * nspecs + s]
 * is 1 for a cell of shard K; the report records "options.shard" and the
 * whole matrix, which merge checks. Without --shard every cell is mine.
 * Returns the number of cells to replay, or -1 when out of memory. */
static int shard_select(const replay_args_t *a, char **specs, int nspecs, hr_report_builder_t *rb,
                        char *mine) {
    size_t cells = (size_t)a->npaths * (size_t)nspecs;
    int n = 0;
    memset(mine, 1, cells);
    if (a->shard.n == 0)
        return (int)cells;
    int *of = calloc(cells + 1, sizeof *of);
    if (!of || hr_shard_assign((const char *const *)a->paths, a->npaths,
                               (const char *const *)specs, nspecs, a->shard.n, of) != 0) {
        free(of);
        return -1;
    }
    for (size_t i = 0; i < cells; i++)
        n += (mine[i] = of[i] == a->shard.k);
    free(of);
    char label[32];
    snprintf(label, sizeof label, "%d/%d", a->shard.k, a->shard.n);
    hr_report_builder_set_doc(rb, "options", "shard", hr_json_new_str(label));
    hr_report_builder_set_doc(rb, NULL, "matrix",
                              hr_shard_matrix((const char *const *)a->paths, a->npaths,
                                              (const char *const *)specs, nspecs));
    return n;
}

int hr_cmd_replay(int argc, char **argv) {
    replay_args_t a;
    int rc = hr_replay_parse_args(argc, argv, &a);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    char **specs;
    int nspecs;
    if ((rc = hr_replay_expand_allocators(a.allocators, &specs, &nspecs, a.quiet)) != 0 ||
        (rc = hr_pool_routes_apply(&a.pools, specs, nspecs)) != 0)
        return rc;
    hr_report_builder_t *rb = hr_report_builder_new(&a.opt);
    hr_report_builder_set_command(rb, argc, argv);
    char *mine = malloc((size_t)a.npaths * (size_t)nspecs + 1);
    char **sub = calloc((size_t)nspecs + 1, sizeof *sub); /* one trace's specs in this shard */
    int cells = mine && sub ? shard_select(&a, specs, nspecs, rb, mine) : -1;
    if (cells < 0) {
        rc = hr_cli_usage_error("replay", "out of memory");
        cells = 0;
    }
    plan_t per = {1, a.opt.repeat, a.opt.verify, a.opt.count != HR_COUNT_NONE, "", NULL};
    progress_t pg = {isatty(2) && !a.verbose, a.verbose, 0, plan_jobs(&per) * cells, now_s(), 0,
                     -1, 0, NULL, NULL, 0};
    int failed = 0, stop = 0;
    hr_child_trap_signals();
    for (int i = 0; i < a.npaths && rc == 0 && !stop; i++) {
        int nsub = 0;
        for (int s = 0; s < nspecs; s++)
            if (mine[(size_t)i * (size_t)nspecs + (size_t)s])
                sub[nsub++] = specs[s];
        if (nsub == 0)
            continue; /* another shard's trace: not even read */
        int r = replay_trace(&a, a.paths[i], sub, nsub, &pg, rb);
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
    if (rc == 0) {
        hr_report_builder_set_render(rb, &a.render);
        rc = hr_report_builder_finish(rb, a.output, a.format, stdout);
    }
    if (rc == 0 && (failed || hr_report_builder_failures(rb)))
        rc = 1;
    if (stop && rc != 2)
        rc = 128 + stop;
    hr_report_builder_free(rb);
    free(mine);
    free(sub);
    for (int i = 0; i < nspecs; i++)
        free(specs[i]);
    free(specs);
    for (int i = 0; i < a.npaths; i++)
        free(a.paths[i]);
    free(a.paths);
    free(a.allocators);
    return rc;
}
