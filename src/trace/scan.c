/* What a trace file holds without holding its events (heapreplay info).
 *
 * A binary trace is decoded in slices of SLICE events: each slice is
 * validated (hr_validator_t) and counted, and its bytes are hashed while the
 * decoder has seen none of the codings a reader accepts but the canonical
 * writer never produces (hr_bin_scan_canonical: a redundant thread switch,
 * an elidable realloc id written out, a size-delta choice other than the
 * writer's, names first used out of table order). When none occurred, no
 * record was skipped, every name is used and distinct, and the header is
 * the writer's (minor 2 or 3, 64 bytes; or 1.4, 112 bytes with the program
 * time, which the digest leaves out), the file *is* the canonical encoding,
 * so its FNV-1a is the digest: the value hr_trace_digest computes from the
 * decoded events, in one pass, without re-encoding. Memory: the slices and
 * the per-id tables (by the ids used); a plain binary file is mapped and its
 * pages dropped behind the decoder, so nothing grows with the file.
 *
 * Anything else (text, a compressed or piped trace: read whole; a file an
 * older or foreign writer produced, a permuted string table) is decoded
 * whole and summarised from the events. */
#include "trace/scan.h"
#include "trace/names.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLICE 65536
#define DROP_STEP ((size_t)1 << 20) /* mapped bytes given back at a time */

#define FNV_BASIS 0xcbf29ce484222325ull

static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Per-string push/mark counts and the timestamps' ends, over one slice. */
static void count_slice(hr_trace_summary_t *s, const hr_event_t *evs, const uint64_t *ts,
                        size_t n, uint64_t done) {
    for (size_t i = 0; i < n; i++) {
        const hr_event_t *ev = &evs[i];
        if (ev->op == HR_OP_HEAP_PUSH)
            s->pushes[ev->aux]++;
        else if (ev->op == HR_OP_MARK)
            s->marks[ev->aux]++;
        else if (ev->op == HR_OP_FRAME && (ev->flags & HR_EVF_HAS_OPT))
            s->named_frames++;
    }
    if (ts && n) {
        if (done == 0)
            s->first_ts = ts[0];
        s->last_ts = ts[n - 1];
    }
}

/* 1 when the string table holds no two equal names (a hash index finds a
 * repeat in O(1) per name, so a table of 100 k marks costs no more than its
 * size); 0 when one repeats or on out of memory: the caller then uses the
 * whole-trace path, which handles it. */
static int distinct_names(const hr_trace_t *t) {
    hr_names_t ix;
    hr_names_init(&ix);
    int ok = 1;
    for (uint32_t i = 0; ok && i < t->n_strings; i++)
        ok = hr_names_find(&ix, t->strings, t->strings[i]) < 0 &&
             hr_names_add(&ix, t->strings, i) == 0;
    hr_names_free(&ix);
    return ok;
}

/* The file's bytes: read whole (hr_trace_read_bytes) or, for a plain binary
 * regular file, mapped read-only; a mapping's pages are dropped behind the
 * decoder (drop_to), so resident memory does not grow with the file. */
typedef struct input {
    const uint8_t *buf;
    size_t         len;
    int            mapped;  /* 1: buf is an mmap of map_len bytes */
    size_t         map_len;
    size_t         dropped; /* bytes of buf already given back */
    size_t         page;    /* the page size (drop_to gives back whole pages) */
} input_t;

/* Gives back the mapped pages wholly before p (a no-op on a read buffer).
 * Private read-only file pages: dropping them only unmaps them, a later read
 * faults them in again from the page cache. */
static void drop_to(input_t *in, const uint8_t *p) {
    if (!in->mapped)
        return;
    size_t upto = (size_t)(p - in->buf) & ~(in->page - 1);
    if (upto >= in->dropped + DROP_STEP) {
        (void)madvise((void *)(in->buf + in->dropped), upto - in->dropped, MADV_DONTNEED);
        in->dropped = upto;
    }
}

/* FNV-1a of [p, p + n), dropping mapped pages behind as it goes. */
static uint64_t hash_range(input_t *in, uint64_t h, const uint8_t *p, size_t n) {
    while (n) {
        size_t k = n < DROP_STEP ? n : DROP_STEP;
        h = fnv1a(h, p, k);
        p += k;
        n -= k;
        drop_to(in, p);
    }
    return h;
}

