/* The run plan (plan.h): cells, the job layout of one trace, the jobs
 * themselves, and the callgrind fix-up of a count line. run.c executes it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "replay/counter.h"
#include "replay/plan_int.h"

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

/* Measure and time processes first, (sample, spec, mode) in that order of
 * significance; then one verify process per spec, then one count process. */
int hr_replay_plan_job(const hr_replay_plan_t *p, int nspecs, int spec, int sample,
                       hr_replay_mode_t mode) {
    int base = nspecs * p->rep * 2;
    if (mode == HR_MODE_VERIFY)
        return base + spec;
    if (mode == HR_MODE_COUNT)
        return base + (p->verify ? nspecs : 0) + spec;
    return (sample * nspecs + spec) * 2 + (mode == HR_MODE_TIME);
}

int hr_plan_count_files(const hr_replay_plan_t *p, int nspecs, plan_files_t *f) {
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

void hr_plan_count_files_free(plan_files_t *f) {
    if (f->outs) {
        rmdir(f->dir);
        free(f->outs);
        f->outs = NULL;
    }
}

void hr_plan_fill_jobs(const hr_replay_plan_t *p, hr_child_job_t *jobs, const hr_child_job_t *proto,
                       const hr_alloc_spec_t *const *specs, int nspecs, const plan_files_t *f) {
    for (int s = 0; s < nspecs; s++)
        for (int r = 0; r < p->rep; r++)
            for (int k = 0; k < 2; k++) {
                hr_replay_mode_t m = k ? HR_MODE_TIME : HR_MODE_MEASURE;
                hr_child_job_t *j = &jobs[hr_replay_plan_job(p, nspecs, s, r, m)];
                *j = *proto;
                j->spec = specs[s];
                j->mode = m;
            }
    for (int k = 0; k < 2; k++)
        for (int s = 0; (k ? p->count : p->verify) && s < nspecs; s++) {
            hr_replay_mode_t m = k ? HR_MODE_COUNT : HR_MODE_VERIFY;
            hr_child_job_t *j = &jobs[hr_replay_plan_job(p, nspecs, s, 0, m)];
            *j = *proto;
            j->spec = specs[s];
            j->mode = m;
            j->count_out = f->outs ? f->outs[s] : NULL;
        }
}

/* A count under callgrind: the total comes from callgrind's file, read here
 * once the process has ended, into the count line's "count" group. The
 * line is edited as JSON. */
char *hr_plan_count_from_callgrind(char *line, const char *out) {
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
