/* heapreplay info TRACE...: what a trace holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/frames_by.h"
#include "trace/trace.h"
#include "base/emit.h"
#include "base/json.h"
#include "trace/scan.h"
#include "trace/threadsel.h"

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
        if (s->marks[i] && !hr_is_frame_by(t, i)) /* those are in frames_by */
            hr_emit_str(em, NULL, t->strings[i]);
    hr_emit_arr_end(em);
}

/* The engine's own pools (palloc/pfree/prealloc, annotate.h's
 * hr_alloc_named), by name. */
static void info_pools_json(const hr_trace_t *t, hr_emit_t *em) {
    hr_pool_stat_t *ps;
    int n = hr_trace_pools(t, &ps);
    hr_emit_arr_begin(em, "pools");
    for (int i = 0; i < n; i++) {
        hr_emit_obj_begin(em, NULL);
        hr_emit_str(em, "name", t->strings[ps[i].name]);
        hr_emit_u64(em, "allocs", ps[i].allocs);
        hr_emit_u64(em, "frees", ps[i].frees);
        hr_emit_u64(em, "reallocs", ps[i].reallocs);
        hr_emit_u64(em, "bytes", ps[i].bytes);
        hr_emit_u64(em, "peak_live_bytes", ps[i].peak_live);
        hr_emit_obj_end(em);
    }
    hr_emit_arr_end(em);
    free(ps);
}

static void info_pools_text(const hr_trace_t *t) {
    hr_pool_stat_t *ps;
    int n = hr_trace_pools(t, &ps);
    printf("  pools          ");
    for (int i = 0; i < n; i++)
        printf("%s%s (%llu allocs, %llu reallocs, peak live %llu bytes)", i ? ", " : " ",
               t->strings[ps[i].name], (unsigned long long)ps[i].allocs,
               (unsigned long long)ps[i].reallocs, (unsigned long long)ps[i].peak_live);
    printf("%s\n", n < 0 ? " (out of memory)" : "");
    free(ps);
}

/* Named frame streams (hr_frame_named) and their frame counts. */
static void info_streams_json(const hr_trace_t *t, hr_emit_t *em) {
    hr_stream_stat_t *ss;
    int n = hr_trace_streams(t, &ss);
    hr_emit_arr_begin(em, "frame_streams");
    for (int i = 0; i < n; i++) {
        hr_emit_obj_begin(em, NULL);
        hr_emit_str(em, "name", t->strings[ss[i].name]);
        hr_emit_u64(em, "frames", ss[i].frames);
        hr_emit_obj_end(em);
    }
    hr_emit_arr_end(em);
    free(ss);
}

static void info_streams_text(const hr_trace_t *t) {
    hr_stream_stat_t *ss;
    int n = hr_trace_streams(t, &ss);
    printf("  frame streams  ");
    for (int i = 0; i < n; i++)
        printf("%s%s (%llu frames)", i ? ", " : " ", t->strings[ss[i].name],
               (unsigned long long)ss[i].frames);
    printf("%s\n", n < 0 ? " (out of memory)" : "");
    free(ss);
}

/* Pools and named frame streams need the events: a trace that has them is
 * read whole once more (the summary keeps no events). */
static int has_details(const hr_trace_summary_t *s) {
    return s->named_frames || s->t.op_counts[HR_OP_POOL_ALLOC] || s->t.op_counts[HR_OP_POOL_REALLOC];
}

/* Frames of the main stream (hr_frame: a frame event without a stream name). */
static uint64_t main_frames(const hr_trace_summary_t *s) {
    return s->t.op_counts[HR_OP_FRAME] - s->named_frames;
}

