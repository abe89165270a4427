/* The summary across traces (docs/REPORTS.md, "Across traces"): one table
 * of allocators x traces, each cell the allocator's figure divided by the
 * reference allocator's (HR_RANK_BASELINE) on the same trace, and per
 * allocator the geometric mean over the traces, as mimalloc-bench
 * summarises. Two figures: time (each trace's ranking figure, ranking.h:
 * the program's predicted CPU time, else the cold lap's ns/op) and peak RSS
 * (the whole worker). The same numbers go to the text, Markdown and HTML
 * tables and to the report's "cross_trace" section (docs/REPORT_SCHEMA.md). */
#ifndef HR_REPORT_CROSSTRACE_H
#define HR_REPORT_CROSSTRACE_H

#include <stdio.h>

#include "base/emit.h"
#include "base/json.h"
#include "report/access.h"

/* Traces and allocators the table holds (more are left out). */
#define HR_XT_MAX_TRACES 32
#define HR_XT_MAX_ALLOCS 32

/* One ratio to the reference: its value and the range its samples allow
 * (lo .. hi, NAN when unknown); `noise` 1 when the range holds 1 (the
 * difference is within noise), 0 when not, -1 unknown. ratio NAN: no cell
 * (the allocator was not ranked on that trace, or has no figure). */
typedef struct hr_xt_cell {
    double ratio, lo, hi;
    int    noise;
} hr_xt_cell_t;

/* The geometric mean of a row's cells (ratio, and lo/hi when every cell
 * has a range, else NAN); n cells, `known` of them with a known noise, of
 * which `within` within noise. */
typedef struct hr_xt_mean {
    double geomean, lo, hi;
    int    n, known, within;
} hr_xt_mean_t;

typedef struct hr_xt_row {
    const char  *allocator;
    hr_xt_cell_t time[HR_XT_MAX_TRACES], rss[HR_XT_MAX_TRACES];
    hr_xt_mean_t time_mean, rss_mean;
} hr_xt_row_t;

typedef struct hr_crosstrace {
    int          ntraces; /* traces with a reference row */
    const char  *traces[HR_XT_MAX_TRACES];
    const char  *basis[HR_XT_MAX_TRACES]; /* "program", "cold", "warm" */
    int          nrows;   /* best time geomean first */
    hr_xt_row_t  rows[HR_XT_MAX_ALLOCS];
} hr_crosstrace_t;

/* Fills *x from the rows of v (x is large: allocate it). Returns the number
 * of traces with a reference row. */
int hr_crosstrace_of(hr_crosstrace_t *x, const hr_report_view_t *v);

/* The tables (time, then peak RSS) and their legend on em (TEXT, MARKDOWN
 * or HTML; the legend as text lines, which the HTML page turns into
 * paragraphs); nothing when fewer than 2 traces have a reference row.
 * `md`: Markdown prose. */
void hr_crosstrace_table(hr_emit_t *em, const hr_report_view_t *v, int md);
/* The same in the emitter's HTML mode, written to out as the text body's
 * fragments are (the page turns it into tables and paragraphs); 1 when it
 * wrote the tables, 0 when there are none (under 2 traces, or no memory). */
int hr_crosstrace_html(FILE *out, const hr_report_view_t *v);

/* The "cross_trace" object of the report (docs/REPORT_SCHEMA.md), or NULL
 * when fewer than 2 traces have a reference row (or out of memory). */
hr_json_t *hr_crosstrace_json(const hr_report_view_t *v);

#endif
