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

#include "base/metrics.h"
#include "report/compare.h"
#include "report/compare_family.h"
#include "report/stats.h"
#include "trace/trace.h"

/* A figure of program mode: its words, the registry metric it is read from
 * (id; -1 for a figure derived from the op counts, named by `derived`, a
 * path under "program." that no report has), its
 * default threshold in percent and unit; per_alloc: the allocator's figure
 * (per row) rather than the trace's; kind: deterministic (any move beyond
 * the threshold is called), or measured and gated only when --max-regress
 * names it (else its move is shown as "measured"). */
enum { FIG_EXACT = 0, FIG_MEASURED };
typedef double (*prog_derive_fn)(const hr_result_t *r, char *note, size_t n);
typedef struct prog_fig {
    const char    *words;
    int            id;      /* hr_metric_id_t, or -1 */
    const char    *derived; /* the name of a derived figure (id -1) */
    double         pct;
    hr_unit_t      unit;
    int            per_alloc;
    int            kind;   /* FIG_EXACT or FIG_MEASURED */
    prog_derive_fn derive; /* used when `path` is absent from the result */
    /* a --follow-forks capture's whole program (compare_family.h): how
     * its processes' figures combine; NONE: the parent's own figure */
    hr_family_combine_t whole;
} prog_fig_t;

static double ops_sum(const hr_result_t *r, const unsigned *ops, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += isnan(r->m.OPS_BY_OP[ops[i]]) ? 0 : r->m.OPS_BY_OP[ops[i]];
    return s;
}

/* Blocks made: every event that makes one (a realloc ends one block and
 * makes another). */
static double allocations(const hr_result_t *r, char *note, size_t n) {
    static const unsigned made[] = {HR_OP_ALLOC, HR_OP_CALLOC, HR_OP_REALLOC, HR_OP_POOL_ALLOC,
                                    HR_OP_POOL_REALLOC};
    (void)note, (void)n;
    return isnan(r->m.OPS_TOTAL) ? NAN : ops_sum(r, made, 5);
}

/* Blocks never freed: made by alloc/calloc/palloc and not freed by
 * free/pfree (a realloc moves a block; the trace lowers realloc(NULL, n) and
 * realloc(p, 0) to alloc and free). */
static double never_freed(const hr_result_t *r, char *note, size_t n) {
    static const unsigned made[] = {HR_OP_ALLOC, HR_OP_CALLOC, HR_OP_POOL_ALLOC};
    static const unsigned gone[] = {HR_OP_FREE, HR_OP_POOL_FREE};
    (void)note, (void)n;
    if (isnan(r->m.OPS_TOTAL))
        return NAN;
    double d = ops_sum(r, made, 3) - ops_sum(r, gone, 2);
    return d > 0 ? d : 0;
}

/* Allocations per frame when the report has no frames.* figures: over every
 * main-stream frame mark, the load included. */
static double allocs_per_mark(const hr_result_t *r, char *note, size_t n) {
    double frames = r->m.OPS_BY_OP[HR_OP_FRAME];
    if (!(frames > 0))
        return NAN;
    snprintf(note, n, "allocations / frame marks, load included (no frames.allocs_mean)");
    return allocations(r, note, n) / frames;
}

