/* A trace's events as the replay reads them: window by window (engine_int.h,
 * hr_evwin_t): the whole array of a decoded trace in one window, up to
 * HR_EVWIN events of a packed one decoded into harness memory at a time,
 * and the untimed read of every event before the cold lap (prewalk). */
#include <string.h>

#include "base/hmem.h"
#include "replay/engine_int.h"

static volatile uint64_t prewalk_sink; /* the reads must happen */

void hr_events_prewalk_range(const hr_event_t *ev, size_t n) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc += ev[i].size ^ ev[i].id ^ ev[i].aux;
    prewalk_sink = acc;
}

/* Every event read once, window by window (a packed trace's records are
 * decoded, as the lap will decode them). */
void hr_events_prewalk(const hr_trace_t *t) {
    hr_evwin_t w;
    if (hr_evwin_open(&w, t, NULL) != 0)
        return;
    while (hr_evwin_next(&w))
        hr_events_prewalk_range(w.ev, w.n);
    hr_evwin_close(&w);
}

static hr_event_t *spare_win; /* the process's window buffer, when not in use */

int hr_evwin_open(hr_evwin_t *w, const hr_trace_t *t, hr_error_t *err) {
    memset(w, 0, sizeof *w);
    w->t = t;
    if (!t->packed)
        return 0;
    hr_unpack_start(&w->up, t->packed, t->packed_len, (t->flags & HR_TRACEF_TIMESTAMPS) != 0);
    if (spare_win) {
        w->buf = spare_win;
        spare_win = NULL;
    } else if (!(w->buf = hr_hmem_alloc(HR_EVWIN * sizeof *w->buf, HR_HMEM_POPULATE))) {
        hr_error_set(err, "out of memory for an event window");
        return -1;
    }
    w->own = 1;
    return 0;
}

int hr_evwin_open_ts(hr_evwin_t *w, const hr_trace_t *t, hr_error_t *err) {
    if (hr_evwin_open(w, t, err) != 0)
        return -1;
    if (t->packed && (t->flags & HR_TRACEF_TIMESTAMPS) &&
        !(w->tsbuf = hr_hmem_alloc(HR_EVWIN * sizeof *w->tsbuf, HR_HMEM_POPULATE))) {
        hr_evwin_close(w);
        hr_error_set(err, "out of memory for an event window");
        return -1;
    }
    return 0;
}

int hr_evwin_next(hr_evwin_t *w) {
    if (w->done)
        return 0;
    if (!w->t->packed) { /* the whole array, once */
        w->done = 1;
        w->ev = w->t->events;
        w->ts = w->t->ts;
        w->n = w->t->n_events;
        w->base = 0;
        return w->n > 0;
    }
    w->base = w->up.index;
    w->ts = w->tsbuf;
    long k = hr_unpack_next(&w->up, w->buf, w->tsbuf, HR_EVWIN);
    if (k <= 0) {
        w->done = 1;
        return 0;
    }
    w->ev = w->buf;
    w->n = (size_t)k;
    return 1;
}

void hr_evwin_close(hr_evwin_t *w) {
    if (w->tsbuf)
        hr_hmem_free(w->tsbuf, HR_EVWIN * sizeof *w->tsbuf);
    if (w->own) {
        if (!spare_win)
            spare_win = w->buf;
        else
            hr_hmem_free(w->buf, HR_EVWIN * sizeof *w->buf);
    }
    memset(w, 0, sizeof *w);
}

int hr_trace_event_at(const hr_trace_t *t, uint64_t i, hr_event_t *ev) {
    if (i >= t->n_events)
        return -1;
    if (!t->packed) {
        *ev = t->events[i];
        return 0;
    }
    return hr_unpack_at(t->packed, t->packed_len, (t->flags & HR_TRACEF_TIMESTAMPS) != 0, i, ev,
                        NULL);
}