/* The digest's start: the header the events alone would have (a 1.4 file's
 * program time left out, io.c: minor `minor`, 64 bytes) and the string table. */
static uint64_t hash_head(input_t *in, const hr_bin_layout_t *lay, int prog, unsigned minor) {
    uint8_t hdr[HR_BIN_HEADER_SIZE];
    memcpy(hdr, in->buf, sizeof hdr);
    if (prog) {
        hdr[10] = (uint8_t)minor;
        hdr[11] = 0;
        hdr[36] = HR_BIN_HEADER_SIZE;
        hdr[37] = hdr[38] = hdr[39] = 0;
    }
    uint64_t h = fnv1a(FNV_BASIS, hdr, sizeof hdr);
    const uint8_t *str = in->buf + lay->header_size;
    return hash_range(in, h, str, (size_t)(lay->records - str));
}

/* Whether the header is the one our writer would write, as far as the
 * header alone tells (binary_enc.c writes the lowest minor that holds the
 * events: 1.3 only with pool ops or named frames, which the caller checks
 * at the end; 1.4 with the program-time block, 112 bytes, whatever the
 * events). */
static int writer_header(const hr_bin_layout_t *lay, int prog) {
    if (prog == 2) /* with the noise record (1.6; 1.7 with its other_cpu) */
        return (lay->minor == HR_BIN_MINOR_NOISE || lay->minor == HR_BIN_MINOR_OTHER) &&
               lay->header_size == HR_BIN_HEADER_SIZE + HR_BIN_PROGRAM_SIZE + HR_BIN_NOISE_SIZE;
    if (prog)
        return lay->minor == HR_BIN_MINOR_PROGRAM &&
               lay->header_size == HR_BIN_HEADER_SIZE + HR_BIN_PROGRAM_SIZE;
    return (lay->minor == HR_BIN_MINOR_POOLS || lay->minor == HR_BIN_MINOR_PLAIN) &&
           lay->header_size == HR_BIN_HEADER_SIZE;
}

/* The sliced pass: decode, validate, count, and hash the file's bytes while
 * the decoder notes no freedom (hr_bin_scan_canonical): then the bytes are
 * the canonical encoding and their FNV-1a is the digest. Returns 0 (summary
 * done, digest set), 1 (valid so far but not canonical: use the whole-trace
 * path) or -1 (bad trace, err set). */
