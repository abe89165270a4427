/* libheapreplay-capture.so, part 1: the interposed allocation functions.
 *
 * Each hook calls the next definition (dlsym(RTLD_NEXT)) and records one
 * event. Contracts:
 *  - Bootstrap: until the real functions are resolved (dlsym itself may call
 *    calloc/malloc), requests are served from a static bump pool; frees of pool
 *    pointers are ignored and realloc of one copies out of the pool.
 *  - Reentrancy: a thread-local guard makes nested calls (from the real
 *    allocator, dlsym, the log) pass through unrecorded. A signal handler
 *    that interrupts a hook is not nested: signals.c's trampoline clears the
 *    guard for it and gives it a buffer of its own, so it is recorded.
 *  - Ordering: a free takes its clock (hr_cap_tick) *before* the real free and
 *    an allocation *after* the real call returns, so a free always sorts
 *    before any reuse of its address by another thread (docs/CAPTURE.md).
 *  - Page probe (below): a block of usable size >= HR_CAP_TOUCH_MIN has its
 *    interior pages dropped right after the real call made it, and gets a
 *    TOUCHED record (the bytes the program used) right before the record of
 *    its free or realloc, measured before the real call.
 *  - malloc_usable_size passes through (pool pointers answer their size).
 *  - Stacks (capture --stacks, stacks.c): each allocation record carries the
 *    id of its call stack (hr_cap_site), unwound under the guard; frees and
 *    TOUCHED records carry none. */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h> /* memalign, pvalloc, malloc_usable_size */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h> /* madvise, mincore */
#include <unistd.h>

#include "capture/capture_int.h"

typedef void *(*hr_malloc_fn)(size_t);
typedef void (*hr_free_fn)(void *);
typedef void *(*hr_calloc_fn)(size_t, size_t);
typedef void *(*hr_realloc_fn)(void *, size_t);
typedef void *(*hr_memalign_fn)(size_t, size_t);
typedef int (*hr_pmemalign_fn)(void **, size_t, size_t);
typedef void *(*hr_valloc_fn)(size_t);
typedef size_t (*hr_usable_fn)(void *);

static struct {
    hr_malloc_fn malloc;
    hr_free_fn free;
    hr_calloc_fn calloc;
    hr_realloc_fn realloc;
    hr_memalign_fn memalign, aligned_alloc;
    hr_pmemalign_fn posix_memalign;
    hr_valloc_fn valloc, pvalloc;
    hr_usable_fn usable;
} real;

/* 0 = not started, 1 = resolving (serve from the pool), 2 = ready. */
static volatile int hr_state;
HR_CAP_TLS int hr_cap_guard;

/* ---- bootstrap pool --------------------------------------------------- */
#define HR_POOL_BYTES (256u * 1024u)
static _Alignas(64) unsigned char hr_pool[HR_POOL_BYTES];
static size_t hr_pool_used; /* guarded by atomics below */

static int pool_owns(const void *p) {
    return (const unsigned char *)p >= hr_pool && (const unsigned char *)p < hr_pool + HR_POOL_BYTES;
}

