/* Level loading: boot-time persistent objects, asset loads into the SHAR-style
 * level heaps (push/pop around each section, decompression and parse buffers
 * under "Temp"), reverse-order unloads, and the level_load scenario.
 *
 * Heap names come only from the routed heap table (modelled on The Simpsons:
 * Hit & Run's GameMemoryAllocator): Default, Temp, Persistent, Level,
 * LevelMovie, LevelFE, LevelZone, LevelOther, LevelHud, LevelMission,
 * LevelAudio, Debug, Special, Music, AudioPersistent, SmallAlloc.
 * The session scenario (end of file) stitches levels and gameplay together. */
#include "trace/gen_int.h"

#include <string.h>

enum { A_ENTITY, A_MESH, A_TEXTURE, A_CONFIG, A_STREAM, A__COUNT };

/* Level sections in load order: heap, share of the level's events (%), and the
 * asset mix (weights per A_*). */
static const struct {
    const char *heap;
    uint8_t     share;
    uint8_t     w[A__COUNT];
} sections[] = {
    {"Level", 30, {50, 25, 10, 15, 0}},    {"LevelZone", 20, {45, 30, 15, 10, 0}},
    {"LevelOther", 15, {60, 15, 10, 15, 0}}, {"LevelMission", 10, {55, 5, 5, 35, 0}},
    {"LevelHud", 8, {30, 0, 40, 30, 0}},   {"LevelFE", 7, {30, 0, 40, 30, 0}},
    {"LevelAudio", 6, {10, 0, 0, 10, 80}}, {"LevelMovie", 4, {20, 0, 0, 0, 80}},
};
#define N_SECTIONS (sizeof sections / sizeof sections[0])

/* Objects of one level (or streamed zone), in allocation order. */
typedef struct gen_level {
    gen_vec_t objs;
    uint64_t  large_left, medium_left; /* byte caps for big assets */
} gen_level_t;

static void gen_level_init(gen_level_t *lv, uint64_t large_cap, uint64_t medium_cap) {
    memset(lv, 0, sizeof *lv);
    lv->large_left = large_cap;
    lv->medium_left = medium_cap;
}

static void gen_level_free(gen_level_t *lv) { hr_gen_vec_free(&lv->objs); }

/* Medium (1..64 KiB class) and large (256 KiB..4 MiB) sizes, drawn from the
 * level's byte caps; when a cap runs out the asset degrades to a smaller one,
 * which keeps peak live in the tens of MB whatever the level's length. */
static uint64_t medium(gen_t *g, gen_level_t *lv, uint64_t lo, uint64_t hi) {
    uint64_t sz = hr_gen_logsize(&g->rng, lo, hi) & ~(uint64_t)15;
    if (sz <= lv->medium_left) {
        lv->medium_left -= sz;
        return sz;
    }
    return hr_gen_small(g);
}

static uint64_t large(gen_t *g, gen_level_t *lv, uint64_t lo, uint64_t hi) {
    uint64_t sz = hr_gen_logsize(&g->rng, lo, hi) & ~(uint64_t)4095;
    if (sz <= lv->large_left) {
        lv->large_left -= sz;
        return sz;
    }
    return medium(g, lv, 4096, 65536);
}

/* A Temp-heap scratch buffer (decompression, parsing): push/alloc/pop. */
static uint32_t temp_buffer(gen_t *g, uint64_t size, uint16_t th) {
    hr_gen_push(g, "Temp");
    uint32_t id = hr_gen_alloc(g, size, 0, th);
    hr_gen_pop(g);
    return id;
}

#define MAX_ASSET_OBJS 64

/* One asset under the current top heap; survivors are appended to lv->objs in
 * allocation order (frees during the load happen inside the asset). */
