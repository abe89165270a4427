/* Threaded replay (replay/sched.h, replay/threads.c): the schedule's
 * dependencies, slot renaming and instance ownership on hand-built traces,
 * and threaded laps that keep every dependency (the mtcheck backend counts a
 * free of a block that is not live). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "base/json.h"
#include "hr_test.h"
#include "replay/engine.h"
#include "replay/engine_int.h"
#include "replay/sched.h"

extern const hr_backend_t hr_backend_mtcheck, hr_backend_block, hr_backend_bump;

static void ev(hr_trace_t *t, unsigned op, uint16_t th, uint32_t id, uint32_t aux, uint64_t size) {
    hr_event_t e = {0};
    e.op = (uint8_t)op;
    e.thread = th;
    e.id = id;
    e.aux = aux;
    e.size = size;
    hr_trace_push(t, &e);
}

static int validate(hr_trace_t *t) {
    hr_error_t err;
    int rc = hr_trace_validate(t, "test", &err);
    if (rc)
        printf("# %s\n", err.msg);
    return rc;
}

/* Thread 1 frees what thread 0 allocated: one wait (the free), one post (the
 * alloc), one cross-thread free; the same-thread pair needs no record. */
static void test_cross_free_sync(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    ev(&t, HR_OP_ALLOC, 0, 0, 0, 64);
    ev(&t, HR_OP_ALLOC, 0, 1, 0, 32);
    ev(&t, HR_OP_FREE, 0, 1, 0, 0);
    ev(&t, HR_OP_FREE, 1, 0, 0, 0);
    HR_CHECK(validate(&t) == 0);
    hr_sched_t s;
    hr_error_t err;
    HR_CHECK(hr_sched_build(&s, &t, &err) == 0);
    HR_CHECK_EQ_U64(s.n, 2);
    HR_CHECK_EQ_U64(s.s[0].n, 3);
    HR_CHECK_EQ_U64(s.s[1].n, 1);
    HR_CHECK_EQ_U64(s.cross_frees, 1);
    HR_CHECK_EQ_U64(s.s[0].n_sync, 1); /* the alloc that posts */
    HR_CHECK(s.s[0].ev[0].flags & HR_EVF_SYNC);
    HR_CHECK(!(s.s[0].ev[1].flags & HR_EVF_SYNC));
    HR_CHECK_EQ_U64(s.s[0].sync[0].post_seq, 1);
    HR_CHECK_EQ_U64(s.s[1].n_sync, 1); /* the free that waits */
    HR_CHECK_EQ_U64(s.s[1].sync[0].wait_seq, 1);
    HR_CHECK_EQ_U64(s.s[1].sync[0].wait_slot, s.s[0].sync[0].post_slot);
    HR_CHECK(s.s[1].sync[0].foreign && s.s[1].sync[0].xfree);
    HR_CHECK(s.s[0].locked && !s.s[1].locked);
    hr_sched_free(&s);
    hr_trace_free(&t);
}

/* An id freed by thread 0 and reused at once by thread 1 is a name, not a
 * dependency: slots are renamed, so nothing waits. */
static void test_id_reuse_no_wait(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    for (int i = 0; i < 10; i++) {
        ev(&t, HR_OP_ALLOC, (uint16_t)(i % 2), 0, 0, 16);
        ev(&t, HR_OP_FREE, (uint16_t)(i % 2), 0, 0, 0);
    }
    HR_CHECK(validate(&t) == 0);
    hr_sched_t s;
    HR_CHECK(hr_sched_build(&s, &t, NULL) == 0);
    HR_CHECK_EQ_U64(s.s[0].n_sync + s.s[1].n_sync, 0);
    HR_CHECK_EQ_U64(s.cross_frees, 0);
    HR_CHECK_EQ_U64(s.n_slots, 2); /* one per thread's free list */
    hr_sched_free(&s);
    hr_trace_free(&t);
}

/* A realloc on another thread keeps the block on its owner's instance: the
 * later same-thread free is still foreign (owner 0) but not a cross free. */
