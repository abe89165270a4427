/* The result object of one replay (docs/REPORT_SCHEMA.md, docs/METRICS.md).
 * The engine fills one value per registry metric (base/metrics.h) and the
 * registry writes the keys, their types and grouping. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "replay/engine_int.h"
#include "replay/kcount.h"
#include "replay/paced.h"
#include "replay/sched.h"
#include "replay/verify.h"
#include "base/metrics.h"
#include "base/sysinfo.h"

void hr_result_head(hr_emit_t *em, const char *trace, const char *digest, const char *spec,
                    const char *status, const hr_replay_options_t *opt) {
    hr_emit_obj_begin(em, NULL);
    hr_emit_str(em, "trace", trace);
    if (digest)
        hr_emit_str(em, "trace_digest", digest);
    hr_emit_str(em, "allocator", spec);
    hr_emit_str(em, "status", status);
    hr_emit_u64(em, "runs", 1);
    char tb[48];
    hr_emit_str(em, "touch", hr_touch_spec(opt->touch, opt->touch_cap, tb, sizeof tb));
    if (hr_access_on(&opt->access)) /* none: the result as before the option existed */
        hr_emit_str(em, "access", hr_access_spec(&opt->access, tb, sizeof tb));
    if (opt->library)
        hr_emit_str(em, "library", opt->library);
}

static void emit_head(const result_t *res, hr_emit_t *em, const char *status) {
    hr_result_head(em, res->trace_name, res->digest, res->spec, status, res->opt);
    if (res->t->packed) /* decoded: the default, not said */
        hr_emit_str(em, "event_form", "packed");
}

void hr_result_emit_error(const result_t *res, hr_emit_t *em, const char *status, const char *msg) {
    emit_head(res, em, status);
    hr_emit_str(em, "error", msg);
    hr_emit_obj_end(em);
}

static double cyc_ns(uint64_t cyc) { return (double)cyc * 1e9 / hr_cycle_hz(); }

/* The time mode's laps: warm (median lap) and cold, by wall and by thread
 * CPU; ns_per_op and ops_per_s are CPU figures (the ranking figure: on a
 * shared machine CPU time is the one a neighbour's load disturbs least). */
static void lap_values(const result_t *res, hr_mval_t *v) {
    const laps_t *l = res->laps;
    double ops = (double)hr_trace_mem_ops(res->t);
    v[HR_M_WALL] = hr_mval_f64((double)l->warm_wall / 1e9);
    v[HR_M_CPU] = hr_mval_f64((double)l->warm_cpu / 1e9);
    v[HR_M_OPS_PER_S] = hr_mval_f64(l->warm_cpu ? ops * 1e9 / (double)l->warm_cpu : NAN);
    v[HR_M_NS_PER_OP] = hr_mval_f64(ops > 0 ? (double)l->warm_cpu / ops : NAN);
    v[HR_M_COLD_WALL] = hr_mval_f64((double)l->cold_wall / 1e9);
    v[HR_M_COLD_CPU] = hr_mval_f64((double)l->cold_cpu / 1e9);
    v[HR_M_COLD_NS_PER_OP] = hr_mval_f64(ops > 0 ? (double)l->cold_cpu / ops : NAN);
    v[HR_M_WARM_LAPS] = hr_mval_u64(l->n_warm);
    v[HR_M_CLOCK] = hr_mval_str("thread_cpu");
}

/* How the timed laps ran: serial, or one OS thread per recorded thread with
 * the process's throughput (wall) and the dependency waits per warm lap. */
static void thread_values(const result_t *res, hr_mval_t *v) {
    const thr_result_t *tr = res->thr;
    v[HR_M_THR_N] = hr_mval_u64(res->t->n_threads);
    v[HR_M_THR_MODE] = hr_mval_str(tr ? "recorded" : "serial");
    v[HR_M_THR_PACE] = hr_mval_str(tr && tr->pace > 0 ? "timestamps" : "none");
    if (!tr)
        return;
    const laps_t *l = res->laps;
    double ops = (double)hr_trace_mem_ops(res->t), laps = tr->n_warm ? (double)tr->n_warm : 1;
    tstat_t w = {0};
    for (uint32_t k = 0; k < tr->n; k++)
        w.spin_ns += tr->warm[k].spin_ns, w.sleep_ns += tr->warm[k].sleep_ns,
            w.waits += tr->warm[k].waits;
    if (tr->pace > 0)
        v[HR_M_THR_PACE_FACTOR] = hr_mval_f64(tr->pace);
    v[HR_M_THR_OPS_PER_S] = hr_mval_f64(l->warm_wall ? ops * 1e9 / (double)l->warm_wall : NAN);
    v[HR_M_THR_COLD_OPS_PER_S] = hr_mval_f64(l->cold_wall ? ops * 1e9 / (double)l->cold_wall : NAN);
    v[HR_M_THR_XFREES] = hr_mval_u64(tr->cross_frees);
    v[HR_M_THR_LOCKED] = hr_mval_u64(tr->locked);
    v[HR_M_THR_WAITS] = hr_mval_f64((double)w.waits / laps);
    v[HR_M_THR_WAIT_S] = hr_mval_f64((double)(w.spin_ns + w.sleep_ns) / laps / 1e9);
    v[HR_M_THR_SPIN_S] = hr_mval_f64((double)w.spin_ns / laps / 1e9);
}

