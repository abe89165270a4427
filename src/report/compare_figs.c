/* compare's program mode: the figures it judges and how (compare_prog.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "report/compare_prog.h"
#include "trace/trace.h"

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
const prog_fig_t hr_prog_figs[HR_PROG_NFIGS] = {
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
_Static_assert(sizeof hr_prog_figs / sizeof hr_prog_figs[0] == HR_PROG_NFIGS,
               "HR_PROG_NFIGS counts the figures");

/* The path --max-regress names figure f by. */
const char *hr_prog_fig_path(int f) {
    const prog_fig_t *g = &hr_prog_figs[f];
    return g->id >= 0 ? hr_metrics[g->id].path : g->derived;
}

/* Applies --max-regress (parsed by compare.c: m[0..nm)): a metric naming a
 * figure's path sets its threshold, any other is gated per allocator. */
void hr_prog_thresholds(prog_t *p, const hr_compare_metric_t *m, int nm) {
    for (int f = 0; f < HR_PROG_NFIGS; f++) {
        p->pct[f] = hr_prog_figs[f].pct;
        p->gated[f] = hr_prog_figs[f].kind == FIG_EXACT;
    }
    for (int i = 0; i < nm; i++) {
        int f = 0;
        while (f < HR_PROG_NFIGS && strcmp(hr_prog_fig_path(f), m[i].path) != 0)
            f++;
        if (f < HR_PROG_NFIGS) {
            p->pct[f] = m[i].pct;
            p->gated[f] = 1;
        }
        if (f == HR_PROG_NFIGS && p->nextra < HR_COMPARE_MAX_METRICS)
            p->extra[p->nextra++] = m[i];
    }
}

hr_compare_row_t *hr_prog_row(prog_t *p, const char *trace, const char *alloc,
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



/* A figure (f: hr_prog_figs's index, else -1 and named by `path`) of base
 * and new as spreads b and n, with a note on how each was derived (nb, nn:
 * "" for none): a row with the verdict. */
void hr_prog_judge_spreads(prog_t *p, int f, const char *trace, const char *alloc,
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
        w = hr_prog_row(p, trace, alloc, metric, "n/a", !b.n ? "no value in base" : "no value in new");
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
                     f >= 0 ? hr_prog_fig_path(f) : path);
            verdict = "measured";
        }
        w = hr_prog_row(p, trace, alloc, metric, verdict, why);
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
        w->unit = f >= 0 ? (int)hr_prog_figs[f].unit : HR_UNIT_COUNT;
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
        fig_spread(&hr_prog_figs[f], rb, &b, nb, sizeof nb);
        fig_spread(&hr_prog_figs[f], rn, &n, nn, sizeof nn);
    } else {
        hr_spread_at(rb, path, &b);
        hr_spread_at(rn, path, &n);
    }
    hr_prog_judge_spreads(p, f, trace, j->per_alloc ? rb->allocator : "-", metric, path, &b, &n, nb, nn,
                  j);
}

/* Figure f judged as hr_prog_figs and the thresholds say. */
static void judge_fig(prog_t *p, int f, const char *trace, const hr_result_t *rb,
                      const hr_result_t *rn) {
    const prog_fig_t *g = &hr_prog_figs[f];
    judging_t j = {p->pct[f], 0, g->per_alloc, g->kind == FIG_EXACT, p->gated[f],
                   HR_FAMILY_NONE};
    judge(p, f, trace, rb, rn, g->words, NULL, &j);
}

/* The trace figures of one matched trace, and its digest as information. */
void hr_prog_compare_trace(prog_t *p, const char *name, const hr_result_t *tb,
                          const hr_result_t *tn) {
    const char *db = tb->trace_digest, *dn = tn->trace_digest;
    if (db && dn && strcmp(db, dn) != 0) {
        char why[160];
        snprintf(why, sizeof why, "%s -> %s: a new capture; the program's figures are compared",
                 db, dn);
        hr_prog_row(p, name, "-", "trace digest", "changed", why);
    }
    for (int f = 0; f < HR_PROG_NFIGS; f++)
        if (!hr_prog_figs[f].per_alloc)
            judge_fig(p, f, name, tb, tn);
}

/* The allocator figures of one (trace, allocator) pair. */
void hr_prog_compare_alloc(prog_t *p, const char *name, const hr_result_t *rb,
                          const hr_result_t *rn) {
    if (!hr_result_ok(rn)) {
        char st[96];
        snprintf(st, sizeof st, "status %s -> %s", rb->status, rn->status);
        hr_prog_row(p, name, rb->allocator, st, "FAILED", "the new result is not ok");
        return;
    }
    for (int f = 0; f < HR_PROG_NFIGS; f++)
        if (hr_prog_figs[f].per_alloc)
            judge_fig(p, f, name, rb, rn);
    for (int i = 0; i < p->nextra; i++) {
        const hr_compare_metric_t *m = &p->extra[i];
        const hr_metric_t *d = m->def;
        judging_t j = {m->pct, m->higher_better, 1, d && d->exact == HR_EXACT_TRACE, 1,
                       HR_FAMILY_NONE};
        judge(p, -1, name, rb, rn, m->name, m->path, &j);
    }
}

/* One process's figure (hr_family_fig_fn; ctx: the hr_prog_figs index). */
void hr_prog_proc_fig(const hr_result_t *r, hr_spread_t *s, void *ctx) {
    char note[128];
    int f = *(const int *)ctx;
    if (hr_prog_figs[f].whole == HR_FAMILY_COUNT) {
        memset(s, 0, sizeof *s);
        s->center = 1;
        s->min = s->max = NAN;
        s->n = 1;
        return;
    }
    fig_spread(&hr_prog_figs[f], r, s, note, sizeof note);
}
