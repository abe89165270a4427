/* Shared fallback accounting for the in-house backends.
 *
 * The backend contract (docs/ARCHITECTURE.md "Backends"): an op a backend
 * cannot serve natively is served by system malloc and counted, never an
 * abort. A backend embeds one hr_fallback_t, routes such ops through
 * hr_fallback_alloc/free, counts native ops with hr_fallback_native(), and
 * names each violation kind it detects with hr_fallback_violation(). Ownership
 * (is this pointer a fallback block?) is the backend's own business: the
 * in-house backends keep a set of their fallback blocks or tell them by
 * address (inhouse.h, `owns`), routed asks its heaps. bytes_held (usable
 * bytes of live fallback blocks, by glibc's chunk arithmetic for the
 * request: alloc/chunk.h, so that it never depends on the heap's history)
 * is part of the backend's footprint.
 */
#ifndef HR_BACKENDS_FALLBACK_H
#define HR_BACKENDS_FALLBACK_H

#include <stddef.h>
#include <stdint.h>

#include "base/emit.h"

#define HR_FALLBACK_MAX_KINDS 8

typedef struct hr_fallback {
    uint64_t native_ops, fallback_ops;
    uint64_t bytes_held, blocks_held;
    const char *kind_names[HR_FALLBACK_MAX_KINDS];
    uint64_t kind_counts[HR_FALLBACK_MAX_KINDS];
    int nkinds;
} hr_fallback_t;

/* Sets up glibc, once per process, as a long-running program has it warm:
 * its heap top kept (no trim) and blocks up to 32 MiB served from its heap
 * (the ceiling of glibc's own dynamic mmap threshold). Why: every timed lap
 * replays the whole program and ends by freeing all of it; glibc, holding
 * only the fallback blocks in an in-house row's worker, gave its heap back
 * there and the next lap paid every page fault again (once per lap:
 * level_load 27 trims in 26 laps; bank 8.5 k faults per lap), which a game
 * that keeps running never pays. Called by each in-house backend's create()
 * (a worker runs one row, so the glibc and external rows keep glibc's
 * defaults). docs/ARCHITECTURE.md "Backends". */
void hr_fallback_keep_heap(void);
void *hr_fallback_alloc(hr_fallback_t *fb, size_t size, size_t align);
/* size: the request the block was allocated with (the engine passes it). */
void hr_fallback_free(hr_fallback_t *fb, void *ptr, size_t size);
static inline void hr_fallback_native(hr_fallback_t *fb) { fb->native_ops++; }
/* Counts one violation of kind `name` (a string literal). */
void hr_fallback_violation(hr_fallback_t *fb, const char *name);
/* Emits native_ops, fallback_ops, fallback_bytes_held and "violations" {}. */
void hr_fallback_emit(const hr_fallback_t *fb, hr_emit_t *em);

#endif
