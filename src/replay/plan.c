/* The run plan (plan.h): its cells and the job layout of one trace, then
 * its execution: each trace read and shared once, its processes run
 * (child.h), a callgrind count read into its line, every cell's lines
 * handed to the caller. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json.h"
#include "base/metrics.h"
#include "replay/counter.h"
#include "replay/memlimit.h"
#include "replay/plan.h"
#include "trace/format.h"
#include "trace/share_file.h"
#include "trace/shared.h"

/* A count under callgrind: a private directory for callgrind's output
 * files, one path per spec of the trace (outs NULL: no callgrind count). */
typedef struct plan_files {
    char dir[64];
    char (*outs)[96];
} plan_files_t;

int hr_replay_plan_init(hr_replay_plan_t *p, const char *const *paths, int npaths,
                        const hr_alloc_spec_t *specs, int nspecs, const hr_replay_options_t *opt,
                        const unsigned char *mine) {
    size_t cells = (size_t)npaths * (size_t)nspecs;
    memset(p, 0, sizeof *p);
    p->paths = paths;
    p->npaths = npaths;
    p->specs = specs;
    p->nspecs = nspecs;
    p->opt = opt;
    p->rep = opt->repeat;
    p->verify = opt->verify;
    p->count = opt->count != HR_COUNT_NONE;
    if (!(p->mine = malloc(cells + 1)))
        return -1;
    if (mine)
        memcpy(p->mine, mine, cells);
    else
        memset(p->mine, 1, cells);
    for (size_t i = 0; i < cells; i++)
        p->ncells += p->mine[i] != 0;
    return 0;
}

void hr_replay_plan_free(hr_replay_plan_t *p) {
    free(p->mine);
    p->mine = NULL;
}

int hr_replay_plan_cell_jobs(const hr_replay_plan_t *p) {
    return p->rep * 2 + !!p->verify + !!p->count;
}

int hr_replay_plan_total_jobs(const hr_replay_plan_t *p) {
    return hr_replay_plan_cell_jobs(p) * p->ncells;
}

/* One verify process per spec first (its verdict stands even when the
 * allocator later corrupts its heap and the timed processes crash:
 * invalid_first), then the measure and time processes, (sample, spec,
 * mode) in that order of significance, then one count process per spec. */
int hr_replay_plan_job(const hr_replay_plan_t *p, int nspecs, int spec, int sample,
                       hr_replay_mode_t mode) {
    int verify = p->verify ? nspecs : 0;
    if (mode == HR_MODE_VERIFY)
        return spec;
    if (mode == HR_MODE_COUNT)
        return verify + nspecs * p->rep * 2 + spec;
    return verify + (sample * nspecs + spec) * 2 + (mode == HR_MODE_TIME);
}

static int plan_count_files(const hr_replay_plan_t *p, int nspecs, plan_files_t *f) {
    const char *tmp = getenv("TMPDIR");
    memset(f, 0, sizeof *f);
    if (!p->count || p->opt->count != HR_COUNT_CALLGRIND)
        return 0;
    snprintf(f->dir, sizeof f->dir, "%s/heapreplay-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(f->dir)) {
        fprintf(stderr, "heapreplay replay: cannot create a temporary directory: %s\n",
                strerror(errno));
        return -1;
    }
    f->outs = calloc((size_t)nspecs, sizeof *f->outs);
    for (int s = 0; f->outs && s < nspecs; s++)
        snprintf(f->outs[s], sizeof f->outs[s], "%s/count-%d.out", f->dir, s);
    if (!f->outs) {
        rmdir(f->dir);
        fprintf(stderr, "heapreplay replay: cannot create a temporary directory: %s\n",
                strerror(ENOMEM));
        return -1;
    }
    return 0;
}

static void plan_count_files_free(plan_files_t *f) {
    if (f->outs) {
        rmdir(f->dir);
        free(f->outs);
        f->outs = NULL;
    }
}

