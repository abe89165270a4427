/* The flat event file shared by tests/tools/dump_events (writer) and
 * tests/tools/fresh_replay (reader): the memory ops of a trace as fixed-size
 * records, so that a replay program can mmap the file and walk it with no
 * decoder, no allocation and no heapreplay code at all.
 *
 * Layout (native byte order; the file is a scratch artefact made and read on
 * the same machine, never shipped):
 *   hr_flat_header_t            24 bytes
 *   hr_flat_event_t[n_events]   24 bytes each
 *
 * Only memory ops are stored (alloc, calloc, realloc, free); heap pushes/pops,
 * frames and marks do no allocator work and are dropped. Ids are the trace's
 * dense slot ids: every id is < n_ids. Each record keeps the recorded thread
 * (tests/tools/fresh_mt_replay replays each on its own thread; fresh_replay
 * ignores it and replays in file order). */
#ifndef HR_TESTS_TOOLS_FLAT_EVENTS_H
#define HR_TESTS_TOOLS_FLAT_EVENTS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HR_FLAT_MAGIC "HRFLAT02" /* 8 bytes, no terminator stored */

/* Record opcodes. Deliberately a list of their own (not hr_op_t): the reader
 * must not depend on the trace model. */
enum {
    HR_FLAT_ALLOC = 0,   /* id, size, align (0 = default alignment) */
    HR_FLAT_CALLOC = 1,  /* id, aux = element count, size = element size */
    HR_FLAT_REALLOC = 2, /* aux = old id, id = new id, size = new size */
    HR_FLAT_FREE = 3,    /* id */
};

typedef struct hr_flat_header {
    char     magic[8];  /* HR_FLAT_MAGIC */
    uint64_t n_events;  /* records that follow */
    uint32_t n_ids;     /* slot table size: 1 + the highest id */
    uint32_t rec_size;  /* sizeof(hr_flat_event_t): a cheap format check */
} hr_flat_header_t;

typedef struct hr_flat_event {
    uint16_t op;     /* HR_FLAT_* */
    uint16_t thread; /* the recorded thread (0 = the program's main thread) */
    uint32_t id;
    uint32_t aux;
    uint32_t align;
    uint64_t size;
} hr_flat_event_t;

_Static_assert(sizeof(hr_flat_header_t) == 24, "flat header is 24 bytes");
_Static_assert(sizeof(hr_flat_event_t) == 24, "flat record is 24 bytes");

/* The command line both reference replays take:
 *   PROGRAM [--warm-time SECONDS | --warm-laps N] FLATFILE
 * Sets *warm_time (default 0.5), *warm_laps (-1 unless given, at most
 * max_laps) and *path; 0, or -1 after printing the usage line. */
static inline int hr_flat_args(int argc, char **argv, const char *prog, long max_laps,
                               double *warm_time, long *warm_laps, const char **path) {
    *warm_time = 0.5;
    *warm_laps = -1;
    *path = NULL;
    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        char *end;
        if (strcmp(argv[i], "--warm-time") == 0 && i + 1 < argc) {
            *warm_time = strtod(argv[++i], &end);
            bad = *end || *warm_time < 0;
        } else if (strcmp(argv[i], "--warm-laps") == 0 && i + 1 < argc) {
            *warm_laps = strtol(argv[++i], &end, 10);
            bad = *end || *warm_laps < 0 || *warm_laps > max_laps;
        } else if (argv[i][0] != '-' && !*path) {
            *path = argv[i];
        } else {
            bad = 1;
        }
    }
    if (bad || !*path) {
        fprintf(stderr, "usage: %s [--warm-time SECONDS | --warm-laps N] FLATFILE\n", prog);
        return -1;
    }
    return 0;
}

/* In-place heap sort for the lap times: qsort may allocate a merge buffer,
 * and the reference replays allocate nothing of their own. */
static inline void hr_flat_sift(uint64_t *a, size_t root, size_t n) {
    for (;;) {
        size_t c = 2 * root + 1;
        if (c >= n)
            return;
        if (c + 1 < n && a[c + 1] > a[c])
            c++;
        if (a[root] >= a[c])
            return;
        uint64_t t = a[root];
        a[root] = a[c];
        a[c] = t;
        root = c;
    }
}

static inline void hr_flat_sort(uint64_t *a, size_t n) {
    for (size_t i = n / 2; i-- > 0;)
        hr_flat_sift(a, i, n);
    for (size_t end = n; end-- > 1;) {
        uint64_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        hr_flat_sift(a, 0, end);
    }
}

/* Median of n > 0 values (sorts them): the mean of the middle two when n is even. */
static inline double hr_flat_median(uint64_t *a, size_t n) {
    hr_flat_sort(a, n);
    return n % 2 ? (double)a[n / 2] : ((double)a[n / 2 - 1] + (double)a[n / 2]) / 2.0;
}

#endif
