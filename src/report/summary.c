/* The per-trace summary of text and Markdown reports (see summary.h). */
#include "report/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "base/outfile.h"
#include "report/access.h"
#include "report/answers.h"
#include "report/phases.h"
#include "report/sites_report.h"
#include "report/ranking.h"
#include "report/stats.h"
#include "report/wholeprog.h"

#define HR_SUMMARY_MAX_ROWS HR_RANK_MAX

/* ---- the table ---------------------------------------------------------- */

/* The flags cell: why a row is not ranked, and "interrupted"; NULL when
 * there is neither. */
static const char *flags_of(const hr_rank_entry_t *e, char *buf, size_t n) {
    snprintf(buf, n, "%s", e->why ? e->why : "");
    if (hr_result_ok(e->r) && e->r->interrupted)
        snprintf(buf + strlen(buf), n - strlen(buf), "%sinterrupted", buf[0] ? "," : "");
    return buf[0] ? buf : NULL;
}

/* "1.2 ms @588": the worst frame's time and index. */
static void frame_text(char *buf, size_t n, const hr_result_t *r) {
    char t[32];
    buf[0] = 0;
    if (!isfinite(r->m.WF_NS))
        return;
    hr_fmt_ns(t, sizeof t, r->m.WF_NS);
    if (isfinite(r->m.WF_INDEX))
        snprintf(buf, n, "%s @%.0f", t, r->m.WF_INDEX);
    else
        snprintf(buf, n, "%s", t);
}

/* The overhead (docs/METRICS.md, "Overhead"): the worker's RSS growth
 * during the replay beyond the trace's peak live bytes, never below 0;
 * NAN when either is unknown. */
static double overhead(const hr_result_t *r) {
    double g = r->m.PEAK_RSS, live = r->m.PEAK_LIVE;
    if (!isfinite(g) || !isfinite(live))
        return NAN;
    return g > live ? g - live : 0;
}

/* "260.00 KiB 29%": the overhead and its ratio to peak live ("12x" from
 * 10 times peak live on). */
static void overhead_text(char *buf, size_t n, const hr_result_t *r) {
    double o = overhead(r), live = r->m.PEAK_LIVE;
    char b[32];
    buf[0] = 0;
    if (!isfinite(o))
        return;
    hr_fmt_bytes(b, sizeof b, o);
    if (!(live > 0))
        snprintf(buf, n, "%s", b);
    else if (o / live < 10)
        snprintf(buf, n, "%s %.0f%%", b, o / live * 100);
    else
        snprintf(buf, n, "%s %.0fx", b, o / live);
}

static void table_row(hr_emit_t *em, const hr_ranking_t *rk, int i) {
    const hr_rank_entry_t *e = &rk->e[i];
    const hr_result_t *r = e->r;
    char buf[96];
    if (e->ranked)
        hr_emit_cell_u64(em, (uint64_t)i + 1);
    else
        hr_emit_cell_str(em, NULL);
    hr_emit_cell_str(em, r->allocator);
    if (!hr_result_ok(r)) { /* figures of a failed row are not comparable: "-" */
        for (int c = rk->basis == HR_RANK_PROGRAM ? 6 : 5; c > 0; c--)
            hr_emit_cell_str(em, NULL);
    } else {
        if (rk->basis == HR_RANK_PROGRAM) {
            hr_fmt_seconds(buf, sizeof buf, r->predict.change_s, 1);
            hr_emit_cell_str(em, r->predict.present ? buf : NULL);
            hr_fmt_seconds_range(buf, sizeof buf, r->predict.interval_s_lo, r->predict.interval_s_hi);
            hr_emit_cell_str(em, r->predict.present ? buf : NULL);
        } else {
            hr_report_cell_unit(em, rk->basis == HR_RANK_WARM ? r->m.NS_PER_OP
                                                              : r->m.COLD_NS_PER_OP, hr_fmt_ns);
        }
        hr_report_cell_unit(em, r->m.OPS_PER_S, hr_fmt_rate); /* its spread: --detail */
        frame_text(buf, sizeof buf, r);
        hr_emit_cell_str(em, buf[0] ? buf : NULL);
        hr_report_cell_unit(em, r->m.PEAK_RSS_ALL, hr_fmt_bytes);
        overhead_text(buf, sizeof buf, r);
        hr_emit_cell_str(em, buf[0] ? buf : NULL);
    }
    hr_emit_cell_str(em, flags_of(e, buf, sizeof buf));
    hr_emit_row_end(em);
}

