/* Tests for hr_gen: validity, determinism, event budget, and each scenario's
 * promised shape (LIFO frames, particle sizes, nested named heaps, realloc/
 * calloc/aligned strings, every op in a session, thread spreading). */
#include <stdlib.h>
#include <string.h>

#include "hr_test.h"
#include "trace/format.h"
#include "trace/gen.h"
#include "trace/trace.h"

static int gen(const char *scn, uint64_t events, uint64_t seed, uint32_t threads, int ts,
               hr_trace_t *t) {
    hr_gen_options_t o = hr_gen_default();
    hr_error_t err = {{0}};
    o.scenario = scn;
    o.events = events;
    o.seed = seed;
    o.threads = threads;
    o.timestamps = ts;
    int rc = hr_gen(&o, t, &err);
    if (rc != 0)
        printf("# hr_gen(%s): %s\n", scn, err.msg);
    return rc;
}

/* Objects still live at the end, and the most ever live at once. */
static void live_counts(const hr_trace_t *t, uint64_t *end, uint64_t *max) {
    int64_t live = 0, peak = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        uint8_t op = t->events[i].op;
        live += (op == HR_OP_ALLOC || op == HR_OP_CALLOC) - (op == HR_OP_FREE);
        if (live > peak)
            peak = live;
    }
    *end = (uint64_t)live;
    *max = (uint64_t)peak;
}

static void test_scenarios_validate_and_dense(void) {
    const char *const *s = hr_gen_scenarios();
    int n = 0;
    for (; *s; s++, n++) {
        hr_trace_t t;
        hr_error_t err = {{0}};
        HR_CHECK(hr_gen_describe(*s) != NULL);
        if (gen(*s, 30000, 11, 1, 0, &t) != 0) {
            HR_CHECK(0);
            continue;
        }
        HR_CHECK(hr_trace_validate(&t, *s, &err) == 0);
        uint64_t end, max;
        live_counts(&t, &end, &max);
        /* freed ids are reused before a new one is minted: n_ids == max live */
        HR_CHECK_EQ_U64(t.n_ids, max);
        if (strcmp(*s, "level_load") != 0)
            HR_CHECK_EQ_U64(end, 0); /* clean trace */
        HR_CHECK(t.peak_live > 0 && t.peak_live < (64ull << 20));
        hr_trace_free(&t);
    }
    HR_CHECK_EQ_U64(n, 8);
    HR_CHECK(hr_gen_describe("nope") == NULL);
}

static void test_bad_options(void) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_gen_options_t o = hr_gen_default();
    HR_CHECK_STR(o.scenario, "session");
    HR_CHECK_EQ_U64(o.seed, 1);
    HR_CHECK_EQ_U64(o.events, 100000);
    o.scenario = "teapot";
    HR_CHECK(hr_gen(&o, &t, &err) == -1);
    HR_CHECK(strstr(err.msg, "teapot") != NULL);
    HR_CHECK_EQ_U64(t.n_events, 0);
    o = hr_gen_default();
    o.events = 999;
    HR_CHECK(hr_gen(&o, &t, &err) == -1);
    o = hr_gen_default();
    o.threads = 0;
    HR_CHECK(hr_gen(&o, &t, &err) == -1);
    o.threads = HR_GEN_MAX_THREADS + 1;
    HR_CHECK(hr_gen(&o, &t, &err) == -1);
    o = hr_gen_default();
    o.scenario = NULL;
    HR_CHECK(hr_gen(&o, &t, &err) == -1);
}

static int same_trace(const hr_trace_t *a, const hr_trace_t *b) {
    if (a->n_events != b->n_events || a->n_strings != b->n_strings)
        return 0;
    for (uint32_t i = 0; i < a->n_strings; i++)
        if (strcmp(a->strings[i], b->strings[i]) != 0)
            return 0;
    if ((a->ts == NULL) != (b->ts == NULL) ||
        (a->ts && memcmp(a->ts, b->ts, a->n_events * sizeof *a->ts) != 0))
        return 0;
    return memcmp(a->events, b->events, a->n_events * sizeof *a->events) == 0;
}

static void test_determinism(void) {
    for (const char *const *s = hr_gen_scenarios(); *s; s++) {
        hr_trace_t a, b, c;
        if (gen(*s, 20000, 42, 3, 1, &a) || gen(*s, 20000, 42, 3, 1, &b) ||
            gen(*s, 20000, 43, 3, 1, &c)) {
            HR_CHECK(0);
            continue;
        }
        HR_CHECK(same_trace(&a, &b));
        HR_CHECK(!same_trace(&a, &c));
        hr_trace_free(&a);
        hr_trace_free(&b);
        hr_trace_free(&c);
    }
}

