/* The shared adapter of the in-house backends (see inhouse.h). */
#include "backends/inhouse.h"

#include <stdlib.h>
#include <string.h>

#include "alloc/chunk.h"
#include "base/hmem.h"
#include "base/size.h"

void *hr_inhouse_new(const hr_inhouse_class_t *cls, size_t size, hr_error_t *err) {
    hr_inhouse_t *ih = calloc(1, size);
    if (!ih) {
        hr_error_set(err, "%s: out of memory", cls->name);
        return NULL;
    }
    ih->cls = cls;
    hr_fallback_keep_heap();
    hr_ptrmap_init(&ih->fb_set, 0);
    return ih;
}

/* The size item s[0, len) ("123", "16K", "1M", "2GiB": base/size.h) ->
 * bytes; -1 on bad text. */
static int parse_size(const char *s, size_t len, uint64_t *out) {
    const char *end;
    return hr_size_prefix(s, &end, out) == 0 && end == s + len ? 0 : -1;
}

/* Index of the key naming item [p, eq) in keys, or -1. */
static int key_index(const char *const *keys, const char *p, const char *eq) {
    int k = -1;
    for (int i = 0; keys[i]; i++)
        if (strlen(keys[i]) == (size_t)(eq - p) && strncmp(keys[i], p, (size_t)(eq - p)) == 0)
            k = i;
    return k;
}

int hr_inhouse_parse(const char *name, const hr_backend_config_t *cfg,
                     const char *const *keys, uint64_t *vals, const char *usage,
                     hr_error_t *err) {
    const char *p = cfg ? cfg->arg : NULL;
    while (p && *p) {
        size_t n = strcspn(p, ",");
        const char *eq = memchr(p, '=', n);
        int k = eq ? key_index(keys, p, eq) : 0;
        const char *v = eq ? eq + 1 : p;
        if (k < 0 || parse_size(v, (size_t)(p + n - v), &vals[k]) != 0) {
            hr_error_set(err, "%s: bad option at '%s' (expected %s)", name, p, usage);
            return -1;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

const char hr_inhouse_oversize[] = "oversize";

void *hr_inhouse_fb_alloc(hr_inhouse_t *ih, size_t size, size_t align, const char *why) {
    hr_fallback_violation(&ih->fb, why);
    void *p = hr_fallback_alloc(&ih->fb, size, align);
    if (!p || why == hr_inhouse_oversize || ih->cls->owns)
        return p;
    if (!ih->fb_hits)
        ih->fb_hits = hr_hmem_alloc(HR_INHOUSE_FB_BUCKETS, HR_HMEM_ZERO);
    if (!ih->fb_hits || !hr_ptrmap_put(&ih->fb_set, (uintptr_t)p, NULL)) {
        hr_fallback_free(&ih->fb, p, size);
        return NULL;
    }
    uint8_t *h = &ih->fb_hits[hr_inhouse_bucket(p)];
    *h += *h < 255; /* 255 sticks (inhouse.h) */
    return p;
}

int hr_inhouse_fb_free(hr_inhouse_t *ih, void *ptr, size_t size) {
    if (!hr_ptrmap_remove(&ih->fb_set, (uintptr_t)ptr, NULL))
        return 0;
    uint8_t *h = &ih->fb_hits[hr_inhouse_bucket(ptr)];
    *h -= *h < 255;
    hr_fallback_free(&ih->fb, ptr, size);
    return 1;
}

uint64_t hr_inhouse_footprint(void *self) {
    hr_inhouse_t *ih = self;
    return ih->cls->footprint(self) + ih->fb.bytes_held;
}

size_t hr_inhouse_usable(void *self, void *ptr, size_t size) {
    hr_inhouse_t *ih = self;
    if (ih->cls->owns ? !ih->cls->owns(self, ptr) : hr_inhouse_is_fb(ih, ptr))
        return hr_chunk_usable(size);
    return ih->cls->usable(self, ptr, size);
}

void hr_inhouse_stats(void *self, hr_emit_t *em) {
    hr_inhouse_t *ih = self;
    const hr_inhouse_class_t *cls = ih->cls;
    _Alignas(8) unsigned char st[HR_INHOUSE_STATS_MAX];
    memset(st, 0, sizeof st);
    cls->stats(self, st);
    hr_fallback_emit(&ih->fb, em);
    if (cls->emit_pre)
        cls->emit_pre(self, em);
    for (const hr_inhouse_field_t *f = cls->fields; f->key; f++) {
        uint64_t v;
        memcpy(&v, (f->in_self ? (const unsigned char *)self : st) + f->offset, sizeof v);
        if (!f->in_self && f->offset == offsetof(hr_alloc_stats_t, footprint))
            v += ih->fb.bytes_held;
        hr_emit_u64(em, f->key, v);
    }
    if (cls->emit_post)
        cls->emit_post(self, st, em);
    hr_emit_i64(em, "check", cls->check(self));
}

void hr_inhouse_destroy(void *self) {
    hr_inhouse_t *ih = self;
    if (!ih)
        return;
    ih->cls->destroy(self);
    uint64_t p;
    for (size_t it = 0; (it = hr_ptrmap_next(&ih->fb_set, it, &p, NULL));)
        free((void *)(uintptr_t)p);
    hr_ptrmap_free(&ih->fb_set);
    if (ih->fb_hits)
        hr_hmem_free(ih->fb_hits, HR_INHOUSE_FB_BUCKETS);
    free(ih);
}