static void info_emit(const char *path, const hr_trace_summary_t *s, const hr_trace_t *full,
                      hr_emit_t *em) {
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
    hr_emit_u64(em, "frames", main_frames(s));
    hr_frames_by_json(em, t, s->marks, main_frames(s));
    hr_emit_u64(em, "peak_live_bytes", t->peak_live);
    hr_emit_bool(em, "timestamps", (t->flags & HR_TRACEF_TIMESTAMPS) != 0);
    if ((t->flags & HR_TRACEF_TIMESTAMPS) && t->n_events)
        hr_emit_u64(em, "duration_ns", s->last_ts - s->first_ts);
    hr_emit_u64(em, "file_bytes", bytes);
    hr_emit_f64(em, "bytes_per_event", t->n_events ? (double)bytes / (double)t->n_events : 0);
    if (t->command) /* which program the process ran (1.8): only when recorded */
        hr_emit_str(em, "command", t->command);
    hr_json_t *prog = hr_program_json(&t->program);
    if (prog) /* the program's own run time: only when the trace records it */
        hr_json_emit(em, "program", prog);
    hr_json_free(prog);
    info_heaps(s, em);
    if (full) {
        info_pools_json(full, em);
        info_streams_json(full, em);
    } else {
        hr_emit_arr_begin(em, "pools");
        hr_emit_arr_end(em);
        hr_emit_arr_begin(em, "frame_streams");
        hr_emit_arr_end(em);
    }
    hr_emit_obj_end(em);
}

static void info_text(const char *path, const hr_trace_summary_t *s, const hr_trace_t *full) {
    const hr_trace_t *t = &s->t;
    struct stat st;
    uint64_t bytes = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
    printf("%s\n  digest          %s\n  events          %zu\n", path, s->digest, t->n_events);
    for (unsigned op = 0; op < HR_OP__COUNT; op++)
        printf("    %-12s  %llu\n", hr_op_name(op), (unsigned long long)t->op_counts[op]);
    printf("  ids (max live)  %u\n  threads         %u\n  frames          %llu\n", t->n_ids,
           t->n_threads, (unsigned long long)main_frames(s));
    printf("  frame sources   ");
    hr_frames_by_text(stdout, t, s->marks, main_frames(s));
    printf("\n  peak live       %llu bytes (%.2f MiB)\n", (unsigned long long)t->peak_live,
           (double)t->peak_live / 1048576.0);
    printf("  timestamps      %s\n", (t->flags & HR_TRACEF_TIMESTAMPS) ? "yes" : "no");
    printf("  file            %llu bytes, %.2f bytes/event\n", (unsigned long long)bytes,
           t->n_events ? (double)bytes / (double)t->n_events : 0.0);
    if (t->command)
        printf("  command         %s\n", t->command);
    const hr_program_time_t *pt = &t->program;
    if (pt->runs && (pt->flags & HR_PROGF_CAPTURED))
        printf("  program         wall %.3f s, CPU %.3f s, max RSS %.2f MiB: the captured run "
               "(slowed by the capture)\n", (double)pt->wall_ns / 1e9, (double)pt->cpu_ns / 1e9,
               (double)pt->max_rss / 1048576.0);
    else if (pt->runs)
        printf("  program         wall %.3f s, CPU %.3f s (min %.3f, max %.3f), max RSS %.2f MiB: "
               "median of %u run%s without the capture library\n", (double)pt->wall_ns / 1e9,
               (double)pt->cpu_ns / 1e9, (double)pt->cpu_min_ns / 1e9,
               (double)pt->cpu_max_ns / 1e9, (double)pt->max_rss / 1048576.0, pt->runs,
               pt->runs == 1 ? "" : "s");
    if (pt->runs && pt->cpus) { /* the noise record (docs/METRICS.md, "Machine load") */
        printf("  program noise   MAD %.3f s; load average %.2f before, %.2f after, %u CPUs",
               (double)pt->cpu_mad_ns / 1e9, pt->load_before_c / 100.0, pt->load_after_c / 100.0,
               pt->cpus);
        if (pt->flags & HR_PROGF_OTHER_CPU)
            printf("; other programs kept %.2f CPUs busy", pt->other_cpu_c / 100.0);
        printf("\n");
    }
    printf("  heaps          ");
    for (uint32_t i = 0, n = 0; i < t->n_strings; i++)
        if (s->pushes[i])
            printf("%s%s", n++ ? ", " : " ", t->strings[i]);
    printf("\n");
    if (full) {
        info_pools_text(full);
        info_streams_text(full);
    } else {
        printf("  pools          \n  frame streams  \n");
    }
}

