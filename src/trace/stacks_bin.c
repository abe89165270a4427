/* The stacks block of a binary trace (format 1.5; docs/TRACE_FORMAT.md,
 * "Stacks block"): the module map, frames, stacks and the per-event site
 * ids, appended to the header after the program-time block so that a 1.4
 * reader skips it (a header may grow) and reads the events unchanged. */
#include "trace/stacks_bin.h"
#include "trace/stacks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writer ------------------------------------------------------------- */

static int put(hr_buf_t *b, uint64_t v) {
    if (hr_buf_reserve(b, HR_VARINT_MAX))
        return -1;
    b->len += hr_varint_put(b->data + b->len, v);
    return 0;
}

static int put_bytes(hr_buf_t *b, const char *s, uint64_t len_code) {
    size_t n = s ? strlen(s) : 0;
    if (put(b, len_code) || hr_buf_reserve(b, n + 1))
        return -1;
    memcpy(b->data + b->len, s ? s : "", n);
    b->len += n;
    return 0;
}

int hr_stacks_has(const hr_trace_t *t) {
    const hr_stacks_t *s = t->stacks;
    return t->site || (s && (s->n_modules || s->n_frames || s->n_stacks));
}

int hr_stacks_encode_bin(const hr_trace_t *t, hr_buf_t *b) {
    static const hr_stacks_t none;
    const hr_stacks_t *s = t->stacks ? t->stacks : &none;
    if (put(b, s->n_modules) || put(b, s->n_frames) || put(b, s->n_stacks))
        return -1;
    for (uint32_t i = 0; i < s->n_modules; i++) {
        const hr_module_t *m = &s->modules[i];
        const char *bid = m->build_id;
        if (put_bytes(b, m->path, strlen(m->path)) ||
            put_bytes(b, bid, bid ? strlen(bid) + 1 : 0) || put(b, m->base) || put(b, m->size))
            return -1;
    }
    uint64_t prev = 0;
    for (uint32_t i = 0; i < s->n_frames; i++) {
        const hr_frame_t *f = &s->frames[i];
        if (f->module > s->n_modules || f->func > t->n_strings || f->file > t->n_strings)
            return -1;
        int64_t d = (int64_t)(f->addr - prev);
        prev = f->addr;
        if (put(b, hr_zigzag(d)) || put(b, f->module) || put(b, f->func) || put(b, f->file) ||
            put(b, (uint64_t)f->line << 1 | (f->inl & 1u)))
            return -1;
    }
    for (uint32_t id = 1; id <= s->n_stacks; id++) {
        uint32_t n;
        const uint32_t *fx = hr_stacks_get(s, id, &n);
        if (put(b, n))
            return -1;
        for (uint32_t k = 0; k < n; k++)
            if (fx[k] >= s->n_frames || put(b, fx[k]))
                return -1;
    }
    /* One site per block-creating event, as a delta from the previous one:
     * a loop allocating at a few sites costs one byte per allocation. */
    uint32_t last = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        if (!hr_op_creates_block(t->events[i].op))
            continue;
        uint32_t site = t->site ? t->site[i] : 0;
        if (site > s->n_stacks || put(b, hr_zigzag((int64_t)site - (int64_t)last)))
            return -1;
        last = site;
    }
    return 0;
}

/* ---- reader ------------------------------------------------------------- */

typedef struct sdec {
    const uint8_t *p, *end, *base;
    const char    *name;
    hr_error_t    *err;
    /* file index -> the model's frame index / stack id: equal entries (a
     * symbolized address equal to a named frame) merge when interned */
    uint32_t *frame_map, *stack_map;
} sdec_t;

__attribute__((format(printf, 3, 4))) static int sfail(sdec_t *d, const uint8_t *at,
                                                       const char *fmt, ...) {
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    hr_error_set(d->err, "%s: offset %zu: stacks block: %s", d->name, (size_t)(at - d->base),
                 what);
    return -1;
}

/* A varint of at most `max`, named `what` in messages. */
static int get(sdec_t *d, uint64_t *v, uint64_t max, const char *what) {
    const uint8_t *at = d->p;
    int rc = hr_varint_get(&d->p, d->end, v);
    if (rc == HR_VARINT_TRUNC)
        return sfail(d, at, "truncated: expected %s", what);
    if (rc)
        return sfail(d, at, "bad varint (%s)", what);
    if (*v > max)
        return sfail(d, at, "%s %llu out of range (max %llu)", what, (unsigned long long)*v,
                     (unsigned long long)max);
    return 0;
}

/* A length-prefixed string; len_code 0 with `nullable` gives NULL. */
static int get_str(sdec_t *d, char **out, int nullable, const char *what) {
    uint64_t n;
    char len_what[64];
    snprintf(len_what, sizeof len_what, "length of the %s", what);
    if (get(d, &n, (uint64_t)(d->end - d->p) + (nullable ? 1 : 0), len_what))
        return -1;
    *out = NULL;
    if (nullable && n-- == 0)
        return 0;
    if (memchr(d->p, 0, n))
        return sfail(d, d->p, "%s contains a NUL byte", what);
    if (!(*out = malloc(n + 1)))
        return sfail(d, d->p, "out of memory");
    memcpy(*out, d->p, n);
    (*out)[n] = 0;
    d->p += n;
    return 0;
}

