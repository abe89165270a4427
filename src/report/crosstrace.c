/* The summary across traces (see crosstrace.h).
 *
 * Per trace with an ok reference row (HR_RANK_BASELINE) and per allocator
 * ranked on it (ranking.h; an excluded row gets no cell):
 *   time   PROGRAM basis: (cpu + change) / cpu, cpu the program's CPU time
 *          and change the predicted change (the reference: 1); its range
 *          from the prediction's interval, within noise when the
 *          prediction says the change is not real. COLD/WARM basis: ns/op / the reference's ns/op; range
 *          min / ref max .. max / ref min of the samples.
 *   rss    peak RSS / the reference's; range likewise from the samples.
 * Per allocator: the geometric mean of its cells, of their lo and of their
 * hi (the latter two only when every cell has a range), and how many cells
 * are within noise (the range holds 1). */
#include "report/crosstrace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "report/ranking.h"
#include "report/prose.h"

static const char *basis_key(hr_rank_basis_t b) {
    return b == HR_RANK_PROGRAM ? "program" : b == HR_RANK_COLD ? "cold" : "warm";
}

static hr_xt_cell_t cell(double ratio, double lo, double hi, int noise) {
    hr_xt_cell_t c = {ratio, lo, hi, noise};
    if (noise < 0 && isfinite(lo) && isfinite(hi))
        c.noise = lo <= 1 && hi >= 1;
    return c;
}

/* a / ref with the range of their samples. */
static hr_xt_cell_t ratio_of(double a, double alo, double ahi, double r, double rlo, double rhi) {
    if (!(a > 0) || !(r > 0))
        return cell(NAN, NAN, NAN, -1);
    int known = isfinite(alo) && isfinite(ahi) && rlo > 0 && isfinite(rhi);
    return cell(a / r, known ? alo / rhi : NAN, known ? ahi / rlo : NAN, -1);
}

/* The time cell of ranked entry e against the reference entry g. */
static hr_xt_cell_t time_cell(const hr_ranking_t *rk, const hr_rank_entry_t *e,
                              const hr_rank_entry_t *g) {
    if (rk->basis != HR_RANK_PROGRAM)
        return ratio_of(e->key, e->lo, e->hi, g->key, g->lo, g->hi);
    double cpu = e->r->program.cpu_s;
    if (!(cpu > 0))
        return cell(NAN, NAN, NAN, -1);
    return cell((cpu + e->key) / cpu, (cpu + e->lo) / cpu, (cpu + e->hi) / cpu,
                e->r->predict.real == 0);
}

static hr_xt_row_t *row_of(hr_crosstrace_t *x, const char *alloc) {
    for (int i = 0; i < x->nrows; i++)
        if (strcmp(x->rows[i].allocator, alloc) == 0)
            return &x->rows[i];
    if (x->nrows == HR_XT_MAX_ALLOCS)
        return NULL;
    hr_xt_row_t *r = &x->rows[x->nrows++];
    r->allocator = alloc;
    for (int t = 0; t < HR_XT_MAX_TRACES; t++)
        r->time[t] = r->rss[t] = cell(NAN, NAN, NAN, -1);
    return r;
}

/* Adds the trace's column: its ranked rows against its reference row. */
static void add_trace(hr_crosstrace_t *x, const hr_report_view_t *v, const char *trace) {
    hr_ranking_t rk;
    hr_rank_trace(&rk, v, trace);
    const hr_rank_entry_t *g = NULL;
    for (int i = 0; i < rk.n && !g; i++)
        if (hr_result_ok(rk.e[i].r) && strcmp(rk.e[i].r->allocator, HR_RANK_BASELINE) == 0)
            g = &rk.e[i];
    if (!g || !isfinite(g->key) || rk.basis == HR_RANK_NONE || x->ntraces == HR_XT_MAX_TRACES)
        return;
    int t = x->ntraces++;
    x->traces[t] = trace;
    x->basis[t] = basis_key(rk.basis);
    double gv, glo, ghi;
    hr_rank_rss(g->r, &gv, &glo, &ghi);
    hr_xt_row_t *ref = row_of(x, g->r->allocator); /* 1 by definition, ranked or not */
    if (ref) {
        ref->time[t] = cell(1, NAN, NAN, -1);
        ref->rss[t] = cell(isfinite(gv) ? 1 : NAN, NAN, NAN, -1);
    }
    for (int i = 0; i < rk.nranked; i++) {
        hr_xt_row_t *row = row_of(x, rk.e[i].r->allocator);
        if (!row || row == ref)
            continue;
        double av, alo, ahi;
        hr_rank_rss(rk.e[i].r, &av, &alo, &ahi);
        row->time[t] = time_cell(&rk, &rk.e[i], g);
        row->rss[t] = ratio_of(av, alo, ahi, gv, glo, ghi);
    }
}

