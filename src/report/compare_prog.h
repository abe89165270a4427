/* compare's program mode, inside (compare_program.c, compare_figs.c,
 * compare_whole.c; compare.h has the interface): the figures it judges, the
 * rows it collects, and the steps the three files share. Not a public
 * header: only those files include it.
 *
 * compare_figs.c holds the figure table and judges one figure, one trace or
 * one (trace, allocator) pair; compare_whole.c the whole program of a
 * --follow-forks capture (compare_family.h); compare_program.c matches the
 * traces and renders. Calls go down that list only. */
#ifndef HR_REPORT_COMPARE_PROG_H
#define HR_REPORT_COMPARE_PROG_H

#include "report/compare.h"
#include "report/compare_family.h"
#include "report/stats.h"

/* A figure of program mode: its words, the registry metric it is read from
 * (id; -1 for a figure derived from the op counts, named by `derived`, a
 * path under "program." that no report has), its
 * default threshold in percent and unit; per_alloc: the allocator's figure
 * (per row) rather than the trace's; kind: deterministic (any move beyond
 * the threshold is called), or measured and gated only when --max-regress
 * names it (else its move is shown as "measured"). */
enum { FIG_EXACT = 0, FIG_MEASURED };
typedef double (*prog_derive_fn)(const hr_result_t *r, char *note, size_t n);
typedef struct prog_fig {
    const char    *words;
    int            id;      /* hr_metric_id_t, or -1 */
    const char    *derived; /* the name of a derived figure (id -1) */
    double         pct;
    hr_unit_t      unit;
    int            per_alloc;
    int            kind;   /* FIG_EXACT or FIG_MEASURED */
    prog_derive_fn derive; /* used when `path` is absent from the result */
    /* a --follow-forks capture's whole program (compare_family.h): how
     * its processes' figures combine; NONE: the parent's own figure */
    hr_family_combine_t whole;
} prog_fig_t;


/* The figures, in the order the output lists them (compare_figs.c). */
#define HR_PROG_NFIGS 22
extern const prog_fig_t hr_prog_figs[HR_PROG_NFIGS];

/* The figures with their thresholds, and the extra paths of --max-regress. */
typedef struct prog {
    double              pct[HR_PROG_NFIGS];
    int                 gated[HR_PROG_NFIGS]; /* a regression fails (else "measured") */
    hr_compare_metric_t extra[HR_COMPARE_MAX_METRICS];
    int                 nextra;
    int                 seen[HR_PROG_NFIGS]; /* the figure had a value in some row */
    hr_compare_row_t   *rows;
    size_t              nrows, cap;
    int                 oom;
    hr_compare_summary_t sum;
} prog_t;

/* How one figure is judged: `per_alloc` the allocator's (else the trace's),
 * `exact` deterministic (any move beyond the threshold counts; else the
 * sample test), `gated` a regression fails (else it is shown as
 * "measured"). */
typedef struct judging {
    double pct;
    int    higher, per_alloc, exact, gated;
    hr_family_combine_t whole; /* a whole program's figure: how it was combined */
} judging_t;

/* The path --max-regress names figure f by. */
const char *hr_prog_fig_path(int f);
/* Applies --max-regress (parsed by compare.c: m[0..nm)): a metric naming a
 * figure's path sets its threshold, any other is gated per allocator. */
void hr_prog_thresholds(prog_t *p, const hr_compare_metric_t *m, int nm);
/* Appends a row (its counts in p->sum); NULL when memory ran out (p->oom). */
hr_compare_row_t *hr_prog_row(prog_t *p, const char *trace, const char *alloc,
                              const char *metric, const char *verdict, const char *why);
/* A figure (f: hr_prog_figs's index, else -1 and named by `path`) of base
 * and new as spreads b and n, with a note on how each was derived (nb, nn:
 * "" for none): a row with the verdict. */
void hr_prog_judge_spreads(prog_t *p, int f, const char *trace, const char *alloc,
                           const char *metric, const char *path, const hr_spread_t *bs,
                           const hr_spread_t *ns, const char *nb, const char *nn,
                           const judging_t *j);
/* The trace figures of one matched trace (tb, tn: a row of each), and its
 * digest as information. */
void hr_prog_compare_trace(prog_t *p, const char *name, const hr_result_t *tb,
                           const hr_result_t *tn);
/* The allocator figures of one (trace, allocator) pair. */
void hr_prog_compare_alloc(prog_t *p, const char *name, const hr_result_t *rb,
                           const hr_result_t *rn);
/* One process's figure (hr_family_fig_fn; ctx: the int index into hr_prog_figs). */
void hr_prog_proc_fig(const hr_result_t *r, hr_spread_t *s, void *ctx);

/* The two reports' families (compare_family.h), indexed once. */
typedef struct fams {
    const hr_report_view_t *b, *n;
    hr_families_t *fb, *fn;
} fams_t;

/* The whole-program rows of base's trace row tb against new's namesake tn
 * (NULL: none) when either is a --follow-forks capture's parent
 * (compare_whole.c). */
void hr_prog_collect_family(prog_t *p, const fams_t *fs, const hr_result_t *tb,
                            const hr_result_t *tn, const char *name);

#endif