static int scan_binary(input_t *in, const char *name, hr_trace_summary_t *s,
                       const hr_scan_sink_t *sink, hr_error_t *err) {
    hr_bin_layout_t lay;
    hr_bin_scan_t *bs = hr_bin_scan_open(in->buf, in->len, name, &s->t, &lay, err);
    if (!bs)
        return -1;
    if (sink && sink->begin(sink->ctx, lay.n_events, lay.n_ids, s->t.flags, err) != 0) {
        hr_bin_scan_abort(bs);
        return -1;
    }
    int ts = (s->t.flags & HR_TRACEF_TIMESTAMPS) != 0, rc = -1;
    int prog = s->t.program.runs ? 1 + hr_program_has_noise(&s->t.program) : 0, needs_new = 0;
    int canonical = writer_header(&lay, prog);
    uint32_t n_used = 0;
    uint64_t done = 0, skipped = 0, h = 0;
    hr_event_t *evs = malloc(SLICE * sizeof *evs);
    uint64_t *tss = ts ? malloc(SLICE * sizeof *tss) : NULL;
    hr_validator_t *vd = hr_validator_new(lay.n_events, name);
    s->pushes = calloc(s->t.n_strings + 1, sizeof *s->pushes);
    s->marks = calloc(s->t.n_strings + 1, sizeof *s->marks);
    if (!evs || (ts && !tss) || !vd || !s->pushes || !s->marks) {
        hr_error_set(err, "%s: out of memory", name);
        hr_bin_scan_abort(bs);
        goto out;
    }
    if (canonical) /* a 1.4 file is hashed as minor 2 until an event needs 3 */
        h = hash_head(in, &lay, prog, HR_BIN_MINOR_PLAIN);
    /* The whole-trace reader decodes everything before it validates: after a
     * validation error keep decoding, so that a later decoding error wins as
     * it does there (same message either way). */
    hr_error_t verr = {{0}};
    int vfailed = 0;
    const uint8_t *from = lay.records, *to;
    for (;;) {
        long k = hr_bin_scan_next(bs, evs, tss, SLICE, &to);
        if (k < 0) {
            hr_bin_scan_abort(bs);
            goto out;
        }
        if (k == 0)
            break;
        if (!vfailed && hr_validator_step(vd, evs, (size_t)k, (const char *const *)s->t.strings,
                                        s->t.n_strings, &verr))
            vfailed = 1;
        if (!vfailed)
            count_slice(s, evs, tss, (size_t)k, done);
        if (!vfailed && sink && sink->slice(sink->ctx, evs, tss, (size_t)k, err) != 0) {
            hr_bin_scan_abort(bs);
            goto out;
        }
        canonical = canonical && hr_bin_scan_canonical(bs, &needs_new, &n_used);
        h = canonical ? hash_range(in, h, from, (size_t)(to - from)) : h;
        drop_to(in, to);
        done += (uint64_t)k;
        from = to;
    }
    if (!vfailed && hr_validator_end(vd, &verr))
        vfailed = 1;
    if (vfailed) {
        if (hr_bin_scan_close(bs, NULL, NULL) == 0 && err)
            *err = verr;
        goto out;
    }
    hr_validator_result(vd, &s->t);
    s->t.n_events = done;
    canonical = canonical && hr_bin_scan_canonical(bs, &needs_new, &n_used);
    if (hr_bin_scan_close(bs, &s->t, &skipped) != 0)
        goto out;
    unsigned minor = needs_new ? HR_BIN_MINOR_POOLS : HR_BIN_MINOR_PLAIN;
    canonical = canonical && !skipped && n_used == s->t.n_strings && distinct_names(&s->t) &&
                (prog || lay.minor == minor);
    rc = 1;
    if (canonical) {
        if (prog && needs_new) /* the header hashed first said minor 2: again */
            h = hash_range(in, hash_head(in, &lay, prog, minor), lay.records,
                           (size_t)(in->buf + in->len - lay.records));
        snprintf(s->digest, sizeof s->digest, "%016llx", (unsigned long long)h);
        rc = 0;
    }
out:
    free(evs);
    free(tss);
    hr_validator_free(vd);
    return rc;
}

/* The whole-trace path: decode everything, summarise, drop the events. */
static int scan_whole(const uint8_t *buf, size_t len, const char *name, hr_format_t fmt,
                      hr_trace_summary_t *s, const hr_scan_sink_t *sink, hr_error_t *err) {
    hr_trace_summary_free(s);
    hr_trace_t t;
    if (hr_trace_read_mem(buf ? (const void *)buf : "", len, name, fmt, &t, err) != 0)
        return -1;
    if (sink && (sink->begin(sink->ctx, t.n_events, t.n_ids, t.flags, err) != 0 ||
                 sink->slice(sink->ctx, t.events, t.ts, t.n_events, err) != 0)) {
        hr_trace_free(&t);
        return -1;
    }
    hr_trace_digest(&t, s->digest);
    s->pushes = calloc(t.n_strings + 1, sizeof *s->pushes);
    s->marks = calloc(t.n_strings + 1, sizeof *s->marks);
    if (!s->pushes || !s->marks) {
        hr_error_set(err, "%s: out of memory", name);
        hr_trace_free(&t);
        return -1;
    }
    count_slice(s, t.events, t.ts, t.n_events, 0);
    free(t.events);
    free(t.ts);
    t.events = NULL;
    t.ts = NULL;
    t.cap_events = t.n_events; /* the count stays; the events are gone */
    s->t = t;
    return 0;
}

