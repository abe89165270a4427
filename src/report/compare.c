/* compare (see compare.h for the semantics). */
#include "report/compare.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/metrics.h"
#include "base/outfile.h"
#include "report/access.h"
#include "report/stats.h"
#include "trace/trace.h"

/* Aliases, directions and default gates come from the metric registry
 * (base/metrics.h). */

hr_compare_options_t hr_compare_options_default(void) {
    hr_compare_options_t o = {HR_CMP_TEXT, HR_COMPARE_MD_MAX_ROWS, NULL, 1, HR_CMP_MODE_AUTO,
                              NULL, NULL};
    return o;
}

int hr_compare_mode_parse(const char *s, hr_compare_mode_t *mode) {
    static const char *const names[] = {"auto", "allocator", "program"};
    for (int i = 0; s && i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *mode = (hr_compare_mode_t)i;
            return 0;
        }
    return -1;
}

int hr_compare_format_parse(const char *s, hr_compare_format_t *fmt) {
    static const struct { const char *name; hr_compare_format_t f; } names[] = {
        {"text", HR_CMP_TEXT}, {"json", HR_CMP_JSON},     {"csv", HR_CMP_CSV},
        {"md", HR_CMP_MD},     {"markdown", HR_CMP_MD}, {"junit", HR_CMP_JUNIT},
    };
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) {
            *fmt = names[i].f;
            return 0;
        }
    return -1;
}


/* The default gates: every registry metric with one, in registry order. */
static int default_metrics(hr_compare_metric_t *m, int max) {
    int n = 0;
    for (int k = 0; k < HR_M__COUNT && n < max; k++)
        if (hr_metrics[k].gate >= 0 && hr_metrics[k].alias) {
            hr_compare_metric_from(&hr_metrics[k], &m[n]);
            m[n].is_default = 1;
            m[n++].pct = hr_metrics[k].gate;
        }
    return n;
}


int hr_compare_parse_thresholds(const char *spec, hr_compare_metric_t *m, int max,
                                hr_error_t *err) {
    int n = 0;
    const char *p = spec;
    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[192], *eq, *end;
        if (len == 0 || len >= sizeof item) {
            hr_error_set(err, "--max-regress: expected METRIC=PCT at \"%.*s\"", (int)len, p);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = 0;
        eq = strchr(item, '=');
        if (!eq) {
            hr_error_set(err, "--max-regress: expected METRIC=PCT, got \"%s\"", item);
            return -1;
        }
        *eq = 0;
        if (n >= max || hr_compare_metric_lookup(item, &m[n]) < 0) {
            hr_error_set(err, "--max-regress: unknown metric \"%s\" (expected an alias "
                     "such as throughput, peak, p99, or a dotted path)", item);
            return -1;
        }
        double pct = strtod(eq + 1, &end);
        if (end == eq + 1 || (*end && strcmp(end, "%") != 0) || !isfinite(pct) || pct < 0) {
            hr_error_set(err, "--max-regress: %s: expected a non-negative percentage, "
                     "got \"%s\"", item, eq + 1);
            return -1;
        }
        m[n++].pct = pct;
        p = comma ? comma + 1 : NULL;
        if (p && !*p) {
            hr_error_set(err, "--max-regress: expected METRIC=PCT after the last ','");
            return -1;
        }
    }
    if (n == 0) {
        hr_error_set(err, "--max-regress: expected METRIC=PCT[,...], got \"%s\"",
                 spec ? spec : "");
        return -1;
    }
    return n;
}

/* ---- collecting the rows ----------------------------------------------- */

typedef struct cmp {
    hr_compare_row_t *rows;
    size_t    nrows, cap;
    int       oom;
    double    drift[HR_COMPARE_MAX_METRICS]; /* per gated metric, whole report; 1 = none */
    hr_report_view_t all_b, all_n;           /* the two reports' results, decoded once */
    /* row_drift's memo: the drifts of the last trace seen (rows of one trace
     * come together), NAN until computed */
    char      memo_trace[256];
    double    memo[HR_COMPARE_MAX_METRICS];
    hr_compare_summary_t sum;
} cmp_t;