static void load_asset(gen_t *g, gen_level_t *lv, int kind) {
    uint32_t keep[MAX_ASSET_OBJS], nk = 0, tmp = UINT32_MAX;
    uint16_t th = hr_gen_thread(g);
    hr_gen_wait(g, hr_gen_logsize(&g->tsrng, 5000, 2000000)); /* file I/O */
    switch (kind) {
    case A_ENTITY: {
        keep[nk++] = hr_gen_alloc(g, 64 + 8 * gen_below(&g->rng, 57), 0, th);
        uint32_t n = 3 + gen_below(&g->rng, 22);
        while (n--)
            keep[nk++] = hr_gen_alloc(g, hr_gen_small(g), 0, th);
        break;
    }
    case A_MESH: {
        tmp = temp_buffer(g, hr_gen_logsize(&g->rng, 8192, 262144), th);
        keep[nk++] = hr_gen_alloc(g, medium(g, lv, 1024, 65536), 0, th);
        keep[nk++] = hr_gen_alloc(g, medium(g, lv, 1024, 32768), 0, th);
        uint32_t n = 2 + gen_below(&g->rng, 5);
        while (n--)
            keep[nk++] = hr_gen_alloc(g, hr_gen_small(g), 0, th);
        break;
    }
    case A_TEXTURE: {
        uint64_t sz = gen_chance(&g->rng, 1, 3) ? large(g, lv, 262144, 4194304)
                                                : medium(g, lv, 4096, 65536);
        uint64_t tsz = sz / 2 + gen_below(&g->rng, (uint32_t)(sz / 4 + 1));
        tmp = temp_buffer(g, tsz > 1048576 ? 1048576 : tsz < 256 ? 256 : tsz, th);
        keep[nk++] = hr_gen_alloc(g, sz, 0, th);
        uint32_t n = 1 + gen_below(&g->rng, 2);
        while (n--)
            keep[nk++] = hr_gen_alloc(g, hr_gen_small(g), 0, th);
        break;
    }
    case A_CONFIG: {
        tmp = temp_buffer(g, hr_gen_logsize(&g->rng, 4096, 65536), th);
        uint32_t n = 5 + gen_below(&g->rng, 36), freed = 0;
        while (n--)
            keep[nk++] = hr_gen_alloc(g, 16 + gen_below(&g->rng, 113), 0, th);
        /* ~20% of the parsed strings were parser temporaries */
        for (uint32_t i = 0; i < nk; i++)
            if (gen_chance(&g->rng, 1, 5)) {
                hr_gen_free(g, keep[i], 0);
                freed++;
            } else {
                keep[i - freed] = keep[i];
            }
        nk -= freed;
        break;
    }
    default: { /* A_STREAM: sound banks, movie/music stream buffers */
        keep[nk++] = hr_gen_alloc(g, gen_chance(&g->rng, 1, 4) ? large(g, lv, 262144, 1048576)
                                                            : medium(g, lv, 16384, 65536),
                             0, th);
        uint32_t n = 1 + gen_below(&g->rng, 3);
        while (n--)
            keep[nk++] = hr_gen_alloc(g, hr_gen_small(g), 0, th);
        break;
    }
    }
    if (tmp != UINT32_MAX)
        hr_gen_free(g, tmp, 0);
    for (uint32_t i = 0; i < nk; i++)
        hr_gen_vec_push(&lv->objs, keep[i], &g->oom);
}

static int pick_kind(gen_t *g, const uint8_t *w) {
    uint32_t sum = 0, r;
    for (int k = 0; k < A__COUNT; k++)
        sum += w[k];
    r = gen_below(&g->rng, sum);
    for (int k = 0; k < A__COUNT; k++) {
        if (r < w[k])
            return k;
        r -= w[k];
    }
    return A_ENTITY;
}

/* One streamed chunk of `assets` assets under the current top heap. */
static void gen_level_assets(gen_t *g, gen_level_t *lv, uint32_t assets) {
    while (assets-- && !g->oom)
        load_asset(g, lv, pick_kind(g, sections[1].w)); /* zone mix */
}

/* Loads assets into the level's heap sections (each push/pop'd, temporaries
 * under "Temp") until events + lv's objects reach `goal`. */
