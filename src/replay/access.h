/* The access model (--access, docs/METRICS.md "Access model"): what the
 * replay does with the program's live blocks between allocator calls, so that
 * the allocator's placement (cache-line packing, page spread, TLB reach)
 * costs the replay what it costs the program.
 *
 *   none        nothing (the replay's figures as without the option)
 *   reuse:N     after every alloc, calloc, realloc and free, N cache-line
 *               uses (read a byte, write it back unchanged) of live blocks:
 *               after an allocation the first is a line of the new block;
 *               the others are lines of blocks picked from a ring of the 64
 *               most recently allocated ids (a program works on what it
 *               just made)
 *   spread:N    the same N uses, picked uniformly from every id of the
 *               trace instead of the ring (a program walking its whole
 *               heap: hash tables, trees, caches)
 *   +free       (suffix, or `free` alone) before every free, read the
 *               block's first max(N, 1) lines, as a destructor reads the
 *               object it releases
 *
 * N is 1..64. Picks are deterministic: a xorshift generator with a fixed
 * seed, reset for every lap, so two laps (and two allocators) make the same
 * picks; which of them land on live blocks is the trace's, not the
 * allocator's. Only live blocks are used (an id whose slot holds no block is
 * skipped), only their first touch_cap bytes when --touch has a cap, and a
 * use writes back the byte it read: contents, and so --verify's patterns,
 * never change. */
#ifndef HR_REPLAY_ACCESS_H
#define HR_REPLAY_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#define HR_ACCESS_MAX_LINES 64

typedef enum hr_access_kind {
    HR_ACCESS_NONE = 0, /* no uses after the ops (a +free model may still read) */
    HR_ACCESS_REUSE,    /* picks from the ring of recent allocations */
    HR_ACCESS_SPREAD    /* picks from every id */
} hr_access_kind_t;

typedef struct hr_access {
    hr_access_kind_t kind;
    uint32_t         lines;     /* N: uses after each op (kind != NONE) */
    int              read_free; /* read the block before each free */
} hr_access_t;

/* The model that does nothing (the default). */
hr_access_t hr_access_none(void);
/* 1 when the model does anything. */
int hr_access_on(const hr_access_t *a);
/* Parses "none", "reuse:N", "spread:N", either with "+free", or "free";
 * 0, or -1 with *out untouched. */
int hr_access_parse(const char *s, hr_access_t *out);
/* The model as hr_access_parse reads it ("reuse:4+free"), in buf. */
const char *hr_access_spec(const hr_access_t *a, char *buf, size_t n);

#endif
