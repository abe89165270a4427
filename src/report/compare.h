/* compare: gate a change on two reports (docs/REPORTS.md, "compare").
 *
 * Results are matched by (trace basename, allocator), falling back to
 * (trace digest, allocator). Per matched pair:
 *  - exact checks, always: every ops.* count and memory.peak_live must be
 *    equal (else MISMATCH: the traces differ), and so must the digests;
 *  - gated metrics: the --max-regress list, or the registry's default gates
 *    (ns_per_op=10%,cold=15%,live=0%,peak=25%,insns=1%) when none is given.
 *    A deterministic figure (trace-decided; an in-house figure when both
 *    footprint sources are "exact") regresses when it moves in its bad
 *    direction by more than its threshold; a measured one only when its
 *    samples also say the move is real (report/stats.h);
 *  - an in-house figure with a default gate is gated exactly (0%) when both
 *    sources are "exact", unless the spec gives its threshold.
 * Every row carries a reason (why it was called); text and Markdown print the
 * reasons of failing and noise rows under the table.
 * Rows are collected first, then sorted in every format: failing rows
 * (REGRESSION, MISMATCH, MISSING, FAILED) first, then by |delta %|
 * descending (rows without a delta last), ties in comparison order; the
 * renderers (text, CSV, JSON, Markdown, JUnit) live in compare_fmt.c.
 * A base result missing in NEW, or whose status turned from ok to not-ok, is a
 * regression. Exit codes: 0 no regression, 1 regression/mismatch, 2 bad input.
 *
 * Program mode (compare_program.c): when a trace of BASE and one of NEW have
 * the same name but different digests (two captures of one program, not one
 * trace replayed twice), the figures above would only say "the traces
 * differ"; compare then judges the program's own figures instead
 * (hr_compare_program, docs/REPORTS.md "Comparing two captures of a program").
 */
#ifndef HR_REPORT_COMPARE_H
#define HR_REPORT_COMPARE_H

#include <stdio.h>

#include "base/emit.h"
#include "base/json.h"
#include "base/error.h"
#include "report/access.h"
#include "report/metric_name.h"

#define HR_COMPARE_MAX_METRICS 32

/* hr_compare_metric_t and hr_compare_metric_lookup: metric_name.h. */

/* Output formats (docs/REPORTS.md, "compare"): the text table, CSV and JSON
 * (stable snake_case keys), Markdown for a CI job summary, JUnit XML. */
typedef enum hr_compare_format {
    HR_CMP_TEXT = 0,
    HR_CMP_JSON,
    HR_CMP_CSV,
    HR_CMP_MD,
    HR_CMP_JUNIT,
} hr_compare_format_t;
/* "text", "json", "csv", "md"/"markdown", "junit"; 0 ok, -1 unknown. */
int hr_compare_format_parse(const char *s, hr_compare_format_t *fmt);

/* Markdown: rows shown per section before "... and N more" (a GitHub job
 * summary is limited to 1 MiB and read by people). */
#define HR_COMPARE_MD_MAX_ROWS 50

/* Which question compare answers: auto decides per pair of reports
 * (hr_compare_program_applies); allocator: the same trace replayed by a new
 * build (the exact op checks and gates above); program: two captures of one
 * program (compare_program.c). */
typedef enum hr_compare_mode {
    HR_CMP_MODE_AUTO = 0,
    HR_CMP_MODE_ALLOCATOR,
    HR_CMP_MODE_PROGRAM,
} hr_compare_mode_t;
/* "auto", "allocator", "program"; 0 ok, -1 unknown. */
int hr_compare_mode_parse(const char *s, hr_compare_mode_t *mode);

typedef struct hr_compare_options {
    hr_compare_format_t format;  /* output format (default text) */
    int              max_rows;   /* Markdown rows per section (default HR_COMPARE_MD_MAX_ROWS) */
    const char      *max_regress; /* "throughput=5%,peak=0%"; NULL: the defaults */
    int              drift;      /* remove the host drift common to every row (default 1) */
    hr_compare_mode_t mode;      /* auto (default), allocator or program */
    const char      *label_a, *label_b; /* program mode: the name every result of
                                         * BASE / NEW is matched by (NULL: the
                                         * trace's file name) */
} hr_compare_options_t;