static void test_event_budget(void) {
    static const uint64_t targets[] = {1000, 1700, 12345, 150000};
    for (const char *const *s = hr_gen_scenarios(); *s; s++)
        for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                hr_trace_t t;
                if (gen(*s, targets[i], seed, 1, 0, &t) != 0) {
                    HR_CHECK(0);
                    continue;
                }
                double r = (double)t.n_events / (double)targets[i];
                if (r < 0.9 || r > 1.1)
                    printf("# %s: %zu events for a target of %llu\n", *s, t.n_events,
                           (unsigned long long)targets[i]);
                HR_CHECK(r >= 0.9 && r <= 1.1);
                hr_trace_free(&t);
            }
}

/* Within a frame, objects both allocated and freed in it (the temporaries)
 * must be freed in exact reverse order of allocation, and none may be live
 * at the frame mark; frames count 0, 1, 2, ... */
static void test_frame_loop_lifo(void) {
    hr_trace_t t;
    if (gen("frame_loop", 60000, 5, 1, 0, &t) != 0) {
        HR_CHECK(0);
        return;
    }
    uint32_t *stack = malloc(t.n_ids * sizeof *stack);
    uint8_t *in_frame = calloc(t.n_ids, 1); /* allocated in the current frame */
    uint64_t *size = calloc(t.n_ids, sizeof *size);
    size_t sp = 0, violations = 0, frames = 0, big = 0;
    uint64_t depth_bytes = 0, frame_max = 0;
    for (size_t i = 0; i < t.n_events; i++) {
        const hr_event_t *ev = &t.events[i];
        if (ev->op == HR_OP_ALLOC) {
            stack[sp++] = ev->id;
            in_frame[ev->id] = 1;
            size[ev->id] = ev->size;
            depth_bytes += ev->size;
            if (depth_bytes > frame_max)
                frame_max = depth_bytes;
        } else if (ev->op == HR_OP_FREE) {
            if (in_frame[ev->id]) {
                if (sp == 0 || stack[sp - 1] != ev->id)
                    violations++;
                else
                    sp--;
                in_frame[ev->id] = 0;
                depth_bytes -= size[ev->id];
            }
        } else if (ev->op == HR_OP_FRAME) {
            HR_CHECK_EQ_U64(ev->size, frames);
            frames++;
            big += frame_max > 100 * 1024;
            /* survivors of the frame are long-lived: drop them from the model */
            for (size_t k = 0; k < sp; k++)
                in_frame[stack[k]] = 0;
            sp = 0;
            depth_bytes = frame_max = 0;
        }
    }
    HR_CHECK_EQ_U64(violations, 0);
    HR_CHECK(frames > 1000);
    HR_CHECK(big > 0);            /* some frames overflow a 100 KiB stack */
    HR_CHECK(big < frames / 10);  /* ... but only occasionally */
    free(stack);
    free(in_frame);
    free(size);
    hr_trace_free(&t);
}

static void test_particles_sizes(void) {
    hr_trace_t t;
    if (gen("particles", 100000, 9, 1, 0, &t) != 0) {
        HR_CHECK(0);
        return;
    }
    size_t bad = 0, frames = 0;
    for (size_t i = 0; i < t.n_events; i++) {
        const hr_event_t *ev = &t.events[i];
        if (ev->op == HR_OP_ALLOC || ev->op == HR_OP_FREE) { /* frees carry the size */
            uint64_t s = ev->size;
            bad += !(s == 32 || s == 48 || s == 64 || s == 96 || s == 128);
            bad += ev->op == HR_OP_FREE && !(ev->flags & HR_EVF_HAS_OPT);
        }
        bad += ev->op == HR_OP_CALLOC || ev->op == HR_OP_REALLOC;
        frames += ev->op == HR_OP_FRAME;
    }
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK(frames > 100);
    uint64_t end, max;
    live_counts(&t, &end, &max);
    HR_CHECK(max >= 1000); /* a population of thousands */
    hr_trace_free(&t);
}

static const char *const heap_names[] = {
    "Default",  "Temp",       "Persistent", "Level", "LevelMovie", "LevelFE",
    "LevelZone", "LevelOther", "LevelHud",  "LevelMission", "LevelAudio", "Debug",
    "Special",  "Music",      "AudioPersistent", "SmallAlloc"};

static int known_heap(const char *s) {
    for (size_t i = 0; i < sizeof heap_names / sizeof heap_names[0]; i++)
        if (strcmp(s, heap_names[i]) == 0)
            return 1;
    return 0;
}

