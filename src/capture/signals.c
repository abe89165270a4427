/* libheapreplay-capture.so, part 4: signals.
 *
 * Two jobs:
 *  - The library's own handler for fatal signals that the program left at
 *    (or sets back to) their default action (flush, END record, re-raise:
 *    docs/CAPTURE.md, "How a capture ends"); the program is told SIG_DFL.
 *  - The program's handlers run through a trampoline, so that what a handler
 *    allocates is recorded even when the signal interrupted a hook.
 *
 * Why the trampoline: a hook holds the thread's guard (capture_int.h) while
 * it records, and may be in the middle of appending to the thread's buffer.
 * A handler that interrupts it and calls malloc would see the guard and pass
 * unrecorded (a program that allocates in a SIGALRM handler lost most of its
 * handler's allocations that way), and it must not append to the buffer the
 * interrupted hook is writing. So sigaction/signal are interposed: the
 * kernel calls hr_sig_trampoline, which, when it interrupted a hook (guard
 * set), gives the handler a buffer of its own for its nesting depth (mmap'd
 * on first use: no lock, no malloc), clears the guard, calls the program's
 * handler, writes that buffer as one block (write(2)) and restores the
 * interrupted hook's guard and buffer exactly as it found them. Everything
 * on that path is async-signal-safe: TLS, atomics, mmap, write, clock_gettime.
 * A signal that did not interrupt a hook needs nothing: the handler records
 * into the thread's own buffer, which no one is writing.
 *
 * Limits (docs/CAPTURE.md): handlers installed by a raw rt_sigaction syscall
 * or by sigset() are not wrapped; more than HR_SIG_DEPTH nested interrupted
 * handlers, or a failed mmap, leave the deeper handler's events unrecorded. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/capture_int.h"

#define HR_SIG_DEPTH 8 /* nested handlers that interrupted a hook, per thread */
#define HR_NSIG 65     /* signals 1..64 */

typedef int (*hr_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*hr_handler3_t)(int, siginfo_t *, void *);

/* The program's handler per signal and its own sa_flags (SA_SIGINFO is
 * always set for the trampoline; the old action reported back gets the
 * program's flags). The handler is called with three arguments whether or
 * not it asked for SA_SIGINFO, as the kernel itself does. */
static _Atomic(hr_handler3_t) hr_user_fn[HR_NSIG];
static int hr_user_flags[HR_NSIG];

static HR_CAP_TLS hr_tbuf_t *hr_sig_bufs[HR_SIG_DEPTH];
static HR_CAP_TLS int hr_sig_depth; /* side buffers in use on this thread */

static hr_sigaction_fn real_sigaction(void) {
    static _Atomic(hr_sigaction_fn) fn;
    hr_sigaction_fn f = atomic_load(&fn);
    if (!f) {
        hr_cap_guard++; /* dlsym may allocate */
        f = (hr_sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
        hr_cap_guard--;
        atomic_store(&fn, f);
    }
    return f;
}

/* The side buffer of nesting depth d, mmap'd on first use; NULL when mmap
 * fails. Its thread id is set each time (a fork child inherits the pointer). */
static hr_tbuf_t *side_buf(int d) {
    hr_tbuf_t *b = hr_sig_bufs[d];
    if (!b) {
        int saved = errno;
        void *m = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        errno = saved;
        if (m == MAP_FAILED)
            return NULL;
        b = hr_sig_bufs[d] = m;
        atomic_store(&b->len, sizeof(hr_cap_block_t));
        hr_cap_sampling_reset(b);
    }
    b->tid = hr_cap_tid();
    return b;
}

static void hr_sig_trampoline(int sig, siginfo_t *info, void *uc) {
    hr_handler3_t fn = sig > 0 && sig < HR_NSIG ? atomic_load(&hr_user_fn[sig]) : NULL;
    int guard = hr_cap_guard, depth = hr_sig_depth;
    hr_tbuf_t *tb = hr_cap_tb, *side = NULL;
    if (guard && hr_cap_recording && depth < HR_SIG_DEPTH)
        side = side_buf(depth);
    if (side) {
        hr_sig_depth = depth + 1;
        hr_cap_tb = side;
        hr_cap_guard = 0;
    }
    if (fn)
        fn(sig, info, uc);
    if (side) {
        int saved = errno;
        hr_cap_guard = 1;
        hr_cap_flush_buf(side, 1); /* no-op when empty or no file is open */
        errno = saved;
        hr_cap_tb = tb;
        hr_sig_depth = depth;
        hr_cap_guard = guard;
    }
}

void hr_cap_sig_flush(int release) {
    for (int d = 0; d < HR_SIG_DEPTH; d++) {
        hr_tbuf_t *b = hr_sig_bufs[d];
        if (!b)
            continue;
        hr_cap_flush_buf(b, 1);
        if (release) {
            if (hr_cap_tb == b)
                hr_cap_tb = NULL;
            munmap(b, sizeof *b);
            hr_sig_bufs[d] = NULL;
        }
    }
    if (release)
        hr_sig_depth = 0;
}

/* ---- the library's own handler of fatal signals ------------------------ */
static void on_signal(int sig) {
    hr_cap_finish(128u + (unsigned)sig);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real_sigaction()(sig, &dfl, NULL);
    raise(sig); /* delivered when the handler returns (sig is blocked until then) */
}

static const int hr_fatal_sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT};
#define HR_NFATAL (sizeof hr_fatal_sigs / sizeof hr_fatal_sigs[0])
static int hr_fatal_on; /* the library's handler is in use (a log or a count is kept) */

