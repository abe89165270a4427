/* Internals of libheapreplay-capture.so shared by its two files:
 * hooks.c (the interposed allocation functions and the bootstrap pool) and
 * log.c (per-thread buffers, the output file, exit/fork/signal handling).
 * Nothing here may call malloc: the log uses mmap'd buffers and raw syscalls. */
#ifndef HR_CAPTURE_INT_H
#define HR_CAPTURE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "capture/rawlog.h"

#define HR_CAP_TLS __thread __attribute__((tls_model("initial-exec")))
#define HR_CAP_API __attribute__((visibility("default")))
#define HR_LIKELY(x) __builtin_expect(!!(x), 1)
#define HR_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Nonzero while this thread is inside a hook: nested allocations (from the
 * real allocator, dlsym, our own bookkeeping) pass through unrecorded. */
extern HR_CAP_TLS int hr_cap_guard;
/* Nonzero while events are being recorded (a file is open, not yet closed). */
extern volatile int hr_cap_recording;

/* log.c */
void hr_cap_log_init(void);   /* called once by the hooks after the real functions resolve */
uint64_t hr_cap_next_seq(void);
/* Append one record for this thread. name/len: annotation name or NULL. */
void hr_cap_emit(uint64_t seq, unsigned op, uint64_t ptr, uint64_t a, uint64_t b,
                 const char *name, size_t len);
/* Flush every buffer and write the END record; `how` is the END's b field:
 * 0 exit, 1 _exit, 2 exec, 128+N signal N. Recording stops afterwards,
 * except for exec (which only flushes: the exec may fail). */
void hr_cap_finish(unsigned how);

#endif
