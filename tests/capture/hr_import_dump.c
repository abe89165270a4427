/* Test driver: imports FILE (capture log, heaptrack file or mtrace log, or a
 * heapreplay trace with --trace) and prints "key value" lines for the shell
 * tests: whole-trace counts, the repair report, and counts restricted to
 * blocks whose requested size is in [--min, --max) (the test programs use
 * distinctive sizes so libc and loader noise is filtered out).
 * With --stacks: the trace's stacks are symbolized (notes on stdout) and each
 * stack that created blocks in range is one line, most blocks first:
 *   stack BLOCKS FUNC@FILE:LINE FUNC@FILE:LINE ...   (innermost first; FILE
 *   without its directory; [inl] after a frame inlined into the next one; a
 *   frame without a name: MODULE+0xOFF, or 0xADDR when no module holds it)
 * Usage: hr_import_dump FILE [--min N] [--max N] [--trace] [--stacks] */
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"
#include "trace/import.h"
#include "trace/stacks.h"
#include "trace/symbols.h"

typedef struct filt {
    uint64_t lo, hi, alloc, calloc, realloc, free, cross, cur, peak;
    uint64_t *live;    /* per id: size in range, else 0 */
    uint16_t *owner;   /* per id: allocating thread */
    uint8_t seen[65536];
    unsigned threads;
} filt_t;

static int in_range(const filt_t *f, uint64_t s) { return s >= f->lo && s < f->hi; }

static void on_new(filt_t *f, const hr_event_t *ev, uint64_t bytes) {
    f->live[ev->id] = in_range(f, bytes) ? bytes : 0;
    f->owner[ev->id] = ev->thread;
    if (f->live[ev->id]) {
        f->cur += bytes;
        if (!f->seen[ev->thread]) {
            f->seen[ev->thread] = 1;
            f->threads++;
        }
    }
}

static void walk(const hr_trace_t *t, filt_t *f) {
    f->live = calloc(t->n_ids + 1, sizeof *f->live);
    f->owner = calloc(t->n_ids + 1, sizeof *f->owner);
    printf("annots");
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        switch (ev->op) {
        case HR_OP_ALLOC:
            on_new(f, ev, ev->size);
            if (f->live[ev->id]) {
                f->alloc++;
                if (ev->align)
                    printf(" align:%u", ev->align);
            }
            break;
        case HR_OP_CALLOC:
            on_new(f, ev, hr_event_bytes(ev));
            f->calloc += f->live[ev->id] != 0;
            break;
        case HR_OP_REALLOC:
            f->cur -= f->live[ev->aux];
            f->live[ev->aux] = 0;
            on_new(f, ev, ev->size);
            f->realloc += f->live[ev->id] != 0;
            break;
        case HR_OP_FREE:
            if (f->live[ev->id]) {
                f->free++;
                f->cross += f->owner[ev->id] != ev->thread;
                f->cur -= f->live[ev->id];
                f->live[ev->id] = 0;
            }
            break;
        case HR_OP_FRAME: printf(" frame:%llu", (unsigned long long)ev->size); break;
        case HR_OP_TOUCHED: break; /* a hint for the replay, counted below (touched) */
        default:
            printf(" %s:%s", hr_op_name(ev->op), t->strings[ev->aux]);
            break;
        }
        if (f->cur > f->peak)
            f->peak = f->cur;
    }
    printf("\n");
    free(f->live);
    free(f->owner);
}

static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void print_frame(const hr_trace_t *t, const hr_frame_t *fr) {
    const hr_stacks_t *s = t->stacks;
    if (fr->func) {
        printf(" %s", t->strings[fr->func - 1]);
        if (fr->file)
            printf("@%s:%u", base_name(t->strings[fr->file - 1]), fr->line);
        if (fr->inl)
            printf("[inl]");
    } else if (fr->module) {
        const hr_module_t *m = &s->modules[fr->module - 1];
        printf(" %s+0x%llx", base_name(m->path), (unsigned long long)(fr->addr - m->base));
    } else {
        printf(" 0x%llx", (unsigned long long)fr->addr);
    }
}

typedef struct stack_count {
    uint64_t n;
    uint32_t id;
} stack_count_t;

