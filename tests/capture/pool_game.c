/* A small game with its own allocators, annotated for heapreplay: a
 * fixed-cell pool ("Particles"), a per-frame bump arena ("FrameArena") and
 * a growable string pool ("Strings", moved with hr_realloc_named), all carved
 * out of one malloc'd arena. tests/cli/test_pools_cli.sh captures it and
 * checks the pools by name and count:
 *   Particles  200 allocs, 200 frees
 *   FrameArena 10 frames x 16 allocs, freed at the end of their frame
 *   Strings    5 allocs, each moved 3 times (reallocs), then freed
 * and a named frame stream "physics" ticking twice per main frame (20). */
#include <heapreplay/annotate.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA (1u << 20)
#define CELL 64
#define CELLS 256

static unsigned char *arena;
static size_t arena_top;
static void *cells_free[CELLS];
static int n_free;

static void *carve(size_t n) { /* the engine's own bump allocation */
    void *p = arena + arena_top;
    arena_top += (n + 15) & ~(size_t)15;
    return p;
}

static void *particle_new(void) {
    void *p = cells_free[--n_free];
    hr_alloc_named(p, CELL, "Particles");
    return p;
}

static void particle_delete(void *p) {
    hr_free_named(p, "Particles");
    cells_free[n_free++] = p;
}

int main(void) {
    arena = malloc(ARENA);
    if (!arena)
        return 1;
    for (n_free = 0; n_free < CELLS; n_free++)
        cells_free[n_free] = carve(CELL);
    void *live[200];
    for (int i = 0; i < 200; i++)
        live[i] = particle_new();
    for (int i = 199; i >= 0; i--)
        particle_delete(live[i]);

    size_t frame_base = arena_top;
    for (int f = 1; f <= 10; f++) {
        void *tmp[16];
        for (int i = 0; i < 16; i++) {
            tmp[i] = carve((size_t)(32 + 8 * i));
            hr_alloc_named(tmp[i], (size_t)(32 + 8 * i), "FrameArena");
        }
        for (int i = 0; i < 16; i++)
            hr_free_named(tmp[i], "FrameArena");
        arena_top = frame_base; /* the frame allocator resets */
        hr_frame_named("physics");
        hr_frame_named("physics");
        hr_frame();
    }

    for (int s = 0; s < 5; s++) {
        size_t len = 16;
        char *str = carve(len);
        hr_alloc_named(str, len, "Strings");
        memset(str, 'a' + s, len);
        for (int g = 0; g < 3; g++) { /* grow: copy to a bigger carve */
            char *bigger = carve(len * 2);
            memcpy(bigger, str, len);
            hr_realloc_named(str, bigger, len * 2, "Strings");
            str = bigger, len *= 2;
        }
        hr_free_named(str, "Strings");
    }
    free(arena);
    puts("pool_game: ok");
    return 0;
}
