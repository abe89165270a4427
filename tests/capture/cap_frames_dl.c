/* The present functions in a library loaded with dlopen(RTLD_LOCAL), outside
 * the global scope (tests/cli/test_capture_frames.sh): cap_frames_dl LIB N
 * loads LIB (tests/capture/libcapfake.so) so, then N rounds of malloc(1000 +
 * round) and SDL_GL_SwapWindow found with dlsym(RTLD_DEFAULT) -- under the
 * capture library that is its wrapper, whose dlsym(RTLD_NEXT) cannot see LIB:
 * the wrapper must still reach LIB's function (which allocates 555 bytes and
 * calls glXSwapBuffers, which allocates 777). Without the capture library
 * RTLD_DEFAULT finds nothing and the rounds call LIB's function directly. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3)
        return 2;
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "cap_frames_dl: %s\n", dlerror());
        return 1;
    }
    void *sym = dlsym(RTLD_DEFAULT, "SDL_GL_SwapWindow");
    if (!sym)
        sym = dlsym(lib, "SDL_GL_SwapWindow");
    void (*swap)(void *);
    memcpy(&swap, &sym, sizeof swap);
    int n = atoi(argv[2]);
    void **keep = calloc((size_t)n + 1, sizeof *keep);
    for (int i = 1; i <= n; i++) {
        keep[i] = malloc(1000 + (size_t)i);
        swap((void *)0x5eed);
    }
    for (int i = 1; i <= n; i++)
        free(keep[i]);
    free(keep);
    return 0;
}
