/* hr_bank (Orx orxBank semantics) and the "bank" backend. */
#include <stdint.h>

#include "alloc/bank.h"
#include "alloc/chunk.h"
#include "hr_test.h"
#include "seed_model.h"

extern const hr_backend_t hr_backend_bank;

static hr_bank_t *small_bank(size_t cell, unsigned n, int expandable) {
    hr_bank_options_t o = hr_bank_default();
    o.cell_size = cell;
    o.cells_per_segment = n;
    o.expandable = expandable;
    return hr_bank_create(&o);
}

static void test_defaults(void) {
    hr_bank_options_t o = hr_bank_default();
    HR_CHECK_EQ_U64(o.cell_size, 16);
    HR_CHECK_EQ_U64(o.cells_per_segment, 256);
    HR_CHECK_EQ_U64(o.expandable, 1);
    o.cell_size = 0;
    HR_CHECK(hr_bank_create(&o) == NULL);
    hr_bank_t *b = hr_bank_create(NULL);
    hr_bank_stats_t st;
    hr_bank_stats(b, &st);
    HR_CHECK_EQ_U64(st.segments, 1); /* the first segment comes with the bank */
    HR_CHECK_EQ_U64(st.free_cells, 256);
    HR_CHECK_EQ_U64(st.head.footprint, hr_bank_footprint(b));
    hr_bank_destroy(b);
}

static void test_lowest_free_cell(void) {
    hr_bank_t *b = small_bank(32, 4, 1);
    char *p[8];
    for (int i = 0; i < 8; i++)
        p[i] = hr_bank_alloc(b);
    for (int i = 1; i < 4; i++)
        HR_CHECK(p[i] == p[0] + 32 * i);
    for (int i = 5; i < 8; i++)
        HR_CHECK(p[i] == p[4] + 32 * (i - 4));
    HR_CHECK_EQ_U64((uintptr_t)p[0] % 16, 0);
    hr_bank_free(b, p[6]);
    hr_bank_free(b, p[2]);
    hr_bank_free(b, p[5]);
    hr_bank_free(b, p[0]);
    HR_CHECK(hr_bank_alloc(b) == p[0]);
    HR_CHECK(hr_bank_alloc(b) == p[2]);
    HR_CHECK(hr_bank_alloc(b) == p[5]);
    HR_CHECK(hr_bank_alloc(b) == p[6]);
    HR_CHECK_EQ_U64(hr_bank_check(b), 0);
    hr_bank_destroy(b);
}

static void test_segment_growth(void) {
    hr_bank_t *b = small_bank(24, 4, 1);
    hr_bank_stats_t st;
    uint64_t fp1 = hr_bank_footprint(b);
    void *p[12];
    for (int i = 0; i < 4; i++)
        p[i] = hr_bank_alloc(b);
    hr_bank_stats(b, &st);
    HR_CHECK_EQ_U64(st.segments, 1);
    HR_CHECK_EQ_U64(st.head.largest_free, 0);
    p[4] = hr_bank_alloc(b);
    hr_bank_stats(b, &st);
    HR_CHECK_EQ_U64(st.segments, 2);
    uint64_t seg = hr_bank_footprint(b) - fp1;
    HR_CHECK(seg >= 4 * 24 && seg < 4 * 24 + 128); /* header + bitmap + cells */
    for (int i = 5; i < 12; i++)
        p[i] = hr_bank_alloc(b);
    hr_bank_stats(b, &st);
    HR_CHECK_EQ_U64(st.segments, 3);
    HR_CHECK_EQ_U64(st.head.footprint, fp1 + 2 * seg);
    HR_CHECK_EQ_U64(st.head.objects, 12);
    HR_CHECK_EQ_U64(st.head.live_bytes, 12 * 24);
    /* iteration: every used cell once, in allocation order */
    int k = 0;
    for (void *c = hr_bank_next(b, NULL); c; c = hr_bank_next(b, c))
        HR_CHECK(k < 12 && c == p[k++]);
    HR_CHECK_EQ_U64(k, 12);
    hr_bank_free(b, p[3]);
    k = 0;
    for (void *c = hr_bank_next(b, NULL); c; c = hr_bank_next(b, c))
        k += c != p[3];
    HR_CHECK_EQ_U64(k, 11);
    /* compact: empty the two last segments, they go; the first stays */
    for (int i = 4; i < 12; i++)
        hr_bank_free(b, p[i]);
    HR_CHECK_EQ_U64(hr_bank_compact(b), 2);
    hr_bank_stats(b, &st);
    HR_CHECK_EQ_U64(st.segments, 1);
    HR_CHECK_EQ_U64(st.peak_segments, 3);
    HR_CHECK_EQ_U64(st.head.footprint, fp1);
    HR_CHECK(hr_bank_alloc(b) == p[3]);
    HR_CHECK_EQ_U64(hr_bank_check(b), 0);
    for (int i = 0; i < 4; i++)
        hr_bank_free(b, p[i]);
    HR_CHECK_EQ_U64(hr_bank_compact(b), 0); /* the first segment is kept */
    /* refused frees leave the bank unchanged */
    int x;
    HR_CHECK_EQ_I64(hr_bank_free(b, &x), HR_BANK_ENOTOWNED);
    HR_CHECK_EQ_I64(hr_bank_free(b, p[0]), HR_BANK_EFREE);
    HR_CHECK_EQ_I64(hr_bank_free(b, (char *)p[0] + 1), HR_BANK_ENOTOWNED);
    HR_CHECK_EQ_U64(hr_bank_check(b), 0);
    hr_bank_destroy(b);
}

