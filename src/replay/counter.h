/* The deterministic cost counter (docs/METRICS.md, "Instruction count"):
 * instructions retired inside allocator calls, per op, for CI where wall time
 * is too noisy.
 *
 * Two ways to count, one place where the allocator is called:
 *  - perf: a per-thread, user-only PERF_COUNT_HW_INSTRUCTIONS counter, opened
 *    disabled and switched on and off around each allocator call with
 *    ioctl(PERF_EVENT_IOC_ENABLE/DISABLE). Two system calls per op (about
 *    0.2-1 us on bare metal, more in a VM) make a count lap far slower than a
 *    timed lap, but the counter only counts user instructions, so the figure
 *    is the allocator's plus a fixed wrapper cost (the user-side tail of one
 *    ioctl and head of the next, some ten instructions: measure it with a
 *    no-op fn and subtract, see hr_perf_calibrate). Not available in most
 *    virtual machines (perf_event_open gives ENOENT for the event).
 *  - callgrind: the whole replay process runs under
 *    `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=hr_counted_*`,
 *    so instructions are collected only between entry to and return from the
 *    hr_counted_* functions below. Nothing of valgrind is needed at build
 *    time: the toggle is by symbol name, so the binary must keep its symbol
 *    table (not stripped). Same trace + same allocator build = same count.
 *
 * The hr_counted_* functions are the only way a count lap may call the
 * allocator. They are never inlined, cloned or folded (so callgrind sees them
 * by name and a call enters and leaves them exactly once) and never tail-call
 * the allocator (an asm barrier uses the result after the call). Besides the
 * allocator, a counted call includes the wrapper itself (the test of the perf
 * fd, the argument shuffle, call and return: 14 Ir per call with a no-op fn
 * under callgrind, x86-64 GCC -O2, measured by count_demo) and whatever the fn
 * adaptor does; both are the same for every allocator behind the same
 * adaptor.
 */
#ifndef HR_REPLAY_COUNTER_H
#define HR_REPLAY_COUNTER_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "replay/kcount.h"

typedef enum hr_count_mode {
    HR_COUNT_NONE = 0,
    HR_COUNT_AUTO,      /* perf when it works, else callgrind when valgrind is found */
    HR_COUNT_PERF,
    HR_COUNT_CALLGRIND
} hr_count_mode_t;

/* "none", "auto", "perf", "callgrind" -> 0; anything else -> -1. */
int hr_count_mode_parse(const char *s, hr_count_mode_t *out);
const char *hr_count_mode_name(hr_count_mode_t m);

/* Decides the mode to run: none stays none; perf only if a user-space
 * instructions counter opens and counts; callgrind only if valgrind is on
 * PATH; auto tries perf, then callgrind. On failure returns -1 with one line
 * giving every reason (e.g. "perf_event_open: no hardware instructions counter
 * (ENOENT): use --count callgrind; valgrind: not found on PATH"). */
int hr_count_resolve(hr_count_mode_t want, hr_count_mode_t *got, hr_error_t *err);

/* ---- perf ---------------------------------------------------------------- */

/* Opens a disabled instructions counter for the calling thread, user space
 * only (exclude_kernel, exclude_hv), close-on-exec, reading total time enabled
 * and running so that a multiplexed count is detected. Returns the fd, or -1
 * with the reason (ENOENT, EACCES with perf_event_paranoid, ...). */
int hr_perf_open(hr_error_t *err);
/* Tells the hr_counted_* functions to switch `fd` on and off around each
 * call; -1 (the initial state) for none. Per process, not per thread. */
void hr_counted_set_perf_fd(int fd);
/* Reads the total counted so far. -1 with err when the read fails or the
 * counter was not running all the time it was enabled (multiplexed with other
 * events: the count would be an estimate). */
int hr_perf_read(int fd, uint64_t *count, hr_error_t *err);
/* Zeroes the count (between laps). */
int hr_perf_reset(int fd);
/* Instructions of one counted call around a fn that does nothing, the least
 * of `rounds` rounds of `calls` calls (to subtract from per-op figures).
 * Leaves the counter reset and the perf fd set as it was. */
int hr_perf_calibrate(int fd, int rounds, int calls, uint64_t *per_call, hr_error_t *err);

/* ---- the counted calls --------------------------------------------------- */

typedef void *(*hr_count_alloc_fn)(void *self, size_t size, size_t align, int32_t heap);
typedef void *(*hr_count_calloc_fn)(void *self, size_t n, size_t size, int32_t heap);
typedef void (*hr_count_free_fn)(void *self, void *p, size_t size);
typedef void *(*hr_count_realloc_fn)(void *self, void *p, size_t old_size, size_t new_size,
                                     int32_t heap);

