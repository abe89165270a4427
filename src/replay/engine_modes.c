/* The replay modes (engine.h): one process does one of them. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "base/hmem.h"
#include "base/nametab.h"
#include "base/order.h"
#include "base/sysinfo.h"
#include "replay/counter.h"
#include "replay/engine_int.h"
#include "replay/paced.h"
#include "replay/verify.h"
#include "replay/warmstop.h"

hr_replay_options_t hr_replay_options_default(void) {
    hr_replay_options_t o;
    memset(&o, 0, sizeof o);
    /* recorded: first, except where a capture measured what the program used
     * (the fidelity benchmark's best policy, docs/METRICS.md "Touch policy") */
    o.touch = HR_TOUCH_RECORDED;
    o.timeout_s = 600;
    o.repeat = 1;
    o.warm_time_s = HR_WARMSTOP_DEFAULT_MAX_S;
    o.warm_stop = HR_WARMSTOP_DEFAULT_PCT / 100;
    o.stall_us = 20;
    o.mode = HR_MODE_MEASURE;
    return o;
}

static const char *const touch_names[] = {"none", "first", "all", "recorded"};
#define N_TOUCH ((unsigned)(sizeof touch_names / sizeof *touch_names))
static const char *const mode_names[HR_MODE__COUNT] = {"measure", "time", "verify", "count"};
static const char *const threads_names[] = {"auto", "recorded", "serial"};

const char *hr_touch_name(hr_touch_t t) {
    return (unsigned)t < N_TOUCH ? touch_names[t] : "?";
}

int hr_touch_parse(const char *s, hr_touch_t *out, uint64_t *cap) {
    size_t len = strcspn(s, ":");
    uint64_t c = 0;
    if (s[len]) { /* ":SIZE" */
        char *end;
        const char *v = s + len + 1;
        if (*v < '0' || *v > '9')
            return -1;
        c = strtoull(v, &end, 10);
        int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
                  : *end == 'G' || *end == 'g' ? 30 : 0;
        if ((shift && *++end) || *end || c == 0 || c > (UINT64_MAX >> shift))
            return -1;
        c <<= shift;
    }
    for (unsigned i = 0; i < N_TOUCH; i++)
        if (strlen(touch_names[i]) == len && strncmp(s, touch_names[i], len) == 0) {
            if (c && i == HR_TOUCH_NONE)
                return -1;
            *out = (hr_touch_t)i;
            *cap = c;
            return 0;
        }
    return -1;
}

const char *hr_touch_spec(hr_touch_t t, uint64_t cap, char *buf, size_t n) {
    static const char suffix[] = {0, 'K', 'M', 'G'};
    int k = 0;
    while (cap && k < 3 && cap % 1024 == 0)
        cap /= 1024, k++;
    if (cap)
        snprintf(buf, n, "%s:%llu%.1s", hr_touch_name(t), (unsigned long long)cap, &suffix[k]);
    else
        snprintf(buf, n, "%s", hr_touch_name(t));
    return buf;
}

const char *hr_replay_mode_name(hr_replay_mode_t m) {
    return hr_name_at(mode_names, HR_MODE__COUNT, (int)m);
}

int hr_replay_mode_parse(const char *s, hr_replay_mode_t *out) {
    int i = hr_name_index(mode_names, HR_MODE__COUNT, s);
    if (i >= 0)
        *out = (hr_replay_mode_t)i;
    return i >= 0 ? 0 : -1;
}

const char *hr_threads_mode_name(hr_threads_mode_t m) {
    return hr_name_at(threads_names, HR_NAMES_N(threads_names), (int)m);
}

int hr_threads_mode_parse(const char *s, hr_threads_mode_t *out) {
    int i = hr_name_index(threads_names, HR_NAMES_N(threads_names), s);
    if (i >= 0)
        *out = (hr_threads_mode_t)i;
    return i >= 0 ? 0 : -1;
}

int hr_threads_on(const hr_trace_t *t, const hr_replay_options_t *opt) {
    return opt->threads == HR_THREADS_RECORDED ||
           (opt->threads == HR_THREADS_AUTO && t->n_threads > 1);
}

static const char *const form_names[] = {"auto", "decoded", "packed"};

const char *hr_event_form_name(hr_event_form_t f) {
    return hr_name_at(form_names, HR_NAMES_N(form_names), (int)f);
}

int hr_event_form_parse(const char *s, hr_event_form_t *out) {
    int i = hr_name_index(form_names, HR_NAMES_N(form_names), s);
    if (i >= 0)
        *out = (hr_event_form_t)i;
    return i >= 0 ? 0 : -1;
}

/* ---- time mode ----------------------------------------------------------- */

/* The most warm laps kept for the median (a 1 us trace would otherwise run
 * half a million laps). */
#define HR_MAX_WARM_LAPS 4096

/* The memory ops of the trace time_laps replays, shared by its laps
 * (hr_lean_t): set around time_laps' laps, NULL otherwise. */
