/* heapreplay capture: its options, and running the program under the
 * capture library with the terminal and signals handed over (capture_run.c;
 * docs/CAPTURE.md, "Interrupting a capture"). */
#ifndef HR_CLI_CAPTURE_RUN_H
#define HR_CLI_CAPTURE_RUN_H

#include "cli/capture_time.h"

typedef struct hr_capture_opts {
    const char *out, *summary;
    int timestamps, keep_raw, follow_forks;
    int time_runs; /* runs without the library for the program time; 0: the captured run's */
    const char *frames; /* --frames: auto, none or NAME[,NAME...] (frame_syms.h) */
    char **cmd;
    int stacks; /* --stacks: frames per allocation's call stack; 0: none */
} hr_capture_opts_t;

/* Runs o->cmd with lib preloaded, logging to raw; returns its wait status,
 * or -1. rt: its run time. */
int hr_capture_run(const hr_capture_opts_t *o, const char *lib, const char *raw,
                   hr_run_time_t *rt);

/* The last of SIGTERM, SIGINT, SIGHUP, SIGQUIT capture received (and
 * forwarded to the program) during hr_capture_run; 0: none. */
int hr_capture_signal(void);

#endif
