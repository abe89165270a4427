/* Internals of libheapreplay-capture.so shared by its files:
 * hooks.c (the interposed allocation functions and the bootstrap pool),
 * log.c (per-thread buffers, the output file, exit/fork handling),
 * process.c (_exit, exec, annotations), signals.c (the fatal-signal
 * flush, and the trampoline through which the program's handlers run) and
 * frames.c (frame marks at the present functions, capture --frames) and
 * stacks.c (call stacks and the module map, capture --stacks).
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

#include "base/rawlog.h"

#define HR_CAP_TLS __thread __attribute__((tls_model("initial-exec")))
#define HR_CAP_API __attribute__((visibility("default")))
#define HR_LIKELY(x) __builtin_expect(!!(x), 1)
#define HR_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Nonzero while this thread is inside a hook: nested allocations (from the
 * real allocator, dlsym, our own bookkeeping) pass through unrecorded. */
extern HR_CAP_TLS int hr_cap_guard;
/* Nonzero while events are being recorded (a file is open, not yet closed). */
extern volatile int hr_cap_recording;
/* Nonzero in a child process that only counts its allocation-family calls
 * (HEAPREPLAY_CAPTURE_CHILDREN=count, log.c): how `heapreplay capture` tells
 * that the program it traced was a launcher of the one that did the work. */
extern int hr_cap_counting;
extern _Atomic uint64_t hr_cap_counted;

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

/* Stripe of an address: one counter per 4 KiB page; the 8 counters of one
 * cache line cover 8 neighbouring pages (32 KiB, almost always one thread's
 * arena), and these 32 KiB chunks are hashed over the lines. Coarse on
 * purpose: a thread's working set of stripes stays in its own cache (a heap of
 * a few MiB needs a few hundred lines), so the CAS below hits a line the core
 * already owns instead of missing on a 2 MiB table (docs/CAPTURE.md). */
