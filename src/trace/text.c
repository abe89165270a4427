/* Text trace format: reader and writer (docs/TRACE_FORMAT.md, "Text format").
 *
 *   heapreplay-trace 1 [timestamps] [runs=N timed=... wall_ns=... ...]  (program time)
 *   <op> <field>... [t=THREAD] [s=STACK] [@TIMESTAMP]   one event per line
 *   module N PATH BASE SIZE [build=HEX]           the stack model (since the
 *   at N [0xADDR] [m=M] [f=FUNC] [file=F] [line=L] [inline]   stacks, 1.5):
 *   stack N F1,F2,...                              before the events use them
 *
 * Fields are parsed and printed by their hr_field_kind_t, so the per-op shape
 * comes from HR_OP_LIST alone. The writer's output is canonical: reading it
 * and writing again gives the same bytes. The stack lines are read in
 * text_stacks.c (text_int.h: what the two share). */
#include "trace/text_int.h"
#include "trace/stacks.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 8         /* an event line */
#define MAX_HEADER_TOKENS 16 /* the header: magic, version, timestamps, 7 program options */

int hr_text_fail(tctx_t *c, const char *fmt, ...) {
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    hr_error_set(c->err, "%s:%zu: %s", c->name, c->line, what);
    return -1;
}

/* Splits [s, e) into whitespace-separated tokens, stopping at a token that
 * starts with '#'. Returns the count, or MAX_HEADER_TOKENS + 1 if there are
 * more (tk has room for MAX_HEADER_TOKENS). */
static int tokenize(const char *s, const char *e, tok_t *tk) {
    int n = 0;
    for (;;) {
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        if (s == e || *s == '#')
            return n;
        if (n == MAX_HEADER_TOKENS)
            return MAX_HEADER_TOKENS + 1;
        tk[n].s = s;
        while (s < e && *s != ' ' && *s != '\t' && *s != '\r')
            s++;
        tk[n].n = (size_t)(s - tk[n].s);
        n++;
    }
}