static int is_failing(const char *verdict) {
    return strcmp(verdict, "REGRESSION") == 0 || strcmp(verdict, "MISMATCH") == 0 ||
           strcmp(verdict, "MISSING") == 0 || strcmp(verdict, "FAILED") == 0;
}

/* Appends one row. `thr` is the threshold in percent, HR_THR_EXACT or NAN
 * (not gated); `sep` whether the sample ranges are disjoint (-1 unknown). */
#define HR_THR_EXACT (-1.0)
static hr_compare_row_t *row(cmp_t *c, const hr_result_t *t, const char *metric, double b, double n,
                             double delta, double thr, const char *verdict, const char *why) {
    if (c->nrows == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        hr_compare_row_t *p = realloc(c->rows, cap * sizeof *p);
        if (!p) {
            c->oom = 1;
            return NULL;
        }
        c->rows = p;
        c->cap = cap;
    }
    hr_compare_row_t *w = &c->rows[c->nrows];
    memset(w, 0, sizeof *w);
    snprintf(w->trace, sizeof w->trace, "%s", hr_report_trace_base(t->trace));
    snprintf(w->allocator, sizeof w->allocator, "%s", t->allocator);
    snprintf(w->metric, sizeof w->metric, "%s", metric);
    w->base = b;
    w->cur = n;
    w->delta = delta;
    w->exact = thr == HR_THR_EXACT;
    w->threshold_pct = w->exact ? 0 : thr;
    w->separated = -1;
    w->order = (int)c->nrows++;
    snprintf(w->verdict, sizeof w->verdict, "%s", verdict);
    snprintf(w->reason, sizeof w->reason, "%s", why ? why : "");
    w->fails = is_failing(verdict);
    hr_compare_summary_t *s = &c->sum;
    if (strcmp(verdict, "ok") == 0)
        s->unchanged++;
    else if (strcmp(verdict, "improved") == 0)
        s->improved++;
    else if (strcmp(verdict, "noise") == 0)
        s->noise++;
    else if (!w->fails)
        s->other++;
    return w;
}

/* One gated metric: the noise-aware verdict (report/stats.h). `exact` when
 * the figure is deterministic in this pair. */
static void scale_spread(hr_spread_t *s, double f) {
    s->center /= f;
    s->min /= f;
    s->max /= f;
    for (int i = 0; i < s->nv; i++)
        s->v[i] /= f;
}

static void gate(cmp_t *c, const hr_result_t *rb, const hr_result_t *rn, const hr_compare_metric_t *m,
                 double pct, int exact_label, int exact, double drift) {
    hr_spread_t b, n;
    char why[256];
    double thr = exact_label ? HR_THR_EXACT : pct;
    hr_spread_at(rb, m->path, &b);
    hr_spread_at(rn, m->path, &n);
    if (drift != 1 && n.n)
        scale_spread(&n, drift);
    if (!b.n && !n.n && m->is_default)
        return; /* a default gate on a figure neither report has (older engine) */
    if (!b.n || !n.n) {
        row(c, rb, m->name, b.center, n.center, NAN, thr, "n/a",
            !b.n ? "no value in base" : "no value in new");
        return;
    }
    static const char *const verdicts[] = {"ok", "improved", "noise", "REGRESSION"};
    hr_noise_verdict_t v = hr_noise_judge(&b, &n, pct, m->higher_better, exact, why, sizeof why);
    if (drift != 1) {
        size_t l = strlen(why);
        snprintf(why + l, sizeof why - l, " (new / host drift %.3f)", drift);
    }
    c->sum.regressions += v == HR_NOISE_REGRESSION;
    hr_compare_row_t *w = row(c, rb, m->name, b.center, n.center,
                              hr_delta_pct(b.center, n.center), thr, verdicts[v], why);
    /* separated: the two sample ranges are disjoint (known for measured
     * figures with a spread on both sides) */
    if (w && !exact && b.n >= 2 && n.n >= 2 && !isnan(b.min) && !isnan(n.min))
        w->separated = n.min > b.max || n.max < b.min;
}

