/* System allocator backend ("glibc") and the shared functions of every
 * external backend (see system.h). */
#include "backends/system.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

static char hr_sys_instance; /* the process heap has no state of ours */

void *hr_sys_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    (void)cfg, (void)err;
    return &hr_sys_instance;
}

void *hr_sys_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)self, (void)heap;
    if (align > 16) {
        /* C11 aligned_alloc where its contract holds (size a multiple of the
         * alignment), posix_memalign otherwise: both paths of the library. */
        if (size % align == 0 && size)
            return aligned_alloc(align, size);
        void *p;
        return posix_memalign(&p, align, size) == 0 ? p : NULL;
    }
    return malloc(size);
}

void *hr_sys_calloc(void *self, size_t n, size_t size, int32_t heap) {
    (void)self, (void)heap;
    return calloc(n, size);
}

void hr_sys_free(void *self, void *ptr, size_t size) {
    (void)self, (void)size;
    free(ptr);
}

void *hr_sys_realloc(void *self, void *ptr, size_t old_size, size_t new_size, int32_t heap) {
    (void)self, (void)old_size, (void)heap;
    return realloc(ptr, new_size);
}

size_t hr_sys_usable_size(void *self, void *ptr, size_t size) {
    (void)self, (void)size;
    return malloc_usable_size(ptr);
}

void hr_sys_destroy(void *self) { (void)self; }

const hr_backend_t hr_backend_glibc = {
    .name = "glibc",
    .description = "the C library's malloc (ptmalloc2), replayed in a worker process",
    .caps = HR_CAP_ALIGNED | HR_CAP_REALLOC | HR_CAP_EXTERNAL_PROCESS,
    HR_SYS_BACKEND_FNS,
};
