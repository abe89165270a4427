/* libheapreplay-capture.so, part 5: frames without annotation
 * (capture --frames, docs/CAPTURE.md "Frames without annotation").
 *
 * The library defines the usual present functions (frame_syms.h); a program
 * that calls one of them through the dynamic linker calls this wrapper, which
 * calls the real function (the next definition: dlsym(RTLD_NEXT)) and, when it
 * returns, records a frame mark on the calling thread: a MARK record named
 * HR_CAP_FRAME_BY + the function's name whose `a` is the frame's number, then
 * the FRAME record. The mark tells the importer and `heapreplay info` which
 * function found the frame. A program that never calls them never enters
 * this file.
 *
 * The program's own frames win: its first hr_frame() (annotate.h) turns the
 * automatic marks off for the rest of the run, and the importer drops the
 * ones recorded before it (src/trace/import_capture.c), so no frame is
 * counted twice. A present function that calls another one (SDL_RenderPresent
 * -> SDL_GL_SwapWindow -> glXSwapBuffers through the dynamic linker) marks
 * one frame: only the outermost watched call on a thread counts (a function
 * not watched, --frames=NAME..., passes straight through).
 *
 * Environment: HEAPREPLAY_CAPTURE_FRAMES = auto (default: every function of
 * the list) | none | NAME[,NAME...] (those only; `heapreplay capture`
 * checks the names). */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture_int.h"
#include "capture/frame_syms.h"

#define HR_SYM_ENUM_(name, n) HR_SYM_##name,
enum { HR_FRAME_SYMS(HR_SYM_ENUM_) HR_NSYMS };
#define HR_SYM_NAME_(name, n) #name,
static const char *const sym_name[HR_NSYMS] = {HR_FRAME_SYMS(HR_SYM_NAME_)};

static unsigned char sym_on[HR_NSYMS];    /* marks frames (HEAPREPLAY_CAPTURE_FRAMES) */
static _Atomic(void *) sym_real[HR_NSYMS]; /* the real function, once found */
static char sym_mark[HR_NSYMS][64];       /* HR_CAP_FRAME_BY + name */
static atomic_int own_frames;             /* the program called hr_frame(): marks off */
static _Atomic uint64_t frame_no;         /* the main stream's frames, both kinds */
static HR_CAP_TLS int in_present;         /* this thread is inside a wrapped call */

/* Reads HEAPREPLAY_CAPTURE_FRAMES (called once by hr_cap_log_init). */
void hr_cap_frames_init(void) {
    const char *v = getenv("HEAPREPLAY_CAPTURE_FRAMES");
    int all = !v || !*v || strcmp(v, "auto") == 0;
    for (unsigned i = 0; i < HR_NSYMS; i++) {
        size_t n = strlen(sym_name[i]);
        memcpy(sym_mark[i], HR_CAP_FRAME_BY, sizeof HR_CAP_FRAME_BY - 1);
        memcpy(sym_mark[i] + sizeof HR_CAP_FRAME_BY - 1, sym_name[i], n + 1);
        sym_on[i] = (unsigned char)all;
        for (const char *p = all ? NULL : v; p && *p; p += strcspn(p, ","), p += *p == ',')
            if (strncmp(p, sym_name[i], n) == 0 && (p[n] == ',' || p[n] == 0))
                sym_on[i] = 1;
    }
}

/* ---- finding the real function ------------------------------------------- */
#define HR_MAX_OBJS 512
typedef struct objs {
    const char *name[HR_MAX_OBJS];
    unsigned n;
} objs_t;

static int list_obj(struct dl_phdr_info *info, size_t size, void *ctx) {
    objs_t *o = ctx;
    (void)size;
    if (info->dlpi_name && info->dlpi_name[0] && o->n < HR_MAX_OBJS)
        o->name[o->n++] = info->dlpi_name;
    return 0;
}

/* The definition of symbol i after ours. RTLD_NEXT searches the global scope;
 * a library loaded with dlopen(RTLD_LOCAL) is not in it, yet a caller loaded
 * with it (a renderer plugin linked against libGL) binds to our wrapper, the
 * first definition of the global scope. So the loaded objects are asked one
 * by one (dlopen RTLD_NOLOAD: a handle's lookup covers that object and its
 * dependencies, never the preloaded library). NULL when none exists: someone
 * found our wrapper with dlsym(RTLD_DEFAULT) and no such function is loaded. */