/* Equal figures: the same number, or both absent (null or missing). */
static int num_equal(double a, double b) {
    return a == b || (isnan(a) && isnan(b));
}

/* 1 when `path` lies in the op-count group ("ops.*" and ops.total), which
 * exact_checks compares key by key. */
static int in_ops_group(const char *path) {
    const hr_metric_t *ops = &hr_metrics[HR_M_OPS_TOTAL];
    size_t g = hr_metric_group_len(ops);
    return strncmp(path, ops->path, g + 1) == 0;
}

/* A metric the trace alone decides that is compared exactly on its own row
 * whatever the spec says: a gated one (peak live) outside the ops group. */
static int compared_exactly(const hr_metric_t *m) {
    return m && m->exact == HR_EXACT_TRACE && m->alias && m->gate >= 0 && !in_ops_group(m->path);
}

/* One figure of the op-count group, compared exactly: a MISMATCH row when
 * it differs. Returns 1 when equal. */
static int ops_equal(cmp_t *c, const hr_result_t *rb, const char *group, const char *key,
                     double b, double n) {
    if (num_equal(b, n))
        return 1;
    char name[64];
    snprintf(name, sizeof name, "%s.%s", group, key);
    row(c, rb, name, b, n, hr_delta_pct(b, n), HR_THR_EXACT, "MISMATCH",
        "op counts differ: different traces");
    c->sum.mismatches++;
    return 0;
}

/* Deterministic values: op counts and peak live must match exactly. */
static void exact_checks(cmp_t *c, const hr_result_t *rb, const hr_result_t *rn) {
    const char *db = rb->trace_digest, *dn = rn->trace_digest;
    if (db && dn && strcmp(db, dn) != 0) {
        row(c, rb, "trace_digest", NAN, NAN, NAN, HR_THR_EXACT, "MISMATCH",
            "different traces: the digests differ");
        c->sum.mismatches++;
    }
    const hr_metric_t *tot = &hr_metrics[HR_M_OPS_TOTAL], *ev = &hr_metrics[HR_M_OPS_EVENTS];
    char group[32];
    hr_metric_group(tot, group, sizeof group);
    /* the group's figures in the order the engine writes them */
    int ops_ok = ops_equal(c, rb, group, hr_metric_key(tot), rb->m.OPS_TOTAL, rn->m.OPS_TOTAL);
    ops_ok &= ops_equal(c, rb, group, hr_metric_key(ev), rb->m.OPS_EVENTS, rn->m.OPS_EVENTS);
    for (unsigned op = 0; op < HR_OP__COUNT; op++)
        ops_ok &= ops_equal(c, rb, group, hr_op_info[op].key, rb->m.OPS_BY_OP[op],
                            rn->m.OPS_BY_OP[op]);
    if (ops_ok)
        row(c, rb, tot->path, rb->m.OPS_TOTAL, rn->m.OPS_TOTAL, 0, HR_THR_EXACT, "ok",
            "every op count equal");
    /* the other figures the trace alone decides (registry: HR_EXACT_TRACE) */
    for (int k = 0; k < HR_M__COUNT; k++) {
        const hr_metric_t *m = &hr_metrics[k];
        if (!compared_exactly(m))
            continue;
        double b = hr_result_num(&rb->m, (hr_metric_id_t)k, 0, 0);
        double n = hr_result_num(&rn->m, (hr_metric_id_t)k, 0, 0);
        int eq = num_equal(b, n);
        row(c, rb, m->alias, b, n, isnan(b) || isnan(n) ? NAN : hr_delta_pct(b, n), HR_THR_EXACT,
            eq ? "ok" : "MISMATCH", eq ? "equal" : "a property of the trace differs");
        c->sum.mismatches += !eq;
    }
}

static double drift_of(const hr_report_view_t *rb, const hr_report_view_t *rn,
                       const hr_compare_metric_t *m, const char *trace, int min_rows);

/* The drift a row is judged with: its trace's own (the traces of a run are
 * replayed one after another, so a burst of load hits one trace's rows
 * together) when the trace has HR_DRIFT_MIN_TRACE_ROWS rows, else the whole
 * report's. */
