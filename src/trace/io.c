/* Trace file I/O: format detection, whole-file reading, writers, digest.
 * The formats themselves live in binary.c / binary_enc.c / text.c. */
#include "trace/format.h"
#include "base/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Binary when the data starts with (a prefix of) the magic: a file cut inside
 * the magic is then reported as a truncated header, not as "not a trace". */
static int looks_binary(const uint8_t *buf, size_t len) {
    size_t n = len < HR_BIN_MAGIC_LEN ? len : HR_BIN_MAGIC_LEN;
    return n > 0 && memcmp(buf, HR_BIN_MAGIC, n) == 0;
}

/* Text when the first line that is neither blank nor a '#' comment starts
 * with the word "heapreplay-trace". */
static int looks_text(const char *s, size_t len) {
    const char *end = s + len;
    size_t ml = strlen(HR_TEXT_MAGIC);
    while (s < end) {
        while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
            s++;
        if (s < end && *s == '#') {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            s = nl ? nl + 1 : end;
            continue;
        }
        return (size_t)(end - s) >= ml && memcmp(s, HR_TEXT_MAGIC, ml) == 0 &&
               ((size_t)(end - s) == ml || strchr(" \t\r\n", s[ml]));
    }
    return 0;
}

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

/* Reads all of f into a malloc'd buffer. Returns NULL with errno on failure. */
static char *slurp(FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (n == cap) {
            char *b = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                free(buf);
                errno = errno ? errno : EIO;
                return NULL;
            }
            break;
        }
    }
    *len = n;
    return buf;
}

int hr_trace_read_file(const char *path, hr_format_t fmt, hr_trace_t *t, hr_error_t *err) {
    int is_stdin = strcmp(path, "-") == 0;
    hr_trace_init(t);
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        hr_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t len = 0;
    errno = 0;
    char *buf = slurp(f, &len);
    int saved = errno;
    if (!is_stdin)
        fclose(f);
    if (!buf) {
        hr_error_set(err, "%s: cannot read: %s", path, strerror(saved));
        return -1;
    }
    int rc = hr_trace_read_mem(buf, len, is_stdin ? "<stdin>" : path, fmt, t, err);
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

/* HR_FMT_AUTO on writing: text for "-" and names ending in ".txt", else binary. */
static hr_format_t format_for_path(const char *path) {
    size_t n = strlen(path);
    if (strcmp(path, "-") == 0 || (n >= 4 && strcmp(path + n - 4, ".txt") == 0))
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
    /* A failed write is reported by the commit with its errno. */
    return hr_outfile_commit(&o, err);
}

void hr_trace_digest(const hr_trace_t *t, char out[17]) {
    hr_buf_t b = {0};
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 offset basis */
    if (hr_trace_encode_binary(t, &b) == 0) {
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
