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
 * size, so live bytes and peak are exact. Unknown record letters are skipped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/import.h"
#include "trace/zsrc.h"

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
} ht_state_t;

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
        if (!s || !h)
            return -1;
        st->cap_info = cap;
    }
    st->info_size[st->n_info] = size;
    st->info_head[st->n_info++] = 0;
    return 0;
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
    return hr_addrmap_alloc(st->m, 0, st->node_addr[node], st->info_size[idx], 0, st->now_ns);
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
    case 'a':
        if (hex_field(&p, &a) != 0 || hex_field(&p, &b) != 0)
            break;
        return add_info(st, a) == 0 ? 0 : -2;
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
        return 0; /* strings, traces, ips, RSS, ...: not needed */
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
    ht_state_t st = {.path = path, .rep = rep};
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
    return rc == 0 ? 0 : -1;
}
