/* When a warm sample stops (the time mode's warm laps, serial and threaded).
 *
 * Two rules. A fixed budget (--warm-time S): laps until S seconds of lap wall
 * time have passed, at least one. The default, the stopping rule
 * (--warm-stop PCT): laps until the median lap is known to within +-PCT %,
 * that is until the median's 95 % confidence interval from order statistics,
 * [x(j), x(n+1-j)] of the n sorted laps, lies within +-PCT % of the median;
 * but never before HR_WARMSTOP_MIN_LAPS laps and HR_WARMSTOP_MIN_S seconds
 * (a sample of a few 1 ms laps sits inside one or two scheduler slices: its
 * laps would agree with each other and still share one neighbour's burst),
 * and never after the cap (--warm-max S) or HR_WARMSTOP_MAX_LAPS laps.
 * docs/METRICS.md "Warm laps" gives the reasons for the numbers.
 *
 * The laps judged are the figure the report's warm ns/op is made of: the
 * lap's thread CPU time (serial) or the threads' summed CPU (threaded); the
 * time limits count lap wall time (the op loops only, as the fixed budget). */
#ifndef HR_REPLAY_WARMSTOP_H
#define HR_REPLAY_WARMSTOP_H

#include <stddef.h>
#include <stdint.h>

#define HR_WARMSTOP_MIN_LAPS 8      /* the 95 % interval needs 6; 8 makes it x(1)..x(8) */
#define HR_WARMSTOP_MIN_S    0.02   /* five 4 ms scheduler ticks */
#define HR_WARMSTOP_MAX_LAPS 4096   /* the lap tables' size */
#define HR_WARMSTOP_DEFAULT_PCT 2.0
#define HR_WARMSTOP_DEFAULT_MAX_S 0.25

/* The rule's parameters. rel == 0: the fixed budget of max_s seconds. */
typedef struct hr_warmstop_opts {
    double   rel;      /* the interval's half-width, a fraction of the median (0.02) */
    double   min_s;    /* lap wall time before the rule may stop a sample */
    double   max_s;    /* the cap (rule) or the budget (fixed) */
    uint32_t min_laps; /* laps before the rule may stop a sample */
} hr_warmstop_opts_t;

/* The rule with rel (0: the fixed budget max_s) and the defaults above. */
hr_warmstop_opts_t hr_warmstop_default(double rel, double max_s);

/* Why a sample stopped. */
typedef enum hr_warmstop_why {
    HR_WARMSTOP_RUNNING = 0,
    HR_WARMSTOP_TIGHT,    /* the median's interval within +-rel */
    HR_WARMSTOP_CAP,      /* the rule's cap: max_s, or HR_WARMSTOP_MAX_LAPS laps */
    HR_WARMSTOP_BUDGET,   /* the fixed budget spent */
} hr_warmstop_why_t;

typedef struct hr_warmstop {
    hr_warmstop_opts_t o;
    uint64_t *sorted;     /* the judged figures so far, ascending (rule only) */
    uint64_t  n;          /* laps so far */
    uint64_t  spent_ns;   /* their wall time */
    double    spread;     /* the last interval's half-width / median (NAN: none yet) */
    hr_warmstop_why_t why;
} hr_warmstop_t;

/* Returns 0, or -1 when the lap table cannot be allocated. */
int hr_warmstop_open(hr_warmstop_t *w, const hr_warmstop_opts_t *o);
/* Adds one lap (its wall ns and the judged figure); returns 1 when the sample
 * is to stop now (w->why says why), else 0. */
int hr_warmstop_lap(hr_warmstop_t *w, uint64_t wall_ns, uint64_t figure_ns);
void hr_warmstop_close(hr_warmstop_t *w);

/* The 1-based rank j of the lower end of the median's 95 % interval
 * [x(j), x(n+1-j)] among n sorted laps: the largest j with
 * P(Binomial(n, 1/2) < j) <= 2.5 %; 0 when n < 6 (no such interval). */
uint64_t hr_warmstop_rank(uint64_t n);

#endif
