/* libheapreplay-capture.so, part 4: the page probe that measures how much of
 * each large block the program used (docs/CAPTURE.md, "How much of a large
 * block was used"; the trace's `touched` records).
 *
 * For a block whose usable size is at least HR_CAP_TOUCH_MIN:
 *  - when the allocator hands it out, the whole pages inside it (its
 *    "interior") are dropped with madvise(MADV_DONTNEED), so none of them is
 *    resident unless the program then reads or writes it. This is safe for the
 *    private anonymous memory allocators use: a new block's content is
 *    undefined, a calloc'd block stays zero (the kernel refills a dropped page
 *    with zeros), and a realloc only drops the pages beyond the bytes it kept;
 *  - when the block ends (free, realloc), mincore counts the interior pages
 *    that are resident: those the program touched. The bytes used are that
 *    count times the page size plus the partial head page (the block's start
 *    up to the first page boundary, which holds the allocator's header and is
 *    resident anyway).
 * Nothing here allocates: mincore's vector is a fixed stack buffer walked in
 * chunks. Both calls keep errno as the program left it.
 * HEAPREPLAY_CAPTURE_TOUCH=0 turns the probe off (no madvise, no records). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/capture_int.h"

int hr_cap_touch_on;
static uintptr_t page = 4096;

/* mincore's vector per call: 256 pages (1 MiB with 4 KiB pages). */
#define HR_MINCORE_CHUNK 256u

void hr_cap_touch_init(void) {
    const char *v = getenv("HEAPREPLAY_CAPTURE_TOUCH");
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0 && !(ps & (ps - 1)))
        page = (uintptr_t)ps;
    hr_cap_touch_on = !(v && strcmp(v, "0") == 0);
}

/* The whole pages inside [p + from, p + usable): [*lo, *hi), maybe empty. */
static void interior(const void *p, size_t from, size_t usable, uintptr_t *lo, uintptr_t *hi) {
    uintptr_t a = (uintptr_t)p + from, e = (uintptr_t)p + usable;
    *lo = (a + page - 1) & ~(page - 1);
    *hi = e & ~(page - 1);
    if (*hi < *lo)
        *hi = *lo;
}

void hr_cap_touch_clear(void *p, size_t from, size_t usable) {
    uintptr_t lo, hi;
    if (usable < HR_CAP_TOUCH_MIN || from >= usable)
        return;
    interior(p, from, usable, &lo, &hi);
    if (hi > lo) {
        int saved = errno;
        madvise((void *)lo, hi - lo, MADV_DONTNEED); /* a failure only overstates use */
        errno = saved;
    }
}

uint64_t hr_cap_touch_measure(const void *p, size_t usable) {
    uintptr_t lo, hi;
    interior(p, 0, usable, &lo, &hi);
    uint64_t resident = 0;
    unsigned char vec[HR_MINCORE_CHUNK];
    int saved = errno;
    for (uintptr_t at = lo; at < hi;) {
        uintptr_t n = (hi - at) / page;
        if (n > HR_MINCORE_CHUNK)
            n = HR_MINCORE_CHUNK;
        if (mincore((void *)at, n * page, vec) != 0) {
            errno = saved;
            return UINT64_MAX; /* not mapped as we expected: no record */
        }
        for (uintptr_t i = 0; i < n; i++)
            resident += vec[i] & 1u;
        at += n * page;
    }
    errno = saved;
    return (uint64_t)(lo - (uintptr_t)p) + resident * page;
}
