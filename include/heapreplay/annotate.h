/* heapreplay annotation API: tell a capture which heap allocations belong to,
 * where frames end, and where interesting moments are.
 *
 *   hr_heap_push("level");  ... allocations ...  hr_heap_pop("level");
 *   hr_frame();             once per game frame
 *   hr_frame_named("physics");  once per frame of another frame stream
 *   hr_mark("boss-fight");  a named point in the trace
 *   HR_HEAP_SCOPE("level"); C++: push now, pop at the end of the scope
 *
 * An engine's own allocators (pools, arenas, frame allocators) are invisible
 * to a malloc hook: their blocks come out of memory the engine already holds.
 * Report them, and they become their own allocation streams in the trace:
 *   p = my_pool_alloc(&particles, 64);  hr_alloc_named(p, 64, "Particles");
 *   hr_free_named(p, "Particles");      my_pool_free(&particles, p);
 *   q = my_pool_realloc(&particles, p, 128);
 *                                       hr_realloc_named(p, q, 128, "Particles");
 * Call hr_free_named before the block can be handed out again (as free()
 * would), hr_alloc_named / hr_realloc_named after the block exists. `heapreplay
 * info` lists the pools by name; `heapreplay replay` replays them as plain
 * malloc by default, or on an allocator of your choice (--pool NAME=ALLOC).
 *
 * Header-only, no library to link. Each function looks its hook up once with
 * dlsym(RTLD_DEFAULT, "hr_capture_...") and caches the result per translation
 * unit: when libheapreplay-capture.so is not preloaded the lookup fails once
 * and every later call is one load and one compare. When it is preloaded the
 * event is recorded in the calling thread's buffer (heap_push / heap_pop /
 * mark carry the name, frame a per-process counter from 1).
 * Link with -ldl on glibc older than 2.34 (dlsym moved into libc there).
 * Names are copied; at most 32 KiB of a name is kept.
 *
 * Compiles warning-free as C99, C11 and C17 with -pedantic -Wall -Wextra and
 * as C++11 and later (tested: tests/capture/annotate_*.c*). Define
 * HR_ANNOTATE_DISABLE before including it (or with -DHR_ANNOTATE_DISABLE) and
 * every hook is an empty inline function: no dlsym, no <dlfcn.h>, nothing
 * left in an optimised build. */
#ifndef HEAPREPLAY_ANNOTATE_H
#define HEAPREPLAY_ANNOTATE_H

#define HEAPREPLAY_ANNOTATE_VERSION 2 /* 2: HR_ANNOTATE_DISABLE, HR_HEAP_SCOPE, pools */

#include <stddef.h>

#ifndef HR_ANNOTATE_DISABLE
#include <dlfcn.h>
#include <string.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef HR_ANNOTATE_DISABLE

static inline void hr_heap_push(const char *name) { (void)name; }
static inline void hr_heap_pop(const char *name) { (void)name; }
static inline void hr_mark(const char *name) { (void)name; }
static inline void hr_frame(void) {}
static inline void hr_frame_named(const char *stream) { (void)stream; }
static inline void hr_alloc_named(void *ptr, size_t size, const char *pool) {
    (void)ptr, (void)size, (void)pool;
}
static inline void hr_free_named(void *ptr, const char *pool) { (void)ptr, (void)pool; }
static inline void hr_realloc_named(void *old, void *ptr, size_t size, const char *pool) {
    (void)old, (void)ptr, (void)size, (void)pool;
}

#else

#ifdef RTLD_DEFAULT
#define HR_ANNOTATE_DEFAULT_HANDLE_ RTLD_DEFAULT
#else
#define HR_ANNOTATE_DEFAULT_HANDLE_ ((void *)0) /* glibc's RTLD_DEFAULT without _GNU_SOURCE */
#endif

/* The cached hook: NULL = not looked up yet, &hr_annotate_absent_ = absent. */
static char hr_annotate_absent_;

static inline void *hr_annotate_lookup_(void **cache, const char *sym) {
    void *f = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (__builtin_expect(f == 0, 0)) {
        f = dlsym(HR_ANNOTATE_DEFAULT_HANDLE_, sym);
        if (!f)
            f = &hr_annotate_absent_;
        __atomic_store_n(cache, f, __ATOMIC_RELAXED);
    }
    return f == (void *)&hr_annotate_absent_ ? (void *)0 : f;
}

