/* A per-id u64 table that costs memory by the ids used, not by the largest
 * id (internal to src/trace/). Ids are < 2^31 but a trace may use a few huge
 * ones: a 3-event trace with id 2147483647 must not allocate 16 GiB.
 *
 * Dense (a plain array, the fast path) when the id space is at most
 * HR_IDTAB_DENSE_MAX(n_events) entries, i.e. a few words per event; else a
 * hash map keyed by id + 1 (src/base/ptrmap.h). Absent ids read as 0. */
#ifndef HR_TRACE_IDTAB_H
#define HR_TRACE_IDTAB_H

#include <stdint.h>
#include <stdlib.h>

#include "base/ptrmap.h"

#define HR_IDTAB_DENSE_MAX(n_events) ((uint64_t)(n_events) * 2 + 65536)

typedef struct hr_idtab {
    uint64_t   *dense; /* n_ids entries, NULL when sparse */
    hr_ptrmap_t sparse;
} hr_idtab_t;

/* For ids < n_ids in a trace of n_events events; -1 on OOM. */
static inline int hr_idtab_init(hr_idtab_t *t, uint32_t n_ids, uint64_t n_events) {
    hr_ptrmap_init(&t->sparse, sizeof(uint64_t));
    t->dense = NULL;
    if (n_ids > HR_IDTAB_DENSE_MAX(n_events))
        return 0;
    t->dense = calloc(n_ids ? n_ids : 1, sizeof *t->dense);
    return t->dense ? 0 : -1;
}

__attribute__((always_inline)) static inline uint64_t hr_idtab_get(const hr_idtab_t *t, uint32_t id) {
    if (__builtin_expect(t->dense != NULL, 1))
        return t->dense[id];
    const uint64_t *v = (const uint64_t *)hr_ptrmap_get(&t->sparse, (uint64_t)id + 1);
    return v ? *v : 0;
}

/* 0, or -1 on OOM (sparse mode only). */
__attribute__((always_inline)) static inline int hr_idtab_set(hr_idtab_t *t, uint32_t id, uint64_t v) {
    if (__builtin_expect(t->dense != NULL, 1)) {
        t->dense[id] = v;
        return 0;
    }
    uint64_t *p = (uint64_t *)hr_ptrmap_put(&t->sparse, (uint64_t)id + 1, NULL);
    if (!p)
        return -1;
    *p = v;
    return 0;
}

static inline void hr_idtab_free(hr_idtab_t *t) {
    free(t->dense);
    t->dense = NULL;
    hr_ptrmap_free(&t->sparse);
}

#endif
