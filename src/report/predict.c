/* Predicted change of the program's run time (predict.h; the formulas are
 * in docs/METRICS.md, "Predicted change of the program's run time").
 *
 * Per result of a trace with a program time:
 *   alloc_s     the replay's whole allocator time for one run of the trace:
 *               the cold lap's CPU time (time.cold_cpu_s; per sample in
 *               the samples of time.cold_cpu_s)
 *   change_s    alloc_s of this row minus the glibc row's: the median of the
 *               per-sample differences when both rows have as many samples
 *               (sample i of each came from the same round of interleaved
 *               repeats), else the difference of the medians
 *   replay_s_*  the differences' range (unpaired: min - max' .. max - min')
 *   interval    the replay's range of the laps' part scaled by the model's
 *               factors and widened on each side by its error (answers.h;
 *               the start-up term added as measured): "is the change real?";
 *               real: saving when it lies below 0, cost above, else none
 *   noise_s     the program's own run-to-run noise (hr_predict_noise) and
 *   runs_to_see how many runs of each show the change beyond it: "will I
 *               see it in one run?" (absent: noise unknown)
 *   change_pct  change_s / program cpu_s * 100 */
#include "report/predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "report/access.h"
#include "report/crosstrace.h"
#include "report/ranking.h"
#include "report/stats.h"
#include "report/prose.h"
#include "report/wholeprog.h"

#define MAX_SAMPLES 1024

static int same_trace(const hr_result_t *a, const hr_result_t *b) {
    const char *ta = a->trace, *tb = b->trace, *da = a->trace_digest, *db = b->trace_digest;
    return ta && tb && strcmp(ta, tb) == 0 && (!da || !db || strcmp(da, db) == 0);
}

/* The baseline row of r's trace: the first ok glibc result. */
static const hr_result_t *baseline_of(const hr_report_view_t *v, const hr_result_t *r) {
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *b = &v->rows[i];
        const char *a = b->allocator;
        if (a && strcmp(a, HR_PREDICT_BASELINE) == 0 && hr_result_ok(b) && same_trace(b, r))
            return b;
    }
    return NULL;
}

/* The per-sample allocator times of r (its samples, or its one value). */
static int alloc_samples(const hr_result_t *r, double *v) {
    int n = hr_result_samples(r, HR_M_COLD_CPU, v, MAX_SAMPLES);
    if (n == 0 && isfinite(r->m.COLD_CPU))
        v[n++] = r->m.COLD_CPU;
    return n;
}

/* The difference a - g: its median and range, paired by sample index when
 * both have as many samples. Returns 1 when paired. */
static int difference(const double *a, int na, const double *g, int ng, hr_stats_t *d) {
    double *v = malloc((size_t)(na > ng ? na : ng) * sizeof *v);
    if (na == ng && v) {
        for (int i = 0; i < na; i++)
            v[i] = a[i] - g[i];
        *d = hr_stats_of(v, na);
        free(v);
        return 1;
    }
    free(v);
    double *ac = malloc((size_t)na * sizeof *ac), *gc = malloc((size_t)ng * sizeof *gc);
    hr_stats_t sa = {0, NAN, NAN, NAN, NAN}, sg = sa;
    if (ac && gc) {
        memcpy(ac, a, (size_t)na * sizeof *ac);
        memcpy(gc, g, (size_t)ng * sizeof *gc);
        sa = hr_stats_of(ac, na);
        sg = hr_stats_of(gc, ng);
    }
    free(ac);
    free(gc);
    d->n = na < ng ? na : ng;
    d->median = sa.median - sg.median;
    d->min = sa.min - sg.max;
    d->max = sa.max - sg.min;
    d->mad = NAN;
    return 0;
}

/* The RSS source (docs/METRICS.md, "Memory lap: paced or fast"): the paced
 * lap's peak when both rows have one, else the fast lap's of both (a paced
 * figure against a fast one would mix two timelines). Sets *lap to the lap
 * used, or NULL when neither row says (reports made before memory.lap). */
