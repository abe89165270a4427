/* Reader of the raw capture log: the index pass and the ordered merge (see
 * capture_log.h for the contract, docs/CAPTURE.md "Conversion" for why).
 *
 * Version 2+ blocks hold variable-length, delta-coded records of one thread.
 * A thread's clock only grows, so a block's records are in clock order; the
 * blocks of all threads are merged by (clock, thread). A block that is not
 * in order (a damaged log) is cut into ascending runs, so the merge still
 * gives the total order a sort of all records would. Equal (clock, thread)
 * pairs (a block written twice by a flush interrupted by a signal) come out
 * next to each other; the importer drops the repeats. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "trace/capture_log.h"

struct hr_caprun {
    size_t start, off, end;    /* first record, next undecoded one, end of the run */
    hr_cap_delta_t start_d, d; /* delta states before start and before off */
    uint32_t tid;
    size_t head_name; /* the decoded next record (valid while in the heap) */
    hr_cap_rec_t head;
};

static void cut(hr_caplog_t *L, size_t off, const char *what) {
    L->rep->truncated = 1;
    snprintf(L->rep->truncation, sizeof L->rep->truncation, "%s at offset %zu", what, off);
}

/* Drops the mapped pages over [from, to): read already, not needed soon. The
 * mapping stays valid: a page shared with a run still to come is read again
 * from the page cache, so rounding outwards is safe. The kernel maps a
 * window of pages around each fault (fault-around, 64 KiB), some of them
 * before `from`: those are dropped too (DROP_BEHIND), else a few pages at
 * every block boundary would stay resident and add up with the log's size. */
#define DROP_BEHIND (128u * 1024u)
static void drop_pages(const hr_caplog_t *L, size_t from, size_t to) {
    size_t pg = 4096;
    from = from > DROP_BEHIND ? from - DROP_BEHIND : 0;
    size_t a = from & ~(pg - 1), b = (to + pg - 1) & ~(pg - 1);
    if (b > L->len)
        b = L->len;
    if (b > a)
        madvise((void *)(L->buf + a), b - a, MADV_DONTNEED);
}

/* Decodes one record at [*off, end) with the delta state d; returns 0
 * (record in *r, *off advanced), 1 when cut, 2 on an unknown op. */
static int get_rec(const hr_caplog_t *L, size_t *off, size_t end, hr_cap_delta_t *d,
                   hr_cap_rec_t *r, size_t *name_off) {
    const uint8_t *p = L->buf + *off, *e = L->buf + end;
    uint64_t dc, dp, a = 0, b = 0, st = 0;
    if (p >= e)
        return 1;
    r->op = *p++;
    int stacked = L->stacked_ok && (r->op & HR_CAP_OP_STACKED);
    if (stacked)
        r->op &= (uint8_t)~HR_CAP_OP_STACKED;
    if (r->op == 0 || r->op >= L->end_op)
        return 2;
    if (hr_varint_get(&p, e, &dc) != HR_VARINT_OK || hr_varint_get(&p, e, &dp) != HR_VARINT_OK)
        return 1;
    if (r->op != HR_CAP_FREE &&
        (hr_varint_get(&p, e, &a) != HR_VARINT_OK || hr_varint_get(&p, e, &b) != HR_VARINT_OK))
        return 1;
    r->clk = d->clk + dc;
    r->ptr = d->ptr + (uint64_t)hr_unzigzag(dp);
    r->a = hr_cap_is_realloc(r->op) ? r->ptr + (uint64_t)hr_unzigzag(a) : a;
    r->b = b;
    d->clk = r->clk;
    d->ptr = r->ptr;
    *name_off = (size_t)(p - L->buf);
    if (hr_cap_has_name(r->op)) {
        if (b > (uint64_t)(e - p))
            return 1;
        p += b;
    }
    if (stacked && hr_varint_get(&p, e, &st) != HR_VARINT_OK)
        return 1;
    r->stack = st > UINT32_MAX ? 0 : (uint32_t)st;
    *off = (size_t)(p - L->buf);
    return 0;
}

