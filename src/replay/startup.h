/* Each allocator's process start-up, measured once per replay run.
 *
 * A program that switches allocator pays, in every process it starts, for
 * loading the allocator's library (and what that library needs: Debian's
 * jemalloc and tcmalloc bring libstdc++), its constructors and its first
 * arenas or page heap. A replay worker is started once per sample and its
 * start-up is outside every lap, so no lap figure holds that cost; this
 * module measures it apart: `heapreplay __startup-probe` (one malloc and one
 * free, then exit) is run with each allocator preloaded, in interleaved
 * rounds, and each run's CPU time (user + system, from wait4) and peak RSS
 * are kept. The figures that matter are the differences from the C
 * library's run (the probe's own start-up is the same in every run): per
 * round, so that a slow moment of the machine cancels, and their
 * Hodges-Lehmann estimate with its signed-rank interval (base/signrank.h),
 * rounds added until every library's interval is tight or the budget is
 * spent. docs/METRICS.md, "Process start-up". */
#ifndef HR_REPLAY_STARTUP_H
#define HR_REPLAY_STARTUP_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define HR_STARTUP_MAX_RUNS 64

typedef struct hr_startup_options {
    unsigned min_runs;  /* rounds at least (each round runs every library once) */
    unsigned max_runs;  /* rounds at most, up to HR_STARTUP_MAX_RUNS */
    double   rel_tol;   /* stop when every library's interval of its difference */
    double   abs_tol_s; /* from the C library's is within +-max(rel_tol x the */
                        /* estimate, abs_tol_s) ... */
    double   max_s;     /* ... or after this much wall time of rounds */
} hr_startup_options_t;

hr_startup_options_t hr_startup_default(void);

/* One library's figures over the rounds. */
typedef struct hr_startup {
    const char *lib;     /* "" for the C library's own malloc */
    unsigned    runs;    /* runs that ended normally */
    double      cpu_s;   /* median CPU time of a run */
    double      cpu_q1_s, cpu_q3_s; /* its quartiles */
    uint64_t    max_rss; /* median peak RSS, bytes */
    /* Its CPU time over the C library's (out[0]'s): the Hodges-Lehmann
     * estimate of the rounds' differences and its signed-rank interval of at
     * least 95 % (conf); all 0 for out[0] itself, lo/hi/conf NAN under 6
     * rounds. */
    double      over_s, over_lo_s, over_hi_s, over_conf;
} hr_startup_t;

/* Runs self_exe's probe with each of libs[0..n) preloaded (libs[0] is ""
 * = none, the C library), in interleaved rounds as opt says, into out[0..n)
 * (each out[i].runs: the rounds run). 0, or -1 with err set (a probe that
 * cannot be started or does not exit 0). */
int hr_startup_measure(const char *self_exe, const char *const *libs, size_t n,
                       const hr_startup_options_t *opt, hr_startup_t *out, hr_error_t *err);

/* The probe itself (`heapreplay __startup-probe`): one malloc and one free,
 * then exit 0. */
int hr_startup_probe_main(void);

#endif
