/* compare's program mode (compare.h; docs/REPORTS.md, "Comparing two captures
 * of a program"): BASE and NEW replayed two captures of one program (the
 * game before and after a change), so their op counts differ by design and
 * the allocator-CI checks would call every row a mismatch. Instead:
 *
 *  - traces are matched by name: the trace's file name, or the label the
 *    user gives a report (--label-a / --label-b), and a changed digest is
 *    information (a new capture), not a failure;
 *  - the trace's own figures (what the program did: allocations per frame,
 *    peak live, blocks never freed, the load phase) are read from the first
 *    ok row of the trace in each report: every allocator's row carries the
 *    same ones. They are deterministic for a capture, so a change beyond the
 *    threshold is called without a sample test;
 *  - the allocator's figures are compared per (trace, allocator): its
 *    instruction count (replay --count) is deterministic for a
 *    build and gated like the trace's figures; its timings and RSS
 *    (allocator time, worst play frame, peak RSS) are judged with the sample
 *    test of report/stats.h but not gated unless --max-regress names them:
 *    gated, identical captures of a game on a shared machine fail on them
 *    (results/game-ci-vm.md: 4 of 20 pairs at 10 %), and a figure with
 *    one value a side is never called. No host drift is divided out: the
 *    traces differ, so a common move of every row is the program's;
 *  - --max-regress sets the threshold of the figures it names (by report
 *    path or compare alias) and gates them; any other path it names is gated
 *    per allocator; figures it leaves out keep their defaults (PROGRAM_FIGS
 *    below).
 *
 *  - a --follow-forks capture's child traces (b.PID.hrt, pids differ from
 *    capture to capture) are compared as their parent's whole program
 *    ("b.hrt (whole program)" rows; compare_family.h), not by name.
 * A figure absent from both reports (an older engine, a trace without
 * frames) is skipped and named in a note; absent from one side it is "n/a".
 * Exit: 1 when a figure regressed, a base trace or (trace, allocator) is
 * missing in NEW, or a result turned not-ok; else 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare_prog.h"

/* The name a result is matched by: the label of its report, else the
 * trace's file name. */
static const char *match_name(const hr_result_t *r, const char *label) {
    return label ? label : hr_report_trace_base(r->trace);
}

int hr_compare_program_applies(const hr_report_view_t *b, const hr_report_view_t *n,
                               const hr_compare_options_t *opt) {
    if (opt->mode != HR_CMP_MODE_AUTO)
        return opt->mode == HR_CMP_MODE_PROGRAM;
    int labels = opt->label_a || opt->label_b;
    for (size_t i = 0; i < b->n; i++)
        for (size_t j = 0; j < n->n; j++) {
            const hr_result_t *rb = &b->rows[i], *rn = &n->rows[j];
            const char *db = rb->trace_digest, *dn = rn->trace_digest;
            if (db && dn && strcmp(db, dn) != 0 && (labels || (rb->program.present &&
                                                               rn->program.present)) &&
                strcmp(match_name(rb, opt->label_a), match_name(rn, opt->label_b)) == 0)
                return 1;
        }
    return 0;
}

/* The first ok row of `name` in v (the trace's own figures are the same in
 * every allocator's row), or NULL. */
static const hr_result_t *trace_row(const hr_report_view_t *v, const char *name, const char *label) {
    for (size_t i = 0; i < v->n; i++)
        if (hr_result_ok(&v->rows[i]) && strcmp(match_name(&v->rows[i], label), name) == 0)
            return &v->rows[i];
    return NULL;
}

static const hr_result_t *find_row(const hr_report_view_t *v, const char *name, const char *label,
                                   const char *alloc) {
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->rows[i].allocator, alloc) == 0 &&
            strcmp(match_name(&v->rows[i], label), name) == 0)
            return &v->rows[i];
    return NULL;
}

/* 1 when trace `name` was seen before row i of v (traces are handled once). */
static int seen_before(const hr_report_view_t *v, size_t i, const char *label) {
    const char *name = match_name(&v->rows[i], label);
    for (size_t k = 0; k < i; k++)
        if (strcmp(match_name(&v->rows[k], label), name) == 0)
            return 1;
    return 0;
}

/* Every trace and (trace, allocator) of base against cur, then what only
 * cur has. */
