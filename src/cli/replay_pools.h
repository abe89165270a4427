/* replay and the engine's pools: --pool NAME=ALLOC routes (replay_pools.c). */
#ifndef HR_CLI_REPLAY_POOLS_H
#define HR_CLI_REPLAY_POOLS_H

#include "cli/cli.h"
#include "base/json.h"
#include "heapreplay/trace.h"

#define HR_POOL_ROUTES_MAX 3 /* a composition has at most 4 parts: 3 pools + the row's */

typedef struct hr_pool_routes {
    int n;
    struct {
        char name[64];  /* the pool */
        char alloc[64]; /* "bank", "bank:round=16", or "malloc" (the default) */
    } r[HR_POOL_ROUTES_MAX];
} hr_pool_routes_t;

/* One trace's pools (before lowering) and the routes, for the report. */
typedef struct hr_pool_info {
    const hr_pool_routes_t *routes;
    const hr_trace_t       *t;
    hr_pool_stat_t         *stats;
    int                     n;
} hr_pool_info_t;

/* --pool NAME=ALLOC; 0, or 2 after a usage error. */
int hr_pool_route_add(hr_pool_routes_t *pr, const hr_optarg_t *o);
/* Puts ALLOC@NAME+ in front of every spec (specs[] are malloc'd and
 * replaced); 0, or 2 after a usage error (e.g. more than 4 parts). */
int hr_pool_routes_apply(const hr_pool_routes_t *pr, char **specs, int n);
/* Sums t's pools into pi, lowers its pool ops, and (unless quiet) says on
 * stderr where each pool goes. 0, or -1 with err set. */
int hr_pool_prepare(const hr_pool_routes_t *pr, hr_trace_t *t, const char *path, int quiet,
                    hr_pool_info_t *pi, hr_error_t *err);
/* The "pools" array of a result (NULL when the trace has no pool). */
hr_json_t *hr_pool_json(const hr_pool_info_t *pi);
void hr_pool_info_free(hr_pool_info_t *pi);

#endif
