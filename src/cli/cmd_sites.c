/* heapreplay sites TRACE: where a trace's blocks were allocated (its call
 * sites), what they did, and which in-house allocator could serve them
 * (docs/SITES.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "cli/cli.h"
#include "report/sites.h"
#include "replay/route.h"
#include "trace/symbols.h"

enum { OPT_DEPTH = HR_OPT_LONG, OPT_SKIP, OPT_TOP, OPT_SORT, OPT_WEIGHT, OPT_FORMAT = 'f' };

static const hr_opt_t sites_opts[] = {
    {OPT_DEPTH, "depth", "N", "frames per site, from the first frame outside the wrappers "
                              "(default 1: the allocating function)"},
    {OPT_SKIP, "skip", "LIST", "wrapper functions passed over, comma-separated, '*' matches any "
                               "text (default: malloc, operator new*, g_malloc*, SDL_malloc, "
                               "strdup and the like; '' passes over none)"},
    {OPT_TOP, "top", "N", "sites listed (default 20; 0: all)"},
    {OPT_SORT, "sort", "KEY", "allocs (default), bytes or peak (live bytes at the peak)"},
    {OPT_FORMAT, "format", "FMT", "text (default), json, csv, md, html (the table and a flame "
                                  "graph), folded (one line per stack for flamegraph.pl and "
                                  "speedscope) or svg (the flame graph alone)"},
    {OPT_WEIGHT, "weight", "W", "what --format=folded counts per stack: count (blocks, the "
                                "default) or bytes"},
    {'o', "output", "FILE", "write there instead of standard output"},
    HR_OPT_MAX_INPUT_ROW,
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_sites = {
    .name = "sites", .operands = "TRACE", .opts = sites_opts, .min_operands = 1,
    .max_operands = 1, .summary = "call sites of a trace with stacks, and what could serve them",
    .details = "TRACE must carry stacks (capture --stacks, or a converted heaptrack file).\n"
    "Each site is ranked by its blocks, bytes and share of the peak; its lifetime class\n"
    "(docs/METRICS.md, \"Block lifetimes\"), its sizes and a recommendation: frame stack,\n"
    "pool of N-byte cells, level heap or general heap (docs/SITES.md). 'heapreplay plan'\n"
    "writes the recommendations as a routing plan for 'replay --plan'.\n"};

typedef struct sites_args {
    hr_sites_opts_t o;
    const char     *format, *out;
    int             weight;
} sites_args_t;

static int on_opt(void *ctx, const hr_optarg_t *o) {
    sites_args_t *a = ctx;
    uint64_t v;
    switch (o->key) {
    case HR_OPT_MAX_INPUT: return hr_opt_max_input(o);
    case OPT_DEPTH:
        if (hr_opt_uint(o, 1, 64, &v))
            return 2;
        a->o.depth = (uint32_t)v;
        return 0;
    case OPT_TOP:
        if (hr_opt_uint(o, 0, UINT32_MAX, &v))
            return 2;
        a->o.top = (uint32_t)v;
        return 0;
    case OPT_SKIP: a->o.skip = o->arg; return 0;
    case OPT_SORT:
        if (strcmp(o->arg, "allocs") && strcmp(o->arg, "bytes") && strcmp(o->arg, "peak"))
            return hr_opt_bad(o, "allocs, bytes or peak");
        a->o.sort = o->arg[0] == 'a' ? HR_SITES_BY_ALLOCS
                    : o->arg[0] == 'b' ? HR_SITES_BY_BYTES : HR_SITES_BY_PEAK;
        return 0;
    case OPT_WEIGHT:
        if (strcmp(o->arg, "count") && strcmp(o->arg, "bytes"))
            return hr_opt_bad(o, "count or bytes (replayed time per site is not measured)");
        a->weight = o->arg[0] == 'b';
        return 0;
    case OPT_FORMAT: {
        hr_emit_format_t f;
        if (strcmp(o->arg, "folded") && strcmp(o->arg, "svg") &&
            hr_emit_format_parse_html(o->arg, &f))
            return hr_opt_bad(o, "text, json, csv, md, html, folded or svg");
        a->format = o->arg;
        return 0;
    }
    default: a->out = o->arg; return 0;
    }
}

int hr_cli_read_sites_trace(const char *cmd, const char *path, hr_trace_t *t) {
    hr_error_t err = {{0}};
    if (hr_trace_read_file(path, HR_FMT_AUTO, t, &err) != 0) {
        fprintf(stderr, "heapreplay %s: %s\n", cmd, err.msg);
        return 2;
    }
    int unnamed = 0; /* address frames without a name: symbolize them (notes on stderr) */
    for (uint32_t i = 0; t->stacks && i < t->stacks->n_frames && !unnamed; i++)
        unnamed = t->stacks->frames[i].addr && !t->stacks->frames[i].func;
    hr_symbolize_opts_t so = hr_symbolize_default();
    so.notes = stderr;
    if (unnamed && hr_stacks_symbolize(t, &so, &err) != 0) {
        fprintf(stderr, "heapreplay %s: %s: %s\n", cmd, path, err.msg);
        return 2;
    }
    int mangled = 0; /* C++ names print demangled when libstdc++ is here (trace/symbols.h) */
    for (uint32_t i = 0; t->stacks && i < t->stacks->n_frames && !mangled; i++) {
        uint32_t fn = t->stacks->frames[i].func;
        mangled = fn && fn <= t->n_strings && strncmp(t->strings[fn - 1], "_Z", 2) == 0;
    }
    if (mangled && !hr_demangle_available())
        fprintf(stderr, "heapreplay %s: note: no libstdc++.so.6 on this machine to demangle "
                "with: C++ names stay mangled (_ZN...), and so do the plan's patterns\n", cmd);
    return 0;
}

