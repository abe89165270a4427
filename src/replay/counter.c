/* The cost counter (see counter.h): mode choice, the perf counter, the
 * counted calls and the callgrind command line and output. */
#include "replay/counter.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/nametab.h"

/* ---- modes ---------------------------------------------------------------- */

static const char *const mode_names[] = {"none", "auto", "perf", "callgrind"};

int hr_count_mode_parse(const char *s, hr_count_mode_t *out) {
    int i = hr_name_index(mode_names, HR_NAMES_N(mode_names), s);
    if (i >= 0)
        *out = (hr_count_mode_t)i;
    return i >= 0 ? 0 : -1;
}

const char *hr_count_mode_name(hr_count_mode_t m) {
    return hr_name_at(mode_names, HR_NAMES_N(mode_names), (int)m);
}

/* ---- the counted calls ---------------------------------------------------- */

/* The perf fd the counted calls switch, -1 for none (callgrind or no count). */
static int hr_counted_fd = -1;

/* Never inlined into the count lap, never specialised on a constant fn
 * (cloning would rename the function and callgrind's toggle would miss it),
 * never folded with a twin of the same machine code. noipa (GCC 8+) implies
 * noinline, noclone and no_icf; clang clones nothing across translation
 * units without LTO, so noinline is enough there. */
#if defined(__clang__)
#define HR_COUNTED_FN __attribute__((noinline, used))
#elif defined(__GNUC__)
#define HR_COUNTED_FN __attribute__((noipa, used))
#else
#define HR_COUNTED_FN
#endif

/* Uses v after the call, so the call cannot become a tail jump (callgrind
 * would then see the wrapper left before the allocator ran). */
#define HR_AFTER_CALL(v) __asm__ __volatile__("" : : "r"(v) : "memory")
#define HR_AFTER_CALL0() __asm__ __volatile__("" : : : "memory")

/* Perf mode: the counter is switched on and off around the call in these
 * out-of-line twins, so the path callgrind measures (fd < 0) keeps no state
 * across the call and compiles to a test, the argument shuffle, the call and
 * the return. */
__attribute__((noinline)) static void *perf_alloc(hr_count_alloc_fn fn, void *self, size_t size,
                                                  size_t align, int32_t heap) {
    ioctl(hr_counted_fd, PERF_EVENT_IOC_ENABLE, 0);
    void *p = fn(self, size, align, heap);
    ioctl(hr_counted_fd, PERF_EVENT_IOC_DISABLE, 0);
    return p;
}

__attribute__((noinline)) static void perf_free(hr_count_free_fn fn, void *self, void *p,
                                                size_t size) {
    ioctl(hr_counted_fd, PERF_EVENT_IOC_ENABLE, 0);
    fn(self, p, size);
    ioctl(hr_counted_fd, PERF_EVENT_IOC_DISABLE, 0);
}

__attribute__((noinline)) static void *perf_calloc(hr_count_calloc_fn fn, void *self, size_t n,
                                                   size_t size, int32_t heap) {
    ioctl(hr_counted_fd, PERF_EVENT_IOC_ENABLE, 0);
    void *p = fn(self, n, size, heap);
    ioctl(hr_counted_fd, PERF_EVENT_IOC_DISABLE, 0);
    return p;
}

__attribute__((noinline)) static void *perf_realloc(hr_count_realloc_fn fn, void *self, void *p,
                                                    size_t old_size, size_t new_size,
                                                    int32_t heap) {
    ioctl(hr_counted_fd, PERF_EVENT_IOC_ENABLE, 0);
    void *q = fn(self, p, old_size, new_size, heap);
    ioctl(hr_counted_fd, PERF_EVENT_IOC_DISABLE, 0);
    return q;
}

__attribute__((noinline)) static void perf_copy(void *dst, const void *src, size_t n) {
    ioctl(hr_counted_fd, PERF_EVENT_IOC_ENABLE, 0);
    memcpy(dst, src, n);
    ioctl(hr_counted_fd, PERF_EVENT_IOC_DISABLE, 0);
}

