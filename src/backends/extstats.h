/* Picks the native-stats reader for an external allocator (after the
 * library is loaded), by the name of the backend that serves the row's
 * blocks (hr_alloc_spec_t.last, spec.h): glibc -> mallinfo2; otherwise whichever of jemalloc's
 * mallctl, mimalloc's mi_process_info or tcmalloc's MallocExtension the
 * process provides; else RSS only. */
#ifndef HR_BACKENDS_EXTSTATS_H
#define HR_BACKENDS_EXTSTATS_H

#include <stdint.h>

#include "base/emit.h"

/* Native statistics of an external allocator, read by name via dlsym in the
 * worker (nothing is linked). footprint() returns bytes held from the system,
 * or 0 when the allocator has no figure (RSS is used then). */
typedef struct hr_extstats {
    const char *source;       /* "jemalloc", "mimalloc", "tcmalloc", "glibc", "rss" */
    uint64_t (*footprint)(void);
    void (*emit)(hr_emit_t *em); /* final native stats into the "native" object */
} hr_extstats_t;


const hr_extstats_t *hr_extstats_for(const char *name);

#endif
