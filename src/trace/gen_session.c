/* The session scenario: one game session stitched from the other patterns.
 *
 *   boot (engine heaps) -> level 1 load -> play -> level 1 unload ->
 *   level 2 load -> play -> level 2 unload -> shutdown (boot objects freed)
 *
 * A play frame = solver jobs under push "Temp", particle churn under push
 * "LevelOther", a few string/array operations on the base heap, now and then
 * a streamed zone chunk under push "LevelZone" (the oldest of three zones is
 * unloaded first), then frame(N). Every object is freed by the end. */
#include "trace/gen_int.h"

#define N_ZONES 3

typedef struct play {
    gen_particles_t ptc;
    gen_strings_t   str;
    gen_level_t     zone[N_ZONES];
    uint32_t        next_zone, zone_assets;
} play_t;

static uint64_t clampu(uint64_t v, uint64_t lo, uint64_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static void zone_reset(gen_level_t *z) {
    gen_level_free(z);
    gen_level_init(z, 4u << 20, 4u << 20);
}

/* About half the worst case one play frame adds (events + new live objects)
 * without streaming; a zone chunk is only streamed when it fits as well. */
static uint64_t frame_reserve(const play_t *p) {
    uint64_t s = p->ptc.target_pop / 166 ? p->ptc.target_pop / 166 : 1;
    return 40 + 20 * s;
}

static void play_frame(gen_t *g, play_t *p) {
    g_push(g, "Temp");
    uint32_t jobs = 1 + gen_below(&g->rng, 2);
    int big = gen_chance(&g->rng, 1, 60);
    for (uint32_t j = 0; j < jobs; j++)
        gen_frame_job(g, big && j == 0);
    g_pop(g);

    g_push(g, "LevelOther");
    gen_particles_step(g, &p->ptc);
    g_pop(g);

    for (uint32_t n = 1 + gen_below(&g->rng, 6); n--;)
        gen_strings_step(g, &p->str);

    if (gen_chance(&g->rng, 1, 200) && /* streaming: replace the oldest zone */
        g_more(g, frame_reserve(p) + 70ull * p->zone_assets)) {
        gen_level_t *z = &p->zone[p->next_zone++ % N_ZONES];
        gen_level_unload(g, z);
        zone_reset(z);
        g_push(g, "LevelZone");
        gen_level_assets(g, z, 2 + gen_below(&g->rng, p->zone_assets - 1));
        g_pop(g);
    }
    g_frame(g);
}

static void play_end(gen_t *g, play_t *p) {
    gen_particles_clear(g, &p->ptc);
    gen_strings_clear(g, &p->str);
    for (uint32_t i = N_ZONES; i-- > 0;) /* most recently streamed first */
        gen_level_unload(g, &p->zone[(p->next_zone + i) % N_ZONES]);
}

/* One level: load `load_events`, then play until `play_until` (events plus
 * the frees still owed) or until the session budget runs out, then unload. */
static void level(gen_t *g, play_t *p, uint64_t load_events, uint64_t play_until) {
    gen_level_t lv;
    gen_level_init(&lv, 16u << 20, 12u << 20);
    g_mark(g, "level_load_begin");
    gen_level_load(g, &lv, g->t->n_events + load_events);
    g_mark(g, "level_loaded");
    while (!g->oom && g_more(g, frame_reserve(p)) &&
           g->t->n_events + g->n_live < play_until)
        play_frame(g, p);
    g_mark(g, "level_unload_begin");
    play_end(g, p);
    gen_level_unload(g, &lv);
    g_mark(g, "level_unloaded");
    gen_level_free(&lv);
}

void gen_scn_session(gen_t *g) {
    uint64_t e = g->target;
    play_t p = {0};
    p.ptc.target_pop = (uint32_t)clampu(e / 100, 50, 1500);
    p.str.target_pop = (uint32_t)clampu(e / 100, 50, 1000);
    p.zone_assets = (uint32_t)clampu(e / 20000, 3, 40);
    for (int i = 0; i < N_ZONES; i++)
        gen_level_init(&p.zone[i], 4u << 20, 4u << 20);

    gen_vec_t boot = {0};
    g_mark(g, "boot");
    gen_boot(g, &boot, (uint32_t)clampu(e / 100, 20, 1500));
    g_mark(g, "boot_done");

    uint64_t load = clampu(e * 15 / 100, 100, 150000);
    level(g, &p, load, e / 2);
    level(g, &p, load, UINT64_MAX);

    g_mark(g, "shutdown");
    while (boot.n && !g->oom)
        g_free(g, boot.v[--boot.n], 0);
    gen_vec_free(&boot);
    for (int i = 0; i < N_ZONES; i++)
        gen_level_free(&p.zone[i]);
    gen_vec_free(&p.ptc.live);
    gen_vec_free(&p.str.live);
    gen_vec_free(&p.str.growing);
}
