/* What glibc's malloc holds for one request, by its chunk arithmetic alone.
 *
 * The in-house allocators charge the blocks they take from malloc (their
 * fallback, the routed allocator's tracking heap) to their exact footprint.
 * malloc_usable_size() would make that charge depend on the process's history:
 * glibc may hand out a free chunk up to 24 bytes larger than asked without
 * splitting it, and its dynamic mmap threshold moves with earlier frees. So a
 * change in the harness, or replaying a different set of traces, moved "exact"
 * peaks by bytes to kilobytes. The charge is therefore defined here, from the
 * request alone, as glibc on x86-64/aarch64 computes it (malloc.c
 * request2size): an 8-byte size header, 16-byte granules, a 32-byte minimum;
 * requests whose chunk reaches the default mmap threshold (128 KiB) are
 * mmapped in whole pages with a 16-byte header. docs/METRICS.md states it. */
#ifndef HR_ALLOC_CHUNK_H
#define HR_ALLOC_CHUNK_H

#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>

#define HR_CHUNK_MMAP_THRESHOLD ((size_t)128 * 1024)
#define HR_CHUNK_PAGE ((size_t)4096)

/* The heap chunk size for `req` (glibc request2size). */
static inline size_t hr_chunk_heap(size_t req) {
    return req + 8 + 15 < 32 ? 32 : (req + 8 + 15) & ~(size_t)15;
}

/* Nonzero when glibc mmaps a request of `req` bytes (default threshold). */
static inline int hr_chunk_mmapped(size_t req) {
    return hr_chunk_heap(req) >= HR_CHUNK_MMAP_THRESHOLD;
}

/* Bytes glibc holds for a request of `req` bytes. */
static inline size_t hr_chunk_bytes(size_t req) {
    if (hr_chunk_mmapped(req))
        return (hr_chunk_heap(req) + 8 + HR_CHUNK_PAGE - 1) & ~(HR_CHUNK_PAGE - 1);
    return hr_chunk_heap(req);
}

/* The usable bytes of that block: the chunk minus its header (8 bytes in the
 * heap, 16 when mmapped). Always >= req. */
static inline size_t hr_chunk_usable(size_t req) {
    return hr_chunk_bytes(req) - (hr_chunk_mmapped(req) ? 16 : 8);
}

/* A block from the system malloc as the in-house allocators take one (a
 * fallback, Box2D's per-request malloc): posix_memalign above 16, else
 * malloc; a 0-byte request is served as 1 byte. NULL on failure. */
static inline void *hr_chunk_malloc(size_t size, size_t align) {
    void *p = NULL;
    if (align > 16)
        return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
    return malloc(size ? size : 1);
}

#endif
