/* The --verify checker (src/replay/verify.c): valid call sequences pass,
 * each kind of violation is reported with its kind and event index, the
 * checker stops after the first one, and a million live blocks are handled
 * (the interval structure is logarithmic, not a scan). Fake blocks are
 * carved from one aligned buffer so each case decides the addresses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hr_test.h"
#include "replay/verify.h"

static unsigned char *arena; /* 64-aligned, ARENA bytes */
#define ARENA 4096

static hr_verify_t *fresh(uint32_t n_ids) {
    memset(arena, 0x33, ARENA);
    hr_error_t err = {{0}};
    hr_verify_t *v = hr_verify_new(n_ids, &err);
    if (!v)
        printf("# hr_verify_new: %s\n", err.msg);
    return v;
}

/* Checks the verdict: kind and (when not ok) event index. */
#define EXPECT(v, k, ev)                                                      \
    do {                                                                      \
        uint64_t e_ = 0;                                                      \
        const char *m_ = NULL;                                                \
        hr_verify_kind_t k_ = hr_verify_result((v), &e_, &m_);                \
        HR_CHECK_STR(hr_verify_kind_name(k_), hr_verify_kind_name(k));        \
        if ((k) != HR_VERIFY_OK)                                              \
            HR_CHECK_EQ_U64(e_, ev);                                          \
        if (k_ != (k))                                                        \
            printf("# message: %s\n", m_ ? m_ : "(null)");                    \
    } while (0)

static void kind_names(void) {
    HR_CHECK_STR(hr_verify_kind_name(HR_VERIFY_OK), "ok");
    HR_CHECK_STR(hr_verify_kind_name(HR_VERIFY_MISALIGNED), "misaligned");
    HR_CHECK_STR(hr_verify_kind_name(HR_VERIFY_OVERLAP), "overlap");
    HR_CHECK_STR(hr_verify_kind_name(HR_VERIFY_CORRUPT), "corrupt");
    HR_CHECK_STR(hr_verify_kind_name(HR_VERIFY_NOT_ZERO), "calloc_not_zero");
}

static void default_alignment_rule(void) {
    HR_CHECK_EQ_U64(hr_verify_required_align(0, 0), 1);
    HR_CHECK_EQ_U64(hr_verify_required_align(1, 0), 1);
    HR_CHECK_EQ_U64(hr_verify_required_align(3, 0), 2);
    HR_CHECK_EQ_U64(hr_verify_required_align(8, 0), 8);
    HR_CHECK_EQ_U64(hr_verify_required_align(12, 0), 8);
    HR_CHECK_EQ_U64(hr_verify_required_align(16, 0), HR_VERIFY_DEFAULT_ALIGN);
    HR_CHECK_EQ_U64(hr_verify_required_align(1000, 0), HR_VERIFY_DEFAULT_ALIGN);
    HR_CHECK_EQ_U64(hr_verify_required_align(8, 64), 64);
}

/* alloc, calloc, realloc (grow, shrink, in place, from nothing, failed) and
 * free of real malloc blocks: no violation, every call counted. */
