/* Generator speed: hr_gen of every scenario at EVENTS events (default 10 M),
 * best of 3 runs, plus the resulting n_ids and peak live bytes. Prints
 * Markdown. Target (not asserted): < 10 s for 10 M events per scenario.
 *
 * usage: bench_gen [EVENTS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "trace/gen.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000ull;
    printf("## hr_gen speed (%llu events, best of 3)\n\n", (unsigned long long)events);
    printf("| scenario | events | n_ids | peak live (MiB) | seconds | M events/s |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    for (const char *const *s = hr_gen_scenarios(); *s; s++) {
        hr_gen_options_t o = hr_gen_default();
        o.scenario = *s;
        o.events = events;
        double best = 1e30;
        hr_trace_t t;
        hr_error_t err;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now_s();
            if (hr_gen(&o, &t, &err) != 0) {
                fprintf(stderr, "bench_gen: %s\n", err.msg);
                return 1;
            }
            double dt = now_s() - t0;
            if (dt < best)
                best = dt;
            if (rep < 2)
                hr_trace_free(&t);
        }
        printf("| %s | %zu | %u | %.1f | %.3f | %.1f |\n", *s, t.n_events, t.n_ids,
               (double)t.peak_live / 1048576.0, best, (double)t.n_events / best / 1e6);
        hr_trace_free(&t);
    }
    return 0;
}
