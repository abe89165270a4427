/* The backend table: every built allocator, in report order. */
#include <string.h>

#include "backends/backend.h"

#define HR_BACKEND_LIST(X)                                                    \
    X(stack) X(marker) X(block) X(bank) X(sizeclass) X(routed)                 \
    X(glibc) X(jemalloc) X(mimalloc) X(tcmalloc) X(preload) X(bump) X(crash) X(hang) X(rogue) \
    X(mtcheck)

#define HR_DECLARE_BACKEND_(n) extern const hr_backend_t hr_backend_##n;
HR_BACKEND_LIST(HR_DECLARE_BACKEND_)
#undef HR_DECLARE_BACKEND_

#define HR_BACKEND_ENTRY_(n) &hr_backend_##n,
const hr_backend_t *const hr_backends[] = {HR_BACKEND_LIST(HR_BACKEND_ENTRY_) NULL};
#undef HR_BACKEND_ENTRY_

hr_backend_config_t hr_backend_config_default(void) {
    hr_backend_config_t c = {NULL, NULL, HR_ALIGN_UNKNOWN, NULL, 0, NULL, NULL};
    return c;
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
