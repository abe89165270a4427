/* Allocator specs (spec.h): the one reader of -a and --pool text. Backend
 * lookup by name, compositions (compose.h: parts, their rules), the -a list
 * splitter and the pool routes all live here, so that a spec is read once,
 * on the command line or in the worker that receives it, and the rest of
 * the program works on the parsed hr_alloc_spec_t. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/be_system.h"
#include "backends/spec.h"

/* ---- names ----------------------------------------------------------------- */

int hr_spec_is(const char *spec, const char *name) {
    size_t len = strcspn(spec, ":");
    return strlen(name) == len && strncmp(name, spec, len) == 0;
}

/* "name" or "name:arg" of the table (no composition). */
static const hr_backend_t *find_single(const char *spec) {
    for (size_t i = 0; hr_backends[i]; i++)
        if (hr_spec_is(spec, hr_backends[i]->name))
            return hr_backends[i];
    return NULL;
}

int hr_compose_is(const char *spec) { return spec && strchr(spec, '+') != NULL; }

const hr_backend_t *hr_backend_find(const char *spec) {
    if (!hr_compose_is(spec))
        return find_single(spec);
    hr_compose_spec_t cs;
    hr_error_t err;
    return hr_compose_parse(spec, &cs, &err) == 0 ? hr_compose_backend(&cs) : NULL;
}

/* ---- compositions ------------------------------------------------------------ */

/* The rule of a part (compose.h). */
static void part_rule(hr_compose_part_t *p) {
    const char *name = p->be->name, *e = strstr(p->spec, "entries=");
    p->take = HR_TAKE_ALL;
    if (strcmp(name, "stack") == 0) {
        p->take = HR_TAKE_LIFO_TEMP;
        p->entries = e ? (uint32_t)strtoul(e + 8, NULL, 10) : 32;
    } else if (strcmp(name, "marker") == 0) {
        p->take = HR_TAKE_FRAME;
    } else if (strcmp(name, "block") == 0) {
        p->take = HR_TAKE_SIZE, p->max_size = 640;
    } else if (strcmp(name, "sizeclass") == 0) {
        p->take = HR_TAKE_SIZE, p->max_size = 128;
    } else if (strcmp(name, "bank") == 0) {
        p->take = HR_TAKE_SIZE, p->max_size = 4096; /* its largest default cell */
    }
}

/* One part, len bytes at s: its text, pool, backend, options and rule. */
static int parse_part(const char *spec, const char *s, size_t len, hr_compose_part_t *p,
                      hr_error_t *err) {
    memcpy(p->spec, s, len);
    p->spec[len] = '\0';
    char *at = strchr(p->spec, '@'); /* PART@POOL */
    if (at && (!at[1] || strlen(at + 1) >= sizeof p->pool)) {
        hr_error_set(err, "composition '%s': '%s': expected PART@POOL with a pool name of at "
                     "most %zu bytes", spec, p->spec, sizeof p->pool - 1);
        return -1;
    }
    if (at) {
        snprintf(p->pool, sizeof p->pool, "%s", at + 1);
        *at = '\0';
    }
    p->be = find_single(p->spec);
    if (!p->be || (p->be->caps & (HR_CAP_TEST_ONLY | HR_CAP_COMPOSITE))) {
        hr_error_set(err, "composition '%s': unknown allocator '%s' (see 'heapreplay list')",
                     spec, p->spec);
        return -1;
    }
    const char *colon = strchr(p->spec, ':');
    p->arg_at = colon ? (uint8_t)(colon + 1 - p->spec) : 0;
    part_rule(p);
    if (p->pool[0])
        p->take = HR_TAKE_POOL;
    return 0;
}

int hr_compose_parse(const char *spec, hr_compose_spec_t *out, hr_error_t *err) {
    memset(out, 0, sizeof *out);
    const char *s = spec;
    for (;;) {
        size_t len = strcspn(s, "+");
        if (out->n == HR_COMPOSE_MAX_PARTS || len == 0 || len >= sizeof out->part[0].spec) {
            hr_error_set(err, "composition '%s': %s", spec,
                         len == 0 ? "an empty part" : out->n == HR_COMPOSE_MAX_PARTS
                             ? "at most 4 parts" : "a part spec is too long");
            return -1;
        }
        if (parse_part(spec, s, len, &out->part[out->n++], err) != 0)
            return -1;
        if (!s[len])
            break;
        s += len + 1;
    }
    for (int i = 0; i + 1 < out->n; i++)
        if (out->part[i].take == HR_TAKE_ALL) {
            hr_error_set(err, "composition '%s': '%s' takes every block, so it must be the last "
                         "part (parts are tried in order)", spec, out->part[i].spec);
            return -1;
        }
    if (out->n < 2) {
        hr_error_set(err, "composition '%s': at least two parts joined by '+'", spec);
        return -1;
    }
    return 0;
}

/* ---- whole specs ------------------------------------------------------------- */