/* "trace PATH: N ops, peak live X" (both properties of the trace). */
static void heading(char *buf, size_t n, const hr_ranking_t *rk, const char *trace) {
    double ops = NAN, live = NAN;
    const char *cmd = NULL;
    for (int i = 0; i < rk->n; i++) {
        if (isnan(ops))
            ops = rk->e[i].r->m.OPS_TOTAL;
        if (isnan(live))
            live = rk->e[i].r->m.PEAK_LIVE;
        if (!cmd)
            cmd = rk->e[i].r->command;
    }
    int k = snprintf(buf, n, "trace %s", trace);
    if (k < 0 || (size_t)k >= n || isnan(ops))
        return;
    char b[32], words[128];
    hr_fmt_bytes(b, sizeof b, live);
    /* the process it recorded (a --follow-forks capture's traces are named by pid) */
    hr_report_command_words(words, sizeof words, cmd, 100);
    snprintf(buf + k, n - (size_t)k, ": %.0f ops, peak live %s%s%s", ops, isnan(live) ? "-" : b,
             cmd ? "; process: " : "", words);
}

static void summary_table(hr_emit_t *em, const hr_ranking_t *rk, const char *trace) {
    static const char *const prog[] = {">#", "allocator", ">change", ">interval", ">warm ops/s",
                                       ">worst frame", ">peak RSS", ">overhead", "flags"};
    static const char *const cold[] = {">#", "allocator", ">cold/op", ">warm ops/s",
                                       ">worst frame", ">peak RSS", ">overhead", "flags"};
    char title[600];
    heading(title, sizeof title, rk, trace);
    static const char *const warm[] = {">#", "allocator", ">warm/op", ">warm ops/s",
                                       ">worst frame", ">peak RSS", ">overhead", "flags"};
    int prg = rk->basis == HR_RANK_PROGRAM;
    hr_emit_table_begin(em, title, prg ? 9 : 8,
                        prg ? prog : rk->basis == HR_RANK_WARM ? warm : cold);
    for (int i = 0; i < rk->n; i++)
        table_row(em, rk, i);
    hr_emit_table_end(em);
}

/* ---- the verdict -------------------------------------------------------- */

/* The program's CPU time of the trace's first row that recorded it. */
static const hr_result_program_t *program_of(const hr_ranking_t *rk) {
    for (int i = 0; i < rk->n; i++)
        if (rk->e[i].r->program.present)
            return &rk->e[i].r->program;
    return NULL;
}

/* "ship A: -250.0 ms of 3.20 s CPU (-7.8%): real saving [-330..-170 ms];
 * one run shows it (program noise +/-60.0 ms), max RSS +3.1 MiB", the
 * ranked real savings not apart from A's after it; or that no allocator's
 * change is real (docs/METRICS.md, "Predicted change of the program's run
 * time": the two answers). */
static void ship(char *buf, size_t n, const hr_ranking_t *rk) {
    const hr_rank_entry_t *b = &rk->e[0];
    const hr_result_predict_t *p = &b->r->predict;
    const hr_result_program_t *prog = program_of(rk);
    int any_real = 0;
    for (int i = 0; i < rk->nranked; i++)
        any_real |= rk->e[i].r->predict.real != 0;
    if (p->real >= 0) {
        hr_predict_keep_words(buf, n, any_real, NULL);
        return;
    }
    hr_predict_ship_words(buf, n, b->r->allocator, p, prog ? prog->cpu_s : NAN, NULL);
    int k = 0;
    for (int i = 1; i < rk->nranked; i++)
        if (rk->e[i].r->predict.real < 0 && hr_rank_apart(b, &rk->e[i]) == 0)
            hr_fmt_cat(buf, n, "%s%s", k++ ? ", " : "; as good within the model's error: ",
                       rk->e[i].r->allocator);
}

/* "fastest by cold-lap time: A, 1.69x less than B's (separated)" or "A and
 * B within noise (samples overlap)"; "by warm ns/op" on that basis. */
