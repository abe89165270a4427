/* Report assembly from replay children's result lines (see builder.h). */
#include "report/builder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/metrics.h"
#include "base/outfile.h"
#include "base/sysinfo.h"
#include "replay/counter.h"
#include "report/report.h"
#include "report/stats.h"

struct hr_report_builder {
    hr_json_t       *doc, *results;
    int              failures;
    hr_render_opts_t render; /* how finish renders the text/Markdown report */
};

static hr_json_t *machine_json(void) {
    hr_emit_mem_t m;
    if (hr_emit_mem_open(&m, 1) != 0)
        return NULL; /* out of memory: noted by the caller */
    hr_machine_emit(&m.em, NULL);
    char *buf = hr_emit_mem_close(&m);
    if (!buf)
        return NULL;
    hr_json_t *v = hr_json_parse(buf, strlen(buf), "machine", NULL);
    free(buf);
    return v ? v : hr_json_new_null();
}

hr_report_builder_t *hr_report_builder_new(const hr_replay_options_t *opt) {
    hr_report_builder_t *rb = calloc(1, sizeof *rb);
    if (!rb)
        return NULL;
    rb->render = hr_render_opts_default();
    rb->doc = hr_report_new(PACKAGE_VERSION);
    if (!rb->doc) {
        free(rb);
        return NULL;
    }
    char when[32];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    hr_json_set(rb->doc, "created", hr_json_new_str(when));
    hr_json_t *machine = machine_json();
    if (!machine)
        hr_outfile_note_oom();
    hr_json_set(rb->doc, "machine", machine);
    hr_json_t *o = hr_json_new_object();
    hr_json_set(o, "repeat", hr_json_new_u64((uint64_t)opt->repeat));
    char tb[48];
    hr_json_set(o, "touch", hr_json_new_str(hr_touch_spec(opt->touch, opt->touch_cap, tb, sizeof tb)));
    hr_json_set(o, "access", hr_json_new_str(hr_access_spec(&opt->access, tb, sizeof tb)));
    hr_json_set(o, "warm_time_s", hr_json_new_num(opt->warm_time_s));
    if (opt->warm_stop > 0) /* warm_time_s is then the stopping rule's cap */
        hr_json_set(o, "warm_stop_pct", hr_json_new_num(opt->warm_stop * 100));
    hr_json_set(o, "stall_us", hr_json_new_num(opt->stall_us));
    hr_json_set(o, "verify", hr_json_new_bool(opt->verify));
    hr_json_set(o, "count", hr_json_new_str(hr_count_mode_name((hr_count_mode_t)opt->count)));
    if (opt->count == HR_COUNT_CALLGRIND) {
        /* what the count run pinned in the allocators' environment */
        hr_json_t *env = hr_json_new_array();
        for (int i = 0; hr_count_pinned_env[i]; i++)
            hr_json_push(env, hr_json_new_str(hr_count_pinned_env[i]));
        hr_json_set(o, "count_env", env);
    }
    hr_json_set(o, "clock", hr_json_new_str("thread_cpu"));
    hr_json_set(o, "timeout_s", hr_json_new_num(opt->timeout_s));
    hr_json_set(o, "budget", hr_json_new_u64(opt->budget));
    hr_json_set(o, "heap_config", hr_json_new_str(opt->heap_config));
    hr_json_set(o, "sample_interval_us", hr_json_new_u64(HR_SAMPLE_INTERVAL_US));
    hr_json_set(rb->doc, "options", o);
    rb->results = hr_json_new_array();
    if (hr_json_set(rb->doc, "results", rb->results) != 0)
        rb->results = NULL; /* freed by the failed set (out of memory, noted) */
    return rb;
}

/* Sets `path` (two segments at most) in obj to v. */
static void set_path(hr_json_t *root, const char *path, hr_json_t *v) {
    const char *dot = strchr(path, '.');
    if (!dot) {
        hr_json_set(root, path, v);
        return;
    }
    char head[64];
    snprintf(head, sizeof head, "%.*s", (int)(dot - path), path);
    hr_json_t *sub = (hr_json_t *)hr_json_get(root, head);
    if (!sub || sub->type != HR_JSON_OBJECT) {
        hr_json_free(v);
        return;
    }
    hr_json_set(sub, dot + 1, v);
}

/* Summary of the repeats' values at `path` (repeats without a number there
 * are skipped). */
