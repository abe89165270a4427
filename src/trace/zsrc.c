/* Decompressing byte source (see zsrc.h). */
#include "trace/zsrc.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

/* The input limit (trace.h's hr_trace_set_max_input): one per process, set
 * by the command line before any input is opened. */
static uint64_t max_input = HR_MAX_INPUT_DEFAULT;

void hr_trace_set_max_input(uint64_t bytes) { max_input = bytes; }
uint64_t hr_trace_max_input(void) { return max_input; }

struct hr_zsrc {
    FILE *f;
    hr_zkind_t kind;
    int eof, in_frame, error;
    int over;              /* the limit was passed (reads return -1) */
    int trailing;          /* bytes after the last gzip member that are not gzip */
    uint64_t in_total;     /* compressed bytes read from f (for offsets) */
    uint64_t limit, total; /* decoded bytes allowed (0: any) and given so far */
    unsigned char in[1 << 16];
    size_t in_pos, in_len;
#ifdef HAVE_ZSTD
    ZSTD_DStream *zs;
#endif
#ifdef HAVE_ZLIB
    z_stream gz;
    int gz_started, gz_done;
#endif
};

/* More compressed input when the buffer is used up; sets eof (or error). */
static void fill_in(hr_zsrc_t *s) {
    if (s->in_pos < s->in_len || s->eof)
        return;
    s->in_len = fread(s->in, 1, sizeof s->in, s->f);
    s->in_total += s->in_len;
    s->in_pos = 0;
    if (s->in_len == 0) {
        s->eof = 1;
        s->error = ferror(s->f) ? (errno ? errno : EIO) : 0;
    }
}

static long read_plain(hr_zsrc_t *s, unsigned char *out, size_t cap) {
    if (s->in_pos < s->in_len) { /* the sniffed bytes first */
        size_t n = s->in_len - s->in_pos < cap ? s->in_len - s->in_pos : cap;
        memcpy(out, s->in + s->in_pos, n);
        s->in_pos += n;
        return (long)n;
    }
    size_t n = fread(out, 1, cap, s->f);
    if (n == 0 && ferror(s->f)) {
        errno = errno ? errno : EIO;
        return -1;
    }
    return (long)n;
}

#ifdef HAVE_ZSTD
static long read_zstd(hr_zsrc_t *s, unsigned char *out, size_t cap, int *cut) {
    for (;;) {
        fill_in(s);
        if (s->eof) {
            *cut = s->in_frame;
            return s->error ? -1 : 0;
        }
        ZSTD_inBuffer ib = {s->in, s->in_len, s->in_pos};
        ZSTD_outBuffer ob = {out, cap, 0};
        size_t r = ZSTD_decompressStream(s->zs, &ob, &ib);
        s->in_pos = ib.pos;
        if (ZSTD_isError(r))
            return -1;
        s->in_frame = r != 0;
        if (ob.pos)
            return (long)ob.pos;
    }
}
#endif

#ifdef HAVE_ZLIB
/* After a gzip member: another member follows (concatenated files read as
 * one, as gzip -d reads them), or the end. 0 when the stream goes on or
 * ended; -1 (with trailing set) when bytes that are no gzip member follow:
 * they are not silently dropped. */
static int gzip_next_member(hr_zsrc_t *s) {
    fill_in(s);
    if (s->eof)
        return 0;
    size_t left = s->in_len - s->in_pos;
    if (left < 2) { /* the magic may straddle two reads */
        memmove(s->in, s->in + s->in_pos, left);
        s->in_pos = 0;
        s->in_len = left;
        size_t n = fread(s->in + left, 1, sizeof s->in - left, s->f);
        s->in_len += n;
        s->in_total += n;
    }
    if (s->in_len - s->in_pos >= 2 && s->in[s->in_pos] == 0x1f && s->in[s->in_pos + 1] == 0x8b) {
        s->gz_done = 0;
        return inflateReset(&s->gz) == Z_OK ? 0 : -1;
    }
    s->trailing = 1;
    return -1;
}

static long read_gzip(hr_zsrc_t *s, unsigned char *out, size_t cap, int *cut) {
    while (!s->gz_done || s->in_pos < s->in_len || !s->eof) {
        if (s->gz_done) {
            if (gzip_next_member(s) != 0)
                return -1;
            if (s->gz_done)
                break;
        }
        fill_in(s);
        if (s->eof) {
            *cut = 1;
            return s->error ? -1 : 0;
        }
        s->gz.next_in = s->in + s->in_pos;
        s->gz.avail_in = (uInt)(s->in_len - s->in_pos);
        s->gz.next_out = out;
        s->gz.avail_out = cap > UINT32_MAX ? UINT32_MAX : (uInt)cap;
        uInt before = s->gz.avail_out;
        int r = inflate(&s->gz, Z_NO_FLUSH);
        s->in_pos = s->in_len - s->gz.avail_in;
        if (r == Z_STREAM_END)
            s->gz_done = 1;
        else if (r != Z_OK && r != Z_BUF_ERROR)
            return -1;
        size_t got = before - s->gz.avail_out;
        if (got)
            return (long)got;
    }
    return 0;
}
#endif