static void test_realloc_keeps_owner(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    ev(&t, HR_OP_ALLOC, 0, 5, 0, 16);
    ev(&t, HR_OP_REALLOC, 1, 5, 5, 64);
    ev(&t, HR_OP_FREE, 1, 5, 0, 0);
    HR_CHECK(validate(&t) == 0);
    hr_sched_t s;
    HR_CHECK(hr_sched_build(&s, &t, NULL) == 0);
    HR_CHECK_EQ_U64(s.s[1].n_sync, 2);
    HR_CHECK(s.s[1].sync[0].xfree && s.s[1].sync[0].foreign);
    HR_CHECK(!s.s[1].sync[1].xfree && s.s[1].sync[1].foreign);
    HR_CHECK_EQ_U64(s.s[1].sync[1].owner, 0);
    HR_CHECK_EQ_U64(s.s[1].sync[1].wait_slot, HR_SCHED_NONE); /* program order */
    HR_CHECK_EQ_U64(s.owner_end[s.s[1].ev[1].id], 0);
    hr_sched_free(&s);
    hr_trace_free(&t);
}

/* A producer/consumer trace: thread 0 allocates, threads 1..3 free and
 * realloc, ids reused at once (as a capture names them). */
static void make_pc_trace(hr_trace_t *t, int n) {
    hr_trace_init(t);
    uint32_t live[8];
    int nlive = 0;
    unsigned x = 12345;
    for (int i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        if (nlive < 8 && (nlive == 0 || (x >> 16) % 3)) {
            uint32_t id = 0;
            for (int used = 1; used;) { /* lowest free id */
                used = 0;
                for (int k = 0; k < nlive; k++)
                    if (live[k] == id)
                        used = 1, id++;
            }
            ev(t, HR_OP_ALLOC, 0, id, 0, 16 + (x >> 20) % 200);
            live[nlive++] = id;
        } else {
            int k = (int)((x >> 8) % (unsigned)nlive);
            uint16_t th = (uint16_t)(1 + (x >> 4) % 3);
            if ((x >> 12) % 4 == 0)
                ev(t, HR_OP_REALLOC, th, live[k], live[k], 300);
            ev(t, HR_OP_FREE, th, live[k], 0, 0);
            live[k] = live[--nlive];
        }
    }
}

static hr_json_t *time_replay(const hr_trace_t *t, const hr_backend_t *be, int threads) {
    hr_emit_mem_t m;
    hr_emit_mem_open(&m, 1);
    hr_replay_options_t opt = hr_replay_options_default();
    opt.mode = HR_MODE_TIME;
    opt.warm_time_s = 0.05;
    opt.threads = threads;
    hr_replay_one(t, "test", "0000000000000000", be, be->name, NULL, &opt, &m.em);
    char *buf = hr_emit_mem_close(&m);
    hr_json_t *v = hr_json_parse(buf, strlen(buf), "result", NULL);
    if (!v || strcmp(hr_json_path_str(v, "status"), "ok") != 0)
        printf("# %s\n", buf);
    free(buf);
    return v;
}

static uint64_t per_thread_sum(const hr_json_t *r, const char *key) {
    const hr_json_t *a = hr_json_get(r, "per_thread");
    uint64_t s = 0;
    for (size_t i = 0; a && i < hr_json_len(a); i++)
        s += (uint64_t)hr_json_path_num(hr_json_at(a, i), key);
    return s;
}

/* Every free finds its block live and published, lap after lap. */
static void test_threaded_keeps_order(void) {
    hr_trace_t t;
    make_pc_trace(&t, 20000);
    HR_CHECK(validate(&t) == 0);
    hr_mtcheck_reset();
    hr_json_t *r = time_replay(&t, &hr_backend_mtcheck, HR_THREADS_AUTO);
    HR_CHECK(r != NULL);
    uint64_t c[3];
    hr_mtcheck_counts(c);
    HR_CHECK_STR(hr_json_path_str(r, "threads.mode"), "recorded");
    HR_CHECK_EQ_U64(hr_json_path_num(r, "threads.n"), 4);
    HR_CHECK(hr_json_path_num(r, "threads.cross_thread_frees") > 1000);
    HR_CHECK_EQ_U64(per_thread_sum(r, "empty_frees"), 0);
    HR_CHECK_EQ_U64(per_thread_sum(r, "ops"), hr_trace_mem_ops(&t));
    HR_CHECK_EQ_U64(c[2], 0);         /* no free of a block not live */
    HR_CHECK(c[1] == c[0] && c[0] > 0); /* every block freed once */
    HR_CHECK(hr_json_path_num(r, "threads.ops_per_s") > 0);
    hr_json_free(r);
    hr_trace_free(&t);
}

