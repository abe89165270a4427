/* hr_segcache: a process-wide cache of the big blocks the in-house
 * allocators take from malloc for their own segments and chunks.
 *
 * Why: a game creates its bank or block allocator once and keeps it for its
 * life, so the pages under its segments stay mapped from frame to frame.
 * The replay creates a fresh allocator instance for every lap and destroys
 * it after; freeing tens of MiB of segments at once let glibc trim the top
 * of its heap, and the next lap took every page fault again (level_load:
 * ~80 % of bank's warm CPU time was the kernel clearing pages). Blocks
 * released here are kept for the next instance instead, as an external
 * allocator keeps its own pages across laps.
 *
 * Contract: hr_segcache_get(n) returns a 16-byte-aligned block of at least
 * n bytes (a cached one of exactly n, else posix_memalign) or NULL; its
 * contents are undefined. hr_segcache_put(p, n) takes back a block got with
 * the same n (NULL is ignored). At most HR_SEGCACHE_MAX_BYTES are kept, in
 * a few size lists; the rest is freed. Thread-safe (a spin lock: get and
 * put happen once per segment, never per allocation). The in-house
 * allocators' footprints count their segments in use by arithmetic, never
 * what this cache holds. */
#ifndef HEAPREPLAY_SEGCACHE_H
#define HEAPREPLAY_SEGCACHE_H

#include <stddef.h>

#define HR_SEGCACHE_MAX_BYTES ((size_t)512 << 20)

void *hr_segcache_get(size_t n);
void  hr_segcache_put(void *p, size_t n);

#endif