static void rss_pair(const hr_result_t *r, const hr_result_t *b, double *pr, double *pb,
                     const char **lap) {
    const char *lr = r->m.MEM_LAP, *lb = b->m.MEM_LAP;
    int paced = lr && lb && !strcmp(lr, "paced") && !strcmp(lb, "paced");
    *pr = r->m.PEAK_RSS_ALL, *pb = b->m.PEAK_RSS_ALL;
    if (!paced) {
        *pr = isfinite(r->m.PEAK_RSS_FAST) ? r->m.PEAK_RSS_FAST : *pr;
        *pb = isfinite(b->m.PEAK_RSS_FAST) ? b->m.PEAK_RSS_FAST : *pb;
    }
    *lap = lr || lb ? (paced ? "paced" : "fast") : NULL;
}

/* The start-up term of row r (docs/METRICS.md, "Process start-up"): the
 * measured start-up CPU of the library r's worker ran with, over the C
 * library's, once for the one process a trace records, with its interval:
 * the paired rounds' signed-rank interval, or in a report made before the
 * probe had one, the estimate +- half the sum of the two libraries'
 * interquartile ranges. The replay's range carries that interval; the
 * prediction's interval, that interval scaled by the term's model error
 * (answers.h). Absent (known 0) when the report has no startup section or r
 * ran on a library it does not hold (glibc and the in-house allocators,
 * which run in a glibc process: no library of their own). */
typedef struct startup_term {
    int    known;
    double cpu_s, lo_s, hi_s; /* the estimate and its measured interval */
    double mlo_s, mhi_s;      /* that interval with the term's model error */
} startup_term_t;

static startup_term_t startup_of(const hr_json_t *doc, const hr_result_t *r) {
    startup_term_t st = {0, 0, 0, 0, 0, 0};
    const hr_json_t *rows = hr_json_path(doc, "startup.allocators");
    const char *lib = hr_json_path_str(r->json, "library");
    const hr_json_t *base = hr_json_at(rows, 0);
    if (!lib || !base)
        return st;
    for (size_t i = 1; i < hr_json_len(rows); i++) {
        const hr_json_t *x = hr_json_at(rows, i);
        const char *l = hr_json_path_str(x, "lib");
        double over = hr_json_path_num(x, "cpu_s_over_glibc");
        if (!l || strcmp(l, lib) != 0 || !isfinite(over))
            continue;
        double lo = hr_json_path_num(x, "cpu_s_over_glibc_lo"),
               hi = hr_json_path_num(x, "cpu_s_over_glibc_hi");
        if (!isfinite(lo) || !isfinite(hi) || lo > over || hi < over) {
            double iqr = hr_json_path_num(x, "cpu_s_q3") - hr_json_path_num(x, "cpu_s_q1") +
                         hr_json_path_num(base, "cpu_s_q3") - hr_json_path_num(base, "cpu_s_q1");
            double e = isfinite(iqr) ? iqr / 2 : 0;
            lo = over - e, hi = over + e;
        }
        st = (startup_term_t){1, over, lo, hi, 0, 0};
        hr_predict_startup_scaled(lo, hi, &st.mlo_s, &st.mhi_s); /* sets both */
        break;
    }
    return st;
}

/* The "predict" object of r against the baseline b, or NULL when either
 * has no allocator time. */
