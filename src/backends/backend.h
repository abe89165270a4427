/* The backend interface: one const hr_backend_t per allocator, one per file,
 * collected in hr_backends[] (backends.c). After curl's vtls table.
 *
 * Contract with the replay engine:
 *  - create() returns an opaque instance or NULL with err set; destroy() releases
 *    everything the instance holds (including blocks still live).
 *  - alloc() must return memory for `size` bytes aligned to `align` (0 = the
 *    platform's default, 16 on x86-64). An op the allocator cannot serve
 *    natively (non-LIFO free on a stack, a size larger than a bank cell, ...) is
 *    served by a fallback (system malloc) and counted: nothing aborts the replay.
 *    alloc returns NULL only when even the fallback failed.
 *  - free() receives the pointer and the size that was requested for it.
 *  - realloc() may be NULL: the engine then does alloc + copy + free.
 *  - calloc() may be NULL: the engine then does alloc + memset.
 *  - heap_push/heap_pop/frame may be NULL (ignored).
 *  - footprint() returns the bytes the instance currently holds from the system
 *    (exact for in-house allocators, counting fallback blocks at their usable
 *    size); NULL for external allocators (the engine then samples RSS and the
 *    allocator's own stats).
 *  - usable_size() may be NULL; used for internal slop.
 *  - stats() writes allocator-native figures into an open JSON object: counts
 *    of native/fallback ops as "native_ops"/"fallback_ops", violations as an
 *    object "violations" {kind: count}, and optional arrays of objects (e.g.
 *    "heaps") that reports render as extra tables.
 *  - alloc_timed()/free_timed()/realloc_timed() may be NULL (then alloc,
 *    free and realloc serve): what the timed laps (cold, warm, threaded)
 *    and the --count lap call. They hand out and take back exactly the
 *    blocks the others would, fallbacks included, but leave out the per-op
 *    upkeep of figures only stats() reports (op counts, live bytes,
 *    high-water marks): those laps report time or instructions alone, and
 *    the stats come from the measure lap, which calls the others. An
 *    instance that served a timed call must not be asked for stats() or
 *    checked.
 */
#ifndef HR_BACKENDS_BACKEND_H
#define HR_BACKENDS_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "base/emit.h"
#include "base/error.h"

enum {
    HR_CAP_NEEDS_SIZE_ON_FREE = 1u << 0,
    HR_CAP_LIFO_ONLY          = 1u << 1,
    HR_CAP_FIXED_CELL         = 1u << 2,
    HR_CAP_ALIGNED            = 1u << 3,
    HR_CAP_REALLOC            = 1u << 4,
    HR_CAP_HEAP_ROUTING       = 1u << 5,
    HR_CAP_EXTERNAL_PROCESS   = 1u << 6,
    HR_CAP_FRAMES             = 1u << 7, /* uses frame marks (e.g. marker stack) */
    HR_CAP_TEST_ONLY          = 1u << 8, /* hidden from "all" and "list" (harness tests) */
    HR_CAP_NOT_IN_ALL         = 1u << 9, /* listed, but "-a all" skips it (bump, preload) */
    HR_CAP_THREAD_SAFE        = 1u << 10,/* one instance serves every thread (the process's
                                          * malloc); else a threaded replay gives each
                                          * thread its own instance (replay/sched.h) */
    HR_CAP_COMPOSITE          = 1u << 11,/* a composition (compose.h): create() gets the
                                          * whole spec and the replay's routing plan */
    HR_CAP_SERIAL_ONLY        = 1u << 12,/* replayed in trace order on one thread, even
                                          * when the trace has several */
};

/* Options given to create(). Strings are borrowed for the call. */
/* What a backend needs to know of the trace, not the trace itself: the
 * largest alignment requested (sized free is only used when no block is
 * over-aligned) and the string table, so heap names resolve once at create()
 * and heap ops carry their index. */
