/* libheapreplay-capture.so, part 2: the log (src/base/rawlog.h).
 *
 * Each thread appends variable-length records to its own mmap'd buffer (no
 * lock and no shared counter on the fast path: the event clock of
 * capture_int.h touches only the address's stripe). A full buffer is
 * written as one block by one write(2) on an O_APPEND descriptor. Buffers are
 * registered in a global list (locked only when a thread starts or ends) so
 * that exit, _exit, exec and fatal signals can flush every thread's buffer.
 *
 * Environment (read once at start):
 *   HEAPREPLAY_CAPTURE_FILE           output path; unset = record nothing
 *   HEAPREPLAY_CAPTURE_PID            pid that owns FILE (default: the first
 *                                     process to load the library; exported)
 *   HEAPREPLAY_CAPTURE_CHILDREN=0     other processes (fork children, their
 *                                     exec'd images) record nothing; default:
 *                                     they write FILE.<pid>; =count: they only
 *                                     count their allocation-family calls and
 *                                     append the count to FILE.<pid>.events
 *                                     (one decimal line per image)
 *   HEAPREPLAY_CAPTURE_NO_TIMESTAMPS=1  the importer drops timestamps
 *   HEAPREPLAY_CAPTURE_BUFFER=BYTES   flush a thread's buffer at this size
 *                                     (4096 .. 256 KiB, default 256 KiB)
 *   HEAPREPLAY_CAPTURE_TOUCH=0        no page probe of large blocks (hooks.c)
 *   HEAPREPLAY_CAPTURE_FRAMES=...     frame marks at present functions (frames.c)
 *   HEAPREPLAY_CAPTURE_STACKS=DEPTH   call stacks of allocations (stacks.c) */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture_int.h"



volatile int hr_cap_recording;
int hr_cap_counting;
_Atomic uint64_t hr_cap_counted;
static int hr_fd = -1;
static uint32_t hr_flags;
static uint64_t hr_start_ns, hr_start_clk;
uint32_t hr_cap_buf_limit = HR_BUF_BYTES;
_Atomic uint64_t hr_cap_stripes[1u << HR_CAP_STRIPE_BITS];
HR_CAP_TLS uint64_t hr_cap_lclk;
static long hr_log_pid; /* process the open log belongs to */
/* The estimate's parts (hr_cap_finish): records, timed hook calls (whole
 * gaps), their own ticks and count, and the CPU time of the flushes and the
 * start-up, measured on the thread's own CPU clock. */
static _Atomic uint64_t hr_tot_events, hr_tot_hooks, hr_tot_sample_clk, hr_tot_samples;
static _Atomic uint64_t hr_tot_own_ns;
static hr_tbuf_t *hr_bufs;
static pthread_mutex_t hr_bufs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t hr_key;
static char hr_path[4096];
static int hr_children = 1; /* 0 none, 1 full logs, 2 counts only */

HR_CAP_TLS hr_tbuf_t *hr_cap_tb;
static HR_CAP_TLS uint32_t my_tid;
static HR_CAP_TLS int thread_done; /* the key destructor already ran */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t hr_cap_cpu_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hr_cap_add_own_ns(uint64_t ns) { atomic_fetch_add(&hr_tot_own_ns, ns); }

