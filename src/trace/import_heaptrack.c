/* Importer for heaptrack data files (heaptrack 1.x, the interpreted format
 * that `heaptrack -o FILE` leaves: FILE.zst, FILE.gz or plain text).
 *
 * One record per line, numbers in hex (heaptrack's LineWriter):
 *   v VERSION FILEVERSION   header      X CMDLINE   I PAGESIZE PAGES
 *   s LEN STRING   t IP PARENT   i IP MODULE ...   (strings, traces, ips)
 *   a SIZE TRACE   allocation info #n (n counts 'a' lines from 0)
 *   + N            an allocation described by info #N
 *   - N            a deallocation of a block described by info #N
 *   c MS           elapsed time in milliseconds    R RSS    A attached
 *   # ...          comment
 * heaptrack's interpreter has already mapped addresses to infos (a realloc is
 * '+' new then '-' old, frees of unknown pointers are dropped) and records no
 * threads. We give each '+' a synthetic address and pair a '-' with the most
 * recent live block of the same info (LIFO): every such block has the same
 * size, so live bytes and peak are exact. Unknown record letters are skipped.
 *
 * Stacks: heaptrack's own tables become the trace's (src/trace/stacks.h):
 *   s LEN STRING        string #n (from 1, in order)
 *   i IP MODULE [FUNC FILE LINE]...   instruction pointer #n
 *                       (from 1): its module, then function, file and
 *                       line (string indices, 0 = unknown) of the code at
 *                       IP, then of each function it was inlined into
 *   t IP PARENT         trace node #n (from 1): an ip and its caller's node
 *                       (0 = none); a node is a whole stack, innermost first
 *   a SIZE TRACE        the allocation info's stack is its trace node
 * Each ip becomes named frames (hr_stacks_frame_named: heaptrack resolved
 * them already), innermost first (on_ip); an ip without a function keeps
 * its bare address. A node's stack
 * is built once, when the first '+' of an allocation info naming it comes,
 * and every '+' event of that info gets it as its site. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/import.h"
#include "trace/stacks.h"
#include "trace/zsrc.h"

#define HT_DEPTH_MAX 256 /* frames kept per stack (innermost first) */

/* heaptrack's string, ip and trace tables (see the top). */
typedef struct ht_ip {
    uint64_t addr;
    uint32_t raw, n; /* its n (function, file, line) triples: raw[raw .. raw + 3n) */
    uint32_t first;  /* its frames, once made: frame_of[first .. first + n); UINT32_MAX: not yet */
} ht_ip_t;
typedef struct ht_node {
    uint32_t ip, parent, sid; /* sid: its stack id once built (0: not yet) */
} ht_node_t;
typedef struct ht_tables {
    char **str; /* string #n at str[n - 1] */
    size_t n_str, cap_str;
    ht_ip_t *ip; /* ip #n at ip[n - 1] */
    size_t n_ip, cap_ip;
    uint64_t *raw; /* the ips' triples, as read */
    size_t n_raw, cap_raw;
    uint32_t *frame_of; /* the trace's frame indices of the ips made so far */
    size_t n_fr, cap_fr;
    ht_node_t *node; /* trace node #n at node[n - 1] */
    size_t n_node, cap_node;
    uint32_t *info_sid; /* per allocation info (cap_info entries): its stack id, 0: none yet */
    uint64_t *info_node; /* per allocation info: its trace node (0: none) */
} ht_tables_t;

/* ---- records ---------------------------------------------------------- */
typedef struct ht_state {
    const char *path;
    unsigned long line;
    uint64_t *info_size;   /* per allocation info */
    uint32_t *info_head;   /* per info: newest live node + 1 (0 = none) */
    size_t n_info, cap_info;
    uint64_t *node_addr;   /* live-block nodes: synthetic address, next */
    uint32_t *node_next;
    size_t n_node, cap_node;
    uint32_t free_node;    /* recycled node + 1 */
    uint64_t next_addr, now_ns;
    hr_addrmap_t *m;
    hr_repair_t *rep;
    hr_trace_t *out;
    ht_tables_t tb;
} ht_state_t;

/* Room for n + 1 elements of `elem` bytes in *v (capacity *cap). 0 or -1. */
static int ht_room(void **v, size_t *cap, size_t n, size_t elem) {
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 1024;
    void *nv = realloc(*v, c * elem);
    if (!nv)
        return -1;
    *v = nv;
    *cap = c;
    return 0;
}

static int hex_field(const char **p, uint64_t *v) {
    while (**p == ' ')
        (*p)++;
    char *end;
    *v = strtoull(*p, &end, 16);
    if (end == *p)
        return -1;
    *p = end;
    return 0;
}

