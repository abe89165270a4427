/* A game loop that presents through tests/capture/cap_fakegl.c (linked
 * against it, as a game is against libSDL2/libGL): N rounds of malloc(1000 +
 * round) then a present call, then frees everything. The test finds each
 * frame mark between the allocation of its round and the next one.
 *   cap_frames sdl N     SDL_GL_SwapWindow each round
 *   cap_frames glx N     glXSwapBuffers each round (checks its return value)
 *   cap_frames mixed N   SDL_GL_SwapWindow on odd rounds, glXSwapBuffers on even
 *   cap_frames annot N   SDL_GL_SwapWindow then hr_frame() each round (the
 *                        program marks its own frames) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapreplay/annotate.h"

int glXSwapBuffers(void *dpy, unsigned long drawable);
void SDL_GL_SwapWindow(void *window);

int main(int argc, char **argv) {
    if (argc != 3)
        return 2;
    int n = atoi(argv[2]);
    void **keep = calloc((size_t)n + 1, sizeof *keep);
    void *win = (void *)0x5eed;
    for (int i = 1; i <= n; i++) {
        keep[i] = malloc(1000 + (size_t)i);
        if (!strcmp(argv[1], "glx") || (!strcmp(argv[1], "mixed") && i % 2 == 0)) {
            if (glXSwapBuffers(win, 41 + (unsigned long)i) != 42 + i) {
                fprintf(stderr, "cap_frames: glXSwapBuffers returned the wrong value\n");
                return 1;
            }
        } else {
            SDL_GL_SwapWindow(win);
        }
        if (!strcmp(argv[1], "annot"))
            hr_frame();
    }
    for (int i = 1; i <= n; i++)
        free(keep[i]);
    free(keep);
    return 0;
}
