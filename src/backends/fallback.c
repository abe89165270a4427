/* Fallback accounting shared by the in-house backends (see fallback.h). */
#include "backends/fallback.h"

#include "alloc/chunk.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: the highest its dynamic
 * threshold climbs after frees of mmapped blocks. */
#define KEEP_MMAP_MAX ((size_t)32 << 20)

void hr_fallback_keep_heap(void) {
    static atomic_flag done = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&done))
        return;
#ifdef M_TRIM_THRESHOLD
    mallopt(M_TRIM_THRESHOLD, -1); /* glibc: -1 (as size_t, the maximum) never trims */
    mallopt(M_MMAP_THRESHOLD, (int)KEEP_MMAP_MAX);
#endif
}

void *hr_fallback_alloc(hr_fallback_t *fb, size_t size, size_t align) {
    void *p = hr_chunk_malloc(size, align);
    if (p) {
        fb->fallback_ops++;
        fb->bytes_held += hr_chunk_usable(size);
        fb->blocks_held++;
    }
    return p;
}

void hr_fallback_free(hr_fallback_t *fb, void *ptr, size_t size) {
    if (!ptr)
        return;
    fb->fallback_ops++;
    fb->bytes_held -= hr_chunk_usable(size);
    fb->blocks_held--;
    free(ptr);
}

void hr_fallback_violation(hr_fallback_t *fb, const char *name) {
    /* The same literal each time a backend refuses for the same reason:
     * its address first, the text only for a kind not seen by address. */
    for (int i = 0; i < fb->nkinds; i++)
        if (fb->kind_names[i] == name) {
            fb->kind_counts[i]++;
            return;
        }
    for (int i = 0; i < fb->nkinds; i++)
        if (strcmp(fb->kind_names[i], name) == 0) {
            fb->kind_counts[i]++;
            return;
        }
    if (fb->nkinds < HR_FALLBACK_MAX_KINDS) {
        fb->kind_names[fb->nkinds] = name;
        fb->kind_counts[fb->nkinds++] = 1;
    }
}

void hr_fallback_emit(const hr_fallback_t *fb, hr_emit_t *em) {
    hr_emit_u64(em, "native_ops", fb->native_ops);
    hr_emit_u64(em, "fallback_ops", fb->fallback_ops);
    hr_emit_u64(em, "fallback_bytes_held", fb->bytes_held);
    hr_emit_obj_begin(em, "violations");
    for (int i = 0; i < fb->nkinds; i++)
        hr_emit_u64(em, fb->kind_names[i], fb->kind_counts[i]);
    hr_emit_obj_end(em);
}