static void valid_sequence(void) {
    hr_verify_t *v = fresh(8);
    if (!v)
        return;
    char *a = malloc(40), *b = calloc(3, 20), *c = aligned_alloc(64, 128), *z = malloc(0);
    hr_verify_alloc(v, 0, 0, a, 40, 0, 0);
    hr_verify_alloc(v, 1, 1, b, 60, 0, 1);
    hr_verify_alloc(v, 2, 2, c, 128, 64, 0);
    hr_verify_alloc(v, 3, 3, z, 0, 0, 0);
    hr_verify_alloc(v, 4, 4, NULL, 100, 0, 0); /* a failed alloc is no violation */
    a[20] = 'x';                               /* the middle is the program's */
    hr_verify_before_realloc(v, 5, 0, a, 40);
    char *a2 = realloc(a, 4000);
    hr_verify_after_realloc(v, 5, 0, 5, a2, 40, 4000);
    hr_verify_before_realloc(v, 6, 5, a2, 4000);
    char *a3 = realloc(a2, 10);
    hr_verify_after_realloc(v, 6, 5, 6, a3, 4000, 10);
    hr_verify_before_realloc(v, 7, 7, NULL, 0); /* realloc of an empty id */
    char *d = realloc(NULL, 24);
    hr_verify_after_realloc(v, 7, 7, 7, d, 0, 24);
    hr_verify_before_realloc(v, 8, 6, a3, 10); /* failed realloc: old stays */
    hr_verify_after_realloc(v, 8, 6, 4, NULL, 10, 1u << 20);
    HR_CHECK_EQ_U64(hr_verify_live(v), 5);
    hr_verify_before_free(v, 8, 6, a3, 10);
    free(a3);
    hr_verify_before_free(v, 9, 1, b, 60);
    free(b);
    hr_verify_before_free(v, 10, 2, c, 128);
    free(c);
    hr_verify_before_free(v, 11, 3, z, 0);
    free(z);
    hr_verify_before_free(v, 12, 7, d, 24);
    free(d);
    EXPECT(v, HR_VERIFY_OK, 0);
    HR_CHECK_EQ_U64(hr_verify_live(v), 0);
    HR_CHECK_EQ_U64(hr_verify_checked(v), 13);
    const char *msg = NULL;
    hr_verify_result(v, NULL, &msg);
    HR_CHECK_STR(msg, "");
    hr_verify_free(v);
}

/* Adjacent blocks and distinct zero-size blocks are fine; a block starting
 * inside its predecessor, one running into its successor and one at the same
 * address are overlaps, reported at their event. */
static void overlap(void) {
    hr_verify_t *v = fresh(8);
    if (!v)
        return;
    hr_verify_alloc(v, 0, 0, arena, 64, 0, 0);
    hr_verify_alloc(v, 1, 1, arena + 64, 64, 0, 0);
    hr_verify_alloc(v, 2, 2, arena + 128, 0, 0, 0);
    hr_verify_alloc(v, 3, 3, arena + 129, 0, 0, 0);
    hr_verify_alloc(v, 4, 4, arena + 256, 16, 0, 0);
    EXPECT(v, HR_VERIFY_OK, 0);
    hr_verify_alloc(v, 5, 5, arena + 96, 16, 0, 0); /* inside id 1 */
    EXPECT(v, HR_VERIFY_OVERLAP, 5);
    const char *msg = NULL;
    hr_verify_result(v, NULL, &msg);
    HR_CHECK(strstr(msg, "event 5 (alloc id 5, 16 bytes)") == msg);
    HR_CHECK(strstr(msg, "overlaps live block id 1") != NULL);
    HR_CHECK(strstr(msg, ",+64)") != NULL);
    /* stopped: later calls are not checked and change nothing */
    uint64_t n = hr_verify_checked(v);
    hr_verify_alloc(v, 6, 6, arena + 1, 64, 0, 0);
    hr_verify_before_free(v, 7, 0, arena, 64);
    HR_CHECK_EQ_U64(hr_verify_checked(v), n);
    EXPECT(v, HR_VERIFY_OVERLAP, 5);
    hr_verify_free(v);

    v = fresh(8); /* runs into the successor */
    hr_verify_alloc(v, 0, 0, arena + 512, 32, 0, 0);
    hr_verify_alloc(v, 1, 1, arena + 480, 48, 0, 0);
    EXPECT(v, HR_VERIFY_OVERLAP, 1);
    hr_verify_free(v);

    v = fresh(8); /* the same address twice; freeing in between is fine */
    hr_verify_alloc(v, 0, 0, arena, 32, 0, 0);
    hr_verify_before_free(v, 1, 0, arena, 32);
    hr_verify_alloc(v, 2, 1, arena, 32, 0, 0);
    hr_verify_alloc(v, 3, 2, arena, 8, 0, 0);
    EXPECT(v, HR_VERIFY_OVERLAP, 3);
    hr_verify_free(v);

    v = fresh(8); /* a realloc result overlapping another live block */
    hr_verify_alloc(v, 0, 0, arena, 32, 0, 0);
    hr_verify_alloc(v, 1, 1, arena + 64, 32, 0, 0);
    hr_verify_before_realloc(v, 2, 0, arena, 32);
    hr_verify_after_realloc(v, 2, 0, 2, arena, 32, 80); /* grows into id 1 */
    EXPECT(v, HR_VERIFY_OVERLAP, 2);
    hr_verify_free(v);
}