#define HR_ALIGN_UNKNOWN SIZE_MAX /* max_align when no trace is known */
typedef struct hr_backend_config {
    const char        *arg;          /* text after "name:" in -a name:arg, or NULL */
    const char        *config_path;  /* --heap-config FILE for routed, or NULL */
    size_t             max_align;    /* largest alignment of any alloc, or HR_ALIGN_UNKNOWN */
    const char *const *heap_names;   /* the trace's string table (index = heap op arg) */
    uint32_t           n_heap_names;
    const struct hr_route_plan *route_plan; /* compositions only (compose.h), else NULL */
    const struct hr_compose_spec *parts;    /* compositions only: the parsed parts, else NULL */
} hr_backend_config_t;

hr_backend_config_t hr_backend_config_default(void);

typedef struct hr_backend {
    const char *name;
    const char *description;
    unsigned    caps;
    void *(*create)(const hr_backend_config_t *cfg, hr_error_t *err);
    void *(*alloc)(void *self, size_t size, size_t align, int32_t heap);
    void *(*calloc)(void *self, size_t n, size_t size, int32_t heap);
    void  (*free)(void *self, void *ptr, size_t size);
    void *(*realloc)(void *self, void *ptr, size_t old_size, size_t new_size, int32_t heap);
    void  (*heap_push)(void *self, uint32_t heap, const char *name);
    void  (*heap_pop)(void *self, uint32_t heap, const char *name);
    void  (*frame)(void *self, uint64_t n);
    uint64_t (*footprint)(void *self);
    size_t (*usable_size)(void *self, void *ptr, size_t size);
    void  (*stats)(void *self, hr_emit_t *em);
    void  (*destroy)(void *self);
    void *(*alloc_timed)(void *self, size_t size, size_t align, int32_t heap);
    void  (*free_timed)(void *self, void *ptr, size_t size);
    void *(*realloc_timed)(void *self, void *ptr, size_t old_size, size_t new_size, int32_t heap);
} hr_backend_t;

/* A backend's alloc or free with its timed twin (above), from its
 * always-inline NAME_as(self, ..., counted): NAME counts (the measure and
 * verify laps), NAME_timed leaves the statistics' upkeep out (the timed and
 * count laps); `counted` is a constant in each, so each is the hot path
 * compiled once for its use. (The alloc pair drops the heap argument: for
 * backends that do not route by heap.) */
#define HR_TIMED_ALLOC_PAIR(name)                                                 \
    static void *name(void *self, size_t size, size_t align, int32_t heap) {      \
        (void)heap;                                                               \
        return name##_as(self, size, align, 1);                                   \
    }                                                                             \
    static void *name##_timed(void *self, size_t size, size_t align, int32_t heap) { \
        (void)heap;                                                               \
        return name##_as(self, size, align, 0);                                   \
    }
#define HR_TIMED_FREE_PAIR(name)                                                  \
    static void name(void *self, void *ptr, size_t size) { name##_as(self, ptr, size, 1); } \
    static void name##_timed(void *self, void *ptr, size_t size) { name##_as(self, ptr, size, 0); }

/* stats() of an instance as one compact JSON object (malloc'd; for tests and
 * tools). NULL on OOM or when the backend has no stats. */
char *hr_backend_stats_json(const hr_backend_t *be, void *inst);

/* be_bump.c: the bump backend's alloc and free, also called directly by
 * bench/micro/bench_overhead.c's hand-written loop. */
void *hr_bump_alloc(void *self, size_t size, size_t align, int32_t heap);
void hr_bump_free(void *self, void *ptr, size_t size);

/* be_mtcheck.c (test only): allocations, frees, and frees of a block that
 * was not live, counted over every instance since the last reset. */
void hr_mtcheck_counts(uint64_t out[3]);
void hr_mtcheck_reset(void);

/* The table of every built backend, NULL-terminated. */
extern const hr_backend_t *const hr_backends[];
/* Looks up "name" or "name:arg" (the part before ':'), or a composition
 * "a+b..." (compose.h). NULL if unknown. Defined with the spec parser
 * (spec.c); a replay reads an hr_alloc_spec_t (spec.h) instead. */
const hr_backend_t *hr_backend_find(const char *spec);
/* Whether spec names allocator `name`: "name" or "name:OPTIONS". */
int hr_spec_is(const char *spec, const char *name);

#endif
