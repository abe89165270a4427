/* The prediction's two answers (answers.h; the formulas are in
 * docs/METRICS.md, "Predicted change of the program's run time"). */
#include "report/answers.h"

#include <math.h>
#include <stdio.h>

#include "report/access.h"
#include "report/ranking.h"

/* d2(n): the expected range of n standard normal samples (n = 2..20);
 * above 20 the value of 20, which overstates the noise slightly. */
static const double d2_table[21] = {0,     0,     1.128, 1.693, 2.059, 2.326, 2.534,
                                    2.704, 2.847, 2.970, 3.078, 3.173, 3.258, 3.336,
                                    3.407, 3.472, 3.532, 3.588, 3.640, 3.689, 3.735};

double hr_predict_model_error(double baseline_alloc_s) {
    return HR_PREDICT_MODEL_ALLOC * (baseline_alloc_s > 0 ? baseline_alloc_s : 0);
}

/* [lo, hi] times each of the factors f and g: the lowest and the highest. */
static void scaled_by(double lo, double hi, double f, double g, double *slo, double *shi) {
    *slo = fmin(f * lo, g * lo);
    *shi = fmax(f * hi, g * hi);
}

void hr_predict_scaled(double lo, double hi, double *slo, double *shi) {
    scaled_by(lo, hi, HR_PREDICT_SCALE_LO, HR_PREDICT_SCALE_HI, slo, shi);
}

void hr_predict_startup_scaled(double lo, double hi, double *slo, double *shi) {
    scaled_by(lo, hi, HR_PREDICT_STARTUP_LO, HR_PREDICT_STARTUP_HI, slo, shi);
}

double hr_predict_noise(const hr_result_program_t *prog, const char **basis) {
    double runs = prog->runs, mad = prog->cpu_s_mad, range = prog->cpu_s_max - prog->cpu_s_min;
    double sd = NAN;
    const char *b = NULL;
    if (runs >= 2 && runs < 4e9 && isfinite(mad) && mad > 0) {
        sd = HR_PREDICT_MAD_SD * mad;
        b = "mad";
    } else if (runs >= 2 && runs < 4e9 && isfinite(range) && range >= 0) {
        sd = range / d2_table[runs > 20 ? 20 : (unsigned)runs];
        b = "range";
    }
    if (basis)
        *basis = b;
    return HR_PREDICT_Z * sqrt(2.0) * sd;
}

double hr_predict_runs_to_see(double change_s, double noise_s) {
    double c = fabs(change_s);
    if (!isfinite(noise_s))
        return NAN;
    if (noise_s <= 0 && c > 0)
        return 1;
    double k = c > 0 ? ceil((noise_s / c) * (noise_s / c) - 1e-9) : INFINITY;
    return k < 1 ? 1 : k > 1e9 ? 1e9 : k;
}

/* The other programs' CPUs above which the machine was busy. */
static double other_cpu_limit(double cpus) {
    return fmax(HR_PREDICT_OTHER_CPU_MIN, cpus * HR_PREDICT_OTHER_CPU_SHARE);
}

int hr_predict_loaded(const hr_result_program_t *prog) {
    if (!(prog->cpus >= 1))
        return 0;
    if (isfinite(prog->other_cpu)) /* the load that is not the program's own */
        return prog->other_cpu > other_cpu_limit(prog->cpus);
    double l = prog->load_before > prog->load_after ? prog->load_before : prog->load_after;
    return l > prog->cpus / 2 + 1;
}

void hr_predict_load_note(FILE *out, const hr_result_program_t *prog, const char *pre) {
    if (!hr_predict_loaded(prog))
        return;
    if (isfinite(prog->other_cpu))
        fprintf(out, "%sthe machine was busy while the program was timed (other programs kept "
                "%.2f of its %.0f CPUs busy during the runs; busy: above %.2f): its noise and CPU "
                "time are overstated, so fewer changes look visible in one run; capture again on "
                "a quieter machine\n", pre, prog->other_cpu, prog->cpus,
                other_cpu_limit(prog->cpus));
    else
        fprintf(out, "%sthe machine was loaded while the program was timed (load average %.2f "
                "before, %.2f after the runs, %.0f CPUs; loaded: above CPUs / 2 + 1): its noise "
                "and CPU time are overstated, so fewer changes look visible in one run; capture "
                "again on a quieter machine\n", pre, prog->load_before, prog->load_after,
                prog->cpus);
}

const char *hr_predict_real_words(const hr_result_predict_t *p) {
    return p->real < 0 ? "real saving" : p->real > 0 ? "real cost" : "no real change";
}

void hr_predict_seen_words(char *buf, size_t n, const hr_result_predict_t *p) {
    double k = p->runs_to_see;
    if (!isfinite(k))
        snprintf(buf, n, "noise unknown");
    else if (k <= 1)
        snprintf(buf, n, "one run shows it");
    else if (k <= HR_PREDICT_MAX_RUNS)
        snprintf(buf, n, "needs ~%.0f runs", k);
    else
        snprintf(buf, n, "not in %d runs", HR_PREDICT_MAX_RUNS);
}

void hr_predict_words(char *buf, size_t n, const hr_result_predict_t *p) {
    char iv[64], seen[48], noise[32];
    hr_fmt_seconds_range(iv, sizeof iv, p->interval_s_lo, p->interval_s_hi);
    hr_predict_seen_words(seen, sizeof seen, p);
    if (isfinite(p->noise_s)) {
        hr_fmt_seconds(noise, sizeof noise, p->noise_s, 0);
        snprintf(buf, n, "%s [%s]; %s (program noise +/-%s)", hr_predict_real_words(p), iv,
                 seen, noise);
    } else {
        snprintf(buf, n, "%s [%s]; %s (capture with --time-runs N)", hr_predict_real_words(p),
                 iv, seen);
    }
}

void hr_predict_ship_words(char *buf, size_t n, const char *alloc, const hr_result_predict_t *p,
                           double cpu_s, const char *scope) {
    char c[32], cpu[32], words[160], rss[32];
    hr_fmt_seconds(c, sizeof c, p->change_s, 1);
    hr_fmt_seconds(cpu, sizeof cpu, cpu_s, 0);
    hr_predict_words(words, sizeof words, p);
    hr_fmt_cat(buf, n, "ship %s: %s of %s CPU (%+.1f%%%s%s): %s", alloc, c, cpu, p->change_pct,
               scope ? "; " : "", scope ? scope : "", words);
    if (isfinite(p->rss_change_bytes)) {
        hr_fmt_bytes(rss, sizeof rss, fabs(p->rss_change_bytes));
        hr_fmt_cat(buf, n, ", max RSS %s%s", p->rss_change_bytes < 0 ? "-" : "+", rss);
    }
}

void hr_predict_keep_words(char *buf, size_t n, int any_real, const char *scope) {
    if (any_real)
        hr_fmt_cat(buf, n, "keep %s: no allocator's saving is real", HR_RANK_BASELINE);
    else
        hr_fmt_cat(buf, n, "no allocator changes this program for real");
    if (scope)
        hr_fmt_cat(buf, n, " (%s)", scope);
}
