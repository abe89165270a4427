/* The routed heap manager: heap stack, routing (corral, search, fall-through
 * of "none" heaps), ownership search on free, per-heap accounting.
 *
 * Routing of one request of `size` bytes (the game's AllocateThis):
 *   1. t = top of the heap stack, or the config's default target;
 *   2. corral: if size < corral_below and t is not an exempt heap, t = the
 *      corral heap (a search target is never exempt);
 *   3. a search target tries its heaps in order, skipping any whose free
 *      total is below `size`; the first heap that returns memory wins;
 *   4. an "alias" heap stands for the heap it names (recursively); a "none"
 *      heap for the implicit "malloc" heap (the game's root allocator: the
 *      slot of a heap that was never created), counted as to_malloc.
 * A target numbered after every heap and search stands for a heap name the
 * table does not know: it routes like the default target and counts its
 * requests (the caller registers such names once, hr_routed_unknown_target).
 * A free probes every heap that has storage, in table order, with CanFree;
 * the number of probes is the cost the game paid for not storing the owner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/routed_int.h"

#define MAXH (HR_HEAPCFG_MAX_HEAPS + 1)

typedef struct heap_acct {
    uint64_t allocs, frees, frees_ignored, failures, fallbacks;
    uint64_t live_blocks, live_bytes, peak_bytes, over_budget, mismatched_pops;
    uint64_t to_malloc;
} heap_acct_t;

typedef struct unknown_name {
    char    *name;
    uint64_t pushes, allocs;
} unknown_name_t;

struct hr_routed {
    hr_heapcfg_t cfg;
    int          nheaps;           /* cfg.nheaps, + 1 when "malloc" is used */
    hr_heap_t    heaps[MAXH];
    heap_acct_t  acct[MAXH];
    int          resolve[MAXH];    /* heap -> heap that really holds memory */
    int          probe[MAXH];      /* heaps asked CanFree on free, in order */
    int          nprobe;
    hr_routed_search_info_t sacct[HR_HEAPCFG_MAX_SEARCH];
    int          stack[HR_ROUTED_STACK_DEPTH];
    int          depth, dropped;   /* dropped: pushes beyond the stack depth */
    int          last_fail;
    int          first_unknown;    /* cfg.nheaps + cfg.nsearches */
    unknown_name_t *unk;           /* unknown heap names, in order of first use */
    int          nunk, capunk;
    hr_routed_totals_t tot;
};

/* The heap that really holds memory for heap i: an alias follows the heap it
 * names (declared first, so no cycles; the parser requires the name), a none
 * heap is the implicit "malloc" heap, numbered c->nheaps. */
static int resolve_heap(const hr_heapcfg_t *c, int i) {
    while (c->heaps[i].kind == HR_HEAP_ALIAS)
        i = c->heaps[i].parent;
    return c->heaps[i].kind == HR_HEAP_NONE ? c->nheaps : i;
}

hr_routed_t *hr_routed_create(const hr_heapcfg_t *cfg, hr_error_t *err) {
    hr_routed_t *m = calloc(1, sizeof *m);
    if (!m) {
        hr_error_set(err, "routed: out of memory");
        return NULL;
    }
    m->cfg = *cfg;
    m->nheaps = cfg->nheaps;
    m->last_fail = -1;
    m->first_unknown = cfg->nheaps + cfg->nsearches;
    for (int i = 0; i < cfg->nheaps; i++) {
        m->resolve[i] = resolve_heap(cfg, i);
        if (m->resolve[i] == cfg->nheaps)
            m->nheaps = cfg->nheaps + 1;
    }
    for (int i = 0; i < cfg->nheaps; i++) {
        const hr_heapcfg_heap_t *hc = &m->cfg.heaps[i];
        if (hr_heap_open(&m->heaps[i], hc->name, hc->kind, hc->size, err) != 0) {
            m->nheaps = i;
            hr_routed_destroy(m);
            return NULL;
        }
        if (hc->kind != HR_HEAP_NONE && hc->kind != HR_HEAP_ALIAS) /* no storage to ask */
            m->probe[m->nprobe++] = i;
    }
    if (m->nheaps > cfg->nheaps) {
        hr_heap_open(&m->heaps[cfg->nheaps], "malloc", HR_HEAP_TRACKING, 0, err);
        m->resolve[cfg->nheaps] = cfg->nheaps;
        m->probe[m->nprobe++] = cfg->nheaps;
    }
    for (int s = 0; s < cfg->nsearches; s++)
        m->sacct[s].name = m->cfg.searches[s].name;
    return m;
}

void hr_routed_destroy(hr_routed_t *m) {
    if (!m)
        return;
    for (int i = 0; i < m->nheaps; i++)
        hr_heap_close(&m->heaps[i]);
    for (int k = 0; k < m->nunk; k++)
        free(m->unk[k].name);
    free(m->unk);
    free(m);
}

/* ---- heap stack ------------------------------------------------------------ */

