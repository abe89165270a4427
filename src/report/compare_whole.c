/* compare's program mode: the whole program of a --follow-forks capture
 * (compare_prog.h, compare_family.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/compare_prog.h"

/* The child process with frames on both sides (a game started by a
 * launcher: hr_family_framed): its own figures, as a trace's, in rows of
 * "NAME (its process with frames)". */
static void compare_framed(prog_t *p, const char *name, const hr_family_t *fb, int kb,
                           const hr_family_t *fn, int kn) {
    char trace[256];
    snprintf(trace, sizeof trace, "%s (its process with frames)", name);
    hr_prog_compare_trace(p, trace, hr_family_row(fb, kb, NULL), hr_family_row(fn, kn, NULL));
    for (int i = fb->start[kb]; i < fb->start[kb + 1]; i++) {
        const hr_result_t *rb = fb->rows[i], *rn;
        if (rb->allocator && hr_result_ok(rb) && (rn = hr_family_row(fn, kn, rb->allocator)))
            hr_prog_compare_alloc(p, trace, rb, rn);
    }
}

/* The family figures (hr_prog_figs's `whole`) of fb against fn, in rows
 * of `trace`; `per_alloc` 0: the trace's figures only. */
static void family_figs(prog_t *p, const char *trace, const hr_family_t *fb,
                        const hr_family_t *fn, int per_alloc) {
    for (int f = 0; f < HR_PROG_NFIGS; f++) {
        const prog_fig_t *g = &hr_prog_figs[f];
        if (g->whole == HR_FAMILY_NONE || (g->per_alloc && !per_alloc))
            continue;
        judging_t j = {p->pct[f], 0, g->per_alloc, g->kind == FIG_EXACT, p->gated[f], g->whole};
        hr_spread_t b, n;
        if (!g->per_alloc) {
            hr_family_spread(fb, NULL, hr_prog_proc_fig, &f, g->whole, &b);
            hr_family_spread(fn, NULL, hr_prog_proc_fig, &f, g->whole, &n);
            hr_prog_judge_spreads(p, f, trace, "-", g->words, hr_prog_fig_path(f), &b, &n, "", "", &j);
            continue;
        }
        for (int i = fb->start[0]; i < fb->start[1]; i++) { /* the first process's allocators */
            const char *alloc = fb->rows[i]->allocator;
            if (!alloc)
                continue;
            hr_family_spread(fb, alloc, hr_prog_proc_fig, &f, g->whole, &b);
            hr_family_spread(fn, alloc, hr_prog_proc_fig, &f, g->whole, &n);
            hr_prog_judge_spreads(p, f, trace, alloc, g->words, hr_prog_fig_path(f), &b, &n, "", "", &j);
        }
    }
}

/* The processes of each program (their recorded commands: trace format
 * 1.8) as a whole, in rows of "NAME (whole program: PROGRAM)": where in a
 * build the change is. A program only one side ran gets an n/a row. */
static void compare_programs(prog_t *p, const char *name, const hr_family_t *fb,
                             const hr_family_t *fn) {
    int cap = fb->n + fn->n;
    char (*progs)[64] = malloc(((size_t)cap + 1) * sizeof *progs);
    if (!progs)
        p->oom = 1;
    int nb = progs ? hr_family_programs(fb, progs, fb->n) : 0;
    int np = progs ? nb + hr_family_programs(fn, progs + nb, fn->n) : 0;
    for (int i = 0; i < np; i++) {
        int dup = 0; /* each side's list names a program once: new's that base ran are done */
        for (int k = 0; i >= nb && k < nb && !dup; k++)
            dup = strcmp(progs[k], progs[i]) == 0;
        if (dup)
            continue;
        hr_family_t sb, sn;
        int hb = hr_family_subset(fb, progs[i], &sb), hn = hr_family_subset(fn, progs[i], &sn);
        char trace[256];
        snprintf(trace, sizeof trace, "%s (whole program: %s)", name, progs[i]);
        if (hb < 0 || hn < 0)
            p->oom = 1;
        else if (hb && hn)
            family_figs(p, trace, &sb, &sn, 0);
        else
            hr_prog_row(p, trace, "-", "processes", "n/a", hb ? "no process of new ran it"
                                                           : "no process of base ran it");
        if (hb > 0)
            hr_family_free(&sb);
        if (hn > 0)
            hr_family_free(&sn);
    }
    free(progs);
}

/* Notes on the processes that ran the same command in both captures, or a
 * like one (hr_family_pairs_like), whose events changed most (relatively),
 * up to three: which compile grew. */