static void gen_level_load(gen_t *g, gen_level_t *lv, uint64_t goal) {
    uint64_t start = hr_gen_n(g) + lv->objs.n, cum = 0;
    if (goal <= start + 2)
        return;
    for (size_t s = 0; s < N_SECTIONS && !g->oom; s++) {
        cum += sections[s].share;
        uint64_t sec_goal = start + (goal - start - 2) * cum / 100;
        if (hr_gen_n(g) + lv->objs.n + 2 >= sec_goal)
            continue; /* no room for this section in a tiny level */
        hr_gen_push(g, sections[s].heap);
        while (hr_gen_n(g) + lv->objs.n + 1 < sec_goal && !g->oom)
            load_asset(g, lv, pick_kind(g, sections[s].w));
        hr_gen_pop(g);
    }
}

/* Frees the level's objects in roughly reverse order. */
static void gen_level_unload(gen_t *g, gen_level_t *lv) {
    uint32_t *v = lv->objs.v;
    for (size_t i = lv->objs.n; i-- > 0 && !g->oom;) {
        if (i && gen_chance(&g->rng, 1, 4)) { /* roughly, not exactly, reverse */
            size_t j = i - 1 - gen_below(&g->rng, (uint32_t)(i < 8 ? i : 8));
            uint32_t x = v[i];
            v[i] = v[j];
            v[j] = x;
        }
        hr_gen_free(g, v[i], 0);
    }
    lv->objs.n = 0;
}

/* Engine heaps at boot: share of the objects (%) and the medium bytes cap. */
static const struct {
    const char *heap;
    uint8_t     share;
} boot_heaps[] = {{"Persistent", 45}, {"AudioPersistent", 15}, {"Music", 5},
                  {"Default", 20},    {"Debug", 10},           {"Special", 5}};

/* Boot-time persistent objects under engine heaps; returns them in *out. */
static void gen_boot(gen_t *g, gen_vec_t *out, uint32_t n_objects) {
    gen_level_t caps;
    gen_level_init(&caps, 1u << 20, 4u << 20);
    for (size_t h = 0; h < sizeof boot_heaps / sizeof boot_heaps[0] && !g->oom; h++) {
        uint32_t n = n_objects * boot_heaps[h].share / 100 + 1;
        hr_gen_push(g, boot_heaps[h].heap);
        if (h == 2) { /* Music: two streaming buffers first */
            hr_gen_vec_push(out, hr_gen_alloc(g, large(g, &caps, 262144, 524288), 0, 0), &g->oom);
            hr_gen_vec_push(out, hr_gen_alloc(g, large(g, &caps, 262144, 524288), 0, 0), &g->oom);
        }
        while (n-- && !g->oom) {
            uint64_t sz =
                gen_chance(&g->rng, 1, 12) ? medium(g, &caps, 1024, 65536) : hr_gen_small(g);
            hr_gen_vec_push(out, hr_gen_alloc(g, sz, 0, 0), &g->oom);
        }
        hr_gen_pop(g);
    }
}

/* level_load: boot (left alive), then one level per ~200k events, each loaded
 * section by section and unloaded in roughly reverse order. */
void hr_gen_scn_level_load(gen_t *g) {
    gen_vec_t boot = {0};
    uint64_t e = g->target;
    uint32_t boot_n = (uint32_t)(e / 40 < 20 ? 20 : e / 40 > 3000 ? 3000 : e / 40);
    hr_gen_mark(g, "boot");
    gen_boot(g, &boot, boot_n);
    hr_gen_mark(g, "boot_done");
    uint64_t levels = 1 + e / 200000;
    for (uint64_t l = 0; l < levels && !g->oom; l++) {
        uint64_t left = e > hr_gen_n(g) ? e - hr_gen_n(g) : 0;
        uint64_t goal = hr_gen_n(g) + left / (levels - l);
        gen_level_t lv;
        gen_level_init(&lv, 16u << 20, 12u << 20);
        hr_gen_mark(g, "level_load_begin");
        gen_level_load(g, &lv, goal > 3 ? goal - 3 : 0);
        hr_gen_mark(g, "level_loaded");
        hr_gen_mark(g, "level_unload_begin");
        gen_level_unload(g, &lv);
        hr_gen_mark(g, "level_unloaded");
        gen_level_free(&lv);
    }
    hr_gen_vec_free(&boot); /* boot objects intentionally stay live */
}

