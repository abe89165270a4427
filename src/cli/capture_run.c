/* heapreplay capture: running the program (capture_run.h).
 *
 * The program runs in a process group of its own, which gets the terminal
 * when capture had it: ^C, ^\ and ^Z at the terminal reach the program and
 * everything it started, not capture. SIGTERM, SIGINT, SIGHUP and SIGQUIT
 * sent to capture itself are forwarded to that process group; capture then
 * waits for the program (whose library flushes its log and writes the END
 * record), converts what was logged and exits 128 + N (docs/CAPTURE.md,
 * "Interrupting a capture"). If capture dies anyway (SIGKILL), the program
 * gets SIGTERM (PR_SET_PDEATHSIG). A SIGHUP that capture was started ignoring
 * (nohup) stays ignored, by capture and the program. */
#include "cli/capture_run.h"
#include "base/sysinfo.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <termios.h>
#include <unistd.h>

static const int fwd_sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
#define HR_NFWD (sizeof fwd_sigs / sizeof fwd_sigs[0])
static volatile pid_t fwd_pgid;       /* the program's process group; 0 before it exists */
static volatile sig_atomic_t fwd_got; /* the last of fwd_sigs capture received; 0: none */

static void on_fwd(int sig) {
    fwd_got = sig;
    if (fwd_pgid > 0)
        kill(-fwd_pgid, sig);
}

/* The descriptor of the terminal whose foreground process group is ours
 * (standard input, output or error), or -1. */
static int our_tty(void) {
    for (int fd = 0; fd < 3; fd++)
        if (isatty(fd) && tcgetpgrp(fd) == getpgrp())
            return fd;
    return -1;
}

static int fwd_ignored(int sig) {
    struct sigaction cur;
    return sig == SIGHUP && sigaction(sig, NULL, &cur) == 0 && cur.sa_handler == SIG_IGN;
}

static void child_exec(const hr_capture_opts_t *o, const char *lib, const char *raw, int tty,
                       pid_t parent, const sigset_t *mask) {
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *pre = malloc(n), pid[32];
    if (!pre)
        _exit(127);
    setpgid(0, 0);
    if (tty >= 0)
        hr_tty_give(tty, getpid());
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(127); /* capture is already gone */
    snprintf(pre, n, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    setenv("LD_PRELOAD", pre, 1);
    setenv("HEAPREPLAY_CAPTURE_FILE", raw, 1);
    setenv("HEAPREPLAY_CAPTURE_PID", pid, 1);
    setenv("HEAPREPLAY_CAPTURE_CHILDREN", o->follow_forks ? "1" : "count", 1);
    setenv("HEAPREPLAY_CAPTURE_FRAMES", o->frames, 1);
    if (o->stacks) {
        char depth[16];
        snprintf(depth, sizeof depth, "%d", o->stacks);
        setenv("HEAPREPLAY_CAPTURE_STACKS", depth, 1);
    }
    if (!o->timestamps)
        setenv("HEAPREPLAY_CAPTURE_NO_TIMESTAMPS", "1", 1);
    for (size_t i = 0; i < HR_NFWD; i++)
        if (!fwd_ignored(fwd_sigs[i]))
            signal(fwd_sigs[i], SIG_DFL);
    sigprocmask(SIG_SETMASK, mask, NULL);
    execvp(o->cmd[0], o->cmd);
    fprintf(stderr, "heapreplay capture: cannot run '%s': %s\n", o->cmd[0], strerror(errno));
    _exit(127);
}

int hr_capture_run(const hr_capture_opts_t *o, const char *lib, const char *raw, hr_run_time_t *rt) {
    struct sigaction sa, old[HR_NFWD];
    sigset_t block, mask;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fwd;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&block);
    int set[HR_NFWD];
    for (size_t i = 0; i < HR_NFWD; i++) {
        sigaddset(&block, fwd_sigs[i]);
        set[i] = !fwd_ignored(fwd_sigs[i]) && sigaction(fwd_sigs[i], &sa, &old[i]) == 0;
    }
    /* blocked until the program's group exists: a signal in between is
     * delivered (and forwarded) right after */
    sigprocmask(SIG_BLOCK, &block, &mask);
    int tty = our_tty();
    pid_t self = getpid();
    uint64_t t0 = hr_now_ns();
    pid_t pid = fork();
    if (pid == 0)
        child_exec(o, lib, raw, tty, self, &mask);
    if (pid > 0) {
        setpgid(pid, pid); /* both sides: whichever runs first */
        if (tty >= 0)
            hr_tty_give(tty, pid);
        fwd_pgid = pid;
    }
    sigprocmask(SIG_SETMASK, &mask, NULL);
    int ok = pid > 0 && hr_run_wait_job(pid, t0, tty, rt) == 0;
    fwd_pgid = 0;
    if (tty >= 0)
        hr_tty_give(tty, getpgrp());
    for (size_t i = 0; i < HR_NFWD; i++)
        if (set[i])
            sigaction(fwd_sigs[i], &old[i], NULL);
    return ok ? rt->status : -1;
}

int hr_capture_signal(void) { return (int)fwd_got; }
