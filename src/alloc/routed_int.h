/* Internals of the routed heap manager: one heap of any kind behind a small
 * dispatch (routed_heaps.c), used by the manager (routed.c). */
#ifndef HR_ALLOC_ROUTED_INT_H
#define HR_ALLOC_ROUTED_INT_H

#include "base/ptrmap.h"
#include "alloc/routed.h"

/* static: bump in [base, end). */
typedef struct hr_static_heap {
    unsigned char *base, *cur, *end;
    uint64_t allocations;  /* every block ever handed out (none is reclaimed) */
} hr_static_heap_t;

/* tracking: every malloc'ed block in a pointer map (base/ptrmap.h) keyed by
 * the pointer handed out. A block aligned beyond 16 is carved out of a plain
 * malloc of size + align (raw) rather than posix_memalign, whose usable size
 * depends on the address it lands at: held bytes must be a function of the
 * request sequence alone so that the exact footprint repeats across runs. */
typedef struct hr_track_block {
    void  *raw;     /* what malloc returned (== the key unless aligned) */
    size_t held;    /* malloc_usable_size(raw) */
    size_t usable;  /* bytes usable at the key: held, or held - align when aligned */
} hr_track_block_t;

typedef struct hr_tracking_heap {
    hr_ptrmap_t blocks;    /* pointer handed out -> hr_track_block_t */
    uint64_t bytes;        /* held bytes of live blocks */
    uint64_t high_water;   /* peak of bytes */
    uint64_t budget;       /* reported, never enforced; 0 = none */
} hr_tracking_heap_t;

typedef struct hr_heap {
    const char    *name;
    hr_heap_kind_t kind;
    uint64_t       size;
    void          *region;      /* mmap'ed region (static, dlheap) */
    size_t         region_len;
    union {
        hr_static_heap_t   st;
        hr_tracking_heap_t tr;
        hr_dlheap_t        dl;
    } u;
} hr_heap_t;

/* Sets up a heap of cfg's kind and size; -1 with err set on failure. */
int  hr_heap_open(hr_heap_t *h, const char *name, hr_heap_kind_t kind, uint64_t size,
                  hr_error_t *err);
/* Releases the region and every block a tracking heap still holds. */
void hr_heap_close(hr_heap_t *h);
void *hr_heap_alloc(hr_heap_t *h, size_t size, size_t align);
/* Frees p (which the heap owns). Static: returns 1 (nothing released). */
int  hr_heap_free(hr_heap_t *h, void *p);
int  hr_heap_can_free(const hr_heap_t *h, const void *p);
size_t hr_heap_usable(const hr_heap_t *h, const void *p);
void hr_heap_status(const hr_heap_t *h, hr_heap_status_t *st);
/* Total free as the search sees it (UINT64_MAX for an unbounded heap). */
uint64_t hr_heap_free_total(const hr_heap_t *h);
/* Bytes held from the system: the whole region, or tracked usable bytes. */
uint64_t hr_heap_held(const hr_heap_t *h);

#endif
