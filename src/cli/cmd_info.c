/* heapreplay info TRACE...: what a trace holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "heapreplay/trace.h"
#include "base/emit.h"
#include "trace/scan.h"

static void info_heaps(const hr_trace_summary_t *s, hr_emit_t *em) {
    const hr_trace_t *t = &s->t;
    hr_emit_arr_begin(em, "heaps");
    for (uint32_t i = 0; i < t->n_strings; i++)
        if (s->pushes[i]) {
            hr_emit_obj_begin(em, NULL);
            hr_emit_str(em, "name", t->strings[i]);
            hr_emit_u64(em, "pushes", s->pushes[i]);
            hr_emit_obj_end(em);
        }
    hr_emit_arr_end(em);
    hr_emit_arr_begin(em, "marks");
    for (uint32_t i = 0; i < t->n_strings; i++)
        if (s->marks[i])
            hr_emit_str(em, NULL, t->strings[i]);
    hr_emit_arr_end(em);
}

static void info_emit(const char *path, const hr_trace_summary_t *s, hr_emit_t *em) {
    const hr_trace_t *t = &s->t;
    struct stat st;
    uint64_t bytes = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    hr_emit_obj_begin(em, NULL);
    hr_emit_str(em, "trace", path);
    hr_emit_str(em, "digest", s->digest);
    hr_emit_u64(em, "events", t->n_events);
    hr_emit_obj_begin(em, "ops");
    for (unsigned op = 0; op < HR_OP__COUNT; op++)
        hr_emit_u64(em, hr_op_name(op), t->op_counts[op]);
    hr_emit_obj_end(em);
    hr_emit_u64(em, "ids", t->n_ids);
    hr_emit_u64(em, "threads", t->n_threads);
    hr_emit_u64(em, "frames", t->op_counts[HR_OP_FRAME]);
    hr_emit_u64(em, "peak_live_bytes", t->peak_live);
    hr_emit_bool(em, "timestamps", (t->flags & HR_TRACEF_TIMESTAMPS) != 0);
    if ((t->flags & HR_TRACEF_TIMESTAMPS) && t->n_events)
        hr_emit_u64(em, "duration_ns", s->last_ts - s->first_ts);
    hr_emit_u64(em, "file_bytes", bytes);
    hr_emit_f64(em, "bytes_per_event", t->n_events ? (double)bytes / (double)t->n_events : 0);
    info_heaps(s, em);
    hr_emit_obj_end(em);
}

static void info_text(const char *path, const hr_trace_summary_t *s) {
    const hr_trace_t *t = &s->t;
    struct stat st;
    uint64_t bytes = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    printf("%s\n  digest          %s\n  events          %zu\n", path, s->digest, t->n_events);
    for (unsigned op = 0; op < HR_OP__COUNT; op++)
        printf("    %-12s  %llu\n", hr_op_name(op), (unsigned long long)t->op_counts[op]);
    printf("  ids (max live)  %u\n  threads         %u\n  frames          %llu\n", t->n_ids,
           t->n_threads, (unsigned long long)t->op_counts[HR_OP_FRAME]);
    printf("  peak live       %llu bytes (%.2f MiB)\n", (unsigned long long)t->peak_live,
           (double)t->peak_live / 1048576.0);
    printf("  timestamps      %s\n", (t->flags & HR_TRACEF_TIMESTAMPS) ? "yes" : "no");
    printf("  file            %llu bytes, %.2f bytes/event\n", (unsigned long long)bytes,
           t->n_events ? (double)bytes / (double)t->n_events : 0.0);
    printf("  heaps          ");
    for (uint32_t i = 0, n = 0; i < t->n_strings; i++)
        if (s->pushes[i])
            printf("%s%s", n++ ? ", " : " ", t->strings[i]);
    printf("\n");
}

int hr_cmd_info(int argc, char **argv) {
    int json = 0, nfiles = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: heapreplay info [--json] TRACE...\n");
            return 0;
        } else if (argv[i][0] == '-')
            return hr_cli_usage_error("info", "unknown option '%s'", argv[i]);
    }
    hr_emit_t em;
    hr_emit_init(&em, stdout, HR_EMIT_JSON);
    if (json)
        hr_emit_arr_begin(&em, NULL);
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        nfiles++;
        hr_trace_summary_t s; /* read in slices: no event array (trace/scan.h) */
        hr_error_t err = {{0}};
        if (hr_trace_scan_file(argv[i], &s, &err) != 0) {
            fprintf(stderr, "heapreplay info: %s\n", err.msg);
            rc = 2;
            continue;
        } else if (json) {
            info_emit(argv[i], &s, &em);
        } else {
            info_text(argv[i], &s);
        }
        hr_trace_summary_free(&s);
    }
    if (json) {
        hr_emit_arr_end(&em);
        hr_emit_end(&em);
    }
    if (!nfiles)
        return hr_cli_usage_error("info", "expected a trace file");
    return rc;
}
