/* The preloaded external allocators: jemalloc, mimalloc, tcmalloc and any
 * malloc replacement given as preload:PATH. They share the system backend's
 * functions; what differs is the library the worker is started with. */
#include <string.h>

#include "backends/be_system.h"

#define HR_EXT_CAPS (HR_CAP_ALIGNED | HR_CAP_REALLOC | HR_CAP_EXTERNAL_PROCESS | HR_CAP_THREAD_SAFE)

const hr_backend_t hr_backend_jemalloc = {
    .name = "jemalloc", .description = "jemalloc (Debian libjemalloc2), LD_PRELOAD worker; jemalloc:sized frees with sdallocx",
    .caps = HR_EXT_CAPS, HR_SYS_BACKEND_FNS,
};
const hr_backend_t hr_backend_mimalloc = {
    .name = "mimalloc", .description = "mimalloc (Debian libmimalloc2.0), LD_PRELOAD worker; :sized frees with mi_free_size",
    .caps = HR_EXT_CAPS, HR_SYS_BACKEND_FNS,
};
const hr_backend_t hr_backend_tcmalloc = {
    .name = "tcmalloc", .description = "tcmalloc (gperftools), LD_PRELOAD worker; :sized frees with tc_free_sized",
    .caps = HR_EXT_CAPS, HR_SYS_BACKEND_FNS,
};
/* Its argument is the library's path, and it always frees plainly. */
const hr_backend_t hr_backend_preload = {
    .name = "preload", .description = "any malloc replacement: preload:PATH.so",
    .caps = HR_EXT_CAPS | HR_CAP_NOT_IN_ALL,
    .create = hr_sys_create_plain, .alloc = hr_sys_alloc, .calloc = hr_sys_calloc,
    .free = hr_sys_free, .realloc = hr_sys_realloc,
    .usable_size = hr_sys_usable_size, .stats = hr_sys_stats, .destroy = hr_sys_destroy,
};

const char *hr_external_lib(const char *name) {
    static const struct { const char *name, *so; } libs[] = {
        {"glibc", ""}, {"jemalloc", HR_JEMALLOC_SO},
        {"mimalloc", HR_MIMALLOC_SO}, {"tcmalloc", HR_TCMALLOC_SO}};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (strcmp(name, libs[i].name) == 0)
            return (libs[i].so[0] || i == 0) ? libs[i].so : NULL;
    return NULL;
}
