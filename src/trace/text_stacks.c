/* Text trace format: the stack lines (docs/TRACE_FORMAT.md, "Stacks"):
 *   module N PATH BASE SIZE [build=HEX]
 *   at N [0xADDR] [m=MODULE] [f=FUNC] [file=FILE] [line=LINE] [inline]
 *   stack N FRAME,FRAME,...
 * read into the trace's stack model (src/trace/stacks.h); the writer's half
 * is in text.c with the rest of the writer. */
#include "trace/text_int.h"
#include "trace/stacks.h"

#include <stdlib.h>
#include <string.h>

static int tok_is(tok_t t, const char *word) {
    return t.n == strlen(word) && memcmp(t.s, word, t.n) == 0;
}

/* Which stack line tk[0] starts, KW_NONE for an event line. */
int hr_text_stack_keyword(tok_t t) {
    return tok_is(t, "module") ? KW_MODULE : tok_is(t, "at") ? KW_AT
                                         : tok_is(t, "stack") ? KW_STACK : KW_NONE;
}

/* "0x" then hex digits, or a decimal number. */
static int parse_addr(tok_t t, uint64_t *out) {
    if (t.n < 3 || t.s[0] != '0' || (t.s[1] != 'x' && t.s[1] != 'X'))
        return hr_text_u64(t, out);
    uint64_t v = 0;
    for (size_t i = 2; i < t.n; i++) {
        int d = hr_text_hexval(t.s[i]);
        if (d < 0 || v >> 60)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* A "KEY=" token: 1 with the value in *val. */
static int keyed(tok_t t, const char *key, tok_t *val) {
    size_t k = strlen(key);
    if (t.n < k || memcmp(t.s, key, k) != 0)
        return 0;
    *val = (tok_t){t.s + k, t.n - k};
    return 1;
}

/* Appends v to a file-number map of n entries; -1 on out of memory. */
static int map_push(uint32_t **map, uint32_t n, uint32_t v) {
    if ((n & (n - 1)) == 0) { /* 0, 1, 2, 4, ...: double */
        uint32_t *m = realloc(*map, (n ? 2 * (size_t)n : 1) * sizeof *m);
        if (!m)
            return -1;
        *map = m;
    }
    (*map)[n] = v;
    return 0;
}

/* The line's number N: the next one of its kind (they count 1, 2, 3...). */
static int line_number(tctx_t *c, tok_t t, uint32_t expect, const char *what) {
    uint64_t v;
    if (hr_text_u64(t, &v) || v != expect)
        return hr_text_fail(c, "%s number " TOKF ": expected %u (they count from 1 in order)", what,
                     TOKA(t), expect);
    return 0;
}

static int parse_module(tctx_t *c, hr_trace_t *t, const tok_t *tk, int ntok) {
    hr_stacks_t *s = hr_trace_stacks(t);
    uint64_t base, size;
    tok_t bid = {NULL, 0};
    if (!s)
        return hr_text_fail(c, "out of memory");
    if (ntok < 5 || ntok > 6 || (ntok == 6 && !keyed(tk[5], "build=", &bid)))
        return hr_text_fail(c, "expected 'module N PATH BASE SIZE [build=HEX]'");
    if (line_number(c, tk[1], c->n_modules + 1, "module"))
        return -1;
    if (parse_addr(tk[3], &base) || parse_addr(tk[4], &size))
        return hr_text_fail(c, "module BASE and SIZE: expected 0xHEX or decimal, got " TOKF " " TOKF,
                     TOKA(tk[3]), TOKA(tk[4]));
    char *path = hr_text_unescape(c, tk[2]), *build = bid.s ? hr_text_unescape(c, bid) : NULL;
    int64_t m = path && (!bid.s || build) ? hr_stacks_add_module(s, path, build, base, size) : -2;
    free(path);
    free(build);
    if (m == -2)
        return -1;
    if (m < 0)
        return hr_text_fail(c, "out of memory");
    c->n_modules++;
    return 0;
}

/* One at-line option into f; names go to the string table. */
static int at_option(tctx_t *c, hr_trace_t *t, tok_t tk, hr_frame_t *f) {
    tok_t v;
    uint64_t n;
    if (tok_is(tk, "inline")) {
        f->inl = 1;
    } else if (keyed(tk, "m=", &v)) {
        if (hr_text_u64(v, &n) || n == 0 || n > c->n_modules)
            return hr_text_fail(c, "m=" TOKF ": expected a module number 1..%u", TOKA(v), c->n_modules);
        f->module = (uint32_t)n;
    } else if (keyed(tk, "line=", &v)) {
        if (hr_text_u64(v, &n) || n > UINT32_MAX)
            return hr_text_fail(c, "line=" TOKF ": expected a line number", TOKA(v));
        f->line = (uint32_t)n;
    } else if (keyed(tk, "f=", &v) || keyed(tk, "file=", &v)) {
        char *name = hr_text_unescape(c, v);
        int64_t ix = name ? hr_trace_intern(t, name) : -2;
        free(name);
        if (ix == -2)
            return -1;
        if (ix < 0)
            return hr_text_fail(c, "out of memory");
        *(tk.s[1] == '=' ? &f->func : &f->file) = (uint32_t)ix + 1;
    } else {
        return hr_text_fail(c, "unknown 'at' option " TOKF " (expected 0xADDR, m=, f=, file=, "
                     "line= or inline)", TOKA(tk));
    }
    return 0;
}

static int parse_at(tctx_t *c, hr_trace_t *t, const tok_t *tk, int ntok) {
    hr_stacks_t *s = hr_trace_stacks(t);
    hr_frame_t f = {0, 0, 0, 0, 0, 0};
    if (!s)
        return hr_text_fail(c, "out of memory");
    if (ntok < 2)
        return hr_text_fail(c, "expected 'at N [0xADDR] [m=M] [f=FUNC] [file=FILE] [line=L] [inline]'");
    if (line_number(c, tk[1], c->n_frames + 1, "frame ('at')"))
        return -1;
    int i = 2;
    if (ntok > 2 && tk[2].n > 2 && tk[2].s[0] == '0' && tk[2].s[1] == 'x') {
        if (parse_addr(tk[2], &f.addr))
            return hr_text_fail(c, "bad address " TOKF " (expected 0x and up to 16 hex digits)",
                         TOKA(tk[2]));
        i = 3;
    }
    for (; i < ntok; i++)
        if (at_option(c, t, tk[i], &f))
            return -1;
    if (!f.addr && !f.func)
        return hr_text_fail(c, "a frame needs an address (0xADDR) or a function (f=NAME)");
    int64_t ix = hr_stacks_frame_put(s, &f);
    if (ix < 0 || map_push(&c->frame_map, c->n_frames, (uint32_t)ix))
        return hr_text_fail(c, "out of memory");
    c->n_frames++;
    return 0;
}

/* "stack N F1,F2,..." (innermost first) or "stack N -" (no frames). */
static int parse_stack(tctx_t *c, hr_trace_t *t, const tok_t *tk, int ntok) {
    hr_stacks_t *s = hr_trace_stacks(t);
    if (!s)
        return hr_text_fail(c, "out of memory");
    if (ntok != 3)
        return hr_text_fail(c, "expected 'stack N F1,F2,...' (frame numbers of 'at' lines, innermost "
                     "first, no spaces)");
    if (line_number(c, tk[1], c->n_stacks + 1, "stack"))
        return -1;
    uint32_t *fx = malloc((tk[2].n / 2 + 1) * sizeof *fx), n = 0;
    if (!fx)
        return hr_text_fail(c, "out of memory");
    for (size_t i = 0; !(tk[2].n == 1 && tk[2].s[0] == '-') && i < tk[2].n;) {
        size_t j = i;
        while (j < tk[2].n && tk[2].s[j] != ',')
            j++;
        uint64_t v;
        if (hr_text_u64((tok_t){tk[2].s + i, j - i}, &v) || v == 0 || v > c->n_frames) {
            free(fx);
            return hr_text_fail(c, "stack frame " TOKF ": expected frame numbers 1..%u separated by "
                         "commas", TOKA(tk[2]), c->n_frames);
        }
        fx[n++] = c->frame_map[v - 1];
        i = j + 1;
    }
    int64_t id = hr_stacks_intern(s, fx, n);
    free(fx);
    if (id < 0 || map_push(&c->stack_map, c->n_stacks, (uint32_t)id))
        return hr_text_fail(c, "out of memory");
    c->n_stacks++;
    return 0;
}

int hr_text_stack_line(tctx_t *c, hr_trace_t *t, const tok_t *tk, int ntok, int kw) {
    return kw == KW_MODULE ? parse_module(c, t, tk, ntok)
           : kw == KW_AT   ? parse_at(c, t, tk, ntok)
                           : parse_stack(c, t, tk, ntok);
}