int hr_trace_open_plain_binary(const char *path, uint64_t *size) {
    struct stat st;
    /* Look before opening: opening a FIFO would wait for (and consume) a writer. */
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    uint8_t magic[HR_BIN_MAGIC_LEN];
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= HR_BIN_HEADER_SIZE &&
        (uint64_t)st.st_size <= SIZE_MAX && pread(fd, magic, sizeof magic, 0) == sizeof magic &&
        memcmp(magic, HR_BIN_MAGIC, HR_BIN_MAGIC_LEN) == 0) {
        *size = (uint64_t)st.st_size;
        return fd;
    }
    close(fd);
    return -1;
}

/* Maps path when it is a regular file holding an uncompressed binary trace
 * (its magic first); 0 with in set, or -1 to read it as hr_trace_read_bytes
 * does (stdin, pipes, compressed or text files, any error: that path then
 * reports it). The mapped length is what read_stream would have read. */
static int map_binary(const char *path, input_t *in) {
    uint64_t size;
    int fd = hr_trace_open_plain_binary(path, &size);
    if (fd < 0)
        return -1;
    void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return -1;
    long page = sysconf(_SC_PAGESIZE);
    *in = (input_t){.buf = m, .len = (size_t)size, .mapped = 1, .map_len = (size_t)size,
                    .page = page > 0 && !(page & (page - 1)) ? (size_t)page : 4096};
    uint64_t total = hr_bin_total(in->buf);
    if (total < in->len)
        in->len = (size_t)total + 1; /* one byte more shows an excess */
    (void)madvise(m, in->map_len, MADV_SEQUENTIAL);
    return 0;
}

/* Summarises in (streamed when canonical, else whole); 0 or -1 with err. */
static int scan_input(input_t *in, const char *name, hr_format_t fmt, hr_trace_summary_t *s,
                      const hr_scan_sink_t *sink, hr_error_t *err) {
    int rc = fmt == HR_FMT_BINARY ? scan_binary(in, name, s, sink, err) : 1;
    s->streamed = rc == 0;
    if (rc == 1)
        rc = scan_whole(in->buf, in->len, name, fmt, s, sink, err);
    return rc;
}

/* A mapped file cut short by another process while it is read raises
 * SIGBUS on the first page past its new end: reported as an error instead
 * of a crash. The jump leaves the scan's slices and tables allocated (a
 * few MiB; the command then exits 2). One scan at a time (info's). */
static sigjmp_buf bus_jump;

static void on_bus(int sig) {
    (void)sig;
    siglongjmp(bus_jump, 1);
}

static int scan_mapped(input_t *in, const char *name, hr_trace_summary_t *s,
                       const hr_scan_sink_t *sink, hr_error_t *err) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_bus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &old);
    int rc;
    if (sigsetjmp(bus_jump, 1) == 0) {
        rc = scan_input(in, name, HR_FMT_BINARY, s, sink, err);
    } else {
        hr_error_set(err, "%s: cannot read: the file was truncated while it was read", name);
        rc = -1;
    }
    sigaction(SIGBUS, &old, NULL);
    return rc;
}

int hr_trace_scan_file(const char *path, hr_trace_summary_t *s, hr_error_t *err) {
    return hr_trace_scan_file_to(path, s, NULL, err);
}

int hr_trace_scan_file_to(const char *path, hr_trace_summary_t *s, const hr_scan_sink_t *sink,
                          hr_error_t *err) {
    input_t in = {0};
    memset(s, 0, sizeof *s);
    hr_trace_init(&s->t);
    int rc;
    if (map_binary(path, &in) == 0) {
        rc = scan_mapped(&in, path, s, sink, err);
        munmap((void *)in.buf, in.map_len);
    } else {
        uint8_t *buf;
        const char *name;
        hr_format_t fmt = HR_FMT_AUTO;
        if (hr_trace_read_bytes(path, &buf, &in.len, &fmt, &name, err) != 0)
            return -1;
        in.buf = buf;
        rc = scan_input(&in, name, fmt, s, sink, err);
        free(buf);
    }
    if (rc != 0)
        hr_trace_summary_free(s);
    return rc;
}

void hr_trace_summary_free(hr_trace_summary_t *s) {
    hr_trace_free(&s->t);
    free(s->pushes);
    free(s->marks);
    s->pushes = s->marks = NULL;
    s->first_ts = s->last_ts = 0;
    s->named_frames = 0;
    s->digest[0] = 0;
    hr_trace_init(&s->t);
}