static int add_info(ht_state_t *st, uint64_t size) {
    if (st->n_info == st->cap_info) {
        size_t cap = st->cap_info ? st->cap_info * 2 : 1024;
        uint64_t *s = realloc(st->info_size, cap * sizeof *s);
        if (s)
            st->info_size = s;
        uint32_t *h = realloc(st->info_head, cap * sizeof *h);
        if (h)
            st->info_head = h;
        uint32_t *sid = realloc(st->tb.info_sid, cap * sizeof *sid);
        if (sid)
            st->tb.info_sid = sid;
        uint64_t *nd = realloc(st->tb.info_node, cap * sizeof *nd);
        if (nd)
            st->tb.info_node = nd;
        if (!s || !h || !sid || !nd)
            return -1;
        st->cap_info = cap;
    }
    st->tb.info_sid[st->n_info] = 0;
    st->tb.info_node[st->n_info] = 0;
    st->info_size[st->n_info] = size;
    st->info_head[st->n_info++] = 0;
    return 0;
}

/* ---- stacks (see the top) ------------------------------------------------ */
/* 's LEN STRING': the text after the length and one space. 0, -2 OOM. */
static int on_string(ht_state_t *st, const char *p) {
    ht_tables_t *tb = &st->tb;
    while (*p == ' ')
        p++;
    p += strcspn(p, " ");
    if (*p == ' ')
        p++;
    if (ht_room((void **)&tb->str, &tb->cap_str, tb->n_str, sizeof *tb->str) != 0)
        return -2;
    if (!(tb->str[tb->n_str] = strdup(p)))
        return -2;
    tb->n_str++;
    return 0;
}

/* String #i, or NULL (0 or undefined: unknown). */
static const char *ht_str(const ht_tables_t *tb, uint64_t i) {
    return i && i <= tb->n_str ? tb->str[i - 1] : NULL;
}

/* One frame of an ip into frame_of. 0, -2 OOM. */
static int ip_frame(ht_state_t *st, uint64_t addr, uint64_t fn, uint64_t file, uint64_t line,
                    int inl) {
    ht_tables_t *tb = &st->tb;
    const char *f = ht_str(tb, fn);
    int64_t ix = f ? hr_stacks_frame_named(st->out, addr, f, ht_str(tb, file),
                                           line > UINT32_MAX ? 0 : (uint32_t)line, inl)
                   : hr_trace_stacks(st->out) ? hr_stacks_frame_addr(st->out->stacks, addr) : -1;
    if (ix < 0 || ht_room((void **)&tb->frame_of, &tb->cap_fr, tb->n_fr, sizeof *tb->frame_of))
        return -2;
    tb->frame_of[tb->n_fr++] = (uint32_t)ix;
    return 0;
}

/* 'i IP MODULE [FUNC [FILE LINE]]...': the first triple is the innermost
 * frame (the function whose code is at IP, maybe inlined), the next ones the
 * functions it was inlined into, outwards, the last of them the real one;
 * all but that last are inl = 1 (ip_frames). heaptrack leaves out the
 * trailing fields it does not know (an ip with only its function, or
 * nothing). Kept as read: frames (and their strings in the trace) are made
 * when an allocation first uses the ip, so a file without allocations gives
 * a trace without strings. 0, -1 bad line, -2 OOM. */
static int on_ip(ht_state_t *st, const char *p) {
    ht_tables_t *tb = &st->tb;
    uint64_t addr, mod, v[3 * 64];
    size_t n = 0;
    if (hex_field(&p, &addr) != 0 || hex_field(&p, &mod) != 0)
        return -1;
    while (n < sizeof v / sizeof *v && hex_field(&p, &v[n]) == 0)
        n++;
    if (n > 3)
        n -= n % 3;
    while (n < 3)
        v[n++] = 0;
    if (ht_room((void **)&tb->ip, &tb->cap_ip, tb->n_ip, sizeof *tb->ip) != 0)
        return -2;
    for (size_t k = 0; k < n; k++) {
        if (ht_room((void **)&tb->raw, &tb->cap_raw, tb->n_raw, sizeof *tb->raw) != 0)
            return -2;
        tb->raw[tb->n_raw++] = v[k];
    }
    tb->ip[tb->n_ip++] = (ht_ip_t){addr, (uint32_t)(tb->n_raw - n), (uint32_t)(n / 3), UINT32_MAX};
    return 0;
}

/* Makes the frames of ip #i (1-based, defined) once. 0, -2 OOM. */
static int ip_frames(ht_state_t *st, uint32_t i) {
    ht_tables_t *tb = &st->tb;
    ht_ip_t *ip = &tb->ip[i - 1];
    if (ip->first != UINT32_MAX)
        return 0;
    uint32_t first = (uint32_t)tb->n_fr;
    for (uint32_t k = 0; k < ip->n; k++) {
        const uint64_t *t = &tb->raw[ip->raw + 3 * k];
        if (ip_frame(st, ip->addr, t[0], t[1], t[2], k + 1 < ip->n) != 0)
            return -2;
    }
    ip->first = first;
    return 0;
}