/* In-house allocators get one instance per thread; the frees into thread 0's
 * instance lock it. --threads serial keeps one thread and no thread figures. */
static void test_inhouse_instances_and_serial(void) {
    hr_trace_t t;
    make_pc_trace(&t, 5000);
    HR_CHECK(validate(&t) == 0);
    hr_json_t *r = time_replay(&t, &hr_backend_block, HR_THREADS_RECORDED);
    HR_CHECK(r != NULL);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "threads.locked_instances"), 1);
    HR_CHECK_EQ_U64(per_thread_sum(r, "empty_frees"), 0);
    hr_json_free(r);
    r = time_replay(&t, &hr_backend_block, HR_THREADS_SERIAL);
    HR_CHECK(r != NULL);
    HR_CHECK_STR(hr_json_path_str(r, "threads.mode"), "serial");
    HR_CHECK(hr_json_get(r, "per_thread") == NULL);
    HR_CHECK(hr_json_path_num(r, "time.ns_per_op") > 0);
    hr_json_free(r);
    hr_trace_free(&t);
}

/* Ping-pong: each thread in turn does `work` alloc/free pairs of its own,
 * then makes the block the other thread frees next, so a hand-off usually
 * finds the other thread still busy. With the spin and yield phases off,
 * every wait sleeps on the futex at once. Every wake must arrive (a lost one
 * hangs the test: the alarm fails it) and every free must see its block (the
 * publish-then-read-sleepers protocol of threads.c). Whether a hand-off has
 * to wait at all is up to the scheduler (on a loaded host the other thread
 * may be done before the waiter runs), so sleeping is checked only when
 * there were waits. */
static void test_sleep_and_wake(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    const int rounds = 12, work = 20000;
    for (int r = 0; r < rounds; r++) {
        uint16_t a = (uint16_t)(r & 1), b = (uint16_t)!a;
        for (int i = 0; i < work; i++) {
            ev(&t, HR_OP_ALLOC, a, 1 + a, 0, 32);
            ev(&t, HR_OP_FREE, a, 1 + a, 0, 0);
        }
        ev(&t, HR_OP_ALLOC, a, 0, 0, 64);
        ev(&t, HR_OP_FREE, b, 0, 0, 0);
    }
    HR_CHECK(validate(&t) == 0);
    hr_mtcheck_reset();
    hr_threads_set_wait_policy(0, 0);
    hr_json_t *r = time_replay(&t, &hr_backend_mtcheck, HR_THREADS_RECORDED);
    hr_threads_set_wait_policy(2000, 16);
    HR_CHECK(r != NULL);
    uint64_t c[3];
    hr_mtcheck_counts(c);
    HR_CHECK_EQ_U64(c[2], 0);
    HR_CHECK(c[1] == c[0] && c[0] > 0);
    HR_CHECK_EQ_U64(hr_json_path_num(r, "threads.cross_thread_frees"), rounds);
    HR_CHECK_EQ_U64(per_thread_sum(r, "empty_frees"), 0);
    double waits = hr_json_path_num(r, "threads.waits");
    printf("# %.1f waits per lap, %.6f s waiting, %.6f s of it spinning\n", waits,
           hr_json_path_num(r, "threads.wait_s"), hr_json_path_num(r, "threads.spin_s"));
    if (waits > 0) /* every wait slept: waiting took longer than its (empty) spin phase */
        HR_CHECK(hr_json_path_num(r, "threads.wait_s") > hr_json_path_num(r, "threads.spin_s"));
    hr_json_free(r);
    hr_trace_free(&t);
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    alarm(300); /* a lost wake-up hangs a threaded lap: fail (SIGALRM), never hang CI */
    HR_RUN(test_cross_free_sync);
    HR_RUN(test_id_reuse_no_wait);
    HR_RUN(test_realloc_keeps_owner);
    HR_RUN(test_threaded_keeps_order);
    HR_RUN(test_inhouse_instances_and_serial);
    HR_RUN(test_sleep_and_wake);
    return hr_test_done();
}