static void test_not_expandable(void) {
    hr_bank_t *b = small_bank(16, 3, 0);
    void *p[3];
    for (int i = 0; i < 3; i++)
        HR_CHECK((p[i] = hr_bank_alloc(b)) != NULL);
    HR_CHECK(hr_bank_alloc(b) == NULL);
    hr_bank_stats_t st;
    hr_bank_stats(b, &st);
    HR_CHECK_EQ_U64(st.segments, 1);
    hr_bank_free(b, p[1]);
    HR_CHECK(hr_bank_alloc(b) == p[1]);
    HR_CHECK(hr_bank_alloc(b) == NULL);
    hr_bank_destroy(b);
}

/* Reference model: cells have global indices (segment * N + index); the bank
 * must hand out the lowest unused index, at the address learnt for it. */
static void test_property(void) {
    enum { N = 64, MAXC = 64 * 256 };
    uint64_t rng = 17, bad = 0;
    hr_bank_t *b = small_bank(48, N, 1);
    static char *base[256];
    static unsigned char used[MAXC];
    static uint32_t seed_of[MAXC];
    static int list[MAXC];
    int nlist = 0, nseg = 0;
    for (int op = 0; op < 40000; op++) {
        uint64_t r = hr_tm_rand(&rng);
        if (nlist > 0 && (r % 100 < 47 || nlist >= MAXC - 1)) {
            int j = (int)((r >> 8) % (uint64_t)nlist), k = list[j];
            char *p = base[k / N] + (size_t)(k % N) * 48;
            bad += !hr_tm_verify(p, 48, seed_of[k]);
            bad += hr_bank_free(b, p) != 0;
            used[k] = 0;
            list[j] = list[--nlist];
        } else {
            int k = 0;
            while (used[k])
                k++;
            char *p = hr_bank_alloc(b);
            if (k / N < nseg)
                bad += p != base[k / N] + (size_t)(k % N) * 48;
            else if (k % N == 0 && k / N == nseg)
                base[nseg++] = p;
            else
                bad++;
            used[k] = 1;
            seed_of[k] = (uint32_t)op;
            hr_tm_fill(p, 48, (uint32_t)op);
            list[nlist++] = k;
        }
        if (op % 997 == 0) {
            hr_bank_compact(b);
            hr_bank_stats_t st;
            hr_bank_stats(b, &st);
            nseg = (int)st.segments; /* forget the freed tail */
            bad += st.head.objects != (uint64_t)nlist || hr_bank_check(b) != 0;
        }
    }
    HR_CHECK_EQ_U64(bad, 0);
    hr_bank_destroy(b);
}

/* Segments of more than 4096 cells (a summary bit per two or more bitmap
 * words) and banks that outgrow their first address region (4 MiB of
 * segments: 1 MiB ones here) still hand out the lowest free cell, find every
 * cell's segment and give regions back when compacted. */
