/* Trace file I/O: format detection, whole-file reading, writers, digest.
 * The formats themselves live in binary.c / binary_enc.c / text.c. */
#include "trace/format.h"
#include "base/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/names.h"
#include "trace/zsrc.h"

/* Binary when the data starts with (a prefix of) the magic: a file cut inside
 * the magic is then reported as a truncated header, not as "not a trace". */
static int looks_binary(const uint8_t *buf, size_t len) {
    size_t n = len < HR_BIN_MAGIC_LEN ? len : HR_BIN_MAGIC_LEN;
    return n > 0 && memcmp(buf, HR_BIN_MAGIC, n) == 0;
}

/* What the first bytes of a stream say. MORE: not enough bytes to tell (a
 * prefix of the magic, or only blank and '#' comment lines so far). */
typedef enum sniff { SNIFF_MORE, SNIFF_BINARY, SNIFF_TEXT, SNIFF_NOT } sniff_t;

/* Text when the first line that is neither blank nor a '#' comment starts
 * with the word "heapreplay-trace". */
static sniff_t sniff_text(const char *s, size_t len, int at_end) {
    const char *end = s + len;
    size_t ml = strlen(HR_TEXT_MAGIC);
    while (s < end) {
        while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
            s++;
        if (s < end && *s == '#') {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            if (!nl)
                return at_end ? SNIFF_NOT : SNIFF_MORE;
            s = nl + 1;
            continue;
        }
        if (s == end)
            break;
        size_t left = (size_t)(end - s);
        if (left <= ml)
            return memcmp(s, HR_TEXT_MAGIC, left) != 0 ? SNIFF_NOT
                   : left == ml && at_end              ? SNIFF_TEXT
                   : at_end                            ? SNIFF_NOT
                                                       : SNIFF_MORE;
        return memcmp(s, HR_TEXT_MAGIC, ml) == 0 && strchr(" \t\r\n", s[ml]) ? SNIFF_TEXT
                                                                             : SNIFF_NOT;
    }
    return at_end ? SNIFF_NOT : SNIFF_MORE;
}

static sniff_t sniff(const uint8_t *buf, size_t len, int at_end) {
    if (looks_binary(buf, len))
        return len >= HR_BIN_MAGIC_LEN || at_end ? SNIFF_BINARY : SNIFF_MORE;
    return sniff_text((const char *)buf, len, at_end);
}

static int looks_text(const char *s, size_t len) { return sniff_text(s, len, 1) == SNIFF_TEXT; }

int hr_trace_read_mem_stats(const void *buf, size_t len, const char *name, hr_format_t fmt,
                            hr_trace_t *t, hr_read_stats_t *st, hr_error_t *err) {
    hr_read_stats_t dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    hr_trace_init(t);
    if (fmt == HR_FMT_AUTO) {
        if (looks_binary(buf, len))
            fmt = HR_FMT_BINARY;
        else if (looks_text(buf, len))
            fmt = HR_FMT_TEXT;
        else {
            hr_error_set(err, "%s: not a heapreplay trace (expected magic HRTRACE or a "
                         "'heapreplay-trace' header line)", name);
            return -1;
        }
    }
    int rc = fmt == HR_FMT_BINARY ? hr_trace_decode_binary(buf, len, name, t, st, 1, err)
                                  : hr_trace_decode_text(buf, len, name, t, err);
    if (rc)
        hr_trace_free(t);
    return rc;
}

int hr_trace_read_mem(const void *buf, size_t len, const char *name, hr_format_t fmt,
                      hr_trace_t *t, hr_error_t *err) {
    return hr_trace_read_mem_stats(buf, len, name, fmt, t, NULL, err);
}

/* Bytes a stream may hold before its format is known: comment lines before a
 * text header. Past this it is not a trace. */
#define SNIFF_LIMIT ((size_t)1 << 20)

/* Room for `extra` more bytes in b, the capacity doubling but never past
 * `most` bytes in all (the input limit + 1), so a bounded input never
 * reserves twice its bound. 0, or -1 on out of memory. */