static hr_stats_t stats_at(hr_json_t *const *runs, int n, const char *path) {
    double *vals = malloc((size_t)(n > 0 ? n : 1) * sizeof *vals);
    int k = 0;
    for (int i = 0; vals && i < n; i++) {
        double v = hr_json_path_num(runs[i], path);
        if (!isnan(v))
            vals[k++] = v;
    }
    hr_stats_t s = hr_stats_of(vals, k);
    free(vals);
    return s;
}

/* Appends samples[path] = every repeat's number at `path`, in repeat order
 * (exact integers stay exact: the values are copied, not converted). */
static void keep_samples(hr_json_t *samples, hr_json_t *const *runs, int n, const char *path) {
    hr_json_t *arr = hr_json_new_array();
    for (int i = 0; i < n; i++) {
        const hr_json_t *v = hr_json_path(runs[i], path);
        if (hr_json_type(v) == HR_JSON_NUMBER)
            hr_json_push(arr, hr_json_clone(v));
    }
    if (hr_json_len(arr))
        hr_json_set(samples, path, arr);
    else
        hr_json_free(arr);
}

/* Exact figures (HR_MERGE_EXACT) must agree between repeats of an allocator
 * whose footprint is exact: else the replay is not deterministic. */
static int exact_agree(hr_json_t *const *runs, int n) {
    if (!hr_metric_exact_source(runs[0]))
        return 1;
    for (int k = 0; k < HR_M__COUNT; k++) {
        if (hr_metrics[k].merge != HR_MERGE_EXACT)
            continue;
        double a = hr_json_path_num(runs[0], hr_metrics[k].path);
        for (int i = 1; i < n; i++) {
            double b = hr_json_path_num(runs[i], hr_metrics[k].path);
            if (!(a == b || (isnan(a) && isnan(b))))
                return 0;
        }
    }
    return 1;
}

/* Replaces the value at `path` by the median over the repeats, when the
 * result has a non-null value there. */
static void merge_median(hr_json_t *out, hr_json_t *const *runs, int n, const char *path) {
    if (!hr_json_path(out, path) || hr_json_type(hr_json_path(out, path)) == HR_JSON_NULL)
        return;
    set_path(out, path, hr_json_new_num(stats_at(runs, n, path).median));
}

/* A family's members: every key of its group object in the result. */
static void merge_family(hr_json_t *out, hr_json_t *const *runs, int n, const hr_metric_t *m) {
    char group[64], path[192];
    const hr_json_t *o = hr_json_get(out, hr_metric_group(m, group, sizeof group));
    for (size_t i = 0; i < hr_json_len(o) && hr_json_type(o) == HR_JSON_OBJECT; i++) {
        snprintf(path, sizeof path, "%s.%s", group, hr_json_key_at(o, i));
        merge_median(out, runs, n, path);
    }
}

/* HR_MERGE_RANGE: the median, with PATH_min, PATH_max and PATH_mad beside
 * it (the same samples). Returns the summary. */
static hr_stats_t merge_range(hr_json_t *out, hr_json_t *const *runs, int n, const char *path) {
    static const char *const suffix[] = {"_min", "_max", "_mad"};
    char end[160];
    hr_stats_t s = stats_at(runs, n, path);
    const double v[] = {s.min, s.max, s.mad};
    set_path(out, path, hr_json_new_num(s.median));
    for (int i = 0; i < 3; i++) {
        snprintf(end, sizeof end, "%s%s", path, suffix[i]);
        set_path(out, end, hr_json_new_num(v[i]));
    }
    return s;
}

/* Merges repeats metric by metric, as the registry says (base/metrics.h):
 * RANGE metrics get their summary and samples, HR_MF_SAMPLES metrics their
 * samples when the value is sampled, MEDIAN ones the median; the rest keep
 * the first repeat's value. */