static void test_big_segments_and_regions(void) {
    hr_bank_t *b = small_bank(16, 9000, 1); /* 141 bitmap words, 2-3 per summary bit */
    static char *p[9000 * 2];
    for (int i = 0; i < 18000; i++)
        p[i] = hr_bank_alloc(b);
    for (int i = 1; i < 9000; i++)
        HR_CHECK(p[i] == p[0] + 16 * i);
    for (int i = 8999; i >= 0; i -= 7) /* free from the top down, every 7th */
        HR_CHECK_EQ_I64(hr_bank_free(b, p[i]), HR_BANK_OK);
    HR_CHECK_EQ_U64(hr_bank_check(b), 0);
    for (int i = 8999 % 7; i < 9000; i += 7) /* back in ascending order */
        HR_CHECK(hr_bank_alloc(b) == p[i]);
    HR_CHECK_EQ_U64(hr_bank_check(b), 0);
    hr_bank_destroy(b);

    b = small_bank(4096, 256, 1); /* 1 MiB segments: 4 fit the first region */
    enum { SEGS = 13, N = SEGS * 256 };
    static char *q[N];
    for (int i = 0; i < N; i++)
        q[i] = hr_bank_alloc(b);
    hr_bank_stats_t st;
    hr_bank_stats(b, &st);
    HR_CHECK_EQ_U64(st.segments, SEGS);
    HR_CHECK_EQ_U64(b->nregions, 3); /* 4, 8 and 16 MiB of segments */
    HR_CHECK_EQ_U64(hr_bank_check(b), 0);
    uint64_t bad = 0;
    for (int i = N - 1; i >= 0; i--) {
        bad += !hr_bank_owns(b, q[i]) || hr_bank_owns(b, q[i] + 8);
        bad += hr_bank_free(b, q[i]) != HR_BANK_OK;
    }
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK_EQ_I64(hr_bank_free(b, q[N - 1]), HR_BANK_EFREE);
    HR_CHECK_EQ_I64(hr_bank_free(b, (char *)q[0] - 64), HR_BANK_ENOTOWNED); /* a header */
    HR_CHECK_EQ_U64(hr_bank_compact(b), SEGS - 1);
    HR_CHECK_EQ_U64(b->nregions, 1);
    HR_CHECK_EQ_U64(hr_bank_check(b), 0);
    HR_CHECK(hr_bank_alloc(b) == q[0]);
    for (int i = 1; i < 300; i++) /* a second segment, where the old one was */
        HR_CHECK(hr_bank_alloc(b) == q[i]);
    HR_CHECK_EQ_U64(hr_bank_check(b), 0);
    hr_bank_destroy(b);
}

static void test_backend(void) {
    const hr_backend_t *be = &hr_backend_bank;
    hr_error_t err = {{0}};
    HR_CHECK(hr_tm_create(be, "round=12", &err) == NULL);
    HR_CHECK(strstr(err.msg, "bank:") != NULL);
    HR_CHECK(hr_tm_create(be, "cells=", &err) == NULL);
    void *inst = hr_tm_create(be, "round=16,cells=4,max=64", &err);
    HR_CHECK(inst != NULL);
    HR_CHECK_EQ_U64(be->footprint(inst), 0);
    void *p[70];
    for (int s = 0; s <= 64; s++)
        p[s] = be->alloc(inst, (size_t)s, 0, -1);
    HR_CHECK(p[2] == (char *)p[1] + 16); /* 1 and 2 share the 16-byte bank */
    HR_CHECK_EQ_U64(be->usable_size(inst, p[17], 17), 32);
    void *over = be->alloc(inst, 65, 0, -1);
    void *al = be->alloc(inst, 16, 64, -1);
    /* fallback blocks answer malloc's usable size, oversize or not */
    HR_CHECK_EQ_U64(be->usable_size(inst, over, 65), hr_chunk_usable(65));
    HR_CHECK_EQ_U64(be->usable_size(inst, al, 16), hr_chunk_usable(16));
    int x;
    be->free(inst, &x, 8); /* not a cell: refused, counted */
    char *js = hr_tm_stats_json(be, inst);
    char *fp = strstr(js, "\"footprint\":");
    HR_CHECK(fp && strtoull(fp + 12, NULL, 10) == be->footprint(inst));
    HR_CHECK(hr_tm_json_has(js, "segments", 5 + 4 + 4 + 4)); /* 17,16,16,16 cells */
    HR_CHECK(hr_tm_json_has(js, "oversize", 1));
    HR_CHECK(hr_tm_json_has(js, "align", 1));
    HR_CHECK(hr_tm_json_has(js, "bad_free", 1));
    HR_CHECK(strstr(js, "\"check\":0") != NULL);
    if (hr_t_cur_failed)
        printf("# %s\n", js);
    free(js);
    be->free(inst, over, 65);
    be->free(inst, al, 16);
    for (int s = 64; s >= 0; s--)
        be->free(inst, p[s], (size_t)s);
    js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "native_ops", 130));
    HR_CHECK(hr_tm_json_has(js, "fallback_ops", 4));
    HR_CHECK(hr_tm_json_has(js, "objects", 0));
    free(js);
    be->destroy(inst);
}

