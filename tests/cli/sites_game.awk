# A game's allocations with three known call sites, as a text trace with
# hand-written frames (docs/TRACE_FORMAT.md, "Stacks"): level data made
# while loading and freed at the end (load_level, level.c:41), fixed-size
# entities that live three frames (spawn_entity, entity.c:17, 48 bytes),
# and five per-frame temporaries freed in LIFO order (update_frame,
# game.c:88). LEAK=1: the last temporary of each frame is freed in the next
# frame instead (a frame stack's promise broken once a frame).
# Sizes of the game (defaults: the test's small one): FRAMES frames, TEMPS
# temporaries and ENTS entities a frame, entities living LIFE frames, LEVEL
# blocks of level data.
BEGIN {
    if (!FRAMES) FRAMES = 30
    if (!TEMPS) TEMPS = 5
    if (!ENTS) ENTS = 2
    if (!LIFE) LIFE = 3
    if (!LEVEL) LEVEL = 20
    print "heapreplay-trace 1"
    print "at 1 f=malloc"
    print "at 2 f=load_level file=src/level.c line=41"
    print "at 3 f=spawn_entity file=src/entity.c line=17"
    print "at 4 f=update_frame file=src/game.c line=88"
    print "at 5 f=main file=src/game.c line=120"
    print "stack 1 1,2,5"
    print "stack 2 1,3,5"
    print "stack 3 1,4,5"
    id = 0
    for (i = 0; i < LEVEL; i++) { printf "alloc %d %d s=1\n", id, 1000 + 150 * (i % 20); lvl[i] = id++ }
    ne = 0; dead = 0
    for (f = 1; f <= FRAMES; f++) {
        printf "frame %d\n", f
        for (e = 0; e < ENTS; e++) { printf "alloc %d 48 s=2\n", id; ent[ne] = id; born[ne++] = f; id++ }
        for (; dead < ne && born[dead] == f - LIFE; dead++) { printf "free %d\n", ent[dead]; ent[dead] = -1 }
        if (LEAK && f > 1) printf "free %d\n", leak
        for (k = 0; k < TEMPS; k++) { printf "alloc %d %d s=3\n", id, 16 * 2 ^ (k % 5); tmp[k] = id++ }
        for (k = TEMPS - 1; k >= 0; k--) {
            if (LEAK && k == TEMPS - 1) { leak = tmp[k]; continue }
            printf "free %d\n", tmp[k]
        }
    }
    if (LEAK) printf "free %d\n", leak
    for (e = 0; e < ne; e++) if (ent[e] >= 0) printf "free %d\n", ent[e]
    for (i = 0; i < LEVEL; i++) printf "free %d\n", lvl[i]
}
