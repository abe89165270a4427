/* The system-allocator backend functions: plain malloc/calloc/realloc/free/
 * posix_memalign through whatever library provides them in this process.
 * Every external backend (glibc, jemalloc, mimalloc, tcmalloc, preload:PATH)
 * replays through these in a worker process whose LD_PRELOAD selects the
 * library, never two malloc replacements in one process
 * (docs/ARCHITECTURE.md "Isolation"). */
#ifndef HR_BACKENDS_BE_SYSTEM_H
#define HR_BACKENDS_BE_SYSTEM_H

#include <stdlib.h>

#include "backends/backend.h"

/* The allocation call of every system backend, inline so that the replay's
 * throughput loop can call the library directly (engine.c, "libc" loop):
 * aligned requests go to C11 aligned_alloc where its contract holds (size a
 * multiple of the alignment), to posix_memalign otherwise: both paths of the
 * library. */
static inline void *hr_sys_alloc_inline(size_t size, size_t align) {
    if (align > 16) {
        if (size % align == 0 && size)
            return aligned_alloc(align, size);
        void *p;
        return posix_memalign(&p, align, size) == 0 ? p : NULL;
    }
    return malloc(size);
}

void *hr_sys_create(const hr_backend_config_t *cfg, hr_error_t *err);
void *hr_sys_create_plain(const hr_backend_config_t *cfg, hr_error_t *err);
void *hr_sys_alloc(void *self, size_t size, size_t align, int32_t heap);
void *hr_sys_calloc(void *self, size_t n, size_t size, int32_t heap);
void  hr_sys_free(void *self, void *ptr, size_t size);
void *hr_sys_realloc(void *self, void *ptr, size_t old_size, size_t new_size, int32_t heap);
size_t hr_sys_usable_size(void *self, void *ptr, size_t size);
void  hr_sys_destroy(void *self);
void  hr_sys_stats(void *self, hr_emit_t *em);

/* Whether `be` is a system backend whose frees are plain free(ptr) (no
 * NAME:sized): its ops then are exactly malloc, calloc, realloc, free and
 * hr_sys_alloc_inline, and the replay may call them without the backend's
 * function pointers. Valid after the backend's create. */
int hr_sys_is_plain(const hr_backend_t *be);

#define HR_SYS_BACKEND_FNS                                                    \
    .create = hr_sys_create, .alloc = hr_sys_alloc, .calloc = hr_sys_calloc,  \
    .free = hr_sys_free, .realloc = hr_sys_realloc,                           \
    .usable_size = hr_sys_usable_size, .stats = hr_sys_stats, .destroy = hr_sys_destroy

/* Shared object to LD_PRELOAD for an external backend, by name: "" for
 * glibc (nothing preloaded), the configured path for jemalloc/mimalloc/
 * tcmalloc; NULL if that allocator was not found at configure time, for
 * preload (its PATH is in the spec: hr_alloc_spec_t.lib, spec.h) and for a
 * name that is not external. */
const char *hr_external_lib(const char *name);

#endif
