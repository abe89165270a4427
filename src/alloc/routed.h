/* heapreplay — the routed heap manager (after The Simpsons: Hit & Run's
 * HeapManager / radMemory): a table of named heaps of different kinds, a heap
 * stack that picks where allocations go, search entries that try a list of
 * heaps in order, a small-allocation corral, and frees that find their owner
 * by asking every heap CanFree. docs/HEAP_CONFIG.md has the config format and
 * the compiled-in default table.
 *
 * Heap kinds:
 *   static   - bump allocation in a fixed region; free is a no-op (counted);
 *              NULL when the region is exhausted.
 *   tracking - malloc with every block recorded (hash of pointers), so the
 *              heap can answer CanFree, free leftovers at destroy and report
 *              leaks; `size` is a budget that is reported, never enforced.
 *   dlheap   - src/alloc/dlheap.h over a fixed region; NULL when full.
 *   none     - a heap the game never creates: its slot keeps the root
 *              allocator, so requests go to the implicit "malloc" heap
 *              (counted per none heap as to_malloc); a parent is ignored.
 *   alias    - a slot registered to another heap's allocator (the game's
 *              radMemoryRegisterAllocator(id, parent, heap) aliases, e.g.
 *              Music -> AudioPersistent on PS2): requests go to the parent.
 * When some none heap needs it, the manager appends one implicit tracking
 * heap "malloc" (no budget): the game's root radMemoryAllocatorMalloc.
 *
 * Not thread-safe: one manager per replay thread.
 */
#ifndef HEAPREPLAY_ROUTED_H
#define HEAPREPLAY_ROUTED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "alloc/dlheap.h"
#include "base/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hr_heap_kind {
    HR_HEAP_NONE = 0,
    HR_HEAP_STATIC,
    HR_HEAP_TRACKING,
    HR_HEAP_DLHEAP,
    HR_HEAP_ALIAS,
} hr_heap_kind_t;
const char *hr_heap_kind_name(hr_heap_kind_t k);

#define HR_HEAPCFG_MAX_HEAPS  63 /* + the implicit "malloc" heap */
#define HR_HEAPCFG_MAX_SEARCH 16
#define HR_HEAPCFG_MAX_LIST   16
#define HR_HEAPCFG_NAME       32

typedef struct hr_heapcfg_heap {
    int            id;                    /* the config's number (GMA enum) */
    char           name[HR_HEAPCFG_NAME];
    hr_heap_kind_t kind;
    uint64_t       size;                  /* region bytes or budget (0 = none) */
    int            parent;                /* heap index, or -1 */
    int            corral_exempt;         /* small allocs stay in this heap */
} hr_heapcfg_heap_t;

typedef struct hr_heapcfg_search {
    int  id;
    char name[HR_HEAPCFG_NAME];
    int  n;
    int  heaps[HR_HEAPCFG_MAX_LIST];     /* heap indices, in try order */
} hr_heapcfg_search_t;

/* A parsed heap table. Targets (what a push names) are numbered heaps first,
 * then search entries: target t < nheaps is heaps[t], else searches[t-nheaps]. */
typedef struct hr_heapcfg {
    hr_heapcfg_heap_t   heaps[HR_HEAPCFG_MAX_HEAPS];
    int                 nheaps;
    hr_heapcfg_search_t searches[HR_HEAPCFG_MAX_SEARCH];
    int                 nsearches;
    int                 default_heap;    /* target used with an empty stack */
    uint64_t            corral_below;    /* requests < this go to corral_heap; 0 = off */
    int                 corral_heap;     /* heap index, or -1 */
} hr_heapcfg_t;

/* The compiled-in default table: the game's PC build ("shar-pc"). */
const char *hr_heapcfg_default_text(void);
/* Fills c with the compiled-in default table. */
void hr_heapcfg_default(hr_heapcfg_t *c);
/* Built-in tables by name: "shar-pc" (the default) and "shar-ps2" (the PS2
 * build, with the small-allocation corral); configs/<name>.heaps are their
 * annotated copies. _builtin fills c and returns 0, or -1 for an unknown
 * name; _builtin_text returns the table's text or NULL. */
int hr_heapcfg_builtin(hr_heapcfg_t *c, const char *name);
const char *hr_heapcfg_builtin_text(const char *name);
/* Parses a config text. `name` labels errors: "NAME:LINE: expected ...".
 * Returns 0, or -1 with err set. */
int hr_heapcfg_parse(hr_heapcfg_t *c, const char *text, size_t len, const char *name,
                     hr_error_t *err);
int hr_heapcfg_load(hr_heapcfg_t *c, const char *path, hr_error_t *err);
/* Target for a heap or search name (exact, case-sensitive), or -1. */
int hr_heapcfg_lookup(const hr_heapcfg_t *c, const char *name);
const char *hr_heapcfg_target_name(const hr_heapcfg_t *c, int target);

/* ---- the manager -------------------------------------------------------- */
typedef struct hr_routed hr_routed_t;

#define HR_ROUTED_STACK_DEPTH 64

