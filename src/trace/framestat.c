/* Per-frame figures of a trace (framestat.h): one walk for the per-frame
 * counts and the load, the lifetime classes (lifetime.h) for the shares. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/framestat.h"
#include "base/order.h"
#include "trace/lifetime.h"

/* Per play frame: blocks made, their bytes, the frame's number. */
typedef struct fcounts {
    uint64_t *allocs, *bytes, *num;
    size_t    n;
} fcounts_t;

/* Mean, nearest-rank p99 and max (the first frame holding it) of v[0..n);
 * sorts a copy in `tmp`. */
static void dist(const uint64_t *v, const uint64_t *num, size_t n, uint64_t *tmp,
                 hr_frame_dist_t *d) {
    memset(d, 0, sizeof *d);
    if (!n)
        return;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += (double)v[i];
        if (v[i] > d->max || i == 0)
            d->max = v[i], d->max_frame = num[i];
    }
    d->mean = sum / (double)n;
    memcpy(tmp, v, n * sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, hr_cmp_u64);
    size_t rank = (size_t)ceil(0.99 * (double)n);
    d->p99 = (double)tmp[rank ? rank - 1 : 0];
}

/* The walk: the load's figures until the first frame mark, then one entry
 * per closing mark. */
static void count_frames(const hr_trace_t *t, fcounts_t *fc, hr_framestat_t *fs) {
    uint64_t *bytes = calloc(t->n_ids ? t->n_ids : 1, sizeof *bytes); /* load: live per id */
    uint64_t live = 0, a = 0, b = 0;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (hr_event_is_main_frame(ev)) {
            if (fs->count++ > 0) {
                fc->allocs[fc->n] = a, fc->bytes[fc->n] = b, fc->num[fc->n] = ev->size;
                fc->n++;
            }
            a = b = 0;
            continue;
        }
        if (fs->count == 0)
            fs->load_events++;
        if (fs->count == 0 && bytes) { /* the load's live bytes */
            if (ev->op == HR_OP_FREE || ev->op == HR_OP_POOL_FREE)
                live -= bytes[ev->id];
            else if (ev->op == HR_OP_REALLOC || ev->op == HR_OP_POOL_REALLOC)
                live -= bytes[ev->aux];
            if (hr_op_creates_block(ev->op))
                live += bytes[ev->id] = hr_event_bytes(ev);
            if (live > fs->load_peak_live)
                fs->load_peak_live = live;
        }
        if (hr_op_creates_block(ev->op)) {
            a++, b += hr_event_bytes(ev);
            if (fs->count == 0)
                fs->load_allocs++, fs->load_bytes += hr_event_bytes(ev);
        }
    }
    free(bytes);
}

/* The shares of the blocks made after the load, by lifetime class. */
static void shares(const hr_life_t *life, size_t n, hr_framestat_t *fs) {
    uint64_t by[HR_LIFE__COUNT] = {0}, all = 0;
    for (size_t i = 0; i < n; i++)
        if (life[i].cls < HR_LIFE__COUNT && life[i].alloc_frame > 0)
            by[life[i].cls]++, all++;
    double d = all ? (double)all : NAN;
    fs->freed_same = (double)(by[HR_LIFE_SAME_LIFO] + by[HR_LIFE_SAME]) / d;
    fs->freed_next = (double)by[HR_LIFE_NEXT] / d;
    fs->freed_later = (double)(by[HR_LIFE_PHASE] + by[HR_LIFE_LONG]) / d;
    fs->freed_never = (double)by[HR_LIFE_LEAKED] / d;
}

int hr_framestat_compute(const hr_trace_t *t, hr_framestat_t *out, hr_error_t *err) {
    memset(out, 0, sizeof *out);
    if (!t->events && t->n_events) {
        hr_error_set(err, "frame figures: the trace's events are not in memory (packed form)");
        return -1;
    }
    uint64_t frames = t->op_counts[HR_OP_FRAME]; /* named streams too: an upper bound */
    if (!frames)
        return 0;
    fcounts_t fc = {0};
    fc.allocs = malloc(frames * sizeof *fc.allocs);
    fc.bytes = malloc(frames * sizeof *fc.bytes);
    fc.num = malloc(frames * sizeof *fc.num);
    uint64_t *tmp = malloc(frames * sizeof *tmp);
    hr_life_t *life = malloc((t->n_events ? t->n_events : 1) * sizeof *life);
    int rc = -1;
    if (fc.allocs && fc.bytes && fc.num && tmp && life &&
        hr_lifetime_compute(t, life, err) == 0) {
        count_frames(t, &fc, out);
        out->play_count = fc.n;
        dist(fc.allocs, fc.num, fc.n, tmp, &out->allocs);
        dist(fc.bytes, fc.num, fc.n, tmp, &out->bytes);
        shares(life, t->n_events, out);
        rc = out->count ? 1 : 0;
        if (!rc)
            memset(out, 0, sizeof *out);
    } else if (life) {
        hr_error_set(err, "frame figures: out of memory");
    }
    free(fc.allocs), free(fc.bytes), free(fc.num), free(tmp), free(life);
    return rc;
}

static int set_u64(hr_json_t *o, const char *k, uint64_t v) {
    return hr_json_set(o, k, hr_json_new_u64(v));
}

static int set_num(hr_json_t *o, const char *k, double v) {
    return hr_json_set(o, k, hr_json_new_num(v));
}

hr_json_t *hr_framestat_json(const hr_framestat_t *fs) {
    hr_json_t *o = hr_json_new_object();
    if (!o)
        return NULL;
    int bad = set_u64(o, "count", fs->count) | set_u64(o, "play_count", fs->play_count) |
              set_num(o, "allocs_mean", fs->allocs.mean) | set_num(o, "allocs_p99", fs->allocs.p99) |
              set_u64(o, "allocs_max", fs->allocs.max) |
              set_u64(o, "allocs_max_frame", fs->allocs.max_frame) |
              set_num(o, "bytes_mean", fs->bytes.mean) | set_num(o, "bytes_p99", fs->bytes.p99) |
              set_u64(o, "bytes_max", fs->bytes.max) |
              set_u64(o, "bytes_max_frame", fs->bytes.max_frame) |
              set_num(o, "freed_same", fs->freed_same) | set_num(o, "freed_next", fs->freed_next) |
              set_num(o, "freed_later", fs->freed_later) | set_num(o, "freed_never", fs->freed_never);
    if (bad) {
        hr_json_free(o);
        return NULL;
    }
    return o;
}
