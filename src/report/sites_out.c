/* Call sites out (sites.h): the sites table through the emitter, folded
 * stacks for flame-graph tools, and a self-contained SVG flame graph. */
#include "report/sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "replay/route.h"

/* "48", "16..4096 (5 sizes)", "16..4096 (more than 8 sizes)". */
static void sizes_text(const hr_site_t *s, char *buf, size_t cap) {
    if (s->n_sizes <= 1)
        snprintf(buf, cap, "%llu", (unsigned long long)s->min_size);
    else if (s->n_sizes <= HR_SITE_SIZES)
        snprintf(buf, cap, "%llu..%llu (%u sizes)", (unsigned long long)s->min_size,
                 (unsigned long long)s->max_size, s->n_sizes);
    else
        snprintf(buf, cap, "%llu..%llu (more than %d sizes)", (unsigned long long)s->min_size,
                 (unsigned long long)s->max_size, HR_SITE_SIZES);
}

void hr_site_name_short(const char *name, char *buf, size_t cap, size_t width) {
    size_t n = strlen(name);
    if (n <= width || width < 8 || cap <= width) {
        snprintf(buf, cap, "%s", name);
        return;
    }
    size_t tail = (width - 3) / 3, head = width - 3 - tail; /* the function, then "(file:line)" */
    snprintf(buf, cap, "%.*s...%s", (int)head, name, name + n - tail);
}

void hr_sites_emit(const hr_trace_t *t, const hr_sites_t *s, const hr_sites_opts_t *o,
                   hr_emit_t *em) {
    static const char *const cols[] = {">rank", "site", ">allocs", ">bytes", ">peak_live",
                                       "sizes", "lifetime", ">lifetime_share", "advice"};
    char title[160], name[1024], shown[1024], sz[96], adv[64];
    int cut = em->format == HR_EMIT_TEXT || em->format == HR_EMIT_MARKDOWN;
    snprintf(title, sizeof title, "Call sites (%u; %llu blocks, %llu without a stack)", s->n,
             (unsigned long long)s->allocs, (unsigned long long)s->no_stack);
    hr_emit_table_begin(em, title, (int)(sizeof cols / sizeof cols[0]), cols);
    uint32_t rows = o->top && o->top < s->n ? o->top : s->n;
    for (uint32_t k = 0; k < rows; k++) {
        const hr_site_t *v = &s->v[k];
        hr_site_name(t, s, v, name, sizeof name);
        sizes_text(v, sz, sizeof sz);
        hr_site_advice(v, adv, sizeof adv);
        if (cut)
            hr_site_name_short(name, shown, sizeof shown, HR_SITE_NAME_COLS);
        hr_emit_cell_u64(em, k + 1);
        hr_emit_cell_str(em, cut ? shown : name);
        hr_emit_cell_u64(em, v->allocs);
        hr_emit_cell_u64(em, v->bytes);
        hr_emit_cell_u64(em, v->peak_bytes);
        hr_emit_cell_str(em, sz);
        hr_emit_cell_str(em, hr_life_name(v->life_main));
        hr_emit_cell_f64(em, v->allocs ? (double)v->life[v->life_main] / (double)v->allocs : 0,
                         2);
        hr_emit_cell_str(em, adv);
        hr_emit_row_end(em);
    }
    hr_emit_table_end(em);
}

hr_json_t *hr_sites_json(const hr_trace_t *t, const hr_sites_t *s, uint32_t top) {
    hr_json_t *arr = hr_json_new_array();
    char name[1024], sz[96], adv[64];
    uint32_t rows = top && top < s->n ? top : s->n;
    for (uint32_t k = 0; arr && k < rows; k++) {
        const hr_site_t *v = &s->v[k];
        hr_json_t *o = hr_json_new_object();
        if (!o || hr_json_push(arr, o) != 0) {
            hr_json_free(o);
            hr_json_free(arr);
            return NULL;
        }
        hr_site_name(t, s, v, name, sizeof name);
        sizes_text(v, sz, sizeof sz);
        hr_site_advice(v, adv, sizeof adv);
        hr_json_set(o, "site", hr_json_new_str(name));
        hr_json_set(o, "allocs", hr_json_new_u64(v->allocs));
        hr_json_set(o, "bytes", hr_json_new_u64(v->bytes));
        hr_json_set(o, "peak_live", hr_json_new_u64(v->peak_bytes));
        hr_json_set(o, "sizes", hr_json_new_str(sz));
        hr_json_set(o, "lifetime", hr_json_new_str(hr_life_name(v->life_main)));
        hr_json_set(o, "lifetime_share",
                    hr_json_new_num(v->allocs ? (double)v->life[v->life_main] / (double)v->allocs : 0));
        hr_json_set(o, "advice", hr_json_new_str(adv));
    }
    return arr;
}

/* ---- per stack weights ----------------------------------------------------- */

/* Blocks (weight 0) or bytes (1) made at each stack id; n_stacks + 1 entries. */
static uint64_t *stack_weights(const hr_trace_t *t, int weight) {
    uint32_t n = t->stacks ? t->stacks->n_stacks : 0;
    uint64_t *w = calloc((size_t)n + 1, sizeof *w);
    for (size_t i = 0; w && t->site && i < t->n_events; i++)
        if (hr_op_creates_block(t->events[i].op) && t->site[i] <= n)
            w[t->site[i]] += weight ? hr_event_bytes(&t->events[i]) : 1;
    return w;
}

