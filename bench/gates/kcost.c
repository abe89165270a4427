/* kcost: what the kernel's work costs on this machine, for the weights of
 * the count's cost (src/replay/kcount.h): the time of a first write to a
 * page of fresh anonymous memory (a minor fault, the page zeroed), of an
 * mmap and a munmap of 8 KiB, of a brk that grows or shrinks the heap by a
 * page, and of an madvise(MADV_DONTNEED) of 1 MiB with nothing resident.
 * Each figure is the fastest of 5 rounds (the one least disturbed by the
 * neighbours of a shared machine), in ns per fault or per call. Prints one
 * "name ns" line each. Built and run by bench/gates/gates.sh. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#define ROUNDS 5

/* The fastest of ROUNDS runs of one measurement (ns per fault or call). */
static double best_of(double (*round)(void)) {
    double best = 1e30;
    for (int r = 0; r < ROUNDS; r++) {
        double t = round();
        best = t < best ? t : best;
    }
    return best;
}

static double fault_round(void) {
    const size_t pages = 1 << 13;
    volatile char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    double t = now_ns();
    for (size_t i = 0; i < pages; i++)
        p[i * 4096] = 1;
    t = (now_ns() - t) / (double)pages;
    munmap((void *)p, pages * 4096);
    return t;
}

static double mmap_round(void) {
    double t = now_ns();
    for (int i = 0; i < 10000; i++) {
        void *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED)
            munmap(p, 8192);
    }
    return (now_ns() - t) / 20000;
}

static double brk_round(void) {
    double t = now_ns();
    for (int i = 0; i < 10000; i++) {
        sbrk(4096);
        sbrk(-4096);
    }
    return (now_ns() - t) / 20000;
}

static double madvise_round(void) {
    size_t len = 1 << 20;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    double t = now_ns();
    for (int i = 0; i < 10000; i++)
        madvise(p, len, MADV_DONTNEED);
    t = (now_ns() - t) / 10000;
    munmap(p, len);
    return t;
}

int main(void) {
    printf("fault %.0f\n", best_of(fault_round));
    printf("mmap_munmap %.0f\n", best_of(mmap_round));
    printf("brk %.0f\n", best_of(brk_round));
    printf("madvise %.0f\n", best_of(madvise_round));
    return 0;
}