/* 't IP PARENT'. 0, -1 bad line, -2 OOM. */
static int on_node(ht_state_t *st, const char *p) {
    ht_tables_t *tb = &st->tb;
    uint64_t ip, parent;
    if (hex_field(&p, &ip) != 0 || hex_field(&p, &parent) != 0)
        return -1;
    if (ht_room((void **)&tb->node, &tb->cap_node, tb->n_node, sizeof *tb->node) != 0)
        return -2;
    tb->node[tb->n_node++] = (ht_node_t){ip > UINT32_MAX ? 0 : (uint32_t)ip,
                                         parent > UINT32_MAX ? 0 : (uint32_t)parent, 0};
    return 0;
}

/* The stack id of trace node #n (built on first use; 0 for node 0, an
 * undefined one or one without frames); -1 on OOM. A parent must come before its child (heaptrack
 * writes them so), which also ends any cycle a damaged file could hold. */
static int64_t node_stack(ht_state_t *st, uint64_t n) {
    ht_tables_t *tb = &st->tb;
    if (!n || n > tb->n_node)
        return 0;
    if (tb->node[n - 1].sid)
        return tb->node[n - 1].sid;
    uint32_t fr[HT_DEPTH_MAX], k = 0;
    for (uint64_t at = n; at && at <= tb->n_node && k < HT_DEPTH_MAX;) {
        const ht_node_t *nd = &tb->node[at - 1];
        if (nd->ip && nd->ip <= tb->n_ip) {
            if (ip_frames(st, nd->ip) != 0)
                return -1;
            for (uint32_t j = 0; j < tb->ip[nd->ip - 1].n && k < HT_DEPTH_MAX; j++)
                fr[k++] = tb->frame_of[tb->ip[nd->ip - 1].first + j];
        }
        at = nd->parent < at ? nd->parent : 0;
    }
    if (!k)
        return 0; /* no ip with a frame: no site */
    hr_stacks_t *s = hr_trace_stacks(st->out);
    int64_t id = s ? hr_stacks_intern(s, fr, k) : -1;
    if (id > 0)
        tb->node[n - 1].sid = (uint32_t)id;
    return id;
}

static void ht_tables_free(ht_tables_t *tb) {
    for (size_t i = 0; i < tb->n_str; i++)
        free(tb->str[i]);
    free(tb->str);
    free(tb->ip);
    free(tb->raw);
    free(tb->frame_of);
    free(tb->node);
    free(tb->info_sid);
    free(tb->info_node);
}

static int new_node(ht_state_t *st, uint32_t *out) {
    if (st->free_node) {
        *out = st->free_node - 1;
        st->free_node = st->node_next[*out];
        return 0;
    }
    if (st->n_node == st->cap_node) {
        size_t cap = st->cap_node ? st->cap_node * 2 : 4096;
        uint64_t *a = realloc(st->node_addr, cap * sizeof *a);
        if (a)
            st->node_addr = a;
        uint32_t *n = realloc(st->node_next, cap * sizeof *n);
        if (n)
            st->node_next = n;
        if (!a || !n)
            return -1;
        st->cap_node = cap;
    }
    *out = (uint32_t)st->n_node++;
    return 0;
}

static int on_alloc(ht_state_t *st, uint64_t idx) {
    uint32_t node;
    if (new_node(st, &node) != 0)
        return -1;
    st->node_addr[node] = ++st->next_addr * 16;
    st->node_next[node] = st->info_head[idx];
    st->info_head[idx] = node + 1;
    size_t before = st->out->n_events;
    if (hr_addrmap_alloc(st->m, 0, st->node_addr[node], st->info_size[idx], 0, st->now_ns) != 0)
        return -1;
    if (!st->tb.info_sid[idx] && st->tb.info_node[idx]) { /* the info's first block */
        int64_t id = node_stack(st, st->tb.info_node[idx]);
        if (id < 0)
            return -1;
        st->tb.info_sid[idx] = (uint32_t)id;
    }
    uint32_t sid = st->tb.info_sid[idx];
    return sid && st->out->n_events > before ? hr_trace_set_site(st->out, st->out->n_events - 1, sid)
                                             : 0;
}

static int on_free(ht_state_t *st, uint64_t idx) {
    uint32_t head = st->info_head[idx];
    if (!head) {
        st->rep->unknown_frees++;
        return 0;
    }
    uint32_t node = head - 1;
    st->info_head[idx] = st->node_next[node];
    st->node_next[node] = st->free_node;
    st->free_node = node + 1;
    return hr_addrmap_free(st->m, 0, st->node_addr[node], st->now_ns);
}