/* The page of --format=html: the table and the flame graph, no script. */
static void html_page(const hr_trace_t *t, const hr_sites_t *s, const hr_sites_opts_t *o,
                      const char *path, FILE *f) {
    hr_emit_t em;
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Call sites: ");
    hr_emit_put_xml(f, path);
    fprintf(f, "</title><style>body{font-family:sans-serif}table{border-collapse:collapse}"
               "td,th{border:1px solid #ccc;padding:2px 6px}</style></head><body>\n<h1>Call "
               "sites of ");
    hr_emit_put_xml(f, path);
    fprintf(f, "</h1>\n");
    hr_emit_init(&em, f, HR_EMIT_HTML);
    hr_sites_emit(t, s, o, &em);
    fprintf(f, "<h2>Flame graph (bytes allocated per stack)</h2>\n");
    hr_sites_flame_svg(t, 1200, f);
    fprintf(f, "</body></html>\n");
}

static int write_out(const hr_trace_t *t, const hr_sites_t *s, const sites_args_t *a,
                     const char *path, FILE *f) {
    const char *fmt = a->format ? a->format : "text";
    if (strcmp(fmt, "folded") == 0)
        return hr_sites_folded(t, a->weight, f);
    if (strcmp(fmt, "svg") == 0)
        return hr_sites_flame_svg(t, 1200, f);
    if (strcmp(fmt, "html") == 0) {
        html_page(t, s, &a->o, path, f);
        return ferror(f) ? -1 : 0;
    }
    hr_emit_format_t ef;
    hr_emit_format_parse(fmt, &ef);
    hr_emit_t em;
    hr_emit_init(&em, f, ef);
    hr_sites_emit(t, s, &a->o, &em);
    hr_emit_end(&em);
    return ferror(f) ? -1 : 0;
}

int hr_cmd_sites(int argc, char **argv) {
    sites_args_t a = {hr_sites_opts_default(), NULL, NULL, 0};
    int first, prc = hr_opts_parse(&hr_spec_sites, argc, argv, on_opt, &a, &first);
    if (prc)
        return prc == HR_OPTS_HELP ? 0 : prc;
    const char *path = argv[first];
    hr_trace_t t;
    hr_sites_t s;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    if (hr_cli_read_sites_trace("sites", path, &t) != 0) {
        hr_trace_free(&t);
        return 2;
    }
    if (hr_sites_compute(&t, &a.o, &s, &err) != 0) {
        fprintf(stderr, "heapreplay sites: %s: %s\n", path, err.msg);
        hr_trace_free(&t);
        return 2;
    }
    int rc = 0;
    hr_outfile_t of;
    FILE *f = a.out ? hr_outfile_open(&of, a.out, &err) : stdout;
    if (!f) {
        rc = 2;
    } else if (write_out(&t, &s, &a, path, f) != 0) {
        hr_error_set(&err, "%s: write error", a.out ? a.out : "standard output");
        if (a.out)
            hr_outfile_abort(&of);
        rc = 2;
    } else if (a.out && hr_outfile_commit(&of, &err) != 0) {
        rc = 2;
    }
    if (rc)
        fprintf(stderr, "heapreplay sites: %s\n", err.msg);
    hr_sites_free(&s);
    hr_trace_free(&t);
    return rc;
}
