/* heapreplay convert IN -o OUT [--to binary|text]: between trace formats, and
 * from address-based captures (ours, heaptrack, glibc mtrace) into an id-based
 * trace, printing what had to be repaired. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "heapreplay/trace.h"
#include "trace/import.h"

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

int hr_cmd_convert(int argc, char **argv) {
    const char *in = NULL, *out = NULL, *to = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc)
            to = argv[++i];
        else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: heapreplay convert IN -o OUT [--to binary|text]\n"
                   "IN: a heapreplay trace (binary or text), a capture log, a heaptrack\n"
                   "data file (.zst/.gz) or a glibc mtrace log.\n");
            return 0;
        } else if (argv[i][0] != '-' && !in)
            in = argv[i];
        else
            return hr_cli_usage_error("convert", "unexpected argument '%s'", argv[i]);
    }
    if (!in || !out)
        return hr_cli_usage_error("convert", "expected IN and -o OUT");
    if (to && strcmp(to, "text") != 0 && strcmp(to, "binary") != 0)
        return hr_cli_usage_error("convert", "--to takes 'binary' or 'text', got '%s'", to);
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_repair_t rep;
    memset(&rep, 0, sizeof rep);
    int imported = 0;
    hr_trace_init(&t);
    if (load_any(in, &t, &imported, &rep, &err) != 0) {
        fprintf(stderr, "heapreplay convert: %s\n", err.msg);
        hr_trace_free(&t);
        return 2;
    }
    int rc = 0;
    if (hr_trace_write_file(out, out_format(to, out), &t, &err) != 0) {
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