/* Bump allocation with a 16-byte size header before each block. */
static void *pool_alloc(size_t size, size_t align) {
    if (align < 16)
        align = 16;
    for (;;) {
        size_t used = __atomic_load_n(&hr_pool_used, __ATOMIC_RELAXED);
        size_t start = (used + 16 + align - 1) & ~(align - 1);
        if (start + size > HR_POOL_BYTES || start + size < start)
            return NULL;
        if (__atomic_compare_exchange_n(&hr_pool_used, &used, start + size, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            memcpy(hr_pool + start - sizeof(size_t), &size, sizeof size);
            return hr_pool + start;
        }
    }
}

static size_t pool_size(const void *p) {
    size_t s;
    memcpy(&s, (const unsigned char *)p - sizeof(size_t), sizeof s);
    return s;
}

/* ---- resolution ------------------------------------------------------- */
static void resolve(void) {
    int expected = 0;
    if (!__atomic_compare_exchange_n(&hr_state, &expected, 1, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return; /* another thread (or a nested call) is resolving */
    uint64_t c0 = hr_cap_cpu_ns(); /* the start-up's CPU time is the library's own */
    hr_cap_guard++;
    real.malloc = (hr_malloc_fn)dlsym(RTLD_NEXT, "malloc");
    real.free = (hr_free_fn)dlsym(RTLD_NEXT, "free");
    real.calloc = (hr_calloc_fn)dlsym(RTLD_NEXT, "calloc");
    real.realloc = (hr_realloc_fn)dlsym(RTLD_NEXT, "realloc");
    real.memalign = (hr_memalign_fn)dlsym(RTLD_NEXT, "memalign");
    real.aligned_alloc = (hr_memalign_fn)dlsym(RTLD_NEXT, "aligned_alloc");
    real.posix_memalign = (hr_pmemalign_fn)dlsym(RTLD_NEXT, "posix_memalign");
    real.valloc = (hr_valloc_fn)dlsym(RTLD_NEXT, "valloc");
    real.pvalloc = (hr_valloc_fn)dlsym(RTLD_NEXT, "pvalloc");
    real.usable = (hr_usable_fn)dlsym(RTLD_NEXT, "malloc_usable_size");
    hr_cap_guard--;
    if (!real.malloc || !real.free || !real.calloc || !real.realloc || !real.memalign) {
        static const char msg[] = "libheapreplay-capture: cannot resolve the real malloc\n";
        ssize_t r = write(2, msg, sizeof msg - 1);
        (void)r;
        _exit(127);
    }
    __atomic_store_n(&hr_state, 2, __ATOMIC_RELEASE);
    hr_cap_log_init();
    hr_cap_add_own_ns(hr_cap_cpu_ns() - c0);
}

/* True when the hook must not record: not ready, nested, or not recording. */
static inline int bypass(void) {
    if (HR_UNLIKELY(__atomic_load_n(&hr_state, __ATOMIC_ACQUIRE) != 2)) {
        resolve();
        if (__atomic_load_n(&hr_state, __ATOMIC_ACQUIRE) != 2)
            return 2; /* still bootstrapping: use the pool */
    }
    int b = hr_cap_guard || !hr_cap_recording;
    /* a child that only counts (log.c): the program's own calls, not nested ones */
    if (HR_UNLIKELY(b && hr_cap_counting) && !hr_cap_guard)
        atomic_fetch_add_explicit(&hr_cap_counted, 1, memory_order_relaxed);
    return b;
}

__attribute__((constructor(101))) static void hr_cap_ctor(void) {
    if (__atomic_load_n(&hr_state, __ATOMIC_ACQUIRE) == 0)
        resolve();
}

/* ---- the page probe ---------------------------------------------------
 * Measures how much of each large block the program used (docs/CAPTURE.md,
 * "How much of a large block was used"; the trace's `touched` records).
 * For a block whose usable size is at least HR_CAP_TOUCH_MIN:
 *  - when the allocator hands it out, the whole pages inside it (its
 *    "interior") are dropped with madvise(MADV_DONTNEED), so none of them is
 *    resident unless the program then reads or writes it. This is safe for the
 *    private anonymous memory allocators use: a new block's content is
 *    undefined, a calloc'd block stays zero (the kernel refills a dropped page
 *    with zeros), and a realloc only drops the pages beyond the bytes it kept;
 *  - when the block ends (free, realloc), mincore counts the interior pages
 *    that are resident: those the program touched. The bytes used are that
 *    count times the page size plus the partial head page (the block's start
 *    up to the first page boundary, which holds the allocator's header and is
 *    resident anyway).
 * Nothing here allocates: mincore's vector is a fixed stack buffer walked in
 * chunks. Both calls keep errno as the program left it.
 * HEAPREPLAY_CAPTURE_TOUCH=0 turns the probe off (no madvise, no records). */
static int hr_cap_touch_on;       /* 0 with HEAPREPLAY_CAPTURE_TOUCH=0 */
static uintptr_t hr_cap_page = 4096; /* the page size */

/* mincore's vector per call: 256 pages (1 MiB with 4 KiB pages). */
#define HR_MINCORE_CHUNK 256u

/* Reads the environment; called by hr_cap_log_init (before any recording). */
void hr_cap_touch_init(void) {
    const char *v = getenv("HEAPREPLAY_CAPTURE_TOUCH");
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0 && !(ps & (ps - 1)))
        hr_cap_page = (uintptr_t)ps;
    hr_cap_touch_on = !(v && strcmp(v, "0") == 0);
}

/* The whole pages inside [p + from, p + usable): [*lo, *hi), maybe empty. */
static void interior(const void *p, size_t from, size_t usable, uintptr_t *lo, uintptr_t *hi) {
    uintptr_t a = (uintptr_t)p + from, e = (uintptr_t)p + usable;
    *lo = (a + hr_cap_page - 1) & ~(hr_cap_page - 1);
    *hi = e & ~(hr_cap_page - 1);
    if (*hi < *lo)
        *hi = *lo;
}

/* Drops the whole pages of [p + from, p + usable) (a new block's, beyond the
 * `from` bytes a realloc kept) when usable >= HR_CAP_TOUCH_MIN. */
static void touch_clear(void *p, size_t from, size_t usable) {
    uintptr_t lo, hi;
    if (usable < HR_CAP_TOUCH_MIN || from >= usable)
        return;
    interior(p, from, usable, &lo, &hi);
    if (hi > lo) {
        int saved = errno;
        madvise((void *)lo, hi - lo, MADV_DONTNEED); /* a failure only overstates use */
        errno = saved;
    }
}

/* Bytes of the block used: the partial head page + resident whole pages x
 * page size; UINT64_MAX when mincore fails (then no record is written). */
static uint64_t touch_measure(const void *p, size_t usable) {
    uintptr_t lo, hi;
    interior(p, 0, usable, &lo, &hi);
    uint64_t resident = 0;
    unsigned char vec[HR_MINCORE_CHUNK];
    int saved = errno;
    for (uintptr_t at = lo; at < hi;) {
        uintptr_t n = (hi - at) / hr_cap_page;
        if (n > HR_MINCORE_CHUNK)
            n = HR_MINCORE_CHUNK;
        if (mincore((void *)at, n * hr_cap_page, vec) != 0) {
            errno = saved;
            return UINT64_MAX; /* not mapped as we expected: no record */
        }
        for (uintptr_t i = 0; i < n; i++)
            resident += vec[i] & 1u;
        at += n * hr_cap_page;
    }
    errno = saved;
    return (uint64_t)(lo - (uintptr_t)p) + resident * hr_cap_page;
}

/* The live large blocks (usable size >= HR_CAP_TOUCH_MIN) the probe cleared,
 * so that a free asks the allocator for the usable size only of those:
 * asking it on every free (malloc_usable_size) cost as much as the rest of
 * the hook. A fixed open-addressing set without locks (0: empty, 1: a
 * removed entry); an address is added by the thread that got the block
 * before the program has it, so its free cannot race the add. When an add
 * finds no slot within HR_BIG_PROBES, every free asks again (big_full). */
#define HR_BIG_SLOTS 8192u
#define HR_BIG_PROBES 64u
static _Atomic uintptr_t hr_big[HR_BIG_SLOTS];
static _Atomic long hr_big_live;
static _Atomic int hr_big_full;

static inline size_t big_slot(uintptr_t p, unsigned i) {
    return ((size_t)(((p >> 4) * 0x9E3779B97F4A7C15ull) >> 40) + i) & (HR_BIG_SLOTS - 1);
}

static void big_add(uintptr_t p) {
    for (unsigned i = 0; i < HR_BIG_PROBES; i++) {
        _Atomic uintptr_t *s = &hr_big[big_slot(p, i)];
        uintptr_t cur = atomic_load_explicit(s, memory_order_relaxed);
        if (cur == p)
            return; /* the same address again (a realloc in place) */
        if (cur <= 1 && atomic_compare_exchange_strong(s, &cur, p)) {
            atomic_fetch_add(&hr_big_live, 1);
            return;
        }
    }
    atomic_store(&hr_big_full, 1);
}

/* 1 when p may be a large block (then removed from the set): the free must
 * measure it; 0 when it is not one. */
static inline int big_take(uintptr_t p) {
    if (HR_LIKELY(atomic_load_explicit(&hr_big_live, memory_order_relaxed) == 0))
        return atomic_load_explicit(&hr_big_full, memory_order_relaxed);
    for (unsigned i = 0; i < HR_BIG_PROBES; i++) {
        _Atomic uintptr_t *s = &hr_big[big_slot(p, i)];
        uintptr_t cur = atomic_load_explicit(s, memory_order_relaxed);
        if (cur == p && atomic_compare_exchange_strong(s, &cur, (uintptr_t)1)) {
            atomic_fetch_sub(&hr_big_live, 1);
            return 1;
        }
        if (cur == 0)
            break;
    }
    return atomic_load_explicit(&hr_big_full, memory_order_relaxed);
}

/* A new block p of `size` requested bytes, of which a realloc kept the first
 * `kept`: drops the pages beyond them when the block is large. A request below
 * half the threshold is not asked its usable size: no allocator rounds a
 * request up by 2x (their size classes are far closer), so it stays small. */
static inline void touch_new(void *p, size_t size, size_t kept) {
    if (HR_UNLIKELY(hr_cap_touch_on) && p && size >= HR_CAP_TOUCH_MIN / 2 && real.usable) {
        size_t u = real.usable(p);
        if (u >= HR_CAP_TOUCH_MIN)
            big_add((uintptr_t)p);
        touch_clear(p, kept, u);
    }
}

/* The block p ends (free, or realloc before the real call): writes its
 * TOUCHED record when it is large, with clock clk (0: a new tick). Returns
 * its usable size (0 when the probe is off). */
static size_t touch_end(void *p, uint64_t clk) {
    if (!hr_cap_touch_on || !real.usable)
        return 0;
    big_take((uintptr_t)p); /* a realloc asks in any case: it needs the kept bytes */
    size_t u = real.usable(p);
    if (u >= HR_CAP_TOUCH_MIN) {
        uint64_t used = touch_measure(p, u);
        if (used != UINT64_MAX)
            hr_cap_record(clk ? clk : hr_cap_tick((uintptr_t)p), HR_CAP_TOUCHED, (uintptr_t)p,
                          used, 0);
    }
    return u;
}

/* ---- the hooks -------------------------------------------------------- */
HR_CAP_API void *malloc(size_t size) {
    hr_cap_span_t sp;
    hr_cap_span_begin(&sp); /* first: the checks in bypass are the library's time too */
    int b = bypass();
    if (b)
        hr_cap_span_cancel(&sp);
    if (b == 2)
        return pool_alloc(size, 16);
    if (b)
        return real.malloc(size);
    hr_cap_guard++;
    void *p;
    HR_CAP_REAL(sp, p = real.malloc(size));
    touch_new(p, size, 0);
    uint32_t st = hr_cap_site(); /* first: it may write records of its own */
    hr_cap_record_s(hr_cap_tick((uintptr_t)p), HR_CAP_MALLOC, (uintptr_t)p, size, 0, st);
    hr_cap_guard--;
    hr_cap_span_end(&sp);
    return p;
}

HR_CAP_API void free(void *p) {
    if (!p || pool_owns(p))
        return; /* free(NULL) is not an event; pool blocks are never reused */
    hr_cap_span_t sp;
    hr_cap_span_begin(&sp); /* first: the checks in bypass are the library's time too */
    int b = bypass();
    if (b)
        hr_cap_span_cancel(&sp);
    if (b == 2)
        return; /* cannot happen for a real pointer before resolution; leak */
    if (b) {
        real.free(p);
        return;
    }
    hr_cap_guard++;
    if (HR_UNLIKELY(hr_cap_touch_on) && big_take((uintptr_t)p))
        touch_end(p, 0);
    hr_cap_record(hr_cap_tick((uintptr_t)p), HR_CAP_FREE, (uintptr_t)p, 0, 0);
    HR_CAP_REAL(sp, real.free(p));
    hr_cap_guard--;
    hr_cap_span_end(&sp);
}

HR_CAP_API void *calloc(size_t n, size_t size) {
    hr_cap_span_t sp;
    hr_cap_span_begin(&sp); /* first: the checks in bypass are the library's time too */
    int b = bypass();
    if (b)
        hr_cap_span_cancel(&sp);
    if (b == 2) {
        if (size && n > SIZE_MAX / size)
            return NULL;
        return pool_alloc(n * size, 16); /* static pool: already zero */
    }
    if (b)
        return real.calloc(n, size);
    hr_cap_guard++;
    void *p;
    HR_CAP_REAL(sp, p = real.calloc(n, size));
    if (p) /* no overflow: the real calloc succeeded */
        touch_new(p, n * size, 0);
    uint32_t st = hr_cap_site(); /* first: it may write records of its own */
    hr_cap_record_s(hr_cap_tick((uintptr_t)p), HR_CAP_CALLOC, (uintptr_t)p, n, size, st);
    hr_cap_guard--;
    hr_cap_span_end(&sp);
    return p;
}

HR_CAP_API void *realloc(void *old, size_t size) {
    hr_cap_span_t sp;
    hr_cap_span_begin(&sp); /* first: the checks in bypass are the library's time too */
    int b = bypass();
    if (b)
        hr_cap_span_cancel(&sp);
    if (pool_owns(old) || b == 2) {
        hr_cap_span_cancel(&sp);
        void *p = b == 2 ? pool_alloc(size, 16) : malloc(size);
        if (p && old) {
            size_t o = pool_owns(old) ? pool_size(old) : size;
            memcpy(p, old, o < size ? o : size);
        }
        return p; /* the pool block itself is never freed */
    }
    if (b)
        return real.realloc(old, size);
    hr_cap_guard++;
    size_t kept = 0; /* the old block's usable size (when the probe is on) */
    if (old) {
        /* publish to old's stripe before it can be freed; the old block's
         * TOUCHED record takes this clock */
        uint64_t c = hr_cap_tick((uintptr_t)old);
        if (HR_UNLIKELY(hr_cap_touch_on))
            kept = touch_end(old, c);
    }
    void *p;
    HR_CAP_REAL(sp, p = real.realloc(old, size));
    touch_new(p, size, kept < size ? kept : size);
    uint32_t st = hr_cap_site(); /* first: it may write records of its own */
    hr_cap_record_s(hr_cap_tick((uintptr_t)p), HR_CAP_REALLOC, (uintptr_t)p, (uintptr_t)old, size,
                    st);
    hr_cap_guard--;
    hr_cap_span_end(&sp);
    return p;
}

HR_CAP_API void *reallocarray(void *old, size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(old, n * size);
}

/* memalign-family: `kind` selects the real function; all record MEMALIGN. */
enum { K_MEMALIGN, K_ALIGNED, K_VALLOC, K_PVALLOC };

/* The real call of `kind`; valloc and pvalloc set *align to the page, and
 * pvalloc *size to the whole pages it gives. */
static void *aligned_real(int kind, size_t *align, size_t *size, size_t page) {
    switch (kind) {
    case K_ALIGNED:
        return real.aligned_alloc ? real.aligned_alloc(*align, *size) : real.memalign(*align, *size);
    case K_VALLOC: *align = page; return real.valloc(*size);
    case K_PVALLOC: {
        void *p = real.pvalloc(*size);
        *align = page;
        *size = *size ? (*size + page - 1) & ~(page - 1) : page;
        return p;
    }
    default: return real.memalign(*align, *size);
    }
}

static void *aligned_common(int kind, size_t align, size_t size) {
    hr_cap_span_t sp;
    hr_cap_span_begin(&sp); /* first: the checks in bypass are the library's time too */
    int b = bypass();
    if (b)
        hr_cap_span_cancel(&sp);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (b == 2)
        return pool_alloc(kind == K_PVALLOC ? (size + page - 1) & ~(page - 1) : size,
                          kind >= K_VALLOC ? page : align);
    void *p;
    hr_cap_guard++;
    HR_CAP_REAL(sp, p = aligned_real(kind, &align, &size, page));
    if (!b) {
        touch_new(p, size, 0);
        uint32_t st = hr_cap_site(); /* first: it may write records of its own */
        hr_cap_record_s(hr_cap_tick((uintptr_t)p), HR_CAP_MEMALIGN, (uintptr_t)p, size, align, st);
    }
    hr_cap_guard--;
    hr_cap_span_end(&sp);
    return p;
}

HR_CAP_API void *memalign(size_t align, size_t size) { return aligned_common(K_MEMALIGN, align, size); }
HR_CAP_API void *aligned_alloc(size_t align, size_t size) { return aligned_common(K_ALIGNED, align, size); }
HR_CAP_API void *valloc(size_t size) { return aligned_common(K_VALLOC, 0, size); }
HR_CAP_API void *pvalloc(size_t size) { return aligned_common(K_PVALLOC, 0, size); }

HR_CAP_API int posix_memalign(void **out, size_t align, size_t size) {
    hr_cap_span_t sp;
    hr_cap_span_begin(&sp); /* first: the checks in bypass are the library's time too */
    int b = bypass();
    if (b)
        hr_cap_span_cancel(&sp);
    if (b == 2) {
        *out = pool_alloc(size, align);
        return *out ? 0 : ENOMEM;
    }
    if (b)
        return real.posix_memalign(out, align, size);
    hr_cap_guard++;
    int rc;
    HR_CAP_REAL(sp, rc = real.posix_memalign(out, align, size));
    uintptr_t p = rc == 0 ? (uintptr_t)*out : 0;
    touch_new((void *)p, size, 0);
    uint32_t st = hr_cap_site(); /* first: it may write records of its own */
    hr_cap_record_s(hr_cap_tick(p), HR_CAP_MEMALIGN, p, size, align, st);
    hr_cap_guard--;
    hr_cap_span_end(&sp);
    return rc;
}

HR_CAP_API size_t malloc_usable_size(void *p) {
    if (!p)
        return 0;
    if (pool_owns(p))
        return pool_size(p);
    if (bypass() == 2 || !real.usable)
        return 0;
    return real.usable(p);
}
