/* The run plan (replay/plan.h): the job layout of one trace (verify first,
 * then samples interleaved across specs, then count), the cells of a
 * shard, and a real run of a small trace through worker processes of the
 * built heapreplay: the order the processes ran in and the lines each cell
 * gets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/spec.h"
#include "hr_test.h"
#include "replay/counter.h"
#include "replay/plan.h"

static hr_alloc_spec_t specs[3];

static void parse_specs(void) {
    hr_error_t err;
    const char *text[] = {"stack", "block", "sizeclass:max=256"};
    for (int i = 0; i < 3; i++)
        if (hr_alloc_spec_parse(text[i], &specs[i], &err) != 0)
            printf("# %s\n", err.msg);
}

static void test_layout(void) {
    const char *paths[] = {"a.hrt", "b.hrt"};
    hr_replay_options_t opt = hr_replay_options_default();
    opt.repeat = 2;
    opt.verify = 1;
    opt.count = HR_COUNT_PERF;
    hr_replay_plan_t p;
    HR_CHECK(hr_replay_plan_init(&p, paths, 2, specs, 3, &opt, NULL) == 0);
    HR_CHECK_EQ_U64(p.ncells, 6);
    HR_CHECK_EQ_U64(hr_replay_plan_cell_jobs(&p), 2 * 2 + 1 + 1);
    HR_CHECK_EQ_U64(hr_replay_plan_total_jobs(&p), 36);
    /* one trace's 18 jobs: each index once */
    int seen[18] = {0}, n = 3;
    for (int s = 0; s < n; s++) {
        for (int r = 0; r < 2; r++) {
            seen[hr_replay_plan_job(&p, n, s, r, HR_MODE_MEASURE)]++;
            seen[hr_replay_plan_job(&p, n, s, r, HR_MODE_TIME)]++;
        }
        seen[hr_replay_plan_job(&p, n, s, 0, HR_MODE_VERIFY)]++;
        seen[hr_replay_plan_job(&p, n, s, 0, HR_MODE_COUNT)]++;
    }
    for (int i = 0; i < 18; i++)
        HR_CHECK_EQ_U64(seen[i], 1);
    /* the verify processes first; then A's measure and time, B's, C's;
     * sample 1 after every sample 0; the count processes last */
    HR_CHECK_EQ_U64(hr_replay_plan_job(&p, n, 0, 0, HR_MODE_VERIFY), 0);
    HR_CHECK_EQ_U64(hr_replay_plan_job(&p, n, 2, 0, HR_MODE_VERIFY), 2);
    HR_CHECK_EQ_U64(hr_replay_plan_job(&p, n, 0, 0, HR_MODE_MEASURE), 3);
    HR_CHECK_EQ_U64(hr_replay_plan_job(&p, n, 0, 0, HR_MODE_TIME), 4);
    HR_CHECK_EQ_U64(hr_replay_plan_job(&p, n, 1, 0, HR_MODE_MEASURE), 5);
    HR_CHECK_EQ_U64(hr_replay_plan_job(&p, n, 0, 1, HR_MODE_MEASURE), 9);
    HR_CHECK_EQ_U64(hr_replay_plan_job(&p, n, 0, 0, HR_MODE_COUNT), 15);
    hr_replay_plan_free(&p);
    /* a shard's cells: copied, counted */
    unsigned char mine[6] = {1, 0, 0, 0, 1, 1};
    HR_CHECK(hr_replay_plan_init(&p, paths, 2, specs, 3, &opt, mine) == 0);
    mine[1] = 1;
    HR_CHECK_EQ_U64(p.ncells, 3);
    HR_CHECK_EQ_U64(p.mine[1], 0);
    HR_CHECK_EQ_U64(hr_replay_plan_total_jobs(&p), 18);
    hr_replay_plan_free(&p);
}

/* What the hooks saw. */
typedef struct seen {
    char order[64][48]; /* "spec/mode" of each process as it started */
    int  n_order, last_index, begun, ended, cells, bad_lines;
    char cell_specs[8][32];
    int  cell_n[8], cell_verify[8];
} seen_t;

static void on_begin(void *ctx, int n) { ((seen_t *)ctx)->begun += n; }
static void on_end(void *ctx, int n) { ((seen_t *)ctx)->ended += n; }

