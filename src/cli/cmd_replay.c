/* heapreplay replay [options] TRACE|DIR...: every (trace, allocator, repeat)
 * in its own child process; results aggregated (median timings) into one
 * report, written as JSON with -o and rendered on stdout. The options and
 * arguments are read in replay_args.c, the engine's pools handled in
 * replay_pools.c; the run plan and its execution are the replay layer's
 * (replay/plan.h). This file picks the cells (--shard), turns each cell's
 * result lines into report rows, shows progress and reports an
 * interruption (SIGINT/SIGTERM). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "backends/spec.h"
#include "cli/cli.h"
#include "cli/replay_int.h"
#include "report/builder.h"
#include "replay/child.h"
#include "replay/plan.h"
#include "report/paired.h"
#include "report/report.h"
#include "trace/format.h"
#include "trace/framestat.h"
#include "base/json.h"
#include "base/outfile.h"

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
            strcmp(pg->job[i]->spec->text, j->spec->text) == 0) {
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
                 100.0 * k / pg->total, cur, eta, job->trace_name, job->spec->text,
                 hr_replay_mode_name(job->mode));
        fprintf(stderr, "\r\033[K%.*s", cols, line);
        pg->shown = 1;
    } else if (pg->lines && fresh) {
        fprintf(stderr, "[%d/%d] replay %s on %s (%s)\n", k + 1, pg->total, job->trace_name,
                job->spec->text, hr_replay_mode_name(job->mode));
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

/* The trace's own objects, the same in every row of it: made once when the
 * decoded trace is prepared, a copy set in each of its rows, freed when the
 * trace is released (a packed trace, never prepared, has none). */
enum { TR_SITES, TR_ROUTING, TR_FRAMES, TR__COUNT };
static const char *const tr_key[TR__COUNT] = {
    "sites",   /* its call sites: the trace has stacks */
    "routing", /* --plan: each rule's blocks and violations */
    "frames",  /* its per-frame figures (docs/METRICS.md): the trace has frames */
};

/* What the run's hooks share: the arguments, the report, progress, and
 * the pools and own objects of the trace being replayed. */
typedef struct replay_ctx {
    const replay_args_t *a;
    hr_report_builder_t *rb;
    progress_t          *pg;
    hr_pool_info_t       pi;
    hr_json_t           *tr[TR__COUNT]; /* NULL: the trace has none */
} replay_ctx_t;

/* Before the decoded trace is shared: its pools summed and lowered. */
static int on_prepare(void *ctx, hr_trace_t *t, const char *path, hr_error_t *err) {
    replay_ctx_t *c = ctx;
    if (c->a->threads.n) { /* --thread: the chosen threads' events (threadsel.h) */
        size_t all = t->n_events;
        int64_t kept = hr_threadsel_apply(t, &c->a->threads, path, err);
        if (kept < 0)
            return -1;
        if (!c->a->quiet)
            fprintf(stderr, "heapreplay replay: %s: --thread %s: %lld of %zu events kept\n", path,
                    c->a->threads_arg, (long long)kept, all);
    }
    hr_framestat_t fs; /* before lowering: named frames are still their streams' */
    int rc = hr_framestat_compute(t, &fs, err);
    if (rc < 0)
        return -1;
    c->tr[TR_FRAMES] = rc > 0 ? hr_framestat_json(&fs) : NULL;
    if (rc > 0 && !c->tr[TR_FRAMES]) {
        hr_error_set(err, "%s: frame figures: out of memory", path);
        return -1;
    }
    c->tr[TR_SITES] = hr_replay_sites_json(t); /* before a plan rewrites the blocks */
    if (c->a->route) {
        if (hr_replay_route_prepare(c->a, t, path, err) != 0)
            return -1;
        c->tr[TR_ROUTING] = hr_replay_route_json(c->a); /* the rules' counts of this trace */
    }
    return hr_pool_prepare(c->a->route ? &c->a->route_pools : &c->a->pools, t, path,
                           c->a->quiet, &c->pi, err);
}

static void on_release(void *ctx) {
    replay_ctx_t *c = ctx;
    hr_pool_info_free(&c->pi);
    for (int k = 0; k < TR__COUNT; k++) {
        hr_json_free(c->tr[k]);
        c->tr[k] = NULL;
    }
}

static void on_jobs_begin(void *ctx, int n) {
    progress_trace(((replay_ctx_t *)ctx)->pg, n);
}

static void on_jobs_end(void *ctx, int n) {
    progress_t *pg = ((replay_ctx_t *)ctx)->pg;
    pg->done += n;
    progress_end(pg);
}

static void on_progress(const hr_child_job_t *job, int index, void *ctx) {
    progress(job, index, ((replay_ctx_t *)ctx)->pg);
}