static int buf_room(hr_buf_t *b, size_t extra, uint64_t most) {
    if (most > b->len && most - b->len < extra)
        extra = (size_t)(most - b->len); /* the last stretch below the bound */
    if (b->cap - b->len >= extra)
        return 0;
    uint64_t cap = b->cap ? b->cap : extra;
    while (cap - b->len < extra)
        cap *= 2;
    if (cap > most && most >= b->len + extra)
        cap = most;
    if (cap > SIZE_MAX)
        return -1;
    uint8_t *d = realloc(b->data, (size_t)cap);
    if (!d)
        return -1;
    b->data = d;
    b->cap = (size_t)cap;
    return 0;
}

/* A binary header's claim checked against the stream's limit: a header
 * that says more bytes follow than the input may hold fails before they
 * are read (a compressed file of zeros behind such a header). */
static int check_claim(const uint8_t *h, uint64_t total, uint64_t limit, const char *name,
                       hr_error_t *err) {
    if (!limit || total <= limit)
        return 0;
    uint64_t sl = 0;
    for (int i = 7; i >= 0; i--)
        sl = (sl << 8) | h[48 + i];
    hr_error_set(err, "%s: offset %d: the header claims %llu bytes of trace, more than %llu, "
                 "the input limit (--max-input, or HEAPREPLAY_MAX_INPUT; docs/TRACE_FORMAT.md)",
                 name, sl > limit ? 48 : 56, (unsigned long long)total,
                 (unsigned long long)limit);
    return -1;
}

/* Reads a trace from z into b, checking the format from the first bytes
 * (so /dev/zero or a random stream fails at once) and, for a binary trace,
 * never reading past what its header says the file holds (the decoder then
 * reports the extra bytes) nor past the stream's limit (hr_zsrc_limit).
 * `hint`: the file's size when known (0 if not). Returns 0 with *fmt set,
 * or -1 with err. */
static int read_stream(hr_zsrc_t *z, const char *name, uint64_t hint, hr_format_t *fmt,
                       hr_buf_t *b, hr_error_t *err) {
    sniff_t what = *fmt == HR_FMT_BINARY ? SNIFF_BINARY : *fmt == HR_FMT_TEXT ? SNIFF_TEXT
                                                                              : SNIFF_MORE;
    uint64_t limit = UINT64_MAX, most = hr_zsrc_limit(z) ? hr_zsrc_limit(z) + 1 : UINT64_MAX;
    size_t chunk = hint && hint < SIZE_MAX - 1 ? (size_t)hint + 1 : (size_t)1 << 16;
    for (;;) {
        int cut = 0;
        if (buf_room(b, chunk < ((size_t)1 << 16) ? (size_t)1 << 16 : chunk, most) != 0) {
            hr_error_set(err, "%s: out of memory after %zu bytes", name, b->len);
            return -1;
        }
        chunk = b->cap - b->len;
        if (limit != UINT64_MAX && limit - b->len + 1 < chunk)
            chunk = (size_t)(limit - b->len + 1); /* one byte more shows an excess */
        long got = hr_zsrc_read(z, b->data + b->len, chunk, &cut);
        if (got < 0) {
            hr_zsrc_error(z, name, b->len, err);
            return -1;
        }
        b->len += (size_t)got;
        int at_end = got == 0;
        if (at_end && cut) {
            hr_error_set(err, "%s: truncated %s stream: it ends inside a frame, after %zu "
                         "decoded bytes", name, hr_zsrc_kind_name(hr_zsrc_kind(z)), b->len);
            return -1;
        }
        if (what == SNIFF_MORE)
            what = sniff(b->data, b->len, at_end);
        if (what == SNIFF_MORE && b->len > SNIFF_LIMIT)
            what = SNIFF_NOT;
        if (what == SNIFF_NOT) {
            hr_error_set(err, "%s: not a heapreplay trace (expected magic HRTRACE or a "
                         "'heapreplay-trace' header line)", name);
            return -1;
        }
        if (what == SNIFF_BINARY && limit == UINT64_MAX && b->len >= HR_BIN_HEADER_SIZE) {
            limit = hr_bin_total(b->data);
            if (check_claim(b->data, limit, hr_zsrc_limit(z), name, err) != 0)
                return -1;
        }
        if (at_end || (limit != UINT64_MAX && b->len > limit))
            break;
        chunk = (size_t)1 << 16;
    }
    *fmt = what == SNIFF_BINARY ? HR_FMT_BINARY : HR_FMT_TEXT;
    return 0;
}

