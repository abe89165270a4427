/* What the replay processes' two files share (child.h): child.c runs the
 * jobs, child_paced.c the paced memory laps of their rows (paced.h). */
#ifndef HR_REPLAY_CHILD_INT_H
#define HR_REPLAY_CHILD_INT_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay/child.h"
#include "replay/paced.h"

/* How the server saw one replay process end. */
typedef struct hr_child_end {
    int      status;    /* waitpid status */
    int      timed_out; /* killed at the deadline */
    int      oom;       /* killed over the memory limit */
    uint64_t rss;       /* oom: the anonymous RSS that was over it */
    double   secs;      /* oom: when, from the process's start */
} hr_child_end_t;

/* One replay process being waited for: its deadline and memory limit. */
typedef struct hr_child_watch {
    pid_t                 pid;
    const hr_child_job_t *job;
    uint64_t              t0, deadline, limit, next_poll;
    hr_child_end_t        e;
} hr_child_watch_t;

/* Which measure jobs belong to a paced row: lead[i] is the job whose row's
 * paced lap job i takes (the row's first measure job), -1 for none; the
 * server writes each lead job's figures in given[lead] (HR_PACED_GIVEN). */
typedef struct hr_paced_rows {
    int  *lead;
    char (*given)[HR_PACED_GIVEN_MAX];
    int   n_rows;
} hr_paced_rows_t;

/* In a freshly forked process: SIGKILL when the parent dies (child.c). */
void hr_child_die_with_parent(pid_t parent);
/* In the forked child: exec the worker of job with its allocator preloaded,
 * its result on fd. Never returns. */
void hr_child_exec_worker(const hr_child_job_t *job, int fd);
/* The job's --timeout, seconds (50 times it under callgrind). */
double hr_child_job_timeout(const hr_child_job_t *job);
/* Watching one process: its deadline and (limit > 0) its anonymous RSS. */
void hr_child_watch_start(hr_child_watch_t *w, pid_t pid, const hr_child_job_t *job, uint64_t limit);
/* One look at the process: kills its group at the deadline or over the
 * limit. 1 once it has ended (its group then killed), 0 while it runs. */
int hr_child_watch_poll(hr_child_watch_t *w);
/* When the server must look at w again (hr_now_ns clock): its deadline or
 * its next RSS reading, whichever comes first; 1 ms on once it was killed. */
uint64_t hr_child_watch_due(const hr_child_watch_t *w);
/* Sleeps until `until` or a child's end, whichever comes first: SIGCHLD,
 * which the server keeps blocked (chld: that set), taken by sigtimedwait. */
void hr_child_watch_sleep(const sigset_t *chld, uint64_t until);

/* In the parent, before the server: the rows whose memory lap is paced. 0,
 * or -1 when out of memory. */
int hr_paced_rows(const hr_child_job_t *jobs, int n, const int *wfd, hr_paced_rows_t *pr);
void hr_paced_rows_free(hr_paced_rows_t *pr);
/* In the server, before the timed processes: the rows' paced laps, as one
 * batch; fills pr->given. wfd and status_fd: the server's descriptors,
 * closed in each paced process; chld: SIGCHLD, blocked in the server (it
 * sleeps between looks: hr_child_watch_sleep); mask: the signal mask each
 * paced process starts with. */
void hr_paced_batch(const hr_child_job_t *jobs, int n, const int *wfd, int status_fd,
                    hr_paced_rows_t *pr, const sigset_t *chld, const sigset_t *mask);

#endif