static double row_drift(cmp_t *c, const hr_result_t *rb, const hr_compare_metric_t *m, int i) {
    if (c->drift[i] == 1)
        return 1;
    const char *trace = hr_report_trace_base(rb->trace);
    if (strcmp(trace, c->memo_trace) != 0) {
        snprintf(c->memo_trace, sizeof c->memo_trace, "%s", trace);
        for (int k = 0; k < HR_COMPARE_MAX_METRICS; k++)
            c->memo[k] = NAN;
    }
    if (isnan(c->memo[i])) {
        double d = drift_of(&c->all_b, &c->all_n, m, trace, HR_DRIFT_MIN_TRACE_ROWS);
        c->memo[i] = d != 1 ? d : c->drift[i];
    }
    return c->memo[i];
}

static void compare_pair(cmp_t *c, const hr_result_t *rb, const hr_result_t *rn,
                         const hr_compare_metric_t *m, int nm) {
    const char *sb = rb->status, *sn = rn->status;
    char st[96];
    snprintf(st, sizeof st, "status %s -> %s", sb, sn);
    if (!hr_result_ok(rb)) {
        row(c, rb, st, NAN, NAN, NAN, NAN, hr_result_ok(rn) ? "fixed" : "skipped",
            "base result not ok: nothing to compare");
        return;
    }
    if (!hr_result_ok(rn)) {
        row(c, rb, st, NAN, NAN, NAN, NAN, "FAILED", "the new result is not ok");
        c->sum.regressions++;
        return;
    }
    exact_checks(c, rb, rn);
    int exact_src = hr_result_exact_fp(rb) && hr_result_exact_fp(rn);
    for (int i = 0; i < nm; i++) {
        const hr_metric_t *d = m[i].def;
        if (in_ops_group(m[i].path) || compared_exactly(d))
            continue; /* compared exactly above */
        /* deterministic in this pair: no sample test; an in-house exact figure
         * gated by default is gated exactly (the registry's gate is the
         * tolerance for sampled sources, base/metrics.h) */
        int exact = d && (d->exact == HR_EXACT_TRACE || (d->exact == HR_EXACT_INHOUSE && exact_src));
        if (exact && d->exact == HR_EXACT_INHOUSE && m[i].is_default)
            gate(c, rb, rn, &m[i], 0, 1, 1, 1);
        else
            gate(c, rb, rn, &m[i], m[i].pct, 0, exact, exact ? 1 : row_drift(c, rb, &m[i], i));
    }
    if (!exact_src)
        return;
    /* A figure gated by default that is exact for in-house allocators is
     * deterministic there: gated at 0% when the spec leaves it out. */
    for (int k = 0; k < HR_M__COUNT; k++) {
        const hr_metric_t *d = &hr_metrics[k];
        int given = 0;
        if (d->exact != HR_EXACT_INHOUSE || d->gate < 0 || !d->alias)
            continue;
        for (int i = 0; i < nm; i++)
            given |= m[i].def == d;
        if (!given) {
            hr_compare_metric_t em;
            hr_compare_metric_from(d, &em);
            gate(c, rb, rn, &em, 0, 1, 1, 1);
        }
    }
}

static const hr_result_t *find_match(const hr_report_view_t *results, const hr_result_t *rb,
                                     char *used);
