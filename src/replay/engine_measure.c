/* The measurement lap's bookkeeping (engine.h, HR_MODE_MEASURE): latency,
 * frames and stalls per op, memory after every op, and the report's series
 * (series.h: fixed-size, inside the mmap'd measure_t, never malloc'd).
 * Everything here runs outside the timed region of an op.
 *
 * Stalls. An op during which the thread was switched out (a voluntary or
 * involuntary context switch: preemption by another process, a sleep, a
 * blocking page fault) measures the host, not the allocator. Reading the
 * switch counters around every op would cost a system call per op, so only
 * ops slower than opt->stall_us are checked: getrusage(RUSAGE_THREAD) right
 * after the op, compared with its value at the previous check. A switch
 * between the previous check and the op is attributed to the op too: the
 * slow op is then dropped from the latency histogram and from its frame's
 * time, counted in "stalls", and its frame counted as stalled. Raw figures
 * (stalls included) stay in the result (worst_frame.raw_ns,
 * latency_ns.raw_max). A host stall that does not switch the thread out
 * (a hypervisor descheduling the whole VM) is not seen.
 *
 * Memory sampling. In-house backends report an exact footprint after every
 * op. External allocators are sampled: RSS from /proc/self/statm (one
 * pread) and the allocator's statistics, which for glibc (mallinfo2) walk
 * every free chunk. Samples are driven by time, not op counts: one every
 * HR_SAMPLE_INTERVAL_US, and whenever live bytes grow by 1/16 over the last
 * sampled high, but (past the first HR_GROWTH_SAMPLES) never sooner than
 * HR_SAMPLE_COST_SHARE times the last sample's own cost after it, so
 * sampling costs at most ~1/8 of the lap. */
#include <string.h>

/* Growth-driven samples taken regardless of their cost (64 steps of 1/16
 * cover a 48-fold growth of live bytes). */
#define HR_GROWTH_SAMPLES 64

#include "base/sysinfo.h"
#include "replay/engine_int.h"

static uint64_t usable(const run_t *r, void *p, uint64_t size) {
    return p ? r->be->usable_size(r->inst, p, size) : size;
}

void hr_measure_slop(measure_t *m, const run_t *r, const hr_event_t *ev, int sign) {
    if (!r->be->usable_size)
        return;
    if (sign < 0 && (ev->op == HR_OP_FREE || ev->op == HR_OP_REALLOC)) {
        uint32_t id = ev->op == HR_OP_FREE ? ev->id : ev->aux;
        if (r->slots[id].p)
            m->slop -= (int64_t)(usable(r, r->slots[id].p, r->slots[id].size) - r->slots[id].size);
    } else if (sign > 0 && hr_op_creates_block(ev->op)) {
        if (r->slots[ev->id].p)
            m->slop += (int64_t)(usable(r, r->slots[ev->id].p, r->slots[ev->id].size) - r->slots[ev->id].size);
    }
}

int64_t hr_measure_live_delta(const run_t *r, const hr_event_t *ev) {
    switch (ev->op) {
    case HR_OP_ALLOC:
    case HR_OP_CALLOC:
        return (int64_t)hr_event_bytes(ev);
    case HR_OP_REALLOC:
        return (int64_t)ev->size - (int64_t)r->slots[ev->aux].size;
    case HR_OP_FREE:
        return -(int64_t)r->slots[ev->id].size;
    default:
        return 0;
    }
}

/* 1 when the thread was switched out since the last check (see above). */
static int stalled(measure_t *m, uint64_t d) {
    if (d <= m->stall_thr_cyc)
        return 0;
    uint64_t sw = hr_ctx_switches();
    int s = sw != m->switches;
    m->switches = sw;
    return s;
}