int hr_text_u64(tok_t t, uint64_t *out) {
    uint64_t v = 0;
    if (t.n == 0)
        return -1;
    for (size_t i = 0; i < t.n; i++) {
        unsigned d = (unsigned)(unsigned char)t.s[i] - '0';
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int is_raw_name_char(unsigned char ch) {
    return ch > 0x20 && ch < 0x7f && !strchr("%#@=\"\\", ch);
}

int hr_text_hexval(char ch) {
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Decodes a percent-encoded name token into a fresh string. */
char *hr_text_unescape(tctx_t *c, tok_t t) {
    char *out = malloc(t.n + 1);
    size_t n = 0;
    if (!out) {
        hr_text_fail(c, "out of memory");
        return NULL;
    }
    if (!(t.n == 1 && t.s[0] == '%')) { /* a lone '%' is the empty name */
        for (size_t i = 0; i < t.n; i++) {
            if (t.s[i] != '%') {
                out[n++] = t.s[i];
                continue;
            }
            int hi = i + 2 < t.n ? hr_text_hexval(t.s[i + 1]) : -1;
            int lo = hi >= 0 ? hr_text_hexval(t.s[i + 2]) : -1;
            if (lo < 0 || (hi | lo) == 0) {
                free(out);
                hr_text_fail(c, "bad escape in name " TOKF " (expected %%XX with two hex digits, "
                      "not %%00)", TOKA(t));
                return NULL;
            }
            out[n++] = (char)(hi * 16 + lo);
            i += 2;
        }
    }
    out[n] = 0;
    return out;
}

static const char *field_label(int kind) {
    static const char *const names[] = {
#define KIND_NAME_(k) #k,
        HR_FIELD_LIST(KIND_NAME_)
#undef KIND_NAME_
    };
    return names[kind];
}

/* Parses field number `i` (1-based in messages) of kind `kind` into ev. */
static int parse_field(tctx_t *c, hr_trace_t *t, hr_event_t *ev, int kind, int i, tok_t tk) {
    uint64_t v = 0;
    const char *op = hr_op_name(ev->op);
    if (kind == HR_F_STR) {
        char *s = hr_text_unescape(c, tk);
        if (!s)
            return -1;
        int64_t idx = hr_trace_intern(t, s);
        free(s);
        if (idx < 0)
            return hr_text_fail(c, "out of memory");
        ev->aux = (uint32_t)idx;
        return 0;
    }
    if (hr_text_u64(tk, &v))
        return hr_text_fail(c, "field %d (%s) of '%s': expected a decimal number, got " TOKF, i,
                     field_label(kind), op, TOKA(tk));
    switch (kind) {
    case HR_F_ID:
    case HR_F_OLD:
        if (v > HR_ID_MAX)
            return hr_text_fail(c, "id %llu out of range (max %u)", (unsigned long long)v, HR_ID_MAX);
        *(kind == HR_F_ID ? &ev->id : &ev->aux) = (uint32_t)v;
        break;
    case HR_F_COUNT:
        if (v > UINT32_MAX)
            return hr_text_fail(c, "count %llu out of range (max %u)", (unsigned long long)v,
                         UINT32_MAX);
        ev->aux = (uint32_t)v;
        break;
    case HR_F_ALIGN:
        if (v > 0x80000000u || (v & (v - 1)))
            return hr_text_fail(c, "alignment %llu is not a power of two up to 2^31",
                         (unsigned long long)v);
        ev->align = (uint32_t)v;
        break;
    default: /* SIZE, NUM */
        ev->size = v;
        break;
    }
    return 0;
}

/* Parses the op, its fields and the t=/s=/@ suffixes of one event line;
 * *site gets the model's stack id of s=N (0 without). */
static int parse_event(tctx_t *c, hr_trace_t *t, const tok_t *tk, int ntok, hr_event_t *ev,
                       uint64_t *ts, int *has_ts, uint32_t *site) {
    int op = hr_op_from_name(tk[0].s, tk[0].n);
    if (op < 0) {
        char names[200] = "";
        for (unsigned i = 0; i < HR_OP__COUNT; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     i ? ", " : "", hr_op_info[i].name);
        return hr_text_fail(c, "unknown op " TOKF " (expected one of %s)", TOKA(tk[0]), names);
    }
    const hr_op_info_t *in = &hr_op_info[op];
    memset(ev, 0, sizeof *ev);
    ev->op = (uint8_t)op;
    int nf = 0, seen_t = 0, seen_s = 0;
    *has_ts = 0;
    *site = 0;
    for (int i = 1; i < ntok; i++) {
        uint64_t v;
        if (tk[i].n >= 2 && tk[i].s[0] == 's' && tk[i].s[1] == '=') {
            tok_t num = {tk[i].s + 2, tk[i].n - 2};
            if (seen_s++ || hr_text_u64(num, &v) || v == 0 || v > c->n_stacks)
                return hr_text_fail(c, "expected one s=STACK with a stack number 1..%u defined by a "
                             "'stack' line above, got " TOKF, c->n_stacks, TOKA(tk[i]));
            if (!hr_op_creates_block((unsigned)op))
                return hr_text_fail(c, "s=STACK on '%s': only alloc, calloc, realloc, palloc and "
                             "prealloc have a stack", in->name);
            *site = c->stack_map[v - 1];
        } else if (tk[i].n >= 2 && tk[i].s[0] == 't' && tk[i].s[1] == '=') {
            tok_t num = {tk[i].s + 2, tk[i].n - 2};
            if (seen_t++ || hr_text_u64(num, &v) || v > 65535)
                return hr_text_fail(c, "expected one t=THREAD with THREAD < 65536, got " TOKF,
                             TOKA(tk[i]));
            ev->thread = (uint16_t)v;
        } else if (tk[i].s[0] == '@') {
            tok_t num = {tk[i].s + 1, tk[i].n - 1};
            if ((*has_ts)++ || hr_text_u64(num, &v))
                return hr_text_fail(c, "expected one @TIMESTAMP (decimal ns), got " TOKF, TOKA(tk[i]));
            *ts = v;
        } else if (seen_t || seen_s || *has_ts) {
            return hr_text_fail(c, "field " TOKF " after the t=/s=/@ suffixes", TOKA(tk[i]));
        } else if (nf < in->nfields) {
            if (parse_field(c, t, ev, in->fields[nf], nf + 1, tk[i]))
                return -1;
            nf++;
        } else {
            nf++;
        }
    }
    int min = in->nfields - in->nopt;
    if (nf < min || nf > in->nfields) {
        if (in->nopt == 0)
            return hr_text_fail(c, "'%s' takes %d field%s, got %d", in->name, min, min == 1 ? "" : "s",
                         nf);
        return hr_text_fail(c, "'%s' takes %d %s %d fields, got %d", in->name, min,
                     in->nopt == 1 ? "or" : "to", in->nfields, nf);
    }
    if (nf > min)
        ev->flags |= HR_EVF_HAS_OPT;
    return 0;
}

/* The header's command=VALUE (1.8): the process's command line, percent-
 * encoded as names are (a space is %20), once. */
static int parse_command(tctx_t *c, tok_t tk, hr_trace_t *t) {
    tok_t v = {tk.s + 8, tk.n - 8};
    if (t->command)
        return hr_text_fail(c, "header option 'command=' given twice");
    if (v.n == 0)
        return hr_text_fail(c, "header option 'command=' without a command (expected "
                            "command=PATH%%20ARG..., percent-encoded)");
    if (!(t->command = hr_text_unescape(c, v)))
        return -1;
    if (!*t->command)
        return hr_text_fail(c, "header option 'command=': an empty command (leave the option out)");
    if (strlen(t->command) > HR_COMMAND_MAX)
        return hr_text_fail(c, "header option 'command=': %zu bytes (expected at most %d)",
                            strlen(t->command), HR_COMMAND_MAX);
    return 0;
}

/* Header line: "heapreplay-trace 1" optionally followed by "timestamps",
 * "command=..." and the program time's options (program.c: all seven or
 * none). */
static int parse_header(tctx_t *c, const tok_t *tk, int ntok, hr_trace_t *t) {
    char what[300];
    unsigned seen = 0;
    size_t ml = strlen(HR_TEXT_MAGIC);
    if (ntok < 1 || tk[0].n != ml || memcmp(tk[0].s, HR_TEXT_MAGIC, ml) != 0)
        return hr_text_fail(c, "expected the header line 'heapreplay-trace 1'");
    if (ntok < 2 || tk[1].n != 1 || tk[1].s[0] != '1')
        return hr_text_fail(c, "unsupported text format version %s%.*s (this reader reads 1)",
                     ntok < 2 ? "(none)" : "", ntok < 2 ? 0 : (int)tk[1].n,
                     ntok < 2 ? "" : tk[1].s);
    for (int i = 2; i < ntok; i++) {
        if (tk[i].n == 10 && memcmp(tk[i].s, "timestamps", 10) == 0) {
            if (!t->ts && !(t->ts = calloc(1, sizeof *t->ts)))
                return hr_text_fail(c, "out of memory");
            t->flags |= HR_TRACEF_TIMESTAMPS;
            continue;
        }
        if (tk[i].n >= 8 && memcmp(tk[i].s, "command=", 8) == 0) {
            if (parse_command(c, tk[i], t))
                return -1;
            continue;
        }
        int rc = hr_program_text_option(&t->program, &seen, tk[i].s, tk[i].n, what, sizeof what);
        if (rc < 0)
            return hr_text_fail(c, "%s", what);
        if (rc == 0)
            return hr_text_fail(c, "unknown header option " TOKF " (expected 'timestamps', "
                         "command= or the program time's runs=, timed=, wall_ns=, cpu_ns=, "
                         "cpu_min_ns=, cpu_max_ns=, max_rss=)", TOKA(tk[i]));
    }
    if (hr_program_text_finish(&t->program, seen, what, sizeof what))
        return hr_text_fail(c, "%s", what);
    return 0;
}

/* Line iterator over a buffer; the final line may lack its '\n'. */
typedef struct lines {
    const char *p, *end;
} lines_t;

static int next_line(lines_t *l, const char **s, const char **e) {
    if (l->p >= l->end)
        return 0;
    *s = l->p;
    const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
    *e = nl ? nl : l->end;
    l->p = *e + 1;
    return 1;
}

/* Line number (1-based) of event `index`, 0 if there is no such event. */
static size_t line_of_event(const char *buf, size_t len, size_t index) {
    size_t lineno = 0, ev = 0;
    int header = 0;
    tok_t tk[MAX_HEADER_TOKENS];
    lines_t li = {buf, buf + len};
    const char *s, *e;
    while (next_line(&li, &s, &e)) {
        lineno++;
        if (tokenize(s, e, tk) == 0)
            continue;
        if (!header) {
            header = 1;
            continue;
        }
        if (hr_text_stack_keyword(tk[0]))
            continue;
        if (ev++ == index)
            return lineno;
    }
    return 0;
}

/* Rewrites validate's "NAME: event I (op): what" as "NAME:LINE: event I (op): what". */
static void locate_validation_error(const char *buf, size_t len, const char *name,
                                    hr_error_t *err) {
    size_t nl = strlen(name);
    unsigned long long idx;
    if (!err || strncmp(err->msg, name, nl) != 0 ||
        sscanf(err->msg + nl, ": event %llu", &idx) != 1)
        return;
    size_t line = line_of_event(buf, len, (size_t)idx);
    if (!line)
        return;
    char rest[sizeof err->msg];
    snprintf(rest, sizeof rest, "%s", err->msg + nl + 2);
    hr_error_set(err, "%s:%zu: %s", name, line, rest);
}

static int decode_lines(tctx_t *c, const char *buf, size_t len, hr_trace_t *t);

int hr_trace_decode_text(const char *buf, size_t len, const char *name, hr_trace_t *t,
                         hr_error_t *err) {
    tctx_t c = {name, 0, err, NULL, NULL, 0, 0, 0};
    int rc = decode_lines(&c, buf, len, t);
    free(c.frame_map);
    free(c.stack_map);
    if (rc)
        return -1;
    if (hr_trace_validate(t, name, err)) {
        locate_validation_error(buf, len, name, err);
        return -1;
    }
    return 0;
}

static int decode_lines(tctx_t *c, const char *buf, size_t len, hr_trace_t *t) {
    int header = 0;
    tok_t tk[MAX_HEADER_TOKENS];
    lines_t li = {buf, buf + len};
    const char *s, *e;
    while (next_line(&li, &s, &e)) {
        c->line++;
        int ntok = tokenize(s, e, tk);
        if (ntok == 0)
            continue;
        int kw = header ? hr_text_stack_keyword(tk[0]) : KW_NONE;
        if (header && ntok > MAX_TOKENS)
            return hr_text_fail(c, "too many fields (%s line has at most %d tokens)",
                         kw ? "a stack" : "an event", MAX_TOKENS);
        if (!header && ntok > MAX_HEADER_TOKENS)
            return hr_text_fail(c, "too many header options (at most %d tokens)", MAX_HEADER_TOKENS);
        if (!header) {
            if (parse_header(c, tk, ntok, t))
                return -1;
            header = 1;
            continue;
        }
        if (kw) {
            if (hr_text_stack_line(c, t, tk, ntok, kw))
                return -1;
            continue;
        }
        hr_event_t ev;
        uint64_t ts = 0;
        int has_ts = 0;
        uint32_t site = 0;
        if (parse_event(c, t, tk, ntok, &ev, &ts, &has_ts, &site))
            return -1;
        if ((has_ts || t->ts) ? hr_trace_push_ts(t, &ev, ts) : hr_trace_push(t, &ev))
            return hr_text_fail(c, "out of memory");
        if (site && hr_trace_set_site(t, t->n_events - 1, site))
            return hr_text_fail(c, "out of memory");
    }
    if (!header) {
        c->line = 1;
        return hr_text_fail(c, "expected the header line 'heapreplay-trace 1'");
    }
    return 0;
}

/* ---- writer ------------------------------------------------------------- */

typedef struct wbuf {
    FILE  *f;
    char   data[1 << 16];
    size_t len;
    int    failed;
} wbuf_t;

static void wflush(wbuf_t *w) {
    if (w->len && fwrite(w->data, 1, w->len, w->f) != w->len)
        w->failed = 1;
    w->len = 0;
}

static void wchar(wbuf_t *w, char ch) {
    if (w->len == sizeof w->data)
        wflush(w);
    w->data[w->len++] = ch;
}

static void wstr(wbuf_t *w, const char *s) {
    while (*s)
        wchar(w, *s++);
}

static void wu64(wbuf_t *w, uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        wchar(w, tmp[--n]);
}

static void wname(wbuf_t *w, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    if (!*s)
        wchar(w, '%');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (is_raw_name_char(ch)) {
            wchar(w, (char)ch);
        } else {
            wchar(w, '%');
            wchar(w, hex[ch >> 4]);
            wchar(w, hex[ch & 15]);
        }
    }
}

static void whex(wbuf_t *w, uint64_t v) {
    static const char hex[] = "0123456789abcdef";
    int shift = 60;
    wstr(w, "0x");
    while (shift > 0 && !(v >> shift))
        shift -= 4;
    for (; shift >= 0; shift -= 4)
        wchar(w, hex[(v >> shift) & 15]);
}

/* The module, at and stack lines (before the events); -1 if a frame names a
 * string, module or frame the trace does not have. */
static int write_stacks(wbuf_t *w, const hr_trace_t *t) {
    const hr_stacks_t *s = t->stacks;
    for (uint32_t i = 0; i < s->n_modules; i++) {
        const hr_module_t *m = &s->modules[i];
        wstr(w, "module ");
        wu64(w, i + 1);
        wchar(w, ' ');
        wname(w, m->path);
        wchar(w, ' ');
        whex(w, m->base);
        wchar(w, ' ');
        whex(w, m->size);
        if (m->build_id) {
            wstr(w, " build=");
            wname(w, m->build_id);
        }
        wchar(w, '\n');
    }
    for (uint32_t i = 0; i < s->n_frames; i++) {
        const hr_frame_t *f = &s->frames[i];
        if (f->func > t->n_strings || f->file > t->n_strings || f->module > s->n_modules)
            return -1;
        wstr(w, "at ");
        wu64(w, i + 1);
        if (f->addr) {
            wchar(w, ' ');
            whex(w, f->addr);
        }
        if (f->module) {
            wstr(w, " m=");
            wu64(w, f->module);
        }
        if (f->func) {
            wstr(w, " f=");
            wname(w, t->strings[f->func - 1]);
        }
        if (f->file) {
            wstr(w, " file=");
            wname(w, t->strings[f->file - 1]);
        }
        if (f->line) {
            wstr(w, " line=");
            wu64(w, f->line);
        }
        wstr(w, f->inl ? " inline\n" : "\n");
    }
    for (uint32_t id = 1; id <= s->n_stacks; id++) {
        uint32_t n;
        const uint32_t *fx = hr_stacks_get(s, id, &n);
        wstr(w, "stack ");
        wu64(w, id);
        wstr(w, n ? " " : " -");
        for (uint32_t k = 0; k < n; k++) {
            if (fx[k] >= s->n_frames)
                return -1;
            if (k)
                wchar(w, ',');
            wu64(w, fx[k] + 1);
        }
        wchar(w, '\n');
    }
    return 0;
}

/* One event line; -1 if the event cannot be written (bad op or string). */
static int write_event(wbuf_t *w, const hr_trace_t *t, const hr_event_t *ev, const uint64_t *ts,
                       uint32_t site) {
    if (ev->op >= HR_OP__COUNT)
        return -1;
    const hr_op_info_t *in = &hr_op_info[ev->op];
    int nf = in->nfields - ((ev->flags & HR_EVF_HAS_OPT) ? 0 : in->nopt);
    wstr(w, in->name);
    for (int i = 0; i < nf; i++) {
        wchar(w, ' ');
        switch (in->fields[i]) {
        case HR_F_ID: wu64(w, ev->id); break;
        case HR_F_OLD:
        case HR_F_COUNT: wu64(w, ev->aux); break;
        case HR_F_ALIGN: wu64(w, ev->align); break;
        case HR_F_STR:
            if (ev->aux >= t->n_strings)
                return -1;
            wname(w, t->strings[ev->aux]);
            break;
        default: wu64(w, ev->size); break; /* SIZE, NUM */
        }
    }
    if (ev->thread) {
        wstr(w, " t=");
        wu64(w, ev->thread);
    }
    if (site) {
        if (!t->stacks || site > t->stacks->n_stacks || !hr_op_creates_block(ev->op))
            return -1;
        wstr(w, " s=");
        wu64(w, site);
    }
    if (ts) {
        wstr(w, " @");
        wu64(w, *ts);
    }
    wchar(w, '\n');
    return 0;
}

int hr_trace_write_text(FILE *f, const hr_trace_t *t) {
    int has_ts = (t->flags & HR_TRACEF_TIMESTAMPS) && t->ts;
    wbuf_t *w = malloc(sizeof *w);
    if (!w)
        return -1;
    w->f = f;
    w->len = 0;
    w->failed = 0;
    char prog[400];
    hr_program_text(&t->program, prog, sizeof prog);
    wstr(w, HR_TEXT_MAGIC " 1");
    wstr(w, has_ts ? " timestamps" : "");
    wstr(w, prog);
    if (t->command) {
        wstr(w, " command=");
        wname(w, t->command);
    }
    wchar(w, '\n');
    int rc = t->stacks ? write_stacks(w, t) : 0;
    for (size_t i = 0; i < t->n_events && !rc; i++)
        rc = write_event(w, t, &t->events[i], has_ts ? &t->ts[i] : NULL, t->site ? t->site[i] : 0);
    wflush(w);
    if (rc)
        errno = EINVAL;
    rc = rc || w->failed ? -1 : 0;
    free(w);
    return rc;
}
