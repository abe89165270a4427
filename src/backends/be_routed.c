/* "routed": replays a trace through the routed heap manager (SHAR-style
 * HeapManager, src/alloc/routed.h).
 *
 * The heap table: `-a routed:NAME` picks a built-in table ("shar-pc", the
 * default, or "shar-ps2"), `-a routed:FILE` (any arg that is not a built-in
 * name) loads a table file, else `--heap-config FILE`, else the default.
 *
 * Trace heap names (push/pop string indices) map to config targets once at
 * create() (the string table also holds mark names, so nothing is judged
 * there). A pushed or popped name the config does not know is registered
 * with the manager on first use: the violation "unknown_heap" counts it once
 * per distinct name, its requests route to the config's default target, and
 * stats list it in "unknown_heaps" with its pushes and allocations (the
 * report prints that array as a table; stdout of the replay stays clean).
 * A trace without heap events uses the default target. A request the manager cannot serve (heap exhausted, search found
 * nothing) is served by the fallback, counted as "out_of_memory" and against
 * the blamed heap's "fallbacks"; the first such event's report (heap name and
 * its GetStatus) is in stats as "oom_first".
 *
 * footprint() = bytes held from the system: every static/dlheap region in
 * full (reserved for the heap whether or not it is touched, as the game's
 * heaps were), tracking heaps' malloc usable bytes, fallback usable bytes. */
#include <stdlib.h>
#include <string.h>

#include "alloc/chunk.h"
#include "backends/backend.h"
#include "backends/fallback.h"
#include "alloc/routed.h"

typedef struct routed_be {
    hr_routed_t  *m;
    hr_fallback_t fb;
    int          *map;       /* trace string index -> target, -1 = unknown */
    uint32_t      nmap;
    char          config[256];
} routed_be_t;

static void *routed_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    hr_fallback_keep_heap();
    hr_heapcfg_t *hc = malloc(sizeof *hc);
    routed_be_t *b = calloc(1, sizeof *b);
    if (!hc || !b) {
        free(hc);
        free(b);
        hr_error_set(err, "routed: out of memory");
        return NULL;
    }
    if (cfg->arg && *cfg->arg) {
        if (hr_heapcfg_builtin(hc, cfg->arg) != 0 && hr_heapcfg_load(hc, cfg->arg, err) != 0)
            goto fail;
        snprintf(b->config, sizeof b->config, "%s", cfg->arg);
    } else if (cfg->config_path) {
        if (hr_heapcfg_load(hc, cfg->config_path, err) != 0)
            goto fail;
        snprintf(b->config, sizeof b->config, "%s", cfg->config_path);
    } else {
        hr_heapcfg_default(hc);
        snprintf(b->config, sizeof b->config, "(default)");
    }
    b->m = hr_routed_create(hc, err);
    if (!b->m)
        goto fail;
    if (cfg->n_heap_names) {
        b->map = malloc(cfg->n_heap_names * sizeof *b->map);
        if (!b->map) {
            hr_error_set(err, "routed: out of memory");
            goto fail;
        }
        b->nmap = cfg->n_heap_names;
        for (uint32_t i = 0; i < cfg->n_heap_names; i++)
            b->map[i] = hr_heapcfg_lookup(hc, cfg->heap_names[i]);
    }
    free(hc);
    return b;
fail:
    hr_routed_destroy(b->m);
    free(b->map);
    free(b);
    free(hc);
    return NULL;
}

/* The target for a pushed/popped name. An unknown name gets its own target
 * from the manager (routed like the default, counted there); the violation is
 * counted on its first registration only, and the index caches the target. */
static int target_of(routed_be_t *b, uint32_t idx, const char *name) {
    int t = idx < b->nmap ? b->map[idx]
                          : (name ? hr_heapcfg_lookup(hr_routed_config(b->m), name) : -1);
    if (t >= 0)
        return t;
    int is_new = 0;
    t = hr_routed_unknown_target(b->m, name ? name : "(unnamed)", &is_new);
    if (is_new)
        hr_fallback_violation(&b->fb, "unknown_heap");
    if (t < 0) /* out of memory registering the name: route as the default */
        return hr_routed_config(b->m)->default_heap;
    if (idx < b->nmap)
        b->map[idx] = t;
    return t;
}

static void routed_push(void *self, uint32_t heap, const char *name) {
    routed_be_t *b = self;
    hr_routed_push(b->m, target_of(b, heap, name));
}

static void routed_pop(void *self, uint32_t heap, const char *name) {
    routed_be_t *b = self;
    uint64_t before = hr_routed_totals(b->m)->mismatched_pops;
    hr_routed_pop(b->m, target_of(b, heap, name));
    if (hr_routed_totals(b->m)->mismatched_pops != before)
        hr_fallback_violation(&b->fb, "mismatched_pop");
}

static void *routed_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap; /* the manager keeps its own stack (mismatches counted there) */
    routed_be_t *b = self;
    void *p = hr_routed_alloc(b->m, size, align);
    if (p) {
        hr_fallback_native(&b->fb);
        return p;
    }
    hr_routed_note_fallback(b->m, hr_routed_last_failure(b->m));
    hr_fallback_violation(&b->fb, "out_of_memory");
    return hr_fallback_alloc(&b->fb, size, align);
}

static void routed_free(void *self, void *ptr, size_t size) {
    routed_be_t *b = self;
    if (!ptr)
        return;
    int rc = hr_routed_free(b->m, ptr, size);
    if (rc == 0)
        hr_fallback_native(&b->fb);
    else if (rc == -1)
        hr_fallback_free(&b->fb, ptr, size);
    else
        hr_fallback_violation(&b->fb, "bad_free");
}