static void changed_processes(prog_t *p, const char *name, const hr_family_t *fb,
                              const hr_family_t *fn) {
    int *pair = malloc(((size_t)fb->n + 1) * sizeof *pair);
    char *done = calloc((size_t)fb->n + 1, 1), *like = calloc((size_t)fb->n + 1, 1);
    int made = pair && done && like ? hr_family_pairs_like(fb, fn, pair, like) : -1;
    for (int shown = 0; made > 0 && shown < 3; shown++) {
        int best = -1;
        double bd = 0, eb[2] = {0, 0};
        for (int k = 0; k < fb->n; k++) {
            const hr_result_t *rb = hr_family_row(fb, k, NULL);
            const hr_result_t *rn = pair[k] >= 0 ? hr_family_row(fn, pair[k], NULL) : NULL;
            double b = rb ? rb->m.OPS_EVENTS : NAN, n = rn ? rn->m.OPS_EVENTS : NAN;
            double d = b > 0 && isfinite(n) ? fabs(n - b) / b : 0;
            if (!done[k] && d >= 0.01 && d > bd) /* 1 % or more */
                best = k, bd = d, eb[0] = b, eb[1] = n;
        }
        if (best < 0)
            break;
        done[best] = 1;
        char trace[256], metric[96], why[448], words[80], how[160] = "the same command in both captures";
        const hr_result_t *rb = hr_family_row(fb, best, NULL);
        const hr_result_t *rn = hr_family_row(fn, pair[best], NULL);
        hr_report_command_words(words, sizeof words, rb->command, 60);
        if (like[best]) {
            char diff[96];
            if (hr_command_diff(diff, sizeof diff, rb->command, rn->command) != 0)
                p->oom = 1;
            snprintf(how, sizeof how, "a like command in both captures (%s)", diff);
        }
        snprintf(trace, sizeof trace, "%s (whole program)", name);
        snprintf(metric, sizeof metric, "process %s", words);
        snprintf(why, sizeof why, "%s: events %.0f -> %.0f (%+.1f%%), %s -> %s",
                 how, eb[0], eb[1], hr_delta_pct(eb[0], eb[1]),
                 hr_report_trace_base(fb->traces[best]),
                 hr_report_trace_base(fn->traces[pair[best]]));
        hr_prog_row(p, trace, "-", metric, "changed", why);
    }
    if (made < 0)
        p->oom = 1;
    free(pair);
    free(done);
    free(like);
}

/* The figures of a whole program: base's family fb against new's fn, in
 * rows of "NAME (whole program)". Its processes' own traces are not matched
 * one by one by name (their names hold their pids); the note says how many
 * are identical in both captures and names the largest others, the
 * programs' rows and notes (recorded commands) say where the change is. */
static void compare_family(prog_t *p, const char *name, const hr_family_t *fb,
                           const hr_family_t *fn) {
    char trace[256], words[192], why[256];
    snprintf(trace, sizeof trace, "%s (whole program)", name);
    int same = hr_family_identical(fb, fn, 2, words, sizeof words);
    if (same < 0)
        p->oom = 1;
    snprintf(why, sizeof why, "%d of %d (new: %d) with the same trace in both; the largest "
             "others: %.160s", same, fb->n, fn->n, words);
    hr_prog_row(p, trace, "-", "identical processes", same == fb->n && same == fn->n ? "ok" : "changed",
             why);
    int kb = hr_family_framed(fb), kn = hr_family_framed(fn);
    if (kb > 0 && kn > 0) /* first: a game's per-frame figures are the most telling */
        compare_framed(p, name, fb, kb, fn, kn);
    family_figs(p, trace, fb, fn, 1);
    compare_programs(p, name, fb, fn);
    changed_processes(p, name, fb, fn);
}

/* The family rows of base's trace row tb against new's namesake tn (NULL:
 * none). A whole program on one side only is said in one row. */
void hr_prog_collect_family(prog_t *p, const fams_t *fs, const hr_result_t *tb,
                           const hr_result_t *tn, const char *name) {
    hr_family_t fb, fn;
    int hb = hr_family_of(fs->fb, (size_t)(tb - fs->b->rows), &fb);
    int hn = tn ? hr_family_of(fs->fn, (size_t)(tn - fs->n->rows), &fn) : 0;
    if (hb < 0 || hn < 0) {
        p->oom = 1;
    } else if (hb && hn) {
        compare_family(p, name, &fb, &fn);
    } else if (tn && (hb || hn)) {
        char why[160], trace[256];
        snprintf(trace, sizeof trace, "%s (whole program)", name);
        snprintf(why, sizeof why, "%s has %d child processes, %s none (captured without "
                 "--follow-forks?): the processes cannot be compared", hb ? "base" : "new",
                 (hb ? fb.n : fn.n) - 1, hb ? "new" : "base");
        hr_prog_row(p, trace, "-", "processes", "n/a", why);
    }
    if (hb > 0)
        hr_family_free(&fb);
    if (hn > 0)
        hr_family_free(&fn);
}
