/* A stand-in for libSDL2 and libGL (tests/cli/test_capture_frames.sh): the
 * two present functions capture --frames watches, without a display. Each
 * makes one allocation of a size the test looks for (a real present call
 * allocates too: it belongs before the frame mark), SDL_GL_SwapWindow calls
 * glXSwapBuffers through the dynamic linker as SDL's X11 back end calls
 * libGL's (one frame, not two), and glXSwapBuffers checks that its arguments
 * arrived unchanged and returns drawable + 1 (its real counterpart returns
 * nothing; the wrapper hands back whatever the function returned). */
#include <stdio.h>
#include <stdlib.h>

void *volatile cap_fake_sink;

int glXSwapBuffers(void *dpy, unsigned long drawable);
int glXSwapBuffers(void *dpy, unsigned long drawable) {
    if (dpy != (void *)0x5eed || drawable < 40) {
        fprintf(stderr, "cap_fakegl: glXSwapBuffers(%p, %lu): arguments changed\n", dpy, drawable);
        abort();
    }
    void *p = malloc(777);
    cap_fake_sink = p;
    free(p);
    return (int)drawable + 1;
}

void SDL_GL_SwapWindow(void *window);
void SDL_GL_SwapWindow(void *window) {
    void *p = malloc(555);
    cap_fake_sink = p;
    free(p);
    if (glXSwapBuffers(window, 40) != 41)
        abort();
}
