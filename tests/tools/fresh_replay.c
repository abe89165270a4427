/* fresh_replay: the replay an allocator engineer would write by hand, as the
 * reference heapreplay's numbers are checked against: if heapreplay's harness
 * perturbed the allocator it measures, the two would disagree.
 *
 *   fresh_replay [--warm-time S | --warm-laps N] FLATFILE
 *
 * FLATFILE is a flat event file (tests/tools/flat_events.h, made by
 * tests/tools/dump_events). Select the allocator with LD_PRELOAD.
 *
 * Contract — what makes it "fresh" and what it measures:
 * - Nothing of its own comes from malloc before or during the laps: the
 *   events are the mmapped file, the slot table and the lap-time arrays are
 *   anonymous mmaps, the output is formatted into a stack buffer and written
 *   with write(2) (no stdio buffer). Every malloc/calloc/realloc/free/
 *   posix_memalign call the process makes while replaying is the trace's.
 *   It does not link heapreplay's library.
 * - The event file and the slot table are faulted in before the first lap
 *   (MAP_POPULATE, plus a validation walk), so no lap pays the harness's page
 *   faults; the blocks' own faults are the allocator's and are timed.
 * - One lap = every record, in order, through plain malloc (posix_memalign
 *   when the alignment exceeds 16, as heapreplay's system backend does),
 *   calloc, realloc and free (plain free: no sized free). Touch policy
 *   "first", heapreplay's default: one byte is written at every 4 KiB step of
 *   a new block from offset 0, and of a realloc's grown part from the old
 *   size; calloc'd blocks are not touched (they are written by calloc). The
 *   blocks the trace leaves live are freed after the lap, outside its timing.
 * - The first lap is the cold lap (a fresh process). Warm laps follow until
 *   --warm-time seconds of wall time have passed since the first warm lap
 *   started (default 0.5; 0 = cold lap only), or exactly --warm-laps N.
 *   Per lap: thread CPU time (CLOCK_THREAD_CPUTIME_ID) and wall time
 *   (CLOCK_MONOTONIC), divided by the record count (= heapreplay's ops.total).
 *
 * Output: one line of JSON on stdout, keys named after heapreplay's time.*:
 *   cold_ns_per_op, cold_wall_ns_per_op, cold_cpu_s  the cold lap (CPU, wall)
 *   ns_per_op, wall_ns_per_op, cpu_s  median warm lap (CPU, wall, CPU s);
 *                                     null without warm laps
 *   warm_laps, ops, n_ids, failed_allocs (in the cold lap), malloc_provider
 *   (the file dladdr names for `malloc`, looked up after the laps).
 * Exit 0, or 2 on bad usage or a bad file. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flat_events.h"

/* More warm laps than this stop the warm phase: 0.5 s of laps of a few
 * microseconds stays far below it. */
#define HR_FRESH_MAX_LAPS (1u << 20)

typedef struct hr_fresh_slot {
    void    *p;
    uint64_t size; /* requested bytes: where a realloc's grown part starts */
} hr_fresh_slot_t;