/* ---- --thread ------------------------------------------------------------ */

/* What info was asked for. */
typedef struct info_args {
    int            json;
    int            threads; /* --thread given */
    hr_threadsel_t sel;     /* its ids; n == 0: all */
    const char    *sel_arg;
} info_args_t;

/* The per-thread table (every thread, or the chosen ones) and, with chosen
 * threads, the figures of the trace cut to them (threadsel.h). */
static void thread_rows(const hr_trace_t *t, const hr_thread_stat_t *st, const info_args_t *ia,
                        hr_emit_t *em, int json) {
    if (json)
        hr_emit_arr_begin(em, "per_thread");
    else
        printf("  threads         events, blocks made, blocks ended (of them other threads'), "
               "own blocks ended by other threads, frames\n");
    for (uint32_t k = 0; k < t->n_threads; k++) {
        int shown = ia->sel.n == 0;
        for (uint32_t j = 0; j < ia->sel.n; j++)
            shown |= ia->sel.ids[j] == k;
        if (!shown)
            continue;
        const hr_thread_stat_t *s = &st[k];
        if (!json) {
            printf("    t%-4u %10llu events %10llu blocks %10llu ended (%llu others') %6llu by "
                   "others %6llu frames\n", k, (unsigned long long)s->events,
                   (unsigned long long)s->blocks, (unsigned long long)s->frees,
                   (unsigned long long)s->xfrees, (unsigned long long)s->xfreed,
                   (unsigned long long)s->frames);
            continue;
        }
        hr_emit_obj_begin(em, NULL);
        hr_emit_u64(em, "thread", k);
        hr_emit_u64(em, "events", s->events);
        hr_emit_u64(em, "blocks", s->blocks);
        hr_emit_u64(em, "ended", s->frees);
        hr_emit_u64(em, "ended_of_others", s->xfrees);
        hr_emit_u64(em, "ended_by_others", s->xfreed);
        hr_emit_u64(em, "frames", s->frames);
        hr_emit_obj_end(em);
    }
    if (json)
        hr_emit_arr_end(em);
}

/* The --thread part of one trace: 0, or -1 with err. */
static int info_threads(const char *path, const info_args_t *ia, hr_emit_t *em, hr_error_t *err) {
    hr_trace_t t;
    hr_thread_stat_t *st = NULL;
    hr_trace_init(&t);
    int rc = hr_trace_read_file(path, HR_FMT_AUTO, &t, err);
    if (rc == 0 && hr_thread_stats(&t, &st) != 0) {
        hr_error_set(err, "%s: --thread: out of memory", path);
        rc = -1;
    }
    for (uint32_t j = 0; rc == 0 && j < ia->sel.n; j++)
        if (ia->sel.ids[j] >= t.n_threads) {
            hr_error_set(err, "%s: no thread %u: the trace has threads 0..%u", path,
                         ia->sel.ids[j], t.n_threads ? t.n_threads - 1 : 0);
            rc = -1;
        }
    if (rc == 0) {
        if (ia->json) {
            hr_emit_obj_begin(em, NULL);
            hr_emit_str(em, "trace", path);
        } else {
            printf("%s\n", path);
        }
        thread_rows(&t, st, ia, em, ia->json);
        size_t all = t.n_events;
        int64_t kept = ia->sel.n ? hr_threadsel_apply(&t, &ia->sel, path, err) : 0;
        if (kept > 0 && ia->json) {
            hr_emit_obj_begin(em, "selected");
            hr_emit_str(em, "threads", ia->sel_arg);
            hr_emit_u64(em, "events", t.n_events);
            hr_emit_u64(em, "ops", hr_trace_mem_ops(&t));
            hr_emit_u64(em, "peak_live_bytes", t.peak_live);
            hr_emit_obj_end(em);
        } else if (kept > 0) {
            printf("  --thread %s     %llu of %zu events kept, %llu memory ops, peak live %llu "
                   "bytes (%.2f MiB)\n", ia->sel_arg, (unsigned long long)t.n_events, all,
                   (unsigned long long)hr_trace_mem_ops(&t), (unsigned long long)t.peak_live,
                   (double)t.peak_live / 1048576.0);
        }
        if (ia->json)
            hr_emit_obj_end(em);
        rc = kept < 0 ? -1 : 0;
    }
    free(st);
    hr_trace_free(&t);
    return rc;
}

