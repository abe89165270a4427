/* heapreplay capture: the program's own run time, recorded in the trace
 * (trace.h's hr_program_time_t; docs/CAPTURE.md, "Program time"). */
#ifndef HR_CLI_CAPTURE_TIME_H
#define HR_CLI_CAPTURE_TIME_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "trace/trace.h"

/* One run of the program: wall time, user + system CPU time of it and the
 * descendants it waited for, their largest peak RSS (bytes), wait status. */
typedef struct hr_run_time {
    uint64_t wall_ns, cpu_ns, max_rss;
    int      status;
} hr_run_time_t;

/* Waits for pid (retrying on EINTR) and fills rt (wall time from t0, the
 * monotonic clock hr_now_ns() read just before the fork).
 * 0, or -1 with errno. */
int hr_run_wait(pid_t pid, uint64_t t0, hr_run_time_t *rt);
/* hr_run_wait for a program in a process group of its own (pgid = pid)
 * that has the terminal tty (-1: none). When the program is stopped (^Z)
 * capture takes the terminal back and stops itself; when continued in the
 * foreground it hands the terminal back and continues the program. */
/* Makes pg the foreground process group of the terminal tty (SIGTTOU
 * blocked, so that a background caller is not stopped for asking). */
void hr_tty_give(int tty, pid_t pg);
int hr_run_wait_job(pid_t pid, uint64_t t0, int tty, hr_run_time_t *rt);

/* 0 when standard input is a pipe or socket: what the captured run read
 * there cannot be read again, so the program cannot be re-run alike. */
int hr_stdin_rerunnable(void);
/* Standard input's offset when it is a regular file (the timing runs start
 * reading there again), else -1. Take it before the captured run. */
off_t hr_stdin_offset(void);

/* The program time of n runs: medians of wall, CPU and max RSS, the CPU
 * time's min, max and median absolute deviation; `captured` sets
 * HR_PROGF_CAPTURED. The noise record's load and CPUs stay 0 (none). */
void hr_program_from_runs(const hr_run_time_t *runs, int n, int captured, hr_program_time_t *p);

/* --time-runs N: runs cmd n times without the capture library (output to
 * /dev/null, standard input rewound to in_off when >= 0), fills p from
 * them with the noise record (the 1-minute load average before the first
 * and after the last run, the online CPUs) and says so on `sum` (with a warning when a run's wait status
 * differs from expect_status, the captured run's). 0, or -1 (cannot fork). */
int hr_time_runs(char **cmd, int n, off_t in_off, int expect_status, hr_program_time_t *p,
                 FILE *sum);

#endif
