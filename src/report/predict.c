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
 *   interval    the differences' range (unpaired: min - max' .. max - min'),
 *               widened on each side by the program's own noise
 *               (hr_predict_noise of the recorded CPU range)
 *   change_pct  change_s / program cpu_s * 100
 *   within_noise  the interval holds 0 */
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
#include "report/summary.h"

#define MAX_SAMPLES 1024

/* d2(n): the expected range of n standard normal samples (n = 2..20);
 * above 20 the value of 20, which overstates the noise slightly. */
static const double d2_table[21] = {0,     0,     1.128, 1.693, 2.059, 2.326, 2.534,
                                    2.704, 2.847, 2.970, 3.078, 3.173, 3.258, 3.336,
                                    3.407, 3.472, 3.532, 3.588, 3.640, 3.689, 3.735};

double hr_predict_noise(double range_s, unsigned runs) {
    if (runs < 2 || !isfinite(range_s))
        return NAN;
    double d2 = d2_table[runs > 20 ? 20 : runs];
    return HR_PREDICT_Z * sqrt(2.0) * range_s / d2;
}

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

/* The "predict" object of r against the baseline b, or NULL when either
 * has no allocator time. */
static hr_json_t *predict_one(const hr_result_t *r, const hr_result_t *b,
                              const hr_result_program_t *prog) {
    double a[MAX_SAMPLES], g[MAX_SAMPLES]; /* 16 KiB: --repeat is at most 1000 */
    int na = alloc_samples(r, a), ng = alloc_samples(b, g);
    if (!na || !ng)
        return NULL;
    hr_stats_t d;
    int paired = difference(a, na, g, ng, &d);
    double cpu = prog->cpu_s, runs = prog->runs;
    double noise = hr_predict_noise(prog->cpu_s_max - prog->cpu_s_min,
                                    runs >= 2 && runs < 4e9 ? (unsigned)runs : 0);
    double w = isfinite(noise) ? noise : 0, lo = d.min - w, hi = d.max + w;
    hr_json_t *o = hr_json_new_object();
    hr_json_set(o, "alloc_s", hr_json_new_num(r->m.COLD_CPU));
    hr_json_set(o, "baseline", hr_json_new_str(HR_PREDICT_BASELINE));
    hr_json_set(o, "change_s", hr_json_new_num(d.median));
    if (cpu > 0)
        hr_json_set(o, "change_pct", hr_json_new_num(d.median / cpu * 100));
    hr_json_set(o, "interval_s_lo", hr_json_new_num(lo));
    hr_json_set(o, "interval_s_hi", hr_json_new_num(hi));
    if (isfinite(noise))
        hr_json_set(o, "noise_s", hr_json_new_num(noise));
    hr_json_set(o, "paired", hr_json_new_bool(paired));
    /* the program's max RSS moves with the worker's whole peak RSS (its
     * allocator's start-up included; docs/METRICS.md, "Peak RSS") */
    double pr, pb;
    const char *lap;
    rss_pair(r, b, &pr, &pb, &lap);
    if (isfinite(pr) && isfinite(pb))
        hr_json_set(o, "rss_change_bytes", hr_json_new_num(pr - pb));
    if (lap && isfinite(pr) && isfinite(pb))
        hr_json_set(o, "rss_lap", hr_json_new_str(lap));
    hr_json_set(o, "within_noise", hr_json_new_bool(lo <= 0 && hi >= 0));
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
            p = predict_one(r, b, &r->program);
        /* the rows were decoded from these objects: writing their "predict"
         * changes nothing the loop reads (program, samples, figures) */
        if (p)
            hr_json_set((hr_json_t *)r->json, HR_RK_PREDICT, p);
        else
            hr_json_remove((hr_json_t *)r->json, HR_RK_PREDICT);
    }
    hr_report_view_free(&v);
    /* the table across traces ranks by the predictions just written */
    hr_json_t *x = NULL;
    if (hr_report_view_init(&v, doc) == 0)
        x = hr_crosstrace_json(&v);
    else
        hr_outfile_note_oom(); /* the report would lack the table across traces */
    hr_report_view_free(&v);
    if (x)
        hr_json_set(doc, HR_REPORT_CROSS_TRACE, x);
    else
        hr_json_remove(doc, HR_REPORT_CROSS_TRACE);
}

/* ---- rendering ------------------------------------------------------------ */

/* One row; `why`: the reason an excluded row is not ranked (then it gets no
 * faster/slower verdict), NULL for a ranked row. */
static void predict_row(hr_emit_t *em, const hr_result_t *t, const char *why) {
    const hr_result_predict_t *p = &t->predict;
    const char *alloc = t->allocator;
    double change = p->change_s, pct = p->change_pct;
    char a[32], c[32], lo[32], hi[32], iv[80], pc[32], rss[40] = "-";
    hr_fmt_seconds(a, sizeof a, p->alloc_s, 0);
    hr_fmt_seconds(c, sizeof c, change, 1);
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
    hr_emit_cell_str(em, alloc);
    hr_emit_cell_str(em, a);
    hr_emit_cell_str(em, c);
    hr_emit_cell_str(em, iv);
    hr_emit_cell_str(em, pc);
    hr_emit_cell_str(em, rss);
    char nr[80];
    snprintf(nr, sizeof nr, "not ranked: %s", why ? why : "");
    hr_emit_cell_str(em, why ? nr
                         : base ? "baseline"
                         : p->within_noise ? "within noise"
                         : change < 0 ? "faster" : "slower");
    hr_emit_row_end(em);
}

/* The line under the table: what the program time is and how to read it. */
static void program_note(FILE *out, const hr_result_program_t *prog, int md) {
    char wall[32], cpu[32], lo[32], hi[32], rss[32], noise[64] = "";
    double runs = prog->runs;
    const char *timed = prog->timed;
    int captured = timed && strcmp(timed, "capture") == 0;
    hr_fmt_seconds(wall, sizeof wall, prog->wall_s, 0);
    hr_fmt_seconds(cpu, sizeof cpu, prog->cpu_s, 0);
    hr_fmt_seconds(lo, sizeof lo, prog->cpu_s_min, 0);
    hr_fmt_seconds(hi, sizeof hi, prog->cpu_s_max, 0);
    hr_fmt_bytes(rss, sizeof rss, prog->max_rss);
    double n = hr_predict_noise(prog->cpu_s_max - prog->cpu_s_min,
                                runs >= 2 && runs < 4e9 ? (unsigned)runs : 0);
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
        fprintf(out, "run-to-run noise +/-%s)\n", noise);
    else
        fprintf(out, "its noise is unknown: capture with --time-runs N)\n");
    fprintf(out, "%salloc time: the replay's cold lap (CPU); change: minus %s's; interval: the "
            "replay's samples%s; max RSS change: the replay's peak RSS, allocator start-up "
            "included, minus %s's (docs/METRICS.md)\n\n", lead, HR_PREDICT_BASELINE,
            *noise ? " widened by the program's noise" : "", HR_PREDICT_BASELINE);
}

void hr_report_predict_table(hr_emit_t *em, const hr_report_view_t *v, const char *trace) {
    static const char *const cols[] = {"allocator", ">alloc time", ">change", ">interval",
                                       ">% of CPU", ">max RSS change", "verdict"};
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
    hr_emit_table_begin(em, title, 7, cols);
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
    program_note(f, prog, md);
    hr_prose_close(&p, em->out, md);
}