void hr_measure_op(measure_t *m, const hr_event_t *ev, uint64_t d) {
    m->cur_frame = m->frames;
    if (m->pending_set) { /* the previous event's point, right after this op's timing */
        hr_mseries_add_changed(&m->mem, &m->pending, m->pending_nch);
        m->pending_set = 0;
    }
    m->raw_frame_cyc += d;
    if (d > m->raw_max_cyc)
        m->raw_max_cyc = d;
    if (stalled(m, d)) {
        m->stall_ops++;
        m->stall_cyc += d;
        m->frame_stalled = 1;
    } else {
        m->cyc[ev->op] += d;
        m->cnt[ev->op]++;
        m->frame_cyc += d;
        m->op_cyc += d;
        if (hr_op_is_mem(ev->op))
            hr_lat_add(&m->lat, d);
    }
    if (ev->op != HR_OP_FRAME) {
        m->frame_allocs += (uint64_t)hr_op_creates_block(ev->op);
        if (!m->frames) { /* the load */
            m->load_events++;
            if (hr_op_creates_block(ev->op))
                m->load_allocs++, m->load_bytes += hr_event_bytes(ev);
        }
        return;
    }
    m->last_frame_num = ev->size;
    if (m->budget_frame_open) {
        m->budget_fail_frame = ev->size;
        m->budget_frame_open = 0;
    }
    if (!m->frames) {
        /* The first frame op closes the load, not a frame: the load is kept
         * apart (its time, peaks), out of the worst frame and the series. */
        m->load_cyc = m->frame_cyc;
        m->load_peak_live = m->peak_live;
        m->load_peak_fp = m->peak_fp;
        m->load_done = 1;
    } else {
        if (m->frame_cyc > m->worst_frame_cyc) {
            m->worst_frame_cyc = m->frame_cyc;
            m->worst_frame_index = ev->size;
        }
        if (m->raw_frame_cyc > m->raw_worst_frame_cyc)
            m->raw_worst_frame_cyc = m->raw_frame_cyc;
        m->stall_frames += (uint64_t)m->frame_stalled;
        hr_fseries_add(&m->frame_series, m->frame_cyc);
        hr_fseries_add(&m->alloc_series, m->frame_allocs);
    }
    m->frame_allocs = 0;
    m->frame_cyc = m->raw_frame_cyc = 0;
    m->frame_stalled = 0;
    m->frames++;
}

static uint64_t sample_fp(const run_t *r, const hr_extstats_t *ext, const measure_t *m) {
    if (r->be->footprint)
        return r->be->footprint(r->inst);
    if (m->ext_ok)
        return ext->footprint(); /* the whole allocator: the harness holds none of it */
    uint64_t rss = hr_rss_now();
    return rss > m->rss_base ? rss - m->rss_base : 0;
}

/* One external sample: footprint and RSS, and when the next may come. */
static void sample_external(measure_t *m, const run_t *r, const hr_extstats_t *ext,
                            uint64_t now) {
    m->fp = sample_fp(r, ext, m);
    uint64_t rss = hr_rss_now();
    if (rss > m->peak_rss)
        m->peak_rss = rss;
    m->rss = rss > m->rss_base ? rss - m->rss_base : 0;
    uint64_t done = hr_cycles(), cost = done - now;
    uint64_t interval = (uint64_t)(hr_cycle_hz() * HR_SAMPLE_INTERVAL_US / 1e6);
    m->min_gap_cyc = cost * HR_SAMPLE_COST_SHARE;
    m->last_sample_cyc = done;
    m->next_sample_cyc = done + (interval > m->min_gap_cyc ? interval : m->min_gap_cyc);
    m->samples++;
}

static void note_peaks(measure_t *m, const run_t *r, const hr_replay_options_t *opt) {
    if (m->live > m->peak_live) {
        m->peak_live = m->live;
        m->fp_at_peak_live = m->fp;
        m->slop_at_peak_live = m->slop;
    }
    if (m->fp > m->peak_fp) {
        m->peak_fp = m->fp;
        m->live_at_peak_fp = m->live;
    }
    /* With frames, the budget is a play budget: the load's peak is its own
     * figure (load.peak_footprint). */
    int play = m->load_done || !r->t->op_counts[HR_OP_FRAME];
    if (opt->budget && play && !m->have_budget_fail && m->fp > opt->budget) {
        m->have_budget_fail = 1;
        m->budget_fail_at = r->i;
        m->budget_fail_frame = m->last_frame_num + 1; /* until the frame closes */
        m->budget_frame_open = 1;
        m->budget_fail_heap = r->top;
    }
}