static int dec_modules(sdec_t *d, hr_stacks_t *s, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        char *path = NULL, *bid = NULL;
        uint64_t base, size;
        int rc = get_str(d, &path, 0, "module path") || get_str(d, &bid, 1, "module build id") ||
                 get(d, &base, UINT64_MAX, "module base") || get(d, &size, UINT64_MAX, "module size");
        if (!rc && hr_stacks_add_module(s, path, bid, base, size) < 0)
            rc = sfail(d, d->p, "out of memory");
        free(path);
        free(bid);
        if (rc)
            return -1;
    }
    return 0;
}

static int dec_frames(sdec_t *d, hr_stacks_t *s, uint64_t n, uint32_t n_strings) {
    uint64_t prev = 0, v;
    if (!(d->frame_map = malloc((n ? n : 1) * sizeof *d->frame_map)))
        return sfail(d, d->p, "out of memory");
    for (uint64_t i = 0; i < n; i++) {
        hr_frame_t f = {0, 0, 0, 0, 0, 0};
        if (get(d, &v, UINT64_MAX, "frame address"))
            return -1;
        f.addr = prev + (uint64_t)hr_unzigzag(v);
        prev = f.addr;
        if (get(d, &v, s->n_modules, "frame module"))
            return -1;
        f.module = (uint32_t)v;
        if (get(d, &v, n_strings, "frame function (string index + 1)"))
            return -1;
        f.func = (uint32_t)v;
        if (get(d, &v, n_strings, "frame file (string index + 1)"))
            return -1;
        f.file = (uint32_t)v;
        if (get(d, &v, (uint64_t)UINT32_MAX << 1 | 1, "frame line"))
            return -1;
        f.line = (uint32_t)(v >> 1);
        f.inl = (uint32_t)(v & 1);
        int64_t ix = hr_stacks_frame_put(s, &f);
        if (ix < 0)
            return sfail(d, d->p, "out of memory");
        d->frame_map[i] = (uint32_t)ix;
    }
    return 0;
}

static int dec_stacks(sdec_t *d, hr_stacks_t *s, uint64_t n, uint64_t n_frames) {
    uint32_t *fx = NULL, cap = 0;
    if (!(d->stack_map = malloc((n + 1) * sizeof *d->stack_map)))
        return sfail(d, d->p, "out of memory");
    d->stack_map[0] = 0;
    for (uint64_t id = 1; id <= n; id++) {
        uint64_t depth, v;
        if (get(d, &depth, (uint64_t)(d->end - d->p), "stack depth"))
            goto fail;
        if (depth > cap) {
            uint32_t *nf = realloc(fx, depth * sizeof *fx);
            if (!nf) {
                sfail(d, d->p, "out of memory");
                goto fail;
            }
            fx = nf;
            cap = (uint32_t)depth;
        }
        for (uint64_t k = 0; k < depth; k++) {
            if (!n_frames) {
                sfail(d, d->p, "a stack names a frame but there are none");
                goto fail;
            }
            if (get(d, &v, n_frames - 1, "stack frame index"))
                goto fail;
            fx[k] = d->frame_map[v];
        }
        int64_t got = hr_stacks_intern(s, fx, (uint32_t)depth);
        if (got < 0) {
            sfail(d, d->p, "out of memory");
            goto fail;
        }
        d->stack_map[id] = (uint32_t)got;
    }
    free(fx);
    return 0;
fail:
    free(fx);
    return -1;
}

static int dec_sites(sdec_t *d, hr_trace_t *t, uint64_t n_stacks) {
    int64_t last = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        if (!hr_op_creates_block(t->events[i].op))
            continue;
        uint64_t v;
        const uint8_t *at = d->p;
        if (get(d, &v, UINT64_MAX, "site of an allocating event"))
            return -1;
        int64_t site = last + hr_unzigzag(v);
        if (site < 0 || (uint64_t)site > n_stacks)
            return sfail(d, at, "event %zu: site %lld out of range (stacks 1..%llu, 0 = none)",
                         i, (long long)site, (unsigned long long)n_stacks);
        if (site && hr_trace_set_site(t, i, d->stack_map[site]))
            return sfail(d, at, "out of memory");
        last = site;
    }
    return 0;
}

int hr_stacks_decode_bin(hr_trace_t *t, const uint8_t *p, const uint8_t *end, const uint8_t *base,
                         const char *name, hr_error_t *err) {
    sdec_t d = {p, end, base, name, err, NULL, NULL};
    uint64_t nm, nf, ns;
    uint64_t room = (uint64_t)(end - p);
    if (get(&d, &nm, room, "module count") || get(&d, &nf, room, "frame count") ||
        get(&d, &ns, room, "stack count"))
        return -1;
    hr_stacks_t *s = hr_trace_stacks(t);
    if (!s)
        return sfail(&d, d.p, "out of memory");
    int rc = dec_modules(&d, s, nm) || dec_frames(&d, s, nf, t->n_strings) ||
             dec_stacks(&d, s, ns, nf) || dec_sites(&d, t, ns) ? -1 : 0;
    if (!rc && d.p != d.end)
        rc = sfail(&d, d.p, "%zu bytes after the site ids", (size_t)(d.end - d.p));
    free(d.frame_map);
    free(d.stack_map);
    return rc;
}
