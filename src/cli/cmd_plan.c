/* heapreplay plan TRACE -o PLAN: a routing plan from a trace's call sites
 * (docs/SITES.md): one rule per site the sites report recommends an in-house
 * allocator for, named by its function (stable across rebuilds), with the
 * in-house allocators' buffers sized from the trace routed by the plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/sites.h"
#include "replay/route.h"

enum { OPT_SKIP = HR_OPT_LONG, OPT_MIN_SHARE };

static const hr_opt_t plan_opts[] = {
    {'o', "output", "PLAN", "the plan file to write (required)"},
    {OPT_SKIP, "skip", "LIST", "wrapper functions passed over, as for 'heapreplay sites' "
                               "(written into the plan)"},
    {OPT_MIN_SHARE, "min-share", "PCT", "a site gets a rule only when it made at least PCT % of "
                                        "the trace's blocks or of its bytes (default 0.1; 0: every "
                                        "site); the rest stays on the general allocator"},
    HR_OPT_MAX_INPUT_ROW,
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_plan = {
    .name = "plan", .operands = "TRACE", .opts = plan_opts, .min_operands = 1, .max_operands = 1,
    .summary = "write a routing plan from a trace's call sites",
    .details = "TRACE must carry stacks. Each site that 'heapreplay sites' recommends a frame\n"
    "stack, a pool or a level heap for becomes a rule naming its function; the file is\n"
    "plain text, one rule per line, and may be edited by hand (docs/SITES.md). Prove it\n"
    "with 'heapreplay replay --plan=PLAN -a ALLOC,... TRACE'.\n"};

typedef struct plan_args {
    const char *out, *skip;
    double      min_share; /* a fraction of blocks or bytes */
} plan_args_t;

/* What the pruning left on the general allocator. */
typedef struct pruned {
    uint32_t sites;
    uint64_t blocks, bytes;
} pruned_t;

static int on_opt(void *ctx, const hr_optarg_t *o) {
    plan_args_t *a = ctx;
    if (o->key == HR_OPT_MAX_INPUT)
        return hr_opt_max_input(o);
    if (o->key == OPT_MIN_SHARE) {
        char *end;
        double v = strtod(o->arg, &end);
        if (end == o->arg || *end || !(v >= 0 && v <= 100))
            return hr_cli_usage_error("plan", "--min-share expects a percentage from 0 to 100");
        a->min_share = v / 100;
    } else if (o->key == 'o')
        a->out = o->arg;
    else
        a->skip = o->arg;
    return 0;
}

/* Bytes rounded up to 64 KiB, at least 64 KiB, with a quarter's margin. */
static uint64_t buffer_for(uint64_t peak) {
    uint64_t b = peak + peak / 4, unit = 64u << 10;
    return b < unit ? unit : (b + unit - 1) / unit * unit;
}

/* 1 when site v made at least `min` of the trace's blocks or of its bytes:
 * a rule for a site of a few blocks saves nothing measurable and makes the
 * plan long to read. */
static int matters(const hr_sites_t *s, const hr_site_t *v, double min) {
    return (double)v->allocs >= min * (double)s->allocs ||
           (double)v->bytes >= min * (double)s->bytes;
}

/* One rule per recommended site that matters (above) whose allocating frame
 * has a name; the comments say what the site did. */
static int make_rules(const hr_trace_t *t, const hr_sites_t *s, double min_share,
                      hr_route_plan_file_t *p, char ***comments, pruned_t *left) {
    char func[1024], name[512], where[1024], adv[64];
    *comments = calloc(s->n ? s->n : 1, sizeof **comments);
    if (!*comments)
        return -1;
    for (uint32_t k = 0; k < s->n; k++) {
        const hr_site_t *v = &s->v[k];
        uint32_t n;
        const uint32_t *fx = hr_stacks_get(s->keys, v->key, &n);
        if (v->route == HR_ROUTE_GENERAL || !n)
            continue;
        if (!matters(s, v, min_share)) {
            left->sites++;
            left->blocks += v->allocs;
            left->bytes += v->bytes;
            continue;
        }
        hr_stacks_frame_name(t, fx[0], 0, func, sizeof func);
        hr_route_pattern_of(func, name, sizeof name);
        int dup = 0;
        for (uint32_t r = 0; r < p->n && !dup; r++)
            dup = strcmp(p->rules[r].pattern, name) == 0;
        if (dup) /* a second site in the same function: the first (larger) one's rule */
            continue;
        hr_site_name(t, s, v, where, sizeof where);
        hr_site_advice(v, adv, sizeof adv);
        size_t len = strlen(where) + 200;
        char *c = malloc(len);
        if (!c || hr_route_plan_add(p, v->route, v->sizes[0], name) != 0) {
            free(c);
            return -1;
        }
        snprintf(c, len, "%s: %llu blocks, %llu bytes, %s %.0f%%, %s", where,
                 (unsigned long long)v->allocs, (unsigned long long)v->bytes,
                 hr_life_name(v->life_main),
                 100.0 * (double)v->life[v->life_main] / (double)(v->allocs ? v->allocs : 1), adv);
        (*comments)[p->n - 1] = c;
    }
    return 0;
}

