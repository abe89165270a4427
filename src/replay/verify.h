/* The --verify checker (docs/METRICS.md, "Verify"): validates what an
 * allocator -- any of them: in-house, glibc, jemalloc, mimalloc, tcmalloc or
 * an arbitrary `preload:` malloc replacement -- hands back while the engine
 * replays a trace, and records the first violation.
 *
 * How a verify run works: the engine replays the trace ONCE, untimed, in its
 * own process (never in a measured run: the checker writes into blocks and
 * walks a tree on every call, which would distort every figure). Its result
 * carries a `verify` object instead of trusting the figures.
 *
 * What is checked, per allocator call:
 *  1. alignment. With an explicit alignment (event align != 0) the pointer
 *     must be a multiple of it. With align 0 the required alignment is
 *         min(HR_VERIFY_DEFAULT_ALIGN, largest power of two <= max(size, 1))
 *     where HR_VERIFY_DEFAULT_ALIGN is alignof(max_align_t) (16 on x86-64):
 *     a block of size n cannot hold an object needing more than the largest
 *     power of two <= n, so an allocator that returns 8-aligned memory for an
 *     8-byte request is correct (C11 7.22.3 asks for "suitably aligned" for
 *     any object that fits) and is not flagged; 16-aligned returns for small
 *     requests (glibc) pass too.
 *  2. non-overlap. The new block [p, p + max(size, 1)) must overlap no live
 *     block. Live blocks are kept in a treap keyed by start address (expected
 *     O(log n) insert, delete and neighbour lookup); valid live blocks never
 *     overlap, so the predecessor and the successor of p are the only blocks
 *     to test.
 *  3. content integrity. At allocation the checker writes a pattern derived
 *     from the block id and the allocating event index into the first up to
 *     16 and the last up to 16 bytes of the block -- only those, so that RSS
 *     is not changed by the checker -- and checks it before the block is
 *     freed or reallocated. After a realloc the preserved prefix
 *     min(old, new) must still carry the old pattern bytes that lie in it;
 *     then the pattern is rewritten for the new block. A calloc block's head
 *     and tail bytes must read as zero before the pattern goes in.
 *  4. A NULL return is not a violation (the engine counts it as a failed
 *     allocation), whatever the size.
 *
 * Order of calls in the engine (the pattern must be written after anything
 * the engine itself writes into a new block, i.e. after its touch policy,
 * and checked before the allocator sees the block again):
 *     p = alloc(...);  touch(p);          hr_verify_alloc(p)         (p != NULL)
 *     hr_verify_before_free(p);           free(p)
 *     hr_verify_before_realloc(old);      q = realloc(old); touch(q);
 *     hr_verify_after_realloc(q)          (q NULL: old stays live; the engine
 *                                          then frees it: before_free first)
 * A realloc of an id that holds no block is an allocation: the engine
 * (engine_slow.c) checks it with hr_verify_alloc; before_realloc(p_old
 * NULL, old_size 0) followed by after_realloc is accepted as well.
 *
 * An allocator that hands out memory the trace still holds (a frame
 * allocator releasing over live blocks, a broken malloc) is reported as an
 * overlap or a changed pattern: the trace's point of view is the contract.
 *
 * After the first violation the checker stops checking (every call becomes
 * a no-op) and only reports it, and the engine's verify lap stops there (a
 * broken allocator often corrupts its own heap next and dies: the verdict
 * is written first); the checker never reads or writes outside the bytes
 * the trace requested for a block, so a wrong pointer it was handed cannot
 * make it fault unless that range itself is unmapped.
 *
 * Memory: everything the checker holds comes from base/hmem.h (mmap), never
 * from malloc, which in a verify run is the allocator under test. Not thread
 * safe: one checker per replay, called from the replay loop. */
#ifndef HR_REPLAY_VERIFY_H
#define HR_REPLAY_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define HR_VERIFY_DEFAULT_ALIGN _Alignof(max_align_t)
/* Bytes of pattern at each end of a block. */
#define HR_VERIFY_EDGE 16

typedef struct hr_verify hr_verify_t;

typedef enum hr_verify_kind {
    HR_VERIFY_OK = 0,
    HR_VERIFY_MISALIGNED,
    HR_VERIFY_OVERLAP,
    HR_VERIFY_CORRUPT,
    HR_VERIFY_NOT_ZERO
} hr_verify_kind_t;

/* "ok", "misaligned", "overlap", "corrupt", "calloc_not_zero" ("?" if out of
 * range). */
const char *hr_verify_kind_name(hr_verify_kind_t k);

/* The alignment a block of `size` bytes requested with `align` must have
 * (the rule of check 1 above). */
uint64_t hr_verify_required_align(uint64_t size, uint32_t align);

/* A checker for a trace with `n_ids` block ids (ids >= n_ids are ignored).
 * NULL with err set when the harness memory cannot be mapped. */
hr_verify_t *hr_verify_new(uint32_t n_ids, hr_error_t *err);
void hr_verify_free(hr_verify_t *v);

/* After a successful alloc (or calloc when is_calloc; size = n * elem) of
 * id at event index ev. p NULL is ignored. */
void hr_verify_alloc(hr_verify_t *v, uint64_t ev, uint32_t id, void *p, uint64_t size, uint32_t align,
                     int is_calloc);
/* Before the free of id's block p (size as requested); forgets the block. */
void hr_verify_before_free(hr_verify_t *v, uint64_t ev, uint32_t id, void *p, uint64_t size);
/* Before realloc(p_old) of old_id (p_old NULL: no old block). */
void hr_verify_before_realloc(hr_verify_t *v, uint64_t ev, uint32_t old_id, void *p_old, uint64_t old_size);
/* After the realloc returned p_new for new_id. p_new NULL: failed, the old
 * block stays live (the engine frees it next, through before_free). */
void hr_verify_after_realloc(hr_verify_t *v, uint64_t ev, uint32_t old_id, uint32_t new_id, void *p_new,
                             uint64_t old_size, uint64_t new_size);

/* The first violation: its kind (HR_VERIFY_OK if none), and when event/msg
 * are not NULL its event index and a one-line message such as
 * "event 1234 (alloc id 7, 48 bytes): 0x... overlaps live block id 3 [0x...,+64)"
 * (owned by the checker; "" when ok). */
hr_verify_kind_t hr_verify_result(const hr_verify_t *v, uint64_t *event, const char **msg);
/* Allocator calls checked so far (a realloc counts once). */
uint64_t hr_verify_checked(const hr_verify_t *v);
/* Blocks the checker currently holds as live (for tests). */
uint64_t hr_verify_live(const hr_verify_t *v);

#endif