static const hr_opt_t info_opts[] = {
    {'j', "json", NULL, "print a JSON array, one object per trace"},
    {'t', "thread", "all|ID,...", "instead: per recorded thread its events, the blocks it made "
     "and ended, those of other threads it ended and its own that others ended; with ids, only "
     "those threads and the trace cut to them as `replay --thread` replays it"},
    HR_OPT_MAX_INPUT_ROW,
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_info = {
    .name = "info", .operands = "TRACE...", .opts = info_opts, .min_operands = 1, .max_operands = -1,
    .summary = "print a trace's counts, threads, heaps, pools, frames and peak live"};

static int on_opt(void *ctx, const hr_optarg_t *o) {
    info_args_t *ia = ctx;
    hr_error_t err = {{0}};
    if (o->key == HR_OPT_MAX_INPUT)
        return hr_opt_max_input(o);
    if (o->key == 'j') {
        ia->json = 1;
        return 0;
    }
    ia->threads = 1; /* 't' */
    ia->sel_arg = o->arg;
    if (strcmp(o->arg, "all") == 0) {
        ia->sel.n = 0;
        return 0;
    }
    if (hr_threadsel_parse(o->arg, &ia->sel, &err) != 0)
        return hr_cli_usage_error("info", "--thread: %s", err.msg);
    return 0;
}

int hr_cmd_info(int argc, char **argv) {
    info_args_t ia = {0};
    int first, rc;
    if ((rc = hr_opts_parse(&hr_spec_info, argc, argv, on_opt, &ia, &first)) != 0)
        return rc == HR_OPTS_HELP ? 0 : rc;
    int json = ia.json;
    hr_emit_t em;
    hr_emit_init(&em, stdout, HR_EMIT_JSON);
    if (json)
        hr_emit_arr_begin(&em, NULL);
    for (int i = first; i < argc; i++) {
        if (ia.threads) {
            hr_error_t err = {{0}};
            if (info_threads(argv[i], &ia, &em, &err) != 0) {
                fprintf(stderr, "heapreplay info: %s\n", err.msg);
                rc = 2;
            }
            continue;
        }
        hr_trace_summary_t s; /* read in slices: no event array (trace/scan.h) */
        hr_trace_t full;
        hr_error_t err = {{0}};
        hr_trace_init(&full);
        int details = 0; /* scan_file leaves s empty when it fails */
        if (hr_trace_scan_file(argv[i], &s, &err) != 0 ||
            ((details = has_details(&s)) &&
             hr_trace_read_file(argv[i], HR_FMT_AUTO, &full, &err) != 0)) {
            fprintf(stderr, "heapreplay info: %s\n", err.msg);
            rc = 2;
            hr_trace_free(&full);
            hr_trace_summary_free(&s);
            continue;
        }
        const hr_trace_t *f = details ? &full : NULL;
        if (json)
            info_emit(argv[i], &s, f, &em);
        else
            info_text(argv[i], &s, f);
        hr_trace_free(&full);
        hr_trace_summary_free(&s);
    }
    if (json) {
        hr_emit_arr_end(&em);
        hr_emit_end(&em);
    }
    return rc;
}