/* Per replay thread, averaged over the warm laps: its ops, its CPU per op
 * (less spinning), its waits and its cross-thread frees. */
static void emit_per_thread(const result_t *res, hr_emit_t *em) {
    const thr_result_t *tr = res->thr;
    double laps = tr->n_warm ? (double)tr->n_warm : 1;
    hr_emit_arr_begin(em, "per_thread");
    for (uint32_t k = 0; k < tr->n; k++) {
        const tstat_t *w = &tr->warm[k];
        const hr_stream_t *st = &tr->sched->s[k];
        double cpu = (double)hr_tstat_work_ns(w) / laps;
        hr_emit_obj_begin(em, NULL);
        hr_emit_u64(em, "thread", k);
        hr_emit_u64(em, "ops", st->mem_ops);
        hr_emit_u64(em, "events", st->n);
        hr_emit_f64(em, "ns_per_op", st->mem_ops ? cpu / (double)st->mem_ops : NAN);
        hr_emit_f64(em, "cpu_s", cpu / 1e9);
        hr_emit_f64(em, "waits", (double)w->waits / laps);
        hr_emit_f64(em, "wait_s", (double)(w->spin_ns + w->sleep_ns) / laps / 1e9);
        hr_emit_u64(em, "cross_thread_frees", st->cross_frees);
        /* over the warm laps: frees that found no block (failed allocs) */
        hr_emit_u64(em, "empty_frees", w->empty_frees);
        hr_emit_bool(em, "locked", st->locked && !(res->be->caps & HR_CAP_THREAD_SAFE));
        hr_emit_obj_end(em);
    }
    hr_emit_arr_end(em);
}

/* The measure mode's timings: latency, frames, stalls (kept out of both). */
static void measure_values(const result_t *res, hr_mval_t *v) {
    const measure_t *m = res->m;
    v[HR_M_MEASURE_S] = hr_mval_f64(cyc_ns(m->op_cyc) / 1e9);
    v[HR_M_MEASURE_WALL] = hr_mval_f64((double)m->lap_wall_ns / 1e9);
    v[HR_M_P50] = hr_mval_f64(cyc_ns(hr_lat_quantile(&m->lat, 0.50)));
    v[HR_M_P90] = hr_mval_f64(cyc_ns(hr_lat_quantile(&m->lat, 0.90)));
    v[HR_M_P99] = hr_mval_f64(cyc_ns(hr_lat_quantile(&m->lat, 0.99)));
    v[HR_M_P999] = hr_mval_f64(cyc_ns(hr_lat_quantile(&m->lat, 0.999)));
    v[HR_M_LAT_MAX] = hr_mval_f64(cyc_ns(m->lat.max));
    v[HR_M_LAT_RAW_MAX] = hr_mval_f64(cyc_ns(m->raw_max_cyc));
    v[HR_M_LAT_SAMPLES] = hr_mval_u64(m->lat.n);
    if (m->frames > 1) { /* a play frame: the first frame op closes the load */
        v[HR_M_WF_INDEX] = hr_mval_u64(m->worst_frame_index);
        v[HR_M_WF_NS] = hr_mval_f64(cyc_ns(m->worst_frame_cyc));
        v[HR_M_WF_FRAMES] = hr_mval_u64(m->frames);
        v[HR_M_WF_RAW_NS] = hr_mval_f64(cyc_ns(m->raw_worst_frame_cyc));
    }
    if (m->load_done) { /* a trace with frames: its load apart */
        v[HR_M_LOAD_EVENTS] = hr_mval_u64(m->load_events);
        v[HR_M_LOAD_ALLOCS] = hr_mval_u64(m->load_allocs);
        v[HR_M_LOAD_BYTES] = hr_mval_u64(m->load_bytes);
        v[HR_M_LOAD_PEAK_LIVE] = hr_mval_u64(m->load_peak_live);
        v[HR_M_LOAD_NS] = hr_mval_f64(cyc_ns(m->load_cyc));
        v[HR_M_LOAD_PEAK_FP] = hr_mval_u64(m->load_peak_fp);
    }
    v[HR_M_STALL_OPS] = hr_mval_u64(m->stall_ops);
    v[HR_M_STALL_FRAMES] = hr_mval_u64(m->stall_frames);
    v[HR_M_STALL_NS] = hr_mval_f64(cyc_ns(m->stall_cyc));
}