hr_json_t *hr_results_merge(hr_json_t *const *runs, int n) {
    hr_json_t *out = hr_json_clone(runs[0]), *samples = hr_json_new_object();
    hr_stats_t rank = {0, NAN, NAN, NAN, NAN};
    hr_json_set(out, HR_RK_RUNS, hr_json_new_u64((uint64_t)n));
    if (!hr_json_get(out, "time")) {
        hr_json_free(samples);
        return out;
    }
    for (int k = 0; k < HR_M__COUNT; k++) {
        const hr_metric_t *m = &hr_metrics[k];
        int present = hr_json_type(hr_json_path(out, m->path)) == HR_JSON_NUMBER;
        if (m->merge == HR_MERGE_RANGE && present) {
            keep_samples(samples, runs, n, m->path);
            hr_stats_t s = merge_range(out, runs, n, m->path);
            if (m->flags & HR_MF_RANK)
                rank = s;
        } else if ((m->flags & HR_MF_SAMPLES) && present && hr_metric_sampled(m, out)) {
            keep_samples(samples, runs, n, m->path);
        } else if (m->merge == HR_MERGE_MEDIAN && m->family) {
            merge_family(out, runs, n, m);
        } else if (m->merge == HR_MERGE_MEDIAN) {
            merge_median(out, runs, n, m->path);
        }
    }
    hr_json_set(out, HR_RK_DETERMINISTIC, hr_json_new_bool(exact_agree(runs, n)));
    hr_json_set(out, HR_RK_UNSTABLE, hr_json_new_bool(hr_results_unstable(&rank)));
    hr_result_t *t = malloc(sizeof *t); /* the merged figures, decoded */
    if (t) {
        hr_report_result(out, t);
        hr_json_set(out, HR_RK_MOSTLY_FALLBACK, hr_json_new_bool(hr_result_mostly_fallback(t)));
        free(t);
    }
    hr_json_set(out, HR_RK_SAMPLES, samples);
    return out;
}

int hr_report_builder_add(hr_report_builder_t *rb, char **lines, int n, hr_error_t *err) {
    hr_json_t **ok = calloc((size_t)n, sizeof *ok), *first_bad = NULL;
    int nok = 0, nbad = 0;
    if (!ok) {
        hr_outfile_note_oom();
        hr_error_set(err, "out of memory");
        return -1;
    }
    hr_error_t perr;
    hr_error_set(&perr, "no result");
    for (int i = 0; i < n; i++) {
        hr_json_t *v = lines[i] ? hr_json_parse(lines[i], strlen(lines[i]), "replay result", &perr) : NULL;
        const char *status = hr_json_path_str(v, HR_RK_STATUS);
        if (status && strcmp(status, HR_RESULT_STATUS_OK) == 0) {
            ok[nok++] = v;
            continue;
        }
        nbad++;
        if (v && !first_bad)
            first_bad = v;
        else
            hr_json_free(v);
    }
    int rc = 0;
    if (nok) {
        hr_json_t *merged = hr_results_merge(ok, nok);
        if (nbad) {
            hr_json_set(merged, HR_RK_FAILED_RUNS, hr_json_new_u64((uint64_t)nbad));
            rb->failures++;
        }
        hr_json_push(rb->results, merged);
    } else if (first_bad) {
        hr_json_push(rb->results, first_bad);
        first_bad = NULL;
        rb->failures++;
    } else {
        *err = perr;
        rb->failures++;
        rc = -1;
    }
    hr_json_free(first_bad);
    for (int i = 0; i < nok; i++)
        hr_json_free(ok[i]);
    free(ok);
    return rc;
}

int hr_report_builder_finish(hr_report_builder_t *rb, const char *path,
                             hr_emit_format_t path_fmt, hr_emit_format_t fmt, FILE *out) {
    return hr_report_finish(rb->doc, path, path_fmt, fmt, &rb->render, out);
}

void hr_report_builder_set_render(hr_report_builder_t *rb, const hr_render_opts_t *o) {
    rb->render = *o;
}

void hr_report_builder_set_command(hr_report_builder_t *rb, int argc, char **argv) {
    size_t len = 16;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 3;
    char *cmd = calloc(1, len);
    if (!cmd) {
        hr_outfile_note_oom(); /* the report would lack its command */
        return;
    }
    strcpy(cmd, "heapreplay");
    for (int i = 0; i < argc; i++) {
        strcat(cmd, " ");
        strcat(cmd, argv[i]);
    }
    hr_json_set(rb->doc, "command", hr_json_new_str(cmd));
    free(cmd);
}

void hr_report_builder_interrupted(hr_report_builder_t *rb, const char *signame, int row) {
    hr_json_set(rb->doc, "interrupted", hr_json_new_str(signame));
    size_t n = hr_json_len(rb->results);
    if (row && n)
        hr_json_set((hr_json_t *)hr_json_at(rb->results, n - 1), HR_RK_INTERRUPTED,
                    hr_json_new_bool(1));
}

void hr_report_builder_set_last(hr_report_builder_t *rb, const char *key, hr_json_t *v) {
    size_t n = hr_json_len(rb->results);
    if (n)
        hr_json_set((hr_json_t *)hr_json_at(rb->results, n - 1), key, v);
    else
        hr_json_free(v);
}

int hr_report_builder_failures(const hr_report_builder_t *rb) { return rb->failures; }
const hr_json_t *hr_report_builder_doc(const hr_report_builder_t *rb) { return rb->doc; }