/* One line without its newline. */
static int ht_line(ht_state_t *st, const char *s, hr_error_t *err) {
    char op = s[0];
    if (!op || op == '#' || (s[1] != ' ' && s[1] != 0))
        return 0;
    const char *p = s + 1;
    uint64_t a, b;
    switch (op) {
    case 'a': {
        if (hex_field(&p, &a) != 0 || hex_field(&p, &b) != 0)
            break;
        if (add_info(st, a) != 0)
            return -2;
        st->tb.info_node[st->n_info - 1] = b;
        return 0;
    }
    case 's': return on_string(st, p);
    case 'i':
    case 't': {
        int rc = op == 'i' ? on_ip(st, p) : on_node(st, p);
        if (rc != -1)
            return rc;
        break;
    }
    case '+':
    case '-':
        if (hex_field(&p, &a) != 0)
            break;
        if (a >= st->n_info) {
            hr_error_set(err, "%s:%lu: allocation info index %llu not defined yet (%zu 'a' lines)",
                         st->path, st->line, (unsigned long long)a, st->n_info);
            return -1;
        }
        st->rep->events_in++;
        return (op == '+' ? on_alloc(st, a) : on_free(st, a)) == 0 ? 0 : -2;
    case 'c':
        if (hex_field(&p, &a) != 0)
            break;
        st->now_ns = a * 1000000u;
        return 0;
    default:
        return 0; /* RSS, attached, ...: not needed */
    }
    hr_error_set(err, "%s:%lu: expected hex fields after '%c'", st->path, st->line, op);
    return -1;
}

/* The longest line taken: heaptrack's are a few hundred bytes (a symbol
 * name); a stream of zeros without a newline must not grow without end. */
#define HT_LINE_MAX (16 << 20)

/* Splits the decompressed stream into lines and feeds ht_line. */
static int ht_run(ht_state_t *st, hr_zsrc_t *src, hr_error_t *err) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    int rc = 0, cut = 0;
    if (!buf)
        return -2;
    for (;;) {
        if (len == cap && cap >= HT_LINE_MAX) {
            hr_error_set(err, "%s:%lu: a line longer than %d MiB (heaptrack's lines are "
                         "short: not a heaptrack file)", st->path, st->line + 1, HT_LINE_MAX >> 20);
            rc = -1;
            break;
        }
        if (len == cap) { /* a line longer than the buffer: grow */
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                rc = -2;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        errno = 0;
        long got = hr_zsrc_read(src, (unsigned char *)buf + len, cap - len, &cut);
        if (got < 0 && errno == EFBIG) {
            hr_zsrc_error(src, st->path, 0, err); /* past the input limit */
            rc = -1;
            break;
        }
        if (got < 0) {
            hr_error_set(err, "%s:%lu: corrupt compressed data", st->path, st->line + 1);
            rc = -1;
            break;
        }
        if (got == 0)
            break;
        len += (size_t)got;
        size_t start = 0;
        for (size_t i = 0; i < len && rc == 0; i++) {
            if (buf[i] != '\n')
                continue;
            buf[i] = 0;
            st->line++;
            rc = ht_line(st, buf + start, err);
            start = i + 1;
        }
        if (rc != 0)
            break;
        memmove(buf, buf + start, len - start);
        len -= start;
    }
    if (rc == 0 && (cut || len)) {
        st->rep->truncated = 1;
        snprintf(st->rep->truncation, sizeof st->rep->truncation, "%s after line %lu",
                 cut ? "compressed stream ends mid-frame" : "last line cut short", st->line);
    }
    free(buf);
    return rc;
}

int hr_import_heaptrack(const char *path, hr_trace_t *out, hr_repair_t *rep, hr_error_t *err) {
    ht_state_t st = {.path = path, .rep = rep, .out = out};
    hr_zsrc_t *src = NULL;
    int rc = -1;
    FILE *f = fopen(path, "rb");
    if (!f) {
        hr_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!(src = hr_zsrc_open(f, path, err)))
        goto done;
    st.m = hr_addrmap_new(out, rep, 1);
    rc = st.m ? ht_run(&st, src, err) : -2;
    if (rc == -2)
        hr_error_set(err, "%s:%lu: out of memory", path, st.line);
    if (rc == 0 && st.line == 0) {
        hr_error_set(err, "%s: offset 0: empty heaptrack file", path);
        rc = -1;
    }
    rep->threads = 1;
    snprintf(rep->ended, sizeof rep->ended, "heaptrack data, %zu allocation infos", st.n_info);
    hr_addrmap_finish(st.m);
done:
    hr_zsrc_close(src);
    fclose(f);
    free(st.info_size);
    free(st.info_head);
    free(st.node_addr);
    free(st.node_next);
    ht_tables_free(&st.tb);
    return rc == 0 ? 0 : -1;
}
