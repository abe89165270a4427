/* Harness memory: what the replay harness needs (the shared trace, slot
 * table, measurement state, verify structures, output buffer) is mapped with
 * mmap, never taken from malloc. In a replay process malloc is the allocator
 * under test: a harness buffer freed through it would move its thresholds
 * (glibc raises its mmap/trim thresholds when an mmapped chunk is freed), its
 * RSS and its footprint, and the figures would describe the allocator after a
 * history the harness made, not a fresh program (docs/ARCHITECTURE.md,
 * "Measurement protocol": the pristine allocator).
 *
 * Contract: every function here is async-signal-unsafe only where mmap is;
 * none calls malloc. Sizes are rounded up to whole pages; pass the same size
 * to hr_hmem_free/hr_hmem_realloc that was asked of hr_hmem_alloc. */
#ifndef HR_BASE_HMEM_H
#define HR_BASE_HMEM_H

#include <stddef.h>

enum {
    HR_HMEM_ZERO = 0,          /* fresh anonymous pages read as zero anyway */
    HR_HMEM_POPULATE = 1u << 0 /* fault every page in now (outside timed code) */
};

/* n bytes of zeroed memory (n == 0 gives one page), or NULL with errno. */
void *hr_hmem_alloc(size_t n, unsigned flags);
/* Grows or shrinks a block from hr_hmem_alloc (may move; new bytes zero). */
void *hr_hmem_realloc(void *p, size_t old_n, size_t new_n);
void hr_hmem_free(void *p, size_t n);

/* A bump arena over hr_hmem chunks for many small harness objects that live
 * as long as the process (string pointer tables, verify nodes): freed all at
 * once. */
typedef struct hr_harena {
    char  *cur, *end;
    void  *chunks;   /* singly linked list of chunks, newest first */
    size_t chunk;    /* bytes per chunk (default 1 MiB) */
} hr_harena_t;

void hr_harena_init(hr_harena_t *a, size_t chunk);
/* n bytes aligned to 16, zeroed; NULL on out of memory. */
void *hr_harena_alloc(hr_harena_t *a, size_t n);
void hr_harena_free(hr_harena_t *a);

#endif