/* A frame's name for folded output: ';' separates frames there. */
static void folded_name(const hr_trace_t *t, uint32_t fi, char *buf, size_t cap) {
    hr_stacks_frame_name(t, fi, 0, buf, cap);
    for (char *p = buf; *p; p++)
        if (*p == ';' || *p == '\n')
            *p = ':';
}

int hr_sites_folded(const hr_trace_t *t, int weight, FILE *f) {
    uint64_t *w = stack_weights(t, weight);
    char name[512];
    if (!w)
        return -1;
    for (uint32_t id = 1; t->stacks && id <= t->stacks->n_stacks; id++) {
        if (!w[id])
            continue;
        uint32_t n;
        const uint32_t *fx = hr_stacks_get(t->stacks, id, &n);
        for (uint32_t k = n; k-- > 0;) {
            folded_name(t, fx[k], name, sizeof name);
            fprintf(f, "%s%s", name, k ? ";" : "");
        }
        fprintf(f, "%s%llu\n", n ? " " : "[no frames] ", (unsigned long long)w[id]);
    }
    free(w);
    return ferror(f) ? -1 : 0;
}

/* ---- flame graph ------------------------------------------------------------ */

typedef struct fpath {
    const uint32_t *fx; /* innermost first */
    uint32_t        n;
    uint64_t        w;
} fpath_t;

static int by_path(const void *a, const void *b) {
    const fpath_t *x = a, *y = b;
    for (uint32_t k = 0; k < x->n && k < y->n; k++) {
        uint32_t fa = x->fx[x->n - 1 - k], fb = y->fx[y->n - 1 - k];
        if (fa != fb)
            return fa < fb ? -1 : 1;
    }
    return x->n < y->n ? -1 : x->n > y->n;
}

#define FLAME_ROW 17
#define FLAME_MAX_DEPTH 64

typedef struct fopen_ {
    uint32_t frame;
    uint64_t x0, w;
} fopen_t;

static void flame_rect(FILE *f, const hr_trace_t *t, const fopen_t *o, int depth, double scale,
                       int rows, uint64_t total) {
    char name[512];
    double x = (double)o->x0 * scale, w = (double)o->w * scale;
    if (w < 0.5)
        return;
    int y = (rows - 1 - depth) * FLAME_ROW;
    unsigned hue = (o->frame * 2654435761u) >> 24;
    hr_stacks_frame_name(t, o->frame, 1, name, sizeof name);
    fprintf(f, "<g><title>");
    hr_emit_put_xml(f, name);
    fprintf(f, " (%.1f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
            "fill=\"rgb(%u,%u,60)\"/>", 100.0 * (double)o->w / (double)(total ? total : 1), x, y,
            w, FLAME_ROW - 1, 200 + hue % 56, 80 + hue % 120);
    if (w > 40) {
        int chars = (int)(w / 7);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + FLAME_ROW - 5);
        if ((int)strlen(name) > chars)
            name[chars > 2 ? chars - 2 : 0] = 0, strcat(name, "..");
        hr_emit_put_xml(f, name);
        fprintf(f, "</text>");
    }
    fprintf(f, "</g>\n");
}

int hr_sites_flame_svg(const hr_trace_t *t, int width, FILE *f) {
    uint32_t ns = t->stacks ? t->stacks->n_stacks : 0, np = 0, rows = 1;
    uint64_t *w = stack_weights(t, 1), total = 0;
    fpath_t *p = w ? malloc(((size_t)ns + 1) * sizeof *p) : NULL;
    if (!p) {
        free(w);
        return -1;
    }
    for (uint32_t id = 1; id <= ns; id++) {
        if (!w[id])
            continue;
        uint32_t n;
        const uint32_t *fx = hr_stacks_get(t->stacks, id, &n);
        if (n > FLAME_MAX_DEPTH) /* keep the outermost frames: drop innermost ones */
            fx += n - FLAME_MAX_DEPTH, n = FLAME_MAX_DEPTH;
        p[np] = (fpath_t){fx, n, w[id]};
        total += w[id];
        rows = p[np].n > rows ? p[np].n : rows;
        np++;
    }
    qsort(p, np, sizeof *p, by_path);
    double scale = total ? (double)width / (double)total : 0;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
            "font-family=\"monospace\" font-size=\"11\" role=\"img\">\n", width,
            rows * FLAME_ROW);
    fopen_t open[FLAME_MAX_DEPTH];
    uint32_t depth = 0;
    uint64_t x = 0;
    for (uint32_t i = 0; i < np; i++) {
        const fpath_t *q = &p[i];
        uint32_t same = 0; /* frames shared with the open ones */
        while (same < depth && same < q->n && open[same].frame == q->fx[q->n - 1 - same])
            same++;
        while (depth > same) {
            depth--;
            flame_rect(f, t, &open[depth], (int)depth, scale, (int)rows, total);
        }
        for (uint32_t k = same; k < q->n; k++)
            open[depth++] = (fopen_t){q->fx[q->n - 1 - k], x, 0};
        for (uint32_t k = 0; k < depth; k++)
            open[k].w += q->w;
        x += q->w;
    }
    while (depth > 0) {
        depth--;
        flame_rect(f, t, &open[depth], (int)depth, scale, (int)rows, total);
    }
    fprintf(f, "</svg>\n");
    free(p);
    free(w);
    return ferror(f) ? -1 : 0;
}
