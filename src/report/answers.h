/* The prediction's two answers (docs/METRICS.md, "Predicted change of the
 * program's run time"), apart from the predictions themselves (predict.h)
 * so that the verdict (summary.c) and the prediction table say them in the
 * same words: "is the change real?" (the replay's interval widened by the
 * model's measured error) and "will one run show it?" (the change against
 * the program's own run-to-run noise), and the machine's load while the
 * program was timed. */
#ifndef HR_REPORT_ANSWERS_H
#define HR_REPORT_ANSWERS_H

#include <stddef.h>
#include <stdio.h>

#include "base/result.h"

/* z of a two-sided 95 % bound. */
#define HR_PREDICT_Z 1.96

/* The model's error, as the fidelity benchmark measured it (bench/fidelity;
 * docs/METRICS.md, "Model error", names the runs): a real change of the
 * program's CPU time was HR_PREDICT_SCALE_LO to HR_PREDICT_SCALE_HI times
 * the replay's change of the allocator's own time (mostly larger: the
 * program's own code runs faster or slower on what the allocator hands out,
 * which the replay leaves out), and apart from that within
 * HR_PREDICT_MODEL_ALLOC of the baseline allocator's whole time on the
 * trace (its cold lap). The interval of "is the change real?" is the
 * replay's range scaled by both factors (hr_predict_scaled) and widened by
 * that share on each side (hr_predict_model_error). Re-measured fidelity
 * changes these three numbers only. */
#define HR_PREDICT_SCALE_LO 0.8
#define HR_PREDICT_SCALE_HI 2.0
#define HR_PREDICT_MODEL_ALLOC 0.1
double hr_predict_model_error(double baseline_alloc_s);
/* [lo, hi] of the replay's change scaled by the two factors: the lowest and
 * the highest of lo and hi times each. */
void hr_predict_scaled(double lo, double hi, double *slo, double *shi);

/* The start-up term's model error (bench/startup; docs/METRICS.md, "Process
 * start-up"): what small real programs paid for a library's start-up, their
 * real change less the replay's laps, was HR_PREDICT_STARTUP_LO to
 * HR_PREDICT_STARTUP_HI times what the probe measures (the dynamic linker's
 * work grows with the program's own libraries and symbols). The term's
 * interval is scaled by both (hr_predict_startup_scaled), as the laps'
 * range is by the two factors above. */
#define HR_PREDICT_STARTUP_LO 0.9
#define HR_PREDICT_STARTUP_HI 1.3
void hr_predict_startup_scaled(double lo, double hi, double *slo, double *shi);

/* The program's run-to-run noise: the half-width of the 95 % bound of the
 * difference of two single runs, z * sqrt(2) * sd, the runs' CPU time's
 * standard deviation estimated robustly: HR_PREDICT_MAD_SD * their median
 * absolute deviation (the trace's noise record), else, for a trace without
 * one or a MAD of 0, range / d2(runs) (d2: the expected range of `runs`
 * standard normal samples). NAN when fewer than 2 runs were timed (noise
 * unknown). *basis (may be NULL): "mad", "range" or NULL. */
#define HR_PREDICT_MAD_SD 1.4826
double hr_predict_noise(const hr_result_program_t *prog, const char **basis);

/* Runs of each allocator whose medians show `change_s` beyond `noise_s`
 * (hr_predict_noise): ceil((noise / |change|)^2), at least 1, at most
 * 1e9 (no change). Above HR_PREDICT_MAX_RUNS the words say "not in N runs". */
#define HR_PREDICT_MAX_RUNS 100
double hr_predict_runs_to_see(double change_s, double noise_s);

/* Whether the machine was loaded while the program was timed. With the
 * other programs' CPU measured (a 1.7 trace): when they kept more than
 * HR_PREDICT_OTHER_CPU_MIN CPUs, or HR_PREDICT_OTHER_CPU_SHARE of the CPUs,
 * busy on average during the runs (whichever is more): the program's own
 * threads and processes never count. Before: the larger 1-minute load
 * average (before, after the runs) above cpus / 2 + 1 (the timed runs
 * themselves add about 1, a program of several threads or processes more,
 * which this rule cannot tell from other programs'). 0 without a noise
 * record. */
#define HR_PREDICT_OTHER_CPU_MIN 0.5
#define HR_PREDICT_OTHER_CPU_SHARE 0.25
int hr_predict_loaded(const hr_result_program_t *prog);
/* The warning line about it ("PRE the machine was loaded ...\n"), or nothing. */
void hr_predict_load_note(FILE *out, const hr_result_program_t *prog, const char *pre);

/* Both answers of p in words: "real saving [-330..-170 ms]; one run shows it
 * (program noise +/-60 ms)", "no real change [...]; needs ~12 runs to see
 * (...)", "...; noise unknown (capture with --time-runs N)". */
void hr_predict_words(char *buf, size_t n, const hr_result_predict_t *p);
/* The verdict's first clause in the same words for one process and for a
 * program of several (docs/REPORTS.md, "Verdict"), appended to buf: "ship
 * A: -250.0 ms of 3.20 s CPU (-7.8%[; SCOPE]): real saving [...]; one run
 * shows it (...)[, max RSS +3.1 MiB]" for the allocator A whose saving p is
 * real, against the program's cpu_s; else "keep glibc: no allocator's
 * saving is real" when some allocator's change is real (any_real: a cost),
 * "no allocator changes this program for real" when none is, each with
 * " (SCOPE)". scope: NULL for a trace of one process. */
void hr_predict_ship_words(char *buf, size_t n, const char *alloc, const hr_result_predict_t *p,
                           double cpu_s, const char *scope);
void hr_predict_keep_words(char *buf, size_t n, int any_real, const char *scope);

/* The two answers apart: "real saving", "real cost", "no real change"; and
 * "one run shows it", "needs ~K runs", "not in 100 runs", "noise unknown". */
const char *hr_predict_real_words(const hr_result_predict_t *p);
void hr_predict_seen_words(char *buf, size_t n, const hr_result_predict_t *p);

#endif
