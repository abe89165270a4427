/* replay: the "startup" section of a report — each external allocator's
 * process start-up against the C library's, measured once per run
 * (replay/startup.h; docs/METRICS.md, "Process start-up"). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/replay_int.h"
#include "replay/startup.h"

#define MAX_LIBS 16

/* The allocator a library stands for: the backend's name (a composition's
 * last part). */
static const char *lib_owner(const hr_alloc_spec_t *s) {
    return s->parts.n && s->last ? s->last->name : s->be->name;
}

static hr_json_t *row_json(const char *name, const hr_startup_t *r, const hr_startup_t *base) {
    hr_json_t *o = hr_json_new_object();
    if (!o)
        return NULL;
    hr_json_set(o, "allocator", hr_json_new_str(name));
    hr_json_set(o, "lib", hr_json_new_str(r->lib));
    hr_json_set(o, "cpu_s", hr_json_new_num(r->cpu_s));
    hr_json_set(o, "cpu_s_q1", hr_json_new_num(r->cpu_q1_s));
    hr_json_set(o, "cpu_s_q3", hr_json_new_num(r->cpu_q3_s));
    hr_json_set(o, "max_rss", hr_json_new_u64(r->max_rss));
    /* the paired estimate (startup.h), not the difference of the medians */
    hr_json_set(o, "cpu_s_over_glibc", hr_json_new_num(r->over_s));
    if (r != base && isfinite(r->over_lo_s)) {
        hr_json_set(o, "cpu_s_over_glibc_lo", hr_json_new_num(r->over_lo_s));
        hr_json_set(o, "cpu_s_over_glibc_hi", hr_json_new_num(r->over_hi_s));
        hr_json_set(o, "confidence", hr_json_new_num(r->over_conf));
    }
    hr_json_set(o, "max_rss_over_glibc",
                hr_json_new_num((double)r->max_rss - (double)base->max_rss));
    return o;
}

int hr_replay_startup_section(const hr_alloc_spec_t *specs, int nspecs, hr_report_builder_t *rb,
                              int quiet) {
    const char *libs[MAX_LIBS] = {""}, *names[MAX_LIBS] = {"glibc"};
    size_t n = 1;
    for (int i = 0; i < nspecs && n < MAX_LIBS; i++) {
        const char *lib = specs[i].lib;
        size_t k = 0;
        while (lib && lib[0] && k < n && strcmp(libs[k], lib) != 0)
            k++;
        /* an unreadable library's rows fail on their own (child.c) */
        if (lib && lib[0] && k == n && access(lib, R_OK) == 0) {
            libs[n] = lib;
            names[n++] = lib_owner(&specs[i]);
        }
    }
    if (n < 2) /* the C library alone: nothing to compare its start-up with */
        return 0;
    hr_startup_options_t opt = hr_startup_default();
    hr_startup_t rows[MAX_LIBS];
    hr_error_t err = {{0}};
    if (hr_startup_measure(hr_cli_self_exe(), libs, n, &opt, rows, &err) != 0) {
        if (!quiet) /* a report without start-up figures, not a failed replay */
            fprintf(stderr, "heapreplay replay: no start-up figures: %s\n", err.msg);
        return 0;
    }
    hr_json_t *sec = hr_json_new_object(), *arr = hr_json_new_array();
    if (!sec || !arr) {
        hr_json_free(sec);
        hr_json_free(arr);
        return 0;
    }
    hr_json_set(sec, "runs", hr_json_new_u64(rows[0].runs));
    hr_json_set(sec, "probe", hr_json_new_str("heapreplay __startup-probe"));
    for (size_t i = 0; i < n; i++)
        hr_json_push(arr, row_json(names[i], &rows[i], &rows[0]));
    hr_json_set(sec, "allocators", arr);
    hr_report_builder_set_doc(rb, NULL, "startup", sec);
    return 0;
}