/* subi[0..nspecs): the plan's specs of this trace (--shard leaves some out). */
static void fill_jobs(const hr_replay_plan_t *p, hr_child_job_t *jobs, const hr_child_job_t *proto,
                      const int *subi, int nspecs, const plan_files_t *f) {
    for (int s = 0; s < nspecs; s++)
        for (int r = 0; r < p->rep; r++)
            for (int k = 0; k < 2; k++) {
                hr_replay_mode_t m = k ? HR_MODE_TIME : HR_MODE_MEASURE;
                hr_child_job_t *j = &jobs[hr_replay_plan_job(p, nspecs, s, r, m)];
                *j = *proto;
                j->spec = &p->specs[subi[s]];
                j->mode = m;
            }
    for (int k = 0; k < 2; k++)
        for (int s = 0; (k ? p->count : p->verify) && s < nspecs; s++) {
            hr_replay_mode_t m = k ? HR_MODE_COUNT : HR_MODE_VERIFY;
            hr_child_job_t *j = &jobs[hr_replay_plan_job(p, nspecs, s, 0, m)];
            *j = *proto;
            j->spec = &p->specs[subi[s]];
            j->mode = m;
            j->count_out = f->outs ? f->outs[s] : NULL;
        }
}

/* key = value in the count group; with the per-op figure beside it where
 * the metric has one (instructions, cost). */
static void count_set(hr_json_t *c, hr_metric_id_t id, uint64_t value, double ops) {
    hr_json_set(c, hr_metric_key(&hr_metrics[id]), hr_json_new_u64(value));
    hr_metric_id_t per = id == HR_M_COUNT_INSNS ? HR_M_COUNT_PER_OP
                         : id == HR_M_COUNT_COST ? HR_M_COUNT_COST_PER_OP : HR_M__COUNT;
    if (per != HR_M__COUNT)
        hr_json_set(c, hr_metric_key(&hr_metrics[per]),
                    hr_json_new_num(ops > 0 ? (double)value / ops : NAN));
}

/* The system calls callgrind counted in the counted calls, by kind, and the
 * cost (replay/kcount.h) with the faults the worker wrote. */
static void count_kernel(hr_json_t *c, const hr_callgrind_sums_t *cg, double ops) {
    static const hr_metric_id_t kind_ids[HR_SYS__N] = {
        HR_M_COUNT_SYS_MMAP,     HR_M_COUNT_SYS_MUNMAP, HR_M_COUNT_SYS_BRK,  HR_M_COUNT_SYS_MADVISE,
        HR_M_COUNT_SYS_MPROTECT, HR_M_COUNT_SYS_MREMAP, HR_M_COUNT_SYS_OTHER,
    };
    const hr_json_t *f = hr_json_get(c, hr_metric_key(&hr_metrics[HR_M_COUNT_FAULTS]));
    double faults = hr_json_num(f, 0);
    if (cg->have_sys) {
        count_set(c, HR_M_COUNT_SYSCALLS, cg->sys, ops);
        for (int k = 0; k < HR_SYS__N; k++)
            count_set(c, kind_ids[k], cg->sys_kind[k], ops);
    }
    count_set(c, HR_M_COUNT_COST, hr_kcost(cg->ir, faults > 0 ? (uint64_t)faults : 0,
                                           cg->have_sys ? cg->sys : 0), ops);
}

/* A count under callgrind: the total comes from callgrind's file, read here
 * once the process has ended, into the count line's "count" group. The
 * line is edited as JSON (the worker that wrote it has ended; the report
 * builder then decodes the edited line once, like every other); the keys
 * come from the metric registry. */
static char *count_from_callgrind(char *line, const char *out) {
    hr_json_t *v = line ? hr_json_parse(line, strlen(line), "count result", NULL) : NULL;
    hr_json_t *c = (hr_json_t *)hr_json_get(v, "count");
    const char *st = hr_json_path_str(v, "status");
    if (!c || !st || strcmp(st, "ok") != 0) {
        hr_json_free(v);
        return line;
    }
    hr_callgrind_sums_t cg;
    hr_error_t err = {{0}};
    double ops = hr_json_path_num(v, hr_metrics[HR_M_OPS_TOTAL].path);
    if (hr_callgrind_read(out, &cg, &err) != 0 || (cg.ir == 0 && ops > 0)) {
        hr_json_set(v, "status", hr_json_new_str("error"));
        hr_json_set(v, "error", hr_json_new_str(err.msg[0] ? err.msg : "callgrind counted nothing "
                                                "(is the binary stripped?)"));
    } else {
        count_set(c, HR_M_COUNT_INSNS, cg.ir, ops);
        count_kernel(c, &cg, ops);
    }
    unlink(out);
    free(line);
    line = hr_json_to_string(v, 1);
    hr_json_free(v);
    return line;
}