static void fastest(char *buf, size_t n, const hr_ranking_t *rk) {
    const hr_rank_entry_t *a = &rk->e[0], *b = &rk->e[1];
    const char *by = rk->basis == HR_RANK_WARM ? "warm ns/op" : "cold-lap time";
    if (rk->nranked == 1) {
        hr_fmt_cat(buf, n, "fastest by %s: %s (the only ranked allocator)", by, a->r->allocator);
        return;
    }
    int sep = hr_rank_apart(a, b);
    if (sep == 0) {
        hr_fmt_cat(buf, n, "fastest by %s: %s and %s within noise (samples overlap)", by,
                   a->r->allocator, b->r->allocator);
        return;
    }
    hr_fmt_cat(buf, n, "fastest by %s: %s, %.2fx less than %s's (%s)", by, a->r->allocator,
               b->key / a->key, b->r->allocator, sep > 0 ? "separated" : "noise unknown");
}

/* "leanest by peak RSS: A, 6.2% below B (47.5 vs 50.7 MiB)" among the ranked
 * rows, only HR_LEANEST_MIN or more below the next and beyond noise. */
static void leanest(char *buf, size_t n, const hr_ranking_t *rk) {
    int bi = -1, ni = -1;
    double v[HR_RANK_MAX], lo[HR_RANK_MAX], hi[HR_RANK_MAX];
    for (int i = 0; i < rk->nranked; i++) {
        hr_rank_rss(rk->e[i].r, &v[i], &lo[i], &hi[i]);
        if (!isfinite(v[i]))
            continue;
        if (bi < 0 || v[i] < v[bi]) {
            ni = bi;
            bi = i;
        } else if (ni < 0 || v[i] < v[ni]) {
            ni = i;
        }
    }
    if (bi < 0) {
        hr_fmt_cat(buf, n, "leanest by peak RSS: none (no peak RSS)");
        return;
    }
    const char *a = rk->e[bi].r->allocator;
    if (ni < 0) {
        hr_fmt_cat(buf, n, "leanest by peak RSS: %s (the only one with a peak RSS)", a);
        return;
    }
    const char *b = rk->e[ni].r->allocator;
    char va[32], vb[32];
    hr_fmt_bytes(va, sizeof va, v[bi]);
    hr_fmt_bytes(vb, sizeof vb, v[ni]);
    double frac = (v[ni] - v[bi]) / v[ni];
    int known = isfinite(hi[bi]) && isfinite(lo[ni]);
    if (frac < HR_LEANEST_MIN) {
        hr_fmt_cat(buf, n, "leanest by peak RSS: none %.0f%% below the rest (%s %s, %s %s)",
                   HR_LEANEST_MIN * 100, a, va, b, vb);
        return;
    }
    if (known && hi[bi] >= lo[ni]) {
        hr_fmt_cat(buf, n, "leanest by peak RSS: %s and %s within noise (samples overlap)", a, b);
        return;
    }
    hr_fmt_cat(buf, n, "leanest by peak RSS: %s, %.1f%% below %s (%s vs %s)%s", a, frac * 100, b,
               va, vb, known ? "" : " (noise unknown)");
}

/* "; worst frame 0.4 ms at frame 588" of the verdict's allocator, and
 * whether it is the worst of the ranked rows. */
static void worst_frame(char *buf, size_t n, const hr_ranking_t *rk) {
    const hr_result_t *r = rk->e[0].r;
    if (!isfinite(r->m.WF_NS))
        return;
    char t[32];
    hr_fmt_ns(t, sizeof t, r->m.WF_NS);
    /* with the load apart, the worst frame is play's (docs/METRICS.md) */
    hr_fmt_cat(buf, n, "; %s's worst %sframe %s", r->allocator,
               isfinite(r->m.LOAD_EVENTS) ? "play " : "", t);
    if (isfinite(r->m.WF_INDEX))
        hr_fmt_cat(buf, n, " at frame %.0f", r->m.WF_INDEX);
    int worst = rk->nranked >= 2;
    for (int i = 1; i < rk->nranked; i++)
        worst &= !(rk->e[i].r->m.WF_NS > r->m.WF_NS);
    if (worst)
        hr_fmt_cat(buf, n, " (the worst of the %d ranked)", rk->nranked);
}

