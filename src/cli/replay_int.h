/* heapreplay replay's pieces (src/cli/): cmd_replay.c runs the replays,
 * replay_args.c holds the option table and reads the arguments,
 * replay_pools.c handles the engine's pools (--pool NAME=ALLOC). */
#ifndef HR_CLI_REPLAY_INT_H
#define HR_CLI_REPLAY_INT_H

#include "backends/spec.h"
#include "cli/cli.h"
#include "base/emit.h"
#include "base/json.h"
#include "trace/trace.h"
#include "trace/threadsel.h"
#include "replay/engine.h"
#include "report/merge.h"
#include "report/builder.h"
#include "report/report.h"

typedef struct replay_args {
    hr_replay_options_t opt;
    char *allocators; /* every -a joined by commas; NULL: all */
    const char *output;
    hr_emit_format_t out_format; /* of -o's file: by its extension, else JSON */
    hr_emit_format_t format;
    int pair;        /* --pair: paired A/B of the two allocators (report/paired.h) */
    double pair_tol; /* --pair-tol, percent */
    hr_render_opts_t render; /* --detail */
    int quiet, verbose;
    hr_pool_routes_t pools;
    /* --plan FILE (replay_route.c): the routing plan read, and the pools it
     * routes blocks into with their in-house allocators; NULL without. */
    struct hr_route_plan_file *route;
    hr_pool_routes_t route_pools;
    hr_shard_t shard; /* --shard K/N; n == 0: the whole matrix */
    hr_threadsel_t threads; /* --thread ID,...; n == 0: every thread */
    const char *threads_arg; /* its text, for the report's options */
    char **paths;
    int npaths, cap_paths;
} replay_args_t;

/* Reads the options and operands into *a (zeroed first). Returns 0, 1 when
 * --help was printed (exit 0), or 2 after a usage error. */
int hr_replay_parse_args(int argc, char **argv, replay_args_t *a);
/* Expands "all" and parses every spec of the -a list (NULL: all) into
 * *specs (malloc'd; hr_replay_specs_free). 0, or 2 after a usage error. */
int hr_replay_expand_allocators(const char *list, hr_alloc_spec_t **specs, int *n, int quiet);
void hr_replay_specs_free(hr_alloc_spec_t *specs, int n);

/* One trace's pools (before lowering) and the routes, for the report. */
typedef struct hr_pool_info {
    const hr_pool_routes_t *routes;
    const hr_trace_t       *t;
    hr_pool_stat_t         *stats;
    int                     n;
} hr_pool_info_t;

/* --pool NAME=ALLOC; 0, or 2 after a usage error. */
int hr_pool_route_add(hr_pool_routes_t *pr, const hr_optarg_t *o);
/* Puts ALLOC@NAME+ in front of every spec (each replaced by the routed
 * one); 0, or 2 after a usage error (e.g. more than 4 parts). */
int hr_pool_routes_apply(const hr_pool_routes_t *pr, hr_alloc_spec_t *specs, int n);
/* Sums t's pools into pi, lowers its pool ops, and (unless quiet) says on
 * stderr where each pool goes. 0, or -1 with err set. */
int hr_pool_prepare(const hr_pool_routes_t *pr, hr_trace_t *t, const char *path, int quiet,
                    hr_pool_info_t *pi, hr_error_t *err);
/* The "pools" array of a result (NULL when the trace has no pool). */
hr_json_t *hr_pool_json(const hr_pool_info_t *pi);
void hr_pool_info_free(hr_pool_info_t *pi);

/* The report's "startup" section (replay_startup.c): each external
 * allocator's process start-up against the C library's, measured once per
 * run when specs hold one; a measurement that fails is a note on stderr
 * (unless quiet), never a failed replay. Returns 0. */
int hr_replay_startup_section(const hr_alloc_spec_t *specs, int nspecs, hr_report_builder_t *rb,
                              int quiet);

/* The report's "startup" section (replay_startup.c): each external
 * allocator's process start-up against the C library's, measured once per
 * run when specs hold one; a measurement that fails is a note on stderr
 * (unless quiet), never a failed replay. Returns 0. */
int hr_replay_startup_section(const hr_alloc_spec_t *specs, int nspecs, hr_report_builder_t *rb,
                              int quiet);

/* --plan FILE (replay_route.c): reads the plan into a->route and its pools'
 * allocators into a->route_pools; 0, or 2 after an error (one line). */
int hr_replay_route_load(replay_args_t *a, const hr_optarg_t *o);
/* Each -a spec X becomes three rows: X alone, X behind the plan's in-house
 * allocators, and X behind the oracle composition stack+marker+bank+X.
 * 0, or 2 after a usage error. */
int hr_replay_route_specs(const replay_args_t *a, hr_alloc_spec_t **specs, int *n);
/* Routes a decoded trace by the plan (before its pools are lowered) and,
 * unless quiet, prints each rule's blocks and violations on stderr. */
int hr_replay_route_prepare(const replay_args_t *a, hr_trace_t *t, const char *path,
                            hr_error_t *err);
/* The "routing" object of each row: the plan's rules and their counts. */
hr_json_t *hr_replay_route_json(const replay_args_t *a);
void hr_replay_route_free(replay_args_t *a);
/* The "sites" array of a row (the top 10 call sites, docs/SITES.md) of a
 * decoded trace with stacks; NULL without stacks (or out of memory). */
hr_json_t *hr_replay_sites_json(const hr_trace_t *t);

#endif
