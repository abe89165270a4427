/* The kernel's share of an allocator's cost, for the count lap (--count;
 * docs/METRICS.md, "Kernel work and the cost"): page faults and system calls,
 * and the deterministic cost that adds them to the instruction count.
 *
 * Why: instructions retired in user space do not see what the kernel does for
 * an allocator. glibc with GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4096
 * replays several times slower while it runs fewer instructions (every block
 * of 4 KiB or more is an mmap, a munmap and fresh zeroed pages); with
 * trim_threshold=0 it gives memory back at every free and faults it in again.
 * Both show in the page faults and the system calls of the lap.
 *
 * What is counted:
 *  - faults: minor and major page faults of the whole count lap (getrusage
 *    before and after it, the process's own): what the allocator does inside
 *    its calls and what its choice of memory costs the program when it first
 *    writes a block (the touch policy's writes are in the lap). The replay's
 *    own faults are in it too, the same for every allocator on one trace.
 *    Under callgrind the figure also holds the faults of valgrind's code
 *    cache for the allocator's code (a few hundred pages, the same from run
 *    to run of one build).
 *  - system calls: made inside the counted calls, by kind, read from
 *    callgrind's sysCount event (--collect-systime): each is charged to the
 *    function that executes the syscall instruction (glibc's mmap64, munmap,
 *    brk, madvise, mprotect, mremap wrappers); one made elsewhere is "other".
 *    A perf count has no system-call count (the kernel offers no per-kind
 *    event without tracefs): its cost holds the faults only.
 *
 * The cost, in instruction equivalents:
 *   cost = instructions + HR_KCOST_FAULT * faults + HR_KCOST_SYSCALL * syscalls
 * with the weights the time of one fault or call over the time of one
 * allocator instruction, measured on the project's VM (bench/gates/kcost.c:
 * a first touch of an anonymous page ~3.1 us, an mmap or munmap ~1.8 us, a
 * brk ~1.5 us; allocator code ~0.14-0.49 ns per instruction, 0.25 taken).
 * They are constants, not measured per run, so that a cost is deterministic
 * and two reports compare; a machine whose kernel is much faster or slower
 * weighs the kernel's work differently, not the direction of a change. */
#ifndef HR_REPLAY_KCOUNT_H
#define HR_REPLAY_KCOUNT_H

#include <stdint.h>

#define HR_KCOST_FAULT   12000u /* instruction equivalents of one page fault */
#define HR_KCOST_SYSCALL 6000u  /* of one memory system call */

/* Kinds of system calls counted (the order of the count.sys_* keys). */
typedef enum hr_sys_kind {
    HR_SYS_MMAP = 0,
    HR_SYS_MUNMAP,
    HR_SYS_BRK,
    HR_SYS_MADVISE,
    HR_SYS_MPROTECT,
    HR_SYS_MREMAP,
    HR_SYS_OTHER,
    HR_SYS__N
} hr_sys_kind_t;

/* The kind of a system call made in the function `fn` (a symbol name:
 * "mmap64", "__munmap", "sbrk", ...): by the call it wraps, else other. */
hr_sys_kind_t hr_sys_kind_of(const char *fn);

/* Page faults of this process so far (getrusage RUSAGE_SELF). */
typedef struct hr_kfaults {
    uint64_t minor, major;
} hr_kfaults_t;

void hr_kfaults_now(hr_kfaults_t *f);
/* b - a, per field (0 where b is behind a). */
hr_kfaults_t hr_kfaults_diff(const hr_kfaults_t *a, const hr_kfaults_t *b);

/* The cost above, saturating at UINT64_MAX. */
uint64_t hr_kcost(uint64_t insns, uint64_t faults, uint64_t syscalls);

#endif
