/* Call sites of a trace with stacks (docs/SITES.md): where its blocks were
 * allocated, grouped into sites, with what each site's blocks did (count,
 * bytes, share of the peak, lifetime classes, sizes) and a recommendation
 * of the in-house allocator that could serve them (replay/route.h's
 * routes). `heapreplay sites` prints them; `heapreplay plan` turns the
 * recommendations into a routing plan. */
#ifndef HR_REPORT_SITES_H
#define HR_REPORT_SITES_H

#include <stdint.h>

#include "base/emit.h"
#include "base/error.h"
#include "trace/lifetime.h"
#include "trace/stacks.h"

typedef struct hr_sites_opts {
    uint32_t    depth; /* frames per site after the wrappers (default 1) */
    const char *skip;  /* wrapper patterns, comma-separated; NULL: HR_ROUTE_SKIP_DEFAULT */
    uint32_t    top;   /* rows printed (0: all) */
    int         sort;  /* HR_SITES_BY_* */
} hr_sites_opts_t;

enum { HR_SITES_BY_ALLOCS, HR_SITES_BY_BYTES, HR_SITES_BY_PEAK };

hr_sites_opts_t hr_sites_opts_default(void);

#define HR_SITE_SIZES 8 /* distinct sizes remembered per site */

typedef struct hr_site {
    uint32_t key;        /* its frames: stack `key` of hr_sites_t.keys (frame indices of t) */
    uint64_t allocs;     /* blocks made (alloc, calloc, realloc's new block, palloc, prealloc) */
    uint64_t bytes;      /* their requested bytes */
    uint64_t peak_bytes; /* its live bytes at the trace's peak of live bytes */
    uint64_t min_size, max_size;
    uint64_t sizes[HR_SITE_SIZES];
    uint32_t n_sizes;    /* distinct sizes, HR_SITE_SIZES + 1 when more */
    uint64_t life[HR_LIFE__COUNT];
    uint64_t in_load;    /* blocks made before the first frame */
    uint8_t  route;      /* the recommendation: replay/route.h's HR_ROUTE_* */
    uint8_t  life_main;  /* the most common lifetime class */
} hr_site_t;

typedef struct hr_sites {
    hr_site_t   *v;         /* sorted as the options ask */
    uint32_t     n;
    hr_stacks_t *keys;      /* the sites' frame lists */
    uint32_t    *of_stack;  /* trace stack id -> site index + 1 (0: none) */
    uint64_t     allocs, bytes, peak; /* of the whole trace (peak: requested live bytes) */
    uint64_t     no_stack;  /* blocks made without a stack */
} hr_sites_t;

/* The sites of t (which must have stacks: else an error saying so).
 * 0, or -1 with err. */
int hr_sites_compute(const hr_trace_t *t, const hr_sites_opts_t *o, hr_sites_t *out,
                     hr_error_t *err);
void hr_sites_free(hr_sites_t *s);

/* A site's frames as printed: "f (file:line) < caller (file:line)" (cut to cap). */
void hr_site_name(const hr_trace_t *t, const hr_sites_t *s, const hr_site_t *site, char *buf,
                  size_t cap);
/* A site name for a reading table (text, Markdown): at most `width` columns,
 * its start (the function) and its end (the file:line) kept around "...";
 * JSON, CSV and HTML keep the whole name. */
#define HR_SITE_NAME_COLS 60
void hr_site_name_short(const char *name, char *buf, size_t cap, size_t width);
/* The recommendation in words: "frame stack", "pool of 48 B cells", ... */
void hr_site_advice(const hr_site_t *site, char *buf, size_t cap);

/* The sites table (text, CSV, Markdown, JSON or HTML through the emitter). */
void hr_sites_emit(const hr_trace_t *t, const hr_sites_t *s, const hr_sites_opts_t *o,
                   hr_emit_t *em);

/* The top `top` sites (0: all) as a JSON array of {"site", "allocs",
 * "bytes", "peak_live", "sizes", "lifetime", "lifetime_share", "advice"}
 * (a replay row's "sites"); NULL on out of memory. */
struct hr_json;
struct hr_json *hr_sites_json(const hr_trace_t *t, const hr_sites_t *s, uint32_t top);

/* Folded stacks ("outer;...;inner WEIGHT" per stack, outermost first, as
 * flamegraph.pl and speedscope read): weight 0 = blocks, 1 = bytes. 0, or
 * -1 on a write error. */
int hr_sites_folded(const hr_trace_t *t, int weight, FILE *f);

/* A self-contained SVG flame graph of the stacks (no script), weighted by
 * bytes; `width` in pixels. 0, or -1 on a write error. */
int hr_sites_flame_svg(const hr_trace_t *t, int width, FILE *f);

#endif
