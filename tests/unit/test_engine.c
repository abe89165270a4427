/* Replay engine: metrics on hand-built traces whose peak live, footprint and
 * fragmentation are known exactly; latency histogram; slot handling. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc/chunk.h"
#include "backends/backend.h"
#include "hr_test.h"
#include "replay/engine.h"
#include "replay/latency.h"
#include "trace/packed.h"
#include "base/json.h"

extern const hr_backend_t hr_backend_bump;

static void push(hr_trace_t *t, unsigned op, uint32_t id, uint32_t aux, uint64_t size) {
    hr_event_t ev = {0};
    ev.op = (uint8_t)op;
    ev.id = id;
    ev.aux = aux;
    ev.size = size;
    hr_trace_push(t, &ev);
}

/* Replays `t` on `be` in this process and returns the parsed result object. */
static hr_json_t *replay_mode(hr_trace_t *t, const hr_backend_t *be, hr_touch_t touch,
                              hr_replay_mode_t mode) {
    hr_error_t err;
    if (hr_trace_validate(t, "test", &err) != 0) {
        printf("# validate: %s\n", err.msg);
        return NULL;
    }
    hr_emit_mem_t m;
    hr_emit_mem_open(&m, 1);
    hr_replay_options_t opt = hr_replay_options_default();
    opt.touch = touch;
    opt.mode = mode;
    opt.warm_time_s = 0;
    hr_replay_one(t, "test", "0000000000000000", be, be->name, NULL, &opt, &m.em);
    char *buf = hr_emit_mem_close(&m);
    hr_error_t perr;
    hr_json_t *v = hr_json_parse(buf, strlen(buf), "result", &perr);
    if (!v)
        printf("# parse: %s\n# %s\n", perr.msg, buf);
    free(buf);
    return v;
}

static hr_json_t *replay(hr_trace_t *t, const hr_backend_t *be, hr_touch_t touch) {
    return replay_mode(t, be, touch, HR_MODE_MEASURE);
}

/* bump aligns each block's start to 16 and never frees:
 * alloc0 100 @0, alloc1 200 @112, free0, alloc0 50 @320 -> footprint 370. */
static void test_exact_memory_metrics(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    push(&t, HR_OP_ALLOC, 0, 0, 100);
    push(&t, HR_OP_ALLOC, 1, 0, 200);
    push(&t, HR_OP_FREE, 0, 0, 0);
    push(&t, HR_OP_ALLOC, 0, 0, 50);
    push(&t, HR_OP_FREE, 0, 0, 0);
    push(&t, HR_OP_FREE, 1, 0, 0);
    hr_json_t *r = replay(&t, &hr_backend_bump, HR_TOUCH_ALL);
    HR_CHECK(r != NULL);
    HR_CHECK_STR(hr_json_path_str(r, "status"), "ok");
    HR_CHECK_EQ_U64(hr_json_path_num(r, "memory.peak_live"), 300);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "memory.peak_footprint"), 370);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "memory.live_at_peak_footprint"), 250);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "memory.footprint_at_peak_live"), 312);
    HR_CHECK(fabs(hr_json_path_num(r, "memory.frag_jw4") - 70.0 / 300.0) < 1e-12);
    HR_CHECK(fabs(hr_json_path_num(r, "memory.frag_jw3") - 120.0 / 250.0) < 1e-12);
    HR_CHECK_STR(hr_json_path_str(r, "memory.footprint_source"), "exact");
    HR_CHECK_EQ_U64(hr_json_path_num(r, "ops.total"), 6);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "ops.alloc"), 3);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "ops.free"), 3);
    /* Every op is a latency sample unless the host switched the thread out
     * during it (a stall: counted apart, kept out of the histogram). */
    HR_CHECK_EQ_U64(hr_json_path_num(r, "latency_ns.samples") + hr_json_path_num(r, "stalls.ops"), 6);
    HR_CHECK(hr_json_path_num(r, "time.measure_s") > 0);
    HR_CHECK(isnan(hr_json_path_num(r, "time.ops_per_s"))); /* the time mode's figure */
    HR_CHECK_STR(hr_json_path_str(r, "touch"), "all");
    hr_json_free(r);
    hr_trace_free(&t);
}

