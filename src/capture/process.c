/* libheapreplay-capture.so, part 3: process events the library must see
 * (_exit, exec) and the annotation entry points of include/heapreplay/annotate.h.
 *
 * _exit/_Exit skip atexit handlers and destructors, so they are interposed to
 * flush first (END record how=1). exec replaces the image: the buffers are
 * flushed (no END record: if the exec succeeds, the new image's library starts
 * the file over; if it fails, recording just goes on). A raw exit_group or
 * execve syscall bypasses this; the importer then reports a cut file. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "capture/capture_int.h"

static void *next_fn(const char *name) { return dlsym(RTLD_NEXT, name); }

HR_CAP_API void _exit(int status) {
    hr_cap_finish(1);
    void (*fn)(int) = (void (*)(int))next_fn("_exit");
    if (fn)
        fn(status);
    for (;;)
        ; /* unreachable: the real _exit does not return */
}

HR_CAP_API void _Exit(int status) { _exit(status); }

HR_CAP_API int execve(const char *path, char *const argv[], char *const envp[]) {
    hr_cap_finish(2);
    int (*fn)(const char *, char *const[], char *const[]) =
        (int (*)(const char *, char *const[], char *const[]))next_fn("execve");
    return fn(path, argv, envp);
}

HR_CAP_API int execv(const char *path, char *const argv[]) {
    hr_cap_finish(2);
    int (*fn)(const char *, char *const[]) = (int (*)(const char *, char *const[]))next_fn("execv");
    return fn(path, argv);
}

HR_CAP_API int execvp(const char *file, char *const argv[]) {
    hr_cap_finish(2);
    int (*fn)(const char *, char *const[]) = (int (*)(const char *, char *const[]))next_fn("execvp");
    return fn(file, argv);
}

HR_CAP_API int execvpe(const char *file, char *const argv[], char *const envp[]) {
    hr_cap_finish(2);
    int (*fn)(const char *, char *const[], char *const[]) =
        (int (*)(const char *, char *const[], char *const[]))next_fn("execvpe");
    return fn(file, argv, envp);
}

/* ---- annotations (looked up by annotate.h with dlsym(RTLD_DEFAULT)) ---- */
static void annot(unsigned op, const char *name) {
    if (!hr_cap_recording || hr_cap_guard)
        return;
    hr_cap_span_t sp;
    hr_cap_span_begin(&sp);
    hr_cap_guard++;
    size_t len = name ? strlen(name) : 0;
    hr_cap_emit(hr_cap_tick(0), op, 0, 0, len, name, len);
    hr_cap_guard--;
    hr_cap_span_end(&sp);
}

HR_CAP_API void hr_capture_heap_push(const char *name) { annot(HR_CAP_HEAP_PUSH, name); }
HR_CAP_API void hr_capture_heap_pop(const char *name) { annot(HR_CAP_HEAP_POP, name); }
HR_CAP_API void hr_capture_mark(const char *name) { annot(HR_CAP_MARK, name); }
HR_CAP_API void hr_capture_frame_named(const char *stream) { annot(HR_CAP_FRAME_NAMED, stream); }
/* hr_capture_frame (the main stream) is in frames.c: it shares the frame
 * counter with the frames the library finds by itself. */

/* Pool blocks: clocked like malloc-family events (capture_int.h: a release
 * takes its clock before the block can be reused, a new block after it
 * exists), so another thread's reuse of the address sorts after the release. */
static void pool_event(unsigned op, uint64_t ptr, uint64_t a, uint64_t b, const char *name) {
    if (!hr_cap_recording || hr_cap_guard)
        return;
    hr_cap_span_t sp;
    hr_cap_span_begin(&sp);
    hr_cap_guard++;
    size_t len = name ? strlen(name) : 0;
    hr_cap_emit(hr_cap_tick(ptr), op, ptr, a, name ? len : b, name, len);
    hr_cap_guard--;
    hr_cap_span_end(&sp);
}

HR_CAP_API void hr_capture_alloc_named(void *ptr, size_t size, const char *pool) {
    pool_event(HR_CAP_POOL_ALLOC, (uintptr_t)ptr, size, 0, pool ? pool : "");
}

HR_CAP_API void hr_capture_free_named(void *ptr, const char *pool) {
    if (ptr)
        pool_event(HR_CAP_POOL_FREE, (uintptr_t)ptr, 0, 0, pool ? pool : "");
}

HR_CAP_API void hr_capture_realloc_named(void *old, void *ptr, size_t size, const char *pool) {
    (void)pool; /* the block keeps the pool it was made in */
    if (old)
        (void)hr_cap_tick((uintptr_t)old); /* the old address's release is ordered first */
    pool_event(HR_CAP_POOL_REALLOC, (uintptr_t)ptr, (uintptr_t)old, size, NULL);
}