/* A copy of the trace's own object k in the row just added, if it has one. */
static void set_trace_obj(replay_ctx_t *c, int k) {
    hr_json_t *o = c->tr[k] ? hr_json_clone(c->tr[k]) : NULL;
    if (o)
        hr_report_builder_set_last(c->rb, tr_key[k], o);
}

/* One cell's samples joined (each sample's measure, time, verify and count
 * lines) into one report row, with the trace's pools and program time; an
 * interrupted cell is marked. Nonzero when the row could not be added. */
static int on_cell(void *ctx, const hr_replay_cell_t *cell) {
    replay_ctx_t *c = ctx;
    char **samples = calloc((size_t)cell->n, sizeof *samples);
    hr_error_t err = {{0}};
    int failed = 0;
    for (int r = 0; samples && r < cell->n; r++)
        samples[r] = hr_result_join(cell->measure[r], cell->time[r], cell->verify, cell->count);
    if (!samples || hr_report_builder_add(c->rb, samples, cell->n, &err) != 0) {
        fprintf(stderr, "heapreplay replay: %s on %s: %s\n", cell->path, cell->alloc->text,
                samples ? err.msg : "out of memory");
        failed = samples && !hr_outfile_oom() ? 1 : 2; /* 2: out of memory, not the row */
    } else {
        hr_json_t *pools = hr_pool_json(&c->pi);
        if (pools)
            hr_report_builder_set_last(c->rb, "pools", pools);
        set_trace_obj(c, TR_SITES);
        set_trace_obj(c, TR_ROUTING);
        hr_json_t *pj = hr_program_json(cell->program); /* the trace's program time, if any */
        if (pj)
            hr_report_builder_set_last(c->rb, "program", pj);
        hr_json_t *cj = cell->command ? hr_json_new_str(cell->command) : NULL;
        if (cj) /* which program the process ran (a --follow-forks capture's traces) */
            hr_report_builder_set_last(c->rb, HR_RK_COMMAND, cj);
        if (hr_alloc_spec_needs_size(cell->alloc)) /* the report says what adopting it takes */
            hr_report_builder_set_last(c->rb, HR_RK_NEEDS_SIZE, hr_json_new_bool(1));
        set_trace_obj(c, TR_FRAMES);
        if (cell->stop)
            hr_report_builder_interrupted(c->rb, sig_name(cell->stop), cell->partial);
    }
    for (int r = 0; samples && r < cell->n; r++)
        free(samples[r]);
    free(samples);
    return failed;
}

/* --shard K/N: which (trace, allocator) cells this run replays
 * (report/merge.h: the cells sorted, dealt round-robin). mine[t * nspecs + s]
 * is 1 for a cell of shard K; the report records "options.shard" and the
 * whole matrix, which merge checks. Without --shard every cell is mine.
 * names: the specs' text. 0, or -1 when out of memory. */
static int shard_select(const replay_args_t *a, const char *const *names, int nspecs,
                        hr_report_builder_t *rb, unsigned char *mine) {
    size_t cells = (size_t)a->npaths * (size_t)nspecs;
    memset(mine, 1, cells);
    if (a->shard.n == 0)
        return 0;
    int *of = calloc(cells + 1, sizeof *of);
    if (!of || hr_shard_assign((const char *const *)a->paths, a->npaths, names, nspecs,
                               a->shard.n, of) != 0) {
        free(of);
        return -1;
    }
    for (size_t i = 0; i < cells; i++)
        mine[i] = of[i] == a->shard.k;
    free(of);
    char label[32];
    snprintf(label, sizeof label, "%d/%d", a->shard.k, a->shard.n);
    hr_report_builder_set_doc(rb, "options", "shard", hr_json_new_str(label));
    hr_report_builder_set_doc(rb, NULL, "matrix",
                              hr_shard_matrix((const char *const *)a->paths, a->npaths, names,
                                              nspecs));
    return 0;
}

/* The run plan of the parsed arguments: its cells (--shard) recorded in the
 * report. 0, or 2 after a usage error. */
static int make_plan(const replay_args_t *a, const hr_alloc_spec_t *specs, int nspecs,
                     hr_report_builder_t *rb, hr_replay_plan_t *plan) {
    const char **names = calloc((size_t)nspecs + 1, sizeof *names);
    unsigned char *mine = malloc((size_t)a->npaths * (size_t)nspecs + 1);
    int bad = !names || !mine;
    for (int s = 0; !bad && s < nspecs; s++)
        names[s] = specs[s].text;
    bad = bad || shard_select(a, names, nspecs, rb, mine) != 0 ||
          hr_replay_plan_init(plan, (const char *const *)a->paths, a->npaths, specs, nspecs,
                              &a->opt, mine) != 0;
    free(names);
    free(mine);
    if (bad) {
        memset(plan, 0, sizeof *plan);
        return hr_cli_usage_error("replay", "out of memory");
    }
    /* pool routes and a routing plan: the parent lowers decoded pools;
     * --thread: it filters them */
    plan->decoded_only = a->pools.n > 0 || a->route || a->threads.n > 0;
    plan->quiet = a->quiet;
    plan->self_exe = hr_cli_self_exe();
    return 0;
}