static void misaligned(void) {
    hr_verify_t *v = fresh(8);
    if (!v)
        return;
    hr_verify_alloc(v, 0, 0, arena + 8, 8, 0, 0);    /* 8 bytes need 8 */
    hr_verify_alloc(v, 1, 1, arena + 19, 1, 0, 0);   /* 1 byte needs 1 */
    hr_verify_alloc(v, 2, 2, arena + 32, 100, 32, 0);
    EXPECT(v, HR_VERIFY_OK, 0);
    hr_verify_alloc(v, 3, 3, arena + 136, 24, 0, 0); /* 24 bytes need 16 */
    EXPECT(v, HR_VERIFY_MISALIGNED, 3);
    hr_verify_free(v);

    v = fresh(8);
    hr_verify_alloc(v, 0, 0, arena + 16, 16, 64, 0); /* explicit 64 */
    EXPECT(v, HR_VERIFY_MISALIGNED, 0);
    hr_verify_free(v);

    v = fresh(8);
    hr_verify_alloc(v, 0, 0, arena, 16, 0, 0);
    hr_verify_before_realloc(v, 1, 0, arena, 16);
    hr_verify_after_realloc(v, 1, 0, 0, arena + 33, 16, 48);
    EXPECT(v, HR_VERIFY_MISALIGNED, 1);
    hr_verify_free(v);
}

/* A byte changed in the head or the tail pattern is seen at the free or the
 * realloc of the block; bytes in the middle belong to the program. */
static void corrupt(void) {
    static const struct {
        uint64_t size, off;
    } rows[] = {{100, 0}, {100, 15}, {100, 84}, {100, 99}, {20, 19}, {5, 4}, {1, 0}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        hr_verify_t *v = fresh(4);
        if (!v)
            return;
        hr_verify_alloc(v, 0, 0, arena, rows[i].size, 0, 0);
        hr_verify_alloc(v, 1, 1, arena + 256, 64, 0, 0);
        arena[rows[i].off] ^= 0x40;
        hr_verify_before_free(v, 2, 1, arena + 256, 64);
        hr_verify_before_free(v, 3, 0, arena, rows[i].size);
        EXPECT(v, HR_VERIFY_CORRUPT, 3);
        hr_verify_free(v);
    }
    hr_verify_t *v = fresh(4);
    hr_verify_alloc(v, 0, 0, arena, 100, 0, 0);
    memset(arena + 16, 0, 68); /* the middle: not checked */
    hr_verify_before_free(v, 1, 0, arena, 100);
    EXPECT(v, HR_VERIFY_OK, 0);
    hr_verify_alloc(v, 2, 1, arena, 48, 0, 0);
    arena[47] = 0;
    hr_verify_before_realloc(v, 3, 1, arena, 48);
    EXPECT(v, HR_VERIFY_CORRUPT, 3);
    hr_verify_free(v);
}

static void calloc_not_zero(void) {
    hr_verify_t *v = fresh(4);
    if (!v)
        return;
    memset(arena, 0, 200);
    hr_verify_alloc(v, 0, 0, arena, 200, 0, 1);
    EXPECT(v, HR_VERIFY_OK, 0);
    memset(arena + 1024, 0, 64);
    arena[1024 + 63] = 1; /* the last byte */
    hr_verify_alloc(v, 1, 1, arena + 1024, 64, 0, 1);
    EXPECT(v, HR_VERIFY_NOT_ZERO, 1);
    hr_verify_free(v);
}

/* realloc moving the block: the old pattern bytes inside min(old, new) must
 * come along; a new block that lost them is corrupt at the realloc event. */
