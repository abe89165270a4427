/* hr_bank: fixed-size cell banks with Orx orxBank semantics.
 *
 * A bank hands out cells of one size. Cells live in segments of N cells; each
 * segment is one system allocation holding its header, a bitmap of used cells
 * and the cells. Segments are chained; when every cell is in use a new
 * segment is appended, or allocation fails (NULL) when the bank was created
 * not expandable. Allocation returns the lowest free cell (first segment in
 * chain order, lowest index in it), so the sequence of addresses is
 * deterministic. Used cells can be iterated in the same order. Compact frees
 * empty segments at the tail of the chain (the first segment always stays).
 *
 * Deviation from Orx: cell data starts 16-byte aligned inside each segment, so
 * cells whose size is a multiple of 16 are aligned like malloc's blocks.
 * Costs: alloc and free do not walk the chain (Orx does): a bitmap of
 * non-full segments and an address-sorted segment table make them O(1) and
 * O(log segments); segments come from and go back to src/alloc/segcache.h.
 */
#ifndef HEAPREPLAY_BANK_H
#define HEAPREPLAY_BANK_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/alloc_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    HR_BANK_OK = 0,
    HR_BANK_ENOTOWNED = -1, /* free of a pointer that is no cell of the bank */
    HR_BANK_EFREE = -2,     /* free of a cell that is already free */
    HR_BANK_ECORRUPT = -3,  /* check(): an invariant does not hold */
};

typedef struct hr_bank_options {
    size_t   cell_size;         /* bytes per cell (> 0) */
    unsigned cells_per_segment; /* N (> 0, Orx: u16) */
    int      expandable;        /* 1: add segments when full; 0: fail */
} hr_bank_options_t;

/* cell_size 16, 256 cells per segment, expandable. */
hr_bank_options_t hr_bank_default(void);

typedef struct hr_bank_stats {
    /* head: the shared figures (src/alloc/alloc_stats.h); here:
     *   live_bytes      used cells * cell size
     *   footprint       bank header + every segment allocation
     *   high_water      peak live_bytes
     *   objects         used cells
     *   largest_free    cell size if a cell is free, else 0 */
    hr_alloc_stats_t head;
    uint64_t segments;
    uint64_t peak_segments;
    uint64_t free_cells;
} hr_bank_stats_t;

typedef struct hr_bank hr_bank_t;

hr_bank_t *hr_bank_create(const hr_bank_options_t *opt); /* NULL opt = defaults */
void hr_bank_destroy(hr_bank_t *b);

/* Lowest free cell, or NULL (not expandable and full, or out of memory). */
void *hr_bank_alloc(hr_bank_t *b);
/* HR_BANK_OK, HR_BANK_ENOTOWNED or HR_BANK_EFREE (state unchanged on error). */
int hr_bank_free(hr_bank_t *b, void *cell);
/* Used cells in allocation order: pass NULL to get the first; NULL at the end. */
void *hr_bank_next(const hr_bank_t *b, const void *cell);
/* Frees empty segments at the tail of the chain; returns how many. */
unsigned hr_bank_compact(hr_bank_t *b);

size_t hr_bank_cell_size(const hr_bank_t *b);
int hr_bank_owns(const hr_bank_t *b, const void *p);

/* Bytes held from the system now (O(1)): the stats' footprint. */
uint64_t hr_bank_footprint(const hr_bank_t *b);

void hr_bank_stats(const hr_bank_t *b, hr_bank_stats_t *st);
/* Per segment: free count = zero bits of the bitmap, unused tail bits clear;
 * total used = the bank's counter; segments do not overlap. */
int hr_bank_check(const hr_bank_t *b);

#ifdef __cplusplus
}
#endif
#endif
