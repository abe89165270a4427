/* Binary trace format benchmark: size (bytes/event) and encode/decode speed.
 *
 * Builds a game-like trace in memory with a small local generator (frame
 * loop; per frame a burst of short-lived allocations freed by the end of the
 * frame, some longer-lived objects, a few reallocs/callocs, heap push/pop,
 * occasional worker-thread runs), encodes it and times encoding and decoding,
 * best of 5. Decoding is timed twice: into fresh memory (what a reader pays,
 * including the kernel zeroing 24 bytes of new pages per event) and into
 * memory the process has already faulted in (the decoder's own speed).
 * Prints Markdown. With HR_TRACES_DIR set, also reports the size of
 * every *.hrt file found there.
 *
 * usage: bench_decode [EVENTS]    (default 6,000,000) */

#include "trace/format.h"

#include <dirent.h>
#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- a tiny game-like generator (deterministic xorshift) ---------------- */
typedef struct gen {
    uint64_t  rng;
    uint32_t *free_ids, n_free, next_id; /* LIFO id reuse: small dense ids */
    uint32_t *live;                      /* long-lived ids */
    uint64_t *live_size;
    uint32_t  n_live, cap_live;
} gen_t;

static uint64_t rnd(gen_t *g) {
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

static uint32_t take_id(gen_t *g) { return g->n_free ? g->free_ids[--g->n_free] : g->next_id++; }

static uint64_t pick_size(gen_t *g) {
    unsigned r = (unsigned)(rnd(g) % 100);
    if (r < 70)
        return 8 + 8 * (rnd(g) % 16); /* 16..128, mostly small objects */
    if (r < 92)
        return 128 + 16 * (rnd(g) % 56);
    if (r < 99)
        return 1024 + rnd(g) % 3072;
    return 4096 + rnd(g) % 65536;
}

static void push(hr_trace_t *t, hr_event_t ev, uint16_t thread) {
    ev.thread = thread;
    if (hr_trace_push(t, &ev)) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

static void gen_frame(gen_t *g, hr_trace_t *t, uint64_t frame, uint32_t heap) {
    uint32_t tmp_ids[256];
    uint64_t tmp_sz[256];
    unsigned n_tmp = 40 + (unsigned)(rnd(g) % 80);
    uint16_t thr = (rnd(g) % 8 == 0) ? (uint16_t)(1 + rnd(g) % 3) : 0; /* worker frame */
    push(t, (hr_event_t){.op = HR_OP_FRAME, .size = frame}, 0);
    push(t, (hr_event_t){.op = HR_OP_HEAP_PUSH, .aux = heap}, thr);
    for (unsigned i = 0; i < n_tmp; i++) { /* transient per-frame allocations */
        hr_event_t ev = {.op = HR_OP_ALLOC, .id = take_id(g), .size = pick_size(g)};
        if (rnd(g) % 20 == 0) {
            ev.align = 16u << (rnd(g) % 3);
            ev.flags = HR_EVF_HAS_OPT;
        }
        tmp_ids[i] = ev.id;
        tmp_sz[i] = ev.size;
        push(t, ev, thr);
        if (rnd(g) % 4 == 0 && i > 0) { /* some die young, mid-frame */
            unsigned k = i - 1;
            push(t, (hr_event_t){.op = HR_OP_FREE, .id = tmp_ids[k]}, thr);
            g->free_ids[g->n_free++] = tmp_ids[k];
            tmp_ids[k] = UINT32_MAX;
        }
    }
    for (unsigned k = 0; k < 4; k++) { /* long-lived churn */
        if (g->n_live > 2000 || (g->n_live && rnd(g) % 2)) {
            uint32_t j = (uint32_t)(rnd(g) % g->n_live);
            if (rnd(g) % 6 == 0) {
                uint32_t nid = take_id(g);
                uint64_t ns = g->live_size[j] * 2;
                push(t, (hr_event_t){.op = HR_OP_REALLOC, .aux = g->live[j], .id = nid,
                                     .size = ns}, thr);
                g->free_ids[g->n_free++] = g->live[j];
                g->live[j] = nid;
                g->live_size[j] = ns;
                continue;
            }
            push(t, (hr_event_t){.op = HR_OP_FREE, .id = g->live[j]}, thr);
            g->free_ids[g->n_free++] = g->live[j];
            g->live[j] = g->live[--g->n_live];
            g->live_size[j] = g->live_size[g->n_live];
        } else if (g->n_live < g->cap_live) {
            hr_event_t ev = {.op = rnd(g) % 8 ? HR_OP_ALLOC : HR_OP_CALLOC, .id = take_id(g)};
            ev.size = ev.op == HR_OP_CALLOC ? 8 * (1 + rnd(g) % 4) : pick_size(g);
            ev.aux = ev.op == HR_OP_CALLOC ? (uint32_t)(1 + rnd(g) % 32) : 0;
            push(t, ev, thr);
            g->live[g->n_live] = ev.id;
            g->live_size[g->n_live++] = hr_event_bytes(&ev);
        }
    }
    for (unsigned i = n_tmp; i-- > 0;) /* end of frame: LIFO release */
        if (tmp_ids[i] != UINT32_MAX) {
            push(t, (hr_event_t){.op = HR_OP_FREE, .id = tmp_ids[i], .size = tmp_sz[i]}, thr);
            g->free_ids[g->n_free++] = tmp_ids[i];
        }
    push(t, (hr_event_t){.op = HR_OP_HEAP_POP, .aux = heap}, thr);
    if (frame % 600 == 0)
        push(t, (hr_event_t){.op = HR_OP_MARK, .aux = 2}, 0);
}

static void gen_trace(hr_trace_t *t, size_t n_events) {
    gen_t g = {.rng = 0x9e3779b97f4a7c15ull, .cap_live = 4096};
    g.free_ids = malloc((n_events + 1) * sizeof *g.free_ids);
    g.live = malloc(g.cap_live * sizeof *g.live);
    g.live_size = malloc(g.cap_live * sizeof *g.live_size);
    hr_trace_init(t);
    hr_trace_intern(t, "frame");
    hr_trace_intern(t, "worker scratch");
    hr_trace_intern(t, "level checkpoint");
    for (uint64_t f = 1; t->n_events < n_events; f++)
        gen_frame(&g, t, f, (uint32_t)(f % 5 == 0));
    free(g.free_ids);
    free(g.live);
    free(g.live_size);
}

/* ---- timing -------------------------------------------------------------- */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void report_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        printf("- HR_TRACES_DIR %s: cannot open\n", dir);
        return;
    }
    printf("\n| shipped trace | events | bytes | bytes/event |\n|---|---:|---:|---:|\n");
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".hrt") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        hr_trace_t t;
        hr_error_t err;
        struct stat st;
        if (stat(path, &st) || hr_trace_read_file(path, HR_FMT_AUTO, &t, &err)) {
            printf("| %s | error | | %s |\n", de->d_name, err.msg);
            continue;
        }
        printf("| %s | %zu | %lld | %.2f |\n", de->d_name, t.n_events, (long long)st.st_size,
               t.n_events ? (double)st.st_size / (double)t.n_events : 0.0);
        hr_trace_free(&t);
    }
    closedir(d);
}

