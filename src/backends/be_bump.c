/* "bump": the cheapest possible allocator, used to measure the harness's own
 * overhead. Bumps a pointer through one large reserved mapping and never
 * frees. footprint() is the bytes handed out (the whole history). */
#include <stdlib.h>
#include <sys/mman.h>

#include "backends/backend.h"

#define HR_BUMP_RESERVE ((size_t)1 << 38) /* 256 GiB of address space, not memory */

typedef struct hr_bump {
    char  *base, *cur, *end;
} hr_bump_t;

static void *bump_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    (void)cfg;
    hr_bump_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    void *m = mmap(NULL, HR_BUMP_RESERVE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        hr_error_set(err, "bump: cannot reserve %zu bytes of address space", HR_BUMP_RESERVE);
        free(b);
        return NULL;
    }
    b->base = b->cur = m;
    b->end = b->base + HR_BUMP_RESERVE;
    return b;
}

void *hr_bump_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)heap;
    hr_bump_t *b = self;
    size_t a = align > 16 ? align : 16;
    char *p = (char *)(((uintptr_t)b->cur + a - 1) & ~(uintptr_t)(a - 1));
    if ((size_t)(b->end - p) < size)
        return NULL;
    b->cur = p + size;
    return p;
}

void hr_bump_free(void *self, void *ptr, size_t size) { (void)self, (void)ptr, (void)size; }

static uint64_t bump_footprint(void *self) {
    hr_bump_t *b = self;
    return (uint64_t)(b->cur - b->base);
}

static void bump_destroy(void *self) {
    hr_bump_t *b = self;
    munmap(b->base, HR_BUMP_RESERVE);
    free(b);
}

const hr_backend_t hr_backend_bump = {
    .name = "bump",
    .description = "pointer bump, never frees: measures the harness overhead",
    .caps = HR_CAP_ALIGNED | HR_CAP_NOT_IN_ALL,
    .create = bump_create,
    .alloc = hr_bump_alloc,
    .free = hr_bump_free,
    .footprint = bump_footprint,
    .destroy = bump_destroy,
};
