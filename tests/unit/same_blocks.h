/* Test helper: do two runs hand out the same blocks? (test_backends and
 * test_compose: an allocator's timed entries against its counting ones.)
 * Each run numbers its blocks by first appearance (same_blocks_ordinal),
 * so two instances at different base addresses compare equal when they
 * hand out the same blocks in the same order. Each run goes in a child
 * forked from the test's state (same_blocks_fork, _child_ok), so both start
 * from the same malloc heap: fallback blocks, stack entries beyond the
 * buffer and block's chunks come from it. Results come back through memory
 * from same_blocks_shared. */
#ifndef HR_TEST_SAME_BLOCKS_H
#define HR_TEST_SAME_BLOCKS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* p's number among the distinct pointers seen[0..*n) (appended when new,
 * while there is room for it). */
static inline uint32_t same_blocks_ordinal(void **seen, size_t *n, size_t cap, void *p) {
    size_t j = 0;
    while (j < *n && seen[j] != p)
        j++;
    if (j == *n && *n < cap)
        seen[(*n)++] = p;
    return (uint32_t)j;
}

/* The first index below n where a and b differ; n when none. */
static inline size_t same_blocks_first_diff(const uint32_t *a, const uint32_t *b, size_t n) {
    size_t k = 0;
    while (k < n && a[k] == b[k])
        k++;
    return k;
}

/* Zeroed memory the children write and the parent reads; NULL on failure. */
static inline void *same_blocks_shared(size_t bytes) {
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

/* fork() with the test's output flushed first (the child would print it
 * again): the child runs one case and _exit()s with 0 on success. */
static inline pid_t same_blocks_fork(void) {
    fflush(stdout);
    return fork();
}

/* 1 when child pid (from same_blocks_fork) exited with 0. */
static inline int same_blocks_child_ok(pid_t pid) {
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

#endif