static void verify_values(const result_t *res, hr_mval_t *v) {
    uint64_t ev = 0;
    const char *msg = NULL;
    hr_verify_kind_t k = hr_verify_result(res->verify, &ev, &msg);
    v[HR_M_VERIFY_STATUS] = hr_mval_str(k == HR_VERIFY_OK ? "ok" : "invalid");
    v[HR_M_VERIFY_CHECKED] = hr_mval_u64(hr_verify_checked(res->verify));
    v[HR_M_VERIFY_KIND] = hr_mval_str(hr_verify_kind_name(k));
    if (k != HR_VERIFY_OK) {
        v[HR_M_VERIFY_EVENT] = hr_mval_u64(ev);
        v[HR_M_VERIFY_ERROR] = hr_mval_str(msg);
    }
}

/* Instructions per memory op of the trace (an emulated realloc is two
 * calls, both counted). callgrind's total is filled in by the parent. */
static void count_values(const result_t *res, hr_mval_t *v) {
    const count_t *c = res->count;
    uint64_t ops = hr_trace_mem_ops(res->t);
    v[HR_M_COUNT_SOURCE] = hr_mval_str(c->source);
    v[HR_M_COUNT_CALLS] = hr_mval_u64(c->calls);
    v[HR_M_COUNT_FAULTS] = hr_mval_u64(c->faults);
    v[HR_M_COUNT_MAJOR_FAULTS] = hr_mval_u64(c->major_faults);
    if (c->have_insns) { /* perf: no system-call count (replay/kcount.h) */
        uint64_t cost = hr_kcost(c->insns, c->faults, 0);
        v[HR_M_COUNT_INSNS] = hr_mval_u64(c->insns);
        v[HR_M_COUNT_PER_OP] = hr_mval_f64(ops ? (double)c->insns / (double)ops : NAN);
        v[HR_M_COUNT_COST] = hr_mval_u64(cost);
        v[HR_M_COUNT_COST_PER_OP] = hr_mval_f64(ops ? (double)cost / (double)ops : NAN);
    }
}

static const char *fp_source(const result_t *res) {
    if (res->be->footprint)
        return HR_FP_SOURCE_EXACT;
    if (res->m && res->m->ext_ok)
        return res->ext->source;
    return "rss";
}

static double ratio_over(uint64_t num, uint64_t den) {
    return den ? ((double)num - (double)den) / (double)den : NAN;
}

/* Memory figures of the instrumented lap, the budget and failed allocations. */
static void memory_values(const result_t *res, hr_mval_t *v) {
    const measure_t *m = res->m;
    v[HR_M_PEAK_LIVE] = hr_mval_u64(m->peak_live);
    v[HR_M_PEAK_FP] = hr_mval_u64(m->peak_fp);
    v[HR_M_FP_SOURCE] = hr_mval_str(fp_source(res));
    v[HR_M_FP_AT_PEAK_LIVE] = hr_mval_u64(m->fp_at_peak_live);
    v[HR_M_LIVE_AT_PEAK_FP] = hr_mval_u64(m->live_at_peak_fp);
    v[HR_M_PEAK_RSS] = hr_mval_u64(m->peak_rss > m->rss_base ? m->peak_rss - m->rss_base : 0);
    v[HR_M_RSS_BASE] = hr_mval_u64(m->rss_base);
    /* the worker's whole peak: with the allocator's own start-up, which the
     * real program pays too (docs/METRICS.md, "Peak RSS") */
    v[HR_M_PEAK_RSS_ALL] = hr_mval_u64(m->peak_rss > m->rss_base ? m->peak_rss : m->rss_base);
    v[HR_M_FRAG_JW4] = hr_mval_f64(ratio_over(m->peak_fp, m->peak_live));
    v[HR_M_FRAG_JW3] = hr_mval_f64(ratio_over(m->peak_fp, m->live_at_peak_fp));
    if (res->be->usable_size)
        v[HR_M_SLOP] = hr_mval_i64(m->slop_at_peak_live);
    if (res->opt->budget) {
        v[HR_M_BUDGET_BYTES] = hr_mval_u64(res->opt->budget);
        if (m->have_budget_fail) {
            int32_t h = m->budget_fail_heap;
            v[HR_M_BUDGET_FAIL] = hr_mval_u64(m->budget_fail_at);
            v[HR_M_BUDGET_FAIL_FRAME] = hr_mval_u64(m->budget_fail_frame);
            v[HR_M_BUDGET_FAIL_HEAP] = hr_mval_str(h >= 0 && (uint32_t)h < res->t->n_strings
                                                       ? res->t->strings[h] : "(none)");
        }
    }
    v[HR_M_FAILED_ALLOCS] = hr_mval_u64(m->failed);
    if (m->failed)
        v[HR_M_FIRST_FAILED] = hr_mval_u64(m->first_failed);
}