static inline _Atomic uint64_t *hr_cap_stripe(uint64_t addr) {
    uint64_t line = ((addr >> 15) * 0x9E3779B97F4A7C15ull) >> (64 - (HR_CAP_STRIPE_BITS - 3));
    return &hr_cap_stripes[(line << 3) | ((addr >> 12) & 7u)];
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

/* ---- the per-thread buffer (log.c owns it; the hooks append inline) ---- */
#define HR_BUF_BYTES (256u * 1024u) /* block header + records */
/* The overhead estimate (docs/CAPTURE.md "Overhead"): about one hook call in
 * 64 per thread is timed (hr_cap_span_t below). The gap to the next timed
 * call is drawn from HR_SAMPLE_GAP_MIN .. +63 (mean 63.5): a fixed "every
 * 64th" would, in a program that alternates malloc and free, time only one
 * of the two. */
#define HR_SAMPLE_GAP_MIN 32u
/* A timed call whose own part (the real allocator call left out) is longer
 * than this, in clock ticks (~30 us at 3 GHz, 100 us with the ns clock), was
 * interrupted (preempted, a long fault): not a sample. On a loaded machine
 * those would count other programs' time. */
#define HR_SAMPLE_MAX_CLK 100000u

typedef struct hr_tbuf {
    struct hr_tbuf *next;
    int in_use;
    uint32_t tid;
    _Atomic uint32_t len; /* bytes of whole records, including the block header */
    uint32_t nrecs;
    hr_cap_delta_t d; /* encoder state of the block being filled */
    uint64_t events;  /* records since the last flush */
    /* sampling (hr_cap_span_t): hook calls left before the next timed one,
     * the gap that ends there, the gap generator's state; the timed calls
     * of whole gaps since the last flush (hooks), their summed own ticks
     * (sample_clk) and how many were kept (samples) */
    uint32_t sample_left, gap;
    uint64_t rng, hooks, sample_clk, samples;
    unsigned char data[HR_BUF_BYTES];
} hr_tbuf_t;

extern HR_CAP_TLS hr_tbuf_t *hr_cap_tb; /* this thread's buffer (NULL: none yet) */
extern uint32_t hr_cap_buf_limit;       /* flush threshold */

/* log.c */
void hr_cap_log_init(void);   /* called once by the hooks after the real functions resolve */
/* Append one record for this thread. name/len: annotation name or NULL. */
void hr_cap_emit(uint64_t clk, unsigned op, uint64_t ptr, uint64_t a, uint64_t b,
                 const char *name, size_t len);
/* The same with the allocation's stack id (0: none). */
void hr_cap_emit_s(uint64_t clk, unsigned op, uint64_t ptr, uint64_t a, uint64_t b,
                   const char *name, size_t len, uint32_t stack);
/* Flush every buffer and write the END record; `how` is the END's b field:
 * 0 exit, 1 _exit, 2 exec, 128+N signal N. Recording stops afterwards,
 * except for exec (which only flushes: the exec may fail). */
void hr_cap_finish(unsigned how);
/* Writes buffer b as one block; reset: start it over. Async-signal-safe. */
void hr_cap_flush_buf(hr_tbuf_t *b, int reset);
/* This thread's kernel id (cached). Async-signal-safe. */
uint32_t hr_cap_tid(void);

/* signals.c: installs the library's flush-and-re-raise handler on the fatal
 * signals the program left at their default action. */
void hr_cap_install_signals(void);
/* Flushes this thread's signal-handler buffers (exit from inside a handler,
 * or a handler left by longjmp); release: also unmaps them (thread exit). */
void hr_cap_sig_flush(int release);

/* hooks.c: the page probe of large blocks (docs/CAPTURE.md); reads
 * HEAPREPLAY_CAPTURE_TOUCH. Called by hr_cap_log_init. */
void hr_cap_touch_init(void);

/* frames.c: reads HEAPREPLAY_CAPTURE_FRAMES (which present functions mark
 * frames). Called by hr_cap_log_init. */
void hr_cap_frames_init(void);

/* process.c and frames.c (hr_capture_frame): the annotation entry points (looked up by annotate.h with dlsym). */
HR_CAP_API void hr_capture_heap_push(const char *name);
HR_CAP_API void hr_capture_heap_pop(const char *name);
HR_CAP_API void hr_capture_mark(const char *name);
HR_CAP_API void hr_capture_frame(void);
HR_CAP_API void hr_capture_frame_named(const char *stream);
/* An engine's own allocators (annotate.h's hr_alloc_named & co.): a block of
 * `pool` at ptr, its release (before the engine reuses it), its move. */
HR_CAP_API void hr_capture_alloc_named(void *ptr, size_t size, const char *pool);
HR_CAP_API void hr_capture_free_named(void *ptr, const char *pool);
HR_CAP_API void hr_capture_realloc_named(void *old, void *ptr, size_t size, const char *pool);

/* stacks.c (capture --stacks): HEAPREPLAY_CAPTURE_STACKS=DEPTH. */
#define HR_CAP_STACK_MAX 128 /* deepest stack recorded */
extern int hr_cap_stack_depth;  /* 0: stacks off */
void hr_cap_stacks_init(void);  /* reads the environment; by hr_cap_log_init */
void hr_cap_stacks_start(void); /* a log starts: empty table, module map written */
/* The id of the calling allocation's stack (writing its STACK record, and
 * the MODULE records it needs, when new); 0 when it cannot be unwound.
 * Call inside a hook, with the guard raised. */
uint32_t hr_cap_stack_id(void);
/* The stack id for an allocation hook: 0 when stacks are off. */
static inline uint32_t hr_cap_site(void) {
    return HR_UNLIKELY(hr_cap_stack_depth) ? hr_cap_stack_id() : 0;
}

/* ---- the timed hook calls (docs/CAPTURE.md "Overhead") -------------------
 * A hook begins a span on entry (cancelled when it passes the call through
 * unrecorded), passes its real allocator call through HR_CAP_REAL and ends
 * the span before it returns.
 * When the thread's countdown runs out the span is timed: from begin to end,
 * less the real call, which is the library's own work on the program's
 * thread (the checks, the page probe, the stack, the clock and its stripe,
 * the record). Untimed spans cost a decrement and two untaken branches. */
typedef struct hr_cap_span {
    hr_tbuf_t *t; /* the thread's buffer at begin (NULL: none, or cancelled) */
    uint64_t t0;  /* the clock at begin; 0: not timed */
    uint64_t real;
} hr_cap_span_t;

static inline __attribute__((always_inline)) void hr_cap_span_begin(hr_cap_span_t *s) {
    hr_tbuf_t *t = hr_cap_tb;
    s->t = t;
    s->t0 = 0;
    if (HR_UNLIKELY(t && t->sample_left-- == 0)) {
        s->real = 0;
        s->t0 = hr_cap_phys();
    }
}

/* The hook passes the call through unrecorded after all (nested, not
 * recording, bootstrap): the countdown is given its call back, so only
 * recorded calls are counted and timed. Idempotent. */
static inline __attribute__((always_inline)) void hr_cap_span_cancel(hr_cap_span_t *s) {
    if (s->t)
        s->t->sample_left++;
    s->t = NULL;
    s->t0 = 0;
}

/* `call` (the real allocator call), timed when the span is. */
#define HR_CAP_REAL(s, call)                                                                       \
    do {                                                                                           \
        if (HR_UNLIKELY((s).t0 != 0)) {                                                            \
            uint64_t r0_ = hr_cap_phys();                                                          \
            call;                                                                                  \
            (s).real += hr_cap_phys() - r0_;                                                       \
        } else {                                                                                   \
            call;                                                                                  \
        }                                                                                          \
    } while (0)

/* log.c: keeps a timed span's sample and draws the next gap. */
void hr_cap_span_stop(const hr_cap_span_t *s);

static inline __attribute__((always_inline)) void hr_cap_span_end(const hr_cap_span_t *s) {
    if (HR_UNLIKELY(s->t0 != 0))
        hr_cap_span_stop(s);
}

/* log.c: the calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID), and
 * CPU time the library spent outside the timed spans (start-up), added to
 * its estimate. */
uint64_t hr_cap_cpu_ns(void);
void hr_cap_add_own_ns(uint64_t ns);
/* log.c: a buffer's sampling state for a fresh start (a new thread, a
 * signal handler's side buffer). */
void hr_cap_sampling_reset(hr_tbuf_t *b);

/* Records one allocation-family event (no name). The common case is encoded
 * right here into the thread's buffer; everything else (no buffer yet,
 * buffer full, not recording) goes through hr_cap_emit, which does the same
 * thing the slow way. */
static inline __attribute__((always_inline)) void hr_cap_record_s(uint64_t clk, unsigned op,
                                                                  uint64_t ptr, uint64_t a,
                                                                  uint64_t b, uint32_t stack) {
    hr_tbuf_t *t = hr_cap_tb;
    if (HR_LIKELY(t && hr_cap_recording)) {
        uint32_t at = atomic_load_explicit(&t->len, memory_order_relaxed);
        if (HR_LIKELY(at + HR_CAP_REC_MAX <= hr_cap_buf_limit)) {
            hr_cap_rec_t r = {clk, ptr, a, b, 0, (uint8_t)op, stack};
            at += (uint32_t)hr_cap_put_rec(t->data + at, &t->d, &r, NULL);
            t->nrecs++;
            t->events++;
            atomic_store_explicit(&t->len, at, memory_order_release);
            return;
        }
    }
    hr_cap_emit_s(clk, op, ptr, a, b, NULL, 0, stack);
}

/* The same without a stack (frees, TOUCHED records, stacks off). */
static inline __attribute__((always_inline)) void hr_cap_record(uint64_t clk, unsigned op,
                                                                uint64_t ptr, uint64_t a,
                                                                uint64_t b) {
    hr_cap_record_s(clk, op, ptr, a, b, 0);
}

#endif
