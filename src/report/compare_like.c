/* Processes of two captures paired by their commands' likeness, and the
 * tokens two commands differ by (compare_family.h: hr_family_pairs_like,
 * hr_command_diff): what pairs a build's compiles when a flag changed in
 * every one of them. */
#include "report/compare_family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A command's tokens, normalized as hr_family_normal_command writes them, sorted,
 * each once (pointers into buf), and its program. */
typedef struct toks {
    char        *buf;
    const char **t;
    int          n;
    char         prog[64];
} toks_t;

static int by_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 0 (x empty when cmd is NULL), -1 out of memory. */
static int toks_of(toks_t *x, const char *cmd) {
    memset(x, 0, sizeof *x);
    if (!cmd)
        return 0;
    hr_report_command_program(x->prog, sizeof x->prog, cmd);
    size_t cap = 1;
    for (const char *c = cmd; *c; c++)
        cap += *c == ' ';
    if (!(x->buf = hr_family_normal_command(cmd)) || !(x->t = malloc(cap * sizeof *x->t)))
        return -1;
    for (char *c = x->buf; *c;) {
        size_t len = strcspn(c, " ");
        if (len)
            x->t[x->n++] = c;
        c += len;
        if (*c)
            *c++ = 0;
    }
    qsort(x->t, (size_t)x->n, sizeof *x->t, by_str);
    int k = 0;
    for (int i = 0; i < x->n; i++)
        if (!k || strcmp(x->t[k - 1], x->t[i]) != 0)
            x->t[k++] = x->t[i];
    x->n = k;
    return 0;
}

static void toks_free(toks_t *x) {
    free(x->buf);
    free(x->t);
}

/* The tokens the two share over the tokens either has (0 when either has none). */
static double likeness(const toks_t *a, const toks_t *b) {
    int common = 0;
    for (int i = 0, j = 0; i < a->n && j < b->n;) {
        int c = strcmp(a->t[i], b->t[j]);
        common += !c;
        i += c <= 0;
        j += c >= 0;
    }
    int all = a->n + b->n - common;
    return all ? (double)common / all : 0;
}

typedef struct like {
    double sim;
    int    k, m;
} like_t;

static int by_likeness(const void *a, const void *b) {
    const like_t *x = a, *y = b;
    if (x->sim != y->sim)
        return x->sim > y->sim ? -1 : 1;
    return x->k != y->k ? x->k - y->k : x->m - y->m;
}

/* Candidate pairs of b's and n's processes left unpaired: the same program,
 * alike by HR_FAMILY_LIKENESS or more, each of b's HR_FAMILY_LIKE_KEEP most
 * alike ones (the whole list of a build of thousands of like compiles would
 * be millions of pairs); *nc of them, NULL out of memory (none when more
 * than HR_FAMILY_LIKE_MAX comparisons would be needed). */
static like_t *like_candidates(const toks_t *tb, int nb, const toks_t *tn, int nn,
                               const int *pair, const char *taken, int *nc) {
    size_t cmp = 0;
    for (int k = 0; k < nb; k++)
        for (int m = 0; pair[k] < 0 && tb[k].n && m < nn; m++)
            cmp += !taken[m] && tn[m].n && strcmp(tb[k].prog, tn[m].prog) == 0;
    like_t *c = malloc(((size_t)nb * HR_FAMILY_LIKE_KEEP + 1) * sizeof *c);
    *nc = 0;
    if (!c || cmp > HR_FAMILY_LIKE_MAX)
        return c;
    for (int k = 0; k < nb; k++) {
        like_t *top = c + *nc; /* k's best so far, most alike first */
        int kept = 0;
        for (int m = 0; pair[k] < 0 && tb[k].n && m < nn; m++) {
            if (taken[m] || !tn[m].n || strcmp(tb[k].prog, tn[m].prog) != 0)
                continue;
            like_t cand = {likeness(&tb[k], &tn[m]), k, m};
            if (cand.sim < HR_FAMILY_LIKENESS ||
                (kept == HR_FAMILY_LIKE_KEEP && by_likeness(&cand, &top[kept - 1]) >= 0))
                continue;
            int at = kept < HR_FAMILY_LIKE_KEEP ? kept++ : kept - 1;
            for (; at > 0 && by_likeness(&cand, &top[at - 1]) < 0; at--)
                top[at] = top[at - 1];
            top[at] = cand;
        }
        *nc += kept;
    }
    return c;
}

int hr_family_pairs_like(const hr_family_t *b, const hr_family_t *n, int *pair, char *similar) {
    int made = hr_family_pairs(b, n, pair);
    if (made < 0)
        return -1;
    memset(similar, 0, (size_t)b->n);
    toks_t *tb = calloc((size_t)b->n + 1, sizeof *tb), *tn = calloc((size_t)n->n + 1, sizeof *tn);
    char *taken = calloc((size_t)n->n + 1, 1);
    int ok = tb && tn && taken, nc = 0;
    for (int k = 0; ok && k < b->n; k++)
        ok = pair[k] >= 0 ? (taken[pair[k]] = 1) : toks_of(&tb[k], hr_family_command(b, k)) == 0;
    for (int m = 0; ok && m < n->n; m++)
        ok = taken[m] || toks_of(&tn[m], hr_family_command(n, m)) == 0;
    like_t *c = ok ? like_candidates(tb, b->n, tn, n->n, pair, taken, &nc) : NULL;
    if (c)
        qsort(c, (size_t)nc, sizeof *c, by_likeness); /* the most alike first */
    for (int i = 0; c && i < nc; i++)
        if (pair[c[i].k] < 0 && !taken[c[i].m]) {
            pair[c[i].k] = c[i].m;
            taken[c[i].m] = similar[c[i].k] = 1;
            made++;
        }
    for (int k = 0; tb && k < b->n; k++)
        toks_free(&tb[k]);
    for (int m = 0; tn && m < n->n; m++)
        toks_free(&tn[m]);
    int failed = !c;
    free(c);
    free(tb);
    free(tn);
    free(taken);
    return failed ? -1 : made;
}

int hr_command_diff(char *buf, size_t len, const char *a, const char *b) {
    toks_t ta, tb;
    int ra = toks_of(&ta, a), rb = toks_of(&tb, b); /* both set up, to be freed below */
    buf[0] = 0;
    if (a && b && ra == 0 && rb == 0) {
        const toks_t *side[2] = {&ta, &tb}, *other[2] = {&tb, &ta};
        for (int s = 0; s < 2; s++) {
            int shown = 0, more = 0;
            size_t at = strlen(buf);
            if (s)
                snprintf(buf + at, len - at, " -> ");
            for (int i = 0; i < side[s]->n; i++) {
                const char *t = side[s]->t[i];
                if (bsearch(&t, other[s]->t, (size_t)other[s]->n, sizeof t, by_str))
                    continue;
                at = strlen(buf);
                if (shown < 3)
                    snprintf(buf + at, len - at, "%s%s", shown ? " " : "", t), shown++;
                else
                    more++;
            }
            at = strlen(buf);
            if (!shown)
                snprintf(buf + at, len - at, "(none)");
            else if (more)
                snprintf(buf + at, len - at, " and %d more", more);
        }
    }
    toks_free(&ta);
    toks_free(&tb);
    return ra || rb ? -1 : 0;
}