static hr_json_t *predict_one(const hr_result_t *r, const hr_result_t *b,
                              const hr_result_program_t *prog, startup_term_t st) {
    double a[MAX_SAMPLES], g[MAX_SAMPLES]; /* 16 KiB: --repeat is at most 1000 */
    int na = alloc_samples(r, a), ng = alloc_samples(b, g);
    if (!na || !ng)
        return NULL;
    hr_stats_t d;
    int paired = difference(a, na, g, ng, &d);
    double laps_s = d.median; /* the laps' part, before the start-up term */
    double lo, hi, m = hr_predict_model_error(b->m.COLD_CPU);
    hr_predict_scaled(d.min, d.max, &lo, &hi); /* the laps' part only: start-up is measured */
    d.median += st.cpu_s;
    d.min += st.lo_s;
    d.max += st.hi_s;
    lo += st.mlo_s - m;
    hi += st.mhi_s + m;
    double cpu = prog->cpu_s;
    const char *basis;
    double noise = hr_predict_noise(prog, &basis);
    hr_json_t *o = hr_json_new_object();
    hr_json_set(o, "alloc_s", hr_json_new_num(r->m.COLD_CPU));
    hr_json_set(o, "baseline", hr_json_new_str(HR_PREDICT_BASELINE));
    hr_json_set(o, "change_s", hr_json_new_num(d.median));
    if (cpu > 0)
        hr_json_set(o, "change_pct", hr_json_new_num(d.median / cpu * 100));
    if (st.known) { /* change_s = laps_s + startup_s */
        hr_json_set(o, "laps_s", hr_json_new_num(laps_s));
        hr_json_set(o, "startup_s", hr_json_new_num(st.cpu_s));
    }
    hr_json_set(o, "replay_s_lo", hr_json_new_num(d.min));
    hr_json_set(o, "replay_s_hi", hr_json_new_num(d.max));
    hr_json_set(o, "model_error_s", hr_json_new_num(m));
    hr_json_set(o, "interval_s_lo", hr_json_new_num(lo));
    hr_json_set(o, "interval_s_hi", hr_json_new_num(hi));
    hr_json_set(o, "real", hr_json_new_str(hi < 0 ? "saving" : lo > 0 ? "cost" : "none"));
    if (isfinite(noise)) {
        hr_json_set(o, "noise_s", hr_json_new_num(noise));
        hr_json_set(o, "noise_basis", hr_json_new_str(basis));
        hr_json_set(o, "runs_to_see", hr_json_new_num(hr_predict_runs_to_see(d.median, noise)));
    }
    hr_json_set(o, "paired", hr_json_new_bool(paired));
    if (hr_predict_loaded(prog))
        hr_json_set(o, "loaded", hr_json_new_bool(1));
    /* the program's max RSS moves with the worker's whole peak RSS (its
     * allocator's start-up included; docs/METRICS.md, "Peak RSS") */
    double pr, pb;
    const char *lap;
    rss_pair(r, b, &pr, &pb, &lap);
    if (isfinite(pr) && isfinite(pb))
        hr_json_set(o, "rss_change_bytes", hr_json_new_num(pr - pb));
    if (lap && isfinite(pr) && isfinite(pb))
        hr_json_set(o, "rss_lap", hr_json_new_str(lap));
    return o;
}

void hr_report_predict(hr_json_t *doc) {
    hr_report_view_t v;
    if (hr_report_view_init(&v, doc) < 0) {
        hr_outfile_note_oom(); /* the report would lack its predictions */
        return;
    }
    for (size_t i = 0; i < v.n; i++) {
        const hr_result_t *r = &v.rows[i], *b = NULL;
        hr_json_t *p = NULL;
        if (hr_result_ok(r) && r->program.present && (b = baseline_of(&v, r)))
            p = predict_one(r, b, &r->program, startup_of(doc, r));
        /* the rows were decoded from these objects: writing their "predict"
         * changes nothing the loop reads (program, samples, figures) */
        if (p)
            hr_json_set((hr_json_t *)r->json, HR_RK_PREDICT, p);
        else
            hr_json_remove((hr_json_t *)r->json, HR_RK_PREDICT);
    }
    hr_report_view_free(&v);
    /* the table across traces ranks by the predictions just written; the
     * whole program of a --follow-forks capture adds them up: one view of
     * the rows serves both */
    hr_json_t *x = NULL, *w = NULL;
    if (hr_report_view_init(&v, doc) == 0) {
        x = hr_crosstrace_json(&v);
        w = hr_wholeprog_json(&v);
    } else {
        hr_outfile_note_oom(); /* the report would lack both sections */
    }
    hr_report_view_free(&v);
    if (x)
        hr_json_set(doc, HR_REPORT_CROSS_TRACE, x);
    else
        hr_json_remove(doc, HR_REPORT_CROSS_TRACE);
    if (w)
        hr_json_set(doc, HR_REPORT_WHOLE_PROGRAM, w);
    else
        hr_json_remove(doc, HR_REPORT_WHOLE_PROGRAM);
}

