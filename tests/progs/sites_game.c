/* A game loop with three known allocation sites, for tests/cli/
 * test_sites_cli.sh (capture --stacks, then sites, plan, replay --plan):
 * level data made while loading and freed at the end, fixed-size entities
 * that live three frames, and per-frame temporaries freed in LIFO order.
 * Frames are marked with annotate.h's hr_frame(). Built by the test with
 * -g -O0 -fno-omit-frame-pointer; each site's line is marked SITE:.
 * Usage: sites_game [leak]  (leak: the last temporary of each frame is
 * freed in the next frame, the frame stack's promise broken once a frame) */
#include <stdlib.h>
#include <string.h>

#include "heapreplay/annotate.h"

enum { FRAMES = 40, TEMPS = 5, ENTS = 2, LIFE = 3, LEVEL = 20 };

__attribute__((noinline)) static char *load_level(size_t n) {
    char *p = malloc(n); /* SITE:load_level */
    if (p)
        memset(p, 2, n);
    return p;
}

__attribute__((noinline)) static void *spawn_entity(void) {
    char *p = malloc(48); /* SITE:spawn_entity */
    if (p)
        memset(p, 3, 48);
    return p;
}

__attribute__((noinline)) static char *frame_temp(size_t n) {
    char *p = malloc(n); /* SITE:frame_temp */
    if (p)
        memset(p, 1, n);
    return p;
}

int main(int argc, char **argv) {
    int leak = argc > 1 && strcmp(argv[1], "leak") == 0;
    char *level[LEVEL], *tmp[TEMPS], *late = NULL;
    void *ents[FRAMES * ENTS];
    int n_ents = 0, dead = 0;
    for (int i = 0; i < LEVEL; i++)
        level[i] = load_level(1000 + 150 * (size_t)i);
    for (int f = 1; f <= FRAMES; f++) {
        hr_frame();
        for (int e = 0; e < ENTS; e++)
            ents[n_ents++] = spawn_entity();
        for (; dead < n_ents && dead / ENTS + 1 == f - LIFE; dead++)
            free(ents[dead]);
        free(late);
        late = NULL;
        for (int k = 0; k < TEMPS; k++)
            tmp[k] = frame_temp((size_t)16 << k);
        for (int k = TEMPS - 1; k >= 0; k--) {
            if (leak && k == TEMPS - 1)
                late = tmp[k];
            else
                free(tmp[k]);
        }
    }
    free(late);
    for (; dead < n_ents; dead++)
        free(ents[dead]);
    for (int i = 0; i < LEVEL; i++)
        free(level[i]);
    return 0;
}