/* Per-heap figures (index = heap index; the implicit "malloc" heap is last). */
typedef struct hr_routed_heap_info {
    const char      *name;
    hr_heap_kind_t   kind;
    uint64_t         size;           /* region bytes or budget */
    hr_heap_status_t status;         /* GetStatus */
    uint64_t allocs, frees;          /* served natively */
    uint64_t frees_ignored;          /* static: frees that release nothing */
    uint64_t failures;               /* requests this heap could not serve */
    uint64_t fallbacks;              /* failures the caller then served elsewhere */
    uint64_t live_blocks, live_bytes;/* requested bytes of blocks not yet freed */
    uint64_t peak_bytes;             /* peak of live_bytes */
    uint64_t over_budget;            /* tracking: allocations past the budget */
    uint64_t to_malloc;              /* none: requests it sent to the root malloc */
    uint64_t mismatched_pops;        /* pops naming this heap that did not match */
    uint64_t held;                   /* bytes held from the system (footprint) */
} hr_routed_heap_info_t;

typedef struct hr_routed_search_info {
    const char *name;
    uint64_t allocs, skips, failures;
} hr_routed_search_info_t;

/* A heap name the table does not know (registered by the caller on first
 * use with hr_routed_unknown_target); it routes like the default target. */
typedef struct hr_routed_unknown_info {
    const char *name;
    uint64_t pushes, allocs;         /* allocs: requests made while it was on top */
} hr_routed_unknown_info_t;

typedef struct hr_routed_totals {
    uint64_t pushes, pops, mismatched_pops, stack_overflows;
    uint64_t corralled;              /* small requests sent to the corral heap */
    uint64_t none_mallocs;           /* requests a none heap sent to the root malloc */
    uint64_t unknown_names;          /* distinct unknown heap names */
    uint64_t frees, free_probes, free_probes_max, unowned_frees;
    uint64_t oom_count;
    char     oom_first[256];         /* first out-of-memory report, "" if none */
} hr_routed_totals_t;

/* Creates the heaps of cfg (regions are mmap'ed, MAP_NORESERVE). NULL with err
 * set when a region cannot be reserved. The config is copied. */
hr_routed_t *hr_routed_create(const hr_heapcfg_t *cfg, hr_error_t *err);
/* Frees every block still live in tracking heaps and every region. */
void hr_routed_destroy(hr_routed_t *m);

void hr_routed_push(hr_routed_t *m, int target);
/* Pops the top; a pop whose target is not the top is counted as mismatched
 * (the top is popped anyway, as the game does in release builds). */
void hr_routed_pop(hr_routed_t *m, int target);
int  hr_routed_top(const hr_routed_t *m); /* current target */
/* The target standing for a heap name the config does not know: the same
 * name always gets the same target (numbered after every heap and search),
 * which routes to the config's default target and counts its pushes and
 * allocations. *is_new is set to 1 on the name's first registration. -1 when
 * out of memory. */
int  hr_routed_unknown_target(hr_routed_t *m, const char *name, int *is_new);
int  hr_routed_nunknown(const hr_routed_t *m);
void hr_routed_unknown_info(const hr_routed_t *m, int k, hr_routed_unknown_info_t *out);

/* Routes one request (see routed.c for the order: corral, search, resolve).
 * NULL when the chosen heap(s) cannot serve it; the failure is counted and
 * hr_routed_last_failure() names the heap to blame. */
void *hr_routed_alloc(hr_routed_t *m, size_t size, size_t align);
/* Finds the owner with CanFree probes (counted) and frees there. `size` is
 * the requested size (for live-byte accounting; 0 = use the usable size).
 * Returns 0; -1 when no heap owns p (the caller's fallback block); -2 when
 * the owning heap refuses p (not a live block start: double free). */
int  hr_routed_free(hr_routed_t *m, void *p, size_t size);
/* Heap index owning p, or -1; not counted as a probe. */
int  hr_routed_owner(const hr_routed_t *m, const void *p);
/* Usable bytes of the block at p (`size` = its requested size, used for
 * static blocks, which record no size); 0 if no heap owns p. */
size_t hr_routed_usable(const hr_routed_t *m, const void *p, size_t size);
/* The heap blamed for the last NULL from hr_routed_alloc, or -1; the caller
 * reports it served the request elsewhere with hr_routed_note_fallback. */
int  hr_routed_last_failure(const hr_routed_t *m);
void hr_routed_note_fallback(hr_routed_t *m, int heap);

int  hr_routed_nheaps(const hr_routed_t *m);   /* includes "malloc" */
int  hr_routed_nsearches(const hr_routed_t *m);
void hr_routed_heap_info(const hr_routed_t *m, int heap, hr_routed_heap_info_t *out);
void hr_routed_search_info(const hr_routed_t *m, int s, hr_routed_search_info_t *out);
void hr_routed_status(const hr_routed_t *m, int heap, hr_heap_status_t *st);
const hr_routed_totals_t *hr_routed_totals(const hr_routed_t *m);
const hr_heapcfg_t *hr_routed_config(const hr_routed_t *m);
/* Bytes held from the system by all heaps (regions counted in full). */
uint64_t hr_routed_footprint(const hr_routed_t *m);
/* Writes one line per heap with live blocks: "heap 'Level': N blocks, B bytes"
 * and returns the number of such heaps. */
int hr_routed_leak_report(const hr_routed_t *m, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
