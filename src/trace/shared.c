/* Sharing a decoded trace through a memfd (see shared.h). */
#include "trace/shared.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hmem.h"
#include "trace/format.h"
#include "trace/packed.h"

#define HR_SHARED_MAGIC "HRSHARE1"

/* The file: this header, then events, timestamps (when the trace has them),
 * one u64 offset per string (from the start of the file) and the strings'
 * bytes, NUL-terminated. Offsets are 64-byte aligned. A packed trace
 * (packed_len != 0 or n_events == 0 with HR_SHARED_PACKED) holds the packed
 * records where the events would be, and no timestamp array (they are in
 * the records). */
typedef struct shared_hdr {
    char     magic[8];
    uint64_t total;
    uint64_t n_events;
    uint64_t off_events, off_ts, off_stroff;
    uint64_t peak_live;
    uint64_t op_counts[HR_OP__COUNT];
    uint32_t n_ids, n_threads, flags, n_strings, max_align;
    char     digest[17];
    uint8_t  form;       /* HR_SHARED_EVENTS or HR_SHARED_PACKED */
    uint64_t packed_len; /* bytes of packed records */
} shared_hdr_t;

enum { HR_SHARED_EVENTS = 0, HR_SHARED_PACKED = 1 };

static uint64_t align64(uint64_t v) { return (v + 63) & ~(uint64_t)63; }

/* The layout of `t` in a file; returns the total size. */
/* The string table's place from `at` on, and the counts of t; returns the
 * total size. */
static uint64_t layout_tail(const hr_trace_t *t, shared_hdr_t *h, uint64_t at) {
    h->off_stroff = align64(at);
    at = h->off_stroff + (uint64_t)t->n_strings * sizeof(uint64_t);
    for (uint32_t i = 0; i < t->n_strings; i++)
        at += strlen(t->strings[i]) + 1;
    h->total = at;
    h->peak_live = t->peak_live;
    memcpy(h->op_counts, t->op_counts, sizeof h->op_counts);
    h->n_ids = t->n_ids;
    h->n_threads = t->n_threads;
    h->max_align = t->max_align;
    h->flags = t->flags;
    h->n_strings = t->n_strings;
    return at;
}

static uint64_t layout(const hr_trace_t *t, shared_hdr_t *h) {
    memset(h, 0, sizeof *h);
    memcpy(h->magic, HR_SHARED_MAGIC, 8);
    h->n_events = t->n_events;
    h->off_events = align64(sizeof *h);
    uint64_t at = h->off_events + t->n_events * sizeof(hr_event_t);
    h->off_ts = align64(at);
    at = h->off_ts + (t->ts ? t->n_events * sizeof(uint64_t) : 0);
    return layout_tail(t, h, at);
}

/* The string offsets and bytes into base (a mapping of the whole file). */
static void fill_strings(char *base, const hr_trace_t *t, const shared_hdr_t *h) {
    uint64_t *offs = (uint64_t *)(base + h->off_stroff);
    uint64_t at = h->off_stroff + (uint64_t)t->n_strings * sizeof(uint64_t);
    for (uint32_t i = 0; i < t->n_strings; i++) {
        size_t n = strlen(t->strings[i]) + 1;
        offs[i] = at;
        memcpy(base + at, t->strings[i], n);
        at += n;
    }
}

static void fill(char *base, const hr_trace_t *t, const shared_hdr_t *h) {
    memcpy(base, h, sizeof *h);
    if (t->n_events)
        memcpy(base + h->off_events, t->events, t->n_events * sizeof(hr_event_t));
    if (t->ts && t->n_events)
        memcpy(base + h->off_ts, t->ts, t->n_events * sizeof(uint64_t));
    fill_strings(base, t, h);
}

/* Sealed: a replay process cannot change what the others replay. */
static void seal(int fd) {
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}