/* Host drift: timings of two runs made minutes apart on a shared machine move
 * together (every allocator, every trace) by more than most changes. For each
 * gated timing figure, compare takes the median over the matched rows of
 * new/base (at least HR_DRIFT_MIN_ROWS rows over at least two allocators) as
 * the run's common drift (each trace's own when it has enough rows: traces
 * are replayed one after another) and judges every row after dividing it
 * out: a change
 * that slows one allocator stands out; one that moves all of them alike (the
 * host, or the harness itself: the instruction count sees that) does not.
 * --no-drift judges absolute changes. */
#define HR_DRIFT_MIN_ROWS 6
/* A trace's own drift is used when it has this many rows (over >= 2
 * allocators): its rows were replayed in the same minutes. */
#define HR_DRIFT_MIN_TRACE_ROWS 4

hr_compare_options_t hr_compare_options_default(void);

/* One checked figure: a row of every output format. */
typedef struct hr_compare_row {
    char   trace[256], allocator[256], metric[96];
    double base, cur, delta;  /* NAN when absent; delta in percent of base */
    double threshold_pct;     /* allowed regression; NAN when not gated ("-") */
    int    exact;             /* compared exactly (threshold "exact") */
    int    separated;         /* sample ranges disjoint: 1/0; -1 unknown (no spread, exact) */
    int    fails;             /* REGRESSION, MISMATCH, MISSING or FAILED */
    int    order;             /* position before sorting (ties keep it) */
    int    unit;              /* program mode: hr_unit_t of base/cur (text cells) */
    int    per_alloc;         /* program mode: a figure of the allocator, not the trace */
    char   verdict[16];
    char   reason[256];
} hr_compare_row_t;

/* What the renderers get besides the rows. */
typedef struct hr_compare_summary {
    const char *base_name, *new_name;
    int matched, regressions, mismatches, missing;
    int improved, noise, unchanged, other; /* other: n/a, new, fixed, skipped */
    int exit_status;                       /* 0 pass, 1 fail */
    int ndrift;                            /* figures with a host drift != 1 */
    const char *drift_name[HR_COMPARE_MAX_METRICS];
    double drift[HR_COMPARE_MAX_METRICS];
    /* program mode (compare_program.c): the rows are the program's figures */
    int program;
    int traces;                            /* traces matched by name */
    int nskipped;                          /* figures absent from both reports */
    const char *skipped[HR_COMPARE_MAX_METRICS];
} hr_compare_summary_t;

/* Sorts rows as described above (stable through `order`). */
void hr_compare_sort(hr_compare_row_t *rows, size_t n);
/* Writes rows (sorted) and the summary in opt->format to out (compare_fmt.c).
 * CSV writes its summary line to errf (the file stays one table). */
void hr_compare_render(const hr_compare_row_t *rows, size_t n, const hr_compare_summary_t *s,
                       const hr_compare_options_t *opt, FILE *out, FILE *errf);

/* Parse "METRIC=PCT[%],..." into m[]; returns the count, or -1 with a one-line
 * message in err. */
int hr_compare_parse_thresholds(const char *spec, hr_compare_metric_t *m, int max,
                                hr_error_t *err);

/* Compare two loaded, validated reports; writes the delta table and a summary
 * line to out. Returns 0 or 1. */
int hr_compare_reports(const hr_json_t *base, const char *base_name, const hr_json_t *cur,
                       const char *new_name, const hr_compare_options_t *opt, FILE *out);
/* Program mode (compare_program.c). 1 when it answers this pair of reports:
 * opt->mode is program, or auto and some trace of base has a namesake in
 * cur (file name, or opt->label_a/label_b) with another digest, both
 * captures of a program (the result's "program": capture times the run it
 * records; a generated or edited trace has none) or named by a label. */
int hr_compare_program_applies(const hr_report_view_t *base, const hr_report_view_t *cur,
                               const hr_compare_options_t *opt);
/* Compares the program figures of the two reports and renders them; m[0..nm)
 * is --max-regress parsed (nm 0: the defaults). Returns 0 (no regression),
 * 1, or 2 (out of memory, a label on a report of several traces; a line on
 * stderr). */
int hr_compare_program(const hr_report_view_t *base, const char *base_name,
                       const hr_report_view_t *cur, const char *new_name,
                       const hr_compare_options_t *opt, const hr_compare_metric_t *m, int nm,
                       FILE *out);

/* Load both files and compare. Returns the exit code 0/1/2; on 2 a one-line
 * error naming the file goes to errf. */
int hr_compare_files(const char *base_path, const char *new_path,
                     const hr_compare_options_t *opt, FILE *out, FILE *errf);

#endif
