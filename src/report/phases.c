/* The load and per-frame lines of a trace's summary (phases.h). */
#include "report/phases.h"

#include <math.h>

#include "report/access.h"

int hr_report_has_load(const hr_ranking_t *rk) {
    for (int i = 0; i < rk->n; i++)
        if (hr_result_ok(rk->e[i].r) && isfinite(rk->e[i].r->m.LOAD_EVENTS))
            return 1;
    return 0;
}

/* The first ok row with the load's figures (the trace's own are the same in
 * every row). */
static const hr_result_t *load_row(const hr_ranking_t *rk) {
    for (int i = 0; i < rk->n; i++)
        if (hr_result_ok(rk->e[i].r) && isfinite(rk->e[i].r->m.LOAD_EVENTS))
            return rk->e[i].r;
    return NULL;
}

/* "load: the 651352 events before the first frame, apart from play: 394358
 * blocks made (328.7 MiB), peak live 97.4 MiB; allocator time and peak
 * footprint: A 55.8 ms 99.4 MiB, ..." in the ranking's order. */
static void load_line(FILE *out, const hr_ranking_t *rk, const hr_result_t *d, const char *pre) {
    char b[32], l[32];
    hr_fmt_bytes(b, sizeof b, d->m.LOAD_BYTES);
    hr_fmt_bytes(l, sizeof l, d->m.LOAD_PEAK_LIVE);
    fprintf(out, "%sload: the %.0f events before the first frame, apart from play: "
            "%.0f blocks made (%s), peak live %s; allocator time and peak footprint:", pre,
            d->m.LOAD_EVENTS, d->m.LOAD_ALLOCS, b, l);
    int k = 0;
    for (int i = 0; i < rk->n; i++) {
        const hr_result_t *r = rk->e[i].r;
        if (!hr_result_ok(r) || !isfinite(r->m.LOAD_NS))
            continue;
        char t[32];
        hr_fmt_ns(t, sizeof t, r->m.LOAD_NS);
        hr_fmt_bytes(b, sizeof b, r->m.LOAD_PEAK_FP);
        fprintf(out, "%s %s %s %s", k++ ? "," : "", r->allocator, t, b);
    }
    fputc('\n', out);
}

/* "mean 74.1, p99 81, max 81 at frame 6" (fmt: a count or bytes). */
static void dist(FILE *out, double mean, double p99, double max, double frame, int bytes) {
    if (bytes) {
        char a[32], b[32], c[32];
        hr_fmt_bytes(a, sizeof a, mean);
        hr_fmt_bytes(b, sizeof b, p99);
        hr_fmt_bytes(c, sizeof c, max);
        fprintf(out, "mean %s, p99 %s, max %s at frame %.0f", a, b, c, frame);
    } else {
        fprintf(out, "mean %.1f, p99 %.0f, max %.0f at frame %.0f", mean, p99, max, frame);
    }
}

/* "frames: 172 play frames (...); blocks made per frame mean ..., bytes ...; of
 * the blocks made in play, 72.9% freed in the same frame, ..." */
static void frames_line(FILE *out, const hr_result_t *d, const char *pre) {
    const hr_result_metrics_t *m = &d->m;
    fprintf(out, "%sframes: %.0f play frames (the trace's own figures, every allocator alike)",
            pre, m->FR_PLAY);
    if (!(m->FR_PLAY > 0)) {
        fputc('\n', out);
        return;
    }
    fputs("; blocks made per frame ", out);
    dist(out, m->FR_ALLOCS_MEAN, m->FR_ALLOCS_P99, m->FR_ALLOCS_MAX, m->FR_ALLOCS_MAX_FRAME, 0);
    fputs("; bytes per frame ", out);
    dist(out, m->FR_BYTES_MEAN, m->FR_BYTES_P99, m->FR_BYTES_MAX, m->FR_BYTES_MAX_FRAME, 1);
    if (isfinite(m->FR_FREED_SAME))
        fprintf(out, "; of the blocks made in play, %.1f%% freed in the same frame, %.1f%% in "
                "the next, %.1f%% later, %.1f%% never", m->FR_FREED_SAME * 100,
                m->FR_FREED_NEXT * 100, m->FR_FREED_LATER * 100, m->FR_FREED_NEVER * 100);
    fputc('\n', out);
}

int hr_report_phases(FILE *out, const hr_ranking_t *rk, const char *pre) {
    const hr_result_t *d = load_row(rk);
    if (!d)
        return 0;
    load_line(out, rk, d, pre);
    for (int i = 0; i < rk->n; i++) /* the trace's figures: any row that has them */
        if (hr_result_ok(rk->e[i].r) && isfinite(rk->e[i].r->m.FR_COUNT)) {
            frames_line(out, rk->e[i].r, pre);
            break;
        }
    return 1;
}

int hr_report_thread_figures(FILE *out, const hr_ranking_t *rk, const char *pre) {
    const hr_result_t *d = NULL;
    for (int i = 0; i < rk->n && !d; i++) {
        const hr_result_t *r = rk->e[i].r;
        if (hr_result_ok(r) && r->has_threads && r->n_threads > 1 &&
            r->n_threads <= HR_RESULT_MAX_THREADS && isfinite(r->thread_events[0]))
            d = r;
    }
    if (!d)
        return 0;
    fprintf(out, "%sper thread: events / frees of blocks another thread made (the trace's own):",
            pre);
    for (size_t k = 0; k < d->n_threads; k++)
        fprintf(out, "%s t%zu %.0f / %.0f", k ? "," : "", k, d->thread_events[k],
                d->thread_xfrees[k]);
    fputc('\n', out);
    for (int i = 0; i < rk->n; i++) {
        const hr_result_t *r = rk->e[i].r;
        if (!hr_result_ok(r) || !r->has_threads || r->n_threads != d->n_threads)
            continue;
        fprintf(out, "%s  %s CPU per thread: the warm laps' allocator time,", pre, r->allocator);
        for (size_t k = 0; k < r->n_threads; k++) {
            char t[32];
            hr_fmt_seconds(t, sizeof t, r->thread_cpu_s[k], 0);
            fprintf(out, "%s t%zu %s", k ? "," : "", k, t);
        }
        fputc('\n', out);
    }
    return 1;
}
