/* The paced memory lap (paced.h; docs/METRICS.md, "Memory lap: paced or
 * fast"): the compressed timeline, the serial paced lap, the RSS sampler and
 * the process of its own that runs them. */
#include "replay/paced.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/hmem.h"
#include "base/metrics.h"
#include "base/nametab.h"
#include "base/sysinfo.h"
#include "replay/child.h"

static const char *const lap_names[] = {"auto", "fast", "paced"};

const char *hr_memory_lap_name(hr_memory_lap_t m) {
    return hr_name_at(lap_names, HR_NAMES_N(lap_names), (int)m);
}

int hr_memory_lap_parse(const char *s, hr_memory_lap_t *out) {
    int i = hr_name_index(lap_names, HR_NAMES_N(lap_names), s);
    if (i >= 0)
        *out = (hr_memory_lap_t)i;
    return i >= 0 ? 0 : -1;
}

/* ---- the compressed timeline ------------------------------------------- */

int hr_paced_map_build(hr_paced_map_t *m, const hr_trace_t *t, hr_error_t *err) {
    memset(m, 0, sizeof *m);
    hr_evwin_t w;
    m->cut = hr_hmem_alloc(HR_PACED_MAX_CUTS * sizeof *m->cut, 0);
    if (!m->cut || hr_evwin_open_ts(&w, t, err) != 0) {
        if (!m->cut)
            hr_error_set(err, "out of memory for the paced timeline");
        hr_paced_map_free(m);
        return -1;
    }
    uint64_t hi = 0, cut_total = 0;
    int first = 1;
    while (hr_evwin_next(&w)) {
        for (size_t k = 0; w.ts && k < w.n; k++) {
            uint64_t ts = w.ts[k];
            if (first) {
                m->ts0 = hi = ts;
                first = 0;
            }
            /* threads' timestamps interleave slightly out of order: a gap
             * is idle time after the latest timestamp so far */
            if (ts > hi + HR_PACED_IDLE_CAP_NS && m->n_cuts < HR_PACED_MAX_CUTS) {
                m->cut[m->n_cuts++] = (hr_paced_cut_t){hi, ts, cut_total};
                cut_total += ts - hi - HR_PACED_IDLE_CAP_NS;
            }
            if (ts > hi)
                hi = ts;
        }
    }
    hr_evwin_close(&w);
    m->recorded_ns = hi - m->ts0;
    m->paced_ns = m->recorded_ns - cut_total;
    return 0;
}

void hr_paced_map_free(hr_paced_map_t *m) {
    hr_hmem_free(m->cut, HR_PACED_MAX_CUTS * sizeof *m->cut);
    memset(m, 0, sizeof *m);
}

uint64_t hr_paced_rel(const hr_paced_map_t *m, uint64_t ts) {
    if (ts <= m->ts0)
        return 0;
    /* the last gap that starts before ts */
    uint32_t lo = 0, hi = m->n_cuts;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->cut[mid].lo < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return ts - m->ts0;
    const hr_paced_cut_t *c = &m->cut[lo - 1];
    uint64_t start = c->lo - m->ts0 - c->before; /* the gap's start, compressed */
    if (ts < c->at) /* inside the gap (another thread's late timestamp) */
        return start + (ts - c->lo < HR_PACED_IDLE_CAP_NS ? ts - c->lo : HR_PACED_IDLE_CAP_NS);
    return start + HR_PACED_IDLE_CAP_NS + (ts - c->at);
}

