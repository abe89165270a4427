/* The processes of a --follow-forks capture as one program, for compare's
 * program mode (compare_program.c; docs/REPORTS.md, "Comparing two captures
 * of a program").
 *
 * `capture --follow-forks -o build.hrt` writes the parent's trace and one
 * trace per child process, named by its pid (build.PID.hrt,
 * report/wholeprog.h). Two captures of one build have the same parent name
 * but other pids, so the children cannot be matched by name; a user asks
 * whether the build as a whole does more (more processes, more allocations,
 * a larger largest process). A family's figure is the processes' figures
 * combined: summed (events, allocations, allocator time) or the largest
 * (peak live, peak RSS: what wait4 reports of a process tree is its largest
 * process's). Measured figures are combined sample by sample when every
 * process has the same number of samples (sample i of each process: one
 * replay of the whole program), so the noise test still applies.
 *
 * A build may have thousands of processes: the lookups go through an index
 * of the report's traces built once (hr_families_t), so a comparison costs
 * O(rows log traces), not rows x traces. */
#ifndef HR_REPORT_COMPARE_FAMILY_H
#define HR_REPORT_COMPARE_FAMILY_H

#include "report/access.h"
#include "report/stats.h"

typedef enum hr_family_combine {
    HR_FAMILY_NONE = 0, /* a figure of the parent's own (frames, the load) */
    HR_FAMILY_SUM,
    HR_FAMILY_MAX,
    HR_FAMILY_COUNT,    /* the processes themselves (a whole program's alone) */
} hr_family_combine_t;

/* A report's traces indexed: which trace each row is of, which trace is a
 * child process of which. */
typedef struct hr_families hr_families_t;
/* NULL when memory ran out. */
hr_families_t *hr_families_new(const hr_report_view_t *v);
void hr_families_free(hr_families_t *fs);
/* 1 when row i of the view is of a child process's trace whose parent's
 * trace is in the same report. */
int hr_families_is_child(const hr_families_t *fs, size_t i);
/* The view's traces in reading order: each trace that is no child process
 * of another in the report in its own place, right after it its children,
 * the heaviest first (the events of the trace's first ok row), each with
 * its own children the same way. A malloc'd array of every trace index
 * once; NULL out of memory. A report of a build then reads the compilers
 * before the drivers' start-ups, not in the order of the pids. */
int *hr_families_trace_order(const hr_families_t *fs);

/* A parent trace of one report and its child processes' traces, with each
 * process's rows. */
typedef struct hr_family {
    const char  *parent;  /* the parent's trace, as the report names it */
    int          n;       /* processes (>= 2): the parent first */
    const char **traces;  /* [n] */
    const hr_result_t **rows; /* each process's rows: rows[start[k] .. start[k + 1]) */
    int         *start;   /* [n + 1] */
} hr_family_t;

/* The family of the trace of row `i`: 1 with f filled (free with
 * hr_family_free), 0 when the trace has no child process in the report, -1
 * when memory ran out. */
int hr_family_of(const hr_families_t *fs, size_t i, hr_family_t *f);
void hr_family_free(hr_family_t *f);

/* Process k's row for `alloc`, or its first ok row when alloc is NULL;
 * NULL when it has none. */
const hr_result_t *hr_family_row(const hr_family_t *f, int k, const char *alloc);
/* The one child process of f with frame marks (a game started by a launcher
 * or a script): its index, or -1 when no child or more than one has them.
 * Its per-frame figures are the ones a game's comparison is about; summed
 * over the processes they would mean nothing. */
int hr_family_framed(const hr_family_t *f);

/* The programs of f's processes (their recorded commands' program names,
 * hr_report_command_program), each once, in process order: up to `max`
 * into names; returns how many. A process without a command has none. */
int hr_family_programs(const hr_family_t *f, char (*names)[64], int max);
/* The processes of f that ran `program`, as a family of their own (not
 * parent-first; free with hr_family_free): 1, 0 when none, -1 out of
 * memory. */
int hr_family_subset(const hr_family_t *f, const char *program, hr_family_t *sub);
/* The recorded command of process k (its first row with one), or NULL
 * (also for a blank one). */
const char *hr_family_command(const hr_family_t *f, int k);
/* cmd with every token that starts with "/tmp/" written "/tmp/" and a star
 * (a fresh string; NULL for NULL or out of memory): a compiler's temporary
 * files are named anew on every run. */
char *hr_family_normal_command(const char *cmd);
/* Pairs b's processes with n's that ran the same command (temporary files'
 * names, "/tmp/...", do not count: a compiler's differ on every run), each
 * matched once in process order: pair[k] is n's index for b's process k, or
 * -1. Returns the pairs made, -1 out of memory. */
int hr_family_pairs(const hr_family_t *b, const hr_family_t *n, int *pair);
/* hr_family_pairs, then the processes left over paired by their commands'
 * likeness: the same program and at least HR_FAMILY_LIKENESS of the
 * tokens either command has in both (normalized as above), the most alike
 * pairs first (among each process's HR_FAMILY_LIKE_KEEP most alike), each
 * process once. A build whose flags changed (-O2 -> -O3)
 * ran no command twice; each compile still pairs with its own unit's.
 * similar[k] (room for b->n) is 1 where b's process k was paired so. No
 * likeness pairs when that would take more than HR_FAMILY_LIKE_MAX
 * comparisons (a program of thousands of processes, every command changed).
 * Returns the pairs made, -1 out of memory. */
#define HR_FAMILY_LIKENESS 0.6
#define HR_FAMILY_LIKE_MAX (4u << 20)
#define HR_FAMILY_LIKE_KEEP 8 /* candidates kept per process, the most alike */
int hr_family_pairs_like(const hr_family_t *b, const hr_family_t *n, int *pair, char *similar);
/* The tokens of command a and of command b that the other lacks, up to
 * three a side, into buf: "-O2 -> -O3", "(none) -> -g" (normalized as
 * above; "" when either is NULL). 0, or -1 out of memory. */
int hr_command_diff(char *buf, size_t len, const char *a, const char *b);

/* One process's figure (its row `r`) into s. */
typedef void (*hr_family_fig_fn)(const hr_result_t *r, hr_spread_t *s, void *ctx);

/* The family's figure: per process the row of `alloc` (NULL: the first ok
 * row, for a figure of the trace), its figure by `fig`, combined by `how`.
 * s->n is 0 when some process has no such row or no value (a whole-program
 * figure with a process left out would be wrong, not partial). */
void hr_family_spread(const hr_family_t *f, const char *alloc, hr_family_fig_fn fig, void *ctx,
                      hr_family_combine_t how, hr_spread_t *s);

/* The processes of b and n whose traces are identical (same digest; each
 * matched once): a process the change did not touch. Writes to `words`
 * the others, largest first by events ("base: build.5770.hrt 19292
 * events, ...; new: ..."), up to `max_named` a side. Returns the count of
 * identical processes, -1 out of memory. */
int hr_family_identical(const hr_family_t *b, const hr_family_t *n, int max_named, char *words,
                        size_t len);

#endif
