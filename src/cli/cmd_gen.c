/* heapreplay gen SCENARIO -o OUT [--events|-n N] [--seed S] [--threads N]
 * [--timestamps] [--text]: a seeded, deterministic synthetic trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "heapreplay/gen.h"
#include "heapreplay/trace.h"

static int list_scenarios(void) {
    for (const char *const *s = hr_gen_scenarios(); *s; s++)
        printf("%-12s %s\n", *s, hr_gen_describe(*s));
    return 0;
}

int hr_cmd_gen(int argc, char **argv) {
    hr_gen_options_t opt = hr_gen_default();
    const char *out = NULL;
    int text = 0;
    opt.scenario = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long n;
        if (strcmp(a, "-o") == 0 && v)
            out = v, i++;
        else if ((strcmp(a, "--events") == 0 || strcmp(a, "-n") == 0) && v) {
            if (hr_cli_parse_size(v, &n) != 0)
                return hr_cli_usage_error("gen", "--events expects a count (e.g. 200000 or 10M), got '%s'", v);
            opt.events = n, i++;
        } else if (strcmp(a, "--seed") == 0 && v)
            opt.seed = strtoull(v, NULL, 0), i++;
        else if (strcmp(a, "--threads") == 0 && v)
            opt.threads = (uint32_t)atoi(v), i++;
        else if (strcmp(a, "--timestamps") == 0)
            opt.timestamps = 1;
        else if (strcmp(a, "--text") == 0)
            text = 1;
        else if (strcmp(a, "--list") == 0)
            return list_scenarios();
        else if (strcmp(a, "--help") == 0) {
            printf("usage: heapreplay gen SCENARIO -o OUT [--events|-n N] [--seed S] [--threads N]\n"
                   "                      [--timestamps] [--text]\n       heapreplay gen --list\n"
                   "--threads 1..%u: relabels the events of level_load .. session; sets the\n"
                   "thread roles of jobs, stream and queue (cross-thread frees)\n",
                   HR_GEN_MAX_THREADS);
            return 0;
        } else if (a[0] != '-' && !opt.scenario)
            opt.scenario = a;
        else
            return hr_cli_usage_error("gen", "unexpected argument '%s'", a);
    }
    if (!opt.scenario || !out)
        return hr_cli_usage_error("gen", "expected SCENARIO and -o OUT (see --list)");
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    if (hr_gen(&opt, &t, &err) != 0) {
        fprintf(stderr, "heapreplay gen: %s\n", err.msg);
        hr_trace_free(&t);
        return 2;
    }
    int rc = hr_trace_write_file(out, text ? HR_FMT_TEXT : HR_FMT_AUTO, &t, &err);
    if (rc != 0)
        fprintf(stderr, "heapreplay gen: %s\n", err.msg);
    else
        printf("%s: %s, %zu events, %u ids, peak live %llu bytes\n", out, opt.scenario,
               t.n_events, t.n_ids, (unsigned long long)t.peak_live);
    hr_trace_free(&t);
    return rc ? 2 : 0;
}