__attribute__((noinline)) static void perf_zero(void *p, size_t n) {
    ioctl(hr_counted_fd, PERF_EVENT_IOC_ENABLE, 0);
    memset(p, 0, n);
    ioctl(hr_counted_fd, PERF_EVENT_IOC_DISABLE, 0);
}

#define HR_PERF_MODE() __builtin_expect(hr_counted_fd >= 0, 0)

HR_COUNTED_FN
void *hr_counted_alloc(hr_count_alloc_fn fn, void *self, size_t size, size_t align, int32_t heap) {
    if (HR_PERF_MODE())
        return perf_alloc(fn, self, size, align, heap);
    void *p = fn(self, size, align, heap);
    HR_AFTER_CALL(p);
    return p;
}

HR_COUNTED_FN
void hr_counted_free(hr_count_free_fn fn, void *self, void *p, size_t size) {
    if (HR_PERF_MODE()) {
        perf_free(fn, self, p, size);
        return;
    }
    fn(self, p, size);
    HR_AFTER_CALL0();
}

HR_COUNTED_FN
void *hr_counted_calloc(hr_count_calloc_fn fn, void *self, size_t n, size_t size, int32_t heap) {
    if (HR_PERF_MODE())
        return perf_calloc(fn, self, n, size, heap);
    void *p = fn(self, n, size, heap);
    HR_AFTER_CALL(p);
    return p;
}

HR_COUNTED_FN
void *hr_counted_realloc(hr_count_realloc_fn fn, void *self, void *p, size_t old_size,
                         size_t new_size, int32_t heap) {
    if (HR_PERF_MODE())
        return perf_realloc(fn, self, p, old_size, new_size, heap);
    void *q = fn(self, p, old_size, new_size, heap);
    HR_AFTER_CALL(q);
    return q;
}

HR_COUNTED_FN
void hr_counted_copy(void *dst, const void *src, size_t n) {
    if (HR_PERF_MODE()) {
        perf_copy(dst, src, n);
        return;
    }
    memcpy(dst, src, n);
    HR_AFTER_CALL0();
}

HR_COUNTED_FN
void hr_counted_zero(void *p, size_t n) {
    if (HR_PERF_MODE()) {
        perf_zero(p, n);
        return;
    }
    memset(p, 0, n);
    HR_AFTER_CALL0();
}

void hr_counted_set_perf_fd(int fd) {
    hr_counted_fd = fd;
}

/* ---- perf ---------------------------------------------------------------- */

/* perf_event_paranoid, or -99 when unreadable (for messages only). */
static int perf_paranoid(void) {
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = -99;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = -99;
        fclose(f);
    }
    return v;
}

static void perf_open_error(int e, hr_error_t *err) {
    const char *hint = "use --count callgrind";
    switch (e) {
    case ENOENT:
    case EOPNOTSUPP:
        hr_error_set(err, "perf_event_open: no hardware instructions counter (%s): %s",
                     e == ENOENT ? "ENOENT" : "EOPNOTSUPP", hint);
        break;
    case EACCES:
    case EPERM:
        hr_error_set(err, "perf_event_open: not permitted (%s, kernel.perf_event_paranoid=%d; "
                     "user-only counting needs <= 2): %s",
                     e == EACCES ? "EACCES" : "EPERM", perf_paranoid(), hint);
        break;
    case ENOSYS:
        hr_error_set(err, "perf_event_open: kernel without perf events (ENOSYS): %s", hint);
        break;
    default:
        hr_error_set(err, "perf_event_open: %s: %s", strerror(e), hint);
    }
}

int hr_perf_open(hr_error_t *err) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    long fd = syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1 /* any cpu */,
                      -1 /* no group */, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        perf_open_error(errno, err);
        return -1;
    }
    return (int)fd;
}

int hr_perf_read(int fd, uint64_t *count, hr_error_t *err) {
    uint64_t v[3]; /* value, time enabled, time running (read_format above) */
    ssize_t n = read(fd, v, sizeof v);
    if (n != (ssize_t)sizeof v) {
        hr_error_set(err, "perf counter read: %s", n < 0 ? strerror(errno) : "short read");
        return -1;
    }
    if (v[2] < v[1]) {
        hr_error_set(err, "perf counter was multiplexed (ran %" PRIu64 " of %" PRIu64
                     " ns enabled): the count is an estimate, not reported",
                     v[2], v[1]);
        return -1;
    }
    *count = v[0];
    return 0;
}

