/* heapreplay — a Doug-Lea-style boundary-tag heap over one fixed region.
 *
 * Our own code (not dlmalloc): chunks carry a 16-byte header {prev_size, head}
 * in front of a 16-aligned payload; `head` is the chunk size (header included,
 * a multiple of 16, at least 32) with bit 0 = in use; `prev_size` always holds
 * the size of the physically preceding chunk (0 for the first chunk), so both
 * neighbours of a chunk are found in O(1) and free neighbours are merged at
 * once (no two free chunks are ever adjacent). Free chunks live in
 * size-binned doubly-linked lists: 63 exact bins (32..1024 bytes, step 16)
 * and 65 logarithmic bins (4 per power of two, the last one open-ended); a
 * bitmap of non-empty bins finds the next bin in O(1). Allocation is best
 * fit: the smallest free chunk that is large enough (ties: most recently
 * freed). A remainder of 32 bytes or more is split off and binned.
 *
 * The region never grows: a request that no free chunk can hold returns NULL
 * (and is counted in `failures`). The heap does not own the region; the
 * caller provides and releases it.
 *
 * Status figures (GetStatus in SHAR terms), all exact:
 *   total_free   = sum over free chunks of (chunk size - 16): payload bytes
 *   largest_free = largest (free chunk size - 16): the largest request with
 *                  align <= 16 that succeeds right now (0 when none is free)
 *   objects      = allocated blocks currently live
 *   high_water   = peak of bytes in allocated chunks, headers included
 */
#ifndef HEAPREPLAY_DLHEAP_H
#define HEAPREPLAY_DLHEAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HR_DLHEAP_HEADER    16u  /* bytes of chunk header before each payload */
#define HR_DLHEAP_MIN_CHUNK 32u  /* smallest chunk (header + two list links) */
#define HR_DLHEAP_NBINS     128

/* Per-heap status, shared by every heap kind (see routed.h). */
typedef struct hr_heap_status {
    uint64_t total_free;
    uint64_t largest_free;
    uint64_t objects;
    uint64_t high_water;
} hr_heap_status_t;

typedef struct hr_dlheap {
    unsigned char *base;      /* first chunk (16-aligned) */
    unsigned char *end;       /* the end sentinel chunk (in use, size 0) */
    void     *bins[HR_DLHEAP_NBINS];
    uint64_t  bitmap[2];      /* bit i set <=> bins[i] non-empty */
    uint64_t  in_use;         /* bytes of allocated chunks, headers included */
    uint64_t  high_water;
    uint64_t  objects;
    uint64_t  free_bytes;     /* bytes of free chunks, headers included */
    uint64_t  free_chunks;
    uint64_t  failures;       /* NULL returns */
    uint64_t  bad_frees;      /* double frees / foreign pointers refused */
} hr_dlheap_t;

/* Options for hr_dlheap_init (none yet beyond the region). */
typedef struct hr_dlheap_options {
    int reserved;
} hr_dlheap_options_t;
hr_dlheap_options_t hr_dlheap_options_default(void);

/* Lays the heap over [mem, mem+size). Returns 0, or -1 when the region is too
 * small to hold one minimal chunk plus the sentinel (48 bytes after aligning). */
int hr_dlheap_init(hr_dlheap_t *h, void *mem, size_t size);
/* Payload capacity of a fresh heap: what total_free reads right after init. */
uint64_t hr_dlheap_capacity(const hr_dlheap_t *h);

/* align: 0 or a power of two (<= 16 costs nothing extra). NULL when full. */
void *hr_dlheap_alloc(hr_dlheap_t *h, size_t size, size_t align);
/* Frees a block of this heap; returns 0, or -1 (and counts bad_frees) for a
 * pointer that is not a live block start of this heap. NULL is a no-op. */
int hr_dlheap_free(hr_dlheap_t *h, void *p);
/* CanFree: the address lies inside this heap's chunk area. */
int hr_dlheap_owns(const hr_dlheap_t *h, const void *p);
/* Bytes usable at p (chunk size - header). */
size_t hr_dlheap_usable(const hr_dlheap_t *h, const void *p);
void hr_dlheap_status(const hr_dlheap_t *h, hr_heap_status_t *st);
/* Walks every chunk and bin and checks the invariants (sizes chain, no
 * adjacent free chunks, bins hold exactly the free chunks, counters agree).
 * Returns 0, or -1 with the first violation found in err (for tests). */
int hr_dlheap_check(const hr_dlheap_t *h, hr_error_t *err);

#ifdef __cplusplus
}
#endif
#endif
