/* The cache-pollution model (--pollute, docs/METRICS.md "Cache pollution"):
 * the program's own work between two allocator calls, as far as it evicts
 * the allocator's metadata from the caches.
 *
 * A replay calls the allocator back to back, so the allocator's free lists,
 * size-class tables and headers stay in L1/L2 from one call to the next; in
 * the program, the program's own work between the calls evicts some of them
 * and the next call misses. An allocator whose metadata is compact or
 * close to the blocks it returns misses less, and its saving in the program
 * is larger than in a back-to-back replay. The model: after every alloc,
 * calloc, realloc and free of a timed lap, write LINES cache lines of a
 * scratch buffer of SIZE bytes
 * (harness memory, mapped and faulted in once per process), continuing where
 * the last call stopped and wrapping at its end, so that every
 * SIZE / (64 x LINES) calls the whole buffer has passed through the caches.
 *
 *   none          nothing (the default: the laps as without the option)
 *   SIZE[:LINES]  SIZE 64K..1G (K, M or G suffix), LINES 1..1024 (default 16)
 *
 * The writes are the same for every allocator (the same lines in the same
 * order), so they add the same time to every allocator's lap: a row's
 * change against glibc keeps only what the allocator's own misses cost.
 * Its lap times (cold and warm) include the writes. The setting reaches the
 * worker processes through the environment variable HR_POLLUTE, which
 * `heapreplay replay --pollute` sets (a worker inherits the parent's
 * environment, as it inherits LD_PRELOAD). */
#ifndef HR_REPLAY_POLLUTE_H
#define HR_REPLAY_POLLUTE_H

#include <stddef.h>
#include <stdint.h>

#include "replay/engine_int.h"

#define HR_POLLUTE_ENV "HR_POLLUTE"
#define HR_POLLUTE_LINE 64
#define HR_POLLUTE_DEFAULT_LINES 16
#define HR_POLLUTE_MAX_LINES 1024

typedef struct hr_pollute {
    uint64_t bytes; /* the scratch buffer; 0: the model is off */
    uint32_t lines; /* lines written after each allocator call */
} hr_pollute_t;

/* Parses "none" or "SIZE[:LINES]"; 0, or -1 with *out untouched. */
int hr_pollute_parse(const char *s, hr_pollute_t *out);
/* The model as hr_pollute_parse reads it ("4M:16", "none"), in buf. */
const char *hr_pollute_spec(const hr_pollute_t *p, char *buf, size_t n);

/* 1 when this process runs its laps with the model: HR_POLLUTE is set to a
 * model other than none (read once; a value that does not parse is off). */
int hr_pollute_on(void);

/* The events [from, to) of r, each allocator call followed by the model's
 * writes (frames, marks and the rest: none); libc:
 * the run calls the C library directly (engine.c's run_libc). */
void hr_pollute_range(run_t *r, const hr_event_t *from, const hr_event_t *to, int libc);

/* The model's writes after n allocator calls, on their own (tests: the lines written
 * and the cursor's wrap). Returns the cursor's byte offset after them. */
uint64_t hr_pollute_steps(uint64_t n);

#endif