/* realloc and calloc count in live bytes; frames give a worst frame. */
static void test_realloc_calloc_frames(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    push(&t, HR_OP_CALLOC, 0, 10, 8);     /* live 80 */
    push(&t, HR_OP_REALLOC, 1, 0, 1000);  /* 0 -> 1, live 1000 */
    push(&t, HR_OP_FRAME, 0, 0, 7);
    push(&t, HR_OP_ALLOC, 0, 0, 24);      /* live 1024 */
    push(&t, HR_OP_FRAME, 0, 0, 8);
    push(&t, HR_OP_FREE, 0, 0, 0);
    push(&t, HR_OP_FREE, 1, 0, 0);
    hr_json_t *r = replay(&t, &hr_backend_bump, HR_TOUCH_FIRST);
    HR_CHECK(r != NULL);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "memory.peak_live"), 1024);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "ops.realloc"), 1);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "ops.calloc"), 1);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "worst_frame.frames"), 2);
    double wf = hr_json_path_num(r, "worst_frame.index");
    HR_CHECK(wf == 7 || wf == 8);
    /* bump: calloc 80 @0, realloc 1000 @80 (copy), alloc 24 @1088 -> 1112 */
    HR_CHECK_EQ_U64(hr_json_path_num(r, "memory.peak_footprint"), 1112);
    hr_json_free(r);
    hr_trace_free(&t);
}

/* An allocation that fails is counted, the slot stays empty, its free is safe. */
static void test_failed_alloc_counted(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    push(&t, HR_OP_ALLOC, 0, 0, 16);
    push(&t, HR_OP_ALLOC, 1, 0, (uint64_t)1 << 50); /* beyond bump's reservation */
    push(&t, HR_OP_FREE, 1, 0, 0);
    push(&t, HR_OP_FREE, 0, 0, 0);
    hr_json_t *r = replay(&t, &hr_backend_bump, HR_TOUCH_NONE);
    HR_CHECK(r != NULL);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "failed_allocs"), 1);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "first_failed_op"), 1);
    hr_json_free(r);
    hr_trace_free(&t);
}

static void test_latency_histogram(void) {
    hr_latency_t *h = calloc(1, sizeof *h);
    for (uint64_t v = 1; v <= 1000; v++)
        hr_lat_add(h, v);
    HR_CHECK_EQ_U64(h->n, 1000);
    HR_CHECK_EQ_U64(h->max, 1000);
    uint64_t p50 = hr_lat_quantile(h, 0.5), p99 = hr_lat_quantile(h, 0.99);
    HR_CHECK(p50 >= 495 && p50 <= 520);          /* within one bucket (~3 %) */
    HR_CHECK(p99 >= 985 && p99 <= 1000);
    HR_CHECK_EQ_U64(hr_lat_quantile(h, 1.0), 1000);
    /* below 64 the buckets are exact */
    hr_lat_reset(h);
    for (int i = 0; i < 10; i++)
        hr_lat_add(h, 37);
    HR_CHECK_EQ_U64(hr_lat_quantile(h, 0.5), 37);
    /* bucket bounds are monotonic and contain their values */
    for (uint64_t v = 1; v < (1u << 20); v = v * 3 / 2 + 1) {
        unsigned b = hr_lat_bucket(v);
        HR_CHECK(hr_lat_bucket_low(b) <= v);
        HR_CHECK(b + 1 >= HR_LAT_BUCKETS || hr_lat_bucket_low(b + 1) > v);
    }
    free(h);
}

