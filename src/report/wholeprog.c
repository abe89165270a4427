/* The whole program of a --follow-forks capture (wholeprog.h). */
#include "report/wholeprog.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/answers.h"
#include "report/prose.h"
#include "report/ranking.h"

/* The length of a compression suffix ending name (".zst" or ".gz": a
 * capture's traces compressed after the run keep their names), else 0. */
static size_t compressed_suffix(const char *name, size_t len) {
    static const char *const sfx[] = {".zst", ".gz"};
    for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
        size_t n = strlen(sfx[i]);
        if (len > n && strcmp(name + len - n, sfx[i]) == 0)
            return n;
    }
    return 0;
}

/* wholeprog.h: `parent` with ".DIGITS" before its extension. */
int hr_wholeprog_is_child(const char *child, const char *parent) {
    size_t plen = strlen(parent), clen = strlen(child);
    size_t z = compressed_suffix(parent, plen);
    if (z != compressed_suffix(child, clen) || strcmp(parent + plen - z, child + clen - z) != 0)
        return 0;
    plen -= z;
    clen -= z;
    const char *slash = strrchr(parent, '/'), *dot = NULL;
    for (const char *q = parent; q < parent + plen; q++)
        if (*q == '.')
            dot = q;
    size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - parent) : plen;
    size_t ext = plen - stem; /* the extension's length, its dot included */
    if (clen <= stem + ext || strncmp(child, parent, stem) != 0 || child[stem] != '.')
        return 0;
    const char *p = child + stem + 1, *q = p;
    while (q < child + clen && isdigit((unsigned char)*q))
        q++;
    return q > p && (size_t)(child + clen - q) == ext && strncmp(q, parent + stem, ext) == 0;
}

int hr_wholeprog_parent_candidate(const char *child, const char **at, char *buf, size_t n) {
    size_t len = strlen(child);
    if (!*at) {
        const char *base = strrchr(child, '/');
        *at = base ? base : child;
    }
    for (const char *d; (d = strchr(*at, '.'));) {
        const char *q = d + 1;
        while (isdigit((unsigned char)*q))
            q++;
        *at = d + 1;
        if (q == d + 1)
            continue;
        size_t head = (size_t)(d - child), tail = len - (size_t)(q - child);
        if (head + tail >= n)
            return 0;
        memcpy(buf, child, head);
        memcpy(buf + head, q, tail + 1);
        return 1;
    }
    return 0;
}

/* Sums of one allocator's predictions over a family, and the largest of its
 * processes' peak RSS (what wait4 reports of a process tree: its largest
 * process's). */
typedef struct sums {
    double change, lo, hi, startup, max_rss;
    int n;
} sums_t;

static sums_t sum_of(const hr_report_view_t *v, const char *alloc, const char *const *fam, int nf) {
    sums_t s = {0, 0, 0, 0, NAN, 0};
    for (int k = 0; k < nf; k++)
        for (size_t i = 0; i < v->n; i++) {
            const hr_result_t *r = &v->rows[i];
            if (!r->predict.present || !r->allocator || strcmp(r->allocator, alloc) != 0 ||
                !hr_result_of_trace(r, fam[k]))
                continue;
            double st = hr_json_path_num(r->json, "predict.startup_s");
            s.change += r->predict.change_s;
            s.lo += r->predict.interval_s_lo;
            s.hi += r->predict.interval_s_hi;
            s.startup += isfinite(st) ? st : 0;
            if (isfinite(r->m.PEAK_RSS_ALL) && !(r->m.PEAK_RSS_ALL <= s.max_rss))
                s.max_rss = r->m.PEAK_RSS_ALL;
            s.n++;
            break;
        }
    return s;
}

/* One allocator's object of a family: the sums, and the two answers of the
 * whole program (docs/METRICS.md, "A program of several processes"): "real"
 * from the summed interval, "runs_to_see" from the summed change against
 * the parent's noise, which is the whole process tree's (capture's
 * --time-runs times the command with the children it waits for). */