/* A sample's line that did not end "ok" (crashed, oom, ...) when the verify
 * process of the same cell found a violation: the violation speaks for the
 * sample ("invalid" with its event; what then happened to the process is
 * added), as it would had the allocator survived it. Returns the line to
 * keep: a new one (line is freed) or line itself. */
static char *invalid_first(char *line, const char *verify, hr_replay_mode_t mode) {
    hr_json_t *v = verify ? hr_json_parse(verify, strlen(verify), "verify result", NULL) : NULL;
    hr_json_t *m = line ? hr_json_parse(line, strlen(line), "replay result", NULL) : NULL;
    const char *vst = hr_json_path_str(v, "status");
    const char *kind = hr_json_path_str(v, hr_metrics[HR_M_VERIFY_STATUS].path);
    const char *mst = hr_json_path_str(m, "status");
    if (vst && strcmp(vst, "ok") == 0 && kind && strcmp(kind, "ok") != 0 && mst &&
        strcmp(mst, "ok") != 0) {
        const char *why = hr_json_path_str(v, hr_metrics[HR_M_VERIFY_ERROR].path);
        const char *then = hr_json_path_str(m, "error");
        char msg[1024];
        /* the sample's error already says what happened ("crashed with
         * signal 6 (Aborted)"); its bare status is the fallback */
        snprintf(msg, sizeof msg, "%s (then the %s process %s)", why ? why : kind,
                 hr_replay_mode_name(mode), then ? then : mst);
        hr_json_set(v, "status", hr_json_new_str("invalid"));
        hr_json_set(v, "error", hr_json_new_str(msg));
        free(line);
        line = hr_json_to_string(v, 1);
    }
    hr_json_free(v);
    hr_json_free(m);
    return line;
}

static void invalid_over_failures(const hr_replay_plan_t *p, char **lines, int nsub) {
    for (int s = 0; p->verify && s < nsub; s++) {
        const char *v = lines[hr_replay_plan_job(p, nsub, s, 0, HR_MODE_VERIFY)];
        for (int r = 0; v && r < p->rep; r++)
            for (int k = 0; k < 2; k++) {
                hr_replay_mode_t m = k ? HR_MODE_TIME : HR_MODE_MEASURE;
                int j = hr_replay_plan_job(p, nsub, s, r, m);
                lines[j] = invalid_first(lines[j], v, m);
            }
    }
}

/* ---- execution ---------------------------------------------------------- */

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

/* Whether to try the packed form for path (hr_event_form_t): never when the
 * caller prepares decoded events (pool routes) nor for stdin or a FIFO;
 * forced; or auto for a plain binary file of at least HR_FORM_AUTO_EVENTS
 * events. */