/* The verdict of a ranking (see hr_summary_verdict_of). */
static void verdict(char *buf, size_t n, const hr_ranking_t *rk) {
    buf[0] = 0;
    if (rk->nranked == 0) {
        hr_fmt_cat(buf, n, "no allocator could be ranked");
        return;
    }
    if (rk->basis == HR_RANK_PROGRAM)
        ship(buf, n, rk);
    else
        fastest(buf, n, rk);
    hr_fmt_cat(buf, n, "; ");
    leanest(buf, n, rk);
    worst_frame(buf, n, rk);
}

/* The verdict of trace: a program of several processes' whole answer on its
 * parent trace (wholeprog.h), else its ranking's. */
static void trace_verdict(char *buf, size_t n, const hr_report_view_t *v, const char *trace,
                          const hr_ranking_t *rk) {
    if (!hr_wholeprog_verdict(buf, n, v, trace))
        verdict(buf, n, rk);
}

char *hr_summary_verdict_of(char *buf, size_t n, const hr_report_view_t *v, const char *trace) {
    hr_ranking_t rk;
    if (n == 0)
        return buf;
    hr_rank_trace(&rk, v, trace);
    trace_verdict(buf, n, v, trace, &rk);
    return buf;
}

/* ---- notes -------------------------------------------------------------- */

/* The public forms over a results array: decoded here for the one call. */
char *hr_summary_verdict(char *buf, size_t n, const hr_json_t *results, const char *trace) {
    hr_report_view_t v;
    if (n == 0)
        return buf;
    if (hr_report_view_results(&v, NULL, results) < 0) {
        buf[0] = 0;
        return buf;
    }
    hr_summary_verdict_of(buf, n, &v, trace);
    hr_report_view_free(&v);
    return buf;
}

int hr_summary_budget(char *buf, size_t n, const hr_json_t *results, const char *trace) {
    hr_report_view_t v;
    if (hr_report_view_results(&v, NULL, results) < 0) {
        buf[0] = 0;
        return 0;
    }
    int rc = hr_summary_budget_of(buf, n, &v, trace);
    hr_report_view_free(&v);
    return rc;
}

static int cmp_fail(const void *pa, const void *pb) {
    double a = (*(const hr_result_t *const *)pa)->m.BUDGET_FAIL;
    double b = (*(const hr_result_t *const *)pb)->m.BUDGET_FAIL;
    return a < b ? -1 : a > b;
}

int hr_summary_budget_of(char *buf, size_t n, const hr_report_view_t *v, const char *trace) {
    const hr_result_t *failed[HR_SUMMARY_MAX_ROWS], *never[HR_SUMMARY_MAX_ROWS];
    int nf = 0, nn = 0;
    double bytes = NAN;
    buf[0] = 0;
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *d = &v->rows[i];
        if (!hr_result_of_trace(d, trace) || !d->has_budget)
            continue;
        if (isnan(bytes))
            bytes = d->m.BUDGET_BYTES;
        if (!isnan(d->m.BUDGET_FAIL) && nf < HR_SUMMARY_MAX_ROWS)
            failed[nf++] = d;
        else if (nn < HR_SUMMARY_MAX_ROWS)
            never[nn++] = d;
    }
    if (nf + nn == 0)
        return 0;
    qsort(failed, (size_t)nf, sizeof failed[0], cmp_fail); /* earliest failure first */
    char b[32];
    hr_fmt_bytes(b, sizeof b, bytes);
    hr_fmt_cat(buf, n, "budget %s: %s", b, nf ? "first exceeded by" : "never exceeded by");
    for (int i = 0; i < nf; i++) {
        const hr_result_t *r = failed[i];
        double frame = r->m.BUDGET_FAIL_FRAME;
        const char *heap = r->m.BUDGET_FAIL_HEAP;
        hr_fmt_cat(buf, n, "%s %s at ", i ? "," : "", r->allocator);
        if (isnan(frame)) /* a report from before the frame and heap were kept */
            hr_fmt_cat(buf, n, "op %.0f", r->m.BUDGET_FAIL);
        else /* with a load apart, the budget is play's and names a play frame */
            hr_fmt_cat(buf, n, "%sframe %.0f", isfinite(r->m.LOAD_EVENTS) ? "play " : "", frame);
        if (heap && strcmp(heap, "(none)") != 0)
            hr_fmt_cat(buf, n, " (heap %s)", heap);
    }
    for (int i = 0; i < nn; i++)
        hr_fmt_cat(buf, n, "%s%s", i ? ", " : nf ? ", never by " : " ", never[i]->allocator);
    return 1;
}

