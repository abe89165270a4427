/* The worker: the re-executed process in which an external allocator replays
 * (see child.h). It reads the trace itself (after the preloaded library is in
 * place, so the trace's own memory comes from that allocator too, before the
 * RSS baseline), proves which library provides malloc, and replays through
 * plain malloc/calloc/realloc/free/posix_memalign. */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "replay/child.h"
#include "replay/engine.h"
#include "backends/extstats.h"

typedef struct worker_args {
    int         fd;
    const char *spec, *name, *path;
    hr_replay_options_t opt;
} worker_args_t;

static int parse_args(int argc, char **argv, worker_args_t *a) {
    a->fd = -1;
    a->spec = a->name = a->path = NULL;
    a->opt = hr_replay_options_default();
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(k, "--fd") == 0 && v)
            a->fd = atoi(v), i++;
        else if (strcmp(k, "--spec") == 0 && v)
            a->spec = v, i++;
        else if (strcmp(k, "--name") == 0 && v)
            a->name = v, i++;
        else if (strcmp(k, "--touch") == 0 && v && hr_touch_parse(v, &a->opt.touch) == 0)
            i++;
        else if (strcmp(k, "--budget") == 0 && v)
            a->opt.budget = strtoull(v, NULL, 10), i++;
        else if (strcmp(k, "--passes") == 0 && v)
            a->opt.passes = atoi(v), i++;
        else if (k[0] != '-' && !a->path)
            a->path = k;
        else
            return -1;
    }
    return a->fd >= 0 && a->spec && a->path ? 0 : -1;
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

static void emit_fail(FILE *out, const worker_args_t *a, const char *msg) {
    hr_emit_t em;
    hr_emit_init(&em, out, HR_EMIT_JSON);
    em.compact = 1;
    hr_result_head(&em, a->name ? a->name : a->path, NULL, a->spec, "error", &a->opt);
    hr_emit_str(&em, "error", msg);
    hr_emit_obj_end(&em);
    fputc('\n', out);
    fflush(out);
}

int hr_worker_main(int argc, char **argv) {
    worker_args_t a;
    if (parse_args(argc, argv, &a) != 0) {
        fprintf(stderr, "heapreplay __worker: internal command, bad arguments\n");
        return 2;
    }
    FILE *out = fdopen(a.fd, "w");
    if (!out)
        return 3;
    const char *expect = getenv("HEAPREPLAY_EXPECT_LIB");
    const char *provider = malloc_provider();
    char msg[PATH_MAX * 2 + 128];
    if (!expect || !provider || provider_matches(provider, expect) != 0) {
        snprintf(msg, sizeof msg, "malloc is provided by %s, not by the requested %s: refusing to report",
                 provider ? provider : "(unknown)", expect && expect[0] ? expect : "C library");
        emit_fail(out, &a, msg);
        return 0;
    }
    const hr_backend_t *be = hr_backend_find(a.spec);
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    if (!be || hr_trace_read_file(a.path, HR_FMT_AUTO, &t, &err) != 0) {
        emit_fail(out, &a, be ? err.msg : "unknown allocator");
        return 0;
    }
    char digest[17];
    hr_trace_digest(&t, digest);
    hr_emit_t em;
    hr_emit_init(&em, out, HR_EMIT_JSON);
    em.compact = 1;
    const hr_extstats_t *ext = hr_extstats_for(a.spec);
    a.opt.library = provider; /* the report names the library it measured */
    hr_replay_one(&t, a.name ? a.name : a.path, digest, be, a.spec, ext, &a.opt, &em);
    fputc('\n', out);
    fflush(out);
    hr_trace_free(&t);
    return 0;
}
