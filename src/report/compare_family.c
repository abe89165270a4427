/* A --follow-forks capture's processes as one program (compare_family.h). */
#include "report/compare_family.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/wholeprog.h"
#include "trace/trace.h"

/* A name with the index it stands for (a trace's, a process's). */
typedef struct named {
    const char *name;
    int         idx;
} named_t;

static int by_name(const void *a, const void *b) {
    const char *x = ((const named_t *)a)->name, *y = ((const named_t *)b)->name;
    return strcmp(x ? x : "", y ? y : "");
}

struct hr_families {
    const hr_report_view_t *v;
    int      nt;        /* the view's traces */
    named_t *sorted;    /* the traces by name, for bsearch */
    int     *parent;    /* per trace: its parent's trace index, or -1 */
    int     *row_trace; /* per row: its trace index (-1: none) */
    int     *order, *start; /* rows grouped by trace: order[start[t] .. start[t + 1]) */
};

/* The index of the trace named `name`, or -1. */
static int find_trace(const hr_families_t *fs, const char *name) {
    named_t key = {name, -1};
    const named_t *hit = bsearch(&key, fs->sorted, (size_t)fs->nt, sizeof key, by_name);
    return hit ? hit->idx : -1;
}

/* The parent of trace t (hr_wholeprog_parent_candidate), -1 when none, -2
 * out of memory. */
static int parent_of(const hr_families_t *fs, int t) {
    const char *c = fs->v->traces[t], *at = NULL;
    size_t len = strlen(c) + 1;
    char *cand = malloc(len);
    int found = cand ? -1 : -2;
    while (cand && found < 0 && hr_wholeprog_parent_candidate(c, &at, cand, len)) {
        int p = find_trace(fs, cand);
        if (p >= 0 && p != t && hr_wholeprog_is_child(c, fs->v->traces[p]))
            found = p;
    }
    free(cand);
    return found;
}

/* Rows grouped by trace (a counting sort of row_trace); -1 out of memory. */
static int group_rows(hr_families_t *fs) {
    const hr_report_view_t *v = fs->v;
    for (size_t i = 0; i < v->n; i++)
        if (fs->row_trace[i] >= 0)
            fs->start[fs->row_trace[i] + 1]++;
    for (int t = 0; t < fs->nt; t++)
        fs->start[t + 1] += fs->start[t];
    int *fill = calloc((size_t)fs->nt + 1, sizeof *fill);
    if (!fill)
        return -1;
    for (size_t i = 0; i < v->n; i++) {
        int t = fs->row_trace[i];
        if (t >= 0)
            fs->order[fs->start[t] + fill[t]++] = (int)i;
    }
    free(fill);
    return 0;
}

hr_families_t *hr_families_new(const hr_report_view_t *v) {
    hr_families_t *fs = calloc(1, sizeof *fs);
    size_t nt = (size_t)v->ntraces;
    if (!fs)
        return NULL;
    fs->v = v;
    fs->nt = v->ntraces;
    fs->sorted = malloc((nt + 1) * sizeof *fs->sorted);
    fs->parent = malloc((nt + 1) * sizeof *fs->parent);
    fs->start = calloc(nt + 2, sizeof *fs->start);
    fs->row_trace = malloc((v->n + 1) * sizeof *fs->row_trace);
    fs->order = malloc((v->n + 1) * sizeof *fs->order);
    if (!fs->sorted || !fs->parent || !fs->start || !fs->row_trace || !fs->order) {
        hr_families_free(fs);
        return NULL;
    }
    for (int t = 0; t < fs->nt; t++)
        fs->sorted[t] = (named_t){v->traces[t], t};
    qsort(fs->sorted, nt, sizeof *fs->sorted, by_name);
    for (int t = 0; t < fs->nt; t++)
        if ((fs->parent[t] = parent_of(fs, t)) == -2) {
            hr_families_free(fs);
            return NULL;
        }
    for (size_t i = 0; i < v->n; i++)
        fs->row_trace[i] = v->rows[i].trace ? find_trace(fs, v->rows[i].trace) : -1;
    if (group_rows(fs) != 0) { /* the rows' order unknown: no family can be read */
        hr_families_free(fs);
        return NULL;
    }
    return fs;
}

void hr_families_free(hr_families_t *fs) {
    if (!fs)
        return;
    free(fs->sorted);
    free(fs->parent);
    free(fs->row_trace);
    free(fs->order);
    free(fs->start);
    free(fs);
}

