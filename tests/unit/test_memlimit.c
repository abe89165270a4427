/* The memory limit of a replay process (replay/memlimit.h): the default
 * from a trace's peak and ids (floor, slack, per-id share, the cap at 3/4 of
 * the RAM), the option's none and explicit values; the anonymous RSS grows
 * with touched private memory and not with touched shared memory (the
 * trace's mapping is shared); the size format of the oom message. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hr_test.h"
#include "replay/memlimit.h"

#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

static uint64_t ram_cap(void) {
    return (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 4 * 3;
}

static void test_default(void) {
    /* a small trace: the floor, plus 64 bytes per id */
    HR_CHECK_EQ_U64(hr_mem_limit_for(0, 1000, 0), HR_MEM_LIMIT_FLOOR);
    HR_CHECK_EQ_U64(hr_mem_limit_for(0, 1000, 1000), HR_MEM_LIMIT_FLOOR + 64000);
    /* 4 x peak + slack above the floor (when the RAM allows it) */
    uint64_t want = 4 * 512 * MIB + HR_MEM_LIMIT_SLACK;
    uint64_t got = hr_mem_limit_for(0, 512 * MIB, 0);
    HR_CHECK_EQ_U64(got, want < ram_cap() ? want : ram_cap());
    /* never above 3/4 of the RAM, never below the floor */
    got = hr_mem_limit_for(0, (uint64_t)1 << 50, 0);
    HR_CHECK_EQ_U64(got, ram_cap() > HR_MEM_LIMIT_FLOOR ? ram_cap() : HR_MEM_LIMIT_FLOOR);
    /* the option: none, or the figure itself */
    HR_CHECK_EQ_U64(hr_mem_limit_for(HR_MEM_LIMIT_NONE, 1000, 10), 0);
    HR_CHECK_EQ_U64(hr_mem_limit_for(3 * GIB, (uint64_t)1 << 40, 10), 3 * GIB);
}

/* Touches n bytes of a fresh mapping with `flags`; returns it. */
static char *touched(size_t n, int flags) {
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    memset(p, 1, n);
    return p;
}

static void test_rss(void) {
    const size_t n = 64 * MIB;
    uint64_t r0 = hr_proc_anon_rss(getpid());
    HR_CHECK(r0 > 0);
    char *shared = touched(n, MAP_SHARED);
    uint64_t r1 = hr_proc_anon_rss(getpid());
    char *priv = touched(n, MAP_PRIVATE);
    uint64_t r2 = hr_proc_anon_rss(getpid());
    HR_CHECK(shared && priv);
    printf("# anon RSS %llu, +64 MiB shared %llu, +64 MiB private %llu\n",
           (unsigned long long)r0, (unsigned long long)r1, (unsigned long long)r2);
    HR_CHECK(r1 < r0 + 8 * MIB);      /* shared pages are not counted */
    HR_CHECK(r2 >= r1 + 60 * MIB);    /* private touched pages are */
    HR_CHECK(r2 <= r1 + 72 * MIB);
    if (shared)
        munmap(shared, n);
    if (priv)
        munmap(priv, n);
    HR_CHECK_EQ_U64(hr_proc_anon_rss(0x7ffffff0), 0); /* no such process */
}

static void test_fmt(void) {
    char b[32];
    HR_CHECK_STR(hr_mem_fmt(100, b, sizeof b), "100 B");
    HR_CHECK_STR(hr_mem_fmt(GIB, b, sizeof b), "1 GiB");
    HR_CHECK_STR(hr_mem_fmt(GIB + GIB / 50, b, sizeof b), "1.02 GiB");
    HR_CHECK_STR(hr_mem_fmt(512 * MIB, b, sizeof b), "512 MiB");
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_default);
    HR_RUN(test_rss);
    HR_RUN(test_fmt);
    return hr_test_done();
}