int hr_perf_reset(int fd) {
    return ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0 ? 0 : -1;
}

static void *noop_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)size, (void)align, (void)heap;
    return self;
}

int hr_perf_calibrate(int fd, int rounds, int calls, uint64_t *per_call, hr_error_t *err) {
    int saved = hr_counted_fd;
    uint64_t best = UINT64_MAX;
    if (rounds < 1 || calls < 1) {
        hr_error_set(err, "perf calibrate: rounds and calls must be positive");
        return -1;
    }
    hr_counted_set_perf_fd(fd);
    for (int r = 0; r < rounds; r++) {
        uint64_t n;
        hr_perf_reset(fd);
        for (int i = 0; i < calls; i++)
            hr_counted_alloc(noop_alloc, NULL, 0, 0, -1);
        if (hr_perf_read(fd, &n, err) != 0) {
            hr_counted_set_perf_fd(saved);
            return -1;
        }
        if (n / (uint64_t)calls < best)
            best = n / (uint64_t)calls;
    }
    hr_perf_reset(fd);
    hr_counted_set_perf_fd(saved);
    *per_call = best;
    return 0;
}

/* A counter that opens but never counts (some hypervisors) is no counter. */
static int perf_probe(hr_error_t *err) {
    int fd = hr_perf_open(err);
    if (fd < 0)
        return -1;
    uint64_t per = 0;
    int rc = hr_perf_calibrate(fd, 1, 64, &per, err);
    close(fd);
    if (rc == 0 && per == 0) {
        hr_error_set(err, "perf_event_open: the instructions counter opens but counts nothing: "
                     "use --count callgrind");
        rc = -1;
    }
    return rc;
}

/* ---- mode resolution ------------------------------------------------------- */

int hr_count_resolve(hr_count_mode_t want, hr_count_mode_t *got, hr_error_t *err) {
    hr_error_t perr = {{0}};
    char vg[PATH_MAX];
    switch (want) {
    case HR_COUNT_NONE:
        *got = HR_COUNT_NONE;
        return 0;
    case HR_COUNT_PERF:
        if (perf_probe(err) != 0)
            return -1;
        *got = HR_COUNT_PERF;
        return 0;
    case HR_COUNT_CALLGRIND:
        if (hr_valgrind_find(vg, sizeof vg) != 0) {
            hr_error_set(err, "--count callgrind: valgrind not found on PATH (apt-get install valgrind)");
            return -1;
        }
        *got = HR_COUNT_CALLGRIND;
        return 0;
    case HR_COUNT_AUTO:
        if (perf_probe(&perr) == 0) {
            *got = HR_COUNT_PERF;
            return 0;
        }
        if (hr_valgrind_find(vg, sizeof vg) == 0) {
            *got = HR_COUNT_CALLGRIND;
            return 0;
        }
        hr_error_set(err, "--count auto: no counter: %s; valgrind: not found on PATH", perr.msg);
        return -1;
    }
    hr_error_set(err, "unknown count mode %d", (int)want);
    return -1;
}

/* ---- callgrind ----------------------------------------------------------- */

int hr_valgrind_find(char *buf, size_t cap) {
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        int n = len ? snprintf(buf, cap, "%.*s/valgrind", (int)len, path)
                    : snprintf(buf, cap, "./valgrind");
        if (n > 0 && (size_t)n < cap && access(buf, X_OK) == 0)
            return 0;
        path += len + (end ? 1 : 0);
    }
    return -1;
}

