/* heapreplay replay and the engine's pools (pool ops, annotate.h's
 * hr_alloc_named): `--pool NAME=ALLOC` routes a pool's blocks to an in-house
 * allocator by putting an ALLOC@NAME part in front of every -a spec (a
 * composition, backends/compose.h); a pool without a route is replayed as
 * plain malloc calls of the row's allocator (the default, said on stderr
 * and in the report). Before any replay process sees the trace, its pool ops
 * are lowered to alloc/free/realloc (hr_trace_lower_pools). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/replay_int.h"
#include "backends/spec.h"

int hr_pool_route_add(hr_pool_routes_t *pr, const hr_optarg_t *o) {
    const char *eq = strchr(o->arg, '=');
    if (!eq || eq == o->arg || !eq[1])
        return hr_opt_bad(o, "NAME=ALLOC");
    size_t nlen = (size_t)(eq - o->arg);
    if (nlen >= sizeof pr->r[0].name || strcspn(o->arg, "+@,=") < nlen)
        return hr_opt_bad(o, "a pool NAME of at most 63 bytes without '+', '@', ','");
    if (pr->n == HR_POOL_ROUTES_MAX)
        return hr_cli_usage_error(o->cmd->name, "at most %d --pool options", HR_POOL_ROUTES_MAX);
    const char *alloc = eq + 1;
    if (!hr_alloc_spec_pool_alloc_ok(alloc) || strlen(alloc) >= sizeof pr->r[0].alloc)
        return hr_opt_bad(o, "NAME=ALLOC with ALLOC one of malloc, stack, marker, block, bank, "
                             "sizeclass (with its options, e.g. bank:round=16)");
    for (int i = 0; i < pr->n; i++)
        if (strlen(pr->r[i].name) == nlen && strncmp(pr->r[i].name, o->arg, nlen) == 0)
            return hr_cli_usage_error(o->cmd->name, "pool '%.*s' routed twice", (int)nlen, o->arg);
    snprintf(pr->r[pr->n].name, sizeof pr->r[0].name, "%.*s", (int)nlen, o->arg);
    snprintf(pr->r[pr->n].alloc, sizeof pr->r[0].alloc, "%s", alloc);
    pr->n++;
    return 0;
}

/* The route of a pool: its ALLOC, or NULL (plain malloc). */
static const char *route_of(const hr_pool_routes_t *pr, const char *name) {
    for (int i = 0; i < pr->n; i++)
        if (strcmp(pr->r[i].name, name) == 0)
            return strcmp(pr->r[i].alloc, "malloc") == 0 ? NULL : pr->r[i].alloc;
    return NULL;
}

int hr_pool_routes_apply(const hr_pool_routes_t *pr, hr_alloc_spec_t *specs, int n) {
    for (int s = 0; s < n; s++) {
        hr_error_t err = {{0}};
        if (hr_alloc_spec_route_pools(&specs[s], pr, &err) != 0)
            return hr_cli_usage_error("replay", "--pool with -a %s: %s", specs[s].text, err.msg);
    }
    return 0;
}

int hr_pool_prepare(const hr_pool_routes_t *pr, hr_trace_t *t, const char *path, int quiet,
                    hr_pool_info_t *pi, hr_error_t *err) {
    memset(pi, 0, sizeof *pi);
    pi->routes = pr;
    pi->t = t;
    if ((pi->n = hr_trace_pools(t, &pi->stats)) < 0) {
        hr_error_set(err, "%s: out of memory", path);
        return -1;
    }
    if (hr_trace_lower_pools(t, err) < 0)
        return -1;
    for (int i = 0; i < pr->n; i++) { /* a route to a pool the trace lacks: say so */
        int found = 0;
        for (int k = 0; k < pi->n && !found; k++)
            found = strcmp(t->strings[pi->stats[k].name], pr->r[i].name) == 0;
        if (!found && !quiet)
            fprintf(stderr, "heapreplay replay: %s: no pool '%s' (--pool); its route is unused\n",
                    path, pr->r[i].name);
    }
    if (!pi->n || quiet)
        return 0;
    fprintf(stderr, "heapreplay replay: %s: pools", path);
    for (int k = 0; k < pi->n; k++) {
        const char *name = t->strings[pi->stats[k].name], *r = route_of(pr, name);
        fprintf(stderr, "%s %s -> %s", k ? ";" : "", name, r ? r : "plain malloc (default)");
    }
    fputs("; --pool NAME=ALLOC routes a pool to an in-house allocator\n", stderr);
    return 0;
}

hr_json_t *hr_pool_json(const hr_pool_info_t *pi) {
    if (!pi->n)
        return NULL;
    hr_json_t *arr = hr_json_new_array();
    for (int k = 0; arr && k < pi->n; k++) {
        const hr_pool_stat_t *s = &pi->stats[k];
        const char *name = pi->t->strings[s->name], *r = route_of(pi->routes, name);
        hr_json_t *o = hr_json_new_object();
        hr_json_set(o, "name", hr_json_new_str(name));
        hr_json_set(o, "allocs", hr_json_new_u64(s->allocs));
        hr_json_set(o, "frees", hr_json_new_u64(s->frees));
        hr_json_set(o, "reallocs", hr_json_new_u64(s->reallocs));
        hr_json_set(o, "bytes", hr_json_new_u64(s->bytes));
        hr_json_set(o, "peak_live_bytes", hr_json_new_u64(s->peak_live));
        hr_json_set(o, "replayed_as", hr_json_new_str(r ? r : "malloc"));
        hr_json_push(arr, o);
    }
    return arr;
}

void hr_pool_info_free(hr_pool_info_t *pi) {
    free(pi->stats);
    pi->stats = NULL;
    pi->n = 0;
}
