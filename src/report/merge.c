/* Shards and merging (see merge.h for the contract). */
#include "report/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/access.h"
#include "report/predict.h"

/* ---- shards ------------------------------------------------------------ */

int hr_shard_parse(const char *s, hr_shard_t *out) {
    char *end;
    if (!s || *s < '0' || *s > '9')
        return -1;
    long k = strtol(s, &end, 10);
    if (*end != '/' || end[1] < '0' || end[1] > '9')
        return -1;
    long n = strtol(end + 1, &end, 10);
    if (*end || n < 1 || n > HR_SHARD_MAX || k < 1 || k > n)
        return -1;
    out->k = (int)k;
    out->n = (int)n;
    return 0;
}

typedef struct cell {
    const char *trace, *alloc;
    int index;
} cell_t;

static int cell_cmp(const void *x, const void *y) {
    const cell_t *a = x, *b = y;
    int c = strcmp(a->trace, b->trace);
    if (!c)
        c = strcmp(a->alloc, b->alloc);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

int hr_shard_assign(const char *const *traces, int ntraces, const char *const *allocs, int nallocs,
                    int n, int *shard_of) {
    size_t cells = (size_t)ntraces * (size_t)nallocs;
    cell_t *c = calloc(cells + 1, sizeof *c);
    if (!c)
        return -1;
    for (int t = 0; t < ntraces; t++)
        for (int a = 0; a < nallocs; a++) {
            cell_t *e = &c[(size_t)t * (size_t)nallocs + (size_t)a];
            e->trace = traces[t];
            e->alloc = allocs[a];
            e->index = t * nallocs + a;
        }
    qsort(c, cells, sizeof *c, cell_cmp);
    /* round r = j / n deals its n cells to the shards rotated by r: each
     * round gives every shard one cell (a partition, balanced within one
     * cell), and when the allocators of a trace number n the rotation keeps
     * one allocator (or trace) from landing on one shard */
    for (size_t j = 0; j < cells; j++)
        shard_of[c[j].index] = (int)((j % (size_t)n + j / (size_t)n) % (size_t)n) + 1;
    free(c);
    return 0;
}

static hr_json_t *str_array(const char *const *v, int n) {
    hr_json_t *arr = hr_json_new_array();
    for (int i = 0; arr && i < n; i++)
        if (hr_json_push(arr, hr_json_new_str(v[i])) != 0) {
            hr_json_free(arr);
            return NULL;
        }
    return arr;
}

hr_json_t *hr_shard_matrix(const char *const *traces, int ntraces, const char *const *allocs,
                           int nallocs) {
    hr_json_t *m = hr_json_new_object();
    if (!m || hr_json_set(m, "traces", str_array(traces, ntraces)) != 0 ||
        hr_json_set(m, "allocators", str_array(allocs, nallocs)) != 0) {
        hr_json_free(m);
        return NULL;
    }
    return m;
}

/* ---- JSON equality ------------------------------------------------------- */

int hr_merge_json_equal(const hr_json_t *a, const hr_json_t *b) {
    hr_json_type_t t = hr_json_type(a);
    if (t != hr_json_type(b))
        return 0;
    switch (t) {
    case HR_JSON_NULL: return 1;
    case HR_JSON_BOOL: return !a->boolean == !b->boolean;
    case HR_JSON_NUMBER:
        if (a->is_u64 && b->is_u64)
            return a->u64 == b->u64;
        if (a->is_i64 && b->is_i64)
            return a->i64 == b->i64;
        return a->num == b->num;
    case HR_JSON_STRING: return strcmp(a->str, b->str) == 0;
    case HR_JSON_ARRAY:
        if (a->n != b->n)
            return 0;
        for (size_t i = 0; i < a->n; i++)
            if (!hr_merge_json_equal(a->items[i], b->items[i]))
                return 0;
        return 1;
    default:
        if (a->n != b->n)
            return 0;
        for (size_t i = 0; i < a->n; i++) {
            const hr_json_t *o = hr_json_get(b, a->keys[i]);
            if (!o || !hr_merge_json_equal(a->items[i], o))
                return 0;
        }
        return 1;
    }
}

/* ---- merging ------------------------------------------------------------- */

hr_merge_options_t hr_merge_options_default(void) {
    hr_merge_options_t o = {0};
    return o;
}

/* One input: its shard and where it came from. */
typedef struct input {
    const hr_json_t *doc;
    const char      *name;
    hr_shard_t       shard;
    hr_report_view_t v; /* its results, decoded once */
} input_t;

static int input_cmp(const void *x, const void *y) {
    const input_t *a = x, *b = y;
    return (a->shard.k > b->shard.k) - (a->shard.k < b->shard.k);
}

/* `what` of a, compact and cut to fit a message. */
static void short_json(const hr_json_t *v, char *buf, size_t n) {
    char *s = v ? hr_json_to_string(v, 1) : NULL;
    snprintf(buf, n, "%.60s%s", s ? s : "(absent)", s && strlen(s) > 60 ? "..." : "");
    free(s);
}

/* The first key of options a or b (shard aside) whose values differ, or
 * NULL when they agree. */
static const char *options_differ(const hr_json_t *a, const hr_json_t *b) {
    for (int side = 0; side < 2; side++) {
        const hr_json_t *x = side ? b : a, *y = side ? a : b;
        for (size_t i = 0; i < hr_json_len(x); i++) {
            const char *k = hr_json_key_at(x, i);
            if (strcmp(k, "shard") != 0 && !hr_merge_json_equal(hr_json_at(x, i), hr_json_get(y, k)))
                return k;
        }
    }
    if (hr_json_type(a) != hr_json_type(b))
        return "(options)";
    return NULL;
}

/* Checks input `in` against the first one (ref): version, schema, options,
 * matrix, shard count. 0, or -1 with err. */
static int check_against(const input_t *in, const input_t *ref, hr_error_t *err) {
    const char *tv = hr_json_path_str(in->doc, "tool_version"),
               *rv = hr_json_path_str(ref->doc, "tool_version");
    if (!tv || !rv || strcmp(tv, rv) != 0) {
        hr_error_set(err, "%s: tool_version \"%s\", expected \"%s\" as in %s (shards must come "
                     "from one heapreplay build)", in->name, tv ? tv : "?", rv ? rv : "?",
                     ref->name);
        return -1;
    }
    if (!hr_merge_json_equal(hr_json_get(in->doc, "schema_version"),
                       hr_json_get(ref->doc, "schema_version"))) {
        hr_error_set(err, "%s: schema_version %.0f, expected %.0f as in %s", in->name,
                     hr_json_path_num(in->doc, "schema_version"),
                     hr_json_path_num(ref->doc, "schema_version"), ref->name);
        return -1;
    }
    const hr_json_t *oi = hr_json_get(in->doc, "options"), *or = hr_json_get(ref->doc, "options");
    const char *k = options_differ(oi, or);
    if (k) {
        char a[80], b[80];
        short_json(hr_json_get(oi, k), a, sizeof a);
        short_json(hr_json_get(or, k), b, sizeof b);
        hr_error_set(err, "%s: option %s is %s, expected %s as in %s (shards must be replayed "
                     "with the same options)", in->name, k, a, b, ref->name);
        return -1;
    }
    if (!hr_merge_json_equal(hr_json_get(in->doc, "matrix"), hr_json_get(ref->doc, "matrix"))) {
        hr_error_set(err, "%s: its \"matrix\" (traces x allocators) differs from %s's (shards "
                     "must be replayed with the same traces and -a list)", in->name, ref->name);
        return -1;
    }
    if (in->shard.n != ref->shard.n) {
        hr_error_set(err, "%s: shard %d/%d, expected one of %d shards as in %s", in->name,
                     in->shard.k, in->shard.n, ref->shard.n, ref->name);
        return -1;
    }
    if (in->shard.k == ref->shard.k && in != ref) {
        hr_error_set(err, "%s: shard %d/%d given twice (also %s)", in->name, in->shard.k,
                     in->shard.n, ref->name);
        return -1;
    }
    return 0;
}

/* Every result's trace digest agrees across inputs, and no (trace,
 * allocator) is present twice. 0, or -1 with err. */
static int check_results(const input_t *in, int n, hr_error_t *err) {
    for (int i = 0; i < n; i++) {
        for (size_t a = 0; a < in[i].v.n; a++) {
            const hr_result_t *x = &in[i].v.rows[a];
            const char *tx = x->trace, *ax = x->allocator, *dx = x->trace_digest;
            for (int j = 0; j <= i; j++) {
                for (size_t b = 0; b < (j == i ? a : in[j].v.n); b++) {
                    const hr_result_t *y = &in[j].v.rows[b];
                    const char *dy = y->trace_digest;
                    if (strcmp(tx, y->trace) != 0)
                        continue;
                    if (dx && dy && strcmp(dx, dy) != 0) {
                        hr_error_set(err, "%s: trace %s has digest %s, but %s in %s (shards "
                                     "replayed different traces)", in[i].name, tx, dx, dy,
                                     in[j].name);
                        return -1;
                    }
                    if (strcmp(ax, y->allocator) == 0) {
                        hr_error_set(err, "%s: the result of %s on %s is also in %s (shards "
                                     "overlap)", in[i].name, tx, ax, in[j].name);
                        return -1;
                    }
                }
            }
        }
    }
    return 0;
}

/* Position of string s in the JSON string array arr, or its length. */
static size_t index_in(const hr_json_t *arr, const char *s) {
    size_t i = 0;
    for (; i < hr_json_len(arr); i++)
        if (strcmp(hr_json_str(hr_json_at(arr, i)) ? hr_json_str(hr_json_at(arr, i)) : "", s) == 0)
            break;
    return i;
}

typedef struct placed {
    const hr_json_t *r;
    size_t trace, alloc, seq; /* matrix positions, then input order */
} placed_t;

static int placed_cmp(const void *x, const void *y) {
    const placed_t *a = x, *b = y;
    if (a->trace != b->trace)
        return a->trace < b->trace ? -1 : 1;
    if (a->alloc != b->alloc)
        return a->alloc < b->alloc ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* The results of every input, cloned whole, in matrix order. */
static hr_json_t *merged_results(const input_t *in, int n) {
    const hr_json_t *m = hr_json_get(in[0].doc, "matrix");
    size_t total = 0, k = 0;
    for (int i = 0; i < n; i++)
        total += in[i].v.n;
    placed_t *p = calloc(total + 1, sizeof *p);
    hr_json_t *out = hr_json_new_array();
    if (!p || !out) {
        free(p);
        hr_json_free(out);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        for (size_t a = 0; a < in[i].v.n; a++, k++) {
            const hr_result_t *r = &in[i].v.rows[a];
            p[k].r = r->json;
            p[k].trace = index_in(hr_json_get(m, "traces"), r->trace);
            p[k].alloc = index_in(hr_json_get(m, "allocators"), r->allocator);
            p[k].seq = k;
        }
    }
    qsort(p, total, sizeof *p, placed_cmp);
    for (size_t j = 0; j < total; j++)
        if (hr_json_push(out, hr_json_clone(p[j].r)) != 0) {
            hr_json_free(out);
            out = NULL;
            break;
        }
    free(p);
    return out;
}

/* The "merged" object: the shards joined, their files, machines and times,
 * and the missing ones. */
static hr_json_t *merged_info(const input_t *in, int n, int partial) {
    hr_json_t *o = hr_json_new_object(), *shards = hr_json_new_array(),
              *missing = hr_json_new_array();
    char label[32];
    hr_json_set(o, "count", hr_json_new_u64((uint64_t)in[0].shard.n));
    for (int i = 0; i < n; i++) {
        hr_json_t *s = hr_json_new_object();
        snprintf(label, sizeof label, "%d/%d", in[i].shard.k, in[i].shard.n);
        hr_json_set(s, "shard", hr_json_new_str(label));
        hr_json_set(s, "file", hr_json_new_str(in[i].name));
        hr_json_set(s, "created", hr_json_new_str(hr_json_path_str(in[i].doc, "created")));
        hr_json_set(s, "hostname", hr_json_new_str(hr_json_path_str(in[i].doc, "machine.hostname")));
        hr_json_set(s, "results", hr_json_new_u64(hr_json_len(hr_json_get(in[i].doc, "results"))));
        hr_json_push(shards, s);
    }
    for (int k = 1, i = 0; k <= in[0].shard.n; k++) {
        while (i < n && in[i].shard.k < k)
            i++;
        if (i < n && in[i].shard.k == k)
            continue;
        snprintf(label, sizeof label, "%d/%d", k, in[0].shard.n);
        hr_json_push(missing, hr_json_new_str(label));
    }
    hr_json_set(o, "shards", shards);
    hr_json_set(o, "partial", hr_json_new_bool(partial && hr_json_len(missing) > 0));
    hr_json_set(o, "missing", missing);
    return o;
}

/* "2/3, 3/3" for the error about missing shards. */
static void missing_list(const hr_json_t *missing, char *buf, size_t cap) {
    size_t l = 0;
    buf[0] = 0;
    for (size_t i = 0; i < hr_json_len(missing) && l + 16 < cap; i++)
        l += (size_t)snprintf(buf + l, cap - l, "%s%s", i ? ", " : "",
                              hr_json_str(hr_json_at(missing, i)));
}

/* The merged document: the first shard's top level with the options minus
 * "shard", the merged results, "merged"; "interrupted" if any shard was. */
static hr_json_t *assemble(const input_t *in, int n, hr_json_t *results, hr_json_t *info) {
    const hr_json_t *ref = in[0].doc;
    hr_json_t *doc = hr_json_new_object(), *opts = hr_json_new_object();
    const hr_json_t *o = hr_json_get(ref, "options");
    for (size_t i = 0; i < hr_json_len(o); i++)
        if (strcmp(hr_json_key_at(o, i), "shard") != 0)
            hr_json_set(opts, hr_json_key_at(o, i), hr_json_clone(hr_json_at(o, i)));
    for (size_t i = 0; i < hr_json_len(ref); i++) {
        const char *k = hr_json_key_at(ref, i);
        if (strcmp(k, "options") == 0)
            hr_json_set(doc, k, opts), opts = NULL;
        else if (strcmp(k, "results") == 0)
            hr_json_set(doc, k, results), results = NULL;
        else
            hr_json_set(doc, k, hr_json_clone(hr_json_at(ref, i)));
    }
    for (int i = 1; i < n && !hr_json_get(doc, "interrupted"); i++)
        if (hr_json_get(in[i].doc, "interrupted"))
            hr_json_set(doc, "interrupted", hr_json_clone(hr_json_get(in[i].doc, "interrupted")));
    if (opts)
        hr_json_set(doc, "options", opts);
    if (results)
        hr_json_set(doc, "results", results);
    hr_json_set(doc, "merged", info);
    /* A row's predicted change is against its trace's glibc row, which may
     * have come from another shard: recompute it over the merged rows. */
    hr_report_predict(doc);
    return doc;
}

hr_json_t *hr_merge_reports(const hr_json_t *const *docs, const char *const *names, int n,
                            const hr_merge_options_t *opt, hr_error_t *err) {
    input_t *in = calloc((size_t)n + 1, sizeof *in);
    hr_json_t *doc = NULL;
    if (!in || n < 1) {
        hr_error_set(err, n < 1 ? "expected at least one shard report" : "out of memory");
        free(in);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        in[i].doc = docs[i];
        in[i].name = names[i];
        if (hr_report_view_init(&in[i].v, docs[i]) < 0) {
            hr_error_set(err, "out of memory");
            goto out;
        }
        if (hr_shard_parse(hr_json_path_str(docs[i], "options.shard"), &in[i].shard) != 0) {
            hr_error_set(err, "%s: expected a shard report (\"options.shard\": \"K/N\", from "
                         "replay --shard K/N)", names[i]);
            goto out;
        }
    }
    qsort(in, (size_t)n, sizeof *in, input_cmp);
    for (int i = 0; i < n; i++)
        if (check_against(&in[i], i ? &in[i - 1] : &in[0], err) != 0 ||
            check_against(&in[i], &in[0], err) != 0)
            goto out;
    if (check_results(in, n, err) != 0)
        goto out;
    hr_json_t *info = merged_info(in, n, opt->partial);
    const hr_json_t *missing = hr_json_get(info, "missing");
    if (hr_json_len(missing) && !opt->partial) {
        char list[256];
        missing_list(missing, list, sizeof list);
        hr_error_set(err, "missing shard%s %s of %d (give every shard's report, or --partial)",
                     hr_json_len(missing) > 1 ? "s" : "", list, in[0].shard.n);
        hr_json_free(info);
        goto out;
    }
    hr_json_t *results = merged_results(in, n);
    if (!results) {
        hr_error_set(err, "out of memory");
        hr_json_free(info);
        goto out;
    }
    doc = assemble(in, n, results, info);
out:
    for (int i = 0; i < n; i++)
        hr_report_view_free(&in[i].v);
    free(in);
    return doc;
}