/* dlsym returns an object pointer; ISO C has no conversion to a function
 * pointer, POSIX guarantees the representation: copy the bytes. */
typedef void (*hr_annotate_str_fn_)(const char *);
typedef void (*hr_annotate_void_fn_)(void);
typedef void (*hr_annotate_alloc_fn_)(void *, size_t, const char *);
typedef void (*hr_annotate_free_fn_)(void *, const char *);
typedef void (*hr_annotate_realloc_fn_)(void *, void *, size_t, const char *);

static inline void hr_annotate_str_(void **cache, const char *sym, const char *arg) {
    void *f = hr_annotate_lookup_(cache, sym);
    hr_annotate_str_fn_ fn;
    if (f) {
        memcpy(&fn, &f, sizeof fn);
        fn(arg);
    }
}

static inline void hr_heap_push(const char *name) {
    static void *hook;
    hr_annotate_str_(&hook, "hr_capture_heap_push", name);
}

static inline void hr_heap_pop(const char *name) {
    static void *hook;
    hr_annotate_str_(&hook, "hr_capture_heap_pop", name);
}

static inline void hr_mark(const char *name) {
    static void *hook;
    hr_annotate_str_(&hook, "hr_capture_mark", name);
}

/* A frame of the named stream (render, physics, audio ...): its own counter,
 * apart from hr_frame()'s main stream, which replay measures frames by. */
static inline void hr_frame_named(const char *stream) {
    static void *hook;
    hr_annotate_str_(&hook, "hr_capture_frame_named", stream);
}

static inline void hr_frame(void) {
    static void *hook;
    void *f = hr_annotate_lookup_(&hook, "hr_capture_frame");
    hr_annotate_void_fn_ fn;
    if (f) {
        memcpy(&fn, &f, sizeof fn);
        fn();
    }
}

/* A block of the engine's allocator `pool` now exists at ptr. */
static inline void hr_alloc_named(void *ptr, size_t size, const char *pool) {
    static void *hook;
    void *f = hr_annotate_lookup_(&hook, "hr_capture_alloc_named");
    hr_annotate_alloc_fn_ fn;
    if (f) {
        memcpy(&fn, &f, sizeof fn);
        fn(ptr, size, pool);
    }
}

/* The block at ptr goes back to `pool` (call before it can be reused). */
static inline void hr_free_named(void *ptr, const char *pool) {
    static void *hook;
    void *f = hr_annotate_lookup_(&hook, "hr_capture_free_named");
    hr_annotate_free_fn_ fn;
    if (f) {
        memcpy(&fn, &f, sizeof fn);
        fn(ptr, pool);
    }
}

/* The pool block at old now lives at ptr with size bytes (it keeps its pool). */
static inline void hr_realloc_named(void *old, void *ptr, size_t size, const char *pool) {
    static void *hook;
    void *f = hr_annotate_lookup_(&hook, "hr_capture_realloc_named");
    hr_annotate_realloc_fn_ fn;
    if (f) {
        memcpy(&fn, &f, sizeof fn);
        fn(old, ptr, size, pool);
    }
}

#endif /* HR_ANNOTATE_DISABLE */

#ifdef __cplusplus
} /* extern "C" */

namespace heapreplay {
/* RAII heap scope: pushes NAME on construction, pops it on destruction
 * (scope exit, return, exception). NAME must outlive the scope. */
class heap_scope {
public:
    explicit heap_scope(const char *name) : name_(name) { hr_heap_push(name_); }
    ~heap_scope() { hr_heap_pop(name_); }
    heap_scope(const heap_scope &) = delete;
    heap_scope &operator=(const heap_scope &) = delete;

private:
    const char *name_;
};
} /* namespace heapreplay */

#define HR_ANNOTATE_CAT2_(a, b) a##b
#define HR_ANNOTATE_CAT_(a, b) HR_ANNOTATE_CAT2_(a, b)
/* HR_HEAP_SCOPE("Level"); allocations until the end of the enclosing block
 * belong to heap "Level". */
#define HR_HEAP_SCOPE(name) \
    ::heapreplay::heap_scope HR_ANNOTATE_CAT_(hr_heap_scope_, __LINE__)(name)
#endif /* __cplusplus */

#endif