static int count_of(const char *js, const char *needle) {
    int n = 0;
    for (const char *p = js; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* Regression guard: the default maps a request to a small set of cells (powers of
 * two and their midpoints, 16 B .. 4 KiB) rather than one bank per 16-byte
 * step: every cell the smallest of the set that holds the request. */
static void test_default_cells(void) {
    static const size_t set[] = {16,  32,  48,   64,   96,   128,  192,  256,
                                 384, 512, 768, 1024, 1536, 2048, 3072, 4096};
    const hr_backend_t *be = &hr_backend_bank;
    hr_error_t err = {{0}};
    void *inst = hr_tm_create(be, NULL, &err);
    HR_CHECK(inst != NULL);
    uint64_t bad = 0;
    for (size_t s = 0; s <= 4096; s++) {
        size_t u = be->usable_size(inst, NULL, s), k = 0;
        while (k < 16 && set[k] < s)
            k++;
        bad += k == 16 || u != set[k];
    }
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK_EQ_U64(be->usable_size(inst, NULL, 0), 16);
    HR_CHECK_EQ_U64(be->usable_size(inst, NULL, 49), 64);
    HR_CHECK_EQ_U64(be->usable_size(inst, NULL, 65), 96);
    HR_CHECK_EQ_U64(be->usable_size(inst, NULL, 3073), 4096);
    /* A fixed list of sizes: 11 banks by default, 14 with a bank per step. */
    static const size_t sizes[] = {1,   8,   16,  17,  24,  32,   33,   40,   48,  49,  64,
                                   65,  100, 128, 129, 200, 255, 256, 300, 1000, 4000, 4096};
    enum { N = sizeof sizes / sizeof *sizes };
    const char *arg[2] = {NULL, "round=16"};
    int want[2] = {11, 14};
    for (int m = 0; m < 2; m++) {
        void *b = m ? hr_tm_create(be, arg[m], &err) : inst, *p[N];
        for (int i = 0; i < N; i++) {
            p[i] = be->alloc(b, sizes[i], 0, -1);
            HR_CHECK(p[i] != NULL && (uintptr_t)p[i] % 16 == 0);
        }
        void *over = be->alloc(b, 4097, 0, -1);
        char *js = hr_tm_stats_json(be, b);
        HR_CHECK_EQ_U64(count_of(js, "\"cell_size\":"), want[m]);
        HR_CHECK(hr_tm_json_has(js, "oversize", 1));
        HR_CHECK(hr_tm_json_has(js, "native_ops", N));
        free(js);
        be->free(b, over, 4097);
        for (int i = 0; i < N; i++)
            be->free(b, p[i], sizes[i]);
        js = hr_tm_stats_json(be, b);
        HR_CHECK(hr_tm_json_has(js, "objects", 0));
        HR_TM_STATS_END(be, b, js);
    }
    /* max: the largest cell not above it; 0 < round < 8 and max < 16 refused. */
    inst = hr_tm_create(be, "max=1000", &err);
    HR_CHECK_EQ_U64(be->usable_size(inst, NULL, 768), 768);
    void *q = be->alloc(inst, 769, 0, -1);
    be->free(inst, q, 769);
    char *js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "oversize", 1));
    HR_TM_STATS_END(be, inst, js);
    HR_CHECK(hr_tm_create(be, "round=4", &err) == NULL);
    HR_CHECK(hr_tm_create(be, "max=8", &err) == NULL);
}

/* Free tells a cell by one exact division (the offset times the inverse of
 * the cell's odd part, rotated by its power of two): every byte offset
 * around the first region, before it included, for odd, even and
 * power-of-two cell sizes, is a cell exactly when it is a multiple of the
 * cell size inside the segments made, and a refused free changes nothing. */
