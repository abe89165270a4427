/* Internals of libheapreplay-capture.so shared by its files:
 * hooks.c (the interposed allocation functions and the bootstrap pool),
 * log.c (per-thread buffers, the output file, exit/fork/signal handling) and
 * process.c (_exit, exec, annotations).
 * Nothing here may call malloc: the log uses mmap'd buffers and raw syscalls. */
#ifndef HR_CAPTURE_INT_H
#define HR_CAPTURE_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HR_CAP_HAVE_TSC 1
#else
#define HR_CAP_HAVE_TSC 0
#endif

#include "capture/rawlog.h"

#define HR_CAP_TLS __thread __attribute__((tls_model("initial-exec")))
#define HR_CAP_API __attribute__((visibility("default")))
#define HR_LIKELY(x) __builtin_expect(!!(x), 1)
#define HR_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Nonzero while this thread is inside a hook: nested allocations (from the
 * real allocator, dlsym, our own bookkeeping) pass through unrecorded. */
extern HR_CAP_TLS int hr_cap_guard;
/* Nonzero while events are being recorded (a file is open, not yet closed). */
extern volatile int hr_cap_recording;

/* ---- the event clock (docs/CAPTURE.md "Ordering") ------------------------
 * A hybrid logical clock: clk = max(physical clock, this thread's last clk + 1,
 * the address stripe's clk + 1), then the stripe is raised to clk. Every event
 * on an address reads and raises that address's stripe, so an event that
 * happens after another event on the same address (free -> reuse by another
 * thread, alloc -> free by another thread) always gets a larger clock; the
 * physical part keeps unrelated threads' clocks close to real time. */
#define HR_CAP_STRIPE_BITS 18
extern _Atomic uint64_t hr_cap_stripes[1u << HR_CAP_STRIPE_BITS];
extern HR_CAP_TLS uint64_t hr_cap_lclk; /* this thread's last clock */

static inline uint64_t hr_cap_phys(void) {
#if HR_CAP_HAVE_TSC
    return __rdtsc();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* Stripe of an address: the 8 counters of one cache line cover one 512-byte
 * chunk (a thread's neighbouring blocks share a line); chunks are hashed over
 * the lines so that different threads' heaps rarely share one. */
static inline _Atomic uint64_t *hr_cap_stripe(uint64_t addr) {
    uint64_t line = ((addr >> 9) * 0x9E3779B97F4A7C15ull) >> (64 - (HR_CAP_STRIPE_BITS - 3));
    return &hr_cap_stripes[(line << 3) | ((addr >> 6) & 7u)];
}

/* Takes the next clock of this thread for an event on `addr` (0: none). For a
 * free, call it before the real free; for an allocation, after the real call. */
static inline uint64_t hr_cap_tick(uint64_t addr) {
    uint64_t c = hr_cap_phys(), l = hr_cap_lclk + 1;
    if (c < l)
        c = l;
    if (addr) {
        _Atomic uint64_t *s = hr_cap_stripe(addr);
        uint64_t cur = atomic_load_explicit(s, memory_order_acquire);
        do {
            if (c <= cur)
                c = cur + 1;
        } while (!atomic_compare_exchange_weak_explicit(s, &cur, c, memory_order_acq_rel,
                                                        memory_order_acquire));
    }
    hr_cap_lclk = c;
    return c;
}

/* log.c */
void hr_cap_log_init(void);   /* called once by the hooks after the real functions resolve */
/* Append one record for this thread. name/len: annotation name or NULL. */
void hr_cap_emit(uint64_t clk, unsigned op, uint64_t ptr, uint64_t a, uint64_t b,
                 const char *name, size_t len);
/* Flush every buffer and write the END record; `how` is the END's b field:
 * 0 exit, 1 _exit, 2 exec, 128+N signal N. Recording stops afterwards,
 * except for exec (which only flushes: the exec may fail). */
void hr_cap_finish(unsigned how);

#endif