static uint64_t hr_fresh_now(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Touch policy "first": byte 0 of every 4 KiB step of [from, to). */
static inline void hr_fresh_touch(void *p, uint64_t from, uint64_t to) {
    for (uint64_t off = from; off < to; off += 4096)
        ((volatile char *)p)[off] = 1;
}

/* One lap over the records; returns the allocations that failed. A failed
 * realloc frees the old block (as heapreplay does), so nothing leaks. */
static uint64_t hr_fresh_lap(const hr_flat_event_t *ev, uint64_t n, hr_fresh_slot_t *s) {
    uint64_t failed = 0;
    for (uint64_t i = 0; i < n; i++) {
        const hr_flat_event_t *e = &ev[i];
        void *p;
        switch (e->op) {
        case HR_FLAT_FREE:
            free(s[e->id].p);
            s[e->id].p = NULL;
            break;
        case HR_FLAT_ALLOC:
            if (e->align > 16) {
                if (posix_memalign(&p, e->align, e->size) != 0)
                    p = NULL;
            } else {
                p = malloc(e->size);
            }
            s[e->id].p = p;
            s[e->id].size = e->size;
            if (p)
                hr_fresh_touch(p, 0, e->size);
            else
                failed++;
            break;
        case HR_FLAT_CALLOC:
            p = calloc(e->aux, e->size);
            s[e->id].p = p;
            s[e->id].size = (uint64_t)e->aux * e->size;
            failed += p == NULL;
            break;
        case HR_FLAT_REALLOC: {
            void *old = s[e->aux].p;
            uint64_t osz = old ? s[e->aux].size : 0;
            p = realloc(old, e->size);
            if (p) {
                hr_fresh_touch(p, osz, e->size);
            } else {
                if (e->size) /* realloc(p, 0) may have freed it already */
                    free(old);
                failed++;
            }
            s[e->aux].p = NULL;
            s[e->id].p = p;
            s[e->id].size = e->size;
            break;
        }
        default:
            break;
        }
    }
    return failed;
}

/* Frees what the trace left live (not part of any lap's time). */
static void hr_fresh_release(hr_fresh_slot_t *s, uint32_t n_ids) {
    for (uint32_t id = 0; id < n_ids; id++)
        if (s[id].p) {
            free(s[id].p);
            s[id].p = NULL;
        }
}

/* Anonymous zeroed memory, faulted in now when `populate`. */
static void *hr_fresh_map(size_t bytes, int populate) {
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Appends s to the buffer as a JSON string body (quotes and backslashes
 * escaped, control characters dropped). */
static size_t hr_fresh_json_str(char *buf, size_t len, size_t cap, const char *s) {
    for (; *s && len + 2 < cap; s++) {
        if (*s == '"' || *s == '\\')
            buf[len++] = '\\';
        if ((unsigned char)*s >= 0x20)
            buf[len++] = *s;
    }
    return len;
}

/* "null" for an absent figure (no warm lap), else the number. */
static size_t hr_fresh_num(char *buf, size_t len, size_t cap, const char *key, double v, int have) {
    int n = have ? snprintf(buf + len, cap - len, ",\"%s\":%.4f", key, v)
                 : snprintf(buf + len, cap - len, ",\"%s\":null", key);
    return n > 0 && (size_t)n < cap - len ? len + (size_t)n : len;
}

int main(int argc, char **argv) {
    double warm_time;
    long warm_laps_fixed;
    const char *path;
    if (hr_flat_args(argc, argv, "fresh_replay", (long)HR_FRESH_MAX_LAPS, &warm_time,
                     &warm_laps_fixed, &path) != 0)
        return 2;

    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(path);
        return 2;
    }
    if ((uint64_t)st.st_size < sizeof(hr_flat_header_t)) {
        fprintf(stderr, "%s: too short for a flat event file\n", path);
        return 2;
    }
    const char *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        perror(path);
        return 2;
    }
    hr_flat_header_t h;
    memcpy(&h, map, sizeof h);
    uint64_t room = ((uint64_t)st.st_size - sizeof h) / sizeof(hr_flat_event_t);
    if (memcmp(h.magic, HR_FLAT_MAGIC, sizeof h.magic) != 0 ||
        h.rec_size != sizeof(hr_flat_event_t) || h.n_events > room) {
        fprintf(stderr, "%s: not a flat event file (bad magic, record size or length)\n", path);
        return 2;
    }
    const hr_flat_event_t *ev = (const hr_flat_event_t *)(map + sizeof h);
    /* Every id must index the slot table: checked once here, so the laps
     * need no bounds checks (this walk also touches every page of the file). */
    for (uint64_t i = 0; i < h.n_events; i++) {
        if (ev[i].id >= h.n_ids || (ev[i].op == HR_FLAT_REALLOC && ev[i].aux >= h.n_ids) ||
            ev[i].op > HR_FLAT_FREE) {
            fprintf(stderr, "%s: record %llu: bad op or id\n", path, (unsigned long long)i);
            return 2;
        }
    }
    hr_fresh_slot_t *slots = hr_fresh_map((size_t)h.n_ids * sizeof *slots, 1);
    uint64_t *lap_cpu = hr_fresh_map(HR_FRESH_MAX_LAPS * sizeof(uint64_t), 0);
    uint64_t *lap_wall = hr_fresh_map(HR_FRESH_MAX_LAPS * sizeof(uint64_t), 0);
    if (!slots || !lap_cpu || !lap_wall) {
        perror("mmap");
        return 2;
    }
    for (size_t off = 0; off < (size_t)h.n_ids * sizeof *slots; off += 4096)
        ((volatile char *)slots)[off] = 0; /* resident even without MAP_POPULATE */

    const double ops = h.n_events ? (double)h.n_events : 1.0;
    uint64_t c0 = hr_fresh_now(CLOCK_THREAD_CPUTIME_ID), w0 = hr_fresh_now(CLOCK_MONOTONIC);
    uint64_t failed = hr_fresh_lap(ev, h.n_events, slots);
    uint64_t c1 = hr_fresh_now(CLOCK_THREAD_CPUTIME_ID), w1 = hr_fresh_now(CLOCK_MONOTONIC);
    hr_fresh_release(slots, h.n_ids);
    const uint64_t cold_cpu = c1 - c0, cold_wall = w1 - w0;

    size_t laps = 0;
    const uint64_t warm_ns = (uint64_t)(warm_time * 1e9), warm_start = hr_fresh_now(CLOCK_MONOTONIC);
    while (laps < HR_FRESH_MAX_LAPS &&
           (warm_laps_fixed >= 0 ? laps < (size_t)warm_laps_fixed
                                 : hr_fresh_now(CLOCK_MONOTONIC) - warm_start < warm_ns)) {
        c0 = hr_fresh_now(CLOCK_THREAD_CPUTIME_ID);
        w0 = hr_fresh_now(CLOCK_MONOTONIC);
        hr_fresh_lap(ev, h.n_events, slots);
        c1 = hr_fresh_now(CLOCK_THREAD_CPUTIME_ID);
        w1 = hr_fresh_now(CLOCK_MONOTONIC);
        hr_fresh_release(slots, h.n_ids);
        lap_cpu[laps] = c1 - c0;
        lap_wall[laps] = w1 - w0;
        laps++;
    }
    double med_cpu = laps ? hr_flat_median(lap_cpu, laps) : 0;
    double med_wall = laps ? hr_flat_median(lap_wall, laps) : 0;

    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    const char *provider = sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "?";

    char out[8192];
    size_t len = 0, cap = sizeof out;
    len += (size_t)snprintf(out, cap, "{\"program\":\"fresh_replay\",\"events_file\":\"");
    len = hr_fresh_json_str(out, len, cap, path);
    int n = snprintf(out + len, cap - len, "\",\"ops\":%llu,\"n_ids\":%u,\"warm_time_s\":%.3f",
                     (unsigned long long)h.n_events, h.n_ids, warm_time);
    len += n > 0 && (size_t)n < cap - len ? (size_t)n : 0;
    len = hr_fresh_num(out, len, cap, "cold_ns_per_op", (double)cold_cpu / ops, 1);
    len = hr_fresh_num(out, len, cap, "cold_wall_ns_per_op", (double)cold_wall / ops, 1);
    len = hr_fresh_num(out, len, cap, "cold_cpu_s", (double)cold_cpu / 1e9, 1);
    len = hr_fresh_num(out, len, cap, "ns_per_op", med_cpu / ops, laps > 0);
    len = hr_fresh_num(out, len, cap, "wall_ns_per_op", med_wall / ops, laps > 0);
    len = hr_fresh_num(out, len, cap, "cpu_s", med_cpu / 1e9, laps > 0);
    n = snprintf(out + len, cap - len, ",\"warm_laps\":%zu,\"failed_allocs\":%llu,\"malloc_provider\":\"",
                 laps, (unsigned long long)failed);
    len += n > 0 && (size_t)n < cap - len ? (size_t)n : 0;
    len = hr_fresh_json_str(out, len, cap, provider);
    if (len + 3 <= cap) {
        memcpy(out + len, "\"}\n", 3);
        len += 3;
    }
    return write(STDOUT_FILENO, out, len) == (ssize_t)len ? 0 : 2;
}