static hr_json_t *alloc_json(const char *alloc, const sums_t *s, double cpu, double noise,
                             const char *basis, double glibc_rss) {
    hr_json_t *a = hr_json_new_object();
    hr_json_set(a, HR_WP_ALLOC, hr_json_new_str(alloc));
    hr_json_set(a, "change_s", hr_json_new_num(s->change));
    if (cpu > 0)
        hr_json_set(a, "change_pct", hr_json_new_num(s->change / cpu * 100));
    hr_json_set(a, "interval_s_lo", hr_json_new_num(s->lo));
    hr_json_set(a, "interval_s_hi", hr_json_new_num(s->hi));
    hr_json_set(a, "startup_s", hr_json_new_num(s->startup));
    hr_json_set(a, "real", hr_json_new_str(s->hi < 0 ? "saving" : s->lo > 0 ? "cost" : "none"));
    if (isfinite(noise)) {
        hr_json_set(a, "noise_s", hr_json_new_num(noise));
        hr_json_set(a, "noise_basis", hr_json_new_str(basis));
        hr_json_set(a, "runs_to_see", hr_json_new_num(hr_predict_runs_to_see(s->change, noise)));
    }
    if (isfinite(s->max_rss)) {
        hr_json_set(a, "max_rss", hr_json_new_num(s->max_rss));
        if (isfinite(glibc_rss))
            hr_json_set(a, "max_rss_change_bytes", hr_json_new_num(s->max_rss - glibc_rss));
    }
    return a;
}

/* The command of trace t's first row that has one, or NULL. */
static const char *command_of(const hr_report_view_t *v, const char *t) {
    for (size_t i = 0; i < v->n; i++)
        if (hr_result_of_trace(&v->rows[i], t) && v->rows[i].command)
            return v->rows[i].command;
    return NULL;
}

/* A family's processes by the program they ran (their recorded commands,
 * trace format 1.8): each program's name, processes and the sum of their
 * predicted changes. */
typedef struct tally {
    char  (*name)[64];
    int    *count;
    double *sum;
    int     n;
} tally_t;

static void tally_free(tally_t *tl) {
    free(tl->name);
    free(tl->count);
    free(tl->sum);
}

/* The family fam[0..nf)'s programs into tl; with `alloc`, only the
 * processes with that allocator's prediction, their changes summed. 0, or
 * -1 when memory ran out. */
static int tally_programs(const hr_report_view_t *v, const char *const *fam, int nf,
                          const char *alloc, tally_t *tl) {
    tl->name = calloc((size_t)nf + 1, sizeof *tl->name);
    tl->count = calloc((size_t)nf + 1, sizeof *tl->count);
    tl->sum = calloc((size_t)nf + 1, sizeof *tl->sum);
    tl->n = 0;
    if (!tl->name || !tl->count || !tl->sum)
        return -1;
    for (int t = 0; t < nf; t++) {
        char prog[64];
        hr_report_command_program(prog, sizeof prog, command_of(v, fam[t]));
        const hr_result_t *r = NULL;
        for (size_t i = 0; alloc && i < v->n && !r; i++)
            if (hr_result_of_trace(&v->rows[i], fam[t]) && v->rows[i].allocator &&
                strcmp(v->rows[i].allocator, alloc) == 0 && v->rows[i].predict.present)
                r = &v->rows[i];
        if (!prog[0] || (alloc && !r))
            continue;
        int k = 0;
        while (k < tl->n && strcmp(tl->name[k], prog) != 0)
            k++;
        if (k == tl->n)
            snprintf(tl->name[tl->n++], sizeof tl->name[0], "%s", prog);
        tl->count[k]++;
        tl->sum[k] += r ? r->predict.change_s : 0;
    }
    return 0;
}

/* 1 when program k goes before program `best` (-1: none yet): by the size
 * of its change (`by_change`), else by processes, then by name. */
