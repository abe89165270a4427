/* The worker: the re-executed process in which every allocator replays
 * (see child.h). It proves which library provides malloc, maps the trace the
 * parent shared (trace/shared.h) and replays through plain
 * malloc/calloc/realloc/free/posix_memalign. The process the allocator sees
 * is a fresh program that starts replaying: the worker's own data (trace,
 * slot table, measurement state, output buffer) lives in mmap'd harness
 * memory (base/hmem.h), never in the allocator's heap. What remains is what
 * any program has: the C library's start-up and the dynamic linker's
 * lookups (dlsym keeps a few hundred bytes for an error string when a
 * symbol another allocator would export is absent). */
#include <dlfcn.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "replay/child.h"
#include "replay/engine.h"
#include "replay/paced.h"
#include "backends/extstats.h"
#include "base/hmem.h"
#include "base/sysinfo.h"
#include "replay/counter.h"
#include "trace/shared.h"

typedef struct worker_args {
    int         fd, trace_fd;
    const char *spec, *name;
    hr_replay_options_t opt;
} worker_args_t;

static int parse_args(int argc, char **argv, worker_args_t *a) {
    a->fd = a->trace_fd = -1;
    a->spec = a->name = NULL;
    a->opt = hr_replay_options_default();
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return -1;
        if (strcmp(k, "--fd") == 0)
            a->fd = atoi(v);
        else if (strcmp(k, "--trace-fd") == 0)
            a->trace_fd = atoi(v);
        else if (strcmp(k, "--spec") == 0)
            a->spec = v;
        else if (strcmp(k, "--name") == 0)
            a->name = v;
        else if (strcmp(k, "--mode") == 0 && hr_replay_mode_parse(v, &a->opt.mode) == 0)
            ;
        else if (strcmp(k, "--touch") == 0 && hr_touch_parse(v, &a->opt.touch, &a->opt.touch_cap) == 0)
            ;
        else if (strcmp(k, "--access") == 0 && hr_access_parse(v, &a->opt.access) == 0)
            ;
        else if (strcmp(k, "--budget") == 0)
            a->opt.budget = strtoull(v, NULL, 10);
        else if (strcmp(k, "--warm-time") == 0)
            a->opt.warm_time_s = strtod(v, NULL);
        else if (strcmp(k, "--warm-stop") == 0)
            a->opt.warm_stop = strtod(v, NULL);
        else if (strcmp(k, "--stall-us") == 0)
            a->opt.stall_us = strtod(v, NULL);
        else if (strcmp(k, "--pace") == 0)
            a->opt.pace = strtod(v, NULL);
        else if (strcmp(k, "--cycle-hz") == 0)
            hr_cycle_hz_set(strtod(v, NULL));
        else if (strcmp(k, "--threads") == 0) {
            hr_threads_mode_t m;
            if (hr_threads_mode_parse(v, &m) != 0)
                return -1;
            a->opt.threads = (int)m;
        }
        else if (strcmp(k, "--count") == 0) {
            hr_count_mode_t c;
            if (hr_count_mode_parse(v, &c) != 0)
                return -1;
            a->opt.count = (int)c;
        } else if (strcmp(k, "--memory-lap") == 0) {
            hr_memory_lap_t m;
            if (hr_memory_lap_parse(v, &m) != 0)
                return -1;
            a->opt.memory_lap = (int)m;
        } else if (strcmp(k, "--heap-config") == 0)
            a->opt.heap_config = v;
        else
            return -1;
        i++;
    }
    return a->fd >= 0 && a->trace_fd >= 0 && a->spec && a->name ? 0 : -1;
}

/* Which file provides the `malloc` this process calls. */
static const char *malloc_provider(void) {
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    if (!sym || !dladdr(sym, &info) || !info.dli_fname)
        return NULL;
    return info.dli_fname;
}

/* 0 when `provider` is the expected library: the same file for a preload,
 * the C library when nothing is preloaded. */