/* --pair: the paired section of the finished rows (report/paired.h), put
 * in the report as "paired" (*out points into it). 0, or 2. */
static int pair_section(const replay_args_t *a, const hr_alloc_spec_t *specs,
                        hr_report_builder_t *rb, hr_json_t **out) {
    hr_error_t err = {{0}};
    hr_json_t *sec = hr_paired_section(hr_report_builder_doc(rb), specs[0].text, specs[1].text,
                                       a->pair_tol, &err);
    if (!sec) {
        fprintf(stderr, "heapreplay replay: %s\n", err.msg);
        return 2;
    }
    hr_report_builder_set_doc(rb, NULL, "paired", sec);
    *out = sec;
    return 0;
}

static void free_args(replay_args_t *a) {
    for (int i = 0; i < a->npaths; i++)
        free(a->paths[i]);
    free(a->paths);
    free(a->allocators);
    hr_replay_route_free(a);
}

int hr_cmd_replay(int argc, char **argv) {
    replay_args_t a;
    int rc = hr_replay_parse_args(argc, argv, &a);
    if (rc != 0) { /* what the options gathered before the error is freed too */
        free_args(&a);
        return rc == 1 ? 0 : rc;
    }
    hr_alloc_spec_t *specs;
    int nspecs;
    if ((rc = hr_replay_expand_allocators(a.allocators, &specs, &nspecs, a.quiet)) != 0) {
        free_args(&a);
        return rc;
    }
    if ((rc = a.route ? hr_replay_route_specs(&a, &specs, &nspecs)
                      : hr_pool_routes_apply(&a.pools, specs, nspecs)) != 0) {
        hr_replay_specs_free(specs, nspecs);
        free_args(&a);
        return rc;
    }
    hr_report_builder_t *rb = hr_report_builder_new(&a.opt);
    if (!rb) {
        fprintf(stderr, "heapreplay replay: %s\n", strerror(ENOMEM));
        hr_replay_specs_free(specs, nspecs);
        free_args(&a);
        return 2;
    }
    if (a.pair && nspecs != 2) {
        hr_replay_specs_free(specs, nspecs);
        free_args(&a);
        hr_report_builder_free(rb);
        return hr_cli_usage_error("replay", "--pair compares exactly two allocators (-a A,B), "
                                  "not %d", nspecs);
    }
    hr_report_builder_set_command(rb, argc, argv);
    hr_replay_plan_t plan;
    rc = make_plan(&a, specs, nspecs, rb, &plan);
    if (a.threads.n) /* the report says its rows are these threads' */
        hr_report_builder_set_doc(rb, "options", "thread", hr_json_new_str(a.threads_arg));
    progress_t pg = {isatty(2) && !a.verbose, a.verbose, 0, rc ? 0 : hr_replay_plan_total_jobs(&plan),
                     now_s(), 0, -1, 0, NULL, NULL, 0};
    replay_ctx_t ctx = {&a, rb, &pg, {0}, {NULL}};
    hr_replay_hooks_t hooks = {&ctx, on_prepare, on_release, on_cell, on_jobs_begin,
                               a.quiet ? NULL : on_progress, on_jobs_end};
    int failed = 0, stop = 0;
    hr_child_trap_signals();
    if (rc == 0) {
        int r = hr_replay_run(&plan, &hooks, &stop);
        if (r == 2)
            rc = 2;
        else
            failed = r;
    }
    if (stop) { /* the rows finished so far, marked (on_cell) */
        hr_report_builder_interrupted(rb, sig_name(stop), 0);
        fprintf(stderr, "heapreplay replay: interrupted by %s%s%s\n", sig_name(stop),
                a.output ? "; partial report in " : "", a.output ? a.output : "");
    }
    if (rc == 0 && !stop)
        hr_replay_startup_section(specs, nspecs, rb, a.quiet);
    hr_json_t *paired = NULL;
    if (rc == 0 && a.pair && !stop)
        rc = pair_section(&a, specs, rb, &paired);
    if (rc == 0) {
        hr_report_builder_set_render(rb, &a.render);
        rc = hr_report_builder_finish(rb, a.output, a.out_format, a.format, stdout);
    }
    if (rc == 0 && paired && (a.format == HR_EMIT_TEXT || a.format == HR_EMIT_MARKDOWN))
        hr_paired_print(paired, stdout);
    if (rc == 0 && (failed || hr_report_builder_failures(rb) ||
                    (paired && hr_paired_regressions(paired))))
        rc = 1;
    if (stop && rc != 2)
        rc = 128 + stop;
    hr_report_builder_free(rb);
    hr_replay_plan_free(&plan);
    hr_replay_specs_free(specs, nspecs);
    free_args(&a);
    return rc;
}
