/* Test-only backends (hidden from "all"): "crash:N" raises SIGSEGV at its Nth
 * allocation and "hang:N" stops making progress there, so tests can check that
 * a crashed or hung replay child is reported and the run goes on. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "backends/backend.h"

typedef struct hr_faulty {
    long at, n;
    int  hang;
} hr_faulty_t;

static void *faulty_create(const hr_backend_config_t *cfg, int hang) {
    hr_faulty_t *f = calloc(1, sizeof *f);
    if (f) {
        f->at = cfg->arg ? atol(cfg->arg) : 0;
        f->hang = hang;
    }
    return f;
}
static void *crash_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    (void)err;
    return faulty_create(cfg, 0);
}
static void *hang_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    (void)err;
    return faulty_create(cfg, 1);
}

static void *faulty_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)align, (void)heap;
    hr_faulty_t *f = self;
    if (f->n++ == f->at) {
        if (f->hang)
            for (;;)
                pause();
        raise(SIGSEGV);
    }
    return malloc(size ? size : 1);
}

static void faulty_free(void *self, void *ptr, size_t size) {
    (void)self, (void)size;
    free(ptr);
}

static void faulty_destroy(void *self) { free(self); }

const hr_backend_t hr_backend_crash = {
    .name = "crash", .description = "test only: SIGSEGV at allocation N (crash:N)",
    .caps = HR_CAP_TEST_ONLY, .create = crash_create, .alloc = faulty_alloc,
    .free = faulty_free, .destroy = faulty_destroy,
};
const hr_backend_t hr_backend_hang = {
    .name = "hang", .description = "test only: hangs at allocation N (hang:N)",
    .caps = HR_CAP_TEST_ONLY, .create = hang_create, .alloc = faulty_alloc,
    .free = faulty_free, .destroy = faulty_destroy,
};