static int is_fatal(int sig) {
    for (size_t i = 0; i < HR_NFATAL; i++)
        if (hr_fatal_sigs[i] == sig)
            return 1;
    return 0;
}

void hr_cap_install_signals(void) {
    const int *sigs = hr_fatal_sigs;
    hr_sigaction_fn sa_fn = real_sigaction();
    if (!sa_fn)
        return;
    hr_fatal_on = 1;
    for (size_t i = 0; i < HR_NFATAL; i++) {
        struct sigaction old, sa;
        if (sa_fn(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            continue; /* the program's own handler (or SIG_IGN) wins */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa_fn(sigs[i], &sa, NULL);
    }
}

/* ---- the interposed functions ------------------------------------------- */
HR_CAP_API int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    hr_sigaction_fn sa_fn = real_sigaction();
    if (!sa_fn) {
        errno = ENOSYS;
        return -1;
    }
    if (sig <= 0 || sig >= HR_NSIG)
        return sa_fn(sig, act, old);
    hr_handler3_t prev = atomic_load(&hr_user_fn[sig]);
    int prev_flags = hr_user_flags[sig];
    struct sigaction k;
    const struct sigaction *use = act;
    if (act) {
        /* sa_handler and sa_sigaction share their storage: SIG_DFL and
         * SIG_IGN read the same through either */
        int dfl = act->sa_handler == SIG_DFL, ign = act->sa_handler == SIG_IGN;
        hr_handler3_t h = (act->sa_flags & SA_SIGINFO) ? act->sa_sigaction
                                                        : (hr_handler3_t)(void (*)(void))act->sa_handler;
        if (!dfl && !ign && h) { /* the program's handler, through the trampoline */
            k = *act;
            k.sa_flags |= SA_SIGINFO;
            k.sa_sigaction = hr_sig_trampoline;
            hr_user_flags[sig] = act->sa_flags;
            atomic_store(&hr_user_fn[sig], h);
            use = &k;
        } else if (dfl && hr_fatal_on && is_fatal(sig)) {
            /* the program (re)sets the default action (as a shell does at
             * start): the library's flush-and-re-raise handler is that
             * default, so the log still ends with its END record */
            k = *act;
            k.sa_flags &= ~SA_SIGINFO;
            k.sa_handler = on_signal;
            use = &k;
        }
    }
    int rc = sa_fn(sig, use, old);
    if (rc == 0 && old) {
        if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction == hr_sig_trampoline) {
            old->sa_flags = prev_flags;
            if (prev_flags & SA_SIGINFO)
                old->sa_sigaction = prev;
            else
                old->sa_handler = (void (*)(int))(void (*)(void))prev;
        } else if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler == on_signal) {
            old->sa_handler = SIG_DFL; /* the library's own: the program left the default */
            old->sa_flags = 0;
        }
    }
    return rc;
}

/* signal(): BSD semantics, as glibc's (the handler stays installed, the
 * signal is blocked while it runs, interrupted calls restart). */
static void (*hr_signal_as(int sig, void (*h)(int), int flags))(int) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sigemptyset(&sa.sa_mask);
    if (!(flags & SA_NODEFER) && sig > 0 && sig < HR_NSIG)
        sigaddset(&sa.sa_mask, sig);
    sa.sa_flags = flags;
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

/* Not declared by <signal.h> without _XOPEN_SOURCE / in every glibc. */
void (*bsd_signal(int sig, void (*h)(int)))(int);
void (*sysv_signal(int sig, void (*h)(int)))(int);
void (*__sysv_signal(int sig, void (*h)(int)))(int);

HR_CAP_API void (*signal(int sig, void (*h)(int)))(int) { return hr_signal_as(sig, h, SA_RESTART); }
HR_CAP_API void (*bsd_signal(int sig, void (*h)(int)))(int) { return hr_signal_as(sig, h, SA_RESTART); }
/* System V semantics: what signal() is in a program built with a strict
 * -std=c11 (glibc redirects it to __sysv_signal). */
HR_CAP_API void (*sysv_signal(int sig, void (*h)(int)))(int) {
    return hr_signal_as(sig, h, SA_RESETHAND | SA_NODEFER);
}
HR_CAP_API void (*__sysv_signal(int sig, void (*h)(int)))(int) {
    return hr_signal_as(sig, h, SA_RESETHAND | SA_NODEFER);
}