static int by_count(const void *a, const void *b) {
    const stack_count_t *x = a, *y = b;
    return x->n != y->n ? (x->n < y->n ? 1 : -1) : (x->id > y->id) - (x->id < y->id);
}

/* The --stacks lines (see the top). */
static void dump_stacks(hr_trace_t *t, const filt_t *f) {
    hr_symbolize_opts_t so = hr_symbolize_default();
    hr_error_t err = {{0}};
    so.notes = stdout;
    if (hr_stacks_symbolize(t, &so, &err) != 0)
        printf("error %s\n", err.msg);
    if (!t->stacks || !t->site) {
        printf("stacks 0\n");
        return;
    }
    uint32_t ns = t->stacks->n_stacks;
    stack_count_t *c = calloc(ns + 1, sizeof *c);
    for (uint32_t i = 0; i <= ns; i++)
        c[i].id = i;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        uint64_t bytes = ev->op == HR_OP_CALLOC ? ev->size * ev->aux : ev->size;
        if (t->site[i] && t->site[i] <= ns && in_range(f, bytes))
            c[t->site[i]].n++;
    }
    qsort(c + 1, ns, sizeof *c, by_count);
    printf("stacks %u\n", ns);
    for (uint32_t k = 1; k <= ns && c[k].n; k++) {
        uint32_t n;
        const uint32_t *ix = hr_stacks_get(t->stacks, c[k].id, &n);
        printf("stack %llu", (unsigned long long)c[k].n);
        for (uint32_t j = 0; j < n; j++)
            print_frame(t, &t->stacks->frames[ix[j]]);
        printf("\n");
    }
    free(c);
}

int main(int argc, char **argv) {
    static filt_t f;
    f.hi = UINT64_MAX;
    const char *path = NULL;
    int as_trace = 0, stacks = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--min") == 0 && i + 1 < argc)
            f.lo = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
            f.hi = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--trace") == 0)
            as_trace = 1;
        else if (strcmp(argv[i], "--stacks") == 0)
            stacks = 1;
        else
            path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: hr_import_dump FILE [--min N] [--max N] [--trace] [--stacks]\n");
        return 2;
    }
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    memset(&r, 0, sizeof r);
    hr_trace_init(&t);
    int rc = as_trace ? hr_trace_read_file(path, HR_FMT_AUTO, &t, &err)
                      : hr_import_file(path, HR_IMPORT_UNKNOWN, &t, &r, &err);
    if (rc != 0) {
        printf("error %s\n", err.msg);
        return 2;
    }
    printf("kind %d\nevents %zu\nthreads %u\npeak %llu\n", as_trace ? 0 : hr_import_detect(path),
           t.n_events, t.n_threads, (unsigned long long)t.peak_live);
    printf("unknown_frees %llu\ndouble_frees %llu\nreuse_inversions %llu\ncross_thread_frees %llu\n"
           "realloc_null %llu\nrealloc_zero %llu\nfailed_allocs %llu\nleaked %llu\n"
           "duplicates %llu\ntruncated %d\n",
           (unsigned long long)r.unknown_frees, (unsigned long long)r.double_frees,
           (unsigned long long)r.reuse_inversions, (unsigned long long)r.cross_thread_frees,
           (unsigned long long)r.realloc_null, (unsigned long long)r.realloc_zero,
           (unsigned long long)r.failed_allocs, (unsigned long long)r.leaked_at_end,
           (unsigned long long)r.duplicates, r.truncated);
    printf("touched %llu\ntouched_unknown %llu\n", (unsigned long long)r.touched,
           (unsigned long long)r.touched_unknown);
    printf("truncation %s\nended %s\n", r.truncated ? r.truncation : "-", r.ended[0] ? r.ended : "-");
    walk(&t, &f);
    printf("f_alloc %llu\nf_calloc %llu\nf_realloc %llu\nf_free %llu\nf_cross %llu\n"
           "f_threads %u\nf_peak %llu\n",
           (unsigned long long)f.alloc, (unsigned long long)f.calloc,
           (unsigned long long)f.realloc, (unsigned long long)f.free,
           (unsigned long long)f.cross, f.threads, (unsigned long long)f.peak);
    if (stacks)
        dump_stacks(&t, &f);
    hr_trace_free(&t);
    return 0;
}