/* ---- session -------------------------------------------------------------
 * The session scenario: one game session stitched from the other patterns.
 *
 *   boot (engine heaps) -> level 1 load -> play -> level 1 unload ->
 *   level 2 load -> play -> level 2 unload -> shutdown (boot objects freed)
 *
 * A play frame = solver jobs under push "Temp", particle churn under push
 * "LevelOther", a few string/array operations on the base heap, now and then
 * a streamed zone chunk under push "LevelZone" (the oldest of three zones is
 * unloaded first), then frame(N). Every object is freed by the end. */
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
    hr_gen_push(g, "Temp");
    uint32_t jobs = 1 + gen_below(&g->rng, 2);
    int big = gen_chance(&g->rng, 1, 60);
    for (uint32_t j = 0; j < jobs; j++)
        hr_gen_frame_job(g, big && j == 0);
    hr_gen_pop(g);

    hr_gen_push(g, "LevelOther");
    hr_gen_particles_step(g, &p->ptc);
    hr_gen_pop(g);

    for (uint32_t n = 1 + gen_below(&g->rng, 6); n--;)
        hr_gen_strings_step(g, &p->str);

    if (gen_chance(&g->rng, 1, 200) && /* streaming: replace the oldest zone */
        hr_gen_more(g, frame_reserve(p) + 70ull * p->zone_assets)) {
        gen_level_t *z = &p->zone[p->next_zone++ % N_ZONES];
        gen_level_unload(g, z);
        zone_reset(z);
        hr_gen_push(g, "LevelZone");
        gen_level_assets(g, z, 2 + gen_below(&g->rng, p->zone_assets - 1));
        hr_gen_pop(g);
    }
    hr_gen_frame(g);
}

static void play_end(gen_t *g, play_t *p) {
    hr_gen_particles_clear(g, &p->ptc);
    hr_gen_strings_clear(g, &p->str);
    for (uint32_t i = N_ZONES; i-- > 0;) /* most recently streamed first */
        gen_level_unload(g, &p->zone[(p->next_zone + i) % N_ZONES]);
}

/* One level: load `load_events`, then play until `play_until` (events plus
 * the frees still owed) or until the session budget runs out, then unload. */
static void level(gen_t *g, play_t *p, uint64_t load_events, uint64_t play_until) {
    gen_level_t lv;
    gen_level_init(&lv, 16u << 20, 12u << 20);
    hr_gen_mark(g, "level_load_begin");
    gen_level_load(g, &lv, hr_gen_n(g) + load_events);
    hr_gen_mark(g, "level_loaded");
    while (!g->oom && hr_gen_more(g, frame_reserve(p)) &&
           hr_gen_n(g) + g->n_live < play_until)
        play_frame(g, p);
    hr_gen_mark(g, "level_unload_begin");
    play_end(g, p);
    gen_level_unload(g, &lv);
    hr_gen_mark(g, "level_unloaded");
    gen_level_free(&lv);
}

void hr_gen_scn_session(gen_t *g) {
    uint64_t e = g->target;
    play_t p = {0};
    p.ptc.target_pop = (uint32_t)clampu(e / 100, 50, 1500);
    p.str.target_pop = (uint32_t)clampu(e / 100, 50, 1000);
    p.zone_assets = (uint32_t)clampu(e / 20000, 3, 40);
    for (int i = 0; i < N_ZONES; i++)
        gen_level_init(&p.zone[i], 4u << 20, 4u << 20);

    gen_vec_t boot = {0};
    hr_gen_mark(g, "boot");
    gen_boot(g, &boot, (uint32_t)clampu(e / 100, 20, 1500));
    hr_gen_mark(g, "boot_done");

    uint64_t load = clampu(e * 15 / 100, 100, 150000);
    level(g, &p, load, e / 2);
    level(g, &p, load, UINT64_MAX);

    hr_gen_mark(g, "shutdown");
    while (boot.n && !g->oom)
        hr_gen_free(g, boot.v[--boot.n], 0);
    hr_gen_vec_free(&boot);
    for (int i = 0; i < N_ZONES; i++)
        gen_level_free(&p.zone[i]);
    hr_gen_vec_free(&p.ptc.live);
    hr_gen_vec_free(&p.str.live);
    hr_gen_vec_free(&p.str.growing);
}
