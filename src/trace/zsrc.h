/* A byte source that undoes zstd or gzip compression when the stream starts
 * with their magic, and passes plain bytes through otherwise. Used wherever
 * a trace or a capture is read (io.c, import_heaptrack.c), so `.hrt.zst`,
 * `.txt.gz` and heaptrack's `.zst`/`.gz` files read like plain ones.
 *
 * The magic is sniffed from the first bytes read (kept for the first
 * hr_zsrc_read), never by seeking: pipes, FIFOs and stdin work.
 *
 * Bounded: a compressed stream gives at most hr_trace_max_input() decoded
 * bytes (a 72 KB zstd file can hold 2 GB of zeros); past that a read fails
 * and hr_zsrc_error says so. A plain stream is unbounded unless the caller
 * sets a limit (io.c does for pipes and stdin). */
#ifndef HR_TRACE_ZSRC_H
#define HR_TRACE_ZSRC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"

typedef enum hr_zkind { HR_Z_PLAIN = 0, HR_Z_ZSTD, HR_Z_GZIP } hr_zkind_t;

typedef struct hr_zsrc hr_zsrc_t; /* opaque; holds a 64 KiB input buffer */

/* Reads the first bytes of f (which the caller keeps owning and closes after
 * hr_zsrc_close) and starts the matching decompressor. NULL with err ("NAME:
 * offset 0: zstd-compressed, but built without libzstd", out of memory). */
hr_zsrc_t *hr_zsrc_open(FILE *f, const char *name, hr_error_t *err);

hr_zkind_t hr_zsrc_kind(const hr_zsrc_t *s);
const char *hr_zsrc_kind_name(hr_zkind_t k); /* "plain", "zstd", "gzip" */

/* Up to cap decoded bytes into out: > 0 bytes, 0 at the end, -1 on a corrupt
 * compressed stream, a read error (errno kept) or past the limit (errno
 * EFBIG). At the end, *cut (may be NULL) says whether the compressed stream
 * stopped inside a frame. */
long hr_zsrc_read(hr_zsrc_t *s, unsigned char *out, size_t cap, int *cut);

/* Decoded bytes the stream may give (0: any); set before the first read. */
void hr_zsrc_set_limit(hr_zsrc_t *s, uint64_t bytes);
uint64_t hr_zsrc_limit(const hr_zsrc_t *s);

/* The one-line message for a failed hr_zsrc_read at decoded byte `offset`:
 * "NAME: offset N: more than N bytes after decompression, the input limit
 * (...)", "NAME: offset N: cannot read: corrupt zstd data" or strerror. */
void hr_zsrc_error(const hr_zsrc_t *s, const char *name, uint64_t offset, hr_error_t *err);

void hr_zsrc_close(hr_zsrc_t *s); /* frees the decompressor, not f */

#endif