static int want_packed(const hr_replay_plan_t *p, const char *path) {
    uint64_t n = 0;
    struct stat st;
    /* Only a regular file: a pipe or FIFO cannot be read again by the
     * decoded path when the packed one declines the trace. */
    if (p->opt->event_form == HR_FORM_DECODED || p->decoded_only || strcmp(path, "-") == 0 ||
        stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    int bin = hr_trace_peek(path, &n) == 0;
    return p->opt->event_form == HR_FORM_PACKED || (bin && n >= HR_FORM_AUTO_EVENTS);
}

/* The packed path: the file is read in slices straight into the shared
 * memfd, which t then maps. Returns the descriptor; -1 with err (a bad
 * trace: the same message the decoded path gives); -2 when the trace
 * cannot be packed after all (it has pools, which the parent lowers in the
 * decoded events): decode it. */
static int share_packed(const hr_replay_plan_t *p, const char *path, hr_trace_t *t,
                        char digest[17], hr_program_time_t *prog, char **cmd, hr_error_t *err) {
    hr_trace_summary_t s;
    int fd = hr_trace_share_file(path, &s, err);
    if (fd < 0)
        return -1;
    int pools = s.t.op_counts[HR_OP_POOL_ALLOC] || s.t.op_counts[HR_OP_POOL_FREE] ||
                s.t.op_counts[HR_OP_POOL_REALLOC];
    if (pools) {
        if (p->opt->event_form == HR_FORM_PACKED && !p->quiet)
            fprintf(stderr, "heapreplay replay: %s: the trace has pools: its events are decoded "
                    "(--event-form packed serves traces without pools)\n", path);
        hr_trace_summary_free(&s);
        close(fd);
        return -2;
    }
    memcpy(digest, s.digest, 17);
    *prog = s.t.program;
    *cmd = s.t.command; /* taken: the shared copy does not carry it */
    s.t.command = NULL;
    hr_trace_summary_free(&s);
    char d[17];
    if (hr_trace_map(fd, t, d, err) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The decoded path: read whole, prepare (the caller: pools), rename sparse
 * ids, share; the parent then maps the shared copy too (adopt_shared). */
static int share_decoded(const hr_replay_hooks_t *h, const char *path, hr_trace_t *t,
                         char digest[17], hr_program_time_t *prog, char **cmd, int *mapped,
                         hr_error_t *err) {
    if (hr_trace_read_file(path, HR_FMT_AUTO, t, err) != 0)
        return -1;
    hr_trace_digest(t, digest); /* of the trace as read, before lowering its pools */
    *prog = t->program; /* the shared copy carries neither */
    *cmd = t->command;
    t->command = NULL;
    int tfd = (!h->prepare || h->prepare(h->ctx, t, path, err) == 0) &&
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

/* Hands each spec's finished samples to the cell hook. After an
 * interruption (stop != 0) only the samples whose processes all ended
 * count; a spec with none is left out. Nonzero when the hook failed (its
 * code), 2 when out of memory. */
static int hand_cells(const hr_replay_plan_t *p, const hr_replay_hooks_t *h, hr_replay_cell_t *c,
                      char **lines, const int *subi, int nsub) {
    const char **m = calloc((size_t)p->rep * 2 + 1, sizeof *m), **t = m ? m + p->rep : NULL;
    int failed = 0;
    if (!m) {
        fprintf(stderr, "heapreplay replay: %s\n", strerror(ENOMEM));
        return 2;
    }
    for (int s = 0; s < nsub && !failed; s++) {
        c->spec = subi[s];
        c->alloc = &p->specs[subi[s]];
        c->verify = p->verify ? lines[hr_replay_plan_job(p, nsub, s, 0, HR_MODE_VERIFY)] : NULL;
        c->count = p->count ? lines[hr_replay_plan_job(p, nsub, s, 0, HR_MODE_COUNT)] : NULL;
        c->n = 0;
        for (int r = 0; r < p->rep; r++) {
            const char *ml = lines[hr_replay_plan_job(p, nsub, s, r, HR_MODE_MEASURE)];
            const char *tl = lines[hr_replay_plan_job(p, nsub, s, r, HR_MODE_TIME)];
            if (!c->stop || (ml && tl))
                m[c->n] = ml, t[c->n++] = tl;
        }
        c->measure = m;
        c->time = t;
        c->partial = c->n < p->rep || (p->verify && !c->verify) || (p->count && !c->count);
        if (c->n > 0 && h->cell)
            failed = h->cell(h->ctx, c); /* 1: a row failed; 2: out of memory */
    }
    free(m);
    return failed;
}

/* Runs one trace's processes (all forked from one pristine server). 0, 1
 * (could not start them, or a cell hook failed), 2 (bad trace), 3
 * (interrupted). */
static int run_jobs(const hr_replay_plan_t *p, const hr_replay_hooks_t *h, hr_replay_cell_t *c,
                    const hr_child_job_t *proto, const int *subi, int nsub) {
    plan_files_t f;
    if (plan_count_files(p, nsub, &f) != 0)
        return 2;
    int n = nsub * hr_replay_plan_cell_jobs(p), failed = 0;
    hr_child_job_t *jobs = calloc((size_t)n, sizeof *jobs);
    char **lines = calloc((size_t)n, sizeof *lines);
    if (!jobs || !lines) {
        free(jobs);
        free(lines);
        plan_count_files_free(&f);
        fprintf(stderr, "heapreplay replay: out of memory\n");
        return 2;
    }
    fill_jobs(p, jobs, proto, subi, nsub, &f);
    if (h->jobs_begin)
        h->jobs_begin(h->ctx, n);
    int run = hr_child_run_all(jobs, n, lines, h->progress, h->ctx);
    c->stop = run == 1 ? hr_child_interrupted() : 0;
    if (h->jobs_end)
        h->jobs_end(h->ctx, n);
    if (run < 0) { /* no row can be made: an error, not a failed row */
        fprintf(stderr, "heapreplay replay: cannot run the replay processes (out of memory "
                        "or of file descriptors)\n");
        failed = 2;
    }
    for (int s = 0; f.outs && s < nsub; s++) {
        int k = hr_replay_plan_job(p, nsub, s, 0, HR_MODE_COUNT);
        lines[k] = count_from_callgrind(lines[k], f.outs[s]);
    }
    plan_count_files_free(&f);
    invalid_over_failures(p, lines, nsub);
    if (!failed)
        failed = hand_cells(p, h, c, lines, subi, nsub);
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
    free(jobs);
    return c->stop ? 3 : failed;
}

/* Shares trace i and runs its cells' processes; run_jobs's return codes. */
static int run_trace(const hr_replay_plan_t *p, const hr_replay_hooks_t *h, int i,
                     const int *subi, int nsub) {
    const char *path = p->paths[i];
    hr_trace_t t;
    hr_error_t err = {{0}};
    char digest[17], *cmd = NULL;
    hr_program_time_t prog;
    int mapped = 0, tfd = -2;
    hr_trace_init(&t);
    if (want_packed(p, path) && (tfd = share_packed(p, path, &t, digest, &prog, &cmd, &err)) >= 0)
        mapped = 1;
    if (tfd == -2)
        tfd = share_decoded(h, path, &t, digest, &prog, &cmd, &mapped, &err);
    int rc = 2;
    if (tfd < 0) {
        fprintf(stderr, "heapreplay replay: %s\n", err.msg);
    } else {
        hr_child_job_t proto = {&t, tfd, path, digest, NULL, p->opt, p->self_exe,
                                HR_MODE_MEASURE, NULL,
                                hr_mem_limit_for(p->opt->mem_limit, t.peak_live, t.n_ids)};
        hr_replay_cell_t c = {i, 0, path, NULL, &prog, cmd, 0, NULL, NULL, NULL, NULL, 0, 0};
        rc = run_jobs(p, h, &c, &proto, subi, nsub);
        close(tfd);
    }
    if (h->release)
        h->release(h->ctx);
    release_trace(&t, mapped);
    free(cmd);
    return rc;
}

int hr_replay_run(const hr_replay_plan_t *p, const hr_replay_hooks_t *h, int *stop) {
    int *subi = calloc((size_t)p->nspecs + 1, sizeof *subi), rc = 0, failed = 0;
    *stop = 0;
    if (!subi) {
        fprintf(stderr, "heapreplay replay: out of memory\n");
        rc = 2;
    }
    for (int i = 0; i < p->npaths && rc == 0 && !*stop; i++) {
        int nsub = 0; /* the trace's specs in this run (--shard) */
        for (int s = 0; s < p->nspecs; s++)
            if (p->mine[(size_t)i * (size_t)p->nspecs + (size_t)s])
                subi[nsub++] = s;
        if (nsub == 0)
            continue; /* another shard's trace: not even read */
        int r = run_trace(p, h, i, subi, nsub);
        if (r == 2)
            rc = 2;
        else if (r == 3 || hr_child_interrupted())
            *stop = hr_child_interrupted();
        else
            failed |= r;
    }
    free(subi);
    return rc ? rc : failed;
}