static int provider_matches(const char *provider, const char *expect) {
    char a[PATH_MAX], b[PATH_MAX];
    if (!expect[0]) {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", provider);
        return strncmp(basename(tmp), "libc.so", 7) == 0 ||
                       strncmp(basename(tmp), "libc-", 5) == 0 ? 0 : -1;
    }
    if (!realpath(provider, a) || !realpath(expect, b))
        return -1;
    return strcmp(a, b) == 0 ? 0 : -1;
}

/* The stream of the result (open_result). */
static FILE *result_out;

static void emit_fail(const worker_args_t *a, const char *msg) {
    hr_emit_t em;
    hr_emit_init(&em, result_out, HR_EMIT_JSON);
    em.compact = 1;
    hr_result_head(&em, a->name, NULL, a->spec, "error", &a->opt);
    hr_emit_str(&em, "error", msg);
    hr_emit_obj_end(&em);
    fputc('\n', result_out);
    fflush(result_out);
}

/* The result pipe fd becomes a stream without a call to malloc (which is
 * the allocator under test): no FILE can be made without malloc but the
 * three static ones, and stdout and stderr stay the allocator's to print
 * to, so the stdin FILE is reopened for writing on the pipe (freopen reuses
 * the FILE; the worker reads nothing), close-on-exec, with its buffer in
 * harness memory. */
static FILE *open_result(int fd) {
    static const size_t len = (size_t)1 << 16;
    char *buf = hr_hmem_alloc(len, 0);
    if (!buf || fd == STDIN_FILENO || dup2(fd, STDIN_FILENO) < 0)
        return NULL;
    close(fd);
    FILE *f = freopen(NULL, "we", stdin);
    if (!f || fcntl(fileno(f), F_SETFD, FD_CLOEXEC) != 0 || setvbuf(f, buf, _IOFBF, len) != 0)
        return NULL;
    return f;
}

int hr_worker_main(int argc, char **argv) {
    worker_args_t a;
    if (parse_args(argc, argv, &a) != 0) {
        fprintf(stderr, "heapreplay __worker: internal command, bad arguments\n");
        return 2;
    }
    if (!(result_out = open_result(a.fd)))
        return 3;
    hr_paced_worker_argv(argc, argv); /* the paced lap's own worker (paced.h) */
    hr_alloc_spec_t spec; /* the parent's text, parsed once in this process; no copy (malloc) */
    hr_trace_t t;
    hr_error_t err = {{0}};
    char digest[17];
    if (hr_alloc_spec_parse_borrowed(a.spec, &spec, &err) != 0) {
        emit_fail(&a, "unknown allocator");
        return 0;
    }
    int external = (spec.be->caps & HR_CAP_EXTERNAL_PROCESS) != 0;
    const char *expect = getenv("HEAPREPLAY_EXPECT_LIB");
    const char *provider = malloc_provider();
    char msg[PATH_MAX * 2 + 128];
    int sanitized = HR_ASAN_BUILD && !external; /* in-house, on the sanitizer's malloc */
    if (!sanitized && (!expect || !provider || provider_matches(provider, expect) != 0)) {
        snprintf(msg, sizeof msg, "malloc is provided by %s, not by the requested %s: refusing to report",
                 provider ? provider : "(unknown)", expect && expect[0] ? expect : "C library");
        emit_fail(&a, msg);
        hr_alloc_spec_free(&spec);
        return 0;
    }
    if (hr_trace_map(a.trace_fd, &t, digest, &err) != 0) {
        emit_fail(&a, err.msg);
        hr_alloc_spec_free(&spec);
        return 0;
    }
    hr_emit_t em;
    hr_emit_init(&em, result_out, HR_EMIT_JSON);
    em.compact = 1;
    /* The report names the library it measured; in-house allocators have
     * their own figures and no library. */
    const hr_extstats_t *ext = external ? hr_extstats_for(spec.last->name) : NULL;
    a.opt.library = external ? provider : NULL;
    hr_replay_spec(&t, a.name, digest, &spec, ext, &a.opt, &em);
    fputc('\n', result_out);
    fflush(result_out);
    hr_trace_unmap(&t);
    hr_alloc_spec_free(&spec);
    return 0;
}