static void test_touch_parse(void) {
    hr_touch_t t;
    uint64_t cap = 7;
    char b[48];
    HR_CHECK(hr_touch_parse("none", &t, &cap) == 0 && t == HR_TOUCH_NONE && cap == 0);
    HR_CHECK(hr_touch_parse("all", &t, &cap) == 0 && t == HR_TOUCH_ALL && cap == 0);
    HR_CHECK(hr_touch_parse("some", &t, &cap) == -1);
    HR_CHECK(hr_touch_parse("first:64K", &t, &cap) == 0 && t == HR_TOUCH_FIRST && cap == 65536);
    HR_CHECK(hr_touch_parse("all:4096", &t, &cap) == 0 && t == HR_TOUCH_ALL && cap == 4096);
    HR_CHECK(hr_touch_parse("first:1M", &t, &cap) == 0 && cap == 1048576);
    HR_CHECK(hr_touch_parse("none:4K", &t, &cap) == -1); /* nothing to cap */
    HR_CHECK(hr_touch_parse("first:0", &t, &cap) == -1);
    HR_CHECK(hr_touch_parse("first:", &t, &cap) == -1);
    HR_CHECK(hr_touch_parse("first:4X", &t, &cap) == -1);
    HR_CHECK(hr_touch_parse("first:4KB", &t, &cap) == -1);
    HR_CHECK(hr_touch_parse("firs", &t, &cap) == -1);
    HR_CHECK_STR(hr_touch_name(HR_TOUCH_FIRST), "first");
    HR_CHECK_STR(hr_touch_spec(HR_TOUCH_FIRST, 65536, b, sizeof b), "first:64K");
    HR_CHECK_STR(hr_touch_spec(HR_TOUCH_ALL, 1000, b, sizeof b), "all:1000");
    HR_CHECK_STR(hr_touch_spec(HR_TOUCH_ALL, 0, b, sizeof b), "all");
}

/* A backend whose blocks come from one zeroed static arena, so the test can
 * see which bytes the replay wrote. */
static unsigned char cap_arena[1 << 16];
static size_t        cap_used;
static void *cap_alloc(void *self, size_t size, size_t align, int32_t heap) {
    (void)self, (void)align, (void)heap;
    if (cap_used + size > sizeof cap_arena)
        return NULL;
    void *p = cap_arena + cap_used;
    cap_used += (size + 15) & ~(size_t)15;
    return p;
}
static void cap_free(void *self, void *ptr, size_t size) { (void)self, (void)ptr, (void)size; }

/* --touch all:4K writes a block's first 4 KiB and nothing past them; plain
 * all writes the whole block. */
static void test_touch_cap(void) {
    hr_backend_t be = hr_backend_bump;
    be.alloc = cap_alloc;
    be.free = cap_free;
    be.calloc = NULL;
    be.realloc = NULL;
    static const uint64_t caps[2] = {4096, 0};
    for (int k = 0; k < 2; k++) {
        memset(cap_arena, 0, sizeof cap_arena);
        cap_used = 0;
        hr_trace_t t;
        hr_trace_init(&t);
        push(&t, HR_OP_ALLOC, 0, 0, 32768);
        hr_error_t err;
        HR_CHECK(hr_trace_validate(&t, "test", &err) == 0);
        hr_emit_mem_t m;
        hr_emit_mem_open(&m, 1);
        hr_replay_options_t opt = hr_replay_options_default();
        opt.touch = HR_TOUCH_ALL;
        opt.touch_cap = caps[k];
        opt.warm_time_s = 0;
        hr_replay_one(&t, "test", "0000000000000000", &be, be.name, NULL, &opt, &m.em);
        free(hr_emit_mem_close(&m));
        HR_CHECK(cap_arena[0] == 0xA5 && cap_arena[4095] == 0xA5);
        HR_CHECK(k == 0 ? cap_arena[4096] == 0 && cap_arena[32767] == 0 : cap_arena[32767] == 0xA5);
        hr_trace_free(&t);
    }
}

/* alloc/chunk.h: the charge never falls below the request; the figures are
 * those malloc_usable_size gives for fresh blocks under Debian 12's glibc 2.36
 * (checked by hand; not asserted against the live heap, whose history varies). */
