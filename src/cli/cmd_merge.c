/* heapreplay merge SHARD.json... [-o ALL.json] [--partial]
 * Joins the shard reports of one `replay --shard K/N` run into one ordinary
 * report (report/merge.h). Exit 0 ok; 2 bad input or a refused merge (one
 * line on stderr naming the file and what was expected). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "base/outfile.h"
#include "report/merge.h"
#include "report/report.h"

static const hr_opt_t merge_opts[] = {
    {'o', "output", "FILE", "write the merged report there (default: standard output)"},
    {HR_OPT_LONG, "partial", NULL, "accept missing shards; the merged report says which "
     "(\"merged\": {\"partial\": true, \"missing\": [...]})"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_merge = {
    .name = "merge", .operands = "SHARD.json...", .opts = merge_opts, .min_operands = 1,
    .max_operands = -1, .summary = "join the shard reports of replay --shard K/N into one report",
    .details = "The shards must come from one heapreplay version, with the same schema,\n"
    "options (other than --shard), traces and -a list; every shard 1..N must be\n"
    "given once (--partial accepts missing ones). Results are copied whole, in\n"
    "the order the unsharded run gives them. The merged report is an ordinary\n"
    "report: compare, plot and report read it.\n"
    "Exit status: 0 merged, 2 bad input or a refused merge (one line says why).\n"};

typedef struct merge_args {
    hr_merge_options_t opt;
    const char *out;
} merge_args_t;

static int on_opt(void *ctx, const hr_optarg_t *o) {
    merge_args_t *a = ctx;
    if (o->key == 'o')
        a->out = o->arg;
    else
        a->opt.partial = 1;
    return 0;
}

/* Writes doc as pretty JSON to path ("-": standard output). 0, or -1 with err. */
static int write_report(const hr_json_t *doc, const char *path, hr_error_t *err) {
    hr_outfile_t o;
    FILE *f = hr_outfile_open(&o, path, err);
    if (!f)
        return -1;
    hr_emit_t em;
    hr_emit_init(&em, f, HR_EMIT_JSON);
    hr_json_emit(&em, NULL, doc);
    hr_emit_end(&em);
    return hr_outfile_commit(&o, err);
}

int hr_cmd_merge(int argc, char **argv) {
    merge_args_t a = {hr_merge_options_default(), NULL};
    int first, rc = hr_opts_parse(&hr_spec_merge, argc, argv, on_opt, &a, &first);
    if (rc)
        return rc == HR_OPTS_HELP ? 0 : rc;
    int n = argc - first;
    hr_json_t **docs = calloc((size_t)n, sizeof *docs);
    hr_error_t err = {{0}};
    if (!docs)
        return hr_cli_usage_error("merge", "out of memory");
    rc = 0;
    for (int i = 0; i < n && rc == 0; i++)
        if (!(docs[i] = hr_report_load(argv[first + i], &err)))
            rc = hr_cli_usage_error("merge", "%s", err.msg);
    hr_json_t *all = rc ? NULL
                        : hr_merge_reports((const hr_json_t *const *)docs,
                                           (const char *const *)(argv + first), n, &a.opt, &err);
    if (rc == 0 && !all)
        rc = hr_cli_usage_error("merge", "%s", err.msg);
    if (all && write_report(all, a.out ? a.out : "-", &err) != 0)
        rc = hr_cli_usage_error("merge", "%s", err.msg);
    if (all && rc == 0 && hr_json_is_true(hr_json_path(all, "merged.partial")))
        fprintf(stderr, "heapreplay merge: partial: %zu of %.0f shards missing\n",
                hr_json_len(hr_json_path(all, "merged.missing")),
                hr_json_path_num(all, "merged.count"));
    hr_json_free(all);
    for (int i = 0; i < n; i++)
        hr_json_free(docs[i]);
    free(docs);
    return rc;
}
