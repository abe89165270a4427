/* The memory limit of a replay process (docs/ARCHITECTURE.md, "Replay
 * processes"). The limit is on the process's anonymous resident memory
 * (RSS less its shared and file pages): an address-space limit (RLIMIT_AS,
 * RLIMIT_DATA) charges what an allocator reserves rather than what it uses
 * (the bump backend reserves 256 GiB; jemalloc, mimalloc and tcmalloc map
 * more than they touch), and resident memory is what takes a machine to
 * its OOM killer. The shared trace mapping is left out, so a large trace costs no
 * allocator its budget. The server that waits for each replay process polls
 * the figure (child.c) and kills the process when it is over the limit: its
 * row is then "oom" with the figure. */
#ifndef HR_REPLAY_MEMLIMIT_H
#define HR_REPLAY_MEMLIMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* --mem-limit none. The option's 0 stands for the default below. */
#define HR_MEM_LIMIT_NONE UINT64_MAX
/* The default's floor and fixed slack. */
#define HR_MEM_LIMIT_FLOOR ((uint64_t)1 << 30)
#define HR_MEM_LIMIT_SLACK ((uint64_t)256 << 20)
/* Harness memory per block id (slot table, the --verify checker's nodes). */
#define HR_MEM_LIMIT_PER_ID 64
/* How often the server reads a running process's RSS: every HR_MEM_POLL_MS
 * near the limit, less often the further below it (child.c,
 * mem_poll_gap_ns): after the time the headroom takes to fill growing at
 * HR_MEM_GROWTH_MAX bytes a second (several times what one thread faulting
 * in fresh pages reaches here, ~2-7 GB/s), at least HR_MEM_POLL_MS and at
 * most HR_MEM_POLL_MAX_MS apart. */
#define HR_MEM_POLL_MS     5
#define HR_MEM_POLL_MAX_MS 100
#define HR_MEM_GROWTH_MAX  ((uint64_t)32 << 30)

/* The limit for a trace whose requested bytes peak at peak_live with n_ids
 * block ids: max(4 x peak_live + HR_MEM_LIMIT_SLACK, HR_MEM_LIMIT_FLOOR) +
 * HR_MEM_LIMIT_PER_ID x n_ids, capped at three quarters of the machine's
 * RAM (a replay then never takes the machine's other processes to the OOM
 * killer) but never below the floor. `opt` is the option's value: 0 is this
 * default, HR_MEM_LIMIT_NONE no limit, anything else the limit itself.
 * Returns the limit in bytes, or 0 for none. */
uint64_t hr_mem_limit_for(uint64_t opt, uint64_t peak_live, uint32_t n_ids);

/* The anonymous resident bytes of process pid (/proc/PID/statm: resident
 * less shared pages), or 0 when it cannot be read (the process is gone).
 * Opens, reads and closes one file: no allocation, safe in the server. */
uint64_t hr_proc_anon_rss(pid_t pid);

/* "1.02 GiB", "512 MiB", "640 KiB" or "100 B" into buf. */
const char *hr_mem_fmt(uint64_t bytes, char *buf, size_t n);

#endif