int hr_trace_read_bytes(const char *path, uint8_t **out, size_t *len, hr_format_t *fmt,
                        const char **namep, hr_error_t *err) {
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    *namep = name;
    *out = NULL;
    *len = 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        hr_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        hr_error_set(err, "%s: cannot read: %s", path, strerror(EISDIR));
        if (!is_stdin)
            fclose(f);
        return -1;
    }
    uint64_t hint = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    hr_buf_t b = {0};
    int rc = -1;
    hr_zsrc_t *z = hr_zsrc_open(f, name, err);
    if (z) {
        if (hr_zsrc_kind(z) != HR_Z_PLAIN)
            hint = 0; /* the decoded size is not the file's */
        else if (!hint) /* a pipe, FIFO or stdin: no size vouches for it */
            hr_zsrc_set_limit(z, hr_trace_max_input());
        errno = 0;
        rc = read_stream(z, name, hint, fmt, &b, err);
        if (hr_zsrc_kind(z) != HR_Z_PLAIN) {
            /* The decoder's offsets and sizes are of the decompressed bytes,
             * not of the file: its messages say so. */
            static _Thread_local char decorated[4096 + 32];
            snprintf(decorated, sizeof decorated, "%.4096s (decompressed)", name);
            *namep = decorated;
        }
        hr_zsrc_close(z);
    }
    if (!is_stdin)
        fclose(f);
    if (rc != 0) {
        free(b.data);
        return -1;
    }
    *out = b.data;
    *len = b.len;
    return 0;
}

int hr_trace_read_file(const char *path, hr_format_t fmt, hr_trace_t *t, hr_error_t *err) {
    uint8_t *buf;
    size_t len;
    const char *name;
    hr_trace_init(t);
    if (hr_trace_read_bytes(path, &buf, &len, &fmt, &name, err) != 0)
        return -1;
    int rc = hr_trace_read_mem(buf ? (const void *)buf : "", len, name, fmt, t, err);
    free(buf);
    return rc;
}

int hr_trace_write_binary(FILE *f, const hr_trace_t *t) {
    hr_buf_t b = {0};
    if (hr_trace_encode_binary(t, &b))
        return -1;
    int rc = fwrite(b.data, 1, b.len, f) == b.len ? 0 : -1;
    hr_buf_free(&b);
    return rc;
}

/* HR_FMT_AUTO on writing: text for "-" and names ending in ".txt" or ".hrtt"
 * (as convert and capture decide), else binary. */
static hr_format_t format_for_path(const char *path) {
    size_t n = strlen(path);
    if (strcmp(path, "-") == 0 || (n >= 4 && strcmp(path + n - 4, ".txt") == 0) ||
        (n >= 5 && strcmp(path + n - 5, ".hrtt") == 0))
        return HR_FMT_TEXT;
    return HR_FMT_BINARY;
}

int hr_trace_write_file(const char *path, hr_format_t fmt, const hr_trace_t *t,
                        hr_error_t *err) {
    if (fmt == HR_FMT_AUTO)
        fmt = format_for_path(path);
    hr_outfile_t o;
    FILE *f = hr_outfile_open(&o, path, err);
    if (!f)
        return -1;
    errno = 0;
    int rc = fmt == HR_FMT_TEXT ? hr_trace_write_text(f, t) : hr_trace_write_binary(f, t);
    if (rc && errno == EINVAL) {
        hr_outfile_abort(&o);
        hr_error_set(err, "%s: cannot encode the trace: an event holds a value the format "
                     "cannot represent (unknown op, id >= 2^31, bad alignment or string)",
                     path);
        return -1;
    }
    if (rc && !ferror(f)) { /* not a write error: out of memory while encoding */
        int e = errno ? errno : ENOMEM;
        hr_outfile_abort(&o);
        hr_error_set(err, "%s: cannot encode the trace: %s", path, strerror(e));
        return -1;
    }
    /* A failed write is reported by the commit with its errno. */
    return hr_outfile_commit(&o, err);
}