static void test_chunk_model(void) {
    int below = 0;
    for (size_t req = 0; req < 300000; req += req < 4096 ? 1 : 997)
        below += hr_chunk_usable(req) < req || hr_chunk_bytes(req) < hr_chunk_usable(req);
    HR_CHECK_EQ_U64(below, 0);
    HR_CHECK_EQ_U64(hr_chunk_usable(0), 24);                    /* 32-byte minimum chunk */
    HR_CHECK_EQ_U64(hr_chunk_usable(25), 40);                   /* + 8, 16-byte granules */
    HR_CHECK_EQ_U64(hr_chunk_usable(4096), 4104);
    HR_CHECK_EQ_U64(hr_chunk_bytes(131048), 131056);            /* largest heap chunk */
    HR_CHECK_EQ_U64(hr_chunk_bytes(131056), 128 * 1024 + 4096); /* mmapped: whole pages */
    HR_CHECK_EQ_U64(hr_chunk_usable(131056), 135152);
    HR_CHECK_EQ_U64(hr_chunk_usable(5000000), 5001200);
}

/* The time mode: a cold lap, then warm laps (one with --warm-time 0), CPU
 * figures per memory op; no memory figures (the measure mode has them). */
static void test_time_mode(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    for (uint32_t i = 0; i < 1000; i++)
        push(&t, HR_OP_ALLOC, i, 0, 32);
    for (uint32_t i = 0; i < 1000; i++)
        push(&t, HR_OP_FREE, i, 0, 0);
    hr_json_t *r = replay_mode(&t, &hr_backend_bump, HR_TOUCH_FIRST, HR_MODE_TIME);
    HR_CHECK(r != NULL);
    HR_CHECK_STR(hr_json_path_str(r, "status"), "ok");
    HR_CHECK_EQ_U64(hr_json_path_num(r, "time.warm_laps"), 1);
    HR_CHECK(hr_json_path_num(r, "time.cold_cpu_s") > 0);
    HR_CHECK(hr_json_path_num(r, "time.cpu_s") > 0);
    double ns = hr_json_path_num(r, "time.ns_per_op"), cpu = hr_json_path_num(r, "time.cpu_s");
    HR_CHECK(fabs(ns - cpu * 1e9 / 2000) < 1e-6 * ns);
    HR_CHECK_STR(hr_json_path_str(r, "time.clock"), "thread_cpu");
    HR_CHECK(hr_json_path(r, "memory") == NULL);
    hr_json_free(r);
    hr_trace_free(&t);
}

/* A backend whose third allocation sleeps 30 ms: the thread is switched out
 * during that op, which is a stall, not allocator cost. */
static int sleepy_calls;
static void *sleepy_alloc(void *self, size_t size, size_t align, int32_t heap) {
    if (++sleepy_calls == 3) {
        struct timespec ts = {0, 30 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return hr_bump_alloc(self, size, align, heap);
}

static void test_stall_not_worst_frame(void) {
    hr_backend_t sleepy = hr_backend_bump;
    sleepy.alloc = sleepy_alloc;
    sleepy_calls = 0;
    hr_trace_t t;
    hr_trace_init(&t);
    for (uint32_t f = 0; f < 4; f++) {
        push(&t, HR_OP_ALLOC, 2 * f, 0, 64);
        push(&t, HR_OP_ALLOC, 2 * f + 1, 0, 64);
        push(&t, HR_OP_FREE, 2 * f, 0, 0);
        push(&t, HR_OP_FRAME, 0, 0, f);
    }
    hr_json_t *r = replay(&t, &sleepy, HR_TOUCH_FIRST);
    HR_CHECK(r != NULL);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "stalls.ops"), 1);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "stalls.frames"), 1);
    HR_CHECK(hr_json_path_num(r, "stalls.ns") >= 25e6);
    HR_CHECK(hr_json_path_num(r, "worst_frame.raw_ns") >= 25e6);
    HR_CHECK(hr_json_path_num(r, "worst_frame.ns") < 25e6);
    HR_CHECK(hr_json_path_num(r, "latency_ns.max") < 25e6);
    HR_CHECK(hr_json_path_num(r, "latency_ns.raw_max") >= 25e6);
    HR_CHECK(hr_json_path_num(r, "worst_frame.ns") <= hr_json_path_num(r, "time.measure_s") * 1e9);
    hr_json_free(r);
    hr_trace_free(&t);
}

