/* Test-only backends (hidden from "all"): "crash:N" raises SIGSEGV at its Nth
 * allocation and "hang:N" stops making progress there, so tests can check that
 * a crashed or hung replay child is reported and the run goes on; "rogue"
 * (below) misbehaves in the other ways a replay process must survive. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* "rogue:MODE", test only: an allocator that misbehaves the way a hostile
 * user's might, for the tests of the replay processes (docs/ARCHITECTURE.md,
 * "Replay processes"). Its blocks come from malloc.
 *   print    prints to standard output as it goes (printf and write(1));
 *   fork     forks a child at creation that prints and keeps running (its
 *            pid written to $HR_ROGUE_PIDFILE when set);
 *   leak     leaks 16 MiB of touched memory per allocation, up to 3 GiB;
 *   overlap  from its 100th allocation on, hands back a block that is
 *            still live once, then aborts at the next allocation (a heap it
 *            has corrupted);
 *   scribble writes a line of garbage at creation on every descriptor from
 *            0 to 9 but stdout and stderr (the result pipe among them). */
typedef enum { ROGUE_PRINT, ROGUE_FORK, ROGUE_LEAK, ROGUE_OVERLAP, ROGUE_SCRIBBLE } rogue_mode_t;

#define ROGUE_LEAK_STEP ((size_t)16 << 20)
#define ROGUE_LEAK_MAX  ((size_t)3 << 30)
#define ROGUE_OVERLAP_AT 100

typedef struct hr_rogue {
    rogue_mode_t mode;
    long         n;       /* allocations so far */
    size_t       leaked;
    void        *last;    /* the last block handed out, while live */
    int          fired;   /* overlap: the live block went out */
} hr_rogue_t;

static void rogue_fork(void) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        printf("rogue child: still here\n");
        fflush(stdout);
        for (int i = 0; i < 300; i++)
            sleep(1);
        _exit(0);
    }
    const char *pf = getenv("HR_ROGUE_PIDFILE");
    FILE *f = pid > 0 && pf ? fopen(pf, "w") : NULL;
    if (f) {
        fprintf(f, "%d\n", (int)pid);
        fclose(f);
    }
}

static void *rogue_create(const hr_backend_config_t *cfg, hr_error_t *err) {
    static const char *const names[] = {"print", "fork", "leak", "overlap", "scribble"};
    const char *arg = cfg->arg ? cfg->arg : "";
    for (int m = 0; m < 5; m++)
        if (strcmp(arg, names[m]) == 0) {
            hr_rogue_t *r = calloc(1, sizeof *r);
            if (r && (r->mode = (rogue_mode_t)m) == ROGUE_FORK)
                rogue_fork();
            for (int fd = 0; r && m == ROGUE_SCRIBBLE && fd < 10; fd++) {
                ssize_t w = fd > 2 || fd == 0 ? write(fd, "}garbage{\n", 10) : 0;
                (void)w;
            }
            return r;
        }
    hr_error_set(err, "rogue: expected print, fork, leak, overlap or scribble, got '%s'", arg);
    return NULL;
}

static void *rogue_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)align, (void)heap;
    hr_rogue_t *r = self;
    r->n++;
    if (r->mode == ROGUE_PRINT && r->n % 1000 == 1) {
        printf("rogue: allocation %ld\n", r->n);
        ssize_t w = write(STDOUT_FILENO, "rogue: raw write\n", 17);
        (void)w;
    }
    if (r->mode == ROGUE_LEAK && r->leaked < ROGUE_LEAK_MAX) {
        void *p = mmap(NULL, ROGUE_LEAK_STEP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (p != MAP_FAILED) {
            memset(p, 0x5a, ROGUE_LEAK_STEP);
            r->leaked += ROGUE_LEAK_STEP;
        }
    }
    if (r->mode == ROGUE_OVERLAP && r->fired)
        abort();
    if (r->mode == ROGUE_OVERLAP && r->n >= ROGUE_OVERLAP_AT && r->last) {
        r->fired = 1;
        return r->last;
    }
    return r->last = malloc(size ? size : 1);
}

static void rogue_free(void *self, void *ptr, size_t size) {
    (void)size;
    hr_rogue_t *r = self;
    if (ptr == r->last)
        r->last = NULL;
    free(ptr);
}

const hr_backend_t hr_backend_rogue = {
    .name = "rogue",
    .description = "test only: misbehaves (rogue:print|fork|leak|overlap|scribble)",
    .caps = HR_CAP_TEST_ONLY, .create = rogue_create, .alloc = rogue_alloc,
    .free = rogue_free, .destroy = faulty_destroy,
};
