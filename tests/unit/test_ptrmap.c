/* The pointer map (src/base/ptrmap.h): set and map use, removal inside and
 * across the end of a probe run, growth, and a seeded random run checked
 * against a plain array of (key, value) pairs. */
#include <stdint.h>
#include <stdlib.h>

#include "base/ptrmap.h"
#include "hr_test.h"

/* n keys (multiples of 16, like aligned addresses) whose home slot is `home`
 * in a table of the minimum capacity, found by search. */
static void colliding_keys(size_t home, uint64_t *keys, int n) {
    hr_ptrmap_t m;
    hr_ptrmap_init(&m, 0);
    m.cap = HR_PTRMAP_MIN_CAP;
    for (uint64_t k = 16; n > 0; k += 16)
        if (hr_ptrmap_home_(&m, k) == home)
            keys[--n] = k;
}

static void test_set(void) {
    hr_ptrmap_t m;
    hr_ptrmap_init(&m, 0);
    HR_CHECK(!hr_ptrmap_has(&m, 0x1000));
    HR_CHECK(hr_ptrmap_remove(&m, 0x1000, NULL) == 0);
    int added = -1;
    HR_CHECK(hr_ptrmap_put(&m, 0x1000, &added) != NULL);
    HR_CHECK(added == 1);
    HR_CHECK(hr_ptrmap_put(&m, 0x1000, &added) != NULL);
    HR_CHECK(added == 0);
    HR_CHECK_EQ_U64(m.n, 1);
    HR_CHECK(hr_ptrmap_has(&m, 0x1000));
    HR_CHECK(!hr_ptrmap_has(&m, 0x1010));
    HR_CHECK(hr_ptrmap_put(&m, 0, NULL) == NULL); /* key 0 is reserved */
    HR_CHECK(!hr_ptrmap_has(&m, 0));
    HR_CHECK(hr_ptrmap_remove(&m, 0x1000, NULL) == 1);
    HR_CHECK(!hr_ptrmap_has(&m, 0x1000));
    HR_CHECK_EQ_U64(m.n, 0);
    hr_ptrmap_free(&m);
}

typedef struct rec {
    uint64_t a;
    uint32_t b;
    uint8_t  c;
} rec_t;

static void test_values(void) {
    hr_ptrmap_t m;
    hr_ptrmap_init(&m, sizeof(rec_t));
    rec_t *r = hr_ptrmap_put(&m, 0x40, NULL);
    HR_CHECK(r && r->a == 0 && r->b == 0 && r->c == 0); /* zero-filled */
    HR_CHECK_EQ_U64((uintptr_t)r % 8, 0);
    r->a = 7, r->b = 8, r->c = 9;
    rec_t out = {0};
    HR_CHECK(hr_ptrmap_remove(&m, 0x40, &out) == 1);
    HR_CHECK(out.a == 7 && out.b == 8 && out.c == 9);
    r = hr_ptrmap_put(&m, 0x40, NULL);
    HR_CHECK(r && r->a == 0); /* re-inserted: fresh value */
    hr_ptrmap_free(&m);
}

/* Keys a, b, c share a home; removing the middle one must keep c reachable,
 * and a key with another home that sits in the run must stay put. */
static void test_remove_mid_run(size_t home) {
    uint64_t k[3], other[1];
    colliding_keys(home, k, 3);
    colliding_keys((home + 1) % HR_PTRMAP_MIN_CAP, other, 1);
    hr_ptrmap_t m;
    hr_ptrmap_init(&m, sizeof(uint64_t));
    for (int i = 0; i < 3; i++)
        *(uint64_t *)hr_ptrmap_put(&m, k[i], NULL) = (uint64_t)i + 100;
    *(uint64_t *)hr_ptrmap_put(&m, other[0], NULL) = 500;
    HR_CHECK_EQ_U64(m.cap, HR_PTRMAP_MIN_CAP); /* still one table: real collisions */
    HR_CHECK(hr_ptrmap_remove(&m, k[1], NULL) == 1);
    HR_CHECK(!hr_ptrmap_has(&m, k[1]));
    uint64_t *v0 = hr_ptrmap_get(&m, k[0]), *v2 = hr_ptrmap_get(&m, k[2]);
    uint64_t *vo = hr_ptrmap_get(&m, other[0]);
    HR_CHECK(v0 && *v0 == 100);
    HR_CHECK(v2 && *v2 == 102);
    HR_CHECK(vo && *vo == 500);
    HR_CHECK(hr_ptrmap_remove(&m, k[0], NULL) == 1);
    v2 = hr_ptrmap_get(&m, k[2]);
    vo = hr_ptrmap_get(&m, other[0]);
    HR_CHECK(v2 && *v2 == 102);
    HR_CHECK(vo && *vo == 500);
    HR_CHECK_EQ_U64(m.n, 2);
    hr_ptrmap_free(&m);
}