/* The memory series' point of the current event (series.h): only noted
 * here, just before the next op's timing starts; hr_measure_op adds it to
 * the series just after that op's timing ends, so the downsampler's work
 * stays as far as possible from both ends of a timed op. */
static void series_point(measure_t *m, const run_t *r) {
    m->pending.event = r->i;
    m->pending.v[0] = m->live;
    m->pending.v[1] = m->fp;
    m->pending.v[2] = m->rss;
    m->pending_set = 1;
    /* sampled channels (external) changed only if a sample was taken */
    m->pending_nch = m->rss_sampled && m->samples == m->point_samples ? 1 : HR_SERIES_CHANNELS;
    m->point_samples = m->samples;
}

void hr_measure_track(measure_t *m, const run_t *r, const hr_extstats_t *ext,
                      const hr_replay_options_t *opt, uint64_t now) {
    if (r->be->footprint) {
        m->fp = r->be->footprint(r->inst);
    } else {
        /* A new live high, 1/16 above the last sampled one, is sampled too
         * (always for the first HR_GROWTH_SAMPLES, then within the cost
         * bound), so the peak is not missed between time-driven samples. */
        int grow = m->live > m->next_live_sample &&
                   (m->samples < HR_GROWTH_SAMPLES || now - m->last_sample_cyc >= m->min_gap_cyc);
        if (grow)
            m->next_live_sample = m->live + m->live / 16;
        if (grow || now >= m->next_sample_cyc)
            sample_external(m, r, ext, now);
    }
    note_peaks(m, r, opt);
    /* the last event's point waits for the final sample (hr_measure_end) */
    if (r->i + 1 < r->t->n_events)
        series_point(m, r);
}

void hr_measure_begin(measure_t *m, run_t *r, const hr_extstats_t *ext,
                      const hr_replay_options_t *opt) {
    /* Baseline: the slot table (faulted in by hr_run_open) is resident. */
    hr_rss_peak_reset();
    m->rss_base = hr_rss_now();
    m->peak_rss = m->rss_base;
    m->ext_ok = ext && ext->footprint; /* 0 is a valid figure: a fresh heap */
    m->stall_thr_cyc = (uint64_t)(hr_cycle_hz() * opt->stall_us / 1e6);
    m->rss_sampled = !r->be->footprint;
    hr_mseries_init(&m->mem, m->rss_sampled ? 3 : 2, r->t->n_events);
    uint64_t fr = r->t->op_counts[HR_OP_FRAME];
    hr_fseries_init(&m->frame_series, fr ? fr - 1 : 0); /* the first closes the load */
    hr_fseries_init(&m->alloc_series, fr ? fr - 1 : 0);
    m->switches = hr_ctx_switches();
    if (r->be->footprint)
        m->fp = r->be->footprint(r->inst);
    else
        sample_external(m, r, ext, hr_cycles());
    note_peaks(m, r, opt);
}

void hr_measure_end(measure_t *m, run_t *r, const hr_extstats_t *ext,
                    const hr_replay_options_t *opt) {
    if (!r->be->footprint)
        sample_external(m, r, ext, hr_cycles());
    note_peaks(m, r, opt);
    if (m->pending_set)
        hr_mseries_add(&m->mem, &m->pending);
    if (r->t->n_events) {
        r->i = r->t->n_events - 1;
        series_point(m, r);
        hr_mseries_add(&m->mem, &m->pending);
    }
    hr_mseries_finish(&m->mem);
    uint64_t hwm = hr_rss_peak();
    if (hwm > m->peak_rss)
        m->peak_rss = hwm;
    m->failed = r->failed;
    m->first_failed = r->first_failed;
}