void hr_paced_wait_until(uint64_t target) {
    for (uint64_t now = hr_now_ns(); now < target; now = hr_now_ns()) {
        if (target - now > 200000) {
            struct timespec ts = {(time_t)((target - now - 100000) / 1000000000u),
                                  (long)((target - now - 100000) % 1000000000u)};
            nanosleep(&ts, NULL);
        } else {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
    }
}

/* ---- the RSS sampler ---------------------------------------------------- */

/* A thread of the child that reads the child's RSS every HR_PACED_SAMPLE_US
 * (its own /proc/self/statm: the worker's open descriptor names the worker).
 * No malloc: the allocator under test sees only the lap's calls. */
typedef struct sampler {
    pthread_t        th;
    int              fd;
    _Atomic int      stop;
    uint64_t         peak;
} sampler_t;

static uint64_t statm_rss(int fd) {
    char buf[128];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *p = strchr(buf, ' ');
    return p ? strtoull(p + 1, NULL, 10) * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

static void *sampler_main(void *arg) {
    sampler_t *s = arg;
    struct timespec d = {0, HR_PACED_SAMPLE_US * 1000L};
    while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
        uint64_t r = statm_rss(s->fd);
        if (r > s->peak)
            s->peak = r;
        nanosleep(&d, NULL);
    }
    return NULL;
}

/* ---- the lap ------------------------------------------------------------- */

/* Every event in trace order on one instance, each at its time on map. */
static int serial_lap(const hr_trace_t *t, const hr_run_alloc_t *a,
                      const hr_replay_options_t *opt, const hr_paced_map_t *map,
                      hr_error_t *err) {
    run_t r;
    hr_evwin_t w;
    if (hr_run_open(&r, t, a, opt, err) != 0) {
        hr_run_close(&r, 1);
        return -1;
    }
    if (hr_evwin_open_ts(&w, t, err) != 0) {
        hr_run_close(&r, 1);
        return -1;
    }
    uint64_t t0 = hr_now_ns();
    while (hr_evwin_next(&w)) {
        r.win = w.ev;
        r.win_base = w.base;
        for (size_t k = 0; k < w.n; k++) {
            const hr_event_t *ev = &w.ev[k];
            r.i = (size_t)w.base + k;
            if (w.ts)
                hr_paced_wait_until(t0 + hr_paced_rel(map, w.ts[k]));
            hr_run_access_before(&r, ev);
            hr_run_dispatch(&r, ev);
            hr_run_access_after(&r, ev);
        }
    }
    hr_evwin_close(&w);
    hr_run_close(&r, 1);
    return 0;
}

/* The lap with the sampler beside it, in the paced lap's own process. */
static void paced_lap(hr_paced_msg_t *out, const hr_trace_t *t, const hr_run_alloc_t *a,
                      const hr_replay_options_t *opt, const hr_paced_map_t *map, int threaded) {
    hr_paced_msg_t cm;
    hr_error_t err = {{0}};
    memset(&cm, 0, sizeof cm);
    sampler_t s;
    memset(&s, 0, sizeof s);
    s.fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    /* The shared event pages are mapped into a forked child only as it reads
     * them: read them all first, or the lap's RSS would grow with its
     * progress through the trace and an allocator's early peak would look
     * smaller than a late one. */
    hr_events_prewalk(t);
    hr_rss_peak_reset();
    s.peak = statm_rss(s.fd);
    int sampling = s.fd >= 0 && pthread_create(&s.th, NULL, sampler_main, &s) == 0;
    uint64_t w0 = hr_now_ns();
    cm.rc = threaded ? hr_threads_paced_lap(t, a, opt, map, &err)
                     : serial_lap(t, a, opt, map, &err);
    cm.lap_ns = hr_now_ns() - w0;
    if (sampling) {
        atomic_store(&s.stop, 1);
        pthread_join(s.th, NULL);
    }
    uint64_t hwm = hr_rss_peak(); /* opens /proc/self/status each time: the child's */
    cm.peak_rss = hwm > s.peak ? hwm : s.peak;
    snprintf(cm.msg, sizeof cm.msg, "%.150s", err.msg);
    *out = cm;
}

/* The worker's own command line (hr_paced_worker_argv), or NULL in a
 * process that is not a worker (unit tests, benches). */
static int w_argc;
static char **w_argv;

void hr_paced_worker_argv(int argc, char **argv) {
    w_argc = argc;
    w_argv = argv;
}

/* The forked child becomes a fresh worker (exec, the worker's own arguments)
 * that runs only the paced lap and writes its message on fd (HR_PACED_FD);
 * its result goes to /dev/null. A fork alone kept the worker's address
 * space, and the lap's RSS then grew differently from a fresh process's:
 * on freeciv_ai, mimalloc 5-7 MiB less against glibc's 1 MiB, with no
 * pacing at all (results/paced-memory-vm.md). Never returns. */
static void exec_worker(int fd) {
    char *argv[64], nul[16], env[32];
    int null_fd = open("/dev/null", O_WRONLY);
    snprintf(nul, sizeof nul, "%d", null_fd);
    snprintf(env, sizeof env, "%d", fd);
    int n = 0;
    argv[n++] = (char *)HR_WORKER_ARGV0;
    for (int i = 0; i < w_argc && n < 63; i++)
        argv[n++] = i > 0 && !strcmp(w_argv[i - 1], "--fd") ? nul : w_argv[i];
    argv[n] = NULL;
    if (null_fd >= 0 && setenv("HR_PACED_FD", env, 1) == 0)
        execv("/proc/self/exe", argv);
    _exit(127);
}

/* The paced lap's figures from a given text (hr_paced_given_text) into out:
 * 0, or -1 with why set to the note. */
static int take_given(const char *given, hr_paced_result_t *out) {
    unsigned long long peak, lap;
    if (sscanf(given, "paced %llu %llu", &peak, &lap) == 2) {
        out->peak_rss = peak;
        out->lap_ns = lap;
        return 0;
    }
    snprintf(out->why, sizeof out->why, "%s",
             strncmp(given, "note ", 5) == 0 ? given + 5
                                             : "memory lap not paced: its figures were unreadable");
    return -1;
}

/* Forks the child and reads its message. 0, or -1 with why set. */
static int run_child(const hr_trace_t *t, const hr_run_alloc_t *a,
                     const hr_replay_options_t *opt, const hr_paced_map_t *map,
                     hr_paced_result_t *out) {
    int pfd[2];
    if (pipe(pfd) != 0) {
        snprintf(out->why, sizeof out->why, "memory lap not paced: no pipe for its process");
        return -1;
    }
    fflush(NULL); /* the child leaves with _exit: nothing buffered twice */
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        if (w_argv)
            exec_worker(pfd[1]);
        hr_paced_msg_t cm; /* not a worker: the lap in the forked child itself */
        paced_lap(&cm, t, a, opt, map, out->threaded);
        _exit(write(pfd[1], &cm, sizeof cm) == (ssize_t)sizeof cm ? 0 : 1);
    }
    close(pfd[1]);
    hr_paced_msg_t cm;
    ssize_t n = pid > 0 ? read(pfd[0], &cm, sizeof cm) : -1;
    close(pfd[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    char given[HR_PACED_GIVEN_MAX];
    hr_paced_given_text(&cm, n == (ssize_t)sizeof cm, pid > 0 ? status : 127 << 8, 0, 0,
                        given, sizeof given);
    return take_given(given, out);
}

void hr_paced_given_text(const hr_paced_msg_t *m, int got, int status, int timed_out,
                         double timeout_s, char *buf, size_t cap) {
    if (got && m->rc == 0)
        snprintf(buf, cap, "paced %llu %llu", (unsigned long long)m->peak_rss,
                 (unsigned long long)m->lap_ns);
    else if (got)
        snprintf(buf, cap, "note memory lap not paced: %s", m->msg);
    else if (timed_out)
        snprintf(buf, cap, "note memory lap not paced: its process ran past --timeout "
                 "(%g s; killed)", timeout_s);
    else if (WIFSIGNALED(status))
        snprintf(buf, cap, "note memory lap not paced: its process died of signal %d",
                 WTERMSIG(status));
    else
        snprintf(buf, cap, "note memory lap not paced: its process failed");
}

int hr_paced_choose(const hr_trace_t *t, const hr_alloc_spec_t *spec,
                    const hr_replay_options_t *opt, const hr_paced_map_t *map,
                    hr_paced_result_t *out) {
    hr_memory_lap_t want = (hr_memory_lap_t)opt->memory_lap;
    if (want == HR_MEMLAP_FAST)
        return 0;
    if (!map || !hr_trace_has_ts(t)) {
        out->note = "memory lap not paced: the trace has no timestamps";
        return 0;
    }
    out->recorded_ns = map->recorded_ns;
    out->paced_ns = map->paced_ns;
    if (want == HR_MEMLAP_AUTO && !(spec->be->caps & HR_CAP_EXTERNAL_PROCESS)) {
        /* an in-house allocator's footprint follows its calls alone */
        out->note = "memory lap not paced: an in-house allocator releases nothing by time "
                    "(--memory-lap paced)";
        return 0;
    }
    if (want == HR_MEMLAP_AUTO && (double)map->paced_ns / 1e9 > HR_PACED_AUTO_MAX_S) {
        snprintf(out->why, sizeof out->why, "memory lap not paced: the trace's paced duration "
                 "%.1f s is over auto's %.0f s (--memory-lap paced)", (double)map->paced_ns / 1e9,
                 HR_PACED_AUTO_MAX_S);
        out->note = out->why;
        return 0;
    }
    return 1;
}

void hr_paced_memory(const hr_trace_t *t, const hr_run_alloc_t *a,
                     const hr_replay_options_t *opt, hr_paced_result_t *out) {
    memset(out, 0, sizeof *out);
    const char *fd = getenv("HR_PACED_FD"), *given = getenv("HR_PACED_GIVEN");
    out->only = fd != NULL; /* nothing else to do here */
    if ((hr_memory_lap_t)opt->memory_lap == HR_MEMLAP_FAST)
        return;
    hr_paced_map_t map;
    hr_error_t err = {{0}};
    int has_map = hr_trace_has_ts(t);
    if (has_map && hr_paced_map_build(&map, t, &err) != 0) {
        snprintf(out->why, sizeof out->why, "memory lap not paced: %.160s", err.msg);
        out->note = out->why;
        return;
    }
    if (hr_paced_choose(t, a->spec, opt, has_map ? &map : NULL, out)) {
        out->threaded = hr_threads_on(t, opt) && !(a->spec->be->caps & HR_CAP_SERIAL_ONLY);
        if (fd) { /* this process is the paced lap's (child.c, exec_worker) */
            hr_paced_msg_t cm;
            paced_lap(&cm, t, a, opt, &map, out->threaded);
            ssize_t n = write(atoi(fd), &cm, sizeof cm); /* short: the reader says so */
            (void)n;
        } else if (given ? take_given(given, out) == 0 : run_child(t, a, opt, &map, out) == 0)
            out->paced = 1; /* given: the row's one paced lap, run by the replay's server */
        else
            out->note = out->why;
    }
    if (has_map)
        hr_paced_map_free(&map);
}

void hr_paced_values(const hr_paced_result_t *p, hr_mval_t *v) {
    v[HR_M_MEM_LAP] = hr_mval_str(p && p->paced ? "paced" : "fast");
    if (p && p->note)
        v[HR_M_MEM_LAP_NOTE] = hr_mval_str(p->note);
    if (!p || !p->paced)
        return;
    v[HR_M_PEAK_RSS_FAST] = v[HR_M_PEAK_RSS_ALL];
    v[HR_M_PEAK_RSS_ALL] = hr_mval_u64(p->peak_rss);
    v[HR_M_PACED_S] = hr_mval_f64((double)p->lap_ns / 1e9);
}