static int tally_before(const tally_t *tl, int k, int best, int by_change) {
    if (best < 0)
        return 1;
    if (by_change)
        return fabs(tl->sum[k]) > fabs(tl->sum[best]);
    return tl->count[k] > tl->count[best] ||
           (tl->count[k] == tl->count[best] && strcmp(tl->name[k], tl->name[best]) < 0);
}

/* The family's programs as [{"name": "cc1", "processes": 12}, ...], most
 * processes first (by_change 0); or, with `alloc`, where that allocator's
 * whole-program change comes from, the largest change first, with
 * "change_s" (by_change 1). NULL when no process recorded its command. */
static hr_json_t *programs_json(const hr_report_view_t *v, const char *const *fam, int nf,
                                const char *alloc) {
    tally_t tl;
    hr_json_t *arr = tally_programs(v, fam, nf, alloc, &tl) == 0 && tl.n ? hr_json_new_array()
                                                                         : NULL;
    for (int shown = 0; arr && shown < tl.n; shown++) {
        int best = -1;
        for (int k = 0; k < tl.n; k++)
            if (tl.count[k] > 0 && tally_before(&tl, k, best, alloc != NULL))
                best = k;
        hr_json_t *g = hr_json_new_object();
        hr_json_set(g, "name", hr_json_new_str(tl.name[best]));
        hr_json_set(g, "processes", hr_json_new_u64((uint64_t)tl.count[best]));
        if (alloc)
            hr_json_set(g, "change_s", hr_json_new_num(tl.sum[best]));
        hr_json_push(arr, g);
        tl.count[best] = 0; /* shown */
    }
    tally_free(&tl);
    return arr;
}

/* The allocators with a prediction on the parent, each once. */
static hr_json_t *family_json(const hr_report_view_t *v, const hr_result_t *parent_row,
                              const char *parent, const char *const *fam, int nf) {
    hr_json_t *o = hr_json_new_object(), *arr = hr_json_new_array();
    if (!o || !arr) {
        hr_json_free(o);
        hr_json_free(arr);
        return NULL;
    }
    double cpu = parent_row->program.cpu_s;
    const char *basis = NULL;
    double noise = hr_predict_noise(&parent_row->program, &basis);
    sums_t g = sum_of(v, HR_RANK_BASELINE, fam, nf);
    hr_json_set(o, HR_WP_TRACE, hr_json_new_str(parent));
    hr_json_set(o, "processes", hr_json_new_u64((uint64_t)nf));
    hr_json_t *progs = programs_json(v, fam, nf, NULL);
    if (progs)
        hr_json_set(o, "programs", progs);
    hr_json_set(o, "cpu_s", hr_json_new_num(cpu));
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!r->predict.present || !r->allocator || !hr_result_of_trace(r, parent))
            continue;
        sums_t s = sum_of(v, r->allocator, fam, nf);
        if (s.n != nf) /* a process without this allocator's prediction */
            continue;
        hr_json_t *a = alloc_json(r->allocator, &s, cpu, noise, basis,
                                  g.n == nf ? g.max_rss : NAN);
        hr_json_t *bp = a ? programs_json(v, fam, nf, r->allocator) : NULL;
        if (bp)
            hr_json_set(a, "by_program", bp);
        hr_json_push(arr, a);
    }
    hr_json_set(o, "allocators", arr);
    return o;
}