/* The op-table families: every op's count, and ns/op of each memory op
 * (null when the trace has none of it). */
static void family_values(const result_t *res, hr_mval_t *counts, hr_mval_t *ns,
                          const char **keys, unsigned char *all, unsigned char *mem) {
    const measure_t *m = res->m;
    for (unsigned op = 0; op < HR_OP__COUNT; op++) {
        keys[op] = hr_op_info[op].key;
        /* pool ops are lowered before replay (always 0 here); a hint op is
         * listed only when the trace has one (captures since `touched`) */
        all[op] = !hr_op_is_pool(op) &&
                  (!hr_op_is_hint(op) || res->t->op_counts[op] != 0);
        mem[op] = (unsigned char)hr_op_is_mem(op);
        counts[op] = hr_mval_u64(res->t->op_counts[op]);
        ns[op] = m && m->cnt[op] ? hr_mval_f64(cyc_ns(m->cyc[op]) / (double)m->cnt[op]) : (hr_mval_t){0};
    }
}

void hr_result_emit(const result_t *res, hr_emit_t *em) {
    hr_mval_t v[HR_M__COUNT], counts[HR_OP__COUNT], ns[HR_OP__COUNT];
    const char *keys[HR_OP__COUNT];
    unsigned char all[HR_OP__COUNT], mem[HR_OP__COUNT];
    memset(v, 0, sizeof v);
    v[HR_M_OPS_TOTAL] = hr_mval_u64(hr_trace_mem_ops(res->t));
    v[HR_M_OPS_EVENTS] = hr_mval_u64(res->t->n_events);
    if (res->laps) {
        lap_values(res, v);
        thread_values(res, v);
    }
    if (res->m) {
        measure_values(res, v);
        memory_values(res, v);
        hr_paced_values(res->paced, v); /* which lap's peak RSS (paced.h) */
    }
    if (res->verify)
        verify_values(res, v);
    if (res->count)
        count_values(res, v);
    family_values(res, counts, ns, keys, all, mem);
    hr_mfamily_t fam[] = {
        [HR_MFAM_NONE] = {0, NULL, NULL, NULL},
        [HR_MFAM_OPS] = {HR_OP__COUNT, keys, all, counts},
        [HR_MFAM_MEM_OPS] = {HR_OP__COUNT, keys, mem, ns},
    };
    /* An external allocator that returned NULL failed the benchmark: its
     * figures describe a different workload (the blocks it refused were
     * never touched or freed). In-house allocators report their failures
     * as figures (failed_allocs, out_of_memory), their designed behaviour. */
    int oom = res->m && res->m->failed && res->ext && !(res->be->caps & HR_CAP_COMPOSITE) &&
              res->m->first_failed < res->t->n_events;
    emit_head(res, em, oom ? "oom" : "ok");
    if (oom) {
        hr_event_t ev = {0};
        (void)hr_trace_event_at(res->t, res->m->first_failed, &ev);
        char msg[200];
        snprintf(msg, sizeof msg, "the allocator returned NULL for %llu of %llu requests "
                 "(first: event %llu, %llu bytes)", (unsigned long long)res->m->failed,
                 (unsigned long long)(res->t->op_counts[HR_OP_ALLOC] +
                                      res->t->op_counts[HR_OP_CALLOC] +
                                      res->t->op_counts[HR_OP_REALLOC]),
                 (unsigned long long)res->m->first_failed,
                 (unsigned long long)hr_event_bytes(&ev));
        hr_emit_str(em, "error", msg);
    }
    hr_metrics_emit(em, v, fam);
    if (res->thr) {
        emit_per_thread(res, em);
        /* an external allocator's own statistics after the threaded laps
         * (arenas, thread caches); "native" stays the measure lap's */
        if (res->ext && res->ext->emit) {
            hr_emit_obj_begin(em, "threads_native");
            res->ext->emit(em);
            hr_emit_obj_end(em);
        }
    }
    hr_emit_obj_begin(em, "native");
    if (res->be->stats && res->r && res->r->inst)
        res->be->stats(res->r->inst, em);
    if (res->m && res->ext && res->ext->emit)
        res->ext->emit(em);
    hr_emit_obj_end(em);
    if (res->m)
        hr_series_emit(res, em);
    hr_emit_obj_end(em);
}