static hr_xt_mean_t mean_of(const hr_xt_cell_t *c, int n) {
    hr_xt_mean_t m = {NAN, NAN, NAN, 0, 0, 0};
    double s = 0, slo = 0, shi = 0;
    int ranged = 0;
    for (int t = 0; t < n; t++) {
        if (!isfinite(c[t].ratio))
            continue;
        m.n++;
        m.known += c[t].noise >= 0;
        m.within += c[t].noise == 1;
        s += log(c[t].ratio);
        if (c[t].lo > 0 && c[t].hi > 0) {
            ranged++;
            slo += log(c[t].lo);
            shi += log(c[t].hi);
        }
    }
    if (m.n == 0)
        return m;
    m.geomean = exp(s / m.n);
    if (ranged == m.n) {
        m.lo = exp(slo / m.n);
        m.hi = exp(shi / m.n);
    }
    return m;
}

static int cmp_rows(const void *pa, const void *pb) {
    double a = ((const hr_xt_row_t *)pa)->time_mean.geomean;
    double b = ((const hr_xt_row_t *)pb)->time_mean.geomean;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return a < b ? -1 : a > b;
}

int hr_crosstrace_of(hr_crosstrace_t *x, const hr_report_view_t *v) {
    x->ntraces = x->nrows = 0;
    for (int t = 0; t < v->ntraces; t++)
        add_trace(x, v, v->traces[t]);
    for (int i = 0; i < x->nrows; i++) {
        x->rows[i].time_mean = mean_of(x->rows[i].time, x->ntraces);
        x->rows[i].rss_mean = mean_of(x->rows[i].rss, x->ntraces);
    }
    qsort(x->rows, (size_t)x->nrows, sizeof x->rows[0], cmp_rows);
    return x->ntraces;
}

/* ---- tables --------------------------------------------------------------- */

/* "0.93", "≈0.98" within noise, "-" no cell. */
static void ratio_cell(hr_emit_t *em, const hr_xt_cell_t *c) {
    char b[32];
    if (!isfinite(c->ratio)) {
        hr_emit_cell_str(em, NULL);
        return;
    }
    snprintf(b, sizeof b, "%s%.2f", c->noise == 1 ? "≈" : "", c->ratio);
    hr_emit_cell_str(em, b);
}

/* One table: a row per allocator, a column per trace, then the geomean,
 * its range and the cells within noise. */
static void one_table(hr_emit_t *em, const hr_crosstrace_t *x, int rss, const char *title) {
    const char *cols[HR_XT_MAX_TRACES + 4];
    char names[HR_XT_MAX_TRACES][64];
    int nc = 0;
    cols[nc++] = "allocator";
    for (int t = 0; t < x->ntraces; t++) {
        const char *b = hr_report_trace_base(x->traces[t]);
        size_t len = strlen(b);
        if (len > 4 && strcmp(b + len - 4, ".hrt") == 0)
            len -= 4;
        snprintf(names[t], sizeof names[t], ">%.*s", (int)len, b);
        cols[nc++] = names[t];
    }
    cols[nc++] = ">geomean";
    cols[nc++] = ">range";
    cols[nc++] = ">within noise";
    hr_emit_table_begin(em, title, nc, cols);
    for (int i = 0; i < x->nrows; i++) {
        const hr_xt_row_t *r = &x->rows[i];
        const hr_xt_mean_t *m = rss ? &r->rss_mean : &r->time_mean;
        char b[64];
        hr_emit_cell_str(em, r->allocator);
        for (int t = 0; t < x->ntraces; t++)
            ratio_cell(em, rss ? &r->rss[t] : &r->time[t]);
        snprintf(b, sizeof b, "%.2f", m->geomean);
        hr_emit_cell_str(em, m->n ? b : NULL);
        snprintf(b, sizeof b, "%.2f..%.2f", m->lo, m->hi);
        hr_emit_cell_str(em, m->n && isfinite(m->lo) ? b : NULL);
        snprintf(b, sizeof b, "%d of %d", m->within, m->known);
        if (m->known == 0)
            snprintf(b, sizeof b, "unknown");
        if (strcmp(r->allocator, HR_RANK_BASELINE) == 0)
            snprintf(b, sizeof b, "reference");
        hr_emit_cell_str(em, m->n ? b : NULL);
        hr_emit_row_end(em);
    }
    hr_emit_table_end(em);
}

/* The legend under the tables. */
static void legend(FILE *out, const hr_crosstrace_t *x, int md) {
    const char *pre = md ? "- " : "  ";
    int prog = 0, other = 0;
    for (int t = 0; t < x->ntraces; t++) {
        prog |= strcmp(x->basis[t], "program") == 0;
        other |= strcmp(x->basis[t], "program") != 0;
    }
    fprintf(out, "%seach cell: the allocator's figure / %s's on that trace (lower is better); "
            "only allocators ranked on the trace get a cell\n", pre, HR_RANK_BASELINE);
    if (prog)
        fprintf(out, "%stime, traces with program time: the program's predicted CPU time / its "
                "CPU time with %s\n", pre, HR_RANK_BASELINE);
    if (other)
        fprintf(out, "%stime, traces without: the ranking's ns/op (cold lap; warm in a report "
                "without one)\n", pre);
    fprintf(out, "%sgeomean: the geometric mean over the allocator's cells; range: the geometric "
            "means of the cells' low and high ends (their samples' ranges)\n", pre);
    fprintf(out, "%s≈: within noise (the cell's range holds 1); within noise: how many of the "
            "allocator's cells with a known range are (unknown: single samples)\n\n", pre);
}