static int is_item(unsigned op) {
    return op != HR_CAP_END && op != HR_CAP_MODULE && op != HR_CAP_STACK && op != HR_CAP_PROC &&
           op != HR_CAP_CMD;
}

/* 1 for a frame-by mark (src/base/rawlog.h, HR_CAP_FRAME_BY). */
static int is_frame_by(const hr_caplog_t *L, const hr_cap_rec_t *r, size_t name_off) {
    size_t n = sizeof HR_CAP_FRAME_BY - 1;
    return r->op == HR_CAP_MARK && r->b > n && memcmp(L->buf + name_off, HR_CAP_FRAME_BY, n) == 0;
}

/* Growable arrays of the index pass. */
static int grow(void **v, size_t *cap, size_t n, size_t size) {
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 256;
    void *nv = realloc(*v, c * size);
    if (!nv)
        return -1;
    *v = nv;
    *cap = c;
    return 0;
}

/* What own frames only needs (import_capture.c): the frame numbers and the
 * numbers the frame-by marks carry; O(frames), not O(events). */
typedef struct frame_scan {
    uint64_t *fr, *by;
    size_t n_fr, cap_fr, n_by, cap_by;
} frame_scan_t;

static int note_rec(hr_caplog_t *L, frame_scan_t *fs, const hr_cap_rec_t *r, size_t name_off) {
    if (r->op == HR_CAP_END) {
        L->have_end = 1;
        L->end = *r;
        return 0;
    }
    if (r->op == HR_CAP_PROC) {
        L->have_proc = 1;
        L->proc = *r;
        return 0;
    }
    if (r->op == HR_CAP_CMD) { /* the first of several (none is written twice) */
        if (!L->cmd_len && r->b && r->b <= HR_CAP_CMD_MAX) {
            L->cmd_off = name_off;
            L->cmd_len = (size_t)r->b;
        }
        return 0;
    }
    if (r->op == HR_CAP_MODULE || r->op == HR_CAP_STACK) {
        int mod = r->op == HR_CAP_MODULE;
        hr_capdef_t **v = mod ? &L->mods : &L->stks;
        size_t *n = mod ? &L->n_mods : &L->n_stks;
        if (grow((void **)v, mod ? &L->cap_mods : &L->cap_stks, *n, sizeof **v))
            return -1;
        (*v)[(*n)++] = (hr_capdef_t){r->ptr, r->a, name_off, (size_t)r->b};
        return 0;
    }
    L->n_items++;
    L->n_touched += r->op == HR_CAP_TOUCHED;
    if (r->op == HR_CAP_FRAME) {
        if (grow((void **)&fs->fr, &fs->cap_fr, fs->n_fr, sizeof *fs->fr))
            return -1;
        fs->fr[fs->n_fr++] = r->a;
    } else if (is_frame_by(L, r, name_off)) {
        if (grow((void **)&fs->by, &fs->cap_by, fs->n_by, sizeof *fs->by))
            return -1;
        fs->by[fs->n_by++] = r->a;
    }
    return 0;
}

static int add_run(hr_caplog_t *L, size_t off, size_t end, hr_cap_delta_t d, uint32_t tid) {
    if (off >= end)
        return 0;
    if (grow((void **)&L->runs, &L->cap_runs, L->n_runs, sizeof *L->runs))
        return -1;
    L->runs[L->n_runs++] = (hr_caprun_t){.start = off, .off = off, .end = end, .start_d = d, .d = d, .tid = tid};
    return 0;
}

/* Checks the records of one block payload [off, end) and cuts them into
 * ascending runs. Returns 0 when whole, 1 when cut (reported), -1 on OOM. */
