/* Engine internals shared by engine.c (the loops) and engine_emit.c (the
 * result object). Not part of any public API. */
#ifndef HR_REPLAY_ENGINE_INT_H
#define HR_REPLAY_ENGINE_INT_H

#include "replay/engine.h"
#include "replay/latency.h"

#define HR_HEAP_DEPTH 64

/* One id's block: pointer and requested size side by side, so a free touches
 * one cache line of the slot table, not two. */
typedef struct hr_slot {
    void    *p;
    uint64_t size;
} hr_slot_t;

/* The trace's heap stack, apart from run_t so that run_t holds only scalars
 * and pointers: a local copy of it then lives in registers in the op loop. */
typedef struct heapstack {
    int32_t heaps[HR_HEAP_DEPTH];
    int     n;
} heapstack_t;

typedef struct run {
    /* hot fields first: copied from the backend so the op loop does one
     * indirect call per op and no double indirection */
    void *(*alloc)(void *self, size_t size, size_t align, int32_t heap);
    void  (*free)(void *self, void *ptr, size_t size);
    /* the rarer hooks, cached too (NULL when the backend has none) */
    void  (*frame)(void *self, uint64_t n);
    void  (*heap_push)(void *self, uint32_t heap, const char *name);
    void  (*heap_pop)(void *self, uint32_t heap, const char *name);
    int32_t             top;      /* heap on top of the trace's heap stack, -1 none */
    const hr_trace_t   *t;
    const hr_backend_t *be;
    void               *inst;
    hr_slot_t          *slots;    /* n_ids: live pointer + requested size, one line */
    heapstack_t        *hs;
    hr_touch_t          touch;
    uint64_t            failed;   /* allocations that returned NULL */
    uint64_t            first_failed;
    size_t              i;        /* current event index */
} run_t;

typedef struct measure {
    hr_latency_t lat;
    uint64_t     cyc[HR_OP__COUNT], cnt[HR_OP__COUNT];
    uint64_t     frame_cyc, worst_frame_cyc, worst_frame_index, frames;
    uint64_t     live, peak_live, fp, peak_fp, fp_at_peak_live, live_at_peak_fp;
    int64_t      slop, slop_at_peak_live;
    uint64_t     rss_base, peak_rss;
    uint64_t     ext_base;     /* allocator's own footprint at the baseline */
    int          ext_ok;       /* the allocator reports a footprint */
    uint64_t     next_live_sample; /* external: also sample when live passes it */
    uint64_t     budget_fail_at;
    int          have_budget_fail;
    uint64_t     failed, first_failed; /* allocations that returned NULL */
} measure_t;

typedef struct timing {
    uint64_t wall_ns, cpu_ns;
} timing_t;

typedef struct result {
    const hr_trace_t           *t;
    const char                 *trace_name, *digest, *spec;
    const hr_backend_t         *be;
    const hr_extstats_t        *ext;
    const hr_replay_options_t  *opt;
    const measure_t            *m;     /* NULL when the replay failed early */
    run_t                      *r;     /* open instance at the end of the trace */
    timing_t                    tm;
} result_t;

/* Writes the whole result object (status ok). */
void hr_result_emit(const result_t *res, hr_emit_t *em);
/* Writes a result object whose status is not ok, with a one-line message. */
void hr_result_emit_error(const result_t *res, hr_emit_t *em, const char *status, const char *msg);

#endif
