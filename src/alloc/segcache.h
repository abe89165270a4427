/* hr_segcache: a process-wide cache of the big blocks the in-house
 * allocators take for their own segments (bank: the address regions its
 * segments lie in, src/alloc/bank.h).
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
 * The blocks are carved from 4 MiB anonymous mappings of their own (a block
 * of 4 MiB or more is a mapping of its own, its pages faulted in as they
 * are first written), not from malloc: a segment held across instances
 * inside glibc's heap changed how glibc placed and trimmed the fallback
 * and large blocks around it
 * (game_session: block twice as slow). The in-house allocators' own memory
 * and the malloc heap their fallback uses now stay apart.
 *
 * Contract: hr_segcache_get(n) returns a 16-byte-aligned block of at least
 * n bytes (a cached one of the same rounded size, else newly carved) or
 * NULL; its contents are undefined (zero when new). hr_segcache_put(p, n)
 * takes back a block got with the same n (NULL is ignored). Blocks are
 * never unmapped: what the process holds is the most it had in use at once
 * per size. A size beyond the table's 64 sizes is served by posix_memalign
 * and freed on put. Thread-safe (a spin lock: get and put happen once per
 * segment, never per allocation). The in-house allocators' footprints count
 * their segments in use by arithmetic, never what this cache holds. */
#ifndef HEAPREPLAY_SEGCACHE_H
#define HEAPREPLAY_SEGCACHE_H

#include <stddef.h>

void *hr_segcache_get(size_t n);
void  hr_segcache_put(void *p, size_t n);

#endif
