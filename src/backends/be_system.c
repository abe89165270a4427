/* System allocator backend ("glibc") and the shared functions of every
 * external backend (see system.h). */
#include "backends/be_system.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

static char hr_sys_instance; /* the process heap has no state of ours */

/* The sized free of the library that provides malloc, found by name: jemalloc
 * sdallocx, mimalloc mi_free_size, tcmalloc tc_free_sized. Off by default:
 * a capture records the program's free(ptr), and the fresh-program check of
 * docs/METRICS.md replays it with plain free, so "NAME:sized" is an opt-in
 * ("what would sized deallocation buy"). Used only for traces without
 * over-aligned allocations: those calls must also be told the alignment, and
 * free() receives just the pointer and the requested size. */
typedef void (*hr_sdallocx_fn)(void *, size_t, int);
typedef void (*hr_sized_fn)(void *, size_t);
static hr_sdallocx_fn hr_sdallocx;
static hr_sized_fn hr_sized_free;
static const char *hr_sized_name = "none";

/* Looked up once per process: a failed dlsym keeps an error string from
 * malloc, and the time mode creates an instance per lap. */
static void find_sized_free(void) {
    static int done;
    static const char *const names[] = {"mi_free_size", "tc_free_sized"};
    static hr_sdallocx_fn sdx;
    static hr_sized_fn sized;
    static const char *name = "none (the library has no sized free)";
    if (!done) {
        done = 1;
        if ((sdx = (hr_sdallocx_fn)dlsym(RTLD_DEFAULT, "sdallocx")))
            name = "sdallocx";
        for (size_t i = 0; !sdx && !sized && i < 2; i++)
            if ((sized = (hr_sized_fn)dlsym(RTLD_DEFAULT, names[i])))
                name = names[i];
    }
    hr_sdallocx = sdx;
    hr_sized_free = sized;
    hr_sized_name = name;
}

/* preload:PATH's create (its argument is the path, and it frees plainly),
 * and the start of hr_sys_create. */
void *hr_sys_create_plain(const hr_backend_config_t *cfg, hr_error_t *err) {
    (void)cfg, (void)err;
    hr_sdallocx = NULL;
    hr_sized_free = NULL;
    hr_sized_name = "none (plain free, as recorded)";
    return &hr_sys_instance;
}

/* glibc, jemalloc, mimalloc and tcmalloc: plain free, or NAME:sized. */
void *hr_sys_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    hr_sys_create_plain(cfg, err);
    int sized = cfg->arg && strcmp(cfg->arg, "sized") == 0;
    if (cfg->arg && !sized) {
        hr_error_set(err, "bad option '%s' (an external allocator takes none, or 'sized')", cfg->arg);
        return NULL;
    }
    int known = cfg->max_align != HR_ALIGN_UNKNOWN, overaligned = known && cfg->max_align > 16;
    if (sized && overaligned)
        hr_sized_name = "none (trace has over-aligned blocks)";
    else if (sized && known)
        find_sized_free();
    return &hr_sys_instance;
}

void hr_sys_stats(void *self, hr_emit_t *em) {
    (void)self;
    hr_emit_str(em, "sized_free", hr_sized_name);
}

void *hr_sys_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)self, (void)heap;
    return hr_sys_alloc_inline(size, align);
}

void *hr_sys_calloc(void *self, size_t n, size_t size, int32_t heap) {
    (void)self, (void)heap;
    return calloc(n, size);
}

void hr_sys_free(void *self, void *ptr, size_t size) {
    (void)self;
    if (hr_sdallocx)
        hr_sdallocx(ptr, size, 0);
    else if (hr_sized_free)
        hr_sized_free(ptr, size);
    else
        free(ptr);
}

int hr_sys_is_plain(const hr_backend_t *be) {
    return be->free == hr_sys_free && !hr_sdallocx && !hr_sized_free;
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
    .caps = HR_CAP_ALIGNED | HR_CAP_REALLOC | HR_CAP_EXTERNAL_PROCESS | HR_CAP_THREAD_SAFE,
    HR_SYS_BACKEND_FNS,
};