/* A packed trace's timed laps (engine.c: windows of 64 k events decoded
 * between the timed stretches) pass every op to the backend once per lap,
 * in order: 100 k ops and 500 frames over two windows (a backend with a
 * frame hook keeps every event), each free given the pointer and size its
 * alloc made. */
static uint64_t pk_allocs, pk_frees, pk_frames, pk_alloc_sum, pk_free_sum, pk_bad;
static void *pk_alloc(void *self, size_t size, size_t align, int32_t heap) {
    void *p = hr_bump_alloc(self, size, align, heap);
    pk_allocs++;
    pk_alloc_sum += (uintptr_t)p ^ size;
    return p;
}
static void pk_free(void *self, void *ptr, size_t size) {
    pk_frees++;
    pk_free_sum += (uintptr_t)ptr ^ size;
    hr_bump_free(self, ptr, size);
}
static void pk_frame(void *self, uint64_t n) {
    pk_bad += n != pk_frames % 500; /* frames come in trace order */
    pk_frames++;
}

static void test_packed_time_laps(void) {
    hr_backend_t be = hr_backend_bump;
    be.alloc = pk_alloc;
    be.free = pk_free;
    be.frame = pk_frame;
    hr_trace_t t;
    hr_trace_init(&t);
    for (uint32_t f = 0; f < 500; f++) {
        for (uint32_t i = 0; i < 100; i++)
            push(&t, HR_OP_ALLOC, i, 0, 16 + (f + i) % 200);
        for (uint32_t i = 0; i < 100; i++)
            push(&t, HR_OP_FREE, i, 0, 0);
        push(&t, HR_OP_FRAME, 0, 0, f);
    }
    hr_error_t err;
    HR_CHECK(hr_trace_validate(&t, "test", &err) == 0);
    uint8_t *buf = malloc(t.n_events * HR_PACK_MAX_EVENT);
    hr_pack_state_t st = hr_pack_state_default(0);
    size_t len = 0;
    for (size_t i = 0; i < t.n_events; i++)
        len += hr_pack_event(&st, &t.events[i], 0, buf + len);
    t.packed = buf;
    t.packed_len = len;
    pk_allocs = pk_frees = pk_frames = pk_alloc_sum = pk_free_sum = pk_bad = 0;
    hr_emit_mem_t m;
    hr_emit_mem_open(&m, 1);
    hr_replay_options_t opt = hr_replay_options_default();
    opt.mode = HR_MODE_TIME;
    opt.warm_time_s = 0; /* the cold lap and one warm lap */
    hr_replay_one(&t, "test", "0000000000000000", &be, be.name, NULL, &opt, &m.em);
    free(hr_emit_mem_close(&m));
    HR_CHECK_EQ_U64(pk_allocs, 2 * 50000);
    HR_CHECK_EQ_U64(pk_frees, 2 * 50000);
    HR_CHECK_EQ_U64(pk_frames, 2 * 500);
    HR_CHECK_EQ_U64(pk_bad, 0);
    HR_CHECK(pk_alloc_sum == pk_free_sum);
    t.packed = NULL;
    free(buf);
    hr_trace_free(&t);
}

/* Counts of each entry the laps called: [0] alloc, free, realloc, [3] the
 * timed ones. */
static unsigned tm_calls[6];
static void *tm_alloc(void *self, size_t size, size_t align, int32_t heap) {
    tm_calls[0]++;
    return hr_bump_alloc(self, size, align, heap);
}
static void tm_free(void *self, void *ptr, size_t size) { tm_calls[1]++, hr_bump_free(self, ptr, size); }
static void *bump_realloc(void *self, void *ptr, size_t osz, size_t nsz, int32_t heap) {
    void *p = hr_bump_alloc(self, nsz, 0, heap);
    if (p)
        memcpy(p, ptr, osz < nsz ? osz : nsz);
    return p;
}
static void *tm_realloc(void *self, void *ptr, size_t osz, size_t nsz, int32_t heap) {
    tm_calls[2]++;
    return bump_realloc(self, ptr, osz, nsz, heap);
}
static void *tm_alloc_timed(void *self, size_t size, size_t align, int32_t heap) {
    tm_calls[3]++;
    return hr_bump_alloc(self, size, align, heap);
}
static void tm_free_timed(void *self, void *ptr, size_t size) {
    tm_calls[4]++, hr_bump_free(self, ptr, size);
}
static void *tm_realloc_timed(void *self, void *ptr, size_t osz, size_t nsz, int32_t heap) {
    tm_calls[5]++;
    return bump_realloc(self, ptr, osz, nsz, heap);
}

