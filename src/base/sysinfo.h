/* Clocks, memory readings and the machine description (replay engine, reports). */
#ifndef HR_BASE_SYSINFO_H
#define HR_BASE_SYSINFO_H

#include <stdint.h>

#include "base/emit.h"

/* Cycle counter: rdtsc on x86-64, CLOCK_MONOTONIC ns elsewhere. */
static inline uint64_t hr_cycles(void) {
#if defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    extern uint64_t hr_now_ns(void);
    return hr_now_ns();
#endif
}

uint64_t hr_now_ns(void);      /* CLOCK_MONOTONIC */
uint64_t hr_thread_cpu_ns(void); /* CLOCK_THREAD_CPUTIME_ID: user + system time of this thread */
/* Voluntary + involuntary context switches of this thread so far
 * (getrusage RUSAGE_THREAD): a change across an op means the thread was off
 * the CPU during it. */
uint64_t hr_ctx_switches(void);
/* Cycles per second of hr_cycles(), measured once (~20 ms) and cached. */
double hr_cycle_hz(void);
/* Sets that value instead (> 0): a replay worker takes the parent's
 * measurement (the counter is invariant across CPUs on x86-64), so that each
 * worker does not spend 21 ms measuring it again. */
void hr_cycle_hz_set(double hz);
/* Smallest observed cost of two back-to-back hr_cycles() calls. */
uint64_t hr_timer_overhead(void);

/* Resident set size now, bytes (from /proc/self/statm; 0 if unavailable). */
uint64_t hr_rss_now(void);
/* Peak RSS (VmHWM), bytes; hr_rss_peak_reset() restarts it where the kernel
 * allows (writing 5 to /proc/self/clear_refs); returns 0 on success. */
uint64_t hr_rss_peak(void);
int hr_rss_peak_reset(void);

/* Writes {"hostname","cpu","cores","mem_bytes","os","cycle_hz"} as object `key`. */
void hr_machine_emit(hr_emit_t *em, const char *key);

#endif