static void *find_real(unsigned i, void *self) {
    void *p = dlsym(RTLD_NEXT, sym_name[i]);
    if (p && p != self)
        return p;
    static objs_t objs; /* the names stay valid while the objects are loaded */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock); /* one search at a time: objs is shared */
    objs.n = 0;
    dl_iterate_phdr(list_obj, &objs); /* dlopen is not called under its lock */
    p = NULL;
    for (unsigned k = 0; k < objs.n && !p; k++) {
        void *h = dlopen(objs.name[k], RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            continue;
        p = dlsym(h, sym_name[i]);
        if (p == self)
            p = NULL;
        dlclose(h);
    }
    pthread_mutex_unlock(&lock);
    return p;
}

static void *real_fn(unsigned i, void *self) {
    void *p = atomic_load_explicit(&sym_real[i], memory_order_acquire);
    if (HR_LIKELY(p != NULL))
        return p;
    hr_cap_guard++; /* dlsym and dlopen allocate: ours, not the program's */
    p = find_real(i, self);
    hr_cap_guard--;
    if (p)
        atomic_store_explicit(&sym_real[i], p, memory_order_release);
    return p;
}

/* ---- the frame marks ----------------------------------------------------- */
/* After the real function i returned on this thread: the mark and the frame. */
static void frame_after(unsigned i) {
    if (in_present || !hr_cap_recording || hr_cap_guard ||
        atomic_load_explicit(&own_frames, memory_order_relaxed))
        return;
    int saved = errno;
    hr_cap_guard++;
    uint64_t n = atomic_fetch_add_explicit(&frame_no, 1, memory_order_relaxed) + 1;
    size_t len = strlen(sym_mark[i]);
    hr_cap_emit(hr_cap_tick(0), HR_CAP_MARK, 0, n, len, sym_mark[i], len);
    hr_cap_emit(hr_cap_tick(0), HR_CAP_FRAME, 0, n, 0, NULL, 0);
    hr_cap_guard--;
    errno = saved;
}

/* annotate.h's hr_frame(): the program marks its own frames, from now on the
 * only ones (the importer drops the automatic marks made before). */
HR_CAP_API void hr_capture_frame(void) {
    atomic_store_explicit(&own_frames, 1, memory_order_relaxed);
    if (!hr_cap_recording || hr_cap_guard)
        return;
    hr_cap_guard++;
    uint64_t n = atomic_fetch_add_explicit(&frame_no, 1, memory_order_relaxed) + 1;
    hr_cap_emit(hr_cap_tick(0), HR_CAP_FRAME, 0, n, 0, NULL, 0);
    hr_cap_guard--;
}

/* ---- the wrappers: N machine words in, one out (frame_syms.h) ------------ */
#define HR_PARAMS_0 void
#define HR_PARAMS_1 intptr_t a1
#define HR_PARAMS_2 intptr_t a1, intptr_t a2
#define HR_PARAMS_4 intptr_t a1, intptr_t a2, intptr_t a3, intptr_t a4
#define HR_TYPES_0 void
#define HR_TYPES_1 intptr_t
#define HR_TYPES_2 intptr_t, intptr_t
#define HR_TYPES_4 intptr_t, intptr_t, intptr_t, intptr_t
#define HR_ARGS_0
#define HR_ARGS_1 a1
#define HR_ARGS_2 a1, a2
#define HR_ARGS_4 a1, a2, a3, a4

#define HR_WRAP_(name, n)                                                                   \
    HR_CAP_API intptr_t name(HR_PARAMS_##n);                                                \
    HR_CAP_API intptr_t name(HR_PARAMS_##n) {                                               \
        intptr_t (*fn)(HR_TYPES_##n);                                                       \
        void *p = real_fn(HR_SYM_##name, (void *)(uintptr_t)&name);                         \
        if (!p)                                                                             \
            return 0;                                                                       \
        memcpy(&fn, &p, sizeof fn);                                                         \
        if (!sym_on[HR_SYM_##name]) /* not watched: a watched one inside it counts */       \
            return fn(HR_ARGS_##n);                                                         \
        in_present++;                                                                       \
        intptr_t rv = fn(HR_ARGS_##n);                                                      \
        in_present--;                                                                       \
        frame_after(HR_SYM_##name);                                                         \
        return rv;                                                                          \
    }
HR_FRAME_SYMS(HR_WRAP_)
