/* A --follow-forks capture's processes as one program (compare_family.h). */
#include "report/compare_family.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/wholeprog.h"

int hr_family_of(const hr_report_view_t *v, const char *parent, hr_family_t *f) {
    memset(f, 0, sizeof *f);
    f->traces = malloc(((size_t)v->ntraces + 1) * sizeof *f->traces);
    if (!f->traces)
        return -1;
    f->parent = parent;
    f->traces[f->n++] = parent;
    for (int t = 0; t < v->ntraces; t++)
        if (hr_wholeprog_is_child(v->traces[t], parent))
            f->traces[f->n++] = v->traces[t];
    if (f->n >= 2)
        return 1;
    hr_family_free(f);
    return 0;
}

void hr_family_free(hr_family_t *f) {
    free(f->traces);
    memset(f, 0, sizeof *f);
}

/* The row of `trace` for `alloc`, or its first ok row when alloc is NULL. */
static const hr_result_t *row_of(const hr_report_view_t *v, const char *trace, const char *alloc) {
    for (size_t i = 0; i < v->n; i++) {
        const hr_result_t *r = &v->rows[i];
        if (hr_result_of_trace(r, trace) && hr_result_ok(r) &&
            (!alloc || (r->allocator && strcmp(r->allocator, alloc) == 0)))
            return r;
    }
    return NULL;
}

static double combine(double acc, double x, hr_family_combine_t how, int first) {
    if (first)
        return x;
    return how == HR_FAMILY_MAX ? (x > acc ? x : acc) : acc + x;
}

/* s from its samples v[0..nv) (median, range), as report/stats.c reads a
 * result's samples. */
static void from_samples(hr_spread_t *s) {
    double tmp[HR_NOISE_MAX_SAMPLES];
    memcpy(tmp, s->v, (size_t)s->nv * sizeof tmp[0]);
    hr_stats_t st = hr_stats_of(tmp, s->nv);
    s->n = st.n;
    s->center = st.median;
    s->min = st.n >= 2 ? st.min : NAN;
    s->max = st.n >= 2 ? st.max : NAN;
}

void hr_family_spread(const hr_report_view_t *v, const hr_family_t *f, const char *alloc,
                      hr_family_fig_fn fig, void *ctx, hr_family_combine_t how, hr_spread_t *s) {
    hr_spread_t one;
    int nv = -1; /* the processes' common sample count; 0 when they differ */
    memset(s, 0, sizeof *s);
    s->center = s->min = s->max = NAN;
    for (int k = 0; k < f->n; k++) {
        const hr_result_t *r = row_of(v, f->traces[k], alloc);
        if (!r) {
            s->n = 0;
            return;
        }
        fig(r, &one, ctx);
        if (!one.n || !isfinite(one.center)) {
            memset(s, 0, sizeof *s);
            s->center = s->min = s->max = NAN;
            return;
        }
        s->center = combine(s->center, one.center, how, k == 0);
        nv = k == 0 ? one.nv : (one.nv == nv ? nv : 0);
        for (int i = 0; i < one.nv && nv > 0; i++)
            s->v[i] = combine(s->v[i], one.v[i], how, k == 0);
    }
    if (nv >= 2) { /* sample i of every process: one replay of the whole program */
        s->nv = nv;
        from_samples(s);
        return;
    }
    s->n = 1; /* one value: the noise test cannot call it */
    s->nv = 0;
}

/* The events of trace t in v (its first ok row), 0 when unknown. */
static double events_of(const hr_report_view_t *v, const char *t) {
    const hr_result_t *r = row_of(v, t, NULL);
    return r && isfinite(r->m.OPS_EVENTS) ? r->m.OPS_EVENTS : 0;
}

/* Appends the processes of f not marked in `same`, largest first by
 * events, at most max_named of them, then "and N more". */
static void name_changed(char *w, size_t len, const char *side, const hr_report_view_t *v,
                         const hr_family_t *f, const char *same, int max_named) {
    char *done = calloc((size_t)f->n, 1);
    int left = 0, named = 0;
    for (int k = 0; k < f->n; k++)
        left += !same[k];
    size_t l = strlen(w);
    snprintf(w + l, len - l, "%s%s:", l ? "; " : "", side);
    while (done && named < max_named) {
        int best = -1;
        for (int k = 0; k < f->n; k++)
            if (!same[k] && !done[k] && (best < 0 || events_of(v, f->traces[k]) >
                                                     events_of(v, f->traces[best])))
                best = k;
        if (best < 0)
            break;
        done[best] = 1;
        l = strlen(w);
        snprintf(w + l, len - l, "%s %s %.0f events", named++ ? "," : "",
                 hr_report_trace_base(f->traces[best]), events_of(v, f->traces[best]));
    }
    l = strlen(w);
    if (left == 0)
        snprintf(w + l, len - l, " none");
    else if (left > named)
        snprintf(w + l, len - l, " and %d more", left - named);
    free(done);
}

int hr_family_identical(const hr_report_view_t *vb, const hr_family_t *b,
                        const hr_report_view_t *vn, const hr_family_t *n, int max_named,
                        char *words, size_t len) {
    char *sb = calloc((size_t)b->n, 1), *sn = calloc((size_t)n->n, 1);
    int same = 0;
    for (int i = 0; sb && sn && i < b->n; i++) {
        const hr_result_t *rb = row_of(vb, b->traces[i], NULL);
        for (int j = 0; rb && rb->trace_digest && j < n->n; j++) {
            const hr_result_t *rn = row_of(vn, n->traces[j], NULL);
            if (!sn[j] && rn && rn->trace_digest && strcmp(rb->trace_digest, rn->trace_digest) == 0) {
                sb[i] = sn[j] = 1;
                same++;
                break;
            }
        }
    }
    if (len)
        words[0] = 0;
    if (sb && sn && len) {
        name_changed(words, len, "base", vb, b, sb, max_named);
        name_changed(words, len, "new", vn, n, sn, max_named);
    }
    free(sb);
    free(sn);
    return same;
}