static void test_remove_mid(void) { test_remove_mid_run(5); }
/* The run starts in the last slot and wraps to slot 0. */
static void test_remove_wrap(void) { test_remove_mid_run(HR_PTRMAP_MIN_CAP - 1); }

static void test_growth_and_iteration(void) {
    hr_ptrmap_t m;
    hr_ptrmap_init(&m, sizeof(uint64_t));
    enum { N = 5000 };
    for (uint64_t i = 1; i <= N; i++)
        *(uint64_t *)hr_ptrmap_put(&m, i * 48, NULL) = i;
    HR_CHECK_EQ_U64(m.n, N);
    HR_CHECK(m.cap >= 2 * N && (m.cap & (m.cap - 1)) == 0);
    int bad = 0;
    for (uint64_t i = 1; i <= N; i++) {
        uint64_t *v = hr_ptrmap_get(&m, i * 48);
        bad += !v || *v != i;
    }
    HR_CHECK_EQ_U64(bad, 0);
    uint64_t seen = 0, sum = 0, key;
    void *val;
    for (size_t it = 0; (it = hr_ptrmap_next(&m, it, &key, &val));) {
        seen++;
        sum += *(uint64_t *)val;
        bad += key != *(uint64_t *)val * 48;
    }
    HR_CHECK_EQ_U64(seen, N);
    HR_CHECK_EQ_U64(sum, (uint64_t)N * (N + 1) / 2);
    HR_CHECK_EQ_U64(bad, 0);
    hr_ptrmap_free(&m);
    HR_CHECK(hr_ptrmap_next(&m, 0, &key, &val) == 0);
}

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random puts and removes over a small key space (many collisions and
 * removals inside runs), checked after every op against a direct array. */
static void test_random_vs_reference(void) {
    enum { KEYS = 700, OPS = 60000 };
    static uint64_t ref[KEYS]; /* 0 = absent, else the value */
    hr_ptrmap_t m;
    hr_ptrmap_init(&m, sizeof(uint64_t));
    uint64_t s = 0x9E3779B97F4A7C15ull, live = 0;
    int bad = 0;
    for (int op = 0; op < OPS; op++) {
        uint64_t r = rng_next(&s), i = r % KEYS, key = (i + 1) * 16;
        if ((r >> 32) % 3 != 0) {
            uint64_t *v = hr_ptrmap_put(&m, key, NULL);
            live += !ref[i];
            *v = ref[i] = (uint64_t)op + 1;
        } else {
            uint64_t out = 0;
            int had = hr_ptrmap_remove(&m, key, &out);
            bad += had != (ref[i] != 0) || out != ref[i];
            live -= had;
            ref[i] = 0;
        }
        uint64_t probe = rng_next(&s) % KEYS;
        uint64_t *v = hr_ptrmap_get(&m, (probe + 1) * 16);
        bad += ref[probe] ? !v || *v != ref[probe] : v != NULL;
    }
    HR_CHECK_EQ_U64(m.n, live);
    for (int i = 0; i < KEYS; i++) {
        uint64_t *v = hr_ptrmap_get(&m, (uint64_t)(i + 1) * 16);
        bad += ref[i] ? !v || *v != ref[i] : v != NULL;
    }
    HR_CHECK_EQ_U64(bad, 0);
    hr_ptrmap_free(&m);
}

int main(void) {
    HR_RUN(test_set);
    HR_RUN(test_values);
    HR_RUN(test_remove_mid);
    HR_RUN(test_remove_wrap);
    HR_RUN(test_growth_and_iteration);
    HR_RUN(test_random_vs_reference);
    return hr_test_done();
}