/* A figure the host's load moves: a measured time or rate. */
static int is_timing(const hr_compare_metric_t *m) {
    return m->def && m->def->exact == HR_EXACT_MEASURED &&
           (m->def->unit == HR_UNIT_NS || m->def->unit == HR_UNIT_SECONDS ||
            m->def->unit == HR_UNIT_OPS_PER_S);
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The common drift of timing metric m between the two reports (hr_compare_
 * options_t.drift): the median of new/base over the matched ok rows, or 1
 * when too few rows or allocators say it. */
static double drift_of(const hr_report_view_t *rb, const hr_report_view_t *rn,
                       const hr_compare_metric_t *m, const char *trace, int min_rows) {
    size_t nb = rb->n;
    double *r = calloc(nb + 1, sizeof *r);
    char *used = calloc(rn->n + 1, 1);
    const char *first = NULL;
    int n = 0, allocs = 0;
    for (size_t i = 0; r && used && i < nb; i++) {
        const hr_result_t *tb = &rb->rows[i], *tc = find_match(rn, tb, used);
        hr_spread_t sb, sc;
        if (!tc || !hr_result_ok(tb) || !hr_result_ok(tc) ||
            (trace && strcmp(hr_report_trace_base(tb->trace), trace) != 0))
            continue;
        hr_spread_at(tb, m->path, &sb);
        hr_spread_at(tc, m->path, &sc);
        if (!sb.n || !sc.n || !(sb.center > 0) || !(sc.center > 0))
            continue;
        r[n++] = sc.center / sb.center;
        const char *a = tb->allocator;
        if (!first)
            first = a, allocs = 1;
        else if (allocs == 1 && strcmp(first, a) != 0)
            allocs = 2;
    }
    double d = 1;
    if (n >= min_rows && allocs >= 2) {
        qsort(r, (size_t)n, sizeof *r, cmp_dbl);
        d = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
    }
    free(r);
    free(used);
    return d;
}

static const hr_result_t *find_match(const hr_report_view_t *results, const hr_result_t *rb,
                                     char *used) {
    const char *alloc = rb->allocator;
    const char *base = hr_report_trace_base(rb->trace);
    const char *dig = rb->trace_digest;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < results->n; i++) {
            const hr_result_t *r = &results->rows[i];
            if (used[i] || strcmp(r->allocator, alloc) != 0)
                continue;
            const char *d = r->trace_digest;
            if (pass == 0 ? strcmp(hr_report_trace_base(r->trace), base) == 0
                          : (dig && d && strcmp(dig, d) == 0)) {
                used[i] = 1;
                return r;
            }
        }
    return NULL;
}

/* Failing rows first, then |delta| descending (no delta last), then the
 * comparison order. */
static int row_cmp(const void *x, const void *y) {
    const hr_compare_row_t *a = x, *b = y;
    if (a->fails != b->fails)
        return b->fails - a->fails;
    double da = isnan(a->delta) ? -1 : fabs(a->delta), db = isnan(b->delta) ? -1 : fabs(b->delta);
    if (da != db)
        return da < db ? 1 : -1;
    return (a->order > b->order) - (a->order < b->order);
}

void hr_compare_sort(hr_compare_row_t *rows, size_t n) {
    if (n > 1)
        qsort(rows, n, sizeof *rows, row_cmp);
}