static void realloc_prefix(void) {
    unsigned char *from = arena, *to = arena + 1024;
    /* old size, new size, a pattern byte inside the preserved prefix */
    static const uint64_t sizes[][3] = {{100, 200, 99}, {100, 50, 15}, {100, 10, 9}, {8, 8, 7}, {30, 31, 29}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t os = sizes[i][0], ns = sizes[i][1], keep = os < ns ? os : ns;
        for (int lose = 0; lose < 2; lose++) {
            hr_verify_t *v = fresh(4);
            if (!v)
                return;
            hr_verify_alloc(v, 0, 0, from, os, 0, 0);
            hr_verify_before_realloc(v, 1, 0, from, os);
            memcpy(to, from, keep);
            if (lose)
                to[sizes[i][2]] ^= 1;
            hr_verify_after_realloc(v, 1, 0, 1, to, os, ns);
            EXPECT(v, lose ? HR_VERIFY_CORRUPT : HR_VERIFY_OK, 1);
            hr_verify_before_free(v, 2, 1, to, ns); /* the new pattern */
            EXPECT(v, lose ? HR_VERIFY_CORRUPT : HR_VERIFY_OK, 1);
            if (!lose)
                HR_CHECK_EQ_U64(hr_verify_live(v), 0);
            hr_verify_free(v);
        }
    }
}

/* A million live blocks from malloc, then 300000 random frees and
 * allocations, then everything freed: the interval structure must be
 * logarithmic for this to finish in a blink (time is not asserted). */
static void stress_million(void) {
    enum { N = 1000000, OPS = 300000 };
    hr_verify_t *v = fresh(N + 1); /* id N: the overlap at the end */
    void **ptr = calloc(N, sizeof *ptr);
    uint32_t *size = calloc(N, sizeof *size);
    if (!v || !ptr || !size)
        HR_SKIP("out of memory");
    uint64_t ev = 0, x = 88172645463325252ull;
    for (uint32_t id = 0; id < N; id++, ev++) {
        size[id] = (uint32_t)(id * 2654435761u >> 26); /* 0..63 */
        ptr[id] = malloc(size[id]);
        hr_verify_alloc(v, ev, id, ptr[id], size[id], 0, 0);
    }
    for (uint32_t i = 0; i < OPS; i++, ev++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t id = (uint32_t)(x % N);
        if (ptr[id]) {
            hr_verify_before_free(v, ev, id, ptr[id], size[id]);
            free(ptr[id]);
            ptr[id] = NULL;
        } else {
            size[id] = (uint32_t)(x >> 40) % 300;
            ptr[id] = malloc(size[id]);
            hr_verify_alloc(v, ev, id, ptr[id], size[id], 0, 0);
        }
    }
    for (uint32_t id = 0; id < N / 2; id++, ev++)
        if (ptr[id]) {
            hr_verify_before_free(v, ev, id, ptr[id], size[id]);
            free(ptr[id]);
            ptr[id] = NULL;
        }
    EXPECT(v, HR_VERIFY_OK, 0);
    HR_CHECK(hr_verify_checked(v) >= N + OPS);
    /* the neighbour lookup still finds a block inside one of the survivors */
    uint32_t victim = N / 2;
    while (victim < N && (!ptr[victim] || size[victim] < 32))
        victim++;
    HR_CHECK(victim < N);
    if (victim < N)
        hr_verify_alloc(v, ev, N, (char *)ptr[victim] + 16, 8, 0, 0);
    EXPECT(v, HR_VERIFY_OVERLAP, ev);
    for (uint32_t id = N / 2; id < N; id++)
        free(ptr[id]);
    free(ptr);
    free(size);
    hr_verify_free(v);
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    arena = aligned_alloc(64, ARENA);
    if (!arena)
        return 1;
    HR_RUN(kind_names);
    HR_RUN(default_alignment_rule);
    HR_RUN(valid_sequence);
    HR_RUN(overlap);
    HR_RUN(misaligned);
    HR_RUN(corrupt);
    HR_RUN(calloc_not_zero);
    HR_RUN(realloc_prefix);
    HR_RUN(stress_million);
    free(arena);
    return hr_test_done();
}
