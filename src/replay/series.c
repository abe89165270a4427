/* Bounded series of the measurement lap (see series.h). */
#include "replay/series.h"

#include <string.h>

/* ---- memory: per-bucket extremes ------------------------------------------ */

void hr_mseries_init(hr_mseries_t *s, unsigned nch, uint64_t expect_events) {
    memset(s->n, 0, sizeof s->n);
    s->nch = nch < 1 ? 1 : nch > HR_SERIES_CHANNELS ? HR_SERIES_CHANNELS : nch;
    s->nb = HR_SERIES_MAX_POINTS / (2 * s->nch);
    s->width = expect_events > s->nb ? (expect_events + s->nb - 1) / s->nb : 1;
    s->cur = 0;
    s->next = 0; /* the first point opens its bucket */
    s->n_out = 0;
    s->done = 0;
}

static hr_spoint_t *bucket(hr_mseries_t *s, size_t k) { return &s->slot[k * 2 * s->nch]; }

/* Folds bucket `src` into bucket `dst` (dst holds earlier events): per
 * channel the larger maximum and the smaller minimum, the earlier on ties. */
static void fold(hr_mseries_t *s, size_t dst, size_t src) {
    hr_spoint_t *d = bucket(s, dst), *b = bucket(s, src);
    if (!s->n[src])
        return;
    if (!s->n[dst]) {
        memcpy(d, b, 2 * s->nch * sizeof *d);
    } else {
        for (unsigned c = 0; c < s->nch; c++) {
            if (b[2 * c].v[c] > d[2 * c].v[c])
                d[2 * c] = b[2 * c];
            if (b[2 * c + 1].v[c] < d[2 * c + 1].v[c])
                d[2 * c + 1] = b[2 * c + 1];
        }
    }
    s->n[dst] += s->n[src];
}

/* Buckets 2j and 2j+1 become bucket j; the width doubles. */
static void halve(hr_mseries_t *s) {
    for (size_t j = 0; j < (s->nb + 1) / 2; j++) {
        if (j != 2 * j) {
            s->n[j] = 0;
            fold(s, j, 2 * j);
        }
        if (2 * j + 1 < s->nb)
            fold(s, j, 2 * j + 1);
    }
    for (size_t j = (s->nb + 1) / 2; j < s->nb; j++)
        s->n[j] = 0;
    s->width *= 2;
    s->cur /= 2;
    s->next = (s->cur + 1) * s->width;
}

/* The point opens a bucket (the buckets merge first when it lies past the
 * last one): it is every slot of it. Events below s->next of the current
 * bucket go the inline path (series.h). */
void hr_mseries_next_bucket(hr_mseries_t *s, const hr_spoint_t *p) {
    while (p->event / s->width >= s->nb)
        halve(s);
    s->cur = p->event / s->width;
    s->next = (s->cur + 1) * s->width;
    hr_spoint_t *b = bucket(s, (size_t)s->cur);
    if (!s->n[s->cur]++) {
        for (unsigned i = 0; i < 2 * s->nch; i++)
            b[i] = *p;
        return;
    }
    for (unsigned c = 0; c < s->nch; c++) {
        if (p->v[c] > b[2 * c].v[c])
            b[2 * c] = *p;
        if (p->v[c] < b[2 * c + 1].v[c])
            b[2 * c + 1] = *p;
    }
}

size_t hr_mseries_finish(hr_mseries_t *s) {
    if (s->done)
        return s->n_out;
    size_t w = 0;
    for (size_t k = 0; k < s->nb; k++) {
        if (!s->n[k])
            continue;
        /* the bucket's distinct points in event order (at most 2 * nch: an
         * insertion sort); w never passes the bucket being read */
        hr_spoint_t tmp[2 * HR_SERIES_CHANNELS];
        size_t m = 0;
        const hr_spoint_t *b = bucket(s, k);
        for (unsigned i = 0; i < 2 * s->nch; i++) {
            size_t j = m;
            int dup = 0;
            for (size_t q = 0; q < m; q++)
                dup |= tmp[q].event == b[i].event;
            if (dup)
                continue;
            while (j > 0 && tmp[j - 1].event > b[i].event) {
                tmp[j] = tmp[j - 1];
                j--;
            }
            tmp[j] = b[i];
            m++;
        }
        memcpy(&s->slot[w], tmp, m * sizeof tmp[0]);
        w += m;
    }
    s->n_out = w;
    s->done = 1;
    return w;
}

/* ---- frames: fixed groups of frames ---------------------------------------- */

void hr_fseries_init(hr_fseries_t *s, uint64_t expect_frames) {
    s->count = 0;
    s->per = expect_frames > HR_SERIES_MAX_POINTS
                 ? (expect_frames + HR_SERIES_MAX_POINTS - 1) / HR_SERIES_MAX_POINTS
                 : 1;
}

void hr_fseries_add(hr_fseries_t *s, uint64_t v) {
    if (s->count / s->per >= HR_SERIES_MAX_POINTS) {
        for (size_t j = 0; j < HR_SERIES_MAX_POINTS / 2; j++) {
            uint64_t a = 2 * j, b = 2 * j + 1;
            s->sum[j] = s->sum[a] + s->sum[b];
            s->min[j] = s->min[a] < s->min[b] ? s->min[a] : s->min[b];
            s->max[j] = s->max[a] > s->max[b] ? s->max[a] : s->max[b];
        }
        s->per *= 2;
    }
    size_t k = (size_t)(s->count / s->per);
    if (s->count % s->per == 0) {
        s->sum[k] = s->min[k] = s->max[k] = v;
    } else {
        s->sum[k] += v;
        if (v < s->min[k])
            s->min[k] = v;
        if (v > s->max[k])
            s->max[k] = v;
    }
    s->count++;
}

size_t hr_fseries_points(const hr_fseries_t *s) {
    return (size_t)((s->count + s->per - 1) / s->per);
}

uint64_t hr_fseries_n(const hr_fseries_t *s, size_t j) {
    uint64_t first = (uint64_t)j * s->per;
    if (first >= s->count)
        return 0;
    return s->count - first < s->per ? s->count - first : s->per;
}