static void write_all(const void *buf, size_t len) {
    const unsigned char *p = buf;
    while (len && hr_fd >= 0) {
        ssize_t n = write(hr_fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* disk full or closed: the importer reports a cut file */
        p += n;
        len -= (size_t)n;
    }
}

/* Clock units -> ns, calibrated between the start and now. */
static uint64_t clk_to_ns(uint64_t clk) {
    if (hr_flags & HR_CAPF_CLK_NS)
        return clk;
    uint64_t n = now_ns() - hr_start_ns, c = hr_cap_phys() - hr_start_clk;
    return c ? (uint64_t)((double)clk * (double)n / (double)c) : clk;
}

/* ---- the file ---------------------------------------------------------- */
/* The CMD record (src/base/rawlog.h): which program this process is, in a
 * block of its own. Read with system calls into static memory: this runs
 * inside malloc's hooks' library before recording starts, and exec'd
 * images start over here. */
static void write_command(void) {
    static char cmd[HR_CAP_CMD_MAX + 1], args[HR_CAP_CMD_MAX + 1];
    static unsigned char blk[sizeof(hr_cap_block_t) + HR_CAP_REC_MAX + HR_CAP_CMD_MAX];
    ssize_t n = readlink("/proc/self/exe", cmd, HR_CAP_CMD_MAX);
    size_t len = n > 0 ? (size_t)n : 0, alen = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    for (ssize_t got; fd >= 0 && alen < sizeof args - 1 &&
                      (got = read(fd, args + alen, sizeof args - 1 - alen)) > 0;)
        alen += (size_t)got;
    if (fd >= 0)
        close(fd);
    /* the arguments after argv[0] (the path already names the program),
     * each NUL before one a space */
    size_t i = 0;
    while (i < alen && args[i])
        i++;
    for (; i < alen && len < HR_CAP_CMD_MAX; i++)
        cmd[len++] = args[i] ? args[i] : ' ';
    if (len && i >= alen && cmd[len - 1] == ' ')
        len--; /* the last argument's terminating NUL */
    if (!len)
        return;
    hr_cap_delta_t d = {0, 0};
    hr_cap_rec_t r = {0, 0, 0, len, 0, HR_CAP_CMD, 0};
    size_t rn = hr_cap_put_rec(blk + sizeof(hr_cap_block_t), &d, &r, cmd);
    hr_cap_block_t h = {HR_CAP_BLOCK_MAGIC, (uint32_t)rn, hr_cap_tid(), 1, hr_cap_phys(),
                        now_ns()};
    memcpy(blk, &h, sizeof h);
    write_all(blk, sizeof h + rn);
}

/* Opens (truncating) `path` and writes the header; recording starts. */
static void open_log(const char *path) {
    int saved = errno;
    hr_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (hr_fd < 0) {
        errno = saved;
        return;
    }
    hr_cap_header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, HR_CAP_MAGIC, 8);
    h.version = HR_CAP_VERSION;
    h.endian = HR_CAP_ENDIAN_TAG;
    h.flags = hr_flags;
    hr_log_pid = (long)getpid();
    h.pid = (uint32_t)hr_log_pid;
    h.start_ns = hr_start_ns;
    h.start_clk = hr_start_clk;
    write_all(&h, sizeof h);
    write_command();
    hr_cap_recording = 1;
    hr_cap_stacks_start();
    errno = saved;
}

/* ---- per-thread buffers --------------------------------------------------- */
/* The flush's cost is its thread's CPU time around the write (the kernel's
 * copy into the page cache, the file's blocks): the wall clock would also
 * count the time the thread waited or was preempted. */
void hr_cap_flush_buf(hr_tbuf_t *b, int reset) {
    uint32_t len = atomic_load_explicit(&b->len, memory_order_acquire);
    if (len <= sizeof(hr_cap_block_t))
        return;
    uint64_t c0 = hr_cap_cpu_ns();
    hr_cap_block_t h = {HR_CAP_BLOCK_MAGIC, len - (uint32_t)sizeof h, b->tid, b->nrecs,
                        hr_cap_phys(), now_ns()};
    memcpy(b->data, &h, sizeof h);
    write_all(b->data, len);
    uint64_t c1 = hr_cap_cpu_ns();
    atomic_fetch_add(&hr_tot_own_ns, c1 > c0 ? c1 - c0 : 0);
    atomic_fetch_add(&hr_tot_events, b->events);
    atomic_fetch_add(&hr_tot_hooks, b->hooks);
    atomic_fetch_add(&hr_tot_sample_clk, b->sample_clk);
    atomic_fetch_add(&hr_tot_samples, b->samples);
    b->events = b->hooks = b->sample_clk = b->samples = 0;
    if (reset) {
        b->nrecs = 0;
        b->d.clk = b->d.ptr = 0;
        atomic_store_explicit(&b->len, sizeof(hr_cap_block_t), memory_order_release);
    }
}