_Static_assert(HR_LEGEND_COLUMNS << (2 * HR_RANK_WARM + 1) < HR_LEGEND_UNSTABLE,
               "a column set's bit for every basis and load, below the flags' bits");

int hr_legend_first(hr_legends_t *lg, unsigned bit) {
    if (!lg)
        return 1;
    if (lg->shown & bit)
        return 0;
    lg->shown |= bit;
    return 1;
}

/* One line per column of the table (docs/REPORTS.md, "Summary"); one line
 * pointing up when a section above explained the same columns. */
static void columns_legend(FILE *out, hr_rank_basis_t basis, int load, const char *pre,
                           hr_legends_t *lg) {
    if (!hr_legend_first(lg, HR_LEGEND_COLUMNS << (2 * (unsigned)basis + !!load))) {
        fprintf(out, "%scolumns as in the first table above\n", pre);
        return;
    }
    fprintf(out, "%s#: place in the ranking by %s, best first; rows without one are not "
            "ranked (flags says why)\n", pre, hr_rank_basis_words(basis));
    if (basis == HR_RANK_PROGRAM) {
        fprintf(out, "%schange: predicted change of the program's CPU time against %s "
                "(the replay's cold lap); interval: the replay's samples with the model's "
                "error (is the change real?)\n", pre, HR_RANK_BASELINE);
    } else if (basis == HR_RANK_COLD) {
        fprintf(out, "%scold/op: allocator time per op of the cold lap (the whole trace "
                "once, as the program runs it)\n", pre);
    } else {
        fprintf(out, "%swarm/op: thread CPU per op of the warm laps (this report has no "
                "cold lap to rank by)\n", pre);
    }
    fprintf(out, "%swarm ops/s: the warm laps' throughput (allocator caches hot: an upper "
            "bound, not the ranking; its spread in --detail)\n", pre);
    if (load)
        fprintf(out, "%sworst frame: the slowest play frame's allocator time @ its frame number "
                "(the load before the first frame is apart, in the load line)\n", pre);
    else
        fprintf(out, "%sworst frame: the slowest frame's allocator time @ its frame index\n", pre);
    fprintf(out, "%speak RSS: the whole worker's peak resident set, the allocator's "
            "start-up included\n", pre);
    fprintf(out, "%soverhead: RSS growth during the replay above the trace's peak live "
            "bytes, and its ratio to peak live (docs/METRICS.md)\n", pre);
}

/* The legend of every flag a row of the table carries (that no section
 * above explained). */
static void legend(FILE *out, const hr_ranking_t *rk, const char *pre, hr_legends_t *lg) {
    int unstable = 0, fallback = 0, invalid = 0, interrupted = 0;
    for (int i = 0; i < rk->n; i++) {
        const hr_result_t *t = rk->e[i].r;
        const char *why = rk->e[i].why;
        unstable |= why && strcmp(why, "unstable") == 0;
        fallback |= why && strcmp(why, "fallback") == 0;
        invalid |= why && strcmp(why, "invalid") == 0;
        interrupted |= hr_result_ok(t) && t->interrupted;
    }
    if (unstable && hr_legend_first(lg, HR_LEGEND_UNSTABLE))
        fprintf(out, "%sunstable: samples spread too widely to rank (MAD > %.0f%% or range > "
                "%.0f%% of the median); not ranked\n", pre,
                HR_UNSTABLE_MAD * 100, HR_UNSTABLE_RANGE * 100);
    if (fallback && hr_legend_first(lg, HR_LEGEND_FALLBACK))
        fprintf(out, "%sfallback: under %.0f%% of the ops served natively: the row measures the "
                "system malloc; not ranked\n", pre, HR_MOSTLY_FALLBACK * 100);
    if (invalid && hr_legend_first(lg, HR_LEGEND_INVALID))
        fprintf(out, "%sinvalid: --verify found a bad pointer; never ranked\n", pre);
    if (interrupted && hr_legend_first(lg, HR_LEGEND_INTERRUPTED))
        fprintf(out, "%sinterrupted: fewer samples than asked for (the replay was stopped)\n", pre);
}