/* The tables and the legend of x on em. */
static void tables(hr_emit_t *em, const hr_crosstrace_t *x, int md) {
    char title[128];
    snprintf(title, sizeof title, "Across traces: time relative to %s", HR_RANK_BASELINE);
    one_table(em, x, 0, title);
    int rss = 0; /* a report without RSS figures (an older one) has no such table */
    for (int i = 0; i < x->nrows; i++)
        rss |= x->rows[i].rss_mean.n > 0;
    snprintf(title, sizeof title, "Across traces: peak RSS relative to %s", HR_RANK_BASELINE);
    if (rss)
        one_table(em, x, 1, title);
    hr_prose_t p;
    FILE *f = hr_prose_open(&p);
    if (f) { /* in HTML too as text: the page turns it into paragraphs */
        legend(f, x, md);
        hr_prose_close(&p, em->out, md);
    } else {
        hr_outfile_note_oom(); /* the legend would be lost */
    }
}

/* x filled from v, or NULL (fewer than 2 traces with a reference row, or
 * out of memory); free() it. */
static hr_crosstrace_t *across(const hr_report_view_t *v) {
    hr_crosstrace_t *x = malloc(sizeof *x);
    if (x && hr_crosstrace_of(x, v) >= 2)
        return x;
    free(x);
    return NULL;
}

void hr_crosstrace_table(hr_emit_t *em, const hr_report_view_t *v, int md) {
    hr_crosstrace_t *x = across(v);
    if (x)
        tables(em, x, md);
    free(x);
}

int hr_crosstrace_html(FILE *out, const hr_report_view_t *v) {
    hr_crosstrace_t *x = across(v);
    hr_emit_t em;
    if (!x)
        return 0;
    hr_emit_init(&em, out, HR_EMIT_HTML);
    tables(&em, x, 0);
    free(x);
    return 1;
}

/* ---- JSON ----------------------------------------------------------------- */

static hr_json_t *num(double v) { return isfinite(v) ? hr_json_new_num(v) : hr_json_new_null(); }

static hr_json_t *figure_json(const hr_xt_cell_t *c, const hr_xt_mean_t *m, int nt) {
    hr_json_t *o = hr_json_new_object(), *r = hr_json_new_array(), *w = hr_json_new_array();
    for (int t = 0; t < nt; t++) {
        hr_json_push(r, num(c[t].ratio));
        hr_json_push(w, isfinite(c[t].ratio) && c[t].noise >= 0 ? hr_json_new_bool(c[t].noise)
                                                                : hr_json_new_null());
    }
    hr_json_set(o, "ratios", r);
    hr_json_set(o, "within_noise", w);
    hr_json_set(o, "geomean", num(m->geomean));
    hr_json_set(o, "geomean_lo", num(m->lo));
    hr_json_set(o, "geomean_hi", num(m->hi));
    hr_json_set(o, "cells", hr_json_new_num(m->n));
    hr_json_set(o, "cells_noise_known", hr_json_new_num(m->known));
    hr_json_set(o, "cells_within_noise", hr_json_new_num(m->within));
    return o;
}

hr_json_t *hr_crosstrace_json(const hr_report_view_t *v) {
    hr_crosstrace_t *x = across(v);
    if (!x)
        return NULL;
    hr_json_t *o = hr_json_new_object(), *tr = hr_json_new_array(), *ba = hr_json_new_array();
    hr_json_t *rows = hr_json_new_array();
    hr_json_set(o, "reference", hr_json_new_str(HR_RANK_BASELINE));
    for (int t = 0; t < x->ntraces; t++) {
        hr_json_push(tr, hr_json_new_str(x->traces[t]));
        hr_json_push(ba, hr_json_new_str(x->basis[t]));
    }
    hr_json_set(o, "traces", tr);
    hr_json_set(o, "time_basis", ba);
    for (int i = 0; i < x->nrows; i++) {
        const hr_xt_row_t *r = &x->rows[i];
        hr_json_t *a = hr_json_new_object();
        hr_json_set(a, "allocator", hr_json_new_str(r->allocator));
        hr_json_set(a, "time", figure_json(r->time, &r->time_mean, x->ntraces));
        hr_json_set(a, "peak_rss", figure_json(r->rss, &r->rss_mean, x->ntraces));
        hr_json_push(rows, a);
    }
    hr_json_set(o, "allocators", rows);
    free(x);
    return o;
}