int hr_families_is_child(const hr_families_t *fs, size_t i) {
    return i < fs->v->n && fs->row_trace[i] >= 0 && fs->parent[fs->row_trace[i]] >= 0;
}

/* Appends trace t's rows to f as its process k. */
static void add_process(hr_family_t *f, const hr_families_t *fs, int k, int t) {
    f->traces[k] = fs->v->traces[t];
    f->start[k + 1] = f->start[k];
    for (int j = fs->start[t]; j < fs->start[t + 1]; j++)
        f->rows[f->start[k + 1]++] = &fs->v->rows[fs->order[j]];
}

int hr_family_of(const hr_families_t *fs, size_t i, hr_family_t *f) {
    memset(f, 0, sizeof *f);
    int p = i < fs->v->n ? fs->row_trace[i] : -1, n = 1;
    if (p < 0)
        return 0;
    for (int t = 0; t < fs->nt; t++)
        n += fs->parent[t] == p;
    if (n < 2)
        return 0;
    f->traces = malloc((size_t)n * sizeof *f->traces);
    f->start = calloc((size_t)n + 1, sizeof *f->start);
    f->rows = malloc((fs->v->n + 1) * sizeof *f->rows);
    if (!f->traces || !f->start || !f->rows) {
        hr_family_free(f);
        return -1;
    }
    f->parent = fs->v->traces[p];
    add_process(f, fs, f->n++, p);
    for (int t = 0; t < fs->nt; t++)
        if (fs->parent[t] == p)
            add_process(f, fs, f->n++, t);
    return 1;
}

/* A child process's trace with its parent and weight, for ordering. */
typedef struct kid {
    int    parent, t;
    double events;
} kid_t;

static int by_parent_weight(const void *a, const void *b) {
    const kid_t *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent - y->parent;
    if (x->events != y->events)
        return x->events > y->events ? -1 : 1;
    return x->t - y->t;
}

/* A row's events, 0 when it has none or is no row. */
static double row_events(const hr_result_t *r) {
    return r && isfinite(r->m.OPS_EVENTS) ? r->m.OPS_EVENTS : 0;
}

/* The events of trace t's first ok row (hr_family_row's choice), 0 when
 * none. */
static double trace_events(const hr_families_t *fs, int t) {
    for (int j = fs->start[t]; j < fs->start[t + 1]; j++)
        if (hr_result_ok(&fs->v->rows[fs->order[j]]))
            return row_events(&fs->v->rows[fs->order[j]]);
    return 0;
}

int *hr_families_trace_order(const hr_families_t *fs) {
    int nt = fs->nt, nk = 0, k = 0, top = 0;
    int *out = malloc(((size_t)nt + 1) * sizeof *out), *first = malloc(((size_t)nt + 1) * sizeof *first);
    int *stack = malloc(((size_t)nt + 1) * sizeof *stack);
    kid_t *kids = malloc(((size_t)nt + 1) * sizeof *kids);
    char *done = calloc((size_t)nt + 1, 1);
    if (!out || !first || !stack || !kids || !done) {
        free(out);
        out = NULL;
        goto end;
    }
    for (int t = 0; t < nt; t++)
        if (fs->parent[t] >= 0)
            kids[nk++] = (kid_t){fs->parent[t], t, trace_events(fs, t)};
    qsort(kids, (size_t)nk, sizeof *kids, by_parent_weight);
    for (int t = 0; t < nt; t++)
        first[t] = -1;
    for (int i = nk - 1; i >= 0; i--)
        first[kids[i].parent] = i; /* a parent's children: kids[first ..] while the parent matches */
    /* each trace that is nobody's child, then depth first its children,
     * heaviest first (pushed lightest first) */
    for (int t = 0; t < nt; t++) {
        if (fs->parent[t] >= 0)
            continue;
        stack[top++] = t;
        while (top) {
            int u = stack[--top], i = first[u], last = i;
            if (done[u])
                continue;
            done[u] = 1;
            out[k++] = u;
            while (last >= 0 && last < nk && kids[last].parent == u)
                last++;
            for (int j = last - 1; i >= 0 && j >= i; j--)
                stack[top++] = kids[j].t;
        }
    }
    for (int t = 0; t < nt; t++) /* none should be left; never lose one */
        if (!done[t])
            out[k++] = t;
end:
    free(first);
    free(stack);
    free(kids);
    free(done);
    return out;
}

void hr_family_free(hr_family_t *f) {
    free(f->traces);
    free(f->start);
    free(f->rows);
    memset(f, 0, sizeof *f);
}

