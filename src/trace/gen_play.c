/* Per-frame and gameplay allocation patterns: Box2D-style solver stacks
 * (strictly LIFO temporaries, b2StackAllocator: 100 KiB, 32 entries),
 * fixed-size particle churn (b2BlockAllocator / orxBank cells), and strings/
 * containers (realloc growth, calloc, aligned); the frame_loop, particles and
 * strings scenarios. */
#include "trace/gen_int.h"

#define STACK_ENTRIES 32

/* One solver job on one thread. Normal jobs interleave pushes and pops (a
 * random walk that always pops the top); a `big` job keeps 9-14 buffers of
 * 12-24 KiB live at once, overflowing the 100 KiB stack like a huge island. */
void hr_gen_frame_job(gen_t *g, int big) {
    uint32_t stack[STACK_ENTRIES];
    int sp = 0;
    uint16_t th = hr_gen_thread(g);
    if (big) {
        uint32_t n = 9 + gen_below(&g->rng, 6);
        for (uint32_t i = 0; i < n; i++)
            stack[sp++] =
                hr_gen_alloc(g, hr_gen_logsize(&g->rng, 12288, 24576) & ~(uint64_t)7, 0, th);
        while (sp)
            hr_gen_free(g, stack[--sp], 0);
        return;
    }
    uint32_t left = 2 + gen_below(&g->rng, 10);
    while ((left || sp) && !g->oom) {
        if (left && (sp == 0 || gen_below(&g->rng, 100) < 65)) {
            stack[sp++] = hr_gen_alloc(g, hr_gen_logsize(&g->rng, 64, 24576) & ~(uint64_t)7, 0, th);
            left--;
        } else {
            hr_gen_free(g, stack[--sp], 0);
        }
    }
}

/* frame_loop: a physics world (long-lived bodies, broadphase) stepped at
 * 60 Hz; a long-lived object is never freed in the frame that allocated it. */
void hr_gen_scn_frame_loop(gen_t *g) {
    gen_vec_t ll = {0};
    hr_gen_mark(g, "world_create");
    uint32_t n0 = 16 + gen_below(&g->rng, 32);
    hr_gen_vec_push(&ll, hr_gen_alloc(g, 16384, 0, 0), &g->oom); /* contact manager */
    hr_gen_vec_push(&ll, hr_gen_alloc(g, 8192, 0, 0), &g->oom);  /* broadphase tree */
    while (n0--)
        hr_gen_vec_push(&ll,
                        hr_gen_alloc(g, hr_gen_logsize(&g->rng, 64, 4096) & ~(uint64_t)7, 0, 0),
                        &g->oom);
    while (hr_gen_more(g, 20) && !g->oom) { /* a frame adds <= ~75 events */
        uint32_t jobs = 1 + gen_below(&g->rng, 3);
        int big = gen_chance(&g->rng, 1, 40);
        if (ll.n > 8 && gen_chance(&g->rng, 1, 25))
            hr_gen_free(g, gen_vec_take(&ll, gen_below(&g->rng, (uint32_t)ll.n)), 0);
        for (uint32_t j = 0; j < jobs; j++) {
            hr_gen_frame_job(g, big && j == 0);
            if (gen_chance(&g->rng, 1, 40))
                hr_gen_vec_push(&ll,
                                hr_gen_alloc(g, hr_gen_logsize(&g->rng, 64, 4096) & ~(uint64_t)7,
                                             0, hr_gen_thread(g)),
                                &g->oom);
        }
        hr_gen_frame(g);
    }
    hr_gen_mark(g, "world_destroy");
    while (ll.n && !g->oom)
        hr_gen_free(g, ll.v[--ll.n], 0);
    hr_gen_vec_free(&ll);
}

/* ---- particles ------------------------------------------------------------ */

static const uint16_t ptc_size[] = {32, 48, 64, 96, 128};
static const uint8_t  ptc_weight[] = {50, 15, 20, 10, 5}; /* sums to 100 */

static uint64_t ptc_pick(gen_t *g) {
    uint32_t r = gen_below(&g->rng, 100);
    for (int i = 0; i < 5; i++) {
        if (r < ptc_weight[i])
            return ptc_size[i];
        r -= ptc_weight[i];
    }
    return ptc_size[0];
}

static void ptc_spawn(gen_t *g, gen_particles_t *p, uint32_t n, uint64_t size) {
    while (n-- && !g->oom)
        hr_gen_vec_push(&p->live, hr_gen_alloc(g, size ? size : ptc_pick(g), 0, hr_gen_thread(g)),
                        &g->oom);
}

static void ptc_kill(gen_t *g, gen_particles_t *p, uint64_t n) {
    while (n-- && p->live.n && !g->oom) /* sized, like b2BlockAllocator::Free(p, size) */
        hr_gen_free(g, gen_vec_take(&p->live, gen_below(&g->rng, (uint32_t)p->live.n)), 1);
}

/* Rate of births per frame so that, with a mean lifetime of 83 frames, the
 * population hovers around target_pop: half from emitters, half from bursts. */
static uint32_t ptc_rate(const gen_particles_t *p) {
    return p->target_pop / 166 ? p->target_pop / 166 : 1;
}

void hr_gen_particles_step(gen_t *g, gen_particles_t *p) {
    uint32_t s = ptc_rate(p), pop = (uint32_t)p->live.n;
    uint64_t kills = pop / 83 + (gen_below(&g->rng, 83) < pop % 83);
    if (pop > p->target_pop)
        kills += (pop - p->target_pop) / 32;
    ptc_kill(g, p, kills / 2); /* expired last frame */
    ptc_spawn(g, p, gen_below(&g->rng, 2 * s + 1), 0);
    if (gen_chance(&g->rng, 1, 12)) /* explosion: one kind, many at once */
        ptc_spawn(g, p, 6 * s + gen_below(&g->rng, 12 * s + 1), ptc_pick(g));
    ptc_kill(g, p, kills - kills / 2);
}