/* ---- rendering ------------------------------------------------------------ */

/* One row; `why`: the reason an excluded row is not ranked (then it gets no
 * verdict), NULL for a ranked row. */
static void predict_row(hr_emit_t *em, const hr_result_t *t, const char *why) {
    const hr_result_predict_t *p = &t->predict;
    const char *alloc = t->allocator;
    double pct = p->change_pct;
    char a[32], c[32], lo[32], hi[32], iv[80], pc[32], rss[40] = "-", seen[48], nr[80];
    hr_fmt_seconds(a, sizeof a, p->alloc_s, 0);
    hr_fmt_seconds(c, sizeof c, p->change_s, 1);
    hr_fmt_seconds(lo, sizeof lo, p->interval_s_lo, 1);
    hr_fmt_seconds(hi, sizeof hi, p->interval_s_hi, 1);
    snprintf(iv, sizeof iv, "%s .. %s", lo, hi);
    if (isfinite(pct))
        snprintf(pc, sizeof pc, "%+.1f%%", pct == 0 ? 0.0 : pct);
    else
        snprintf(pc, sizeof pc, "-");
    double drss = p->rss_change_bytes;
    if (isfinite(drss)) { /* signed, as the change: "+2.50 MiB", "-512 B", "0 B" */
        hr_fmt_bytes(rss + (drss != 0), sizeof rss - 1, fabs(drss));
        if (drss != 0)
            rss[0] = drss < 0 ? '-' : '+';
    }
    int base = strcmp(alloc, HR_PREDICT_BASELINE) == 0;
    hr_predict_seen_words(seen, sizeof seen, p);
    snprintf(nr, sizeof nr, "not ranked: %s", why ? why : "");
    hr_emit_cell_str(em, alloc);
    hr_emit_cell_str(em, a);
    hr_emit_cell_str(em, c);
    hr_emit_cell_str(em, pc);
    hr_emit_cell_str(em, iv);
    hr_emit_cell_str(em, why ? nr : base ? "baseline" : hr_predict_real_words(p));
    hr_emit_cell_str(em, base ? NULL : seen); /* a fact of the change, ranked or not */
    hr_emit_cell_str(em, rss);
    hr_emit_row_end(em);
}

/* The lines under the table: what the program time is, its noise and how
 * to read the columns (the load warning is the summary's, in every format). */
