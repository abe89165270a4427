/* The per-trace summary of text and Markdown reports (see summary.h). */
#include "report/summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "base/outfile.h"
#include "report/access.h"
#include "report/ranking.h"
#include "report/stats.h"

#define HR_SUMMARY_MAX_ROWS 256

/* Row groups, in table order. */
enum { G_RANKED = 0, G_FALLBACK, G_OTHER };

typedef struct srow {
    const hr_json_t *r;
    hr_result_t      t; /* r decoded (base/result.h) */
    int              group;
    double           key; /* the ranking figure (median) */
    size_t           idx; /* order in the report: ties keep it */
} srow_t;

static const hr_metric_t *rank_metric(void) {
    for (int k = 0; k < HR_M__COUNT; k++)
        if (hr_metrics[k].flags & HR_MF_RANK)
            return &hr_metrics[k];
    return &hr_metrics[HR_M_NS_PER_OP];
}

static int cmp_rows(const void *pa, const void *pb) {
    const srow_t *a = pa, *b = pb;
    int higher = (rank_metric()->flags & HR_MF_HIGHER) != 0;
    if (a->group != b->group)
        return a->group - b->group;
    if (a->group == G_RANKED && a->key != b->key)
        return (a->key < b->key) != higher ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The rows of `trace` in table order: ranked (ok, not mostly fallback, with
 * the ranking figure) best first, then mostly fallback, then the rest. */
static int collect(const hr_json_t *results, const char *trace, srow_t *rows, int max) {
    const hr_metric_t *rank = rank_metric();
    int n = 0;
    for (size_t i = 0; i < hr_json_len(results) && n < max; i++) {
        const hr_json_t *r = hr_json_at(results, i);
        if (!hr_result_of_trace(r, trace))
            continue;
        hr_spread_t s;
        hr_spread_of(r, rank->path, &s);
        rows[n].r = r;
        hr_report_result(r, &rows[n].t);
        rows[n].idx = i;
        rows[n].key = s.center;
        rows[n].group = !hr_result_ok(r)                    ? G_OTHER
                        : hr_result_mostly_fallback(r) ? G_FALLBACK
                        : s.n == 0 || isnan(s.center) ? G_OTHER
                                                      : G_RANKED;
        n++;
    }
    qsort(rows, (size_t)n, sizeof *rows, cmp_rows);
    return n;
}

/* ---- the table ---------------------------------------------------------- */

/* The flags cell: the status of a row that is not ok, else "fallback",
 * "unstable", "interrupted" (comma-separated); NULL when there is none. */
static const char *flags_of(const hr_result_t *t, char *buf, size_t n) {
    buf[0] = 0;
    if (!hr_result_ok(t->json)) {
        snprintf(buf, n, "%s", t->status);
        return buf;
    }
    if (hr_result_mostly_fallback(t->json))
        snprintf(buf, n, "fallback");
    else if (t->unstable)
        snprintf(buf, n, "unstable");
    if (t->interrupted)
        snprintf(buf + strlen(buf), n - strlen(buf), "%sinterrupted", buf[0] ? "," : "");
    return buf[0] ? buf : NULL;
}

/* ops/s as "12.30 M ±1.2%": the median and its MAD relative to it (the
 * robust spread, docs/REPORTS.md); the median alone for a single sample. */
static void ops_cell(hr_emit_t *em, const hr_result_t *t) {
    double v = t->m.OPS_PER_S;
    double mad = t->m.OPS_PER_S_mad;
    char num[48], buf[80];
    if (!isfinite(v)) {
        hr_emit_cell_str(em, NULL);
        return;
    }
    hr_fmt_rate(num, sizeof num, v);
    if (isfinite(mad) && v != 0 && t->runs >= 2)
        snprintf(buf, sizeof buf, "%s ±%.1f%%", num, mad / fabs(v) * 100);
    else
        snprintf(buf, sizeof buf, "%s", num);
    hr_emit_cell_str(em, buf);
}

/* Peak footprint: the median of its samples when it is sampled (an external
 * allocator's), else the exact figure. */
static double footprint(const hr_json_t *r) {
    hr_spread_t s;
    hr_spread_of(r, hr_metrics[HR_M_PEAK_FP].path, &s);
    return s.center;
}

static void table_row(hr_emit_t *em, const srow_t *row, int rank) {
    const hr_json_t *r = row->r;
    char buf[64];
    if (row->group == G_RANKED)
        hr_emit_cell_u64(em, (uint64_t)rank);
    else
        hr_emit_cell_str(em, NULL);
    hr_emit_cell_str(em, row->t.allocator);
    if (!hr_result_ok(r)) { /* figures of a failed row are not comparable: "-" */
        for (int c = 0; c < 6; c++)
            hr_emit_cell_str(em, NULL);
    } else {
        ops_cell(em, &row->t);
        hr_report_cell_unit(em, row->t.m.P99, hr_fmt_ns);
        hr_report_cell_unit(em, row->t.m.WF_NS, hr_fmt_ns);
        hr_report_cell_unit(em, footprint(r), hr_fmt_bytes);
        hr_report_cell_pct(em, row->t.m.FRAG_JW4);
        hr_report_cell_pct(em, row->t.m.NATIVE_SHARE);
    }
    hr_emit_cell_str(em, flags_of(&row->t, buf, sizeof buf));
    hr_emit_row_end(em);
}

/* "trace PATH: N ops, peak live X" (both properties of the trace). */
static void heading(char *buf, size_t n, const srow_t *rows, int nr, const char *trace) {
    double ops = NAN, live = NAN;
    for (int i = 0; i < nr && (isnan(ops) || isnan(live)); i++) {
        if (isnan(ops))
            ops = rows[i].t.m.OPS_TOTAL;
        if (isnan(live))
            live = rows[i].t.m.PEAK_LIVE;
    }
    int k = snprintf(buf, n, "trace %s", trace);
    if (k < 0 || (size_t)k >= n || isnan(ops))
        return;
    char b[32];
    hr_fmt_bytes(b, sizeof b, live);
    snprintf(buf + k, n - (size_t)k, ": %.0f ops, peak live %s", ops, isnan(live) ? "-" : b);
}

static void summary_table(hr_emit_t *em, const srow_t *rows, int nr, const char *trace) {
    static const char *const cols[] = {">#", "allocator", ">ops/s", ">p99", ">worst frame",
                                       ">footprint", ">frag", ">native", "flags"};
    char title[600];
    heading(title, sizeof title, rows, nr, trace);
    hr_emit_table_begin(em, title, (int)(sizeof cols / sizeof cols[0]), cols);
    for (int i = 0, rank = 0; i < nr; i++)
        table_row(em, &rows[i], rows[i].group == G_RANKED ? ++rank : 0);
    hr_emit_table_end(em);
}

/* ---- the verdict -------------------------------------------------------- */

/* Appends to buf (always NUL-terminated). */
static void cat(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t n, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}


static const char *noise_word(int sep) {
    return sep > 0 ? "separated" : "noise unknown";
}

/* "fastest: A, 1.69x B's ops/s (separated)" or "... within noise". The
 * margin is the ratio of the ranking figure (ns/op: its inverse is ops/s). */
static void fastest(char *buf, size_t n, const srow_t *rows, int nr) {
    const hr_metric_t *rank = rank_metric();
    int higher = (rank->flags & HR_MF_HIGHER) != 0, nk = 0;
    while (nk < nr && rows[nk].group == G_RANKED)
        nk++;
    if (nk == 0) {
        cat(buf, n, "fastest: none (no allocator could be ranked)");
        return;
    }
    if (nk == 1) {
        cat(buf, n, "fastest: %s (the only ranked allocator)", rows[0].t.allocator);
        return;
    }
    hr_spread_t a, b;
    hr_spread_of(rows[0].r, rank->path, &a);
    hr_spread_of(rows[1].r, rank->path, &b);
    int sep = hr_rank_separated(&a, &b, higher);
    if (sep == 0) {
        cat(buf, n, "fastest: %s and %s within noise (samples overlap)", rows[0].t.allocator,
            rows[1].t.allocator);
        return;
    }
    double ratio = higher ? a.center / b.center : b.center / a.center;
    cat(buf, n, "fastest: %s, %.2fx %s's ops/s (%s)", rows[0].t.allocator, ratio,
        rows[1].t.allocator, noise_word(sep));
}

/* A footprint with its spread; an exact (in-house) figure is deterministic:
 * a known range of one value. */
static void fp_spread(const hr_json_t *r, hr_spread_t *s) {
    hr_spread_of(r, hr_metrics[HR_M_PEAK_FP].path, s);
    if (s->n >= 1 && hr_metric_exact_source(r)) {
        s->n = s->n < 2 ? 2 : s->n;
        s->min = s->max = s->center;
    }
}

/* "leanest: A, 38% less footprint than B" among the ranked rows. */
static void leanest(char *buf, size_t n, const srow_t *rows, int nr) {
    const srow_t *best = NULL, *next = NULL;
    for (int i = 0; i < nr && rows[i].group == G_RANKED; i++) {
        double f = footprint(rows[i].r);
        if (isnan(f))
            continue;
        if (!best || f < footprint(best->r)) {
            next = best;
            best = &rows[i];
        } else if (!next || f < footprint(next->r)) {
            next = &rows[i];
        }
    }
    if (!best) {
        cat(buf, n, "leanest: none (no peak footprint)");
        return;
    }
    if (!next) {
        cat(buf, n, "leanest: %s (the only one with a peak footprint)", best->t.allocator);
        return;
    }
    hr_spread_t a, b;
    fp_spread(best->r, &a);
    fp_spread(next->r, &b);
    if (a.center == b.center) {
        cat(buf, n, "leanest: %s and %s tie", best->t.allocator, next->t.allocator);
        return;
    }
    int sep = hr_rank_separated(&a, &b, 0);
    if (sep == 0) {
        cat(buf, n, "leanest: %s and %s within noise (samples overlap)", best->t.allocator,
            next->t.allocator);
        return;
    }
    double pct = (b.center - a.center) / b.center * 100;
    cat(buf, n, "leanest: %s, %.*f%% less footprint than %s", best->t.allocator,
        pct < 10 ? 1 : 0, pct, next->t.allocator);
    if (sep < 0)
        cat(buf, n, " (%s)", noise_word(sep));
}

char *hr_summary_verdict(char *buf, size_t n, const hr_json_t *results, const char *trace) {
    srow_t rows[HR_SUMMARY_MAX_ROWS];
    int nr = collect(results, trace, rows, HR_SUMMARY_MAX_ROWS);
    if (n == 0)
        return buf;
    buf[0] = 0;
    fastest(buf, n, rows, nr);
    cat(buf, n, "; ");
    leanest(buf, n, rows, nr);
    return buf;
}

/* ---- notes -------------------------------------------------------------- */

static int cmp_fail(const void *pa, const void *pb) {
    double a = (*(const hr_result_t *const *)pa)->m.BUDGET_FAIL;
    double b = (*(const hr_result_t *const *)pb)->m.BUDGET_FAIL;
    return a < b ? -1 : a > b;
}

int hr_summary_budget(char *buf, size_t n, const hr_json_t *results, const char *trace) {
    const hr_result_t *failed[HR_SUMMARY_MAX_ROWS], *never[HR_SUMMARY_MAX_ROWS];
    hr_result_t *t = malloc(2 * HR_SUMMARY_MAX_ROWS * sizeof *t);
    int nf = 0, nn = 0, nt = 0;
    double bytes = NAN;
    buf[0] = 0;
    for (size_t i = 0; i < hr_json_len(results) && t; i++) {
        const hr_json_t *r = hr_json_at(results, i);
        if (!hr_result_of_trace(r, trace) || hr_json_type(hr_json_get(r, "budget")) != HR_JSON_OBJECT)
            continue;
        hr_result_t *d = &t[nt];
        hr_report_result(r, d);
        if (isnan(bytes))
            bytes = d->m.BUDGET_BYTES;
        if (!isnan(d->m.BUDGET_FAIL) && nf < HR_SUMMARY_MAX_ROWS)
            failed[nf++] = d, nt++;
        else if (nn < HR_SUMMARY_MAX_ROWS)
            never[nn++] = d, nt++;
    }
    if (nf + nn == 0) {
        free(t);
        return 0;
    }
    qsort(failed, (size_t)nf, sizeof failed[0], cmp_fail); /* earliest failure first */
    char b[32];
    hr_fmt_bytes(b, sizeof b, bytes);
    cat(buf, n, "budget %s: %s", b, nf ? "first exceeded by" : "never exceeded by");
    for (int i = 0; i < nf; i++) {
        const hr_result_t *r = failed[i];
        double frame = r->m.BUDGET_FAIL_FRAME;
        const char *heap = r->m.BUDGET_FAIL_HEAP;
        cat(buf, n, "%s %s at ", i ? "," : "", r->allocator);
        if (isnan(frame)) /* a report from before the frame and heap were kept */
            cat(buf, n, "op %.0f", r->m.BUDGET_FAIL);
        else
            cat(buf, n, "frame %.0f", frame);
        if (heap && strcmp(heap, "(none)") != 0)
            cat(buf, n, " (heap %s)", heap);
    }
    for (int i = 0; i < nn; i++)
        cat(buf, n, "%s%s", i ? ", " : nf ? ", never by " : " ", never[i]->allocator);
    free(t);
    return 1;
}

/* The legend of every flag a row of the table carries. */
static void legend(FILE *out, const srow_t *rows, int nr, const char *pre) {
    int unstable = 0, fallback = 0, invalid = 0, interrupted = 0;
    for (int i = 0; i < nr; i++) {
        const hr_result_t *t = &rows[i].t;
        const char *st = t->status;
        unstable |= rows[i].group == G_RANKED && t->unstable;
        fallback |= rows[i].group == G_FALLBACK;
        invalid |= st && strcmp(st, "invalid") == 0;
        interrupted |= hr_result_ok(t->json) && t->interrupted;
    }
    if (unstable)
        fprintf(out, "%sunstable: samples spread too widely to rank (MAD > %.0f%% or range > "
                "%.0f%% of the median)\n", pre,
                HR_UNSTABLE_MAD * 100, HR_UNSTABLE_RANGE * 100);
    if (fallback)
        fprintf(out, "%sfallback: under %.0f%% of the ops served natively: the row measures the "
                "system malloc; not ranked\n", pre, HR_MOSTLY_FALLBACK * 100);
    if (invalid)
        fprintf(out, "%sinvalid: --verify found a bad pointer; never ranked\n", pre);
    if (interrupted)
        fprintf(out, "%sinterrupted: fewer samples than asked for (the replay was stopped)\n", pre);
}

/* Failed rows (one line each), the budget, the threads lines, the legend. */
static void notes(FILE *out, const hr_json_t *results, const char *trace, const srow_t *rows,
                  int nr, int md) {
    const char *pre = md ? "- " : "  ";
    char buf[4096];
    for (int i = 0; i < nr; i++) {
        const hr_result_t *t = &rows[i].t;
        if (hr_result_ok(t->json))
            continue;
        const char *e = t->error;
        fprintf(out, "%s%s: %s: %s\n", md ? "- " : "  ! ", t->allocator, t->status,
                e ? e : "(no message)");
    }
    if (hr_summary_budget(buf, sizeof buf, results, trace))
        fprintf(out, "%s%s\n", pre, buf);
    hr_report_threads(out, results, trace, md);
    legend(out, rows, nr, pre);
}

/* ---- the whole section -------------------------------------------------- */

void hr_summary_trace(hr_emit_t *em, const hr_json_t *results, const char *trace, int md) {
    srow_t rows[HR_SUMMARY_MAX_ROWS];
    int nr = collect(results, trace, rows, HR_SUMMARY_MAX_ROWS);
    char verdict[1024];
    summary_table(em, rows, nr, trace);
    hr_summary_verdict(verdict, sizeof verdict, results, trace);
    /* prose is collected, then wrapped to the summary's width */
    hr_prose_t p;
    FILE *f = hr_prose_open(&p);
    if (!f)
        return;
    fprintf(f, "%s\n", verdict);
    if (md)
        fputc('\n', f);
    notes(f, results, trace, rows, nr, md);
    fputc('\n', f);
    hr_prose_close(&p, em->out, md);
}

/* Code points of s[0..n). */
static size_t cps(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* One line (without its newline) broken at spaces to the width; pieces
 * after the first are indented by the line's indent plus 4. A word longer
 * than the width stays whole. */
static void wrap_line(FILE *out, const char *s, size_t n) {
    size_t indent = 0, pad = 0, skip;
    while (indent < n && s[indent] == ' ')
        indent++;
    skip = indent; /* never break inside the indent */
    while (pad < HR_SUMMARY_WIDTH && cps(s, n) + pad > HR_SUMMARY_WIDTH) {
        size_t room = HR_SUMMARY_WIDTH - pad, brk = 0, w = 0;
        for (size_t i = 0; i < n && w <= room; i++) {
            if (s[i] == ' ' && i > skip)
                brk = i; /* s[0..i) is w code points: it fits */
            w += ((unsigned char)s[i] & 0xC0) != 0x80;
        }
        if (brk == 0)
            break;
        fprintf(out, "%*s%.*s\n", (int)pad, "", (int)brk, s);
        s += brk + 1;
        n -= brk + 1;
        pad = indent + 4;
        skip = 0;
    }
    fprintf(out, "%*s%.*s\n", (int)pad, "", (int)n, s);
}

FILE *hr_prose_open(hr_prose_t *p) {
    p->text = NULL;
    p->len = 0;
    p->f = hr_memstream_open(&p->text, &p->len);
    return p->f;
}

void hr_prose_close(hr_prose_t *p, FILE *out, int md) {
    int bad = ferror(p->f);
    bad |= fclose(p->f) != 0;
    if (bad || !p->text) /* the buffer could not grow: the text is cut */
        hr_outfile_note_oom();
    else
        hr_summary_wrap(out, p->text, md);
    free(p->text);
}

void hr_summary_wrap(FILE *out, const char *text, int md) {
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text) : strlen(text);
        if (md)
            fprintf(out, "%.*s\n", (int)n, text);
        else
            wrap_line(out, text, n);
        text += n + (nl != NULL);
    }
}
