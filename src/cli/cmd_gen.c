/* heapreplay gen SCENARIO -o OUT [--events|-n N] [--seed S] [--threads N]
 * [--timestamps] [--text]: a seeded, deterministic synthetic trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "cli/cli.h"
#include "trace/gen.h"
#include "trace/trace.h"

static int list_scenarios(void) {
    for (const char *const *s = hr_gen_scenarios(); *s; s++)
        printf("%-12s %s\n", *s, hr_gen_describe(*s));
    return 0;
}

_Static_assert(HR_GEN_MAX_THREADS == 64, "gen --threads help says 1..64");

static const hr_opt_t gen_opts[] = {
    {'o', "output", "OUT", "the trace to write (required; text when OUT ends in .txt or .hrtt)"},
    {'n', "events", "N", "about N events (e.g. 200000, 10M; default: the scenario's)"},
    {'s', "seed", "S", "random seed, an integer (default 1): same seed, same trace"},
    {'t', "threads", "N", "1..64: relabels the events of level_load .. session; sets "
                          "the thread roles of jobs, stream and queue (cross-thread frees)"},
    {'T', "timestamps", NULL, "record a timestamp with every event"},
    {HR_OPT_LONG, "text", NULL, "write the text format whatever OUT's name"},
    {'l', "list", NULL, "list the scenarios and exit"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_gen = {
    .name = "gen", .operands = "SCENARIO", .opts = gen_opts, .min_operands = 0, .max_operands = 1,
    .summary = "generate a synthetic game-like trace",
    .details = "'heapreplay gen --list' names the scenarios. The same scenario, options and\n"
    "seed always give the same trace. The binary format is written while it is\n"
    "generated (two passes: memory does not grow with N, and OUT may be a pipe);\n"
    "the text format is built in memory first (about 28 bytes per event).\n"};

typedef struct gen_args {
    hr_gen_options_t opt;
    const char *out;
    int text, list;
} gen_args_t;

static int on_opt(void *ctx, const hr_optarg_t *o) {
    gen_args_t *a = ctx;
    uint64_t v;
    switch (o->key) {
    case 'o': a->out = o->arg; return 0;
    case 'n': { /* a count, with the size suffixes (K, M, G: x1024); checked here so
                 * the message names the option and the value as typed */
        unsigned long long n;
        if (hr_cli_parse_size(o->arg, &n) != 0 || n < HR_GEN_MIN_EVENTS || n > HR_GEN_MAX_EVENTS)
            return hr_opt_bad(o, "an event count 1000..2000000000 (K, M, G multiply by 1024)");
        a->opt.events = n;
        return 0;
    }
    case 's':
        if (hr_opt_uint(o, 0, UINT64_MAX, &v) != 0)
            return 2;
        a->opt.seed = v;
        return 0;
    case 't':
        if (hr_opt_uint(o, 1, HR_GEN_MAX_THREADS, &v) != 0)
            return 2;
        a->opt.threads = (uint32_t)v;
        return 0;
    case 'T': a->opt.timestamps = 1; return 0;
    case 'l': a->list = 1; return 0;
    default: a->text = 1; return 0;
    }
}

/* The text format is written as hr_trace_write_file picks it for OUT: "-",
 * *.txt and *.hrtt. */
static int text_path(const char *path) {
    size_t n = strlen(path);
    return strcmp(path, "-") == 0 || (n >= 4 && strcmp(path + n - 4, ".txt") == 0) ||
           (n >= 5 && strcmp(path + n - 5, ".hrtt") == 0);
}

/* An output error (it starts with the path) as "gen: PATH: ...", the form
 * of the library's own messages; returns -1. */
static int gen_prefixed(hr_error_t *err) {
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    hr_error_set(err, "gen: %s", msg);
    return -1;
}

/* Text: the whole trace in memory, then written (its events are kept in t). */
static int gen_text(const hr_gen_options_t *opt, const char *out, hr_trace_t *t,
                    hr_error_t *err) {
    hr_trace_init(t);
    if (hr_gen(opt, t, err) != 0) /* the library's messages start with "gen: " */
        return -1;
    if (hr_trace_write_file(out, HR_FMT_TEXT, t, err) == 0)
        return 0;
    return gen_prefixed(err);
}

/* Binary: streamed while generated (memory independent of the event count),
 * through the same temporary-file-and-rename as every other output. */
static int gen_binary(const hr_gen_options_t *opt, const char *out, hr_trace_t *t,
                      hr_error_t *err) {
    hr_trace_init(t);
    hr_outfile_t o;
    FILE *f = hr_outfile_open(&o, out, err);
    if (!f) {
        return gen_prefixed(err);
    }
    if (hr_gen_write(opt, f, t, err) != 0) {
        hr_outfile_abort(&o);
        return -1;
    }
    if (hr_outfile_commit(&o, err) == 0)
        return 0;
    return gen_prefixed(err);
}

int hr_cmd_gen(int argc, char **argv) {
    gen_args_t a = {hr_gen_default(), NULL, 0, 0};
    int first, prc = hr_opts_parse(&hr_spec_gen, argc, argv, on_opt, &a, &first);
    if (prc)
        return prc == HR_OPTS_HELP ? 0 : prc;
    if (a.list)
        return list_scenarios();
    hr_gen_options_t opt = a.opt;
    const char *out = a.out;
    int text = a.text;
    opt.scenario = first < argc ? argv[first] : NULL;
    if (!opt.scenario || !out)
        return hr_cli_usage_error("gen", "expected SCENARIO and -o OUT (see 'heapreplay gen --list')");
    hr_trace_t t;
    hr_error_t err = {{0}};
    int rc = text || text_path(out) ? gen_text(&opt, out, &t, &err) : gen_binary(&opt, out, &t, &err);
    if (rc != 0)
        fprintf(stderr, "heapreplay %s\n", err.msg);
    else
        printf("%s: %s, %zu events, %u ids, peak live %llu bytes\n", out, opt.scenario,
               t.n_events, t.n_ids, (unsigned long long)t.peak_live);
    hr_trace_free(&t);
    return rc ? 2 : 0;
}
