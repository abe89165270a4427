/* heapreplay convert IN -o OUT [--to binary|text]: between trace formats, and
 * from address-based captures (ours, heaptrack, glibc mtrace) into an id-based
 * trace, printing what had to be repaired. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/trace.h"
#include "trace/import.h"
#include "trace/symbols.h"

/* Output format: --to wins; else ".txt"/".hrtt" means text; else binary. */
static hr_format_t out_format(const char *to, const char *path) {
    if (to)
        return strcmp(to, "text") == 0 ? HR_FMT_TEXT : HR_FMT_BINARY;
    size_t n = strlen(path);
    if ((n > 4 && strcmp(path + n - 4, ".txt") == 0) || (n > 5 && strcmp(path + n - 5, ".hrtt") == 0))
        return HR_FMT_TEXT;
    return HR_FMT_BINARY;
}

static int load_any(const char *in, hr_trace_t *t, int *imported, hr_repair_t *rep,
                    hr_error_t *err) {
    hr_import_kind_t kind = hr_import_detect(in);
    *imported = kind != HR_IMPORT_UNKNOWN;
    if (*imported)
        return hr_import_file(in, kind, t, rep, err);
    return hr_trace_read_file(in, HR_FMT_AUTO, t, err);
}

static const hr_opt_t convert_opts[] = {
    {'o', "output", "OUT", "the trace to write (required)"},
    {'t', "to", "FORMAT", "binary or text (default: text when OUT ends in .txt or "
                          ".hrtt, else binary)"},
    HR_OPT_MAX_INPUT_ROW,
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_convert = {
    .name = "convert", .operands = "IN", .opts = convert_opts, .min_operands = 1, .max_operands = 1,
    .summary = "convert between trace formats; import captures",
    .details = "IN: a heapreplay trace (binary or text), a capture log, a heaptrack data file\n"
    "(.zst/.gz) or a glibc mtrace log. Imports print what had to be repaired.\n"};

typedef struct convert_args { const char *out, *to; } convert_args_t;

static int on_opt(void *ctx, const hr_optarg_t *o) {
    convert_args_t *a = ctx;
    if (o->key == HR_OPT_MAX_INPUT)
        return hr_opt_max_input(o);
    if (o->key == 'o')
        a->out = o->arg;
    else if (strcmp(o->arg, "text") != 0 && strcmp(o->arg, "binary") != 0)
        return hr_opt_bad(o, "binary or text");
    else
        a->to = o->arg;
    return 0;
}

int hr_cmd_convert(int argc, char **argv) {
    convert_args_t a = {NULL, NULL};
    int first, prc = hr_opts_parse(&hr_spec_convert, argc, argv, on_opt, &a, &first);
    if (prc)
        return prc == HR_OPTS_HELP ? 0 : prc;
    const char *in = argv[first], *out = a.out, *to = a.to;
    if (!out)
        return hr_cli_usage_error("convert", "expected -o OUT (see 'heapreplay convert --help')");
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_repair_t rep;
    memset(&rep, 0, sizeof rep);
    int imported = 0;
    hr_trace_init(&t);
    /* A capture log into a binary trace is written as it is read, in memory
     * that does not grow with the events (1: it has stacks, built in memory). */
    int src = hr_import_detect(in) == HR_IMPORT_CAPTURE && out_format(to, out) == HR_FMT_BINARY
                  ? hr_import_capture_write(in, out, NULL, &t, &rep, &err) : 1;
    if (src == 0) {
        printf("%s: %llu events, %u ids, %u threads, peak live %llu bytes\n", out,
               (unsigned long long)rep.events_out, t.n_ids, t.n_threads,
               (unsigned long long)t.peak_live);
        hr_repair_print(&rep, stdout);
        hr_trace_free(&t);
        return 0;
    }
    if (src < 0 || load_any(in, &t, &imported, &rep, &err) != 0) {
        fprintf(stderr, "heapreplay convert: %s\n", err.msg);
        hr_trace_free(&t);
        return 2;
    }
    int rc = 0;
    /* an imported capture log's address frames are named here, as capture
     * names them (notes on stderr for modules that cannot be read) */
    hr_symbolize_opts_t so = hr_symbolize_default();
    so.notes = stderr;
    if (imported && t.stacks && hr_stacks_symbolize(&t, &so, &err) != 0) {
        fprintf(stderr, "heapreplay convert: %s\n", err.msg);
        rc = 2;
    } else if (hr_trace_write_file(out, out_format(to, out), &t, &err) != 0) {
        fprintf(stderr, "heapreplay convert: %s\n", err.msg);
        rc = 2;
    } else {
        printf("%s: %zu events, %u ids, %u threads, peak live %llu bytes\n", out, t.n_events,
               t.n_ids, t.n_threads, (unsigned long long)t.peak_live);
        if (imported)
            hr_repair_print(&rep, stdout);
    }
    hr_trace_free(&t);
    return rc;
}