/* The next gap between timed hook calls: HR_SAMPLE_GAP_MIN + 0..63
 * (xorshift64). */
static uint32_t next_gap(hr_tbuf_t *b) {
    uint64_t x = b->rng ? b->rng : 0x9E3779B97F4A7C15ull;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b->rng = x;
    return HR_SAMPLE_GAP_MIN + (uint32_t)(x >> 58);
}

void hr_cap_sampling_reset(hr_tbuf_t *b) {
    b->rng = (hr_cap_phys() ^ ((uint64_t)hr_cap_tid() << 32)) | 1u;
    b->gap = next_gap(b);
    b->sample_left = b->gap - 1;
    b->events = b->hooks = b->sample_clk = b->samples = 0;
}

/* The hook calls of b's gap in progress (not yet counted in b->hooks). */
static uint64_t partial_gap(const hr_tbuf_t *b) {
    return b->gap > b->sample_left ? b->gap - 1 - b->sample_left : 0;
}

static hr_tbuf_t *acquire_buf(void) {
    hr_tbuf_t *b;
    pthread_mutex_lock(&hr_bufs_lock);
    for (b = hr_bufs; b; b = b->next)
        if (!b->in_use)
            break;
    if (!b) {
        void *m = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            pthread_mutex_unlock(&hr_bufs_lock);
            return NULL;
        }
        b = m;
        b->next = hr_bufs;
        hr_bufs = b;
    }
    b->in_use = 1;
    b->nrecs = 0;
    b->d.clk = b->d.ptr = 0;
    atomic_store(&b->len, sizeof(hr_cap_block_t));
    pthread_mutex_unlock(&hr_bufs_lock);
    b->tid = hr_cap_tid();
    hr_cap_sampling_reset(b);
    return b;
}

uint32_t hr_cap_tid(void) {
    if (!my_tid)
        my_tid = (uint32_t)syscall(SYS_gettid);
    return my_tid;
}

/* pthread key destructor: the thread is exiting; flush and give the buffer back. */
static void thread_exit(void *arg) {
    hr_tbuf_t *b = arg;
    hr_cap_guard++;
    atomic_fetch_add(&hr_tot_hooks, partial_gap(b));
    if (hr_cap_recording)
        hr_cap_flush_buf(b, 1);
    hr_cap_sig_flush(1);
    pthread_mutex_lock(&hr_bufs_lock);
    b->in_use = 0;
    pthread_mutex_unlock(&hr_bufs_lock);
    hr_cap_tb = NULL;
    thread_done = 1;
    hr_cap_guard--;
}

static void put_rec(hr_tbuf_t *b, const hr_cap_rec_t *r, const char *name) {
    size_t need = HR_CAP_REC_MAX + (hr_cap_has_name(r->op) ? (size_t)r->b : 0);
    uint32_t at = atomic_load_explicit(&b->len, memory_order_relaxed);
    if (HR_UNLIKELY(at + need > hr_cap_buf_limit)) {
        hr_cap_flush_buf(b, 1);
        at = atomic_load_explicit(&b->len, memory_order_relaxed);
    }
    at += (uint32_t)hr_cap_put_rec(b->data + at, &b->d, r, name);
    b->nrecs++;
    b->events++;
    atomic_store_explicit(&b->len, at, memory_order_release);
}

void hr_cap_emit(uint64_t clk, unsigned op, uint64_t ptr, uint64_t a, uint64_t b,
                 const char *name, size_t len) {
    hr_cap_emit_s(clk, op, ptr, a, b, name, len, 0);
}

