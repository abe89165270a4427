/* The whole program of a --follow-forks capture (wholeprog.h). */
#include "report/wholeprog.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* 1 when `child` is `parent` with ".DIGITS" before its extension
 * (game.hrt -> game.1234.hrt; game -> game.1234), both names with the same
 * compression suffix or none (game.hrt.zst -> game.1234.hrt.zst). */
static int is_child_of(const char *child, const char *parent) {
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

/* Sums of one allocator's predictions over a family. */
typedef struct sums {
    double change, lo, hi, startup;
    int n;
} sums_t;

static sums_t sum_of(const hr_report_view_t *v, const char *alloc, const char *const *fam, int nf) {
    sums_t s = {0, 0, 0, 0, 0};
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
            s.n++;
            break;
        }
    return s;
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
    hr_json_set(o, HR_WP_TRACE, hr_json_new_str(parent));
    hr_json_set(o, "processes", hr_json_new_u64((uint64_t)nf));
    hr_json_set(o, "cpu_s", hr_json_new_num(cpu));
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (!r->predict.present || !r->allocator || !hr_result_of_trace(r, parent))
            continue;
        sums_t s = sum_of(v, r->allocator, fam, nf);
        if (s.n != nf) /* a process without this allocator's prediction */
            continue;
        hr_json_t *a = hr_json_new_object();
        hr_json_set(a, HR_WP_ALLOC, hr_json_new_str(r->allocator));
        hr_json_set(a, "change_s", hr_json_new_num(s.change));
        if (cpu > 0)
            hr_json_set(a, "change_pct", hr_json_new_num(s.change / cpu * 100));
        hr_json_set(a, "interval_s_lo", hr_json_new_num(s.lo));
        hr_json_set(a, "interval_s_hi", hr_json_new_num(s.hi));
        hr_json_set(a, "startup_s", hr_json_new_num(s.startup));
        hr_json_set(a, "real", hr_json_new_str(s.hi < 0 ? "saving" : s.lo > 0 ? "cost" : "none"));
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
            if (c != p && is_child_of(v->traces[c], parent))
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

void hr_wholeprog_table(hr_emit_t *em, const hr_report_view_t *v, int md) {
    const hr_json_t *all = hr_json_get(v->doc, HR_REPORT_WHOLE_PROGRAM);
    if (em->format != HR_EMIT_TEXT && em->format != HR_EMIT_MARKDOWN)
        return;
    for (size_t k = 0; k < hr_json_len(all); k++) {
        const hr_json_t *f = hr_json_at(all, k), *arr = hr_json_get(f, "allocators");
        fprintf(em->out, "%sWhole program: %s and its %.0f child processes (CPU %.3f s)\n%s"
                "predicted change of its CPU time, each process's allocator start-up included:\n%s",
                md ? "### " : "", hr_json_path_str(f, HR_WP_TRACE), hr_json_path_num(f, "processes") - 1,
                hr_json_path_num(f, "cpu_s"), md ? "\n" : "  ", md ? "\n" : "");
        for (size_t i = 0; i < hr_json_len(arr); i++) {
            const hr_json_t *a = hr_json_at(arr, i);
            fprintf(em->out, "%s%s %+.1f ms (%+.2f%%) [%+.1f..%+.1f ms], start-up %+.1f ms: %s\n",
                    md ? "- " : "  ", hr_json_path_str(a, HR_WP_ALLOC),
                    hr_json_path_num(a, "change_s") * 1e3, hr_json_path_num(a, "change_pct"),
                    hr_json_path_num(a, "interval_s_lo") * 1e3,
                    hr_json_path_num(a, "interval_s_hi") * 1e3,
                    hr_json_path_num(a, "startup_s") * 1e3,
                    strcmp(hr_json_path_str(a, "real"), "saving") == 0 ? "real saving"
                    : strcmp(hr_json_path_str(a, "real"), "cost") == 0 ? "real cost"
                                                                       : "no real change");
        }
        fputc('\n', em->out);
    }
}
