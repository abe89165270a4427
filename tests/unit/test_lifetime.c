/* Block lifetimes in frames (src/trace/lifetime.h) on hand-made traces whose
 * classes are known: each case lists, per event, the class expected of the
 * block it makes ('-' for an event that makes none). */
#include "hr_test.h"
#include "trace/lifetime.h"

#include <stdlib.h>

/* Reads the text trace, computes lifetimes and compares each event's class
 * letter: L same-frame-lifo, S same-frame, N next-frame, P phase, G long,
 * K leaked, '-' none. */
static void check_classes(const char *src, const char *want) {
    hr_trace_t t;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    if (hr_trace_read_mem(src, strlen(src), "l.txt", HR_FMT_TEXT, &t, &err) != 0) {
        printf("# %s\n", err.msg);
        HR_CHECK(0);
        return;
    }
    HR_CHECK_EQ_U64(strlen(want), t.n_events);
    hr_life_t *out = calloc(t.n_events, sizeof *out);
    HR_CHECK(hr_lifetime_compute(&t, out, &err) == 0);
    static const char k_letters[] = "LSNPGK-";
    for (size_t i = 0; i < t.n_events && i < strlen(want); i++) {
        char got = k_letters[out[i].cls <= HR_LIFE__COUNT ? out[i].cls : HR_LIFE__COUNT];
        if (got != want[i]) {
            printf("# event %zu (%s): class %c, expected %c\n", i, hr_op_name(t.events[i].op),
                   got, want[i]);
            HR_CHECK(got == want[i]);
        }
    }
    free(out);
    hr_trace_free(&t);
}

/* Nested frees are LIFO; a free out of order is same-frame, and the blocks
 * under it become LIFO again once everything made after them is gone. */
static void test_same_frame(void) {
    check_classes("heapreplay-trace 1\n"
                  "frame 1\n"
                  "alloc 0 8\nalloc 1 8\nalloc 2 8\n"
                  "free 1\n"  /* 2 is above it: same-frame */
                  "free 2\n"  /* top: LIFO */
                  "free 0\n", /* 1 and 2 gone: LIFO */
                  "-LSL---");
}

/* Next frame, later in the same phase, across a mark (long), never. */
static void test_frames_and_phases(void) {
    check_classes("heapreplay-trace 1\n"
                  "frame 1\n"
                  "alloc 0 8\nalloc 1 8\nalloc 2 8\nalloc 3 8\n"
                  "frame 2\n"
                  "free 0\n"
                  "mark frame-by:SDL_GL_SwapWindow\n" /* a frame's source: no phase */
                  "frame 3\n"
                  "free 1\n"
                  "mark level2\n"
                  "frame 4\n"
                  "free 2\n",
                  "-NPGK--------");
}

/* The load is frame 0 and its own phase: a load block freed in the first
 * frame is next-frame, one freed later is long; a block freed in the load
 * is same-frame. Named-stream frames do not count. */
static void test_load(void) {
    check_classes("heapreplay-trace 1\n"
                  "alloc 0 8\nalloc 1 8\nalloc 2 8\n"
                  "frame 7 audio\n"
                  "free 2\n"
                  "frame 1\n"
                  "free 0\n"
                  "frame 2\n"
                  "free 1\n",
                  "NGL------");
}

/* A realloc ends the old block and makes a new one; the LIFO test is per
 * thread, and a block freed by another thread is same-frame, not LIFO. */
static void test_realloc_threads(void) {
    check_classes("heapreplay-trace 1\n"
                  "frame 1\n"
                  "alloc 0 8\n"
                  "alloc 1 8 t=1\n"
                  "realloc 0 2 16\n" /* ends 0 (LIFO in thread 0), makes 2 */
                  "free 2 t=1\n"     /* thread 0's block freed by thread 1 */
                  "free 1 t=1\n"     /* thread 1's own top */
                  "frame 2\n",
                  "-LLS---");
}

/* Pool blocks count like any other. */
static void test_pools(void) {
    check_classes("heapreplay-trace 1\n"
                  "palloc 0 32 arena\n"
                  "frame 1\n"
                  "prealloc 0 1 64\n"
                  "frame 2\n"
                  "pfree 1 arena\n",
                  "N-N--");
}

static void test_names(void) {
    HR_CHECK_STR(hr_life_name(HR_LIFE_SAME_LIFO), "same-frame-lifo");
    HR_CHECK_STR(hr_life_name(HR_LIFE_LEAKED), "leaked");
    HR_CHECK_STR(hr_life_name(HR_LIFE__COUNT), "?");
}

int main(void) {
    HR_RUN(test_same_frame);
    HR_RUN(test_frames_and_phases);
    HR_RUN(test_load);
    HR_RUN(test_realloc_threads);
    HR_RUN(test_pools);
    HR_RUN(test_names);
    return hr_test_done();
}