static hr_lean_t *laps_lean;

/* One lap on a fresh instance: wall and thread-CPU ns of the op loop only
 * (creating the instance and freeing what the trace leaves live are not
 * timed). */
static int lap(const hr_trace_t *t, const hr_run_alloc_t *a, const hr_replay_options_t *opt,
               uint64_t *wall, uint64_t *cpu, hr_error_t *err) {
    run_t r;
    if (hr_run_open(&r, t, a, opt, err) != 0) {
        hr_run_close(&r, 1);
        return -1;
    }
    r.lean = laps_lean;
    hr_run_use_timed(&r);
    hr_run_lap_timed(&r, wall, cpu);
    hr_run_close(&r, 1);
    return 0;
}

int hr_replay_time(const hr_trace_t *t, const hr_backend_t *be, const char *spec,
                   const hr_replay_options_t *opt, uint64_t *wall_ns) {
    hr_error_t err = {{0}};
    hr_alloc_spec_t s;
    uint64_t cpu;
    hr_alloc_spec_bind(be, spec, &s);
    hr_run_alloc_t a = {&s, NULL};
    int rc = lap(t, &a, opt, wall_ns, &cpu, &err);
    hr_alloc_spec_free(&s);
    return rc;
}

/* The cold lap, then warm laps until warmstop.h says stop (at least one);
 * the warm figure is the median lap. */
static int time_laps(const hr_trace_t *t, const hr_run_alloc_t *a,
                     const hr_replay_options_t *opt, laps_t *out, hr_error_t *err) {
    memset(out, 0, sizeof *out);
    hr_events_prewalk(t);
    if (lap(t, a, opt, &out->cold_wall, &out->cold_cpu, err) != 0)
        return -1;
    size_t bytes = 2 * HR_MAX_WARM_LAPS * sizeof(uint64_t);
    uint64_t *walls = hr_hmem_alloc(bytes, HR_HMEM_POPULATE), *cpus = walls + HR_MAX_WARM_LAPS;
    hr_warmstop_opts_t so = hr_warmstop_default(opt->warm_stop, opt->warm_time_s);
    hr_warmstop_t ws;
    if (!walls || hr_warmstop_open(&ws, &so) != 0) {
        hr_hmem_free(walls, bytes);
        hr_error_set(err, "out of memory for the lap table");
        return -1;
    }
    uint64_t n = 0, w, c;
    int rc = 0;
    do {
        if ((rc = lap(t, a, opt, &w, &c, err)) != 0)
            break;
        if (n < HR_MAX_WARM_LAPS) {
            walls[n] = w;
            cpus[n] = c;
        }
        n++;
    } while (!hr_warmstop_lap(&ws, w, c));
    if (rc == 0) {
        size_t k = n < HR_MAX_WARM_LAPS ? (size_t)n : HR_MAX_WARM_LAPS;
        out->n_warm = n;
        out->warm_wall = hr_median_u64(walls, k);
        out->warm_cpu = hr_median_u64(cpus, k);
    }
    hr_warmstop_close(&ws);
    hr_hmem_free(walls, bytes);
    return rc;
}

/* Serial laps, or one OS thread per recorded thread (threads.c). */
static int replay_time(result_t *res, hr_emit_t *em, laps_t *laps, hr_error_t *err) {
    thr_result_t tr;
    int threaded = hr_threads_on(res->t, res->opt) && !(res->be->caps & HR_CAP_SERIAL_ONLY), rc;
    if (threaded) {
        rc = hr_threads_laps(res->t, res->alloc, res->opt, laps, &tr, err);
    } else {
        hr_lean_t lean = {NULL, 0, 0, 0};
        laps_lean = &lean;
        rc = time_laps(res->t, res->alloc, res->opt, laps, err);
        laps_lean = NULL;
        hr_lean_free(&lean);
    }
    if (rc == 0) {
        res->laps = laps;
        res->thr = threaded ? &tr : NULL;
        hr_result_emit(res, em);
    }
    if (threaded)
        hr_threads_done(&tr);
    return rc;
}

/* ---- the dispatcher ------------------------------------------------------- */

static int replay_measure(result_t *res, hr_emit_t *em, hr_error_t *err) {
    run_t r;
    hr_paced_result_t paced; /* first, in a process of its own: the lap below never sees it */
    hr_paced_memory(res->t, res->alloc, res->opt, &paced);
    if (paced.only)
        return 0;
    res->paced = &paced;
    measure_t *m = hr_hmem_alloc(sizeof *m, HR_HMEM_POPULATE);
    if (!m || hr_run_open(&r, res->t, res->alloc, res->opt, err) != 0) {
        if (m)
            hr_run_close(&r, 1);
        hr_hmem_free(m, sizeof *m);
        return -1;
    }
    (void)hr_cycle_hz(); /* calibrated once (~20 ms), before the lap */
    (void)hr_timer_overhead();
    uint64_t w0 = hr_now_ns();
    hr_measure_pass(&r, m, res->ext, res->opt);
    m->lap_wall_ns = hr_now_ns() - w0;
    res->m = m;
    res->r = &r;
    hr_result_emit(res, em); /* reads the backend's stats with the blocks still live */
    hr_run_close(&r, 1);
    hr_hmem_free(m, sizeof *m);
    return 0;
}