static long read_kind(hr_zsrc_t *s, unsigned char *out, size_t cap, int *cut) {
    switch (s->kind) {
    case HR_Z_PLAIN: return read_plain(s, out, cap);
#ifdef HAVE_ZSTD
    case HR_Z_ZSTD: return read_zstd(s, out, cap, cut);
#endif
#ifdef HAVE_ZLIB
    case HR_Z_GZIP: return read_gzip(s, out, cap, cut);
#endif
    default: return -1;
    }
}

long hr_zsrc_read(hr_zsrc_t *s, unsigned char *out, size_t cap, int *cut) {
    int dummy = 0;
    if (!cut)
        cut = &dummy;
    *cut = 0;
    if (s->over) {
        errno = EFBIG;
        return -1;
    }
    /* One byte past the limit is read (and refused), so a stream of exactly
     * the limit still reads whole. */
    if (s->limit && cap > s->limit - s->total + 1)
        cap = (size_t)(s->limit - s->total + 1);
    long got = read_kind(s, out, cap, cut);
    if (got > 0 && s->limit && (s->total += (uint64_t)got) > s->limit) {
        s->over = 1;
        errno = EFBIG;
        return -1;
    }
    return got;
}

void hr_zsrc_set_limit(hr_zsrc_t *s, uint64_t bytes) { s->limit = bytes; }
uint64_t hr_zsrc_limit(const hr_zsrc_t *s) { return s->limit; }

void hr_zsrc_error(const hr_zsrc_t *s, const char *name, uint64_t offset, hr_error_t *err) {
    if (s->trailing)
        hr_error_set(err, "%s: offset %llu: bytes after the end of the gzip data that are no "
                     "gzip member (the file is damaged or has something appended)", name,
                     (unsigned long long)(s->in_total - (s->in_len - s->in_pos)));
    else if (s->over)
        hr_error_set(err, "%s: offset %llu: more than %llu bytes after %s, the input limit "
                     "(--max-input, or HEAPREPLAY_MAX_INPUT; docs/TRACE_FORMAT.md)", name,
                     (unsigned long long)s->limit, (unsigned long long)s->limit,
                     s->kind == HR_Z_PLAIN ? "reading a stream" : "decompression");
    else if (s->kind != HR_Z_PLAIN)
        hr_error_set(err, "%s: offset %llu: cannot read: corrupt %s data", name,
                     (unsigned long long)offset, hr_zsrc_kind_name(s->kind));
    else
        hr_error_set(err, "%s: offset %llu: cannot read: %s", name, (unsigned long long)offset,
                     strerror(errno ? errno : EIO));
}

static hr_zkind_t sniff(const unsigned char *m, size_t n) {
    if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
        return HR_Z_ZSTD;
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        return HR_Z_GZIP;
    return HR_Z_PLAIN;
}

hr_zsrc_t *hr_zsrc_open(FILE *f, const char *name, hr_error_t *err) {
    hr_zsrc_t *s = calloc(1, sizeof *s);
    if (!s) {
        hr_error_set(err, "%s: out of memory", name);
        return NULL;
    }
    s->f = f;
    /* At least 4 bytes (or the end) before sniffing: a pipe may deliver less. */
    while (s->in_len < 4) {
        size_t n = fread(s->in + s->in_len, 1, sizeof s->in - s->in_len, f);
        if (n == 0)
            break;
        s->in_len += n;
        s->in_total += n;
    }
    if (s->in_len == 0 && ferror(f)) {
        hr_error_set(err, "%s: cannot read: %s", name, strerror(errno ? errno : EIO));
        free(s);
        return NULL;
    }
    s->kind = sniff(s->in, s->in_len);
    s->limit = s->kind != HR_Z_PLAIN ? max_input : 0;
#ifdef HAVE_ZSTD
    if (s->kind == HR_Z_ZSTD && (!(s->zs = ZSTD_createDStream()) ||
                                 ZSTD_isError(ZSTD_initDStream(s->zs)))) {
        hr_error_set(err, "%s: cannot start the zstd decompressor", name);
        hr_zsrc_close(s);
        return NULL;
    }
#else
    if (s->kind == HR_Z_ZSTD) {
        hr_error_set(err, "%s: offset 0: zstd-compressed, but built without libzstd", name);
        free(s);
        return NULL;
    }
#endif
#ifdef HAVE_ZLIB
    if (s->kind == HR_Z_GZIP) {
        if (inflateInit2(&s->gz, 16 + MAX_WBITS) != Z_OK) {
            hr_error_set(err, "%s: cannot start the gzip decompressor", name);
            free(s);
            return NULL;
        }
        s->gz_started = 1;
    }
#else
    if (s->kind == HR_Z_GZIP) {
        hr_error_set(err, "%s: offset 0: gzip-compressed, but built without zlib", name);
        free(s);
        return NULL;
    }
#endif
    return s;
}

hr_zkind_t hr_zsrc_kind(const hr_zsrc_t *s) { return s->kind; }

const char *hr_zsrc_kind_name(hr_zkind_t k) {
    return k == HR_Z_ZSTD ? "zstd" : k == HR_Z_GZIP ? "gzip" : "plain";
}

void hr_zsrc_close(hr_zsrc_t *s) {
    if (!s)
        return;
#ifdef HAVE_ZSTD
    if (s->zs)
        ZSTD_freeDStream(s->zs);
#endif
#ifdef HAVE_ZLIB
    if (s->gz_started)
        inflateEnd(&s->gz);
#endif
    free(s);
}
