/* Strings and containers: text built by realloc growth (geometric x1.5/x2
 * like std::vector/std::string, or +1..32 bytes like naive strcat), dynamic
 * arrays that start calloc'd then grow, fixed calloc'd tables, aligned buffers
 * (SIMD/GPU/page: alignment 16..4096) and frees in random order; the strings
 * scenario. Growth realloc keeps the object's id (realloc(id, id, size)). */
#include "trace/gen_int.h"

#define GROW_MAX   (256u * 1024u) /* a growing object stops here */
#define MODE_GEOM  (1u << 31)

static const uint8_t elem_size[] = {4, 8, 12, 16, 24, 32};

static uint32_t pick_elem(gen_t *g) {
    return elem_size[gen_below(&g->rng, sizeof elem_size)];
}

/* Registers a new object: growing (id, steps | mode) or finished. */
static void track(gen_t *g, gen_strings_t *s, uint32_t id, uint32_t steps, int geom) {
    if (steps) {
        gen_vec_push(&s->growing, id, &g->oom);
        gen_vec_push(&s->growing, steps | (geom ? MODE_GEOM : 0), &g->oom);
    } else {
        gen_vec_push(&s->live, id, &g->oom);
    }
}

static void grow_one(gen_t *g, gen_strings_t *s) {
    size_t pairs = s->growing.n / 2, i = gen_below(&g->rng, (uint32_t)pairs) * 2;
    uint32_t id = s->growing.v[i], info = s->growing.v[i + 1];
    uint64_t sz = g->size[id], nsz;
    if (info & MODE_GEOM)
        nsz = ((gen_chance(&g->rng, 1, 2) ? sz + sz / 2 : sz * 2) + 15) & ~(uint64_t)15;
    else
        nsz = sz + 1 + gen_below(&g->rng, 32);
    if (nsz <= sz)
        nsz = sz + 16;
    g_realloc(g, id, nsz > GROW_MAX ? GROW_MAX : nsz);
    info--;
    if ((info & ~MODE_GEOM) == 0 || nsz >= GROW_MAX) { /* finished: move to live */
        s->growing.v[i] = s->growing.v[s->growing.n - 2];
        s->growing.v[i + 1] = s->growing.v[s->growing.n - 1];
        s->growing.n -= 2;
        gen_vec_push(&s->live, id, &g->oom);
    } else {
        s->growing.v[i + 1] = info;
    }
}

static void free_one(gen_t *g, gen_strings_t *s) {
    g_free(g, gen_vec_take(&s->live, gen_below(&g->rng, (uint32_t)s->live.n)), 0);
}

void gen_strings_step(gen_t *g, gen_strings_t *s) {
    size_t pop = s->live.n + s->growing.n / 2;
    uint32_t free_w = pop > s->target_pop ? 45 : pop > s->target_pop / 2 ? 30 : 8;
    uint32_t r = gen_below(&g->rng, 100);
    if (r < free_w && s->live.n) {
        free_one(g, s);
        return;
    }
    r = gen_below(&g->rng, 100);
    /* a handful of builders at once: growth speeds up when many are pending */
    if (r < (s->growing.n >= 32 ? 90u : 45u) && s->growing.n) {
        grow_one(g, s);
    } else if (r < 70) { /* a string: + small appends or geometric buffer */
        uint32_t id = g_alloc(g, 8 + gen_below(&g->rng, 57), 0, g_thread(g));
        track(g, s, id, gen_below(&g->rng, 13), gen_chance(&g->rng, 2, 5));
    } else if (r < 78) { /* a dynamic array: calloc'd, then doubled */
        uint32_t id = g_calloc(g, 4 + gen_below(&g->rng, 61), pick_elem(g), g_thread(g));
        track(g, s, id, 1 + gen_below(&g->rng, 8), 1);
    } else if (r < 88) { /* a fixed zeroed table */
        uint32_t n = (uint32_t)gen_logsize(&g->rng, 1, 4096);
        track(g, s, g_calloc(g, n, pick_elem(g), g_thread(g)), 0, 0);
    } else if (r < 94) { /* aligned: SIMD (16-64), cache lines, GPU/page (4096) */
        uint32_t align = 16u << gen_below(&g->rng, 9);
        uint64_t sz = gen_logsize(&g->rng, 64, 65536);
        track(g, s, g_alloc(g, sz, align, g_thread(g)), 0, 0);
    } else { /* a plain buffer */
        track(g, s, g_alloc(g, gen_logsize(&g->rng, 16, 16384), 0, g_thread(g)), 0, 0);
    }
}

void gen_strings_clear(gen_t *g, gen_strings_t *s) {
    for (size_t i = 0; i + 1 < s->growing.n; i += 2)
        gen_vec_push(&s->live, s->growing.v[i], &g->oom);
    s->growing.n = 0;
    while (s->live.n && !g->oom)
        free_one(g, s);
}

void gen_scn_strings(gen_t *g) {
    gen_strings_t s = {{0}, {0}, 0};
    uint64_t pop = g->target / 30;
    s.target_pop = (uint32_t)(pop < 50 ? 50 : pop > 3000 ? 3000 : pop);
    g_mark(g, "begin");
    while (g_more(g, 4) && !g->oom)
        gen_strings_step(g, &s);
    g_mark(g, "end");
    gen_strings_clear(g, &s);
    gen_vec_free(&s.live);
    gen_vec_free(&s.growing);
}
