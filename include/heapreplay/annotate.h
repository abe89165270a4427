/* heapreplay annotation API: tell a capture which heap allocations belong to,
 * where frames end, and where interesting moments are.
 *
 *   hr_heap_push("level");  ... allocations ...  hr_heap_pop("level");
 *   hr_frame();             once per game frame
 *   hr_mark("boss-fight");  a named point in the trace
 *
 * Header-only, no library to link. Each function looks its hook up once with
 * dlsym(RTLD_DEFAULT, "hr_capture_...") and caches the result per translation
 * unit: when libheapreplay-capture.so is not preloaded the lookup fails once
 * and every later call is one load and one compare. When it is preloaded the
 * event is recorded in the calling thread's buffer (heap_push / heap_pop /
 * mark carry the name, frame a per-process counter from 1).
 * Link with -ldl on glibc older than 2.34 (dlsym moved into libc there).
 * Names are copied; at most 32 KiB of a name is kept. */
#ifndef HEAPREPLAY_ANNOTATE_H
#define HEAPREPLAY_ANNOTATE_H

#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

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

static inline void hr_heap_push(const char *name) {
    static void *hook;
    void (*fn)(const char *) = (void (*)(const char *))hr_annotate_lookup_(&hook, "hr_capture_heap_push");
    if (fn)
        fn(name);
}

static inline void hr_heap_pop(const char *name) {
    static void *hook;
    void (*fn)(const char *) = (void (*)(const char *))hr_annotate_lookup_(&hook, "hr_capture_heap_pop");
    if (fn)
        fn(name);
}

static inline void hr_mark(const char *name) {
    static void *hook;
    void (*fn)(const char *) = (void (*)(const char *))hr_annotate_lookup_(&hook, "hr_capture_mark");
    if (fn)
        fn(name);
}

static inline void hr_frame(void) {
    static void *hook;
    void (*fn)(void) = (void (*)(void))hr_annotate_lookup_(&hook, "hr_capture_frame");
    if (fn)
        fn();
}

#ifdef __cplusplus
}
#endif
#endif