void hr_routed_push(hr_routed_t *m, int target) {
    m->tot.pushes++;
    if (target >= m->first_unknown && target - m->first_unknown < m->nunk)
        m->unk[target - m->first_unknown].pushes++;
    if (m->depth == HR_ROUTED_STACK_DEPTH) {
        m->tot.stack_overflows++;
        m->dropped++;
        return;
    }
    m->stack[m->depth++] = target;
}

void hr_routed_pop(hr_routed_t *m, int target) {
    m->tot.pops++;
    if (m->dropped) { /* matches a push that did not fit */
        m->dropped--;
        return;
    }
    if (m->depth == 0 || m->stack[m->depth - 1] != target) {
        m->tot.mismatched_pops++;
        if (target >= 0 && target < m->cfg.nheaps)
            m->acct[target].mismatched_pops++;
    }
    if (m->depth > 0)
        m->depth--;
}

int hr_routed_top(const hr_routed_t *m) {
    return m->depth ? m->stack[m->depth - 1] : m->cfg.default_heap;
}

int hr_routed_unknown_target(hr_routed_t *m, const char *name, int *is_new) {
    *is_new = 0;
    for (int k = 0; k < m->nunk; k++)
        if (strcmp(m->unk[k].name, name) == 0)
            return m->first_unknown + k;
    if (m->nunk == m->capunk) {
        int cap = m->capunk ? 2 * m->capunk : 8;
        unknown_name_t *u = realloc(m->unk, (size_t)cap * sizeof *u);
        if (!u)
            return -1;
        m->unk = u;
        m->capunk = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return -1;
    m->unk[m->nunk] = (unknown_name_t){copy, 0, 0};
    m->tot.unknown_names++;
    *is_new = 1;
    return m->first_unknown + m->nunk++;
}

int hr_routed_nunknown(const hr_routed_t *m) { return m->nunk; }

void hr_routed_unknown_info(const hr_routed_t *m, int k, hr_routed_unknown_info_t *out) {
    out->name = m->unk[k].name;
    out->pushes = m->unk[k].pushes;
    out->allocs = m->unk[k].allocs;
}

/* ---- allocation ------------------------------------------------------------ */

static void note_oom(hr_routed_t *m, int h, size_t size, const char *via) {
    m->tot.oom_count++;
    m->last_fail = h;
    if (m->tot.oom_first[0])
        return;
    hr_heap_status_t st;
    hr_heap_status(&m->heaps[h], &st);
    snprintf(m->tot.oom_first, sizeof m->tot.oom_first,
             "out of memory in heap '%s'%s%s: %zu bytes requested; total_free=%llu "
             "largest_free=%llu objects=%llu high_water=%llu",
             m->heaps[h].name, via ? " via " : "", via ? via : "", size,
             (unsigned long long)st.total_free, (unsigned long long)st.largest_free,
             (unsigned long long)st.objects, (unsigned long long)st.high_water);
}

/* One attempt on one (resolved) heap, with its accounting. */
static void *try_heap(hr_routed_t *m, int h, size_t size, size_t align) {
    void *p = hr_heap_alloc(&m->heaps[h], size, align);
    heap_acct_t *a = &m->acct[h];
    if (!p) {
        a->failures++;
        return NULL;
    }
    a->allocs++;
    a->live_blocks++;
    a->live_bytes += size;
    if (a->live_bytes > a->peak_bytes)
        a->peak_bytes = a->live_bytes;
    const hr_heap_t *hp = &m->heaps[h];
    if (hp->kind == HR_HEAP_TRACKING && hp->u.tr.budget && hp->u.tr.bytes > hp->u.tr.budget)
        a->over_budget++;
    return p;
}

/* Counts a request that heap `named` (a none heap) sent to the root malloc. */
static void note_none(hr_routed_t *m, int named) {
    if (m->cfg.heaps[named].kind == HR_HEAP_NONE) {
        m->acct[named].to_malloc++;
        m->tot.none_mallocs++;
    }
}

static void *search_alloc(hr_routed_t *m, int s, size_t size, size_t align) {
    const hr_heapcfg_search_t *se = &m->cfg.searches[s];
    hr_routed_search_info_t *sa = &m->sacct[s];
    int blame = -1;
    for (int k = 0; k < se->n; k++) {
        int h = m->resolve[se->heaps[k]];
        blame = h;
        if (hr_heap_free_total(&m->heaps[h]) < size) {
            sa->skips++;
            continue;
        }
        void *p = try_heap(m, h, size, align);
        if (p) {
            sa->allocs++;
            note_none(m, se->heaps[k]);
            return p;
        }
    }
    sa->failures++;
    note_oom(m, blame, size, se->name);
    return NULL;
}

void *hr_routed_alloc(hr_routed_t *m, size_t size, size_t align) {
    const hr_heapcfg_t *c = &m->cfg;
    int t = hr_routed_top(m);
    m->last_fail = -1;
    if (t >= m->first_unknown) { /* a name the table does not know */
        m->unk[t - m->first_unknown].allocs++;
        t = c->default_heap;
    }
    if (c->corral_below && size < c->corral_below && c->corral_heap >= 0 &&
        !(t < c->nheaps && c->heaps[t].corral_exempt)) {
        t = c->corral_heap;
        m->tot.corralled++;
    }
    if (t >= c->nheaps)
        return search_alloc(m, t - c->nheaps, size, align);
    int h = m->resolve[t];
    void *p = try_heap(m, h, size, align);
    if (!p)
        note_oom(m, h, size, NULL);
    else
        note_none(m, t);
    return p;
}

int hr_routed_last_failure(const hr_routed_t *m) { return m->last_fail; }

void hr_routed_note_fallback(hr_routed_t *m, int heap) {
    if (heap >= 0 && heap < m->nheaps)
        m->acct[heap].fallbacks++;
}

/* ---- free ------------------------------------------------------------------ */

int hr_routed_owner(const hr_routed_t *m, const void *p) {
    for (int k = 0; k < m->nprobe; k++)
        if (hr_heap_can_free(&m->heaps[m->probe[k]], p))
            return m->probe[k];
    return -1;
}

int hr_routed_free(hr_routed_t *m, void *p, size_t size) {
    if (!p)
        return 0;
    m->tot.frees++;
    int owner = -1;
    uint64_t probes = 0;
    for (int k = 0; k < m->nprobe && owner < 0; k++) {
        probes++;
        if (hr_heap_can_free(&m->heaps[m->probe[k]], p))
            owner = m->probe[k];
    }
    m->tot.free_probes += probes;
    if (probes > m->tot.free_probes_max)
        m->tot.free_probes_max = probes;
    if (owner < 0) {
        m->tot.unowned_frees++;
        return -1;
    }
    hr_heap_t *h = &m->heaps[owner];
    heap_acct_t *a = &m->acct[owner];
    if (size == 0)
        size = hr_heap_usable(h, p);
    int rc = hr_heap_free(h, p);
    if (rc < 0)
        return -2; /* owned range, but not a live block: refused by the heap */
    if (rc == 1)
        a->frees_ignored++;
    else
        a->frees++;
    if (a->live_blocks)
        a->live_blocks--;
    a->live_bytes = a->live_bytes > size ? a->live_bytes - size : 0;
    return 0;
}

size_t hr_routed_usable(const hr_routed_t *m, const void *p, size_t size) {
    int h = hr_routed_owner(m, p);
    if (h < 0)
        return 0;
    if (m->heaps[h].kind == HR_HEAP_STATIC) /* bump blocks are 16-byte multiples */
        return size ? (size + 15) & ~(size_t)15 : 16;
    return hr_heap_usable(&m->heaps[h], p);
}

/* ---- status and reports ------------------------------------------------------ */

int hr_routed_nheaps(const hr_routed_t *m) { return m->nheaps; }
int hr_routed_nsearches(const hr_routed_t *m) { return m->cfg.nsearches; }
const hr_routed_totals_t *hr_routed_totals(const hr_routed_t *m) { return &m->tot; }
const hr_heapcfg_t *hr_routed_config(const hr_routed_t *m) { return &m->cfg; }

void hr_routed_status(const hr_routed_t *m, int heap, hr_heap_status_t *st) {
    hr_heap_status(&m->heaps[m->resolve[heap]], st);
}

void hr_routed_heap_info(const hr_routed_t *m, int i, hr_routed_heap_info_t *out) {
    const hr_heap_t *h = &m->heaps[i];
    const heap_acct_t *a = &m->acct[i];
    memset(out, 0, sizeof *out);
    out->name = h->name;
    out->kind = h->kind;
    out->size = h->size;
    hr_heap_status(h, &out->status);
    out->allocs = a->allocs;
    out->frees = a->frees;
    out->frees_ignored = a->frees_ignored;
    out->failures = a->failures;
    out->fallbacks = a->fallbacks;
    out->live_blocks = a->live_blocks;
    out->live_bytes = a->live_bytes;
    out->peak_bytes = a->peak_bytes;
    out->over_budget = a->over_budget;
    out->mismatched_pops = a->mismatched_pops;
    out->to_malloc = a->to_malloc;
    out->held = hr_heap_held(h);
}

void hr_routed_search_info(const hr_routed_t *m, int s, hr_routed_search_info_t *out) {
    *out = m->sacct[s];
}

uint64_t hr_routed_footprint(const hr_routed_t *m) {
    uint64_t sum = 0;
    for (int i = 0; i < m->nheaps; i++)
        sum += hr_heap_held(&m->heaps[i]);
    return sum;
}

int hr_routed_leak_report(const hr_routed_t *m, FILE *out) {
    int n = 0;
    for (int i = 0; i < m->nheaps; i++) {
        const heap_acct_t *a = &m->acct[i];
        if (!a->live_blocks)
            continue;
        n++;
        if (out)
            fprintf(out, "heap '%s': %llu blocks, %llu bytes\n", m->heaps[i].name,
                    (unsigned long long)a->live_blocks, (unsigned long long)a->live_bytes);
    }
    return n;
}