hr_json_t *hr_wholeprog_json(const hr_report_view_t *v) {
    hr_json_t *all = NULL;
    const char **fam = malloc(((size_t)v->ntraces + 1) * sizeof *fam);
    for (int p = 0; fam && p < v->ntraces; p++) {
        const char *parent = v->traces[p];
        const hr_result_t *prow = NULL;
        for (size_t i = 0; i < v->n && !prow; i++)
            if (hr_result_of_trace(&v->rows[i], parent) && v->rows[i].predict.present)
                prow = &v->rows[i];
        if (!prow)
            continue;
        int nf = 0;
        fam[nf++] = parent;
        for (int c = 0; c < v->ntraces; c++)
            if (c != p && hr_wholeprog_is_child(v->traces[c], parent))
                fam[nf++] = v->traces[c];
        if (nf < 2)
            continue;
        hr_json_t *f = family_json(v, prow, parent, fam, nf);
        if (f && !all)
            all = hr_json_new_array();
        if (f)
            hr_json_push(all, f);
    }
    free(fam);
    return all;
}

/* The family whose parent is `trace` in v's report, or NULL. */
static const hr_json_t *family_of(const hr_report_view_t *v, const char *trace) {
    const hr_json_t *all = v->doc ? hr_json_get(v->doc, HR_REPORT_WHOLE_PROGRAM) : NULL;
    for (size_t k = 0; k < hr_json_len(all); k++) {
        const char *t = hr_json_path_str(hr_json_at(all, k), HR_WP_TRACE);
        if (t && trace && strcmp(t, trace) == 0)
            return hr_json_at(all, k);
    }
    return NULL;
}

/* An allocator object of the family as a prediction, for the answers' words. */
static hr_result_predict_t predict_of(const hr_json_t *a) {
    hr_result_predict_t p;
    memset(&p, 0, sizeof p);
    p.present = 1;
    p.change_s = hr_json_path_num(a, "change_s");
    p.change_pct = hr_json_path_num(a, "change_pct");
    p.interval_s_lo = hr_json_path_num(a, "interval_s_lo");
    p.interval_s_hi = hr_json_path_num(a, "interval_s_hi");
    p.noise_s = hr_json_path_num(a, "noise_s");
    p.runs_to_see = hr_json_path_num(a, "runs_to_see");
    p.rss_change_bytes = hr_json_path_num(a, "max_rss_change_bytes");
    const char *real = hr_json_path_str(a, "real");
    p.real = !real ? 0 : !strcmp(real, "saving") ? -1 : !strcmp(real, "cost") ? 1 : 0;
    return p;
}

/* "; leanest by peak RSS of its largest process: A, 6.2% below B (...)"
 * over the family's allocators, HR_LEANEST_MIN or more below the next (the
 * processes' samples are not pooled, so no noise test: said "noise unknown"). */
static void leanest(char *buf, size_t n, const hr_json_t *arr) {
    size_t bi = SIZE_MAX, ni = SIZE_MAX;
    double v[HR_RANK_MAX];
    for (size_t i = 0; i < hr_json_len(arr) && i < HR_RANK_MAX; i++) {
        v[i] = hr_json_path_num(hr_json_at(arr, i), "max_rss");
        if (!isfinite(v[i]))
            continue;
        if (bi == SIZE_MAX || v[i] < v[bi]) {
            ni = bi;
            bi = i;
        } else if (ni == SIZE_MAX || v[i] < v[ni]) {
            ni = i;
        }
    }
    if (ni == SIZE_MAX)
        return;
    char va[32], vb[32];
    const char *a = hr_json_path_str(hr_json_at(arr, bi), HR_WP_ALLOC),
               *b = hr_json_path_str(hr_json_at(arr, ni), HR_WP_ALLOC);
    hr_fmt_bytes(va, sizeof va, v[bi]);
    hr_fmt_bytes(vb, sizeof vb, v[ni]);
    double frac = (v[ni] - v[bi]) / v[ni];
    if (frac < HR_LEANEST_MIN)
        hr_fmt_cat(buf, n, "; leanest by peak RSS of the largest process: none %.0f%% below the "
                   "rest (%s %s, %s %s)", HR_LEANEST_MIN * 100, a, va, b, vb);
    else
        hr_fmt_cat(buf, n, "; leanest by peak RSS of the largest process: %s, %.1f%% below %s "
                   "(%s vs %s; noise unknown)", a, frac * 100, b, va, vb);
}

