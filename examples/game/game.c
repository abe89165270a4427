/* A small game loop for heapreplay's CI template (docs/CI.md): a load phase
 * that builds a level, then a fixed number of frames, each making and
 * freeing its temporaries (written, then freed in reverse order) and marking
 * its end with hr_frame() from <heapreplay/annotate.h>. One mark after the
 * load closes the load phase (docs/METRICS.md, "Frames and the load"), so
 * FRAMES play frames follow it.
 *
 *   ./game [FRAMES]        FRAMES play frames (default 120)
 *   HR_GAME_REGRESS=1 ./game
 *                          the "regressed" build of the game: every frame
 *                          makes twice the temporaries (what a careless
 *                          change to a frame loop does), for the CI example
 *                          to catch
 *
 * The run is deterministic (no clock, no random seed from outside): two
 * captures of the same build record the same allocations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <heapreplay/annotate.h>

#define LEVEL_TILES 256
#define TEMPS_PER_FRAME 40

typedef struct entity {
    float x, y, vx, vy;
    char *name;
} entity_t;

static unsigned long sink; /* keeps the temporaries' writes observable */

/* The load phase: the level's tiles and its entities, kept for the whole run. */
static entity_t **load_level(size_t *n) {
    entity_t **ents = calloc(LEVEL_TILES, sizeof *ents);
    if (!ents)
        return NULL;
    for (size_t i = 0; i < LEVEL_TILES; i++) {
        ents[i] = malloc(sizeof *ents[i]);
        if (!ents[i])
            exit(1);
        ents[i]->x = (float)i;
        ents[i]->y = (float)(i % 16);
        ents[i]->vx = ents[i]->vy = 1.0f;
        ents[i]->name = malloc(24 + i % 40);
        if (!ents[i]->name)
            exit(1);
        snprintf(ents[i]->name, 24, "entity-%zu", i);
    }
    *n = LEVEL_TILES;
    return ents;
}

/* One frame: `temps` temporaries of 16..1039 bytes, written, then freed in
 * reverse order at the end of the frame. */
static void frame(entity_t **ents, size_t n, unsigned f, unsigned temps) {
    void *tmp[4 * TEMPS_PER_FRAME];
    for (unsigned i = 0; i < temps; i++) {
        size_t size = 16 + (size_t)((f * 131u + i * 29u) % 1024u);
        tmp[i] = malloc(size);
        if (!tmp[i])
            exit(1);
        memset(tmp[i], (int)(i & 0xff), size);
        sink += ((unsigned char *)tmp[i])[size - 1];
    }
    for (size_t i = 0; i < n; i++) {
        ents[i]->x += ents[i]->vx;
        ents[i]->y += ents[i]->vy;
    }
    while (temps)
        free(tmp[--temps]);
}

int main(int argc, char **argv) {
    unsigned frames = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 120;
    const char *regress = getenv("HR_GAME_REGRESS");
    unsigned temps = TEMPS_PER_FRAME * (regress && strcmp(regress, "1") == 0 ? 2 : 1);
    size_t n = 0;
    entity_t **ents = load_level(&n);
    if (!ents)
        return 1;
    hr_frame(); /* the end of the load */
    for (unsigned f = 0; f < frames; f++) {
        frame(ents, n, f, temps);
        hr_frame();
    }
    for (size_t i = 0; i < n; i++) {
        free(ents[i]->name);
        free(ents[i]);
    }
    free(ents);
    printf("game: %u frames, %u temporaries per frame (%lu)\n", frames, temps, sink % 10);
    return 0;
}