/* The canonical string numbering: strings in order of first use by an event,
 * equal names merged, unused ones dropped (what the text form keeps). Fills
 * map[old] (UINT32_MAX = unused) and order[new] = an old index with that
 * name; returns how many remain, or -1 on OOM. Equal names are found through
 * a hash index of the old indices kept so far (a trace may hold 100 k
 * distinct mark names), and only unseen indices look. */
static int64_t canon_strings(const hr_trace_t *t, uint32_t *map, uint32_t *order) {
    uint32_t n = 0;
    hr_names_t ix;
    hr_names_init(&ix);
    for (uint32_t i = 0; i < t->n_strings; i++)
        map[i] = UINT32_MAX;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (!hr_event_has_str(ev) || ev->aux >= t->n_strings ||
            map[ev->aux] != UINT32_MAX)
            continue;
        int64_t same = hr_names_find(&ix, t->strings, t->strings[ev->aux]);
        if (same >= 0) {
            map[ev->aux] = map[same];
            continue;
        }
        if (hr_names_add(&ix, t->strings, ev->aux) != 0) {
            hr_names_free(&ix);
            return -1;
        }
        order[n] = ev->aux;
        map[ev->aux] = n++;
    }
    hr_names_free(&ix);
    return n;
}

/* FNV-1a 64 over the canonical binary encoding of the events: without the
 * program time (a 1.4 header field), which says how the program ran, not
 * what it did, and without the stacks (1.5) and the command (1.8), so a
 * trace with and without them is the same trace. */
static void digest_of(const hr_trace_t *t, char out[17]) {
    hr_buf_t b = {0};
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 offset basis */
    hr_trace_t c = *t;
    memset(&c.program, 0, sizeof c.program);
    c.command = NULL; /* nor which program it was, the trace's name for it */
    c.stacks = NULL; /* where blocks came from is not what the program did */
    c.site = NULL;
    if (hr_trace_encode_binary(&c, &b) == 0) {
        for (size_t i = 0; i < b.len; i++) {
            h ^= b.data[i];
            h *= 0x100000001b3ull; /* FNV 64 prime */
        }
    } else {
        h = 0; /* not encodable: all-zero digest */
    }
    hr_buf_free(&b);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* The digest is taken over the canonical form of the events, so that every
 * lossless conversion keeps it: the string table renumbered as canonical
 * strings says. A trace already in that form (what our writers and the text
 * reader produce) is hashed as it is, so its digest is the one earlier
 * versions computed. */
void hr_trace_digest(const hr_trace_t *t, char out[17]) {
    size_t ns = t->n_strings ? t->n_strings : 1;
    uint32_t *map = malloc(ns * sizeof *map), *order = malloc(ns * sizeof *order);
    int64_t n = map && order ? canon_strings(t, map, order) : -1;
    int same = n == (int64_t)t->n_strings;
    for (uint32_t i = 0; same && i < t->n_strings; i++)
        same = map[i] == i;
    hr_trace_t c = *t;
    if (n >= 0 && !same) {
        c.events = malloc((t->n_events ? t->n_events : 1) * sizeof *c.events);
        c.strings = malloc(ns * sizeof *c.strings);
        if (c.events && c.strings) {
            if (t->n_events) /* no events: t->events may be NULL */
                memcpy(c.events, t->events, t->n_events * sizeof *c.events);
            for (size_t i = 0; i < c.n_events; i++)
                if (hr_event_has_str(&c.events[i]) &&
                    c.events[i].aux < t->n_strings)
                    c.events[i].aux = map[c.events[i].aux];
            for (int64_t k = 0; k < n; k++)
                c.strings[k] = t->strings[order[k]];
            c.n_strings = (uint32_t)n;
            digest_of(&c, out);
        } else {
            snprintf(out, 17, "%016llx", 0ull);
        }
        free(c.events);
        free(c.strings);
    } else {
        digest_of(t, out); /* canonical already (or out of memory: as it is) */
    }
    free(map);
    free(order);
}