static void on_progress(const hr_child_job_t *job, int index, void *ctx) {
    seen_t *s = ctx;
    if (index == s->last_index || s->n_order >= 64)
        return; /* the same job again (a tick) */
    s->last_index = index;
    snprintf(s->order[s->n_order++], sizeof s->order[0], "%s/%s", job->spec->text,
             hr_replay_mode_name(job->mode));
}

static int on_cell(void *ctx, const hr_replay_cell_t *c) {
    seen_t *s = ctx;
    if (s->cells < 8) {
        snprintf(s->cell_specs[s->cells], sizeof s->cell_specs[0], "%s", c->alloc->text);
        s->cell_n[s->cells] = c->n;
        s->cell_verify[s->cells] = c->verify && strstr(c->verify, "\"status\":\"ok\"") != NULL;
    }
    for (int r = 0; r < c->n; r++) {
        char want[64];
        snprintf(want, sizeof want, "\"allocator\":\"%s\"", c->alloc->text);
        s->bad_lines += !c->measure[r] || !strstr(c->measure[r], "\"status\":\"ok\"") ||
                        !strstr(c->measure[r], want) || !c->time[r] ||
                        !strstr(c->time[r], "\"status\":\"ok\"");
    }
    s->cells++;
    return 0;
}

static void test_run(void) {
    if (access("./heapreplay", X_OK) != 0)
        HR_SKIP("no ./heapreplay in the build directory");
    char path[] = "/tmp/hr_test_plan_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    HR_CHECK(f != NULL);
    if (!f)
        return;
    fputs("heapreplay-trace 1\nalloc 0 64\nalloc 1 32\nfree 1\nalloc 2 700\nfree 2\nfree 0\n", f);
    fclose(f);
    const char *paths[] = {path, "/nonexistent/other.hrt"};
    unsigned char mine[4] = {1, 1, 0, 0}; /* the second trace is another shard's: never read */
    hr_replay_options_t opt = hr_replay_options_default();
    opt.repeat = 2;
    opt.verify = 1;
    opt.warm_time_s = 0;
    opt.touch = HR_TOUCH_NONE;
    hr_replay_plan_t p;
    HR_CHECK(hr_replay_plan_init(&p, paths, 2, specs, 2, &opt, mine) == 0);
    p.quiet = 1;
    p.self_exe = "./heapreplay";
    seen_t s;
    memset(&s, 0, sizeof s);
    s.last_index = -1;
    hr_replay_hooks_t h = {&s, NULL, NULL, on_cell, on_begin, on_progress, on_end};
    int stop = -1;
    HR_CHECK_EQ_I64(hr_replay_run(&p, &h, &stop), 0);
    HR_CHECK_EQ_I64(stop, 0);
    HR_CHECK_EQ_I64(s.begun, 10);
    HR_CHECK_EQ_I64(s.ended, 10);
    const char *want[] = {"stack/verify", "block/verify",
                          "stack/measure", "stack/time", "block/measure", "block/time",
                          "stack/measure", "stack/time", "block/measure", "block/time"};
    HR_CHECK_EQ_I64(s.n_order, 10);
    for (int i = 0; i < 10 && i < s.n_order; i++)
        HR_CHECK_STR(s.order[i], want[i]);
    HR_CHECK_EQ_I64(s.cells, 2);
    HR_CHECK_STR(s.cell_specs[0], "stack");
    HR_CHECK_STR(s.cell_specs[1], "block");
    HR_CHECK(s.cell_n[0] == 2 && s.cell_n[1] == 2 && s.cell_verify[0] && s.cell_verify[1]);
    HR_CHECK_EQ_I64(s.bad_lines, 0);
    hr_replay_plan_free(&p);
    /* a trace that cannot be read: bad input, the run stops */
    const char *missing[] = {"/nonexistent/x.hrt"};
    HR_CHECK(hr_replay_plan_init(&p, missing, 1, specs, 1, &opt, NULL) == 0);
    p.quiet = 1;
    p.self_exe = "./heapreplay";
    memset(&s, 0, sizeof s);
    HR_CHECK_EQ_I64(hr_replay_run(&p, &h, &stop), 2);
    HR_CHECK_EQ_I64(s.cells, 0);
    hr_replay_plan_free(&p);
    unlink(path);
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    parse_specs();
    HR_RUN(test_layout);
    HR_RUN(test_run);
    for (int i = 0; i < 3; i++)
        hr_alloc_spec_free(&specs[i]);
    return hr_test_done();
}
