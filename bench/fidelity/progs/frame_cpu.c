/* frame_cpu.so: a preloaded shim that times a game's frames in CPU time, so
 * that the fidelity benchmark can take the part of a time-bounded game's run
 * that is not a fixed amount of work out of its CPU time.
 *
 * SuperTux runs for a fixed wall time (fidelity.sh stops it with SIGTERM):
 * an allocator that makes it faster renders more frames in that time, so its
 * whole CPU time does not measure the allocator. Its level load (start to the
 * first frame) and its exit (after the last frame) are fixed work, and they
 * hold nearly all of its allocations (traces/README.md: 74 allocations per
 * frame against ~650 k events). This shim wraps SDL_GL_SwapWindow, the call
 * that shows a frame, and reads the process's CPU time (user + system, all
 * threads: getrusage RUSAGE_SELF) at the first and at every later frame. At
 * exit it writes one line to the file named by HR_FRAME_CPU_OUT:
 *
 *     first_cpu_s last_cpu_s frames
 *
 * so the run's fixed-work CPU time is its whole CPU time less
 * (last_cpu_s - first_cpu_s), the play between the first and last frame.
 * A process that showed no frame (a launcher such as timeout, preloaded too)
 * writes nothing. Without HR_FRAME_CPU_OUT it only passes the call on. It
 * allocates nothing itself (no stdio: the allocator under test is the
 * program's alone). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

typedef void (*swap_fn)(void *window);

static double first_cpu = -1, last_cpu = -1;
static unsigned long frames;

static double cpu_now(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The frame is counted after the real call returns: the CPU up to the first
 * frame shown includes that frame's swap. */
void SDL_GL_SwapWindow(void *window);
void SDL_GL_SwapWindow(void *window) {
    static swap_fn next;
    if (!next)
        next = (swap_fn)dlsym(RTLD_NEXT, "SDL_GL_SwapWindow");
    if (next)
        next(window);
    double c = cpu_now();
    if (first_cpu < 0)
        first_cpu = c;
    last_cpu = c;
    frames++;
}

__attribute__((destructor)) static void frame_cpu_write(void) {
    const char *path = getenv("HR_FRAME_CPU_OUT");
    if (!path || !*path || !frames) /* a process that showed none (timeout's) keeps out */
        return;
    char line[96];
    int n = snprintf(line, sizeof line, "%.6f %.6f %lu\n", first_cpu, last_cpu, frames);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (n > 0 && write(fd, line, (size_t)n) != n)
        (void)unlink(path); /* a short line would be misread: none at all says so */
    close(fd);
}
