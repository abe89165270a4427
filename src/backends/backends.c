/* The backend table: every built allocator, in report order. */
#include <string.h>

#include "backends/backend.h"
#include "backends/compose.h"

#define HR_BACKEND_LIST(X)                                                    \
    X(stack) X(marker) X(block) X(bank) X(sizeclass) X(routed)                 \
    X(glibc) X(jemalloc) X(mimalloc) X(tcmalloc) X(preload) X(bump) X(crash) X(hang) \
    X(mtcheck)

#define HR_DECLARE_BACKEND_(n) extern const hr_backend_t hr_backend_##n;
HR_BACKEND_LIST(HR_DECLARE_BACKEND_)
#undef HR_DECLARE_BACKEND_

#define HR_BACKEND_ENTRY_(n) &hr_backend_##n,
const hr_backend_t *const hr_backends[] = {HR_BACKEND_LIST(HR_BACKEND_ENTRY_) NULL};
#undef HR_BACKEND_ENTRY_

hr_backend_config_t hr_backend_config_default(void) {
    hr_backend_config_t c = {NULL, NULL, HR_ALIGN_UNKNOWN, NULL, 0, NULL};
    return c;
}

int hr_spec_is(const char *spec, const char *name) {
    size_t len = strcspn(spec, ":");
    return strlen(name) == len && strncmp(name, spec, len) == 0;
}

const hr_backend_t *hr_backend_find(const char *spec) {
    if (hr_compose_is(spec))
        return hr_compose_backend(spec);
    for (size_t i = 0; hr_backends[i]; i++)
        if (hr_spec_is(spec, hr_backends[i]->name))
            return hr_backends[i];
    return NULL;
}

char *hr_backend_stats_json(const hr_backend_t *be, void *inst) {
    hr_emit_mem_t m;
    if (!be->stats || hr_emit_mem_open(&m, 1) != 0)
        return NULL;
    hr_emit_obj_begin(&m.em, NULL);
    be->stats(inst, &m.em);
    hr_emit_obj_end(&m.em);
    return hr_emit_mem_close(&m);
}
