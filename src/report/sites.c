/* Call sites of a trace (sites.h): grouping stacks into sites, their
 * figures and the recommendation. */
#include "report/sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/route.h"
#include "trace/idtab.h"

hr_sites_opts_t hr_sites_opts_default(void) {
    return (hr_sites_opts_t){1, NULL, 20, HR_SITES_BY_ALLOCS};
}

/* Per frame of the trace, computed once: canon[f], the first frame that
 * prints like f (function, file and line; or module+offset), so that the
 * return addresses of one source line are one site; wrap[f], whether f is
 * an allocator wrapper. */
typedef struct frames_ix {
    uint32_t *canon;
    uint8_t  *wrap;
} frames_ix_t;

static int frames_index(const hr_trace_t *t, const hr_sites_opts_t *o, frames_ix_t *fx) {
    uint32_t n = t->stacks->n_frames;
    uint32_t *first = malloc((n ? n : 1) * sizeof *first);
    const char *skip = o->skip ? o->skip : HR_ROUTE_SKIP_DEFAULT;
    char name[1024];
    hr_trace_t names; /* only its string table and hash index: printed names */
    hr_trace_init(&names);
    fx->canon = malloc((n ? n : 1) * sizeof *fx->canon);
    fx->wrap = malloc(n ? n : 1);
    int rc = first && fx->canon && fx->wrap ? 0 : -1;
    for (uint32_t f = 0; rc == 0 && f < n; f++) {
        uint32_t had = names.n_strings;
        hr_stacks_frame_name(t, f, 1, name, sizeof name);
        int64_t ix = hr_trace_intern(&names, name);
        if (ix < 0) {
            rc = -1;
            break;
        }
        if (names.n_strings > had)
            first[ix] = f;
        fx->canon[f] = first[ix];
        hr_stacks_frame_name(t, f, 0, name, sizeof name);
        fx->wrap[f] = (uint8_t)hr_route_skipped(skip, name);
    }
    hr_trace_free(&names);
    free(first);
    return rc;
}

/* The site key of stack `id`: `depth` frames (canonical) from the first one
 * that is not a wrapper (from frame 0 when all are). -1 out of memory. */
static int64_t site_key(const hr_trace_t *t, const hr_sites_opts_t *o, const frames_ix_t *ix,
                        uint32_t id, hr_stacks_t *keys) {
    uint32_t n, k = 0, key[64];
    const uint32_t *fx = hr_stacks_get(t->stacks, id, &n);
    while (k < n && ix->wrap[fx[k]])
        k++;
    if (k == n)
        k = 0;
    uint32_t depth = o->depth ? o->depth : 1, m = 0;
    for (; m < depth && m < 64 && k + m < n; m++)
        key[m] = ix->canon[fx[k + m]];
    return hr_stacks_intern(keys, key, m);
}

/* Counts a block of `bytes` made by event i into its site. */
static void count_block(hr_site_t *s, uint64_t bytes, const hr_life_t *life) {
    s->allocs++;
    s->bytes += bytes;
    if (s->allocs == 1 || bytes < s->min_size)
        s->min_size = bytes;
    if (bytes > s->max_size)
        s->max_size = bytes;
    uint32_t k = 0;
    while (k < s->n_sizes && k < HR_SITE_SIZES && s->sizes[k] != bytes)
        k++;
    if (k == s->n_sizes && k < HR_SITE_SIZES)
        s->sizes[s->n_sizes++] = bytes;
    else if (k == HR_SITE_SIZES)
        s->n_sizes = HR_SITE_SIZES + 1;
    if (life->cls < HR_LIFE__COUNT)
        s->life[life->cls]++;
    s->in_load += life->alloc_frame == 0;
}

/* The id an event ends (free, pfree, realloc's and prealloc's old id), or
 * UINT32_MAX. */
static uint32_t ended_id(const hr_event_t *ev) {
    if (ev->op == HR_OP_FREE || ev->op == HR_OP_POOL_FREE)
        return ev->id;
    if (ev->op == HR_OP_REALLOC || ev->op == HR_OP_POOL_REALLOC)
        return ev->aux;
    return UINT32_MAX;
}

