/* failmalloc.so — an LD_PRELOAD fault injector for the allocation-failure
 * sweep (tests/tools/oom_sweep.sh, `make check-oom`; docs/TESTING.md).
 *
 * It counts every call of the malloc family made in the process it is
 * loaded into (malloc, calloc, realloc, reallocarray, strdup, strndup,
 * posix_memalign, aligned_alloc, memalign, valloc; also the C library's own
 * calls, e.g. inside fopen or asprintf, since glibc routes them through the
 * interposable malloc) and makes call number N fail: it returns NULL with
 * errno ENOMEM, as a full heap would. Only call N fails (SQLite's "transient"
 * mode): the program must cope with one failure anywhere, then go on or stop
 * cleanly. HR_FAILMALLOC_PERSIST=1 makes every call from N on fail.
 *
 * Scope: the process that loaded it. A fork child passes every call through
 * uncounted (pthread_atfork): its calls would otherwise shift the parent's
 * numbering. Processes that heapreplay execs (replay's workers) do not load it:
 * replay sets or unsets LD_PRELOAD for them itself.
 *
 * Environment:
 *   HR_FAILMALLOC_N=N        fail call N (1-based); 0 or unset: fail nothing
 *   HR_FAILMALLOC_PERSIST=1  fail every call from N on
 *   HR_FAILMALLOC_LOG=FILE   appends, at exit, "calls T" and one line
 *                            "site I A" per distinct caller (I: the number of
 *                            the first call made from return address A), and
 *                            at the injection "failed N A"
 *
 * It works under AddressSanitizer too (ASAN_OPTIONS=verify_asan_link_order=0):
 * it forwards to the next malloc in link order, which is then ASan's, so
 * leaks on the error paths are caught by LeakSanitizer. The functions here
 * call no allocator themselves; the log is written with open/write. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef int (*memalign_fn)(void **, size_t, size_t);
typedef void *(*aligned_fn)(size_t, size_t);

static malloc_fn   real_malloc;
static calloc_fn   real_calloc;
static realloc_fn  real_realloc;
static free_fn     real_free;
static memalign_fn real_posix_memalign;
static aligned_fn  real_aligned_alloc;
static aligned_fn  real_memalign;

static unsigned long fail_at;  /* 0: never */
static int           persist;
static const char   *log_path;
static unsigned long calls;    /* calls counted so far */
static int           counting; /* 1 once the environment is read */

/* dlsym may itself call calloc before the real one is known: such early
 * requests are served from this static buffer and never freed. */
static char   boot_buf[16384] __attribute__((aligned(64)));
static size_t boot_used;

static void *boot_alloc(size_t n) {
    n = (n + 63) & ~(size_t)63;
    if (boot_used + n > sizeof boot_buf)
        return NULL;
    void *p = boot_buf + boot_used;
    boot_used += n;
    return p;
}

static int is_boot(const void *p) {
    return (const char *)p >= boot_buf && (const char *)p < boot_buf + sizeof boot_buf;
}

/* Distinct callers: the first call number of each return address. */
#define SITES 8192
static struct site {
    uintptr_t     addr;
    unsigned long first;
} sites[SITES];
static unsigned long sites_lost;