static int index_block(hr_caplog_t *L, frame_scan_t *fs, size_t off, size_t end,
                       size_t block_off, const hr_cap_block_t *h) {
    uint32_t got = 0;
    hr_cap_delta_t d = {0, 0}, run_d = d;
    size_t run_off = off;
    uint64_t last = 0;
    int any = 0;
    while (off < end) {
        hr_cap_rec_t r;
        size_t name_off, at = off;
        hr_cap_delta_t before = d;
        int rc = get_rec(L, &off, end, &d, &r, &name_off);
        if (rc == 2) {
            char what[96];
            snprintf(what, sizeof what, "unknown record op %u in block at offset %zu", r.op,
                     block_off);
            cut(L, at, what);
            return add_run(L, run_off, at, run_d, h->tid) ? -1 : 1;
        }
        if (rc == 1) {
            off = at;
            break;
        }
        if (is_item(r.op)) {
            if (any && r.clk < last) { /* out of order: a new run from here */
                if (add_run(L, run_off, at, run_d, h->tid))
                    return -1;
                run_off = at;
                run_d = before;
            }
            any = 1;
            last = r.clk;
        }
        r.tid = h->tid;
        if (note_rec(L, fs, &r, name_off))
            return -1;
        got++;
    }
    if (add_run(L, run_off, off, run_d, h->tid))
        return -1;
    if (off < end || got < h->nrecs) {
        char what[128];
        snprintf(what, sizeof what, "block at offset %zu cut after %u of %u records", block_off,
                 got, h->nrecs);
        cut(L, off, what);
        return 1;
    }
    return 0;
}

static int index_blocks(hr_caplog_t *L, frame_scan_t *fs) {
    size_t off = sizeof(hr_cap_header_t);
    while (off < L->len) {
        hr_cap_block_t h;
        if (L->len - off < sizeof h) {
            cut(L, off, "block header cut");
            return 0;
        }
        memcpy(&h, L->buf + off, sizeof h);
        if (h.magic != HR_CAP_BLOCK_MAGIC) {
            cut(L, off, "damaged block (bad magic); read up to here");
            return 0;
        }
        size_t start = off + sizeof h;
        size_t avail = L->len - start < h.nbytes ? L->len - start : h.nbytes;
        if (h.clk > L->cal_clk) {
            L->cal_clk = h.clk;
            L->cal_ns = h.ns;
        }
        int rc = index_block(L, fs, start, start + avail, off, &h);
        drop_pages(L, off, start + avail);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
        if (avail < h.nbytes) {
            char what[96];
            snprintf(what, sizeof what, "block at offset %zu cut (%zu of %u bytes)", off, avail,
                     h.nbytes);
            cut(L, L->len, what);
            return 0;
        }
        off = start + h.nbytes;
    }
    return 0;
}

/* The program's own frames win over the ones capture --frames found: when
 * both are in the log (the automatic marks stop at the program's first
 * hr_frame(); the ones before it are here), every automatic frame and its
 * mark are dropped and the other frames renumbered without them. A frame is
 * automatic when a frame-by mark carries its number (the mark's `a`). Sets
 * L->below (NULL: nothing to drop). 0, or -1 on out of memory. */
static int own_frames_only(hr_caplog_t *L, const frame_scan_t *fs) {
    uint64_t maxno = 0, nauto = 0;
    for (size_t i = 0; i < fs->n_fr; i++)
        if (fs->fr[i] > maxno)
            maxno = fs->fr[i];
    if (maxno == 0 || maxno > L->n_items)
        return 0; /* no frames, or numbers no library wrote */
    uint64_t *below = calloc(maxno + 2, sizeof *below); /* below[k]: automatic numbers < k */
    if (!below)
        return -1;
    for (size_t i = 0; i < fs->n_by; i++)
        if (fs->by[i] && fs->by[i] <= maxno && !below[fs->by[i] + 1]) {
            below[fs->by[i] + 1] = 1;
            nauto++;
        }
    if (!nauto || fs->n_fr <= nauto) {
        free(below);
        return 0;
    }
    for (uint64_t k = 1; k <= maxno + 1; k++)
        below[k] += below[k - 1];
    for (size_t i = 0; i < fs->n_fr; i++)
        L->rep->auto_frames_dropped += below[fs->fr[i] + 1] > below[fs->fr[i]];
    L->below = below;
    L->maxno = maxno;
    return 0;
}

