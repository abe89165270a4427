/* Routing plans by call site: the plan file, matching stacks to rules, and
 * routing a trace's blocks into the in-house allocators' pools (route.h). */
#include "replay/route.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "trace/format.h"
#include "trace/lifetime.h"
#include "trace/stacks.h"

static const char *const route_names[HR_ROUTE__COUNT] = {"frame-stack", "pool", "level",
                                                         "general"};

const char *hr_route_name(unsigned route) {
    return route < HR_ROUTE__COUNT ? route_names[route] : "?";
}

int hr_route_glob(const char *p, const char *s) {
    const char *star = NULL, *back = NULL;
    while (*s) {
        if (*p == '*') {
            star = p++;
            back = s;
        } else if (*p == *s) {
            p++, s++;
        } else if (star) {
            p = star + 1;
            s = ++back;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == 0;
}

/* Where a C++ function's argument list starts: the first '(' outside <...>
 * and {...} (template arguments, lambdas) that is not operator()'s own; -1 when
 * none (a C name). */
static long args_start(const char *name) {
    int depth = 0;
    for (const char *c = name; *c; c++) {
        if (*c == '<' || *c == '{')
            depth++;
        else if ((*c == '>' || *c == '}') && depth > 0)
            depth--;
        else if (*c == '(' && !depth) {
            if (c - name >= 8 && strncmp(c - 8, "operator", 8) == 0 && c[1] == ')')
                c++; /* operator()'s name, its arguments follow */
            else
                return (long)(c - name);
        }
    }
    return -1;
}

void hr_route_pattern_of(const char *func, char *buf, size_t cap) {
    long at = args_start(func);
    if (at < 0 || (size_t)at + 2 > cap)
        snprintf(buf, cap, "%s", func);
    else
        snprintf(buf, cap, "%.*s*", (int)at, func);
}

int hr_route_skipped(const char *list, const char *name) {
    char pat[256];
    for (const char *s = list; s && *s;) {
        size_t n = strcspn(s, ",");
        if (n && n < sizeof pat) {
            memcpy(pat, s, n);
            pat[n] = 0;
            if (hr_route_glob(pat, name))
                return 1;
        }
        s += n + (s[n] == ',');
    }
    return 0;
}

void hr_route_plan_init(hr_route_plan_file_t *p) {
    memset(p, 0, sizeof *p);
    p->stack_bytes = 1u << 20;
    p->stack_entries = 4096;
    p->level_bytes = 16u << 20;
}

void hr_route_plan_free(hr_route_plan_file_t *p) {
    for (uint32_t i = 0; i < p->n; i++)
        free(p->rules[i].pattern);
    free(p->rules);
    free(p->skip);
    memset(p, 0, sizeof *p);
}

int hr_route_plan_add(hr_route_plan_file_t *p, unsigned route, uint64_t cell, const char *pattern) {
    if (p->n == p->cap) {
        uint32_t cap = p->cap ? p->cap * 2 : 16;
        hr_route_rule_t *r = realloc(p->rules, cap * sizeof *r);
        if (!r)
            return -1;
        p->rules = r;
        p->cap = cap;
    }
    hr_route_rule_t *r = &p->rules[p->n];
    memset(r, 0, sizeof *r);
    r->route = (uint8_t)route;
    r->cell = cell;
    if (!(r->pattern = strdup(pattern)))
        return -1;
    p->n++;
    return 0;
}

/* ---- the file ------------------------------------------------------------ */

#define PLAN_MAGIC "heapreplay-plan 1"

/* A "set KEY=VALUE" line. */
static int plan_set(hr_route_plan_file_t *p, const char *kv) {
    char *end;
    const char *eq = strchr(kv, '=');
    if (!eq)
        return -1;
    errno = 0;
    unsigned long long v = strtoull(eq + 1, &end, 10);
    if (errno || end == eq + 1 || *end || v == 0)
        return -1;
    size_t k = (size_t)(eq - kv);
    if (k == 11 && strncmp(kv, "stack_bytes", k) == 0)
        p->stack_bytes = v;
    else if (k == 13 && strncmp(kv, "stack_entries", k) == 0 && v <= 4096)
        p->stack_entries = (uint32_t)v;
    else if (k == 11 && strncmp(kv, "level_bytes", k) == 0)
        p->level_bytes = v;
    else
        return -1;
    return 0;
}

/* One rule line: "ROUTE [CELL] PATTERN". */
static int plan_rule(hr_route_plan_file_t *p, char *line, const char **what) {
    size_t w = strcspn(line, " \t");
    char *rest = line + w + strspn(line + w, " \t");
    uint64_t cell = 0;
    int route = -1;
    for (int r = 0; r < HR_ROUTE__COUNT; r++)
        if (strlen(route_names[r]) == w && strncmp(line, route_names[r], w) == 0)
            route = r;
    if (route < 0) {
        *what = "expected 'frame-stack PATTERN', 'pool BYTES PATTERN', 'level PATTERN', "
                "'general PATTERN', 'skip LIST' or 'set KEY=VALUE'";
        return -1;
    }
    if (route == HR_ROUTE_POOL) {
        char *end;
        cell = strtoull(rest, &end, 10);
        if (end == rest || cell == 0 || (*end != ' ' && *end != '\t')) {
            *what = "expected 'pool BYTES PATTERN' (the cell size, a decimal number of bytes)";
            return -1;
        }
        rest = end + strspn(end, " \t");
    }
    if (!*rest) {
        *what = "expected a function name pattern after the route";
        return -1;
    }
    if (hr_route_plan_add(p, (unsigned)route, cell, rest)) {
        *what = "out of memory";
        return -1;
    }
    return 0;
}

static int plan_line(hr_route_plan_file_t *p, char *line, int *header, const char **what) {
    if (!*header) {
        *header = 1;
        *what = "expected the header line '" PLAN_MAGIC "'";
        return strcmp(line, PLAN_MAGIC) == 0 ? 0 : -1;
    }
    if (strncmp(line, "skip ", 5) == 0 || strcmp(line, "skip") == 0) {
        free(p->skip);
        p->skip = strdup(line[4] ? line + 5 : "");
        *what = "out of memory";
        return p->skip ? 0 : -1;
    }
    if (strncmp(line, "set ", 4) == 0) {
        *what = "expected 'set stack_bytes=N', 'set stack_entries=N' (N <= 4096) or "
                "'set level_bytes=N' with N > 0";
        return plan_set(p, line + 4);
    }
    return plan_rule(p, line, what);
}

int hr_route_plan_read(const char *path, hr_route_plan_file_t *p, hr_error_t *err) {
    FILE *f = fopen(path, "r");
    if (!f) {
        hr_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char buf[4096];
    int header = 0, rc = 0;
    size_t lineno = 0;
    while (!rc && fgets(buf, sizeof buf, f)) {
        lineno++;
        size_t n = strlen(buf);
        while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
                     buf[n - 1] == '\t'))
            buf[--n] = 0;
        char *line = buf + strspn(buf, " \t");
        if (!*line || *line == '#')
            continue;
        const char *what = "";
        if (plan_line(p, line, &header, &what) != 0) {
            hr_error_set(err, "%s:%zu: %s", path, lineno, what);
            rc = -1;
        }
    }
    if (!rc && !header) {
        hr_error_set(err, "%s:1: expected the header line '" PLAN_MAGIC "'", path);
        rc = -1;
    }
    fclose(f);
    return rc;
}

int hr_route_plan_write(const char *path, const hr_route_plan_file_t *p,
                        const char *const *comments, const char *header, hr_error_t *err) {
    hr_outfile_t o;
    FILE *f = hr_outfile_open(&o, path, err);
    if (!f)
        return -1;
    fprintf(f, PLAN_MAGIC "\n%s", header ? header : "");
    fprintf(f, "# Allocations are matched by their stack, innermost frame first, passing\n"
               "# over the wrappers of 'skip'; the first rule whose pattern ('*' = any\n"
               "# text) matches a frame's function wins; what no rule takes stays on the\n"
               "# general heap. Routes: frame-stack, pool BYTES, level, general.\n");
    fprintf(f, "skip %s\n", p->skip ? p->skip : HR_ROUTE_SKIP_DEFAULT);
    fprintf(f, "set stack_bytes=%llu\nset stack_entries=%u\nset level_bytes=%llu\n",
            (unsigned long long)p->stack_bytes, p->stack_entries,
            (unsigned long long)p->level_bytes);
    for (uint32_t i = 0; i < p->n; i++) {
        const hr_route_rule_t *r = &p->rules[i];
        if (comments && comments[i])
            fprintf(f, "# %s\n", comments[i]);
        if (r->route == HR_ROUTE_POOL)
            fprintf(f, "pool %llu %s\n", (unsigned long long)r->cell, r->pattern);
        else
            fprintf(f, "%s %s\n", hr_route_name(r->route), r->pattern);
    }
    return hr_outfile_commit(&o, err);
}

void hr_route_part_spec(const hr_route_plan_file_t *p, unsigned route, char *buf, size_t cap) {
    if (route == HR_ROUTE_FRAME_STACK)
        snprintf(buf, cap, "stack:size=%llu,entries=%u", (unsigned long long)p->stack_bytes,
                 p->stack_entries);
    else if (route == HR_ROUTE_POOL)
        snprintf(buf, cap, "bank");
    else if (route == HR_ROUTE_LEVEL)
        snprintf(buf, cap, "marker:size=%llu", (unsigned long long)p->level_bytes);
    else
        snprintf(buf, cap, "malloc");
}

/* ---- matching -------------------------------------------------------------- */

int hr_route_match_stacks(const hr_trace_t *t, const hr_route_plan_file_t *p, int32_t **out) {
    const hr_stacks_t *s = t->stacks;
    uint32_t n = s ? s->n_stacks : 0, nf = s ? s->n_frames : 0;
    int32_t *m = malloc(((size_t)n + 1) * sizeof *m);
    /* per frame, once: -2 a wrapper, -1 no rule, else its first rule */
    int32_t *of_frame = malloc((nf ? nf : 1) * sizeof *of_frame);
    if (!m || !of_frame) {
        free(m);
        free(of_frame);
        return -1;
    }
    const char *skip = p->skip ? p->skip : HR_ROUTE_SKIP_DEFAULT;
    char name[512];
    for (uint32_t f = 0; f < nf; f++) {
        hr_stacks_frame_name(t, f, 0, name, sizeof name);
        of_frame[f] = hr_route_skipped(skip, name) ? -2 : -1;
        for (uint32_t r = 0; r < p->n && of_frame[f] == -1; r++)
            if (hr_route_glob(p->rules[r].pattern, name))
                of_frame[f] = (int32_t)r;
    }
    m[0] = -1;
    for (uint32_t id = 1; id <= n; id++) {
        uint32_t depth;
        const uint32_t *fx = hr_stacks_get(s, id, &depth);
        m[id] = -1;
        for (uint32_t k = 0; k < depth && m[id] < 0; k++)
            if (of_frame[fx[k]] >= 0)
                m[id] = of_frame[fx[k]];
    }
    free(of_frame);
    *out = m;
    return 0;
}
