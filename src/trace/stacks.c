/* The stack model of a trace: module map, unique frames, deduplicated
 * stacks and per-event site ids (see stacks.h). */
#include "trace/stacks.h"
#include "trace/symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hash set of item indices (open addressing, linear probing, at most half
 * full): slot holds index + 1 (0 = empty) and hash the item's full hash, so
 * growing never looks at the items again. What "equal" means is the
 * caller's: it walks the probe run with ixset_next. */
typedef struct ixset {
    uint32_t *slot;
    uint64_t *hash;
    uint32_t  cap, n;
} ixset_t;

typedef struct stacks_index {
    ixset_t by_addr;  /* frames made by hr_stacks_frame_addr: key addr */
    ixset_t by_name;  /* frames made by hr_stacks_frame_named: key the whole symbol */
    ixset_t by_stack; /* stacks: key their frame indices */
    uint32_t last_module; /* module index + 1 of the last hit (addresses cluster) */
} stacks_index_t;

static uint64_t mix64(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static int ixset_grow(ixset_t *x) {
    uint32_t cap = x->cap ? x->cap * 2 : 256;
    uint32_t *slot = calloc(cap, sizeof *slot);
    uint64_t *hash = calloc(cap, sizeof *hash);
    if (!slot || !hash) {
        free(slot);
        free(hash);
        return -1;
    }
    for (uint32_t i = 0; i < x->cap; i++) {
        if (!x->slot[i])
            continue;
        uint32_t j = (uint32_t)x->hash[i] & (cap - 1);
        while (slot[j])
            j = (j + 1) & (cap - 1);
        slot[j] = x->slot[i];
        hash[j] = x->hash[i];
    }
    free(x->slot);
    free(x->hash);
    x->slot = slot;
    x->hash = hash;
    x->cap = cap;
    return 0;
}

/* Walks the probe run of hash h: *pos starts at UINT32_MAX. Returns the next
 * candidate item index (hash equal), or -1 at the run's end, *pos then
 * being the empty slot where an insert goes. */
static int64_t ixset_next(const ixset_t *x, uint64_t h, uint32_t *pos) {
    if (!x->cap)
        return -1;
    uint32_t mask = x->cap - 1;
    uint32_t i = *pos == UINT32_MAX ? (uint32_t)h & mask : (*pos + 1) & mask;
    for (;; i = (i + 1) & mask) {
        *pos = i;
        if (!x->slot[i])
            return -1;
        if (x->hash[i] == h)
            return (int64_t)x->slot[i] - 1;
    }
}

/* Inserts item at hash h (known absent); -1 on out of memory. */
static int ixset_add(ixset_t *x, uint64_t h, uint32_t item) {
    if ((x->n + 1) * 2 > x->cap && ixset_grow(x) != 0)
        return -1;
    uint32_t i = (uint32_t)h & (x->cap - 1);
    while (x->slot[i])
        i = (i + 1) & (x->cap - 1);
    x->slot[i] = item + 1;
    x->hash[i] = h;
    x->n++;
    return 0;
}

static void ixset_free(ixset_t *x) {
    free(x->slot);
    free(x->hash);
    memset(x, 0, sizeof *x);
}

static stacks_index_t *index_of(hr_stacks_t *s) {
    if (!s->index)
        s->index = calloc(1, sizeof(stacks_index_t));
    return s->index;
}

hr_stacks_t *hr_stacks_new(void) {
    hr_stacks_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->off = calloc(16, sizeof *s->off);
    if (!s->off) {
        free(s);
        return NULL;
    }
    s->cap_stacks = 15; /* off has cap_stacks + 1 entries */
    return s;
}

void hr_stacks_free(hr_stacks_t *s) {
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n_modules; i++) {
        free(s->modules[i].path);
        free(s->modules[i].build_id);
    }
    free(s->modules);
    free(s->frames);
    free(s->off);
    free(s->frame_ix);
    stacks_index_t *ix = s->index;
    if (ix) {
        ixset_free(&ix->by_addr);
        ixset_free(&ix->by_name);
        ixset_free(&ix->by_stack);
        free(ix);
    }
    free(s);
}