void hr_cap_emit_s(uint64_t clk, unsigned op, uint64_t ptr, uint64_t a, uint64_t b,
                   const char *name, size_t len, uint32_t stack) {
    if (!hr_cap_recording)
        return;
    if (len > HR_BUF_BYTES / 2)
        len = HR_BUF_BYTES / 2;
    if (name)
        b = len;
    hr_cap_rec_t r = {clk, ptr, a, b, 0, (uint8_t)op, stack};
    hr_tbuf_t *buf = hr_cap_tb;
    if (HR_UNLIKELY(!buf)) {
        if (!thread_done) {
            buf = hr_cap_tb = acquire_buf();
            if (buf)
                pthread_setspecific(hr_key, buf);
        }
        if (!buf) { /* after the thread's destructor: a one-record block */
            hr_tbuf_t *tmp = acquire_buf();
            if (!tmp)
                return;
            put_rec(tmp, &r, name);
            hr_cap_flush_buf(tmp, 1);
            pthread_mutex_lock(&hr_bufs_lock);
            tmp->in_use = 0;
            pthread_mutex_unlock(&hr_bufs_lock);
            return;
        }
    }
    put_rec(buf, &r, name);
}

/* What a timed span measures when the library does nothing in it: its own
 * clock reads (four, and the branches between them) make the two kept
 * intervals longer than the work in them. The median of 31 empty spans,
 * timed once at start (span_self_init), is taken off each sample. */
static uint64_t hr_sample_self;

static void span_self_init(void) {
    uint64_t v[31];
    for (int i = 0; i < 31; i++) {
        hr_cap_span_t sp = {NULL, hr_cap_phys(), 0};
        uint64_t r0 = hr_cap_phys();
        __asm__ __volatile__("" ::: "memory"); /* the empty "real call" */
        sp.real = hr_cap_phys() - r0;
        uint64_t e = hr_cap_phys();
        uint64_t d = e - sp.t0 > sp.real ? e - sp.t0 - sp.real : 0;
        int j = i; /* insertion sort: nothing here may call malloc */
        for (; j > 0 && v[j - 1] > d; j--)
            v[j] = v[j - 1];
        v[j] = d;
    }
    hr_sample_self = v[15];
}

void hr_cap_span_stop(const hr_cap_span_t *s) {
    uint64_t e = hr_cap_phys();
    hr_tbuf_t *t = s->t;
    t->hooks += t->gap;
    t->gap = next_gap(t);
    t->sample_left = t->gap - 1;
    if (e < s->t0 || e - s->t0 < s->real)
        return;
    uint64_t d = e - s->t0 - s->real;
    if (d < HR_SAMPLE_MAX_CLK) {
        t->sample_clk += d > hr_sample_self ? d - hr_sample_self : 0;
        t->samples++;
    }
}

/* ---- exit, _exit, exec, signals, fork ------------------------------------ */
/* Count mode (a child of the traced program, HEAPREPLAY_CAPTURE_CHILDREN=count):
 * appends "N\n", the calls counted since the last write, to FILE.<pid>.events.
 * Called at exit, _exit, a fatal signal and exec (a failed exec goes on
 * counting from 0): `heapreplay capture` adds up the lines. Async-signal-safe. */
static void count_finish(void) {
    char path[sizeof hr_path + 40], line[24];
    int n = 0, saved = errno;
    long pid = hr_log_pid;
    size_t len = strlen(hr_path);
    memcpy(path, hr_path, len);
    path[len++] = '.';
    char digits[24];
    do
        digits[n++] = (char)('0' + pid % 10);
    while ((pid /= 10) > 0);
    while (n)
        path[len++] = digits[--n];
    memcpy(path + len, ".events", sizeof ".events");
    uint64_t v = atomic_exchange(&hr_cap_counted, 0);
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    size_t l = 0;
    while (n)
        line[l++] = digits[--n];
    line[l++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, line, l); /* one short line: one write */
        (void)w;
        close(fd);
    }
    errno = saved;
}

/* The library's estimate of its own time (END's a field; docs/CAPTURE.md
 * "Overhead"): the hook calls x the mean own time of the timed ones, plus
 * `own`: the CPU time it measured on its threads' clocks (the flushes, the
 * start-up, this finish). */
