/* Between plan.c and run.c (plan.h): one trace's job list and the callgrind
 * output files of its count processes. */
#ifndef HR_REPLAY_PLAN_INT_H
#define HR_REPLAY_PLAN_INT_H

#include "replay/plan.h"

/* A count under callgrind: a private directory for callgrind's output
 * files, one path per spec of the trace. */
typedef struct plan_files {
    char dir[64];
    char (*outs)[96]; /* NULL: no callgrind count */
} plan_files_t;

/* Makes the files when the plan counts under callgrind (else leaves f
 * empty). 0, or -1 after a message on stderr. */
int hr_plan_count_files(const hr_replay_plan_t *p, int nspecs, plan_files_t *f);
void hr_plan_count_files_free(plan_files_t *f);
/* The trace's jobs (hr_replay_plan_job's layout), each a copy of proto with
 * its spec and mode. */
void hr_plan_fill_jobs(const hr_replay_plan_t *p, hr_child_job_t *jobs, const hr_child_job_t *proto,
                       const hr_alloc_spec_t *const *specs, int nspecs, const plan_files_t *f);
/* The count line with callgrind's total from file `out` (which is removed);
 * line is freed and a new one returned. */
char *hr_plan_count_from_callgrind(char *line, const char *out);

#endif