/* Routes t by the plan (t is changed) to size the frame stack and the level
 * heap from their pools' peaks, and prints what the plan does. */
static int size_parts(hr_trace_t *t, hr_route_plan_file_t *p, hr_error_t *err) {
    if (hr_route_apply(t, p, err) != 0)
        return -1;
    hr_pool_stat_t *ps = NULL;
    int n = hr_trace_pools(t, &ps);
    for (int k = 0; k < n; k++) {
        const char *name = t->strings[ps[k].name];
        if (strcmp(name, HR_ROUTE_POOL_STACK) == 0)
            p->stack_bytes = buffer_for(ps[k].peak_live);
        else if (strcmp(name, HR_ROUTE_POOL_LEVEL) == 0)
            p->level_bytes = buffer_for(ps[k].peak_live);
    }
    free(ps);
    for (uint32_t r = 0; r < p->n; r++) {
        const hr_route_rule_t *u = &p->rules[r];
        printf("  %-11s %-40s %8llu blocks, %llu routed, %llu violations\n",
               hr_route_name(u->route), u->pattern, (unsigned long long)u->blocks,
               (unsigned long long)u->routed, (unsigned long long)u->violations);
    }
    return n < 0 ? -1 : 0;
}

int hr_cmd_plan(int argc, char **argv) {
    plan_args_t a = {NULL, NULL, 0.001};
    pruned_t left = {0, 0, 0};
    int first, prc = hr_opts_parse(&hr_spec_plan, argc, argv, on_opt, &a, &first);
    if (prc)
        return prc == HR_OPTS_HELP ? 0 : prc;
    if (!a.out)
        return hr_cli_usage_error("plan", "expected -o PLAN (see 'heapreplay plan --help')");
    const char *path = argv[first];
    hr_trace_t t;
    hr_sites_t s;
    hr_sites_opts_t so = hr_sites_opts_default();
    hr_route_plan_file_t p;
    hr_error_t err = {{0}};
    char **comments = NULL;
    int rc = 2;
    so.skip = a.skip;
    hr_trace_init(&t);
    hr_route_plan_init(&p);
    memset(&s, 0, sizeof s);
    if (hr_cli_read_sites_trace("plan", path, &t) != 0)
        goto out;
    if (hr_sites_compute(&t, &so, &s, &err) != 0) {
        fprintf(stderr, "heapreplay plan: %s: %s\n", path, err.msg);
        goto out;
    }
    if ((a.skip && !(p.skip = strdup(a.skip))) || make_rules(&t, &s, a.min_share, &p, &comments, &left) != 0) {
        fprintf(stderr, "heapreplay plan: out of memory\n");
        goto out;
    }
    printf("%s: %u rules from %u sites; %u sites recommended an in-house allocator but made "
           "under %g %% of the blocks and of the bytes (%llu blocks, %llu bytes): left on the "
           "general allocator (--min-share)\n", a.out, p.n, s.n, left.sites, 100 * a.min_share,
           (unsigned long long)left.blocks, (unsigned long long)left.bytes);
    char header[1200];
    snprintf(header, sizeof header, "# made by: heapreplay plan %s\n", path);
    if (size_parts(&t, &p, &err) != 0 ||
        hr_route_plan_write(a.out, &p, (const char *const *)comments, header, &err) != 0) {
        fprintf(stderr, "heapreplay plan: %s\n", err.msg);
        goto out;
    }
    rc = 0;
out:
    for (uint32_t k = 0; comments && k < p.n; k++)
        free(comments[k]);
    free(comments);
    hr_route_plan_free(&p);
    hr_sites_free(&s);
    hr_trace_free(&t);
    return rc;
}
