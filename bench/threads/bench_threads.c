/* Threaded replay overhead: on a trace with no cross-thread frees,
 * the threaded time mode (one OS thread per recorded thread, the schedule's
 * flag test per event, lap start and end hand-offs) against a serial replay
 * of the same per-thread streams, one after another, each on its own
 * instance (as each thread has its own), on one thread — both
 * pinned to one core, so threads cannot run in parallel and the difference
 * is the harness's. Figures: CPU time of the median warm lap (threaded: every
 * thread's CPU summed), interleaved A B A B over ROUNDS rounds, the ratio
 * threaded / serial per round, median and range. Target: <= 1.03.
 * Usage: bench_threads [ALLOCATOR [TRACE]]; default: bump on a generated
 * particles trace with 4 threads and 2 M events. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "base/json.h"
#include "trace/gen.h"
#include "replay/engine.h"
#include "replay/sched.h"

#define ROUNDS 11

/* Median warm-lap CPU seconds of the time mode on `t`. */
static double time_cpu(const hr_trace_t *t, const hr_backend_t *be, int threads) {
    hr_emit_mem_t m;
    hr_emit_mem_open(&m, 1);
    hr_replay_options_t opt = hr_replay_options_default();
    opt.mode = HR_MODE_TIME;
    opt.touch = HR_TOUCH_NONE;
    opt.warm_time_s = 0.3;
    opt.threads = threads;
    hr_replay_one(t, "bench", "0000000000000000", be, be->name, NULL, &opt, &m.em);
    char *buf = hr_emit_mem_close(&m);
    hr_json_t *v = hr_json_parse(buf, strlen(buf), "result", NULL);
    double cpu = v ? hr_json_path_num(v, "time.cpu_s") : -1;
    if (!v || cpu <= 0)
        fprintf(stderr, "bench_threads: replay failed: %s\n", buf);
    hr_json_free(v);
    free(buf);
    return cpu;
}

/* Each stream as a serial trace of its own: same events, renamed ids, no
 * sync flags (there are no cross-thread chains). Each is replayed on its own
 * instance, as the threaded mode gives each thread its own (in-house). */
static int split_streams(const hr_trace_t *t, hr_trace_t **out, uint32_t *n) {
    hr_sched_t s;
    hr_error_t err;
    if (hr_sched_build(&s, t, &err) != 0) {
        fprintf(stderr, "bench_threads: %s\n", err.msg);
        return -1;
    }
    uint64_t syncs = 0;
    for (uint32_t k = 0; k < s.n; k++)
        syncs += s.s[k].n_sync;
    if (syncs) {
        fprintf(stderr, "bench_threads: the trace has %llu synced events; this bench needs a "
                        "trace without cross-thread chains\n", (unsigned long long)syncs);
        hr_sched_free(&s);
        return -1;
    }
    *n = s.n;
    *out = calloc(s.n, sizeof **out);
    int rc = *out ? 0 : -1;
    for (uint32_t k = 0; rc == 0 && k < s.n; k++) {
        hr_trace_t *o = &(*out)[k];
        hr_trace_init(o);
        for (uint32_t i = 0; i < t->n_strings; i++)
            hr_trace_intern(o, t->strings[i]);
        for (uint64_t i = 0; i < s.s[k].n; i++) {
            hr_event_t e = s.s[k].ev[i];
            e.thread = 0;
            hr_trace_push(o, &e);
        }
        rc = hr_trace_validate(o, "stream", &err);
    }
    hr_sched_free(&s);
    return rc;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "bump";
    const hr_backend_t *be = hr_backend_find(name);
    hr_trace_t t, *streams = NULL;
    uint32_t n_streams = 0;
    hr_error_t err;
    if (!be) {
        fprintf(stderr, "bench_threads: unknown allocator '%s'\n", name);
        return 2;
    }
    if (argc > 2 ? hr_trace_read_file(argv[2], HR_FMT_AUTO, &t, &err)
                 : hr_gen(&(hr_gen_options_t){"particles", 7, 2000000, 0, 4}, &t, &err)) {
        fprintf(stderr, "bench_threads: %s\n", err.msg);
        return 2;
    }
    if (split_streams(&t, &streams, &n_streams) != 0)
        return 2;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof one, &one); /* threads created later inherit it */
    double ratio[ROUNDS], thr[ROUNDS], ser[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        ser[r] = 0;
        for (uint32_t k = 0; k < n_streams; k++)
            ser[r] += time_cpu(&streams[k], be, HR_THREADS_SERIAL);
        thr[r] = time_cpu(&t, be, HR_THREADS_RECORDED);
        ratio[r] = thr[r] / ser[r];
    }
    qsort(ratio, ROUNDS, sizeof *ratio, cmp_d);
    qsort(thr, ROUNDS, sizeof *thr, cmp_d);
    qsort(ser, ROUNDS, sizeof *ser, cmp_d);
    printf("allocator %s, %u threads, %zu events, one core, %d rounds (A B interleaved)\n", name,
           t.n_threads, t.n_events, ROUNDS);
    printf("serial streams: median warm-lap CPU %.3f ms [%.3f-%.3f]\n", ser[ROUNDS / 2] * 1e3,
           ser[0] * 1e3, ser[ROUNDS - 1] * 1e3);
    printf("threaded:       median warm-lap CPU %.3f ms [%.3f-%.3f]\n", thr[ROUNDS / 2] * 1e3,
           thr[0] * 1e3, thr[ROUNDS - 1] * 1e3);
    printf("ratio threaded/serial: median %.4f [%.4f-%.4f] (target <= 1.03): %s\n",
           ratio[ROUNDS / 2], ratio[0], ratio[ROUNDS - 1], ratio[ROUNDS / 2] <= 1.03 ? "ok" : "OVER");
    hr_trace_free(&t);
    fflush(stdout);
    for (uint32_t k = 0; k < n_streams; k++)
        hr_trace_free(&streams[k]);
    free(streams);
    return 0;
}