static void test_exact_division(void) {
    static const size_t cells[] = {1, 7, 16, 24, 48, 96, 4096, 3 << 12};
    uint64_t bad = 0;
    for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
        size_t cell = cells[c];
        hr_bank_t *b = small_bank(cell, 8, 1);
        char *p0 = hr_bank_alloc(b), *last = p0;
        for (int i = 1; i < 20; i++) /* three segments of 8 */
            last = hr_bank_alloc(b);
        bad += last != p0 + 19 * cell;
        hr_bank_stats_t st;
        hr_bank_stats(b, &st);
        size_t span = (size_t)st.segments * 8 * cell;
        for (ptrdiff_t off = -(ptrdiff_t)(2 * cell + 3); off < (ptrdiff_t)(span + 2 * cell + 3); off++) {
            int cellp = off >= 0 && (size_t)off < span && (size_t)off % cell == 0;
            bad += hr_bank_owns(b, p0 + off) != cellp;
            if (!cellp && off % 5 == 0) /* the refused frees */
                bad += hr_bank_free(b, p0 + off) != HR_BANK_ENOTOWNED;
        }
        bad += hr_bank_free(b, p0 + 20 * cell) != HR_BANK_EFREE; /* made, never handed out */
        bad += hr_bank_free(b, p0 + 5 * cell) != HR_BANK_OK;
        bad += hr_bank_alloc(b) != p0 + 5 * cell;
        bad += hr_bank_check(b) != HR_BANK_OK;
        hr_bank_destroy(b);
    }
    HR_CHECK_EQ_U64(bad, 0);
}

/* A size table's empty place (no bank of that size made yet) holds
 * hr_bank_vacant: no cell to hand out, no pointer a cell of it, so a free
 * there goes the refusing path and an alloc makes the bank. And the summary
 * bit of a word that fills and frees again, word after word (what the
 * branch-free summary update serves), agrees with the bitmap throughout. */
static void test_vacant_and_filled_words(void) {
    HR_CHECK(hr_bank_ready(&hr_bank_vacant) == 0);
    int x;
    HR_CHECK(hr_bank_index0(&hr_bank_vacant, &x) == SIZE_MAX);
    HR_CHECK(hr_bank_index0(&hr_bank_vacant, NULL) == SIZE_MAX);
    const hr_backend_t *be = &hr_backend_bank;
    hr_error_t err = {{0}};
    void *inst = hr_tm_create(be, NULL, &err);
    HR_CHECK(inst != NULL);
    be->free(inst, &x, 40); /* the 48-byte bank does not exist yet */
    void *p = be->alloc(inst, 40, 0, -1);
    HR_CHECK(p != NULL && p != (void *)&x);
    be->free(inst, p, 40);
    char *js = hr_tm_stats_json(be, inst);
    HR_CHECK(hr_tm_json_has(js, "bad_free", 1));
    HR_CHECK(hr_tm_json_has(js, "native_ops", 2));
    HR_CHECK(strstr(js, "\"check\":0") != NULL);
    free(js);
    be->destroy(inst);

    hr_bank_options_t o = hr_bank_default();
    o.cells_per_segment = 256;
    hr_bank_t *b = hr_bank_create(&o);
    char *c[256];
    for (int i = 0; i < 256; i++) { /* words fill one after another */
        c[i] = hr_bank_alloc(b);
        HR_CHECK(c[i] == c[0] + 16 * i);
        HR_CHECK_EQ_I64(hr_bank_check(b), HR_BANK_OK);
    }
    for (int round = 0; round < 64; round++) { /* a cell of each word freed and taken back */
        int i = (round * 67) % 256;
        HR_CHECK_EQ_I64(hr_bank_free(b, c[i]), HR_BANK_OK);
        HR_CHECK_EQ_I64(hr_bank_free(b, c[i]), HR_BANK_EFREE);
        HR_CHECK_EQ_I64(hr_bank_check(b), HR_BANK_OK);
        HR_CHECK(hr_bank_alloc(b) == c[i]); /* the word fills again */
        HR_CHECK_EQ_I64(hr_bank_check(b), HR_BANK_OK);
    }
    hr_bank_destroy(b);
}

int main(void) {
    HR_RUN(test_defaults);
    HR_RUN(test_lowest_free_cell);
    HR_RUN(test_segment_growth);
    HR_RUN(test_not_expandable);
    HR_RUN(test_property);
    HR_RUN(test_big_segments_and_regions);
    HR_RUN(test_backend);
    HR_RUN(test_default_cells);
    HR_RUN(test_exact_division);
    HR_RUN(test_vacant_and_filled_words);
    return hr_test_done();
}
