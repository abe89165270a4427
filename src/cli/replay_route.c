/* heapreplay replay --plan PLAN: a routing plan by call site proven by
 * replay (docs/SITES.md). The plan (replay/route.h) turns each routed block
 * of the trace into a block of one of three engine pools before the trace
 * is shared; the pools are then served as `--pool NAME=ALLOC` serves an
 * engine's own pools, by in-house parts in front of the row's allocator
 * (backends/compose.h). Each -a allocator X gives three rows on the same
 * routed trace: X alone (pool blocks are plain malloc calls of X), X behind
 * the plan's parts, and X behind the oracle composition, whose parts take
 * blocks by what the whole trace says of them (their future). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/replay_int.h"
#include "replay/route.h"
#include "report/sites.h"

#define ORACLE_PARTS "stack+marker+bank+"

int hr_replay_route_load(replay_args_t *a, const hr_optarg_t *o) {
    hr_error_t err = {{0}};
    if (a->route)
        return hr_cli_usage_error("replay", "one --plan at most");
    if (!(a->route = malloc(sizeof *a->route)))
        return hr_cli_usage_error("replay", "out of memory");
    hr_route_plan_init(a->route);
    if (hr_route_plan_read(o->arg, a->route, &err) != 0) {
        fprintf(stderr, "heapreplay replay: %s\n", err.msg);
        return 2;
    }
    return 0;
}

/* The plan's pools and their parts after the user's own --pool routes. */
static int route_pools(replay_args_t *a) {
    static const char *const names[] = {HR_ROUTE_POOL_STACK, HR_ROUTE_POOL_CELLS,
                                        HR_ROUTE_POOL_LEVEL};
    hr_pool_routes_t *pr = &a->route_pools;
    *pr = a->pools;
    for (unsigned r = 0; r < 3; r++) {
        if (pr->n == HR_POOL_ROUTES_MAX)
            return hr_cli_usage_error("replay", "--plan with --pool: at most %d pools in "
                                      "all (a composition has 4 parts)", HR_POOL_ROUTES_MAX);
        snprintf(pr->r[pr->n].name, sizeof pr->r[0].name, "%s", names[r]);
        hr_route_part_spec(a->route, r, pr->r[pr->n].alloc, sizeof pr->r[0].alloc);
        pr->n++;
    }
    return 0;
}

int hr_replay_route_specs(const replay_args_t *ca, hr_alloc_spec_t **specs, int *n) {
    replay_args_t *a = (replay_args_t *)ca; /* route_pools is filled here */
    int rc = route_pools(a);
    hr_alloc_spec_t *out = rc ? NULL : calloc((size_t)*n * 3, sizeof *out);
    int k = 0;
    if (!rc && !out)
        rc = hr_cli_usage_error("replay", "out of memory");
    for (int s = 0; !rc && s < *n; s++) {
        hr_error_t err = {{0}};
        char oracle[512];
        const char *x = (*specs)[s].text;
        snprintf(oracle, sizeof oracle, ORACLE_PARTS "%s", x);
        if (hr_alloc_spec_parse(x, &out[k], &err) != 0 ||
            hr_alloc_spec_route_pools(&out[k], &a->pools, &err) != 0 ||
            (k++, hr_alloc_spec_parse(x, &out[k], &err)) != 0 ||
            hr_alloc_spec_route_pools(&out[k], &a->route_pools, &err) != 0 ||
            (k++, hr_alloc_spec_parse(oracle, &out[k], &err)) != 0) {
            rc = hr_cli_usage_error("replay", "--plan with -a %s: %s", x, err.msg);
            break;
        }
        k++;
    }
    hr_replay_specs_free(*specs, *n);
    if (rc) {
        hr_replay_specs_free(out, k);
        *specs = NULL;
        *n = 0;
        return rc;
    }
    *specs = out;
    *n = k;
    return 0;
}

int hr_replay_route_prepare(const replay_args_t *a, hr_trace_t *t, const char *path,
                            hr_error_t *err) {
    hr_route_plan_file_t *p = a->route;
    for (uint32_t r = 0; r < p->n; r++) { /* a trace at a time */
        hr_route_rule_t *u = &p->rules[r];
        u->blocks = u->routed = u->violations = 0;
        u->outlived = u->not_lifo = u->wrong_size = u->resized = 0;
    }
    if (!t->stacks || !t->site) {
        hr_error_set(err, "%s: --plan needs a trace with stacks (capture --stacks; "
                     "docs/SITES.md)", path);
        return -1;
    }
    if (hr_route_apply(t, p, err) != 0)
        return -1;
    if (a->quiet)
        return 0;
    fprintf(stderr, "heapreplay replay: %s: routing plan\n", path);
    for (uint32_t r = 0; r < p->n; r++) {
        const hr_route_rule_t *u = &p->rules[r];
        fprintf(stderr, "  %-11s %-32s %llu blocks, %llu routed, %llu violations", hr_route_name(u->route),
                u->pattern, (unsigned long long)u->blocks, (unsigned long long)u->routed,
                (unsigned long long)u->violations);
        if (u->violations)
            fprintf(stderr, " (outlived frame %llu, not LIFO %llu, wrong size %llu, resized "
                    "%llu; served by the general allocator)", (unsigned long long)u->outlived,
                    (unsigned long long)u->not_lifo, (unsigned long long)u->wrong_size,
                    (unsigned long long)u->resized);
        fputc('\n', stderr);
    }
    return 0;
}

hr_json_t *hr_replay_route_json(const replay_args_t *a) {
    const hr_route_plan_file_t *p = a->route;
    hr_json_t *o = hr_json_new_object(), *rules = hr_json_new_array();
    if (!o || !rules) {
        hr_json_free(o);
        hr_json_free(rules);
        return NULL;
    }
    for (uint32_t r = 0; r < p->n; r++) {
        const hr_route_rule_t *u = &p->rules[r];
        hr_json_t *j = hr_json_new_object();
        hr_json_set(j, "route", hr_json_new_str(hr_route_name(u->route)));
        if (u->route == HR_ROUTE_POOL)
            hr_json_set(j, "cell", hr_json_new_u64(u->cell));
        hr_json_set(j, "pattern", hr_json_new_str(u->pattern));
        hr_json_set(j, "blocks", hr_json_new_u64(u->blocks));
        hr_json_set(j, "routed", hr_json_new_u64(u->routed));
        hr_json_set(j, "violations", hr_json_new_u64(u->violations));
        hr_json_set(j, "outlived_frame", hr_json_new_u64(u->outlived));
        hr_json_set(j, "not_lifo", hr_json_new_u64(u->not_lifo));
        hr_json_set(j, "wrong_size", hr_json_new_u64(u->wrong_size));
        hr_json_set(j, "resized", hr_json_new_u64(u->resized));
        hr_json_push(rules, j);
    }
    hr_json_set(o, "rules", rules);
    return o;
}

void hr_replay_route_free(replay_args_t *a) {
    if (!a->route)
        return;
    hr_route_plan_free(a->route);
    free(a->route);
    a->route = NULL;
}

hr_json_t *hr_replay_sites_json(const hr_trace_t *t) {
    hr_sites_opts_t o = hr_sites_opts_default();
    hr_sites_t s;
    hr_error_t err = {{0}};
    if (!t->stacks || !t->site || hr_sites_compute(t, &o, &s, &err) != 0)
        return NULL;
    hr_json_t *j = hr_sites_json(t, &s, 10);
    hr_sites_free(&s);
    return j;
}