/* Walks the events up to `upto` (exclusive) keeping live bytes per id (and
 * per site when `site_live`); returns the index just after the first event
 * that reached the peak, or -1 out of memory. */
static int64_t walk_live(const hr_trace_t *t, const hr_sites_t *s, size_t upto,
                         uint64_t *site_live) {
    hr_idtab_t bytes, site;
    int bad = hr_idtab_init(&bytes, t->n_ids, t->n_events);
    bad |= hr_idtab_init(&site, t->n_ids, t->n_events);
    uint64_t live = 0, peak = 0;
    size_t at = 0;
    for (size_t i = 0; !bad && i < upto; i++) {
        const hr_event_t *ev = &t->events[i];
        uint32_t old = ended_id(ev);
        if (old != UINT32_MAX) {
            uint64_t b = hr_idtab_get(&bytes, old), st = hr_idtab_get(&site, old);
            live -= b;
            if (site_live && st)
                site_live[st - 1] -= b;
        }
        if (!hr_op_creates_block(ev->op))
            continue;
        uint64_t b = hr_event_bytes(ev), st = t->site ? s->of_stack[t->site[i]] : 0;
        bad |= hr_idtab_set(&bytes, ev->id, b) | hr_idtab_set(&site, ev->id, st);
        live += b;
        if (site_live && st)
            site_live[st - 1] += b;
        if (live > peak)
            peak = live, at = i + 1;
    }
    hr_idtab_free(&bytes);
    hr_idtab_free(&site);
    return bad ? -1 : (int64_t)at;
}

/* The recommendation (docs/SITES.md, "Recommendations"), first that holds:
 * a frame stack when nine in ten blocks die in their frame in LIFO order; a
 * level heap when nine in ten are made while loading and outlive it; a pool
 * of N-byte cells when every block is N bytes, N > 0 (malloc(0) blocks stay
 * general: a plan has no pool of 0-byte cells); a level heap when nine in
 * ten die within their phase; else the general heap. */
static void advise(hr_site_t *s) {
    uint64_t n = s->allocs, late = s->life[HR_LIFE_LONG] + s->life[HR_LIFE_LEAKED] +
                                   s->life[HR_LIFE_PHASE];
    for (unsigned c = 0; c < HR_LIFE__COUNT; c++)
        if (s->life[c] > s->life[s->life_main])
            s->life_main = (uint8_t)c;
    if (s->life[HR_LIFE_SAME_LIFO] * 10 >= n * 9)
        s->route = HR_ROUTE_FRAME_STACK;
    else if (s->in_load * 10 >= n * 9 && late * 10 >= n * 9)
        s->route = HR_ROUTE_LEVEL;
    else if (s->n_sizes == 1 && n >= 2 && s->bytes > 0)
        s->route = HR_ROUTE_POOL;
    else if (s->life[HR_LIFE_PHASE] * 10 >= n * 9)
        s->route = HR_ROUTE_LEVEL;
    else
        s->route = HR_ROUTE_GENERAL;
}

static int sort_by;
static int by_rank(const void *a, const void *b) {
    const hr_site_t *x = a, *y = b;
    uint64_t kx = sort_by == HR_SITES_BY_BYTES ? x->bytes : sort_by == HR_SITES_BY_PEAK ? x->peak_bytes : x->allocs;
    uint64_t ky = sort_by == HR_SITES_BY_BYTES ? y->bytes : sort_by == HR_SITES_BY_PEAK ? y->peak_bytes : y->allocs;
    if (kx != ky)
        return kx > ky ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key; /* stable: first seen first */
}