static uint64_t estimate_ns(uint64_t own) {
    uint64_t sn = atomic_load(&hr_tot_samples), hooks = atomic_load(&hr_tot_hooks);
    double per = sn ? (double)clk_to_ns(atomic_load(&hr_tot_sample_clk)) / (double)sn : 0;
    return (uint64_t)(per * (double)hooks) + own;
}

void hr_cap_finish(unsigned how) {
    /* A vfork child shares our memory: its _exit/exec must not touch the log. */
    if (hr_cap_counting && (long)getpid() == hr_log_pid) {
        hr_cap_guard++;
        count_finish();
        if (how != 2)
            hr_cap_counting = 0;
        hr_cap_guard--;
        return;
    }
    if (!hr_cap_recording || (long)getpid() != hr_log_pid)
        return;
    hr_cap_guard++;
    uint64_t own0 = atomic_load(&hr_tot_own_ns), c0 = hr_cap_cpu_ns();
    if (how != 2)
        hr_cap_recording = 0; /* nothing after the END record */
    for (hr_tbuf_t *b = hr_bufs; b; b = b->next)
        if (b->in_use) {
            if (how != 2)
                atomic_fetch_add(&hr_tot_hooks, partial_gap(b));
            hr_cap_flush_buf(b, b == hr_cap_tb || how == 2);
        }
    hr_cap_sig_flush(0); /* finishing from inside a signal handler */
    if (how != 2) {
        uint64_t est = estimate_ns(own0 + (hr_cap_cpu_ns() - c0));
        uint64_t ev = atomic_load(&hr_tot_events);
        unsigned char blk[sizeof(hr_cap_block_t) + 2 * HR_CAP_REC_MAX];
        hr_cap_delta_t d = {0, 0};
        /* the process's own time and peak RSS (a --follow-forks child's
         * program time), then END */
        struct rusage ru;
        uint64_t cpu = 0, rss = 0, now = now_ns();
        if (getrusage(RUSAGE_SELF, &ru) == 0) {
            cpu = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
                  (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
            rss = (uint64_t)ru.ru_maxrss * 1024u;
        }
        uint64_t tick = hr_cap_tick(0);
        hr_cap_rec_t p = {tick, cpu, rss, now - hr_start_ns, 0, HR_CAP_PROC, 0};
        size_t n = hr_cap_put_rec(blk + sizeof(hr_cap_block_t), &d, &p, NULL);
        hr_cap_rec_t r = {tick, ev, est, how, 0, HR_CAP_END, 0};
        n += hr_cap_put_rec(blk + sizeof(hr_cap_block_t) + n, &d, &r, NULL);
        hr_cap_block_t h = {HR_CAP_BLOCK_MAGIC, (uint32_t)n, my_tid, 2, hr_cap_phys(), now};
        memcpy(blk, &h, sizeof h);
        write_all(blk, sizeof h + n);
    }
    hr_cap_guard--;
}

__attribute__((destructor(101))) static void at_unload(void) { hr_cap_finish(0); }

static void fork_prepare(void) {
    hr_cap_guard++; /* a signal handler must not append to the buffer being written */
    if (hr_cap_recording && hr_cap_tb)
        hr_cap_flush_buf(hr_cap_tb, 1);
    hr_cap_guard--;
}

/* Count mode in this process: its pid, and nothing recorded. */
static void start_counting(void) {
    hr_log_pid = (long)getpid();
    atomic_store(&hr_cap_counted, 0);
    hr_cap_counting = 1;
}

/* In the child only this thread exists: other buffers hold the parent's events. */
static void fork_child(void) {
    hr_cap_guard++;
    for (hr_tbuf_t *b = hr_bufs; b; b = b->next)
        if (b != hr_cap_tb)
            b->in_use = 0;
    if (hr_cap_tb) {
        hr_cap_tb->nrecs = 0;
        hr_cap_tb->d.clk = hr_cap_tb->d.ptr = 0;
        atomic_store(&hr_cap_tb->len, sizeof(hr_cap_block_t));
    }
    pthread_mutex_init(&hr_bufs_lock, NULL);
    /* the child's estimate starts at 0: what the parent spent is in the
     * parent's log */
    atomic_store(&hr_tot_events, 0);
    atomic_store(&hr_tot_hooks, 0);
    atomic_store(&hr_tot_sample_clk, 0);
    atomic_store(&hr_tot_samples, 0);
    atomic_store(&hr_tot_own_ns, 0);
    my_tid = (uint32_t)syscall(SYS_gettid);
    if (hr_cap_tb)
        hr_cap_tb->tid = my_tid;
    if (hr_fd >= 0)
        close(hr_fd);
    hr_fd = -1;
    hr_cap_recording = 0;
    hr_cap_counting = 0;
    if (hr_children == 2 && hr_path[0])
        start_counting();
    else if (hr_children && hr_path[0]) {
        char p[sizeof hr_path + 24];
        snprintf(p, sizeof p, "%s.%ld", hr_path, (long)getpid());
        open_log(p);
    }
    hr_cap_guard--;
}

void hr_cap_log_init(void) {
    hr_cap_guard++;
    const char *path = getenv("HEAPREPLAY_CAPTURE_FILE");
    const char *owner = getenv("HEAPREPLAY_CAPTURE_PID");
    const char *ch = getenv("HEAPREPLAY_CAPTURE_CHILDREN");
    const char *nots = getenv("HEAPREPLAY_CAPTURE_NO_TIMESTAMPS");
    const char *bufsz = getenv("HEAPREPLAY_CAPTURE_BUFFER");
    if (bufsz && *bufsz) {
        long v = strtol(bufsz, NULL, 10);
        hr_cap_buf_limit = v < 4096 ? 4096u : v > (long)HR_BUF_BYTES ? HR_BUF_BYTES : (uint32_t)v;
    }
    hr_children = !ch ? 1 : strcmp(ch, "0") == 0 ? 0 : strcmp(ch, "count") == 0 ? 2 : 1;
    span_self_init();
    hr_cap_touch_init();
    hr_cap_frames_init();
    hr_cap_stacks_init();
    hr_flags = (nots && strcmp(nots, "1") == 0) ? 0 : HR_CAPF_TIMESTAMPS;
    hr_start_ns = now_ns();
    hr_start_clk = hr_cap_phys();
    if (!HR_CAP_HAVE_TSC) {
        hr_flags |= HR_CAPF_CLK_NS;
        hr_start_clk = hr_start_ns;
    }
    if (!path || !*path || strlen(path) >= sizeof hr_path) {
        hr_cap_guard--;
        return;
    }
    /* A relative path names a file in the directory the program started in;
     * made absolute (and exported) so that an exec'd image or a child that
     * changed directory writes the same file. */
    char cwd[sizeof hr_path];
    if (path[0] != '/' && getcwd(cwd, sizeof cwd) &&
        strlen(cwd) + 1 + strlen(path) < sizeof hr_path) {
        size_t n = strlen(cwd);
        memcpy(hr_path, cwd, n);
        hr_path[n] = '/';
        memcpy(hr_path + n + 1, path, strlen(path) + 1);
        setenv("HEAPREPLAY_CAPTURE_FILE", hr_path, 1);
    } else {
        snprintf(hr_path, sizeof hr_path, "%s", path);
    }
    pthread_key_create(&hr_key, thread_exit);
    pthread_atfork(fork_prepare, NULL, fork_child);
    hr_cap_install_signals();
    long pid = (long)getpid();
    if (!owner || !*owner) {
        char buf[32];
        snprintf(buf, sizeof buf, "%ld", pid);
        setenv("HEAPREPLAY_CAPTURE_PID", buf, 1);
        open_log(hr_path);
    } else if (strtol(owner, NULL, 10) == pid) {
        open_log(hr_path); /* the owner, or its exec'd image: starts the file over */
    } else if (hr_children == 2) {
        start_counting();
    } else if (hr_children) {
        char p[sizeof hr_path + 24];
        snprintf(p, sizeof p, "%s.%ld", hr_path, pid);
        open_log(p);
    }
    hr_cap_guard--;
}