static void note_site(uintptr_t addr, unsigned long n) {
    size_t h = (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 51) % SITES;
    for (size_t i = 0; i < SITES; i++) {
        struct site *s = &sites[(h + i) % SITES];
        uintptr_t    cur = __atomic_load_n(&s->addr, __ATOMIC_ACQUIRE);
        if (cur == addr)
            return;
        if (cur == 0) {
            uintptr_t zero = 0;
            if (__atomic_compare_exchange_n(&s->addr, &zero, addr, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                s->first = n;
                return;
            }
            if (zero == addr)
                return;
        }
    }
    __atomic_add_fetch(&sites_lost, 1, __ATOMIC_RELAXED);
}

static void log_line(const char *line, size_t n) {
    if (!log_path)
        return;
    int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t w = write(fd, line, n);
    (void)w;
    close(fd);
}

static void in_fork_child(void) {
    counting = 0;
}

static void resolve(void) {
    static int busy;
    if (real_malloc || busy)
        return;
    busy = 1;
    real_calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
    real_malloc = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
    real_realloc = (realloc_fn)dlsym(RTLD_NEXT, "realloc");
    real_free = (free_fn)dlsym(RTLD_NEXT, "free");
    real_posix_memalign = (memalign_fn)dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = (aligned_fn)dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = (aligned_fn)dlsym(RTLD_NEXT, "memalign");
    busy = 0;
}

__attribute__((constructor)) static void failmalloc_init(void) {
    resolve();
    const char *n = getenv("HR_FAILMALLOC_N");
    const char *p = getenv("HR_FAILMALLOC_PERSIST");
    fail_at = n ? strtoul(n, NULL, 10) : 0;
    persist = p && p[0] == '1';
    log_path = getenv("HR_FAILMALLOC_LOG");
    if (log_path && !log_path[0])
        log_path = NULL;
    pthread_atfork(NULL, NULL, in_fork_child);
    counting = 1;
}

__attribute__((destructor)) static void failmalloc_fini(void) {
    if (!counting)
        return;
    counting = 0;
    char line[96];
    int  n = snprintf(line, sizeof line, "calls %lu\n", calls);
    log_line(line, (size_t)n);
    for (size_t i = 0; i < SITES; i++) {
        if (!sites[i].addr)
            continue;
        n = snprintf(line, sizeof line, "site %lu %#lx\n", sites[i].first,
                     (unsigned long)sites[i].addr);
        log_line(line, (size_t)n);
    }
    if (sites_lost) {
        n = snprintf(line, sizeof line, "sites_lost %lu\n", sites_lost);
        log_line(line, (size_t)n);
    }
}

/* Counts one call from `caller`; 1 when it must fail. */
static int should_fail(void *caller) {
    if (!counting)
        return 0;
    unsigned long n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    note_site((uintptr_t)caller, n);
    if (!fail_at || n < fail_at || (n > fail_at && !persist))
        return 0;
    if (n == fail_at) {
        char line[64];
        int  len = snprintf(line, sizeof line, "failed %lu %#lx\n", n, (unsigned long)caller);
        log_line(line, (size_t)len);
    }
    errno = ENOMEM;
    return 1;
}

#define CALLER __builtin_return_address(0)

static void *do_malloc(size_t n, void *caller) {
    if (should_fail(caller))
        return NULL;
    resolve();
    return real_malloc ? real_malloc(n) : boot_alloc(n);
}

EXPORT void *malloc(size_t n) {
    return do_malloc(n, CALLER);
}

EXPORT void *calloc(size_t k, size_t n) {
    if (!real_calloc) /* dlsym's own calls, before the real calloc is known */
        return boot_alloc(k * n);
    if (should_fail(CALLER))
        return NULL;
    return real_calloc(k, n);
}

EXPORT void *realloc(void *p, size_t n) {
    if (is_boot(p)) { /* a bootstrap block moves to the real heap */
        void *q = do_malloc(n, CALLER);
        size_t left = sizeof boot_buf - (size_t)((char *)p - boot_buf);
        if (q)
            memcpy(q, p, n < left ? n : left);
        return q;
    }
    if (should_fail(CALLER))
        return NULL;
    resolve();
    return real_realloc(p, n);
}

EXPORT void *reallocarray(void *p, size_t k, size_t n) {
    if (n && k > (size_t)-1 / n) {
        errno = ENOMEM;
        return NULL;
    }
    if (should_fail(CALLER))
        return NULL;
    resolve();
    return real_realloc(p, k * n);
}

EXPORT void free(void *p) {
    if (!p || is_boot(p))
        return;
    resolve();
    real_free(p);
}

EXPORT char *strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char  *d = do_malloc(n, CALLER);
    if (d)
        memcpy(d, s, n);
    return d;
}

EXPORT char *strndup(const char *s, size_t max) {
    size_t n = strnlen(s, max);
    char  *d = do_malloc(n + 1, CALLER);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

EXPORT int posix_memalign(void **out, size_t align, size_t n) {
    if (should_fail(CALLER))
        return ENOMEM;
    resolve();
    return real_posix_memalign(out, align, n);
}

EXPORT void *aligned_alloc(size_t align, size_t n) {
    if (should_fail(CALLER))
        return NULL;
    resolve();
    return real_aligned_alloc(align, n);
}

EXPORT void *memalign(size_t align, size_t n) {
    if (should_fail(CALLER))
        return NULL;
    resolve();
    return real_memalign(align, n);
}

EXPORT void *valloc(size_t n) {
    return memalign((size_t)sysconf(_SC_PAGESIZE), n);
}
