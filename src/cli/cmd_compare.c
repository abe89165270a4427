/* heapreplay compare BASE.json NEW.json [--max-regress METRIC=PCT,...]
 *                   [--format text|json|csv|md]
 * Exit 0: no regression; 1: a regression, mismatch or missing result;
 * 2: bad input or usage (one line on stderr naming the file). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "report/compare.h"

static void usage(FILE *f) {
    fputs("usage: heapreplay compare BASE.json NEW.json [--max-regress METRIC=PCT,...]\n"
          "                          [--format text|json|csv|md] [--no-drift]\n"
          "metrics: ns_per_op cold throughput wall cpu p99 p999 max peak live rss frag slop\n"
          "         worst_frame insns, or a dotted path (time.ops_per_s).\n"
          "default: ns_per_op=10%,cold=15%,live=0%,peak=25%,insns=1%; in-house exact\n"
          "         footprints exactly. A measured figure regresses only when its change\n"
          "         exceeds the threshold AND its samples are separated (docs/REPORTS.md)\n"
          "--no-drift: judge timings as they are; by default the host drift common to\n"
          "         every row (median new/base over >= 6 rows, >= 2 allocators) is\n"
          "         divided out first\n"
          "exit: 0 no regression, 1 regression, 2 bad input\n", f);
}

/* "--opt VALUE" or "--opt=VALUE"; advances *i. NULL when argv[*i] is not opt. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt, int *missing) {
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != 0)
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

int hr_cmd_compare(int argc, char **argv) {
    hr_compare_options_t opt = hr_compare_options_default();
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--no-drift") == 0) {
            opt.drift = 0;
        } else if ((v = opt_value(argc, argv, &i, "--max-regress", &missing))) {
            opt.max_regress = v;
        } else if ((v = opt_value(argc, argv, &i, "--format", &missing)) ||
                   (!missing && (v = opt_value(argc, argv, &i, "-f", &missing)))) {
            if (hr_emit_format_parse(v, &opt.format) < 0)
                return hr_cli_usage_error("compare", "--format: expected text, json, csv or md, "
                                          "got \"%s\"", v);
        } else if (missing) {
            return hr_cli_usage_error("compare", "%s: expected a value", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return hr_cli_usage_error("compare", "unknown option %s (see --help)", argv[i]);
        } else if (nfiles < 2) {
            files[nfiles++] = argv[i];
        } else {
            return hr_cli_usage_error("compare", "expected two reports, got a third: %s", argv[i]);
        }
    }
    if (nfiles != 2) {
        usage(stderr);
        return 2;
    }
    return hr_compare_files(files[0], files[1], &opt, stdout, stderr);
}
