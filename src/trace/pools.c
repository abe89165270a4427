/* Pools: the blocks of an engine's own allocators (pool ops, HR_OPC_POOL),
 * summed per pool for `info` and the replay report, and lowered to the
 * malloc-family ops that the replay engine runs (trace.h); and named frame
 * streams, counted for `info` and lowered to marks. */
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

/* Per-id bookkeeping shared by both walks: the pool of each live block
 * (string index + 1; 0 = malloc) and its bytes. */
typedef struct ids {
    uint32_t *pool;
    uint64_t *bytes;
} ids_t;

static int ids_init(ids_t *x, const hr_trace_t *t) {
    size_t n = t->n_ids ? t->n_ids : 1;
    x->pool = calloc(n, sizeof *x->pool);
    x->bytes = calloc(n, sizeof *x->bytes);
    if (x->pool && x->bytes)
        return 0;
    free(x->pool);
    free(x->bytes);
    return -1;
}

static void ids_free(ids_t *x) {
    free(x->pool);
    free(x->bytes);
}

/* Index of the pool named by string s in out[0..n), added if new; by_str[s]
 * holds it + 1 (a table by string index, not a search: a trace may name
 * 100 k pools). -1 on out of memory or a string index out of range. */
static int pool_slot(hr_pool_stat_t **out, int *n, int *cap, uint32_t s, int *by_str,
                     uint32_t n_strings) {
    if (s >= n_strings)
        return -1;
    if (by_str[s])
        return by_str[s] - 1;
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        hr_pool_stat_t *p = realloc(*out, (size_t)nc * sizeof *p);
        if (!p)
            return -1;
        *out = p, *cap = nc;
    }
    memset(&(*out)[*n], 0, sizeof **out);
    (*out)[*n].name = s;
    by_str[s] = *n + 1;
    return (*n)++;
}

int hr_trace_pools(const hr_trace_t *t, hr_pool_stat_t **out) {
    int n = 0, cap = 0;
    ids_t x;
    uint64_t *live = NULL;
    *out = NULL;
    if (!t->op_counts[HR_OP_POOL_ALLOC])
        return 0;
    int *by_str = calloc(t->n_strings ? t->n_strings : 1, sizeof *by_str);
    if (!by_str || ids_init(&x, t) != 0) {
        free(by_str);
        return -1;
    }
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (!hr_op_is_pool(ev->op))
            continue;
        uint32_t s = ev->op == HR_OP_POOL_ALLOC ? ev->aux
                     : x.pool[ev->op == HR_OP_POOL_FREE ? ev->id : ev->aux] - 1;
        int had = n, k = pool_slot(out, &n, &cap, s, by_str, t->n_strings);
        uint64_t *nl = k >= 0 && n > had ? realloc(live, (size_t)n * sizeof *live) : live;
        if (k < 0 || !nl) {
            free(*out);
            *out = NULL;
            n = -1;
            break;
        }
        live = nl;
        if (n > had)
            live[k] = 0;
        hr_pool_stat_t *p = &(*out)[k];
        if (ev->op != HR_OP_POOL_ALLOC) { /* the old block leaves */
            uint32_t old = ev->op == HR_OP_POOL_FREE ? ev->id : ev->aux;
            live[k] -= x.bytes[old];
            x.pool[old] = 0;
            p->frees += ev->op == HR_OP_POOL_FREE;
        }
        if (ev->op != HR_OP_POOL_FREE) {
            x.pool[ev->id] = s + 1;
            x.bytes[ev->id] = ev->size;
            live[k] += ev->size;
            p->bytes += ev->size;
            p->allocs += ev->op == HR_OP_POOL_ALLOC;
            p->reallocs += ev->op == HR_OP_POOL_REALLOC;
            if (live[k] > p->peak_live)
                p->peak_live = live[k];
        }
    }
    free(live);
    free(by_str);
    ids_free(&x);
    return n;
}

int hr_trace_streams(const hr_trace_t *t, hr_stream_stat_t **out) {
    int n = 0, cap = 0;
    *out = NULL;
    /* by_str[s]: the stream of string s + 1 (a table, not a search) */
    int *by_str = calloc(t->n_strings ? t->n_strings : 1, sizeof *by_str);
    if (!by_str)
        return -1;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (ev->op != HR_OP_FRAME || !(ev->flags & HR_EVF_HAS_OPT) || ev->aux >= t->n_strings)
            continue;
        int k = by_str[ev->aux] - 1;
        if (k < 0) {
            if (n == cap) {
                hr_stream_stat_t *p = realloc(*out, (size_t)(cap = cap ? cap * 2 : 4) * sizeof *p);
                if (!p) {
                    free(*out);
                    free(by_str);
                    *out = NULL;
                    return -1;
                }
                *out = p;
            }
            k = n++;
            (*out)[k] = (hr_stream_stat_t){ev->aux, 0};
            by_str[ev->aux] = n;
        }
        (*out)[k].frames++;
    }
    free(by_str);
    return n;
}

int64_t hr_trace_lower_pools(hr_trace_t *t, hr_error_t *err) {
    int64_t n = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        hr_event_t *ev = &t->events[i];
        switch (ev->op) {
        case HR_OP_POOL_ALLOC: /* ID SIZE STR -> alloc ID SIZE, aux = pool + 1 */
            ev->op = HR_OP_ALLOC;
            ev->aux += 1;
            ev->align = 0;
            ev->flags = 0;
            n++;
            break;
        case HR_OP_POOL_FREE: /* ID STR -> free ID, aux = pool + 1 */
            ev->op = HR_OP_FREE;
            ev->aux += 1;
            ev->flags = 0;
            n++;
            break;
        case HR_OP_POOL_REALLOC:
            ev->op = HR_OP_REALLOC;
            n++;
            break;
        case HR_OP_FRAME: /* a named stream's frame: a mark of its name */
            if (ev->flags & HR_EVF_HAS_OPT) {
                ev->op = HR_OP_MARK;
                ev->flags = 0;
                ev->size = 0;
                n++;
            }
            break;
        default:
            break;
        }
    }
    if (n && hr_trace_validate(t, "lowered trace", err) != 0)
        return -1;
    return n;
}