int hr_trace_share(const hr_trace_t *t, const char *digest, hr_error_t *err) {
    shared_hdr_t h;
    uint64_t total = layout(t, &h);
    snprintf(h.digest, sizeof h.digest, "%s", digest ? digest : "");
    int fd = memfd_create("heapreplay-trace", MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)total) != 0) {
        hr_error_set(err, "cannot share the trace with replay processes: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char *base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        hr_error_set(err, "cannot map the shared trace (%llu bytes): %s",
                     (unsigned long long)total, strerror(errno));
        close(fd);
        return -1;
    }
    fill(base, t, &h);
    munmap(base, total);
    seal(fd);
    return fd;
}

/* 1 when every offset of h lies inside a file of `size` bytes. */
static int header_fits(const shared_hdr_t *h, uint64_t size) {
    uint64_t ev_bytes = h->form == HR_SHARED_PACKED ? h->packed_len
                                                    : h->n_events * sizeof(hr_event_t);
    return memcmp(h->magic, HR_SHARED_MAGIC, 8) == 0 && h->total == size &&
           (h->form == HR_SHARED_PACKED || h->n_events <= size / sizeof(hr_event_t)) &&
           h->packed_len <= size && h->off_events + ev_bytes <= size &&
           h->off_stroff + (uint64_t)h->n_strings * sizeof(uint64_t) <= size &&
           h->digest[16] == 0;
}

int hr_trace_map(int fd, hr_trace_t *t, char digest[17], hr_error_t *err) {
    struct stat st;
    memset(t, 0, sizeof *t);
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < sizeof(shared_hdr_t)) {
        hr_error_set(err, "descriptor %d does not hold a shared trace", fd);
        return -1;
    }
    uint64_t size = (uint64_t)st.st_size;
    /* Populated: the trace's pages are resident before any RSS baseline,
     * and their faults never land in a timed loop. */
    char *base = mmap(NULL, size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (base == MAP_FAILED) {
        hr_error_set(err, "cannot map the shared trace: %s", strerror(errno));
        return -1;
    }
    const shared_hdr_t *h = (const shared_hdr_t *)base;
    char **strings = NULL;
    if (!header_fits(h, size) ||
        (h->n_strings && !(strings = hr_hmem_alloc(h->n_strings * sizeof *strings, 0)))) {
        hr_error_set(err, "descriptor %d: not a shared trace, or out of memory", fd);
        munmap(base, size);
        return -1;
    }
    const uint64_t *offs = (const uint64_t *)(base + h->off_stroff);
    for (uint32_t i = 0; i < h->n_strings; i++)
        strings[i] = base + (offs[i] < size ? offs[i] : h->off_stroff);
    t->n_events = t->cap_events = h->n_events;
    if (h->form == HR_SHARED_PACKED) {
        t->packed = (const uint8_t *)(base + h->off_events);
        t->packed_len = h->packed_len;
    } else {
        t->events = (hr_event_t *)(base + h->off_events);
        t->ts = (h->flags & HR_TRACEF_TIMESTAMPS) ? (uint64_t *)(base + h->off_ts) : NULL;
    }
    t->strings = strings;
    t->n_strings = t->cap_strings = h->n_strings;
    t->n_ids = h->n_ids;
    t->n_threads = h->n_threads;
    t->max_align = h->max_align;
    t->flags = h->flags;
    t->peak_live = h->peak_live;
    memcpy(t->op_counts, h->op_counts, sizeof t->op_counts);
    memcpy(digest, h->digest, 17);
    return 0;
}

void hr_trace_unmap(hr_trace_t *t) {
    const char *first = t->events ? (const char *)t->events : (const char *)t->packed;
    if (first) {
        char *base = (char *)first - align64(sizeof(shared_hdr_t));
        munmap(base, ((const shared_hdr_t *)base)->total);
    }
    hr_hmem_free(t->strings, t->n_strings * sizeof *t->strings);
    memset(t, 0, sizeof *t);
}

/* ---- the packed form, written while the trace is read -------------------- */