/* The allocators' own start-up RSS: the worker's RSS before the first event
 * above the lowest of the trace's rows (that lowest is the harness and the
 * trace, the same for all), for the rows HR_STARTUP_SHOWN or more above it. */
#define HR_STARTUP_SHOWN (512.0 * 1024)
static void startup_line(FILE *out, const hr_ranking_t *rk, const char *pre) {
    const hr_result_t *low = NULL;
    for (int i = 0; i < rk->n; i++) {
        const hr_result_t *r = rk->e[i].r;
        if (hr_result_ok(r) && isfinite(r->m.RSS_BASE) && (!low || r->m.RSS_BASE < low->m.RSS_BASE))
            low = r;
    }
    int k = 0;
    char b[32];
    for (int i = 0; low && i < rk->n; i++) {
        const hr_result_t *r = rk->e[i].r;
        if (!hr_result_ok(r) || !(r->m.RSS_BASE - low->m.RSS_BASE >= HR_STARTUP_SHOWN))
            continue;
        if (k++ == 0) {
            hr_fmt_bytes(b, sizeof b, low->m.RSS_BASE);
            fprintf(out, "%sallocator start-up (RSS before the first event, in peak RSS, not in "
                    "overhead) above the lowest, %s's %s:", pre, low->allocator, b);
        }
        hr_fmt_bytes(b, sizeof b, r->m.RSS_BASE - low->m.RSS_BASE);
        fprintf(out, "%s %s +%s", k > 1 ? "," : "", r->allocator, b);
    }
    if (k)
        fputs("; the others within 512 KiB\n", out);
}

/* The heaps of a routed row that its heap config does not know (kind
 * "none", in the backend's native "heaps" table) and that therefore went to
 * the system malloc: "routed: heaps not in the heap config, served by the
 * system malloc: Default (5416 allocs), Level (6236 allocs)". */
static void unknown_heaps(FILE *out, const hr_result_t *r, const char *pre) {
    const hr_json_t *heaps = r->native ? hr_json_get(r->native, "heaps") : NULL;
    int k = 0;
    if (!heaps || hr_json_type(heaps) != HR_JSON_ARRAY)
        return;
    for (size_t i = 0; i < hr_json_len(heaps); i++) {
        const hr_json_t *h = hr_json_at(heaps, i);
        const char *kind = hr_json_path_str(h, "kind"), *name = hr_json_path_str(h, "name");
        double to_malloc = hr_json_path_num(h, "to_malloc");
        if (!kind || strcmp(kind, "none") != 0 || !(to_malloc > 0))
            continue;
        if (k++ == 0)
            fprintf(out, "%s%s: heaps not in its heap config, served by the system malloc:", pre,
                    r->allocator);
        fprintf(out, "%s %s (%.0f allocs)", k > 1 ? "," : "", name ? name : "?", to_malloc);
    }
    if (k)
        fputc('\n', out);
}

/* Which memory lap gave the rows' peak RSS (memory.lap; docs/METRICS.md,
 * "Memory lap: paced or fast"): one line when any row says, none for
 * reports made before the paced lap or when fast was asked for. */
static void memory_lap_line(FILE *out, const hr_ranking_t *rk, const char *pre) {
    int paced = 0, fast = 0;
    double secs = 0;
    const char *note = NULL;
    for (int i = 0; i < rk->n; i++) {
        const hr_result_t *r = rk->e[i].r;
        const char *lap = r->m.MEM_LAP;
        if (!hr_result_ok(r) || !lap)
            continue;
        if (!strcmp(lap, "paced")) {
            paced++;
            secs = r->m.PACED_S > secs ? r->m.PACED_S : secs;
        } else {
            fast++;
            note = note ? note : r->m.MEM_LAP_NOTE;
        }
    }
    if (paced && !fast)
        fprintf(out, "%speak RSS from the paced memory lap: the events at their recorded "
                "times, one lap per row for all its samples (up to %.1f s; --memory-lap fast "
                "skips it)\n", pre, secs);
    else if (paced)
        fprintf(out, "%speak RSS: %d rows from the paced memory lap (one lap per row for all "
                "its samples), %d from the fast one (%s)\n", pre, paced, fast,
                note ? note : "--memory-lap fast");
    else if (note)
        fprintf(out, "%s%s (peak RSS from the back-to-back lap)\n", pre, note);
}