static uint64_t routed_footprint(void *self) {
    routed_be_t *b = self;
    return hr_routed_footprint(b->m) + b->fb.bytes_held;
}

static size_t routed_usable(void *self, void *ptr, size_t size) {
    routed_be_t *b = self;
    size_t u = hr_routed_usable(b->m, ptr, size);
    return u ? u : hr_chunk_usable(size);
}

static void emit_heap(hr_emit_t *em, const hr_routed_heap_info_t *h) {
    hr_emit_obj_begin(em, NULL);
    hr_emit_str(em, "name", h->name);
    hr_emit_str(em, "kind", hr_heap_kind_name(h->kind));
    hr_emit_u64(em, "size", h->size);
    hr_emit_u64(em, "peak", h->peak_bytes);
    hr_emit_u64(em, "high_water", h->status.high_water);
    hr_emit_u64(em, "objects", h->status.objects);
    hr_emit_u64(em, "total_free", h->status.total_free);
    hr_emit_u64(em, "largest_free", h->status.largest_free);
    hr_emit_u64(em, "allocs", h->allocs);
    hr_emit_u64(em, "frees", h->frees);
    hr_emit_u64(em, "frees_ignored", h->frees_ignored);
    hr_emit_u64(em, "failures", h->failures);
    hr_emit_u64(em, "fallbacks", h->fallbacks);
    hr_emit_u64(em, "over_budget", h->over_budget);
    hr_emit_u64(em, "to_malloc", h->to_malloc);
    hr_emit_u64(em, "leaks_blocks", h->live_blocks);
    hr_emit_u64(em, "leaks_bytes", h->live_bytes);
    hr_emit_u64(em, "mismatched_pops", h->mismatched_pops);
    hr_emit_u64(em, "held", h->held);
    hr_emit_obj_end(em);
}

static void routed_stats(void *self, hr_emit_t *em) {
    routed_be_t *b = self;
    const hr_routed_totals_t *t = hr_routed_totals(b->m);
    hr_fallback_emit(&b->fb, em);
    hr_emit_str(em, "heap_config", b->config);
    hr_emit_u64(em, "heap_pushes", t->pushes);
    hr_emit_u64(em, "heap_pops", t->pops);
    hr_emit_u64(em, "mismatched_pops", t->mismatched_pops);
    hr_emit_u64(em, "stack_overflows", t->stack_overflows);
    hr_emit_u64(em, "corralled", t->corralled);
    hr_emit_u64(em, "none_heap_mallocs", t->none_mallocs);
    hr_emit_u64(em, "frees_routed", t->frees);
    hr_emit_u64(em, "free_owner_probes", t->free_probes);
    hr_emit_f64(em, "free_owner_probes_avg",
                t->frees ? (double)t->free_probes / (double)t->frees : 0.0);
    hr_emit_u64(em, "free_owner_probes_max", t->free_probes_max);
    hr_emit_u64(em, "unowned_frees", t->unowned_frees);
    hr_emit_u64(em, "oom_count", t->oom_count);
    if (t->oom_first[0])
        hr_emit_str(em, "oom_first", t->oom_first);
    /* The implicit root "malloc" heap (when a none heap needs it) comes
     * first: it is the root of the game's allocator tree, and with the PC
     * table it serves most requests, so it must not be the row a text
     * report's row limit cuts off. The table's heaps follow in table order. */
    int ncfg = hr_routed_config(b->m)->nheaps, n = hr_routed_nheaps(b->m);
    hr_emit_arr_begin(em, "heaps");
    for (int k = 0; k < n; k++) {
        hr_routed_heap_info_t h;
        hr_routed_heap_info(b->m, n > ncfg ? (k + ncfg) % n : k, &h);
        emit_heap(em, &h);
    }
    hr_emit_arr_end(em);
    hr_emit_arr_begin(em, "searches");
    for (int s = 0; s < hr_routed_nsearches(b->m); s++) {
        hr_routed_search_info_t si;
        hr_routed_search_info(b->m, s, &si);
        hr_emit_obj_begin(em, NULL);
        hr_emit_str(em, "name", si.name);
        hr_emit_u64(em, "allocs", si.allocs);
        hr_emit_u64(em, "skips", si.skips);
        hr_emit_u64(em, "failures", si.failures);
        hr_emit_obj_end(em);
    }
    hr_emit_arr_end(em);
    hr_emit_arr_begin(em, "unknown_heaps");
    for (int k = 0; k < hr_routed_nunknown(b->m); k++) {
        hr_routed_unknown_info_t u;
        hr_routed_unknown_info(b->m, k, &u);
        hr_emit_obj_begin(em, NULL);
        hr_emit_str(em, "name", u.name);
        hr_emit_u64(em, "pushes", u.pushes);
        hr_emit_u64(em, "allocs", u.allocs);
        hr_emit_obj_end(em);
    }
    hr_emit_arr_end(em);
}

static void routed_destroy(void *self) {
    routed_be_t *b = self;
    hr_routed_destroy(b->m); /* frees what tracking heaps still hold */
    free(b->map);
    free(b);
}

const hr_backend_t hr_backend_routed = {
    .name = "routed",
    .description = "SHAR-style heap manager: heap stack, static/tracking/dlheap heaps",
    .caps = HR_CAP_HEAP_ROUTING | HR_CAP_ALIGNED,
    .create = routed_create,
    .alloc = routed_alloc,
    .free = routed_free,
    .heap_push = routed_push,
    .heap_pop = routed_pop,
    .footprint = routed_footprint,
    .usable_size = routed_usable,
    .stats = routed_stats,
    .destroy = routed_destroy,
};