/* The verdict of family f (hr_wholeprog_verdict); 0 when it has no allocator. */
static int family_verdict(char *buf, size_t n, const hr_json_t *f) {
    const hr_json_t *arr = hr_json_get(f, "allocators");
    size_t na = hr_json_len(arr), best = 0;
    if (na == 0 || n == 0)
        return 0;
    int any_real = 0;
    hr_result_predict_t p = predict_of(hr_json_at(arr, 0)); /* the best so far */
    for (size_t i = 0; i < na; i++) {
        hr_result_predict_t q = predict_of(hr_json_at(arr, i));
        any_real |= q.real != 0;
        if (q.change_s < p.change_s) {
            best = i;
            p = q;
        }
    }
    char procs[64];
    snprintf(procs, sizeof procs, "the whole program: %.0f processes",
             hr_json_path_num(f, "processes"));
    buf[0] = 0;
    if (p.real >= 0) {
        hr_predict_keep_words(buf, n, any_real, procs);
        leanest(buf, n, arr);
        return 1;
    }
    hr_predict_ship_words(buf, n, hr_json_path_str(hr_json_at(arr, best), HR_WP_ALLOC), &p,
                          hr_json_path_num(f, "cpu_s"), procs);
    int k = 0;
    for (size_t i = 0; i < na; i++) { /* real savings whose intervals meet the best's */
        hr_result_predict_t q = predict_of(hr_json_at(arr, i));
        if (i != best && q.real < 0 && q.interval_s_lo <= p.interval_s_hi &&
            p.interval_s_lo <= q.interval_s_hi)
            hr_fmt_cat(buf, n, "%s%s", k++ ? ", " : "; as good within the model's error: ",
                       hr_json_path_str(hr_json_at(arr, i), HR_WP_ALLOC));
    }
    leanest(buf, n, arr);
    return 1;
}

int hr_wholeprog_verdict(char *buf, size_t n, const hr_report_view_t *v, const char *trace) {
    const hr_json_t *f = family_of(v, trace);
    return f ? family_verdict(buf, n, f) : 0;
}

/* "processes: cc1 x12, as x12, gcc x12, make" from family f's "programs"
 * (nothing when no process recorded its command). */
static void program_mix(FILE *out, const hr_json_t *f, int md) {
    const hr_json_t *progs = hr_json_get(f, "programs");
    for (size_t k = 0; k < hr_json_len(progs); k++) {
        const hr_json_t *g = hr_json_at(progs, k);
        double n = hr_json_path_num(g, "processes");
        fprintf(out, "%s%s", k ? ", " : md ? "processes: " : "  processes: ",
                hr_json_path_str(g, "name"));
        if (n > 1)
            fprintf(out, " x%.0f", n);
    }
    if (hr_json_len(progs))
        fprintf(out, "\n%s", md ? "\n" : "");
}