/* Seconds to decode b (validate: the full reader, hr_trace_read_mem); exits
 * on an error or a wrong event count. */
static double time_decode(const hr_buf_t *b, size_t n_events, int validate) {
    hr_trace_t u;
    hr_error_t err;
    hr_trace_init(&u);
    double t0 = now();
    int rc = validate ? hr_trace_read_mem(b->data, b->len, "bench", HR_FMT_BINARY, &u, &err)
                      : hr_trace_decode_binary(b->data, b->len, "bench", &u, NULL, 0, &err);
    double t1 = now();
    if (rc || u.n_events != n_events) {
        fprintf(stderr, "decode failed: %s\n", rc ? err.msg : "wrong event count");
        exit(1);
    }
    hr_trace_free(&u);
    return t1 - t0;
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 6000000;
    hr_trace_t t;
    gen_trace(&t, n);
    hr_buf_t b = {0};
    double enc = 1e9;
    for (int r = 0; r < 5; r++) {
        b.len = 0;
        double t0 = now();
        if (hr_trace_encode_binary(&t, &b)) {
            fprintf(stderr, "encode failed\n");
            return 1;
        }
        double t1 = now();
        enc = t1 - t0 < enc ? t1 - t0 : enc;
    }
    double dec = 1e9, full = 1e9, warm = 1e9;
    for (int r = 0; r < 5; r++) {
        double d = time_decode(&b, t.n_events, 0), f = time_decode(&b, t.n_events, 1);
        dec = d < dec ? d : dec;
        full = f < full ? f : full;
    }
    /* The same decode into memory the process has already faulted in: freed
     * arrays stay in the heap (no mmap, no trim), so the kernel's zeroing of
     * fresh pages (24 bytes per decoded event) is left out and the figure is
     * the decoder's own speed. The first run faults the heap in. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    time_decode(&b, t.n_events, 0);
    for (int r = 0; r < 5; r++) {
        double d = time_decode(&b, t.n_events, 0);
        warm = d < warm ? d : warm;
    }
    double ev = (double)t.n_events;
    printf("## bench_decode: binary trace format\n\n");
    printf("| metric | value |\n|---|---:|\n");
    printf("| events (game-like, generated) | %zu |\n", t.n_events);
    printf("| encoded bytes | %zu |\n", b.len);
    printf("| bytes/event | %.3f |\n", (double)b.len / ev);
    printf("| encode M events/s (best of 5) | %.1f |\n", ev / enc / 1e6);
    printf("| decode M events/s (best of 5), fresh output memory | %.1f |\n", ev / dec / 1e6);
    printf("| decode M events/s (best of 5), output memory already faulted in | %.1f |\n",
           ev / warm / 1e6);
    printf("| decode + validate M events/s (best of 5) | %.1f |\n", ev / full / 1e6);
    const char *dir = getenv("HR_TRACES_DIR");
    if (dir && *dir)
        report_dir(dir);
    hr_buf_free(&b);
    hr_trace_free(&t);
    return 0;
}