/* How the process ended, from the END record (and the library's estimate of
 * its own time); a log without one was cut. */
static void describe_end(hr_caplog_t *L) {
    hr_repair_t *rep = L->rep;
    if (!L->have_end) {
        if (!rep->truncated)
            cut(L, L->len, "no END record (killed by SIGKILL, a raw exit syscall, or a crash)");
        snprintf(rep->ended, sizeof rep->ended, "unknown (no END record)");
        return;
    }
    rep->overhead_ns = L->end.a;
    uint64_t how = L->end.b;
    if (how == 0)
        snprintf(rep->ended, sizeof rep->ended, "exit");
    else if (how == 1)
        snprintf(rep->ended, sizeof rep->ended, "_exit");
    else if (how >= 128)
        snprintf(rep->ended, sizeof rep->ended, "signal %llu (buffers flushed)",
                 (unsigned long long)(how - 128));
    else
        snprintf(rep->ended, sizeof rep->ended, "code %llu", (unsigned long long)how);
}


void hr_caplog_program(const hr_caplog_t *L, hr_program_time_t *p) {
    if (!L->have_proc)
        return;
    memset(p, 0, sizeof *p);
    p->runs = 1;
    p->flags = HR_PROGF_CAPTURED;
    p->wall_ns = L->proc.b;
    p->cpu_ns = p->cpu_min_ns = p->cpu_max_ns = L->proc.ptr;
    p->max_rss = L->proc.a;
}

_Static_assert(HR_CAP_CMD_MAX == HR_COMMAND_MAX, "a CMD record fits a trace's command");

int hr_caplog_command(const hr_caplog_t *L, char **cmd) {
    *cmd = NULL;
    if (!L->cmd_len)
        return 0;
    const char *name = (const char *)L->buf + L->cmd_off;
    size_t n = strnlen(name, L->cmd_len); /* a NUL inside ends it */
    if (!(*cmd = malloc(n + 1)))
        return -1;
    memcpy(*cmd, name, n);
    (*cmd)[n] = 0;
    if (n == 0) {
        free(*cmd);
        *cmd = NULL;
    }
    return 0;
}

int hr_caplog_open(hr_caplog_t *L, const char *path, hr_repair_t *rep, hr_error_t *err) {
    memset(L, 0, sizeof *L);
    L->path = path;
    L->rep = rep;
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        hr_error_set(err, "%s: cannot open", path);
        return -1;
    }
    L->len = (size_t)st.st_size;
    void *m = L->len ? mmap(NULL, L->len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (m == MAP_FAILED) {
        hr_error_set(err, "%s: read error", path);
        return -1;
    }
    L->buf = m;
    if (L->len < sizeof L->h) {
        hr_error_set(err, "%s: offset %zu: file ends inside the %zu-byte capture header", path,
                     L->len, sizeof L->h);
        return -1;
    }
    memcpy(&L->h, L->buf, sizeof L->h);
    if (memcmp(L->h.magic, HR_CAP_MAGIC, 8) != 0 || L->h.version < HR_CAP_VERSION_MIN ||
        L->h.version > HR_CAP_VERSION || L->h.endian != HR_CAP_ENDIAN_TAG) {
        hr_error_set(err, "%s: offset 0: expected a version %u to %u capture header (magic %s)",
                     path, HR_CAP_VERSION_MIN, HR_CAP_VERSION, HR_CAP_MAGIC);
        return -1;
    }
    L->end_op = L->h.version >= 6   ? HR_CAP__COUNT
                : L->h.version >= 5 ? HR_CAP_CMD
                : L->h.version >= 4 ? HR_CAP_PROC
                : L->h.version >= 3 ? HR_CAP_MODULE
                                    : HR_CAP_TOUCHED;
    L->stacked_ok = L->h.version >= 4;
    frame_scan_t fs = {0};
    int rc = index_blocks(L, &fs) == 0 && own_frames_only(L, &fs) == 0 ? 0 : -1;
    free(fs.fr);
    free(fs.by);
    if (rc != 0)
        hr_error_set(err, "%s: out of memory", path);
    else
        describe_end(L);
    return rc;
}