void hr_report_builder_set_doc(hr_report_builder_t *rb, const char *group, const char *key,
                               hr_json_t *v) {
    hr_json_t *o = group ? (hr_json_t *)hr_json_get(rb->doc, group) : rb->doc;
    if (hr_json_type(o) == HR_JSON_OBJECT)
        hr_json_set(o, key, v);
    else
        hr_json_free(v);
}

void hr_report_builder_free(hr_report_builder_t *rb) {
    if (!rb)
        return;
    hr_json_free(rb->doc);
    free(rb);
}

/* ---- one sample from its processes ------------------------------------- */

/* The parsed line, or NULL; *ok says whether its status is "ok". */
static hr_json_t *parse_line(const char *line, int *ok) {
    hr_json_t *v = line ? hr_json_parse(line, strlen(line), "replay result", NULL) : NULL;
    const char *st = hr_json_path_str(v, HR_RK_STATUS);
    *ok = st && strcmp(st, HR_RESULT_STATUS_OK) == 0;
    return v;
}

/* The verify process's verdict: its group, and status "invalid" (with the
 * first violation as the error) when it found one; a verify process that
 * crashed or failed makes the sample fail the same way. */
static void join_verify(hr_json_t *out, const char *line) {
    int ok;
    hr_json_t *v = parse_line(line, &ok);
    const hr_json_t *g = hr_json_get(v, "verify");
    if (ok && g) {
        hr_result_t t;
        hr_report_result(v, &t);
        const char *st = t.m.VERIFY_STATUS;
        hr_json_set(out, "verify", hr_json_clone(g));
        if (st && strcmp(st, "ok") != 0) {
            hr_json_set(out, HR_RK_STATUS, hr_json_new_str("invalid"));
            hr_json_set(out, HR_RK_ERROR, hr_json_new_str(t.m.VERIFY_ERROR));
        }
    } else {
        char msg[512];
        const char *st = hr_json_path_str(v, HR_RK_STATUS), *e = hr_json_path_str(v, HR_RK_ERROR);
        snprintf(msg, sizeof msg, "verify run: %s", e ? e : "no result");
        hr_json_set(out, HR_RK_STATUS, hr_json_new_str(st && !ok ? st : "error"));
        hr_json_set(out, HR_RK_ERROR, hr_json_new_str(msg));
    }
    hr_json_free(v);
}

static void join_count(hr_json_t *out, const char *line) {
    int ok;
    hr_json_t *v = parse_line(line, &ok);
    const hr_json_t *g = hr_json_get(v, "count");
    if (ok && g) {
        hr_json_set(out, "count", hr_json_clone(g));
    } else {
        hr_json_t *c = hr_json_new_object();
        const char *e = hr_json_path_str(v, HR_RK_ERROR);
        hr_json_set(c, HR_RK_ERROR, hr_json_new_str(e ? e : "no result"));
        hr_json_set(out, "count", c);
    }
    hr_json_free(v);
}

char *hr_result_join(const char *measure, const char *time, const char *verify,
                     const char *count) {
    int mok, tok;
    hr_json_t *m = parse_line(measure, &mok), *t = parse_line(time, &tok);
    /* The first process that did not end "ok" speaks for the sample. */
    const char *bad = !mok ? measure : !tok ? time : NULL;
    char *line = NULL;
    if (!mok || !tok) {
        line = bad ? strdup(bad) : NULL;
    } else {
        hr_json_t *mt = (hr_json_t *)hr_json_get(m, "time");
        const hr_json_t *tt = hr_json_get(t, "time");
        if (!mt || hr_json_type(mt) != HR_JSON_OBJECT) {
            mt = hr_json_new_object();
            hr_json_set(m, "time", mt);
        }
        for (size_t i = 0; i < hr_json_len(tt); i++)
            hr_json_set(mt, hr_json_key_at(tt, i), hr_json_clone(hr_json_at(tt, i)));
        /* how the timed laps ran (threads) is the time process's to say */
        static const char *const from_time[] = {"threads", HR_RK_PER_THREAD, "threads_native"};
        for (size_t i = 0; i < sizeof from_time / sizeof *from_time; i++) {
            const hr_json_t *g = hr_json_get(t, from_time[i]);
            if (g)
                hr_json_set(m, from_time[i], hr_json_clone(g));
        }
        if (verify)
            join_verify(m, verify);
        if (count)
            join_count(m, count);
        line = hr_json_to_string(m, 1);
    }
    hr_json_free(m);
    hr_json_free(t);
    return line;
}