#define PACK_BUF ((size_t)1 << 20) /* records buffered before each write */

struct hr_share_pack {
    int              fd;
    uint64_t         off;    /* where the next buffered bytes go */
    uint8_t         *buf;
    size_t           n;
    hr_pack_state_t  st;
    hr_id_renamer_t *rn;     /* NULL unless the ids are renamed densely */
    uint64_t         events;
};

static int flush_pack(hr_share_pack_t *w, hr_error_t *err) {
    size_t done = 0;
    while (done < w->n) {
        ssize_t k = pwrite(w->fd, w->buf + done, w->n - done, (off_t)(w->off + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            hr_error_set(err, "cannot share the trace with replay processes: %s",
                         k < 0 ? strerror(errno) : "short write");
            return -1;
        }
        done += (size_t)k;
    }
    w->off += w->n;
    w->n = 0;
    return 0;
}

hr_share_pack_t *hr_share_pack_begin(uint32_t flags, int rename, hr_error_t *err) {
    hr_share_pack_t *w = calloc(1, sizeof *w);
    if (w) {
        w->fd = memfd_create("heapreplay-trace", MFD_ALLOW_SEALING);
        w->buf = malloc(PACK_BUF);
        w->rn = rename ? hr_id_renamer_new() : NULL;
    }
    if (!w || w->fd < 0 || !w->buf || (rename && !w->rn)) {
        hr_error_set(err, "cannot share the trace with replay processes: %s",
                     w && w->fd < 0 ? strerror(errno) : "out of memory");
        hr_share_pack_abort(w);
        return NULL;
    }
    w->off = align64(sizeof(shared_hdr_t));
    w->st = hr_pack_state_default((flags & HR_TRACEF_TIMESTAMPS) != 0);
    return w;
}

int hr_share_pack_events(hr_share_pack_t *w, const hr_event_t *evs, const uint64_t *ts, size_t n,
                         hr_error_t *err) {
    for (size_t i = 0; i < n; i++) {
        hr_event_t ev = evs[i];
        if (w->rn && hr_id_renamer_event(w->rn, &ev) != 0) {
            hr_error_set(err, "out of memory renaming ids");
            return -1;
        }
        if (PACK_BUF - w->n < HR_PACK_MAX_EVENT && flush_pack(w, err) != 0)
            return -1;
        w->n += hr_pack_event(&w->st, &ev, ts ? ts[i] : 0, w->buf + w->n);
    }
    w->events += n;
    return 0;
}

int hr_share_pack_end(hr_share_pack_t *w, const hr_trace_t *t, const char *digest,
                      hr_error_t *err) {
    if (flush_pack(w, err) != 0) {
        hr_share_pack_abort(w);
        return -1;
    }
    shared_hdr_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, HR_SHARED_MAGIC, 8);
    h.form = HR_SHARED_PACKED;
    h.n_events = w->events;
    h.off_events = align64(sizeof h);
    h.packed_len = w->off - h.off_events;
    uint64_t total = layout_tail(t, &h, w->off);
    if (w->rn)
        h.n_ids = hr_id_renamer_count(w->rn);
    snprintf(h.digest, sizeof h.digest, "%s", digest ? digest : "");
    char *base = MAP_FAILED;
    if (ftruncate(w->fd, (off_t)total) == 0)
        base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
    if (base == MAP_FAILED) {
        hr_error_set(err, "cannot share the trace with replay processes: %s", strerror(errno));
        hr_share_pack_abort(w);
        return -1;
    }
    memcpy(base, &h, sizeof h);
    fill_strings(base, t, &h);
    munmap(base, total);
    int fd = w->fd;
    w->fd = -1;
    hr_share_pack_abort(w);
    seal(fd);
    return fd;
}

void hr_share_pack_abort(hr_share_pack_t *w) {
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    free(w->buf);
    hr_id_renamer_free(w->rn);
    free(w);
}