const hr_result_t *hr_family_row(const hr_family_t *f, int k, const char *alloc) {
    for (int j = f->start[k]; j < f->start[k + 1]; j++) {
        const hr_result_t *r = f->rows[j];
        if (hr_result_ok(r) && (!alloc || (r->allocator && strcmp(r->allocator, alloc) == 0)))
            return r;
    }
    return NULL;
}

int hr_family_framed(const hr_family_t *f) {
    int found = -1;
    for (int k = 1; k < f->n; k++) {
        const hr_result_t *r = hr_family_row(f, k, NULL);
        if (r && r->m.OPS_BY_OP[HR_OP_FRAME] > 0) {
            if (found >= 0)
                return -1;
            found = k;
        }
    }
    return found;
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

void hr_family_spread(const hr_family_t *f, const char *alloc, hr_family_fig_fn fig, void *ctx,
                      hr_family_combine_t how, hr_spread_t *s) {
    hr_spread_t one;
    int nv = -1; /* the processes' common sample count; 0 when they differ */
    memset(s, 0, sizeof *s);
    s->center = s->min = s->max = NAN;
    for (int k = 0; k < f->n; k++) {
        const hr_result_t *r = hr_family_row(f, k, alloc);
        if (r)
            fig(r, &one, ctx);
        if (!r || !one.n || !isfinite(one.center)) {
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

/* The events of process k (its first ok row), 0 when unknown. */
static double events_of(const hr_family_t *f, int k) {
    return row_events(hr_family_row(f, k, NULL));
}

/* Appends the processes of f not marked in `same`, largest first by
 * events, at most max_named of them, then "and N more". -1 out of memory
 * (nothing written), else 0. */
static int name_changed(char *w, size_t len, const char *side, const hr_family_t *f,
                        const char *same, int max_named) {
    char *done = calloc((size_t)f->n + 1, 1);
    if (!done)
        return -1;
    int left = 0, named = 0;
    for (int k = 0; k < f->n; k++)
        left += !same[k];
    size_t l = strlen(w);
    snprintf(w + l, len - l, "%s%s:", l ? "; " : "", side);
    while (named < max_named) {
        int best = -1;
        for (int k = 0; k < f->n; k++)
            if (!same[k] && !done[k] && (best < 0 || events_of(f, k) > events_of(f, best)))
                best = k;
        if (best < 0)
            break;
        done[best] = 1;
        l = strlen(w);
        snprintf(w + l, len - l, "%s %s %.0f events", named++ ? "," : "",
                 hr_report_trace_base(f->traces[best]), events_of(f, best));
    }
    l = strlen(w);
    if (left == 0)
        snprintf(w + l, len - l, " none");
    else if (left > named)
        snprintf(w + l, len - l, " and %d more", left - named);
    free(done);
    return 0;
}

/* By name, then index: equal digests pair in process order. */
static int by_name_idx(const void *a, const void *b) {
    int c = by_name(a, b);
    return c ? c : ((const named_t *)a)->idx - ((const named_t *)b)->idx;
}

/* Pairs a's entries with b's of an equal, known name (both sorted by name,
 * then index), each used once: pair[a's idx] = b's idx, -1 for the others
 * (pair has room for na). Returns the pairs made. */
static int pair_equal(const named_t *a, int na, const named_t *b, int nb, int *pair) {
    int made = 0;
    for (int k = 0; k < na; k++)
        pair[k] = -1;
    for (int i = 0, j = 0; i < na && j < nb;) { /* walk both together */
        int c = by_name(&a[i], &b[j]);
        if (c == 0 && a[i].name) {
            pair[a[i++].idx] = b[j++].idx;
            made++;
        } else if (c < 0 || !a[i].name) {
            i++;
        } else {
            j++;
        }
    }
    return made;
}

/* f's processes by their traces' digests (NULL: unknown, sorted first). */
static named_t *by_digests(const hr_family_t *f) {
    named_t *d = malloc(((size_t)f->n + 1) * sizeof *d);
    for (int k = 0; d && k < f->n; k++) {
        const hr_result_t *r = hr_family_row(f, k, NULL);
        d[k] = (named_t){r ? r->trace_digest : NULL, k};
    }
    if (d)
        qsort(d, (size_t)f->n, sizeof *d, by_name_idx);
    return d;
}

int hr_family_identical(const hr_family_t *b, const hr_family_t *n, int max_named, char *words,
                        size_t len) {
    char *sb = calloc((size_t)b->n + 1, 1), *sn = calloc((size_t)n->n + 1, 1);
    named_t *db = by_digests(b), *dn = by_digests(n);
    int *pair = malloc(((size_t)b->n + 1) * sizeof *pair), same = -1;
    if (len)
        words[0] = 0;
    if (sb && sn && db && dn && pair) {
        same = pair_equal(db, b->n, dn, n->n, pair);
        for (int k = 0; k < b->n; k++)
            if (pair[k] >= 0)
                sb[k] = sn[pair[k]] = 1;
        if (len && (name_changed(words, len, "base", b, sb, max_named) != 0 ||
                    name_changed(words, len, "new", n, sn, max_named) != 0))
            same = -1;
    }
    free(sb);
    free(sn);
    free(db);
    free(dn);
    free(pair);
    return same;
}

const char *hr_family_command(const hr_family_t *f, int k) {
    for (int j = f->start[k]; j < f->start[k + 1]; j++) {
        const char *c = f->rows[j]->command;
        if (c && c[strspn(c, " ")]) /* a blank one names no process */
            return c;
    }
    return NULL;
}

/* The program process k ran (hr_report_command_program), "" when unknown. */
static void program_of(const hr_family_t *f, int k, char prog[64]) {
    hr_report_command_program(prog, 64, hr_family_command(f, k));
}

int hr_family_programs(const hr_family_t *f, char (*names)[64], int max) {
    int n = 0;
    for (int k = 0; k < f->n && n < max; k++) {
        char prog[64];
        program_of(f, k, prog);
        int seen = !prog[0];
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(names[i], prog) == 0;
        if (!seen)
            snprintf(names[n++], sizeof names[0], "%s", prog);
    }
    return n;
}

int hr_family_subset(const hr_family_t *f, const char *program, hr_family_t *sub) {
    memset(sub, 0, sizeof *sub);
    sub->traces = malloc((size_t)f->n * sizeof *sub->traces);
    sub->start = calloc((size_t)f->n + 1, sizeof *sub->start);
    sub->rows = malloc(((size_t)f->start[f->n] + 1) * sizeof *sub->rows);
    if (!sub->traces || !sub->start || !sub->rows) {
        hr_family_free(sub);
        return -1;
    }
    for (int k = 0; k < f->n; k++) {
        char prog[64];
        program_of(f, k, prog);
        if (!prog[0] || strcmp(prog, program) != 0)
            continue;
        sub->traces[sub->n] = f->traces[k];
        sub->start[sub->n + 1] = sub->start[sub->n];
        for (int j = f->start[k]; j < f->start[k + 1]; j++)
            sub->rows[sub->start[sub->n + 1]++] = f->rows[j];
        sub->n++;
    }
    sub->parent = sub->n ? sub->traces[0] : NULL;
    if (sub->n)
        return 1;
    hr_family_free(sub);
    return 0;
}

char *hr_family_normal_command(const char *cmd) {
    char *out = cmd ? malloc(strlen(cmd) + 1) : NULL, *w = out;
    for (const char *a = cmd; out && *a;) {
        size_t len = strcspn(a, " ");
        int tmp = len >= 5 && strncmp(a, "/tmp/", 5) == 0;
        memcpy(w, a, tmp ? 6 : len);
        if (tmp)
            w[5] = '*';
        w += tmp ? 6 : len;
        a += len;
        if (*a == ' ')
            *w++ = *a++;
    }
    if (w)
        *w = 0;
    return out;
}

/* f's processes by normalized command (NULL: none, sorted first), then in
 * process order; the names are fresh strings. */
static void free_named(named_t *d, int n) {
    for (int k = 0; d && k < n; k++)
        free((char *)d[k].name);
    free(d);
}

static named_t *by_commands(const hr_family_t *f) {
    named_t *d = malloc(((size_t)f->n + 1) * sizeof *d);
    int k = 0;
    for (; d && k < f->n; k++) {
        const char *cmd = hr_family_command(f, k);
        d[k] = (named_t){hr_family_normal_command(cmd), k};
        if (cmd && !d[k].name) { /* out of memory: not "no command" */
            free_named(d, k);
            return NULL;
        }
    }
    if (d)
        qsort(d, (size_t)f->n, sizeof *d, by_name_idx);
    return d;
}

int hr_family_pairs(const hr_family_t *b, const hr_family_t *n, int *pair) {
    named_t *cb = by_commands(b), *cn = by_commands(n);
    int made = cb && cn ? pair_equal(cb, b->n, cn, n->n, pair) : -1;
    free_named(cb, b->n);
    free_named(cn, n->n);
    return made;
}
