/* spin_shim.so: a malloc replacement that is the next allocator plus a fixed
 * amount of extra work per call, for bench/power/power.sh: preloaded as the
 * allocator under test (`heapreplay replay -a preload:.../spin_shim.so`), it
 * injects a known slowdown that compare must detect.
 *
 * Contract:
 * - malloc, free, calloc, realloc, posix_memalign, aligned_alloc and memalign
 *   forward to the next definition (dlsym(RTLD_NEXT, ...): glibc when the shim
 *   is preloaded alone), after spinning. Because the shim defines `malloc`,
 *   heapreplay's worker finds it (dladdr) as the provider and accepts it.
 * - The spin is a loop of a fixed iteration count per call, so it costs CPU
 *   time (the ranking figure), not wall time. The count comes from
 *   $SPIN_ITERS when set, else from $SPIN_NS (nanoseconds per call; 0 or unset
 *   = no spin) converted with a calibration of the loop at the first call
 *   (fastest of several timed bursts of thread CPU time, a few ms). Calibration
 *   varies a little between processes; pass SPIN_ITERS for an exact count.
 *   SPIN_DEBUG=1 prints the iteration count on stderr at the first call.
 *   SPIN_ONLY=TEXT spins only in a copy of the shim whose file path contains
 *   TEXT (others forward without spinning): two copies in one replay,
 *   `-a preload:a/spin_shim.so,preload:b/spin_shim.so`, are then an
 *   unchanged and a slowed build under one environment (bench/gates).
 * - Allocations made while dlsym resolves the next functions (it may allocate)
 *   are served from a small static buffer; free ignores them and realloc
 *   moves them. Nothing else differs from the next allocator. */
#include <dlfcn.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define HR_SPIN_EXPORT __attribute__((visibility("default")))

static void *(*hr_next_malloc)(size_t);
static void (*hr_next_free)(void *);
static void *(*hr_next_calloc)(size_t, size_t);
static void *(*hr_next_realloc)(void *, size_t);
static int (*hr_next_posix_memalign)(void **, size_t, size_t);
static void *(*hr_next_aligned_alloc)(size_t, size_t);
static void *(*hr_next_memalign)(size_t, size_t);

static uint64_t hr_spin_iters;
static int hr_spin_ready, hr_spin_resolving;

/* The bootstrap buffer for allocations made during dlsym. */
static _Alignas(16) char hr_boot[8192];
static size_t hr_boot_used;

static int hr_is_boot(const void *p) {
    return (const char *)p >= hr_boot && (const char *)p < hr_boot + sizeof hr_boot;
}

static void *hr_boot_alloc(size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (size > sizeof hr_boot - hr_boot_used)
        return NULL;
    void *p = hr_boot + hr_boot_used;
    hr_boot_used += size;
    return p; /* static storage: already zero, as calloc needs */
}

/* n iterations of an empty loop the compiler must keep (the asm statement). */
static void hr_spin_loop(uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        __asm__ __volatile__("" ::: "memory");
}

static uint64_t hr_thread_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Loop iterations per nanosecond: the fastest of 7 bursts of 2^19 iterations
 * (the fastest is the one least disturbed by preemption or interrupts). */
static double hr_spin_calibrate(void) {
    const uint64_t n = 1u << 19;
    uint64_t best = UINT64_MAX;
    for (int k = 0; k < 7; k++) {
        uint64_t t0 = hr_thread_ns();
        hr_spin_loop(n);
        uint64_t d = hr_thread_ns() - t0;
        if (d > 0 && d < best)
            best = d;
    }
    return best == UINT64_MAX ? 1.0 : (double)n / (double)best;
}

static void hr_spin_init(void) {
    hr_spin_resolving = 1;
    hr_next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    hr_next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    hr_next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    hr_next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    hr_next_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    hr_next_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    hr_next_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    hr_spin_resolving = 0;
    const char *it = getenv("SPIN_ITERS"), *ns = getenv("SPIN_NS");
    if (it && *it) {
        hr_spin_iters = strtoull(it, NULL, 10);
    } else if (ns && *ns) {
        double v = strtod(ns, NULL);
        if (v > 0)
            hr_spin_iters = (uint64_t)(v * hr_spin_calibrate() + 0.5);
    }
    const char *only = getenv("SPIN_ONLY");
    Dl_info self;
    if (only && *only &&
        (!dladdr((void *)hr_spin_init, &self) || !self.dli_fname || !strstr(self.dli_fname, only)))
        hr_spin_iters = 0;
    hr_spin_ready = 1;
    const char *dbg = getenv("SPIN_DEBUG");
    if (dbg && *dbg == '1') {
        /* No stdio: it would allocate through this very shim. */
        char line[96];
        int n = snprintf(line, sizeof line, "spin_shim: %llu loop iterations per call\n",
                         (unsigned long long)hr_spin_iters);
        if (n > 0) {
            ssize_t w = write(2, line, (size_t)n); /* best effort */
            (void)w;
        }
    }
}

/* Resolves on first use (a constructor could run after other libraries'
 * constructors have already allocated) and spins. 0 while resolving. */
static inline int hr_spin_enter(void) {
    if (__builtin_expect(!hr_spin_ready, 0)) {
        if (hr_spin_resolving)
            return 0;
        hr_spin_init();
    }
    hr_spin_loop(hr_spin_iters);
    return 1;
}

HR_SPIN_EXPORT void *malloc(size_t size) {
    if (!hr_spin_enter())
        return hr_boot_alloc(size);
    return hr_next_malloc(size);
}

HR_SPIN_EXPORT void free(void *p) {
    if (!p || hr_is_boot(p))
        return;
    if (!hr_spin_enter())
        return;
    hr_next_free(p);
}

HR_SPIN_EXPORT void *calloc(size_t n, size_t size) {
    if (!hr_spin_enter())
        return size && n > SIZE_MAX / size ? NULL : hr_boot_alloc(n * size);
    return hr_next_calloc(n, size);
}

HR_SPIN_EXPORT void *realloc(void *p, size_t size) {
    if (hr_is_boot(p)) {
        /* Move out of the bootstrap buffer; its blocks' sizes are not kept,
         * so copy what the buffer can hold past p. */
        void *q = malloc(size);
        size_t room = (size_t)(hr_boot + sizeof hr_boot - (char *)p);
        if (q)
            memcpy(q, p, size < room ? size : room);
        return q;
    }
    if (!hr_spin_enter())
        return NULL;
    return hr_next_realloc(p, size);
}

HR_SPIN_EXPORT int posix_memalign(void **out, size_t align, size_t size) {
    if (!hr_spin_enter())
        return 12; /* ENOMEM: no aligned bootstrap allocations are needed */
    return hr_next_posix_memalign(out, align, size);
}

HR_SPIN_EXPORT void *aligned_alloc(size_t align, size_t size) {
    if (!hr_spin_enter())
        return NULL;
    return hr_next_aligned_alloc(align, size);
}

HR_SPIN_EXPORT void *memalign(size_t align, size_t size) {
    if (!hr_spin_enter())
        return NULL;
    return hr_next_memalign(align, size);
}
