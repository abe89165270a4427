/* Allocator specs, parsed once. What `replay -a` names (and `--pool
 * NAME=ALLOC` puts in front of it) is text: "glibc", "sizeclass:max=32K,
 * refill=1", "stack:entries=8+block", "preload:/path/x.so", "bank@ui+glibc".
 * hr_alloc_spec_parse() reads it into an hr_alloc_spec_t, and everything
 * after the command line (the job planner, the worker, the engine, the
 * composite backend) reads the fields instead of the text:
 *   text   the spec as the user wrote it (pool routes in front): reports,
 *          progress lines and the worker's command line show it unchanged;
 *   be     the backend that replays it (a composition's composite backend,
 *          whose caps say HR_CAP_COMPOSITE and, when its last part is a
 *          general allocator, HR_CAP_EXTERNAL_PROCESS);
 *   arg    the options after "name:" (NULL: none; a composition has none:
 *          each part has its own);
 *   parts  a composition's components, parsed (compose.h), parts.n == 0 for
 *          a single allocator;
 *   last   the allocator every block not routed elsewhere goes to (be
 *          itself, or a composition's last part): it decides the library
 *          and the native statistics of an external row;
 *   lib    for an external row the library to preload ("" for the C
 *          library; NULL when it was not found at configure time).
 * This file is the one place that reads spec text; the error messages are
 * one line, naming the spec and what was expected. */
#ifndef HR_BACKENDS_SPEC_H
#define HR_BACKENDS_SPEC_H

#include "backends/backend.h"
#include "backends/compose.h"

typedef struct hr_alloc_spec {
    char               *text;  /* as written: malloc'd, or borrowed (owned == 0) */
    int                 owned;
    const hr_backend_t *be;
    const char         *arg;   /* points into text, or NULL */
    hr_compose_spec_t   parts; /* parts.n == 0: not a composition */
    const hr_backend_t *last;
    const char         *lib;   /* external rows only (see above), else NULL */
} hr_alloc_spec_t;

/* Parses one spec ("all" is a list word, not a spec: see
 * hr_alloc_spec_next). 0, or -1 with err set: "unknown allocator 'x' (see
 * 'heapreplay list')", "out of memory", or a composition's own message
 * (compose.h). *out needs hr_alloc_spec_free after 0 only. */
int hr_alloc_spec_parse(const char *text, hr_alloc_spec_t *out, hr_error_t *err);
/* The same without a copy of text, which must outlive the spec: nothing is
 * allocated. For a replay process, where the allocator under test is the
 * process's malloc and must not see the harness's own blocks. */
int hr_alloc_spec_parse_borrowed(const char *text, hr_alloc_spec_t *out, hr_error_t *err);
/* A spec replayed on a backend the table may not hold (unit tests and
 * benches pass their own hr_backend_t): text (borrowed, as above) parsed
 * when it names a built allocator, its backend then replaced by `be`; else
 * `be` with the options after ':'. */
void hr_alloc_spec_bind(const hr_backend_t *be, const char *text, hr_alloc_spec_t *out);
void hr_alloc_spec_free(hr_alloc_spec_t *s);
/* 1 when the allocator frees with the block's size (HR_CAP_NEEDS_SIZE_ON_FREE;
 * a composition when one of its parts does): a program that calls free(p)
 * would keep each block's size itself to use it. */
int hr_alloc_spec_needs_size(const hr_alloc_spec_t *s);

/* --pool routes: pool NAME replayed on ALLOC (an in-house allocator spec or
 * "malloc", hr_alloc_spec_pool_alloc_ok) in front of every -a spec. */
#define HR_POOL_ROUTES_MAX 3 /* a composition has at most 4 parts: 3 pools + the row's */
typedef struct hr_pool_routes {
    int n;
    struct {
        char name[64];  /* the pool */
        char alloc[64]; /* "bank", "bank:round=16", or "malloc" (the default) */
    } r[HR_POOL_ROUTES_MAX];
} hr_pool_routes_t;

/* Whether ALLOC may serve a pool: "malloc", or one of the in-house
 * allocators stack, marker, block, bank, sizeclass with its options (an
 * external allocator is the process's malloc, so it can only be a last
 * part), no '+'. */
int hr_alloc_spec_pool_alloc_ok(const char *alloc);
/* *s with ALLOC@NAME+ in front for every route not to "malloc" (none: a
 * plain copy). The new spec replaces *s (freed). 0, or -1 with err set to
 * the composition's message (e.g. more than 4 parts). */
int hr_alloc_spec_route_pools(hr_alloc_spec_t *s, const hr_pool_routes_t *pr, hr_error_t *err);

/* The -a list: specs separated by commas, a comma ending a spec only when
 * an allocator name (or "all") follows it, so "sizeclass:max=32K,refill=1,
 * glibc" is two specs. Returns the next spec in place (the comma after it
 * overwritten), advancing *cursor; NULL at the end. Empty specs are
 * skipped. */
char *hr_alloc_spec_next(char **cursor);
/* Whether a list word stands for every built allocator ("all"). */
int hr_alloc_spec_is_all(const char *word);

#endif