int hr_callgrind_cmd(hr_callgrind_cmd_t *cmd, const char *outfile, hr_error_t *err) {
    static const char *const opts[] = {
        "--tool=callgrind", "-q", "--collect-atstart=no", "--toggle-collect=hr_counted_*",
        "--separate-threads=no", "--cache-sim=no", "--branch-sim=no", "--collect-systime=yes",
        "--collect-jumps=no", "--dump-instr=no",
    };
    cmd->argc = 0;
    if (hr_valgrind_find(cmd->valgrind, sizeof cmd->valgrind) != 0) {
        hr_error_set(err, "valgrind not found on PATH (apt-get install valgrind)");
        return -1;
    }
    int n = snprintf(cmd->outopt, sizeof cmd->outopt, "--callgrind-out-file=%s", outfile);
    if (n < 0 || (size_t)n >= sizeof cmd->outopt) {
        hr_error_set(err, "callgrind output path too long");
        return -1;
    }
    cmd->argv[cmd->argc++] = cmd->valgrind;
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        cmd->argv[cmd->argc++] = opts[i];
    cmd->argv[cmd->argc++] = cmd->outopt;
    return 0;
}

/* Time-driven purging, pinned to "not by the clock" (see counter.h). Values
 * in ms; 10^9 ms is eleven days, longer than any counted run. */
const char *const hr_count_pinned_env[] = {
    "MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1",
    "MIMALLOC_DECOMMIT_DELAY=1000000000",
    "MIMALLOC_RESET_DELAY=1000000000",
    "MIMALLOC_SEGMENT_DECOMMIT_DELAY=1000000000",
    "MIMALLOC_DECOMMIT_EXTEND_DELAY=1000000000",
    NULL,
};

void hr_count_pin_env(void) {
    for (int i = 0; hr_count_pinned_env[i]; i++) {
        char name[64];
        const char *eq = strchr(hr_count_pinned_env[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - hr_count_pinned_env[i]), hr_count_pinned_env[i]);
        setenv(name, eq + 1, 0); /* the user's own setting wins */
    }
}

/* Column of `name` in an "events:" line's names, or -1. */
static int event_column(const char *names, const char *name) {
    int col = 0;
    size_t want = strlen(name);
    const char *s = names;
    while (*s) {
        s += strspn(s, " \t");
        size_t len = strcspn(s, " \t\r\n");
        if (len == 0)
            break;
        if (len == want && strncmp(s, name, len) == 0)
            return col;
        col++;
        s += len;
    }
    return -1;
}

/* Number of names on a line ("positions: line" -> 1). */
static int word_count(const char *s) {
    int n = 0;
    while (*(s += strspn(s, " \t\r\n"))) {
        n++;
        s += strcspn(s, " \t\r\n");
    }
    return n;
}

/* The col-th number of a totals/summary or cost line, words counted from 0
 * (a cost line's positions, "+2", "*", are words too; a missing trailing
 * number is 0: callgrind leaves zeros off the end of a cost line). */
static int nth_number(const char *s, int col, uint64_t *v) {
    for (int i = 0;; i++) {
        s += strspn(s, " \t\r\n");
        if (!*s) {
            *v = 0;
            return i > 0 ? 0 : -1;
        }
        size_t len = strcspn(s, " \t\r\n");
        if (i == col) {
            char *end;
            errno = 0;
            unsigned long long x = strtoull(s, &end, 10);
            if (end != s + len || errno || *s == '-' || *s == '+')
                return -1;
            *v = x;
            return 0;
        }
        s += len;
    }
}

/* Per-function kinds of system calls: compressed names ("fn=(12) mmap64",
 * later "fn=(12)") map an id to the kind of its name. */
typedef struct fn_kinds {
    unsigned char *kind; /* by id; HR_SYS__N: not seen */
    size_t         cap;
} fn_kinds_t;

/* The kind of the function named on an "fn=" or "cfn=" line (after the '='). */
static hr_sys_kind_t fn_kind(fn_kinds_t *k, const char *s) {
    if (*s != '(')
        return hr_sys_kind_of(s);
    char *end;
    unsigned long id = strtoul(s + 1, &end, 10);
    if (*end != ')' || id > (1u << 24))
        return HR_SYS_OTHER;
    if (id >= k->cap) {
        size_t cap = id * 2 + 64;
        unsigned char *p = realloc(k->kind, cap);
        if (!p)
            return HR_SYS_OTHER;
        memset(p + k->cap, HR_SYS__N, cap - k->cap);
        k->kind = p;
        k->cap = cap;
    }
    const char *name = end + 1 + strspn(end + 1, " \t");
    if (*name && *name != '\n')
        k->kind[id] = (unsigned char)hr_sys_kind_of(name);
    return k->kind[id] < HR_SYS__N ? (hr_sys_kind_t)k->kind[id] : HR_SYS_OTHER;
}