static void program_note(FILE *out, const hr_result_program_t *prog, int md, hr_legends_t *lg) {
    char wall[32], cpu[32], lo[32], hi[32], rss[32], noise[64] = "";
    double runs = prog->runs;
    const char *timed = prog->timed, *basis = NULL;
    int captured = timed && strcmp(timed, "capture") == 0;
    hr_fmt_seconds(wall, sizeof wall, prog->wall_s, 0);
    hr_fmt_seconds(cpu, sizeof cpu, prog->cpu_s, 0);
    hr_fmt_seconds(lo, sizeof lo, prog->cpu_s_min, 0);
    hr_fmt_seconds(hi, sizeof hi, prog->cpu_s_max, 0);
    hr_fmt_bytes(rss, sizeof rss, prog->max_rss);
    double n = hr_predict_noise(prog, &basis);
    if (isfinite(n))
        hr_fmt_seconds(noise, sizeof noise, n, 0);
    const char *lead = md ? "- " : "  ";
    fprintf(out, "%sprogram: %s CPU, %s wall, max RSS %s (", lead, cpu, wall, rss);
    if (captured)
        fprintf(out, "the captured run, slowed by the capture; ");
    else
        fprintf(out, "median of %.0f run%s without the capture library, CPU %s .. %s; ", runs,
                runs == 1 ? "" : "s", lo, hi);
    if (*noise)
        fprintf(out, "run-to-run noise +/-%s, from the runs' %s)\n", noise,
                strcmp(basis, "mad") == 0 ? "median absolute deviation" : "range");
    else
        fprintf(out, "its noise is unknown: capture with --time-runs N)\n");
    if (!hr_legend_first(lg, HR_LEGEND_PREDICT)) {
        fprintf(out, "%scolumns as in the first prediction table above\n\n", lead);
        return;
    }
    fprintf(out, "%salloc time: the replay's cold lap (CPU); change: minus %s's; interval: the "
            "replay's samples times %.1f to %.1f (real programs changed more than their "
            "allocator's own time) widened by the model's error (%.0f%% of %s's allocator "
            "time); real?: the interval below or above 0; one run: whether the "
            "change exceeds the program's noise in one run of each, or how many runs of each "
            "show it; max RSS change: the replay's peak RSS, allocator start-up included, minus "
            "%s's (docs/METRICS.md)\n\n", lead, HR_PREDICT_BASELINE, HR_PREDICT_SCALE_LO,
            HR_PREDICT_SCALE_HI, HR_PREDICT_MODEL_ALLOC * 100, HR_PREDICT_BASELINE,
            HR_PREDICT_BASELINE);
}

/* The start-up terms of trace's rows, one sentence (nothing when none). */
static void startup_note(FILE *out, const hr_report_view_t *v, const char *trace) {
    int n = 0;
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!hr_result_of_trace(r, trace) || !r->allocator)
            continue; /* before the JSON lookup: a report may hold thousands of traces */
        double st = hr_json_path_num(r->json, "predict.startup_s");
        if (!isfinite(st))
            continue;
        fprintf(out, "%s%s %+.1f ms", n++ ? ", " : "Process start-up, in the change (the "
                "library loaded once per process, measured once per run): ",
                r->allocator, st * 1e3);
    }
    if (n) /* a blank line after it, as after the notes above: the next trace's section follows */
        fprintf(out, ".\n\n");
}

void hr_report_predict_table(hr_emit_t *em, const hr_report_view_t *v, const char *trace,
                             hr_legends_t *lg) {
    static const char *const cols[] = {"allocator", ">alloc time", ">change", ">% of CPU",
                                       ">interval", "real?", "one run", ">max RSS change"};
    const hr_result_program_t *prog = NULL;
    for (size_t i = 0; i < v->n && !prog; i++) {
        const hr_result_t *r = &v->rows[i];
        if (hr_result_of_trace(r, trace) && r->predict.present && r->program.present)
            prog = &r->program;
    }
    if (!prog)
        return;
    char title[600];
    snprintf(title, sizeof title, "Predicted change of the program's run time (%s)", trace);
    hr_emit_table_begin(em, title, 8, cols);
    hr_ranking_t rk;
    hr_rank_trace(&rk, v, trace);
    for (int i = 0; i < rk.n; i++) /* in the ranking's order */
        if (rk.e[i].r->predict.present)
            predict_row(em, rk.e[i].r, rk.e[i].why);
    hr_emit_table_end(em);
    if (em->format != HR_EMIT_TEXT && em->format != HR_EMIT_MARKDOWN)
        return;
    /* The notes are prose of the summary: wrapped at its width like its own. */
    int md = em->format == HR_EMIT_MARKDOWN;
    hr_prose_t p;
    FILE *f = hr_prose_open(&p);
    if (!f)
        return;
    program_note(f, prog, md, lg);
    startup_note(f, v, trace);
    hr_prose_close(&p, em->out, md);
}