/* Push/pop nest properly (each pop names the top heap), end balanced, and
 * use only the routed heap table's names. */
static void check_heaps(const hr_trace_t *t) {
    uint32_t stack[64];
    size_t sp = 0, bad = 0, pushes = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (ev->op == HR_OP_HEAP_PUSH) {
            bad += !known_heap(t->strings[ev->aux]) || sp == 64;
            if (sp < 64)
                stack[sp++] = ev->aux;
            pushes++;
        } else if (ev->op == HR_OP_HEAP_POP) {
            bad += sp == 0 || stack[sp - 1] != ev->aux;
            if (sp)
                sp--;
        }
    }
    HR_CHECK_EQ_U64(bad, 0);
    HR_CHECK_EQ_U64(sp, 0);
    HR_CHECK(pushes > 10);
}

static void test_level_load_heaps(void) {
    hr_trace_t t;
    if (gen("level_load", 120000, 1, 1, 0, &t) != 0) {
        HR_CHECK(0);
        return;
    }
    check_heaps(&t);
    int loaded = 0, large = 0, small = 0;
    for (uint32_t i = 0; i < t.n_strings; i++)
        loaded |= strcmp(t.strings[i], "level_loaded") == 0;
    for (size_t i = 0; i < t.n_events; i++)
        if (t.events[i].op == HR_OP_ALLOC) {
            large += t.events[i].size >= 256 * 1024;
            small += t.events[i].size <= 256;
        }
    HR_CHECK(loaded);
    HR_CHECK(large > 0);
    HR_CHECK(small > 1000);
    hr_trace_free(&t);
    if (gen("session", 60000, 3, 1, 0, &t) != 0) {
        HR_CHECK(0);
        return;
    }
    check_heaps(&t);
    hr_trace_free(&t);
}

static void test_strings_ops(void) {
    hr_trace_t t;
    if (gen("strings", 50000, 4, 1, 0, &t) != 0) {
        HR_CHECK(0);
        return;
    }
    size_t aligned = 0, bad_align = 0, grow = 0;
    uint32_t aligns = 0; /* bit k set: alignment 2^k seen */
    for (size_t i = 0; i < t.n_events; i++) {
        const hr_event_t *ev = &t.events[i];
        if (ev->op == HR_OP_ALLOC && ev->align) {
            aligned++;
            bad_align += (ev->align & (ev->align - 1)) || ev->align < 16 || ev->align > 4096 ||
                         !(ev->flags & HR_EVF_HAS_OPT);
            aligns |= ev->align;
        }
        grow += ev->op == HR_OP_REALLOC && ev->id == ev->aux;
    }
    HR_CHECK(t.op_counts[HR_OP_REALLOC] > 1000);
    HR_CHECK(t.op_counts[HR_OP_CALLOC] > 100);
    HR_CHECK(aligned > 100);
    HR_CHECK_EQ_U64(bad_align, 0);
    HR_CHECK(aligns & 16);
    HR_CHECK(aligns & 4096);
    HR_CHECK_EQ_U64(grow, t.op_counts[HR_OP_REALLOC]);
    hr_trace_free(&t);
}

static void test_session_all_ops(void) {
    hr_trace_t t;
    if (gen("session", 100000, 5, 1, 0, &t) != 0) {
        HR_CHECK(0);
        return;
    }
    for (unsigned op = 0; op < HR_OP__COUNT; op++) {
        if (hr_op_is_pool(op)) /* pool ops come from annotated programs (test_pools_cli.sh) */
            continue;
        if (hr_op_is_hint(op)) /* measured by the capture library only */
            continue;
        if (t.op_counts[op] == 0)
            printf("# session has no %s\n", hr_op_name(op));
        HR_CHECK(t.op_counts[op] > 0);
    }
    hr_trace_free(&t);
}

/* N threads: exactly ids 0..N-1 appear, an object is freed on its allocating
 * thread, and apart from the thread field the events equal the 1-thread run.
 * Only for the scenarios where --threads relabels; the threaded ones (jobs,
 * stream, queue) are checked in test_gen_threads.c. */