/* The parse state of one file. */
typedef struct cg_parse {
    int           col_ir, col_sys, npos, skip_call, magic;
    hr_sys_kind_t cur;
    fn_kinds_t    kinds;
    int           have_total, have_summary, sys_total, sys_summary;
    uint64_t      total, summary, sys_t, sys_s;
} cg_parse_t;

/* One line (its start) of the file. */
static void cg_line(cg_parse_t *p, const char *line, hr_callgrind_sums_t *s) {
    if (strncmp(line, "# callgrind format", 18) == 0 || strncmp(line, "creator: callgrind", 18) == 0) {
        p->magic = 1;
    } else if (strncmp(line, "events:", 7) == 0) {
        p->col_ir = event_column(line + 7, "Ir");
        p->col_sys = event_column(line + 7, "sysCount");
    } else if (strncmp(line, "positions:", 10) == 0) {
        p->npos = word_count(line + 10);
    } else if (strncmp(line, "totals:", 7) == 0 && p->col_ir >= 0) {
        p->have_total = nth_number(line + 7, p->col_ir, &p->total) == 0;
        p->sys_total = p->col_sys >= 0 && nth_number(line + 7, p->col_sys, &p->sys_t) == 0;
    } else if (strncmp(line, "summary:", 8) == 0 && p->col_ir >= 0) {
        p->have_summary = nth_number(line + 8, p->col_ir, &p->summary) == 0;
        p->sys_summary = p->col_sys >= 0 && nth_number(line + 8, p->col_sys, &p->sys_s) == 0;
    } else if (strncmp(line, "fn=", 3) == 0) {
        p->cur = fn_kind(&p->kinds, line + 3);
    } else if (strncmp(line, "cfn=", 4) == 0) {
        (void)fn_kind(&p->kinds, line + 4); /* may define a name used by a later fn= */
    } else if (strncmp(line, "calls=", 6) == 0) {
        p->skip_call = 1; /* the next cost line is the call's inclusive cost */
    } else if (strchr("0123456789+-*", line[0]) && line[0]) {
        uint64_t v = 0;
        if (p->skip_call)
            p->skip_call = 0;
        else if (p->col_sys >= 0 && nth_number(line, p->npos + p->col_sys, &v) == 0)
            s->sys_kind[p->cur] += v;
    }
}

int hr_callgrind_read(const char *outfile, hr_callgrind_sums_t *s, hr_error_t *err) {
    FILE *f = fopen(outfile, "r");
    if (!f) {
        hr_error_set(err, "%s: %s", outfile, strerror(errno));
        return -1;
    }
    memset(s, 0, sizeof *s);
    cg_parse_t p;
    memset(&p, 0, sizeof p);
    p.col_ir = p.col_sys = -1;
    p.npos = 1;
    p.cur = HR_SYS_OTHER;
    char line[4096];
    int at_start = 1;
    while (fgets(line, sizeof line, f)) {
        int starts = at_start;
        at_start = strchr(line, '\n') != NULL; /* long lines come in pieces */
        if (starts)
            cg_line(&p, line, s);
    }
    fclose(f);
    free(p.kinds.kind);
    if (!p.magic) {
        hr_error_set(err, "%s: not a callgrind output file", outfile);
        return -1;
    }
    if (p.col_ir < 0 || (!p.have_total && !p.have_summary)) {
        hr_error_set(err, "%s: no Ir total (events:/totals: lines)", outfile);
        return -1;
    }
    s->ir = p.have_total ? p.total : p.summary;
    s->have_sys = p.col_sys >= 0 && (p.sys_total || p.sys_summary);
    s->sys = p.sys_total ? p.sys_t : p.sys_s;
    return 0;
}

int hr_callgrind_total(const char *outfile, uint64_t *ir, hr_error_t *err) {
    hr_callgrind_sums_t s;
    if (hr_callgrind_read(outfile, &s, err) != 0)
        return -1;
    *ir = s.ir;
    return 0;
}