/* Each calls fn once with the other arguments and returns its result. */
void *hr_counted_alloc(hr_count_alloc_fn fn, void *self, size_t size, size_t align, int32_t heap);
void hr_counted_free(hr_count_free_fn fn, void *self, void *p, size_t size);
void *hr_counted_calloc(hr_count_calloc_fn fn, void *self, size_t n, size_t size, int32_t heap);
void *hr_counted_realloc(hr_count_realloc_fn fn, void *self, void *p, size_t old_size,
                         size_t new_size, int32_t heap);

/* The copy of an emulated realloc and the zeroing of an emulated calloc
 * (an allocator without them: the engine does alloc + memcpy + free, alloc
 * + memset). Counted as the allocator's work: a program does it under that
 * allocator, and glibc's realloc and calloc do it inside their calls. */
void hr_counted_copy(void *dst, const void *src, size_t n);
void hr_counted_zero(void *p, size_t n);

/* ---- callgrind ----------------------------------------------------------- */

#define HR_CALLGRIND_MAX_ARGS 56 /* the prefix (12) and a worker command (up to 40) */

/* The command prefix that runs a program under callgrind collecting only
 * inside hr_counted_*: argv[0..argc-1] (then the caller appends its own
 * command and the NULL). Self-contained storage, no malloc, so it can be built
 * in a forked child right before execv. The options:
 *   --tool=callgrind -q                  no banner, errors only
 *   --callgrind-out-file=OUT             one file, read by hr_callgrind_total
 *   --collect-atstart=no --toggle-collect=hr_counted_*
 *   --separate-threads=no                one total for all threads
 *   --cache-sim=no --branch-sim=no       Ir only (override any valgrindrc)
 *   --collect-systime=yes                sysCount: system calls made inside
 *                                        the counted calls (kcount.h)
 *   --collect-jumps=no --dump-instr=no
 * (not --dump-line=no: without line or instruction positions callgrind warns
 * on stderr for every run)
 * Run it with VALGRIND_OPTS unset (the caller's job: it is in the
 * environment). The user's LD_PRELOAD reaches the client: valgrind puts its
 * own preload (vgpreload_core) in front and callgrind does not replace malloc,
 * so the preloaded allocator serves every call (checked by experiment with
 * jemalloc, mimalloc and tcmalloc). */
typedef struct hr_callgrind_cmd {
    char        valgrind[PATH_MAX];     /* resolved from PATH */
    char        outopt[PATH_MAX + 32];  /* --callgrind-out-file=... */
    const char *argv[HR_CALLGRIND_MAX_ARGS];
    int         argc;
} hr_callgrind_cmd_t;

int hr_callgrind_cmd(hr_callgrind_cmd_t *cmd, const char *outfile, hr_error_t *err);

/* Allocators that purge by the wall clock count differently when the machine
 * is loaded (valgrind runs the client ~50x slower, so more delays expire):
 * mimalloc 2.0 decommits and resets after 25-100 ms delays (0.14 % drift
 * between an idle and a loaded run of count_demo), jemalloc purges by decay
 * time (up to 0.03 %). For a count run these are pinned to "never by the
 * clock", the behaviour of a run too short for any delay to expire (an idle
 * default mimalloc run gives the same count). hr_count_pinned_env lists them
 * ("NAME=VALUE", NULL-terminated; reports should show them); hr_count_pin_env
 * sets each that the environment does not already set. Call it in the count
 * run's child before exec. glibc and tcmalloc purge by counters, not time:
 * identical counts without it. */
extern const char *const hr_count_pinned_env[];
void hr_count_pin_env(void);

/* Where valgrind is on PATH: 0 and the path in buf, or -1. */
int hr_valgrind_find(char *buf, size_t cap);

/* What a callgrind output file says of the counted calls. */
typedef struct hr_callgrind_sums {
    uint64_t ir;                /* instructions */
    int      have_sys;          /* the file has a sysCount event */
    uint64_t sys;               /* system calls, all kinds */
    uint64_t sys_kind[HR_SYS__N]; /* by kind: the function that made each one */
} hr_callgrind_sums_t;

/* Reads a callgrind output file: the total Ir from the "totals:" line (else
 * "summary:"), column Ir of the "events:" line; the sysCount total likewise,
 * and per kind from the self cost of each function ("fn=" blocks; the
 * inclusive cost line after "calls=" is skipped). -1 with err when the file
 * is missing, is not callgrind output or has no Ir total. */
int hr_callgrind_read(const char *outfile, hr_callgrind_sums_t *s, hr_error_t *err);

/* The total Ir alone (hr_callgrind_read). */
int hr_callgrind_total(const char *outfile, uint64_t *ir, hr_error_t *err);

#endif