/* In the order the output lists them (most telling first). */
#define FIG(words, id, pct, unit, per_alloc, kind, whole) \
    {words, HR_M_##id, NULL, pct, HR_UNIT_##unit, per_alloc, kind, NULL, HR_FAMILY_##whole}
static const prog_fig_t PROGRAM_FIGS[] = {
    {"allocations per frame", HR_M_FR_ALLOCS_MEAN, NULL, 10, HR_UNIT_COUNT, 0, FIG_EXACT,
     allocs_per_mark, HR_FAMILY_NONE},
    FIG("allocations per frame (p99)", FR_ALLOCS_P99, 10, COUNT, 0, FIG_EXACT, NONE),
    FIG("allocations per frame (max)", FR_ALLOCS_MAX, 25, COUNT, 0, FIG_EXACT, NONE),
    FIG("bytes allocated per frame", FR_BYTES_MEAN, 10, BYTES, 0, FIG_EXACT, NONE),
    FIG("bytes allocated per frame (p99)", FR_BYTES_P99, 10, BYTES, 0, FIG_EXACT, NONE),
    FIG("bytes allocated per frame (max)", FR_BYTES_MAX, 25, BYTES, 0, FIG_EXACT, NONE),
    /* a whole program's processes (its parent and child processes' traces) */
    {"processes", -1, "program.processes", 10, HR_UNIT_COUNT, 0, FIG_EXACT, NULL,
     HR_FAMILY_COUNT},
    FIG("events", OPS_EVENTS, 10, COUNT, 0, FIG_EXACT, SUM),
    {"allocations", -1, "program.allocations", 10, HR_UNIT_COUNT, 0, FIG_EXACT, allocations,
     HR_FAMILY_SUM},
    {"blocks never freed", -1, "program.never_freed", 10, HR_UNIT_COUNT, 0, FIG_EXACT,
     never_freed, HR_FAMILY_SUM},
    FIG("peak live", PEAK_LIVE, 10, BYTES, 0, FIG_EXACT, MAX),
    FIG("load: events", LOAD_EVENTS, 10, COUNT, 0, FIG_EXACT, NONE),
    FIG("load: allocations", LOAD_ALLOCS, 10, COUNT, 0, FIG_EXACT, NONE),
    FIG("load: bytes allocated", LOAD_BYTES, 10, BYTES, 0, FIG_EXACT, NONE),
    FIG("load: peak live", LOAD_PEAK_LIVE, 10, BYTES, 0, FIG_EXACT, NONE),
    FIG("allocator instructions", COUNT_INSNS, 1, COUNT, 1, FIG_EXACT, SUM),
    /* instructions plus the kernel's work (page faults, system calls):
     * docs/METRICS.md, "Kernel work and the cost". 5 %, not the 1 % of the
     * instructions: a fault weighs 12 000 instructions, so on a small game's
     * trace one fault more or less between two captures moves the cost by
     * about 1 % (seen: +1.02 % on examples/game captured twice); the cases
     * the cost is for move it by +85 % and more (results/gates-vm.md) */
    FIG("allocator cost (instructions + kernel work)", COUNT_COST, 5, COUNT, 1, FIG_EXACT, SUM),
    FIG("allocator time", COLD_CPU, 10, SECONDS, 1, FIG_MEASURED, SUM),
    FIG("worst play frame", WF_NS, 25, NS, 1, FIG_MEASURED, NONE),
    FIG("peak RSS", PEAK_RSS, 25, BYTES, 1, FIG_MEASURED, MAX),
    FIG("load: allocator time", LOAD_NS, 10, NS, 1, FIG_MEASURED, NONE),
    FIG("load: peak footprint", LOAD_PEAK_FP, 25, BYTES, 1, FIG_MEASURED, NONE),
};
#undef FIG
#define NFIGS (int)(sizeof PROGRAM_FIGS / sizeof PROGRAM_FIGS[0])

/* The path --max-regress names figure f by. */
static const char *fig_path(int f) {
    const prog_fig_t *g = &PROGRAM_FIGS[f];
    return g->id >= 0 ? hr_metrics[g->id].path : g->derived;
}

/* The figures with their thresholds, and the extra paths of --max-regress. */
typedef struct prog {
    double              pct[NFIGS];
    int                 gated[NFIGS]; /* a regression fails (else "measured") */
    hr_compare_metric_t extra[HR_COMPARE_MAX_METRICS];
    int                 nextra;
    int                 seen[NFIGS]; /* the figure had a value in some row */
    hr_compare_row_t   *rows;
    size_t              nrows, cap;
    int                 oom;
    hr_compare_summary_t sum;
} prog_t;

/* Applies --max-regress (parsed by compare.c: m[0..nm)): a metric naming a
 * figure's path sets its threshold, any other is gated per allocator. */
static void prog_thresholds(prog_t *p, const hr_compare_metric_t *m, int nm) {
    for (int f = 0; f < NFIGS; f++) {
        p->pct[f] = PROGRAM_FIGS[f].pct;
        p->gated[f] = PROGRAM_FIGS[f].kind == FIG_EXACT;
    }
    for (int i = 0; i < nm; i++) {
        int f = 0;
        while (f < NFIGS && strcmp(fig_path(f), m[i].path) != 0)
            f++;
        if (f < NFIGS) {
            p->pct[f] = m[i].pct;
            p->gated[f] = 1;
        }
        if (f == NFIGS && p->nextra < HR_COMPARE_MAX_METRICS)
            p->extra[p->nextra++] = m[i];
    }
}

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

static hr_compare_row_t *prog_row(prog_t *p, const char *trace, const char *alloc,
                                  const char *metric, const char *verdict, const char *why) {
    if (p->nrows == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        hr_compare_row_t *r = realloc(p->rows, cap * sizeof *r);
        if (!r) {
            p->oom = 1;
            return NULL;
        }
        p->rows = r;
        p->cap = cap;
    }
    hr_compare_row_t *w = &p->rows[p->nrows];
    memset(w, 0, sizeof *w);
    snprintf(w->trace, sizeof w->trace, "%s", trace);
    snprintf(w->allocator, sizeof w->allocator, "%s", alloc);
    snprintf(w->metric, sizeof w->metric, "%s", metric);
    snprintf(w->verdict, sizeof w->verdict, "%s", verdict);
    snprintf(w->reason, sizeof w->reason, "%s", why ? why : "");
    w->base = w->cur = w->delta = w->threshold_pct = NAN;
    w->separated = -1;
    w->order = (int)p->nrows++;
    w->fails = strcmp(verdict, "REGRESSION") == 0 || strcmp(verdict, "MISSING") == 0 ||
               strcmp(verdict, "FAILED") == 0;
    p->sum.regressions += strcmp(verdict, "REGRESSION") == 0 || strcmp(verdict, "FAILED") == 0;
    p->sum.missing += strcmp(verdict, "MISSING") == 0;
    p->sum.improved += strcmp(verdict, "improved") == 0;
    p->sum.noise += strcmp(verdict, "noise") == 0;
    p->sum.unchanged += strcmp(verdict, "ok") == 0;
    p->sum.other += !w->fails && strcmp(verdict, "improved") && strcmp(verdict, "noise") &&
                    strcmp(verdict, "ok");
    return w;
}

/* A figure's spread in one result: the path's value (with its samples), else
 * the derived figure (a single value). */
static void fig_spread(const prog_fig_t *f, const hr_result_t *r, hr_spread_t *s, char *note,
                       size_t n) {
    if (f->id >= 0)
        hr_spread_of(r, (hr_metric_id_t)f->id, s);
    else
        memset(s, 0, sizeof *s);
    if (s->n || !f->derive)
        return;
    double v = f->derive(r, note, n);
    memset(s, 0, sizeof *s);
    s->center = v;
    s->min = s->max = NAN;
    s->n = isnan(v) ? 0 : 1;
}

/* How one figure is judged: `per_alloc` the allocator's (else the trace's),
 * `exact` deterministic (any move beyond the threshold counts; else the
 * sample test), `gated` a regression fails (else it is shown as
 * "measured"). */
typedef struct judging {
    double pct;
    int    higher, per_alloc, exact, gated;
    hr_family_combine_t whole; /* a whole program's figure: how it was combined */
} judging_t;

/* A figure (f: PROGRAM_FIGS's index, else -1 and named by `path`) of base
 * and new as spreads b and n, with a note on how each was derived (nb, nn:
 * "" for none): a row with the verdict. */
static void judge_spreads(prog_t *p, int f, const char *trace, const char *alloc,
                          const char *metric, const char *path, const hr_spread_t *bs,
                          const hr_spread_t *ns, const char *nb, const char *nn,
                          const judging_t *j) {
    double pct = j->pct;
    int exact = j->exact, higher = j->higher;
    hr_spread_t b = *bs, n = *ns;
    char why[256] = "";
    if (!b.n && !n.n)
        return; /* absent from both: named once in the skipped note */
    if (f >= 0)
        p->seen[f] = 1;
    hr_compare_row_t *w;
    if (!b.n || !n.n) {
        w = prog_row(p, trace, alloc, metric, "n/a", !b.n ? "no value in base" : "no value in new");
    } else {
        static const char *const verdicts[] = {"ok", "improved", "noise", "REGRESSION"};
        double d = hr_delta_pct(b.center, n.center), worse = higher ? -d : d;
        hr_noise_verdict_t v;
        if (exact) {
            v = worse > pct + 1e-9 ? HR_NOISE_REGRESSION
                : worse < -pct - 1e-9 ? HR_NOISE_IMPROVED : HR_NOISE_OK;
            snprintf(why, sizeof why, "%+.2f%% %s %g%% (%s)", d,
                     v == HR_NOISE_OK ? "within" : "beyond", pct,
                     j->whole == HR_FAMILY_MAX ? "the largest process's"
                     : j->whole == HR_FAMILY_COUNT ? "the capture's processes"
                     : j->whole ? "the processes' sum"
                     : j->per_alloc ? "deterministic for a build" : "the trace's own figure");
        } else {
            v = hr_noise_judge(&b, &n, pct, higher, 0, why, sizeof why);
            /* one value a side (worst_frame.ns: replay keeps no samples of
             * it): a single timing of two different runs cannot tell the
             * program from the host, so it is shown, not called */
            if (v != HR_NOISE_OK && (b.n < 2 || n.n < 2)) {
                v = HR_NOISE_NOISE;
                size_t l = strlen(why);
                snprintf(why + l, sizeof why - l, "; not called without samples on both sides");
            }
        }
        if (nb[0] || nn[0]) {
            size_t l = strlen(why);
            snprintf(why + l, sizeof why - l, "; %s", nb[0] ? nb : nn);
        }
        const char *verdict = verdicts[v];
        if (!j->gated && v != HR_NOISE_OK) {
            size_t l = strlen(why);
            snprintf(why + l, sizeof why - l, "; not gated unless --max-regress names %s",
                     f >= 0 ? fig_path(f) : path);
            verdict = "measured";
        }
        w = prog_row(p, trace, alloc, metric, verdict, why);
        if (w) {
            w->delta = d;
            w->separated = !exact && b.n >= 2 && n.n >= 2 && !isnan(b.min) && !isnan(n.min)
                               ? n.min > b.max || n.max < b.min : -1;
        }
    }
    if (w) {
        w->base = b.center;
        w->cur = n.center;
        w->threshold_pct = pct;
        w->unit = f >= 0 ? (int)PROGRAM_FIGS[f].unit : HR_UNIT_COUNT;
        w->per_alloc = j->per_alloc;
    }
}

/* One figure of one pair of results. */
static void judge(prog_t *p, int f, const char *trace, const hr_result_t *rb,
                  const hr_result_t *rn, const char *metric, const char *path,
                  const judging_t *j) {
    hr_spread_t b, n;
    char nb[128] = "", nn[128] = "";
    if (f >= 0) {
        fig_spread(&PROGRAM_FIGS[f], rb, &b, nb, sizeof nb);
        fig_spread(&PROGRAM_FIGS[f], rn, &n, nn, sizeof nn);
    } else {
        hr_spread_at(rb, path, &b);
        hr_spread_at(rn, path, &n);
    }
    judge_spreads(p, f, trace, j->per_alloc ? rb->allocator : "-", metric, path, &b, &n, nb, nn,
                  j);
}

/* Figure f judged as PROGRAM_FIGS and the thresholds say. */
static void judge_fig(prog_t *p, int f, const char *trace, const hr_result_t *rb,
                      const hr_result_t *rn) {
    const prog_fig_t *g = &PROGRAM_FIGS[f];
    judging_t j = {p->pct[f], 0, g->per_alloc, g->kind == FIG_EXACT, p->gated[f],
                   HR_FAMILY_NONE};
    judge(p, f, trace, rb, rn, g->words, NULL, &j);
}

/* The first ok row of `name` in v (the trace's own figures are the same in
 * every allocator's row), or NULL. */
static const hr_result_t *trace_row(const hr_report_view_t *v, const char *name, const char *label) {
    for (size_t i = 0; i < v->n; i++)
        if (hr_result_ok(&v->rows[i]) && strcmp(match_name(&v->rows[i], label), name) == 0)
            return &v->rows[i];
    return NULL;
}

/* The trace figures of one matched trace, and its digest as information. */
static void compare_trace(prog_t *p, const char *name, const hr_result_t *tb,
                          const hr_result_t *tn) {
    const char *db = tb->trace_digest, *dn = tn->trace_digest;
    if (db && dn && strcmp(db, dn) != 0) {
        char why[160];
        snprintf(why, sizeof why, "%s -> %s: a new capture; the program's figures are compared",
                 db, dn);
        prog_row(p, name, "-", "trace digest", "changed", why);
    }
    for (int f = 0; f < NFIGS; f++)
        if (!PROGRAM_FIGS[f].per_alloc)
            judge_fig(p, f, name, tb, tn);
}

/* The allocator figures of one (trace, allocator) pair. */
static void compare_alloc(prog_t *p, const char *name, const hr_result_t *rb,
                          const hr_result_t *rn) {
    if (!hr_result_ok(rn)) {
        char st[96];
        snprintf(st, sizeof st, "status %s -> %s", rb->status, rn->status);
        prog_row(p, name, rb->allocator, st, "FAILED", "the new result is not ok");
        return;
    }
    for (int f = 0; f < NFIGS; f++)
        if (PROGRAM_FIGS[f].per_alloc)
            judge_fig(p, f, name, rb, rn);
    for (int i = 0; i < p->nextra; i++) {
        const hr_compare_metric_t *m = &p->extra[i];
        const hr_metric_t *d = m->def;
        judging_t j = {m->pct, m->higher_better, 1, d && d->exact == HR_EXACT_TRACE, 1,
                       HR_FAMILY_NONE};
        judge(p, -1, name, rb, rn, m->name, m->path, &j);
    }
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

/* One process's figure (hr_family_fig_fn; ctx: the PROGRAM_FIGS index). */
static void proc_fig(const hr_result_t *r, hr_spread_t *s, void *ctx) {
    char note[128];
    int f = *(const int *)ctx;
    if (PROGRAM_FIGS[f].whole == HR_FAMILY_COUNT) {
        memset(s, 0, sizeof *s);
        s->center = 1;
        s->min = s->max = NAN;
        s->n = 1;
        return;
    }
    fig_spread(&PROGRAM_FIGS[f], r, s, note, sizeof note);
}

/* The child process with frames on both sides (a game started by a
 * launcher: hr_family_framed): its own figures, as a trace's, in rows of
 * "NAME (its process with frames)". */
static void compare_framed(prog_t *p, const char *name, const hr_family_t *fb, int kb,
                           const hr_family_t *fn, int kn) {
    char trace[256];
    snprintf(trace, sizeof trace, "%s (its process with frames)", name);
    compare_trace(p, trace, hr_family_row(fb, kb, NULL), hr_family_row(fn, kn, NULL));
    for (int i = fb->start[kb]; i < fb->start[kb + 1]; i++) {
        const hr_result_t *rb = fb->rows[i], *rn;
        if (rb->allocator && hr_result_ok(rb) && (rn = hr_family_row(fn, kn, rb->allocator)))
            compare_alloc(p, trace, rb, rn);
    }
}

/* The figures of a whole program: base's family fb against new's fn, in
 * rows of "NAME (whole program)". Its processes' own traces are not matched
 * one by one (their names hold their pids); the note says how many are
 * identical in both captures and names the largest others. */
static void compare_family(prog_t *p, const char *name, const hr_family_t *fb,
                           const hr_family_t *fn) {
    char trace[256], words[192], why[256];
    snprintf(trace, sizeof trace, "%s (whole program)", name);
    int same = hr_family_identical(fb, fn, 2, words, sizeof words);
    snprintf(why, sizeof why, "%d of %d (new: %d) with the same trace in both; the largest "
             "others: %.160s", same, fb->n, fn->n, words);
    prog_row(p, trace, "-", "identical processes", same == fb->n && same == fn->n ? "ok" : "changed",
             why);
    int kb = hr_family_framed(fb), kn = hr_family_framed(fn);
    if (kb > 0 && kn > 0) /* first: a game's per-frame figures are the most telling */
        compare_framed(p, name, fb, kb, fn, kn);
    for (int f = 0; f < NFIGS; f++) {
        const prog_fig_t *g = &PROGRAM_FIGS[f];
        if (g->whole == HR_FAMILY_NONE)
            continue;
        judging_t j = {p->pct[f], 0, g->per_alloc, g->kind == FIG_EXACT, p->gated[f], g->whole};
        hr_spread_t b, n;
        if (!g->per_alloc) {
            hr_family_spread(fb, NULL, proc_fig, &f, g->whole, &b);
            hr_family_spread(fn, NULL, proc_fig, &f, g->whole, &n);
            judge_spreads(p, f, trace, "-", g->words, fig_path(f), &b, &n, "", "", &j);
            continue;
        }
        for (int i = fb->start[0]; i < fb->start[1]; i++) { /* the parent's allocators */
            const char *alloc = fb->rows[i]->allocator;
            if (!alloc)
                continue;
            hr_family_spread(fb, alloc, proc_fig, &f, g->whole, &b);
            hr_family_spread(fn, alloc, proc_fig, &f, g->whole, &n);
            judge_spreads(p, f, trace, alloc, g->words, fig_path(f), &b, &n, "", "", &j);
        }
    }
}

/* The two reports' families (compare_family.h), indexed once. */
typedef struct fams {
    const hr_report_view_t *b, *n;
    hr_families_t *fb, *fn;
} fams_t;

/* The family rows of base's trace row tb against new's namesake tn (NULL:
 * none). A whole program on one side only is said in one row. */
static void collect_family(prog_t *p, const fams_t *fs, const hr_result_t *tb,
                           const hr_result_t *tn, const char *name) {
    hr_family_t fb, fn;
    int hb = hr_family_of(fs->fb, (size_t)(tb - fs->b->rows), &fb);
    int hn = tn ? hr_family_of(fs->fn, (size_t)(tn - fs->n->rows), &fn) : 0;
    if (hb < 0 || hn < 0) {
        p->oom = 1;
    } else if (hb && hn) {
        compare_family(p, name, &fb, &fn);
    } else if (tn && (hb || hn)) {
        char why[160], trace[256];
        snprintf(trace, sizeof trace, "%s (whole program)", name);
        snprintf(why, sizeof why, "%s has %d child processes, %s none (captured without "
                 "--follow-forks?): the processes cannot be compared", hb ? "base" : "new",
                 (hb ? fb.n : fn.n) - 1, hb ? "new" : "base");
        prog_row(p, trace, "-", "processes", "n/a", why);
    }
    if (hb > 0)
        hr_family_free(&fb);
    if (hn > 0)
        hr_family_free(&fn);
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
                compare_trace(p, name, tb, tn);
            } else if (tb && !find_row(n, name, opt->label_b, rb->allocator)) {
                prog_row(p, name, "-", "trace", "MISSING", "no result of this trace in new");
            }
            if (tb)
                collect_family(p, fs, tb, tn, name);
        }
        const hr_result_t *rn = find_row(n, name, opt->label_b, rb->allocator);
        if (!rn) {
            if (trace_row(n, name, opt->label_b))
                prog_row(p, name, rb->allocator, "result", "MISSING", "no matching result in new");
            continue;
        }
        if (!hr_result_ok(rb)) {
            prog_row(p, name, rb->allocator, "status", hr_result_ok(rn) ? "fixed" : "skipped",
                     "base result not ok: nothing to compare");
            continue;
        }
        p->sum.matched++;
        compare_alloc(p, name, rb, rn);
    }
    for (size_t j = 0; j < n->n; j++) {
        const hr_result_t *rn = &n->rows[j];
        const char *name = match_name(rn, opt->label_b);
        if (!hr_families_is_child(fs->fn, j) && !find_row(b, name, opt->label_a, rn->allocator))
            prog_row(p, name, rn->allocator, "result", "new", "not in base");
    }
}

/* Failing rows first, then the trace's figures before the allocators',
 * then the comparison order (PROGRAM_FIGS's order of importance). */
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
    prog_thresholds(&p, m, nm);
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
    for (int f = 0; f < NFIGS && s->nskipped < HR_COMPARE_MAX_METRICS; f++)
        if (!p.seen[f] && PROGRAM_FIGS[f].whole != HR_FAMILY_COUNT)
            s->skipped[s->nskipped++] = fig_path(f);
    if (p.nrows > 1)
        qsort(p.rows, p.nrows, sizeof *p.rows, prog_cmp);
    hr_compare_render(p.rows, p.nrows, s, opt, out, stderr);
    free(p.rows);
    fflush(out);
    return s->exit_status;
}
