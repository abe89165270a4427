/* heapreplay compare BASE.json NEW.json [--max-regress METRIC=PCT,...]
 *                   [--format text|json|csv|md|junit] [--max-rows N]
 *                   [--mode auto|allocator|program] [--label-a NAME] [--label-b NAME]
 * Exit 0: no regression; 1: a regression, mismatch or missing result;
 * 2: bad input or usage (one line on stderr naming the file). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/compare.h"

static const hr_opt_t compare_opts[] = {
    {'m', "max-regress", "METRIC=PCT,...", "thresholds; metrics: ns_per_op cold throughput wall cpu "
     "p99 p999 max peak live rss frag slop worst_frame insns cost, or a "
     "dotted path (time.ops_per_s). Default: ns_per_op=10%,cold=15%, "
     "live=0%,peak=25%,insns=1%,cost=1%; in-house exact footprints exactly"},
    {'f', "format", "FMT", "text (default), json, csv, md (a CI job summary: regressions, "
     "improvements, a count of unchanged figures) or junit (XML, one test case per "
     "trace x allocator x metric)"},
    {HR_OPT_LONG + 1, "max-rows", "N", "md: rows shown per section before '... and N more' "
     "(default 50)"},
    {HR_OPT_LONG, "no-drift", NULL, "judge timings as they are; by default the host drift "
     "common to every row (median new/base over >= 6 rows, >= 2 "
     "allocators) is divided out first"},
    {HR_OPT_LONG + 2, "mode", "MODE", "auto (default: program when a captured trace of BASE "
     "and one of NEW share a name, or the labels, but not a digest), allocator (the same trace, a new allocator build: "
     "op counts must match) or program (two captures of one program: its allocations per "
     "frame, peak live, leaks, load, allocator time, worst frame, RSS; a --follow-forks "
     "capture's processes as one program)"},
    {HR_OPT_LONG + 3, "label-a", "NAME", "program mode: match BASE's results as trace NAME "
     "instead of by their file name (a report of one trace)"},
    {HR_OPT_LONG + 4, "label-b", "NAME", "the same for NEW"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_compare = {
    .name = "compare", .operands = "BASE.json NEW.json", .opts = compare_opts,
    .summary = "compare two reports; exit 1 on a regression", .min_operands = 2, .max_operands = 2,
    .details = "A measured figure regresses only when its change exceeds the threshold AND its\n"
    "samples are separated (docs/REPORTS.md).\n"
    "Program mode leads with what changed, in words; its thresholds:\n"
    "docs/REPORTS.md, \"Comparing two captures of a program\".\n"
    "Exit status: 0 no regression, 1 regression, 2 bad input.\n"};

static int on_opt(void *ctx, const hr_optarg_t *o) {
    hr_compare_options_t *opt = ctx;
    uint64_t n;
    if (o->key == 'm')
        opt->max_regress = o->arg;
    else if (o->key == 'f' && hr_compare_format_parse(o->arg, &opt->format) < 0)
        return hr_opt_bad(o, "text, json, csv, md or junit");
    else if (o->key == HR_OPT_LONG + 1) {
        if (hr_opt_uint(o, 1, 100000, &n) != 0)
            return 2;
        opt->max_rows = (int)n;
    } else if (o->key == HR_OPT_LONG)
        opt->drift = 0;
    else if (o->key == HR_OPT_LONG + 2 && hr_compare_mode_parse(o->arg, &opt->mode) < 0)
        return hr_opt_bad(o, "auto, allocator or program");
    else if (o->key == HR_OPT_LONG + 3)
        opt->label_a = o->arg;
    else if (o->key == HR_OPT_LONG + 4)
        opt->label_b = o->arg;
    return 0;
}

int hr_cmd_compare(int argc, char **argv) {
    hr_compare_options_t opt = hr_compare_options_default();
    int first, rc = hr_opts_parse(&hr_spec_compare, argc, argv, on_opt, &opt, &first);
    if (rc)
        return rc == HR_OPTS_HELP ? 0 : rc;
    return hr_compare_files(argv[first], argv[first + 1], &opt, stdout, stderr);
}