int hr_compare_reports(const hr_json_t *base, const char *base_name, const hr_json_t *cur,
                       const char *new_name, const hr_compare_options_t *opt, FILE *out) {
    hr_compare_metric_t m[HR_COMPARE_MAX_METRICS];
    hr_error_t err;
    int nm = opt->max_regress ? hr_compare_parse_thresholds(opt->max_regress, m,
                                                            HR_COMPARE_MAX_METRICS, &err)
                              : default_metrics(m, HR_COMPARE_MAX_METRICS);
    if (nm < 0)
        return 2; /* callers validate the spec first (hr_compare_files does) */
    cmp_t c;
    memset(&c, 0, sizeof c);
    for (int k = 0; k < HR_COMPARE_MAX_METRICS; k++)
        c.memo[k] = NAN;
    char *used = NULL;
    if (hr_report_view_init(&c.all_b, base) < 0 || hr_report_view_init(&c.all_n, cur) < 0 ||
        !(used = calloc(c.all_n.n + 1, 1))) {
        hr_report_view_free(&c.all_b);
        hr_report_view_free(&c.all_n);
        fprintf(stderr, "heapreplay compare: out of memory\n");
        return 2;
    }
    if (hr_compare_program_applies(&c.all_b, &c.all_n, opt)) {
        int rc = hr_compare_program(&c.all_b, base_name, &c.all_n, new_name, opt, m,
                                    opt->max_regress ? nm : 0, out);
        free(used);
        hr_report_view_free(&c.all_b);
        hr_report_view_free(&c.all_n);
        return rc;
    }
    for (int i = 0; i < nm; i++)
        c.drift[i] = opt->drift && is_timing(&m[i]) ? drift_of(&c.all_b, &c.all_n, &m[i], NULL,
                                                                HR_DRIFT_MIN_ROWS) : 1;
    for (size_t i = 0; i < c.all_b.n; i++) {
        const hr_result_t *b = &c.all_b.rows[i];
        const hr_result_t *n = find_match(&c.all_n, b, used);
        if (!n) {
            row(&c, b, "result", NAN, NAN, NAN, NAN, "MISSING", "no matching result in new");
            c.sum.missing++;
            continue;
        }
        c.sum.matched++;
        compare_pair(&c, b, n, m, nm);
    }
    for (size_t i = 0; i < c.all_n.n; i++)
        if (!used[i])
            row(&c, &c.all_n.rows[i], "result", NAN, NAN, NAN, NAN, "new", "not in base");
    free(used);
    hr_report_view_free(&c.all_b);
    hr_report_view_free(&c.all_n);
    if (c.oom) {
        free(c.rows);
        fprintf(stderr, "heapreplay compare: out of memory\n");
        return 2;
    }
    hr_compare_summary_t *s = &c.sum;
    s->base_name = base_name;
    s->new_name = new_name;
    s->exit_status = s->regressions + s->mismatches + s->missing > 0;
    for (int i = 0; i < nm; i++)
        if (c.drift[i] != 1) {
            s->drift_name[s->ndrift] = m[i].name;
            s->drift[s->ndrift++] = c.drift[i];
        }
    hr_compare_sort(c.rows, c.nrows);
    hr_compare_render(c.rows, c.nrows, s, opt, out, stderr);
    free(c.rows);
    fflush(out);
    return s->exit_status;
}

/* A report compared with itself (the same file, or a copy: every replay
 * writes its own creation time, so two runs never give identical content)
 * passes and checks nothing, which a CI job that names the wrong file would
 * never notice. Returns what to say, or NULL. */
static const char *same_report(const char *bp, const hr_json_t *b, const char *np,
                               const hr_json_t *n) {
    struct stat sb, sn;
    if (stat(bp, &sb) == 0 && stat(np, &sn) == 0 && sb.st_dev == sn.st_dev &&
        sb.st_ino == sn.st_ino)
        return "the same file";
    char *tb = hr_json_to_string(b, 1);
    char *tn = tb ? hr_json_to_string(n, 1) : NULL;
    int same = tb && tn && strcmp(tb, tn) == 0;
    free(tb);
    free(tn);
    return same ? "identical reports" : NULL;
}

int hr_compare_files(const char *base_path, const char *new_path, const hr_compare_options_t *opt,
                     FILE *out, FILE *errf) {
    hr_compare_metric_t m[HR_COMPARE_MAX_METRICS];
    hr_error_t err;
    if (opt->max_regress &&
        hr_compare_parse_thresholds(opt->max_regress, m, HR_COMPARE_MAX_METRICS, &err) < 0) {
        fprintf(errf, "heapreplay compare: %s\n", err.msg);
        return 2;
    }
    hr_json_t *b = hr_report_load(base_path, &err);
    if (!b) {
        fprintf(errf, "heapreplay compare: %s\n", err.msg);
        return 2;
    }
    hr_json_t *n = hr_report_load(new_path, &err);
    if (!n) {
        fprintf(errf, "heapreplay compare: %s\n", err.msg);
        hr_json_free(b);
        return 2;
    }
    const char *same = same_report(base_path, b, new_path, n);
    int rc = hr_compare_reports(b, base_path, n, new_path, opt, out);
    /* after the verdict, and not when memory ran out (the command then fails
     * with one line: hr_outfile_oom) */
    if (same && rc != 2 && !hr_outfile_oom())
        fprintf(errf, "heapreplay compare: warning: %s and %s are %s: the comparison checks "
                "nothing\n", base_path, new_path, same);
    hr_json_free(b);
    hr_json_free(n);
    return rc;
}