static int replay_verify(result_t *res, hr_emit_t *em, hr_error_t *err) {
    run_t r;
    hr_verify_t *v = hr_verify_new(res->t->n_ids, err);
    if (!v || hr_run_open(&r, res->t, res->alloc, res->opt, err) != 0) {
        if (v)
            hr_run_close(&r, 1);
        hr_verify_free(v);
        return -1;
    }
    int bad = hr_verify_lap(&r, v) != 0;
    res->verify = v;
    hr_result_emit(res, em);
    if (bad && em->out) /* the verdict is out before the broken allocator is destroyed */
        fflush(em->out);
    hr_run_close(&r, 1);
    hr_verify_free(v);
    return 0;
}

/* perf: the counter is switched on around each counted call, and the cost of
 * a counted call around an empty function is subtracted; callgrind: the
 * parent reads the total from callgrind's file after this process ends. */
static int replay_count(result_t *res, hr_emit_t *em, hr_error_t *err) {
    run_t r;
    count_t c = {"callgrind", 0, 0, 0, 0, 0};
    int perf = res->opt->count == HR_COUNT_PERF, fd = -1;
    uint64_t per_call = 0, total = 0;
    if (perf && ((fd = hr_perf_open(err)) < 0 || hr_perf_calibrate(fd, 5, 1000, &per_call, err) != 0))
        return -1;
    if (hr_run_open(&r, res->t, res->alloc, res->opt, err) != 0) {
        hr_run_close(&r, 1);
        return -1;
    }
    /* What the timed laps run is what is counted; this result reports no
     * stats of the instance. */
    hr_run_use_timed(&r);
    if (perf) {
        c.source = "perf";
        hr_perf_reset(fd);
        hr_counted_set_perf_fd(fd);
    }
    hr_kfaults_t f0, f1;
    hr_kfaults_now(&f0);
    c.calls = hr_count_lap(&r);
    hr_kfaults_now(&f1);
    hr_kfaults_t df = hr_kfaults_diff(&f0, &f1);
    c.faults = df.minor + df.major;
    c.major_faults = df.major;
    hr_counted_set_perf_fd(-1);
    int rc = perf ? hr_perf_read(fd, &total, err) : 0;
    if (perf && rc == 0) {
        c.insns = total > per_call * c.calls ? total - per_call * c.calls : 0;
        c.have_insns = 1;
    }
    if (fd >= 0)
        close(fd);
    if (rc == 0) {
        res->count = &c;
        hr_result_emit(res, em);
    }
    hr_run_close(&r, 1);
    return rc;
}

int hr_replay_spec(const hr_trace_t *t, const char *trace_name, const char *digest,
                   const hr_alloc_spec_t *spec, const hr_extstats_t *ext,
                   const hr_replay_options_t *opt, hr_emit_t *em) {
    hr_error_t err = {{0}};
    hr_run_alloc_t a = {spec, NULL};
    result_t res = {t, trace_name, digest, spec->text, spec->be, &a, ext, opt,
                    NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    laps_t laps;
    int rc = -1;
    int mode = (int)opt->mode;
    if ((spec->be->caps & HR_CAP_COMPOSITE) &&
        !(a.plan = hr_compose_plan_new(t, &spec->parts, spec->text, &err)))
        mode = -1; /* no replay: the error result below */
    switch (mode) {
    case HR_MODE_MEASURE:
        rc = replay_measure(&res, em, &err);
        break;
    case HR_MODE_TIME:
        rc = replay_time(&res, em, &laps, &err);
        break;
    case HR_MODE_VERIFY:
        rc = replay_verify(&res, em, &err);
        break;
    case HR_MODE_COUNT:
        rc = replay_count(&res, em, &err);
        break;
    default:
        if (mode >= 0)
            hr_error_set(&err, "unknown replay mode %d", mode);
        break;
    }
    if (rc != 0)
        hr_result_emit_error(&res, em, "error", err.msg[0] ? err.msg : "out of memory");
    hr_compose_plan_free(a.plan);
    return rc;
}

int hr_replay_one(const hr_trace_t *t, const char *trace_name, const char *digest,
                  const hr_backend_t *be, const char *spec, const hr_extstats_t *ext,
                  const hr_replay_options_t *opt, hr_emit_t *em) {
    hr_alloc_spec_t s;
    hr_alloc_spec_bind(be, spec, &s);
    int rc = hr_replay_spec(t, trace_name, digest, &s, ext, opt, em);
    hr_alloc_spec_free(&s);
    return rc;
}