static void collect(prog_t *p, const fams_t *fs, const hr_compare_options_t *opt) {
    const hr_report_view_t *b = fs->b, *n = fs->n;
    for (size_t i = 0; i < b->n; i++) {
        const hr_result_t *rb = &b->rows[i];
        const char *name = match_name(rb, opt->label_a);
        if (hr_families_is_child(fs->fb, i))
            continue; /* compared with its parent's whole program */
        if (!seen_before(b, i, opt->label_a)) {
            const hr_result_t *tb = trace_row(b, name, opt->label_a);
            const hr_result_t *tn = trace_row(n, name, opt->label_b);
            if (tb && tn) {
                p->sum.traces++;
                hr_prog_compare_trace(p, name, tb, tn);
            } else if (tb && !find_row(n, name, opt->label_b, rb->allocator)) {
                hr_prog_row(p, name, "-", "trace", "MISSING", "no result of this trace in new");
            }
            if (tb)
                hr_prog_collect_family(p, fs, tb, tn, name);
        }
        const hr_result_t *rn = find_row(n, name, opt->label_b, rb->allocator);
        if (!rn) {
            if (trace_row(n, name, opt->label_b))
                hr_prog_row(p, name, rb->allocator, "result", "MISSING", "no matching result in new");
            continue;
        }
        if (!hr_result_ok(rb)) {
            hr_prog_row(p, name, rb->allocator, "status", hr_result_ok(rn) ? "fixed" : "skipped",
                     "base result not ok: nothing to compare");
            continue;
        }
        p->sum.matched++;
        hr_prog_compare_alloc(p, name, rb, rn);
    }
    for (size_t j = 0; j < n->n; j++) {
        const hr_result_t *rn = &n->rows[j];
        const char *name = match_name(rn, opt->label_b);
        if (!hr_families_is_child(fs->fn, j) && !find_row(b, name, opt->label_a, rn->allocator))
            hr_prog_row(p, name, rn->allocator, "result", "new", "not in base");
    }
}

/* Failing rows first, then the trace's figures before the allocators',
 * then the comparison order (hr_prog_figs's order of importance). */
static int prog_cmp(const void *x, const void *y) {
    const hr_compare_row_t *a = x, *b = y;
    if (a->fails != b->fails)
        return b->fails - a->fails;
    if (a->per_alloc != b->per_alloc)
        return a->per_alloc - b->per_alloc;
    return (a->order > b->order) - (a->order < b->order);
}

/* A label given to a report with several traces would merge them. */
static int label_fits(const hr_report_view_t *v, const char *label, const char *which) {
    if (!label || v->ntraces <= 1)
        return 1;
    fprintf(stderr, "heapreplay compare: --label-%s: expected a report of one trace, got %d "
            "traces (their file names match them)\n", which, v->ntraces);
    return 0;
}

int hr_compare_program(const hr_report_view_t *b, const char *base_name,
                       const hr_report_view_t *n, const char *new_name,
                       const hr_compare_options_t *opt, const hr_compare_metric_t *m, int nm,
                       FILE *out) {
    prog_t p;
    memset(&p, 0, sizeof p);
    if (!label_fits(b, opt->label_a, "a") || !label_fits(n, opt->label_b, "b"))
        return 2;
    hr_prog_thresholds(&p, m, nm);
    fams_t fs = {b, n, hr_families_new(b), hr_families_new(n)};
    if (fs.fb && fs.fn)
        collect(&p, &fs, opt);
    else
        p.oom = 1;
    hr_families_free(fs.fb);
    hr_families_free(fs.fn);
    if (p.oom) {
        free(p.rows);
        fprintf(stderr, "heapreplay compare: out of memory\n");
        return 2;
    }
    hr_compare_summary_t *s = &p.sum;
    s->program = 1;
    s->base_name = base_name;
    s->new_name = new_name;
    s->exit_status = s->regressions + s->missing > 0;
    for (int f = 0; f < HR_PROG_NFIGS && s->nskipped < HR_COMPARE_MAX_METRICS; f++)
        if (!p.seen[f] && hr_prog_figs[f].whole != HR_FAMILY_COUNT)
            s->skipped[s->nskipped++] = hr_prog_fig_path(f);
    if (p.nrows > 1)
        qsort(p.rows, p.nrows, sizeof *p.rows, prog_cmp);
    hr_compare_render(p.rows, p.nrows, s, opt, out, stderr);
    free(p.rows);
    fflush(out);
    return s->exit_status;
}