/* A backend's timed entries (backend.h) serve the time mode's laps, cold
 * and warm, and the count mode's lap, never the measure or verify mode's,
 * whose results report the instance's stats or check it; without them the
 * time mode calls alloc, free and realloc. */
static void test_timed_entries(void) {
    hr_backend_t be = hr_backend_bump;
    be.alloc = tm_alloc;
    be.free = tm_free;
    be.realloc = tm_realloc;
    be.calloc = NULL;
    be.alloc_timed = tm_alloc_timed;
    be.free_timed = tm_free_timed;
    be.realloc_timed = tm_realloc_timed;
    hr_trace_t t;
    hr_trace_init(&t);
    for (uint32_t i = 0; i < 100; i++)
        push(&t, HR_OP_ALLOC, i, 0, 16 + i);
    for (uint32_t i = 0; i < 100; i += 2) /* new id 100 + i, old id i */
        push(&t, HR_OP_REALLOC, 100 + i, i, 300);
    for (uint32_t i = 0; i < 100; i++)
        push(&t, HR_OP_FREE, i % 2 ? i : 100 + i, 0, 0);
    static const hr_replay_mode_t modes[] = {HR_MODE_TIME, HR_MODE_MEASURE, HR_MODE_VERIFY,
                                             HR_MODE_COUNT, HR_MODE_TIME};
    for (int k = 0; k < 5; k++) {
        memset(tm_calls, 0, sizeof tm_calls);
        if (k == 4)
            be.alloc_timed = NULL, be.free_timed = NULL, be.realloc_timed = NULL;
        hr_json_t *r = replay_mode(&t, &be, HR_TOUCH_FIRST, modes[k]);
        HR_CHECK(r != NULL);
        HR_CHECK_STR(hr_json_path_str(r, "status"), "ok");
        hr_json_free(r);
        unsigned laps = modes[k] == HR_MODE_TIME ? 2 : 1; /* time: the cold lap and one warm */
        unsigned timed = k == 0 || k == 3;
        HR_CHECK_EQ_U64(tm_calls[0], (1 - timed) * laps * 100);
        HR_CHECK_EQ_U64(tm_calls[1], (1 - timed) * laps * 100);
        HR_CHECK_EQ_U64(tm_calls[2], (1 - timed) * laps * 50);
        HR_CHECK_EQ_U64(tm_calls[3], timed * laps * 100);
        HR_CHECK_EQ_U64(tm_calls[4], timed * laps * 100);
        HR_CHECK_EQ_U64(tm_calls[5], timed * laps * 50);
        if (hr_t_cur_failed)
            printf("# case %d: %u %u %u / %u %u %u\n", k, tm_calls[0], tm_calls[1], tm_calls[2],
                   tm_calls[3], tm_calls[4], tm_calls[5]);
    }
    hr_trace_free(&t);
}

int main(void) {
    HR_RUN(test_exact_memory_metrics);
    HR_RUN(test_realloc_calloc_frames);
    HR_RUN(test_failed_alloc_counted);
    HR_RUN(test_latency_histogram);
    HR_RUN(test_touch_parse);
    HR_RUN(test_touch_cap);
    HR_RUN(test_chunk_model);
    HR_RUN(test_time_mode);
    HR_RUN(test_stall_not_worst_frame);
    HR_RUN(test_packed_time_laps);
    HR_RUN(test_timed_entries);
    return hr_test_done();
}