/* Grows *arr (elements of `size` bytes) to hold need entries; -1 on OOM. */
static int grow(void **arr, uint32_t *cap, uint32_t need, size_t size) {
    if (need <= *cap)
        return 0;
    uint64_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    if (c > UINT32_MAX - 1)
        return -1;
    void *p = realloc(*arr, (size_t)c * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = (uint32_t)c;
    return 0;
}

int64_t hr_stacks_add_module(hr_stacks_t *s, const char *path, const char *build_id, uint64_t base,
                             uint64_t size) {
    if (grow((void **)&s->modules, &s->cap_modules, s->n_modules + 1, sizeof *s->modules) != 0)
        return -1;
    hr_module_t m = {strdup(path ? path : ""), build_id ? strdup(build_id) : NULL, base, size};
    if (!m.path || (build_id && !m.build_id)) {
        free(m.path);
        free(m.build_id);
        return -1;
    }
    s->modules[s->n_modules] = m;
    return s->n_modules++;
}

uint32_t hr_stacks_module_of(const hr_stacks_t *s, uint64_t addr) {
    const stacks_index_t *ix = s->index;
    if (ix && ix->last_module && ix->last_module <= s->n_modules) {
        const hr_module_t *m = &s->modules[ix->last_module - 1];
        if (addr >= m->base && addr - m->base < m->size)
            return ix->last_module;
    }
    for (uint32_t i = 0; i < s->n_modules; i++) {
        const hr_module_t *m = &s->modules[i];
        if (addr >= m->base && addr - m->base < m->size) {
            if (ix)
                ((stacks_index_t *)ix)->last_module = i + 1;
            return i + 1;
        }
    }
    return 0;
}

static int64_t push_frame(hr_stacks_t *s, const hr_frame_t *f) {
    if (grow((void **)&s->frames, &s->cap_frames, s->n_frames + 1, sizeof *s->frames) != 0)
        return -1;
    s->frames[s->n_frames] = *f;
    return s->n_frames++;
}

int64_t hr_stacks_frame_addr(hr_stacks_t *s, uint64_t addr) {
    stacks_index_t *ix = index_of(s);
    if (!ix)
        return -1;
    uint64_t h = mix64(addr);
    uint32_t pos = UINT32_MAX;
    for (int64_t i; (i = ixset_next(&ix->by_addr, h, &pos)) >= 0;)
        if (s->frames[i].addr == addr)
            return i;
    hr_frame_t f = {addr, hr_stacks_module_of(s, addr), 0, 0, 0, 0};
    int64_t i = push_frame(s, &f);
    if (i < 0 || ixset_add(&ix->by_addr, h, (uint32_t)i) != 0)
        return -1;
    return i;
}

static uint64_t frame_hash(const hr_frame_t *f) {
    uint64_t h = mix64(f->addr ^ 0x9e3779b97f4a7c15ull);
    h = mix64(h ^ ((uint64_t)f->func << 32 | f->file));
    return mix64(h ^ ((uint64_t)f->line << 1 | f->inl));
}

/* A bare return address: what hr_stacks_frame_addr interns. */
static int is_bare(const hr_frame_t *f) {
    return f->func == 0 && f->file == 0 && f->line == 0 && f->inl == 0;
}

/* The frame equal to *f in the by-name index (module aside), added if new
 * (module from f when set, else from the map). */
static int64_t intern_named(hr_stacks_t *s, stacks_index_t *ix, const hr_frame_t *f) {
    uint64_t h = frame_hash(f);
    uint32_t pos = UINT32_MAX;
    for (int64_t i; (i = ixset_next(&ix->by_name, h, &pos)) >= 0;) {
        const hr_frame_t *g = &s->frames[i];
        if (g->addr == f->addr && g->func == f->func && g->file == f->file &&
            g->line == f->line && g->inl == f->inl)
            return i;
    }
    hr_frame_t c = *f;
    if (!c.module && c.addr)
        c.module = hr_stacks_module_of(s, c.addr);
    int64_t i = push_frame(s, &c);
    if (i < 0 || ixset_add(&ix->by_name, h, (uint32_t)i) != 0)
        return -1;
    return i;
}

int64_t hr_stacks_frame_named(hr_trace_t *t, uint64_t addr, const char *func, const char *file,
                              uint32_t line, int inl) {
    hr_stacks_t *s = hr_trace_stacks(t);
    stacks_index_t *ix = s ? index_of(s) : NULL;
    if (!ix)
        return -1;
    hr_frame_t f = {addr, 0, 0, 0, line, inl ? 1u : 0u};
    int64_t fi = func ? hr_trace_intern(t, func) : -1;
    int64_t li = file ? hr_trace_intern(t, file) : -1;
    if ((func && fi < 0) || (file && li < 0))
        return -1;
    f.func = (uint32_t)(fi + 1);
    f.file = (uint32_t)(li + 1);
    return intern_named(s, ix, &f);
}

int64_t hr_stacks_frame_put(hr_stacks_t *s, const hr_frame_t *f) {
    stacks_index_t *ix = index_of(s);
    if (!ix)
        return -1;
    if (!is_bare(f))
        return intern_named(s, ix, f);
    int64_t i = hr_stacks_frame_addr(s, f->addr);
    if (i >= 0 && f->module)
        s->frames[i].module = f->module;
    return i;
}

static uint64_t stack_hash(const uint32_t *fx, uint32_t n) {
    uint64_t h = mix64(0x51ed27u + n);
    for (uint32_t k = 0; k < n; k++)
        h = mix64(h ^ fx[k]) + k;
    return h;
}

int64_t hr_stacks_intern(hr_stacks_t *s, const uint32_t *frame_ix, uint32_t n) {
    stacks_index_t *ix = index_of(s);
    if (!ix)
        return -1;
    uint64_t h = stack_hash(frame_ix, n);
    uint32_t pos = UINT32_MAX;
    for (int64_t i; (i = ixset_next(&ix->by_stack, h, &pos)) >= 0;) {
        uint32_t depth;
        const uint32_t *fx = hr_stacks_get(s, (uint32_t)i + 1, &depth);
        if (depth == n && (n == 0 || memcmp(fx, frame_ix, n * sizeof *fx) == 0))
            return i + 1;
    }
    if (grow((void **)&s->frame_ix, &s->cap_ix, s->n_ix + n, sizeof *s->frame_ix) != 0)
        return -1;
    if (s->n_stacks + 1 > s->cap_stacks) {
        uint32_t cap = s->cap_stacks + 1;
        if (grow((void **)&s->off, &cap, s->n_stacks + 2, sizeof *s->off) != 0)
            return -1;
        s->cap_stacks = cap - 1;
    }
    if (n)
        memcpy(s->frame_ix + s->n_ix, frame_ix, n * sizeof *frame_ix);
    s->n_ix += n;
    s->off[s->n_stacks + 1] = s->n_ix;
    uint32_t id = s->n_stacks;
    if (ixset_add(&ix->by_stack, h, id) != 0)
        return -1;
    s->n_stacks++;
    return (int64_t)id + 1;
}

hr_stacks_t *hr_trace_stacks(hr_trace_t *t) {
    if (!t->stacks)
        t->stacks = hr_stacks_new();
    return t->stacks;
}

int hr_trace_set_site(hr_trace_t *t, size_t event_index, uint32_t stack_id) {
    if (!t->site) {
        if (!stack_id)
            return 0;
        t->site = calloc(t->cap_events ? t->cap_events : 1, sizeof *t->site);
        if (!t->site)
            return -1;
    }
    t->site[event_index] = stack_id;
    return 0;
}

void hr_trace_drop_stacks(hr_trace_t *t) {
    hr_stacks_free(t->stacks);
    free(t->site);
    t->stacks = NULL;
    t->site = NULL;
}

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

void hr_stacks_frame_name(const hr_trace_t *t, uint32_t fi, int with_line, char *buf, size_t cap) {
    const hr_stacks_t *s = t->stacks;
    if (!cap)
        return;
    buf[0] = 0;
    if (!s || fi >= s->n_frames)
        return;
    const hr_frame_t *f = &s->frames[fi];
    if (f->func && f->func <= t->n_strings) {
        const char *file = f->file && f->file <= t->n_strings ? t->strings[f->file - 1] : NULL;
        char dm[1024]; /* C++ names print demangled (symbols.h), so plan patterns see them too */
        const char *fn = hr_demangle(t->strings[f->func - 1], dm, sizeof dm);
        if (!with_line || !file)
            snprintf(buf, cap, "%s", fn);
        else if (f->line)
            snprintf(buf, cap, "%s (%s:%u)", fn, base_name(file), f->line);
        else
            snprintf(buf, cap, "%s (%s)", fn, base_name(file));
    } else if (f->module && f->module <= s->n_modules) {
        const hr_module_t *m = &s->modules[f->module - 1];
        snprintf(buf, cap, "%s+0x%llx", base_name(m->path), (unsigned long long)(f->addr - m->base));
    } else {
        snprintf(buf, cap, "0x%llx", (unsigned long long)f->addr);
    }
}