static void test_threads(void) {
    static const uint32_t ns[] = {1, 3, 8, HR_GEN_MAX_THREADS};
    int relabel = 0;
    for (const char *const *s = hr_gen_scenarios(); *s; s++) {
        hr_trace_t one;
        if (hr_gen_threaded(*s) != 0)
            continue;
        relabel++;
        if (gen(*s, 20000, 8, 1, 0, &one) != 0) {
            HR_CHECK(0);
            continue;
        }
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            hr_trace_t t;
            if (gen(*s, 20000, 8, ns[k], 0, &t) != 0) {
                HR_CHECK(0);
                continue;
            }
            HR_CHECK_EQ_U64(t.n_threads, ns[k]);
            uint8_t seen[HR_GEN_MAX_THREADS] = {0};
            uint16_t *owner = calloc(t.n_ids ? t.n_ids : 1, sizeof *owner);
            size_t cross = 0, diff = 0, nseen = 0;
            HR_CHECK_EQ_U64(t.n_events, one.n_events);
            for (size_t i = 0; i < t.n_events && i < one.n_events; i++) {
                hr_event_t a = t.events[i], b = one.events[i];
                if (a.thread < HR_GEN_MAX_THREADS && !seen[a.thread]) {
                    seen[a.thread] = 1;
                    nseen++;
                }
                if (a.op == HR_OP_ALLOC || a.op == HR_OP_CALLOC)
                    owner[a.id] = a.thread;
                else if (a.op == HR_OP_FREE || a.op == HR_OP_REALLOC)
                    cross += owner[a.op == HR_OP_FREE ? a.id : a.aux] != a.thread;
                a.thread = b.thread = 0;
                diff += memcmp(&a, &b, sizeof a) != 0;
            }
            HR_CHECK_EQ_U64(nseen, ns[k]);
            HR_CHECK_EQ_U64(cross, 0);
            HR_CHECK_EQ_U64(diff, 0);
            free(owner);
            hr_trace_free(&t);
        }
        hr_trace_free(&one);
    }
    HR_CHECK_EQ_U64(relabel, 5);
}

static void test_timestamps(void) {
    for (const char *const *s = hr_gen_scenarios(); *s; s++) {
        hr_trace_t t;
        if (gen(*s, 10000, 2, 2, 1, &t) != 0) {
            HR_CHECK(0);
            continue;
        }
        HR_CHECK(t.flags & HR_TRACEF_TIMESTAMPS);
        size_t bad = 0;
        for (size_t i = 1; t.ts && i < t.n_events; i++)
            bad += t.ts[i] <= t.ts[i - 1];
        HR_CHECK(t.ts != NULL);
        HR_CHECK_EQ_U64(bad, 0);
        hr_trace_free(&t);
    }
}

/* hr_gen_write (two passes, 64 Ki-event chunks) writes the very bytes of the
 * in-memory path (hr_gen, then the binary encoder) for every scenario, with
 * and without threads and timestamps, at a size that spans several chunks,
 * and reports the same counts. */
static void test_stream_same_bytes(void) {
    for (const char *const *s = hr_gen_scenarios(); *s; s++)
        for (int v = 0; v < 2; v++) {
            hr_gen_options_t o = hr_gen_default();
            o.scenario = *s;
            o.events = 150000;
            o.seed = v ? 7 : 1;
            o.threads = v ? 3 : 1;
            o.timestamps = v;
            hr_trace_t t, info;
            hr_error_t err = {{0}};
            hr_buf_t b = {0};
            HR_CHECK(hr_gen(&o, &t, &err) == 0);
            HR_CHECK(hr_trace_encode_binary(&t, &b) == 0);
            char *data = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&data, &len);
            HR_CHECK(f != NULL);
            int rc = hr_gen_write(&o, f, &info, &err);
            if (rc)
                printf("# hr_gen_write(%s): %s\n", *s, err.msg);
            fclose(f);
            HR_CHECK(rc == 0);
            HR_CHECK_EQ_U64(len, b.len);
            HR_CHECK(len == b.len && memcmp(data, b.data, len) == 0);
            HR_CHECK_EQ_U64(info.n_events, t.n_events);
            HR_CHECK(info.n_events > 2 * 65536); /* several chunks */
            HR_CHECK_EQ_U64(info.n_ids, t.n_ids);
            HR_CHECK_EQ_U64(info.peak_live, t.peak_live);
            free(data);
            hr_buf_free(&b);
            hr_trace_free(&t);
            hr_trace_free(&info);
        }
}

int main(void) {
    HR_RUN(test_scenarios_validate_and_dense);
    HR_RUN(test_bad_options);
    HR_RUN(test_determinism);
    HR_RUN(test_event_budget);
    HR_RUN(test_frame_loop_lifo);
    HR_RUN(test_particles_sizes);
    HR_RUN(test_level_load_heaps);
    HR_RUN(test_strings_ops);
    HR_RUN(test_session_all_ops);
    HR_RUN(test_threads);
    HR_RUN(test_timestamps);
    HR_RUN(test_stream_same_bytes);
    return hr_test_done();
}