void hr_wholeprog_table(hr_emit_t *em, const hr_report_view_t *v, int md) {
    const hr_json_t *all = hr_json_get(v->doc, HR_REPORT_WHOLE_PROGRAM);
    if (em->format != HR_EMIT_TEXT && em->format != HR_EMIT_MARKDOWN && em->format != HR_EMIT_HTML)
        return;
    for (size_t k = 0; k < hr_json_len(all); k++) {
        const hr_json_t *f = hr_json_at(all, k), *arr = hr_json_get(f, "allocators");
        const char *parent = hr_json_path_str(f, HR_WP_TRACE);
        int mine = 0; /* the parent is one of v's traces (a page's section holds one trace) */
        for (int t = 0; t < v->ntraces && !mine && parent; t++)
            mine = strcmp(v->traces[t], parent) == 0;
        char verdict[2048];
        if (!mine || !family_verdict(verdict, sizeof verdict, f))
            continue;
        hr_prose_t p;
        FILE *out = hr_prose_open(&p);
        if (!out)
            return;
        fprintf(out, "%sWhole program: %s and its %.0f child processes (CPU %.3f s)\n%s%s\n%s",
                md ? "### " : "", parent, hr_json_path_num(f, "processes") - 1,
                hr_json_path_num(f, "cpu_s"), md ? "\n" : "", verdict, md ? "\n" : "");
        program_mix(out, f, md);
        fprintf(out, "%sper allocator: the change of its CPU time [interval], its processes' "
                "start-up, both answers:\n%s", md ? "" : "  ", md ? "\n" : "");
        for (size_t i = 0; i < hr_json_len(arr); i++) {
            const hr_json_t *a = hr_json_at(arr, i);
            hr_result_predict_t pr = predict_of(a);
            char seen[48];
            hr_predict_seen_words(seen, sizeof seen, &pr);
            fprintf(out, "%s%s %+.1f ms (%+.2f%%) [%+.1f..%+.1f ms], start-up %+.1f ms: %s; %s",
                    md ? "- " : "    ", hr_json_path_str(a, HR_WP_ALLOC), pr.change_s * 1e3,
                    pr.change_pct, pr.interval_s_lo * 1e3, pr.interval_s_hi * 1e3,
                    hr_json_path_num(a, "startup_s") * 1e3, hr_predict_real_words(&pr), seen);
            /* where it comes from (nothing for the baseline: no change anywhere) */
            const hr_json_t *bp = hr_json_get(a, "by_program");
            size_t nbp = hr_json_path_num(hr_json_at(bp, 0), "change_s") != 0 ? hr_json_len(bp) : 0;
            for (size_t q = 0; q < nbp && q < 3; q++)
                fprintf(out, "%s%s %+.1f ms", q ? ", " : "; by program: ",
                        hr_json_path_str(hr_json_at(bp, q), "name"),
                        hr_json_path_num(hr_json_at(bp, q), "change_s") * 1e3);
            if (nbp > 3)
                fprintf(out, ", ...");
            fprintf(out, "\n");
        }
        fprintf(out, "%sthe parent's section below gives this verdict too; each child process's "
                "section its own\n\n", md ? "\n" : "  ");
        hr_prose_close(&p, em->out, md);
    }
}

void hr_wholeprog_csv(hr_emit_t *em, const hr_report_view_t *v) {
    static const char *const cols[] = {"trace", "processes", "cpu_s", "allocator", "change_s",
                                       "change_pct", "interval_s_lo", "interval_s_hi",
                                       "startup_s", "real", "noise_s", "runs_to_see", "max_rss",
                                       "max_rss_change_bytes"};
    const hr_json_t *all = hr_json_get(v->doc, HR_REPORT_WHOLE_PROGRAM);
    if (hr_json_len(all) == 0)
        return;
    hr_emit_table_begin(em, HR_REPORT_WHOLE_PROGRAM, (int)(sizeof cols / sizeof *cols), cols);
    for (size_t k = 0; k < hr_json_len(all); k++) {
        const hr_json_t *f = hr_json_at(all, k), *arr = hr_json_get(f, "allocators");
        for (size_t i = 0; i < hr_json_len(arr); i++) {
            const hr_json_t *a = hr_json_at(arr, i);
            hr_emit_cell_str(em, hr_json_path_str(f, HR_WP_TRACE));
            hr_emit_cell_num(em, hr_json_path_num(f, "processes"));
            hr_emit_cell_num(em, hr_json_path_num(f, "cpu_s"));
            for (size_t c = 3; c < sizeof cols / sizeof *cols; c++) {
                const char *str = hr_json_path_str(a, cols[c]);
                if (str)
                    hr_emit_cell_str(em, str);
                else
                    hr_emit_cell_num(em, hr_json_path_num(a, cols[c]));
            }
            hr_emit_row_end(em);
        }
    }
    hr_emit_table_end(em);
}