/* arg, last and lib from text, be and parts. */
static void spec_fill(hr_alloc_spec_t *s) {
    const char *part = s->text; /* the last part's text (the whole spec when single) */
    if (s->parts.n) {
        part = strrchr(s->text, '+') + 1;
        s->last = s->parts.part[s->parts.n - 1].be;
    } else {
        const char *colon = strchr(s->text, ':');
        s->arg = colon ? colon + 1 : NULL;
        s->last = s->be;
    }
    s->lib = NULL;
    if (!(s->be->caps & HR_CAP_EXTERNAL_PROCESS))
        return;
    if (strcmp(s->last->name, "preload") == 0) { /* preload:PATH */
        const char *colon = strchr(part, ':');
        s->lib = colon && colon[1] ? colon + 1 : NULL;
    } else {
        s->lib = hr_external_lib(s->last->name);
    }
}

static int spec_parse(const char *text, int copy, hr_alloc_spec_t *out, hr_error_t *err) {
    memset(out, 0, sizeof *out);
    if (hr_compose_is(text)) {
        if (hr_compose_parse(text, &out->parts, err) != 0)
            return -1;
        out->be = hr_compose_backend(&out->parts);
    } else if (!(out->be = find_single(text))) {
        hr_error_set(err, "unknown allocator '%s' (see 'heapreplay list')", text);
        return -1;
    }
    out->text = copy ? strdup(text) : (char *)text;
    if (!out->text) {
        hr_error_set(err, "out of memory");
        return -1;
    }
    out->owned = copy;
    spec_fill(out);
    return 0;
}

int hr_alloc_spec_parse(const char *text, hr_alloc_spec_t *out, hr_error_t *err) {
    return spec_parse(text, 1, out, err);
}

int hr_alloc_spec_parse_borrowed(const char *text, hr_alloc_spec_t *out, hr_error_t *err) {
    return spec_parse(text, 0, out, err);
}

void hr_alloc_spec_bind(const hr_backend_t *be, const char *text, hr_alloc_spec_t *out) {
    hr_error_t err;
    if (spec_parse(text, 0, out, &err) != 0) {
        memset(out, 0, sizeof *out);
        out->text = (char *)text;
    }
    if (out->be != be) { /* the caller's backend replays it */
        memset(&out->parts, 0, sizeof out->parts);
        out->be = be;
    }
    spec_fill(out);
}

void hr_alloc_spec_free(hr_alloc_spec_t *s) {
    if (s->owned)
        free(s->text);
    memset(s, 0, sizeof *s);
}

/* ---- pool routes ------------------------------------------------------------- */

int hr_alloc_spec_pool_alloc_ok(const char *alloc) {
    static const char *const pool_allocs[] = {"stack", "marker", "block", "bank", "sizeclass", NULL};
    int known = strcmp(alloc, "malloc") == 0;
    for (int i = 0; pool_allocs[i] && !known; i++)
        known = hr_spec_is(alloc, pool_allocs[i]);
    return known && !strchr(alloc, '+');
}

int hr_alloc_spec_route_pools(hr_alloc_spec_t *s, const hr_pool_routes_t *pr, hr_error_t *err) {
    char prefix[HR_POOL_ROUTES_MAX * 136] = "";
    for (int i = 0; i < pr->n; i++)
        if (strcmp(pr->r[i].alloc, "malloc") != 0)
            snprintf(prefix + strlen(prefix), sizeof prefix - strlen(prefix), "%s@%s+",
                     pr->r[i].alloc, pr->r[i].name);
    if (!prefix[0])
        return 0;
    size_t len = strlen(prefix) + strlen(s->text) + 1;
    char *text = malloc(len);
    hr_alloc_spec_t routed;
    if (!text) {
        hr_error_set(err, "out of memory");
        return -1;
    }
    snprintf(text, len, "%s%s", prefix, s->text);
    int rc = hr_alloc_spec_parse(text, &routed, err);
    free(text);
    if (rc != 0)
        return -1;
    hr_alloc_spec_free(s);
    *s = routed;
    return 0;
}

/* ---- the -a list ------------------------------------------------------------- */

int hr_alloc_spec_needs_size(const hr_alloc_spec_t *s) {
    if (!s->parts.n)
        return s->be && (s->be->caps & HR_CAP_NEEDS_SIZE_ON_FREE);
    for (int i = 0; i < s->parts.n; i++)
        if (s->parts.part[i].be && (s->parts.part[i].be->caps & HR_CAP_NEEDS_SIZE_ON_FREE))
            return 1;
    return 0;
}

int hr_alloc_spec_is_all(const char *word) { return strcmp(word, "all") == 0; }

/* Does a spec start at s? "all", or a backend's name followed by the end of
 * its name (':', '+', ',' or the end), not by '=' (an option). */
static int starts_spec(const char *s) {
    size_t n = strcspn(s, ":+,=");
    if (s[n] == '=')
        return 0;
    if (n == 3 && strncmp(s, "all", 3) == 0)
        return 1;
    for (size_t i = 0; hr_backends[i]; i++)
        if (strlen(hr_backends[i]->name) == n && strncmp(hr_backends[i]->name, s, n) == 0)
            return 1;
    return 0;
}

char *hr_alloc_spec_next(char **cursor) {
    char *p = *cursor;
    while (p && *p == ',')
        p++;
    if (!p || !*p)
        return NULL;
    char *tok = p;
    for (;;) {
        char *c = strchr(p, ',');
        if (!c) {
            *cursor = NULL;
            return tok;
        }
        if (c[1] == ',' || c[1] == 0 || starts_spec(c + 1)) {
            *c = 0;
            *cursor = c + 1;
            return tok;
        }
        p = c + 1;
    }
}