/* ---- the merge ---------------------------------------------------------- */

static int run_less(const hr_caprun_t *x, const hr_caprun_t *y) {
    if (x->head.clk != y->head.clk)
        return x->head.clk < y->head.clk;
    return x->tid < y->tid;
}

/* Decodes the run's next event record into head; 0 when it has none left
 * (its pages are dropped). */
static int run_advance(hr_caplog_t *L, hr_caprun_t *u) {
    while (u->off < u->end) {
        if (get_rec(L, &u->off, u->end, &u->d, &u->head, &u->head_name) != 0)
            break; /* cannot happen: the index pass checked these bytes */
        if (is_item(u->head.op)) {
            u->head.tid = u->tid;
            return 1;
        }
    }
    drop_pages(L, u->start, u->end);
    return 0;
}

static void sift_down(hr_caplog_t *L, size_t i) {
    size_t n = L->n_heap, *h = L->heap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && run_less(&L->runs[h[c + 1]], &L->runs[h[c]]))
            c++;
        if (!run_less(&L->runs[h[c]], &L->runs[h[i]]))
            return;
        size_t t = h[c];
        h[c] = h[i];
        h[i] = t;
        i = c;
    }
}

int hr_caplog_rewind(hr_caplog_t *L) {
    free(L->heap);
    L->n_heap = 0;
    L->heap = malloc((L->n_runs ? L->n_runs : 1) * sizeof *L->heap);
    if (!L->heap)
        return -1;
    for (size_t i = 0; i < L->n_runs; i++) {
        hr_caprun_t *u = &L->runs[i];
        u->off = u->start;
        u->d = u->start_d;
        if (run_advance(L, u))
            L->heap[L->n_heap++] = i;
        /* the pages faulted in for the head (and around it): read again
         * when the merge gets to this run */
        drop_pages(L, u->start, u->off + 65536);
    }
    for (size_t i = L->n_heap / 2; i-- > 0;)
        sift_down(L, i);
    return 0;
}

/* The frame renumbering of own_frames_only on one record. */
static int frame_drop(const hr_caplog_t *L, hr_cap_rec_t *r, size_t name_off) {
    if (is_frame_by(L, r, name_off))
        return 1;
    if (r->op != HR_CAP_FRAME || r->a > L->maxno)
        return 0;
    if (L->below[r->a + 1] > L->below[r->a])
        return 1;
    r->a -= L->below[r->a];
    return 0;
}

int hr_caplog_next(hr_caplog_t *L, hr_cap_rec_t *r, size_t *name_off, int *drop) {
    if (!L->n_heap)
        return 0;
    hr_caprun_t *u = &L->runs[L->heap[0]];
    *r = u->head;
    *name_off = u->head_name;
    *drop = L->below ? frame_drop(L, r, *name_off) : 0;
    /* The run's next record usually stays the smallest (a thread's block
     * against the others): sift_down then stops after one comparison pair. */
    if (!run_advance(L, u))
        L->heap[0] = L->heap[--L->n_heap];
    sift_down(L, 0);
    return 1;
}

void hr_caplog_close(hr_caplog_t *L) {
    if (L->buf)
        munmap((void *)L->buf, L->len);
    free(L->mods);
    free(L->stks);
    free(L->below);
    free(L->runs);
    free(L->heap);
    memset(L, 0, sizeof *L);
}