/* What adopting the leader takes when it frees with the block's size (the
 * result's HR_RK_NEEDS_SIZE): the replay passes every free its size, which a
 * program that calls free(p) does not have. */
static void sized_free_line(FILE *out, const hr_ranking_t *rk, const char *pre) {
    if (rk->nranked < 1 || !hr_result_ok(rk->e[0].r) || !rk->e[0].r->needs_size)
        return;
    fprintf(out, "%s%s frees with the block's size, free(p, size), as its design does: a program "
            "that calls free(p) would need each block's size at hand to adopt it (a C++ sized "
            "delete, its own records, or a header per block, whose memory and time the figures "
            "above do not count)\n", pre, rk->e[0].r->allocator);
}

/* Failed rows (one line each), the rows not ranked, the budget, the
 * threads lines, start-up RSS, unknown heaps, the legends. */
static void notes(FILE *out, const hr_report_view_t *v, const char *trace, const hr_ranking_t *rk,
                  int md, hr_legends_t *lg) {
    const char *pre = md ? "- " : "  ";
    char buf[4096];
    int k = 0;
    for (int i = 0; i < rk->n; i++) {
        const hr_result_t *t = rk->e[i].r;
        if (hr_result_ok(t))
            continue;
        const char *e = t->error;
        fprintf(out, "%s%s: %s: %s\n", md ? "- " : "  ! ", t->allocator, t->status,
                e ? e : "(no message)");
    }
    const hr_result_program_t *prog = program_of(rk);
    if (prog && rk->basis == HR_RANK_PROGRAM)
        hr_predict_load_note(out, prog, md ? "- " : "  ! ");
    for (int i = rk->nranked; i < rk->n; i++)
        fprintf(out, "%s %s (%s)", k++ ? "," : md ? "- not ranked:" : "  not ranked:",
                rk->e[i].r->allocator, rk->e[i].why);
    if (k)
        fputc('\n', out);
    sized_free_line(out, rk, pre);
    if (rk->left_out)
        fprintf(out, "%s%d more rows of this trace left out of the ranking and these notes "
                "(it holds %d; split the allocators over several reports)\n",
                pre, rk->left_out, HR_RANK_MAX);
    if (hr_summary_budget_of(buf, sizeof buf, v, trace))
        fprintf(out, "%s%s\n", pre, buf);
    hr_report_phases(out, rk, pre);
    hr_report_plan_lines(out, rk, pre);
    hr_report_threads(out, v, trace, md);
    hr_report_thread_figures(out, rk, pre);
    startup_line(out, rk, pre);
    memory_lap_line(out, rk, pre);
    for (int i = 0; i < rk->n; i++)
        if (hr_result_ok(rk->e[i].r))
            unknown_heaps(out, rk->e[i].r, pre);
    columns_legend(out, rk->basis, hr_report_has_load(rk), pre, lg);
    legend(out, rk, pre, lg);
}

/* ---- the whole section -------------------------------------------------- */

void hr_summary_trace(hr_emit_t *em, const hr_report_view_t *v, const char *trace, int md,
                      hr_legends_t *lg) {
    hr_ranking_t rk;
    char text[2048];
    hr_rank_trace(&rk, v, trace);
    summary_table(em, &rk, trace);
    trace_verdict(text, sizeof text, v, trace, &rk);
    /* prose is collected, then wrapped to the summary's width */
    hr_prose_t p;
    FILE *f = hr_prose_open(&p);
    if (!f)
        return;
    fprintf(f, "%s\n", text);
    if (md)
        fputc('\n', f);
    notes(f, v, trace, &rk, md, lg);
    fputc('\n', f);
    hr_prose_close(&p, em->out, md);
    hr_report_sites_table(em, &rk);
}