static int fill_sites(const hr_trace_t *t, hr_sites_t *s, const hr_life_t *life) {
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (!hr_op_creates_block(ev->op))
            continue;
        uint32_t st = t->site ? s->of_stack[t->site[i]] : 0;
        s->allocs++;
        s->bytes += hr_event_bytes(ev);
        if (!st)
            s->no_stack++;
        else
            count_block(&s->v[st - 1], hr_event_bytes(ev), &life[i]);
    }
    uint64_t *live = calloc(s->n ? s->n : 1, sizeof *live);
    int64_t at = live ? walk_live(t, s, t->n_events, NULL) : -1;
    if (at < 0 || walk_live(t, s, (size_t)at, live) < 0) {
        free(live);
        return -1;
    }
    for (uint32_t k = 0; k < s->n; k++) {
        s->v[k].peak_bytes = live[k];
        s->peak += live[k];
    }
    free(live);
    return 0;
}

int hr_sites_compute(const hr_trace_t *t, const hr_sites_opts_t *o, hr_sites_t *out,
                     hr_error_t *err) {
    memset(out, 0, sizeof *out);
    if (!t->stacks || !t->stacks->n_stacks || !t->site) {
        hr_error_set(err, "the trace has no stacks (capture with --stacks, or convert a "
                     "heaptrack file; docs/SITES.md)");
        return -1;
    }
    hr_life_t *life = malloc((t->n_events ? t->n_events : 1) * sizeof *life);
    out->keys = hr_stacks_new();
    out->of_stack = calloc((size_t)t->stacks->n_stacks + 1, sizeof *out->of_stack);
    frames_ix_t fx = {NULL, NULL};
    int rc = !life || !out->keys || !out->of_stack ? -1 : hr_lifetime_compute(t, life, err);
    if (rc == 0)
        rc = frames_index(t, o, &fx);
    for (uint32_t id = 1; rc == 0 && id <= t->stacks->n_stacks; id++) {
        int64_t k = site_key(t, o, &fx, id, out->keys);
        rc = k < 0 ? -1 : 0;
        out->of_stack[id] = (uint32_t)k;
    }
    free(fx.canon);
    free(fx.wrap);
    out->n = out->keys ? out->keys->n_stacks : 0;
    if (rc == 0 && !(out->v = calloc(out->n ? out->n : 1, sizeof *out->v)))
        rc = -1;
    for (uint32_t k = 0; rc == 0 && k < out->n; k++)
        out->v[k].key = k + 1;
    if (rc == 0)
        rc = fill_sites(t, out, life);
    free(life);
    if (rc) {
        if (!err->msg[0])
            hr_error_set(err, "out of memory");
        hr_sites_free(out);
        return -1;
    }
    for (uint32_t k = 0; k < out->n; k++)
        advise(&out->v[k]);
    sort_by = o->sort;
    qsort(out->v, out->n, sizeof *out->v, by_rank);
    return 0;
}

void hr_sites_free(hr_sites_t *s) {
    free(s->v);
    hr_stacks_free(s->keys);
    free(s->of_stack);
    memset(s, 0, sizeof *s);
}

void hr_site_name(const hr_trace_t *t, const hr_sites_t *s, const hr_site_t *site, char *buf,
                  size_t cap) {
    uint32_t n;
    const uint32_t *fx = hr_stacks_get(s->keys, site->key, &n);
    size_t len = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < n && len + 4 < cap; k++) {
        if (k)
            len += (size_t)snprintf(buf + len, cap - len, " < ");
        if (len < cap)
            hr_stacks_frame_name(t, fx[k], 1, buf + len, cap - len);
        len = strlen(buf);
    }
    if (!n)
        snprintf(buf, cap, "(no frames)");
}

void hr_site_advice(const hr_site_t *site, char *buf, size_t cap) {
    if (site->route == HR_ROUTE_POOL)
        snprintf(buf, cap, "pool of %llu B cells", (unsigned long long)site->sizes[0]);
    else if (site->route == HR_ROUTE_FRAME_STACK)
        snprintf(buf, cap, "frame stack");
    else if (site->route == HR_ROUTE_LEVEL)
        snprintf(buf, cap, "level heap");
    else
        snprintf(buf, cap, "general heap");
}
