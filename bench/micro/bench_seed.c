/* bench_seed: ns/op of the seed allocators on their intended workloads, side
 * by side with glibc malloc/free on the same workload in the same run.
 *
 *  frame temporaries  each frame pushes 16 blocks of 16..2048 B and frees
 *                     them in reverse order (marker: one release per frame);
 *  entity churn       10 000 live 64-byte entities; each step frees a random
 *                     one and allocates its replacement.
 * An op is one allocation or one free (a marker release counts as the frees
 * it replaces). Each cell is the best of 5 runs. Prints Markdown. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/bank.h"
#include "alloc/block.h"
#include "alloc/marker.h"
#include "alloc/sizeclass.h"
#include "alloc/stack.h"

#define FRAMES 200000
#define PER_FRAME 16
#define ENTITIES 10000
#define CHURN 4000000
#define ENTITY_SIZE 64
#define RUNS 5

static size_t frame_sizes[PER_FRAME * 64];
static uint32_t churn_idx[1 << 16];
static volatile uintptr_t sink;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

typedef enum { K_GLIBC, K_STACK, K_MARKER, K_BLOCK, K_BANK, K_SIZECLASS } kind_t;
static const char *const kind_names[] = {"glibc", "stack", "marker", "block", "bank", "sizeclass"};

/* One run of the frame workload; returns ns. */
static uint64_t run_frames(kind_t k) {
    hr_stack_t *st = k == K_STACK ? hr_stack_create(NULL) : NULL;
    hr_marker_t *mk = k == K_MARKER ? hr_marker_create(NULL) : NULL;
    void *p[PER_FRAME];
    uint64_t t0 = now_ns();
    for (int f = 0; f < FRAMES; f++) {
        const size_t *sz = &frame_sizes[(f & 63) * PER_FRAME];
        hr_marker_mark_t m0 = {0, 0, 0, 0};
        if (mk)
            m0 = hr_marker_get(mk);
        for (int i = 0; i < PER_FRAME; i++) {
            if (k == K_GLIBC)
                p[i] = malloc(sz[i]);
            else if (k == K_STACK)
                hr_stack_alloc(st, sz[i], &p[i]);
            else
                p[i] = hr_marker_alloc(mk, sz[i], 0);
            *(char *)p[i] = (char)i;
        }
        sink += (uintptr_t)p[PER_FRAME - 1];
        if (k == K_MARKER) {
            hr_marker_release(mk, m0);
            continue;
        }
        for (int i = PER_FRAME - 1; i >= 0; i--) {
            if (k == K_GLIBC)
                free(p[i]);
            else
                hr_stack_free(st, p[i]);
        }
    }
    uint64_t t = now_ns() - t0;
    hr_stack_destroy(st);
    hr_marker_destroy(mk);
    return t;
}

static void *ent_alloc(kind_t k, void *a) {
    switch (k) {
    case K_BLOCK: return hr_block_alloc(a, ENTITY_SIZE);
    case K_BANK: return hr_bank_alloc(a);
    case K_SIZECLASS: return hr_sizeclass_alloc(a, ENTITY_SIZE);
    default: return malloc(ENTITY_SIZE);
    }
}

static void ent_free(kind_t k, void *a, void *p) {
    switch (k) {
    case K_BLOCK: hr_block_free(a, p, ENTITY_SIZE); break;
    case K_BANK: hr_bank_free(a, p); break;
    case K_SIZECLASS: hr_sizeclass_free(a, p, ENTITY_SIZE); break;
    default: free(p);
    }
}

static uint64_t run_churn(kind_t k) {
    void *a = NULL;
    hr_bank_options_t bo = hr_bank_default();
    bo.cell_size = ENTITY_SIZE;
    if (k == K_BLOCK)
        a = hr_block_create(NULL);
    else if (k == K_BANK)
        a = hr_bank_create(&bo);
    else if (k == K_SIZECLASS)
        a = hr_sizeclass_create(NULL);
    void **ent = malloc(ENTITIES * sizeof *ent);
    for (int i = 0; i < ENTITIES; i++)
        ent[i] = ent_alloc(k, a);
    uint64_t t0 = now_ns();
    for (int i = 0; i < CHURN; i++) {
        uint32_t j = churn_idx[i & 0xFFFF];
        ent_free(k, a, ent[j]);
        ent[j] = ent_alloc(k, a);
        *(char *)ent[j] = (char)i;
    }
    uint64_t t = now_ns() - t0;
    for (int i = 0; i < ENTITIES; i++)
        ent_free(k, a, ent[i]);
    free(ent);
    if (k == K_BLOCK)
        hr_block_destroy(a);
    else if (k == K_BANK)
        hr_bank_destroy(a);
    else if (k == K_SIZECLASS)
        hr_sizeclass_destroy(a);
    return t;
}

static double best_ns_per_op(uint64_t (*run)(kind_t), kind_t k, double ops) {
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < RUNS; r++) {
        uint64_t t = run(k);
        if (t < best)
            best = t;
    }
    return (double)best / ops;
}

static void table(const char *workload, uint64_t (*run)(kind_t), const kind_t *kinds, int n,
                  double ops) {
    double glibc = best_ns_per_op(run, K_GLIBC, ops);
    printf("| %s | glibc | %.2f | 1.00 |\n", workload, glibc);
    for (int i = 0; i < n; i++) {
        double v = best_ns_per_op(run, kinds[i], ops);
        printf("| %s | %s | %.2f | %.2f |\n", workload, kind_names[kinds[i]], v, v / glibc);
    }
}

int main(void) {
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < sizeof frame_sizes / sizeof *frame_sizes; i++)
        frame_sizes[i] = 16 + (size_t)(rnd(&s) % 2033);
    for (size_t i = 0; i < sizeof churn_idx / sizeof *churn_idx; i++)
        churn_idx[i] = (uint32_t)(rnd(&s) % ENTITIES);
    printf("Seed allocators vs glibc, same workload, same run (best of %d; ratio < 1 = faster"
           " than glibc).\n\n", RUNS);
    printf("| workload | allocator | ns/op | ratio to glibc |\n|---|---|---:|---:|\n");
    static const kind_t frame_kinds[] = {K_STACK, K_MARKER};
    static const kind_t churn_kinds[] = {K_BLOCK, K_BANK, K_SIZECLASS};
    table("frame temporaries (16 x 16..2048 B, LIFO)", run_frames, frame_kinds, 2,
          (double)FRAMES * PER_FRAME * 2);
    table("entity churn (10k x 64 B, random free+alloc)", run_churn, churn_kinds, 3,
          (double)CHURN * 2);
    return 0;
}