void hr_gen_particles_clear(gen_t *g, gen_particles_t *p) {
    ptc_kill(g, p, p->live.n);
}

/* Half the worst case one step can add (events + new live objects), so the
 * total lands within +-20 rate units of the target. */
static uint64_t ptc_reserve(const gen_particles_t *p) { return 20ull * ptc_rate(p) + 8; }

void hr_gen_scn_particles(gen_t *g) {
    gen_particles_t p = {{0}, 0};
    uint64_t pop = g->target / 40;
    p.target_pop = (uint32_t)(pop < 50 ? 50 : pop > 4000 ? 4000 : pop);
    hr_gen_mark(g, "level_start");
    ptc_spawn(g, &p, p.target_pop / 2, 0);
    while (hr_gen_more(g, ptc_reserve(&p)) && !g->oom) {
        hr_gen_particles_step(g, &p);
        hr_gen_frame(g);
    }
    hr_gen_mark(g, "level_end");
    hr_gen_particles_clear(g, &p);
    hr_gen_vec_free(&p.live);
}

/* ---- strings -------------------------------------------------------------
 * Strings and containers: text built by realloc growth (geometric x1.5/x2
 * like std::vector/std::string, or +1..32 bytes like naive strcat), dynamic
 * arrays that start calloc'd then grow, fixed calloc'd tables, aligned buffers
 * (SIMD/GPU/page: alignment 16..4096) and frees in random order; the strings
 * scenario. Growth realloc keeps the object's id (realloc(id, id, size)). */
#define GROW_MAX   (256u * 1024u) /* a growing object stops here */
#define MODE_GEOM  (1u << 31)

static const uint8_t elem_size[] = {4, 8, 12, 16, 24, 32};

static uint32_t pick_elem(gen_t *g) {
    return elem_size[gen_below(&g->rng, sizeof elem_size)];
}

/* Registers a new object: growing (id, steps | mode) or finished. */
static void track(gen_t *g, gen_strings_t *s, uint32_t id, uint32_t steps, int geom) {
    if (steps) {
        hr_gen_vec_push(&s->growing, id, &g->oom);
        hr_gen_vec_push(&s->growing, steps | (geom ? MODE_GEOM : 0), &g->oom);
    } else {
        hr_gen_vec_push(&s->live, id, &g->oom);
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
    hr_gen_realloc(g, id, nsz > GROW_MAX ? GROW_MAX : nsz);
    info--;
    if ((info & ~MODE_GEOM) == 0 || nsz >= GROW_MAX) { /* finished: move to live */
        s->growing.v[i] = s->growing.v[s->growing.n - 2];
        s->growing.v[i + 1] = s->growing.v[s->growing.n - 1];
        s->growing.n -= 2;
        hr_gen_vec_push(&s->live, id, &g->oom);
    } else {
        s->growing.v[i + 1] = info;
    }
}

static void free_one(gen_t *g, gen_strings_t *s) {
    hr_gen_free(g, gen_vec_take(&s->live, gen_below(&g->rng, (uint32_t)s->live.n)), 0);
}

void hr_gen_strings_step(gen_t *g, gen_strings_t *s) {
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
        uint32_t id = hr_gen_alloc(g, 8 + gen_below(&g->rng, 57), 0, hr_gen_thread(g));
        track(g, s, id, gen_below(&g->rng, 13), gen_chance(&g->rng, 2, 5));
    } else if (r < 78) { /* a dynamic array: calloc'd, then doubled */
        uint32_t id = hr_gen_calloc(g, 4 + gen_below(&g->rng, 61), pick_elem(g), hr_gen_thread(g));
        track(g, s, id, 1 + gen_below(&g->rng, 8), 1);
    } else if (r < 88) { /* a fixed zeroed table */
        uint32_t n = (uint32_t)hr_gen_logsize(&g->rng, 1, 4096);
        track(g, s, hr_gen_calloc(g, n, pick_elem(g), hr_gen_thread(g)), 0, 0);
    } else if (r < 94) { /* aligned: SIMD (16-64), cache lines, GPU/page (4096) */
        uint32_t align = 16u << gen_below(&g->rng, 9);
        uint64_t sz = hr_gen_logsize(&g->rng, 64, 65536);
        track(g, s, hr_gen_alloc(g, sz, align, hr_gen_thread(g)), 0, 0);
    } else { /* a plain buffer */
        track(g, s, hr_gen_alloc(g, hr_gen_logsize(&g->rng, 16, 16384), 0, hr_gen_thread(g)), 0, 0);
    }
}

void hr_gen_strings_clear(gen_t *g, gen_strings_t *s) {
    for (size_t i = 0; i + 1 < s->growing.n; i += 2)
        hr_gen_vec_push(&s->live, s->growing.v[i], &g->oom);
    s->growing.n = 0;
    while (s->live.n && !g->oom)
        free_one(g, s);
}

void hr_gen_scn_strings(gen_t *g) {
    gen_strings_t s = {{0}, {0}, 0};
    uint64_t pop = g->target / 30;
    s.target_pop = (uint32_t)(pop < 50 ? 50 : pop > 3000 ? 3000 : pop);
    hr_gen_mark(g, "begin");
    while (hr_gen_more(g, 4) && !g->oom)
        hr_gen_strings_step(g, &s);
    hr_gen_mark(g, "end");
    hr_gen_strings_clear(g, &s);
    hr_gen_vec_free(&s.live);
    hr_gen_vec_free(&s.growing);
}
