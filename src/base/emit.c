/* The emitter (see emit.h): JSON for structured data, and tables rendered as
 * aligned text, CSV (RFC 4180), Markdown, or a JSON array of objects.
 *
 * Nesting state lives in em->first[depth] as bit flags: FIRST (nothing written
 * at this depth yet), ARRAY (the container at this depth is an array; keys
 * are ignored inside arrays) and INLINE (its elements stay on one line). Depth 0 is the top level: several top-level
 * values are separated by newlines; hr_emit_end() finishes a document.
 *
 * Table cells are buffered (text needs column widths before it can print) as
 * strings whose first byte is a type tag: 'S' string, 'N' number (already
 * formatted for the current format), 'Z' missing/null. */
#include "base/emit.h"
#include "base/outfile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define F_FIRST 1
#define F_ARRAY 2
#define F_INLINE 4 /* an array written on one line (hr_emit_arr_begin_inline) */

void hr_emit_init(hr_emit_t *em, FILE *out, hr_emit_format_t fmt) {
    memset(em, 0, sizeof *em);
    em->out = out;
    em->format = fmt;
    for (int i = 0; i < HR_EMIT_MAX_DEPTH; i++)
        em->first[i] = F_FIRST;
}

int hr_emit_format_parse(const char *s, hr_emit_format_t *fmt) {
    static const struct { const char *name; hr_emit_format_t f; } names[] = {
        {"json", HR_EMIT_JSON}, {"text", HR_EMIT_TEXT}, {"txt", HR_EMIT_TEXT},
        {"table", HR_EMIT_TEXT}, {"csv", HR_EMIT_CSV}, {"md", HR_EMIT_MARKDOWN},
        {"markdown", HR_EMIT_MARKDOWN},
    };
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) {
            *fmt = names[i].f;
            return 0;
        }
    return -1;
}

int hr_emit_format_parse_html(const char *s, hr_emit_format_t *fmt) {
    if (s && strcmp(s, "html") == 0) {
        *fmt = HR_EMIT_HTML;
        return 0;
    }
    return hr_emit_format_parse(s, fmt);
}

void hr_emit_put_xml(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: /* XML 1.0 has no other control characters, escaped or not */
            fputc((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r' ? ' ' : *s, f);
        }
    }
}

/* ---- JSON scalars ------------------------------------------------------ */

/* Shortest of %.15g/%.16g/%.17g that reads back to the same double (so
 * 0.1 prints as 0.1, yet every value round-trips). Non-finite -> "null". */
static void fmt_double(char *buf, size_t n, double v) {
    if (!isfinite(v)) {
        snprintf(buf, n, "null");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e17) { /* integral: no exponent */
        snprintf(buf, n, "%.0f", v);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

static void put_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static int level(const hr_emit_t *em) {
    return em->depth < HR_EMIT_MAX_DEPTH ? em->depth : HR_EMIT_MAX_DEPTH - 1;
}

static void newline_indent(hr_emit_t *em, int depth) {
    if (em->compact)
        return;
    fputc('\n', em->out);
    for (int i = 0; i < depth; i++)
        fputs("  ", em->out);
}

/* Write the separator and key that precede a value at the current depth. */
static void json_prefix(hr_emit_t *em, const char *key) {
    int d = level(em);
    if (em->depth == 0) {
        if (!(em->first[0] & F_FIRST))
            fputc('\n', em->out);
        em->first[0] &= ~F_FIRST;
        return;
    }
    if (!(em->first[d] & F_FIRST))
        fputs(em->first[d] & F_INLINE && !em->compact ? ", " : ",", em->out);
    em->first[d] &= ~F_FIRST;
    if (!(em->first[d] & F_INLINE))
        newline_indent(em, em->depth);
    if (key && !(em->first[d] & F_ARRAY)) {
        put_json_string(em->out, key);
        fputs(em->compact ? ":" : ": ", em->out);
    }
}

static void open_container(hr_emit_t *em, const char *key, char ch, int array) {
    json_prefix(em, key);
    fputc(ch, em->out);
    em->depth++;
    if (em->depth < HR_EMIT_MAX_DEPTH)
        em->first[em->depth] = F_FIRST | (array ? F_ARRAY : 0);
}

static void close_container(hr_emit_t *em, char ch) {
    if (em->depth <= 0)
        return;
    int had_items = !(em->first[level(em)] & (F_FIRST | F_INLINE));
    em->depth--;
    if (had_items)
        newline_indent(em, em->depth);
    fputc(ch, em->out);
}

void hr_emit_obj_begin(hr_emit_t *em, const char *key) { open_container(em, key, '{', 0); }
void hr_emit_obj_end(hr_emit_t *em) { close_container(em, '}'); }
void hr_emit_arr_begin(hr_emit_t *em, const char *key) { open_container(em, key, '[', 1); }
void hr_emit_arr_end(hr_emit_t *em) { close_container(em, ']'); }

void hr_emit_arr_begin_inline(hr_emit_t *em, const char *key) {
    open_container(em, key, '[', 1);
    if (em->depth < HR_EMIT_MAX_DEPTH)
        em->first[em->depth] |= F_INLINE;
}

void hr_emit_u64(hr_emit_t *em, const char *key, uint64_t v) {
    json_prefix(em, key);
    fprintf(em->out, "%llu", (unsigned long long)v);
}

void hr_emit_i64(hr_emit_t *em, const char *key, int64_t v) {
    json_prefix(em, key);
    fprintf(em->out, "%lld", (long long)v);
}

void hr_emit_f64(hr_emit_t *em, const char *key, double v) {
    char buf[40];
    fmt_double(buf, sizeof buf, v);
    json_prefix(em, key);
    fputs(buf, em->out);
}

void hr_emit_str(hr_emit_t *em, const char *key, const char *v) {
    json_prefix(em, key);
    if (v)
        put_json_string(em->out, v);
    else
        fputs("null", em->out);
}

void hr_emit_bool(hr_emit_t *em, const char *key, int v) {
    json_prefix(em, key);
    fputs(v ? "true" : "false", em->out);
}

void hr_emit_null(hr_emit_t *em, const char *key) {
    json_prefix(em, key);
    fputs("null", em->out);
}

void hr_emit_end(hr_emit_t *em) {
    while (em->depth > 0)
        close_container(em, (em->first[level(em)] & F_ARRAY) ? ']' : '}');
    if (!(em->first[0] & F_FIRST))
        fputc('\n', em->out);
    em->first[0] = F_FIRST;
    fflush(em->out);
}

/* ---- tables ------------------------------------------------------------ */

static void table_free(hr_emit_t *em) {
    for (int i = 0; i < em->ncols; i++)
        free(em->cols[i]);
    if (em->cells)
        for (int i = 0; i < em->cap_rows * em->ncols; i++)
            free(em->cells[i]);
    free(em->cells);
    em->cells = NULL;
    em->ncols = em->nrows = em->cap_rows = em->col = 0;
}

void hr_emit_table_begin(hr_emit_t *em, const char *title, int ncols, const char *const *cols) {
    table_free(em);
    free(em->title); /* one table open per emitter: tables do not nest */
    em->title = title ? strdup(title) : NULL;
    if (title && !em->title)
        hr_outfile_note_oom();
    if (ncols > HR_EMIT_MAX_COLS)
        ncols = HR_EMIT_MAX_COLS;
    em->ncols = ncols;
    for (int i = 0; i < ncols; i++) {
        const char *c = cols[i] ? cols[i] : "";
        em->right[i] = c[0] == '>';
        if (!(em->cols[i] = strdup(c + em->right[i]))) {
            hr_outfile_note_oom(); /* the table keeps the columns it has */
            em->ncols = i;
            break;
        }
    }
}

/* Store one tagged cell into the current row. */
static void cell_put(hr_emit_t *em, char tag, const char *text) {
    if (em->col >= em->ncols)
        return; /* extra cells are dropped: the header decides the shape */
    if (em->nrows >= em->cap_rows) {
        int cap = em->cap_rows ? em->cap_rows * 2 : 16;
        char **c = realloc(em->cells, (size_t)cap * (size_t)em->ncols * sizeof *c);
        if (!c) {
            hr_outfile_note_oom();
            return;
        }
        memset(c + (size_t)em->cap_rows * em->ncols, 0,
               (size_t)(cap - em->cap_rows) * em->ncols * sizeof *c);
        em->cells = c;
        em->cap_rows = cap;
    }
    size_t len = strlen(text);
    char *s = malloc(len + 2);
    if (!s) {
        hr_outfile_note_oom();
        return;
    }
    s[0] = tag;
    memcpy(s + 1, text, len + 1);
    char **slot = &em->cells[(size_t)em->nrows * em->ncols + em->col];
    free(*slot);
    *slot = s;
    em->col++;
}

void hr_emit_cell_str(hr_emit_t *em, const char *v) {
    if (v)
        cell_put(em, 'S', v);
    else
        cell_put(em, 'Z', "");
}

void hr_emit_cell_u64(hr_emit_t *em, uint64_t v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    cell_put(em, 'N', buf);
}

void hr_emit_cell_f64(hr_emit_t *em, double v, int decimals) {
    char buf[64];
    if (!isfinite(v)) {
        cell_put(em, 'Z', "");
        return;
    }
    if (em->format == HR_EMIT_JSON)
        fmt_double(buf, sizeof buf, v);
    else
        snprintf(buf, sizeof buf, "%.*f", decimals < 0 ? 0 : decimals > 17 ? 17 : decimals, v);
    cell_put(em, 'N', buf);
}

void hr_emit_cell_num(hr_emit_t *em, double v) {
    char buf[40];
    if (!isfinite(v)) {
        cell_put(em, 'Z', "");
        return;
    }
    fmt_double(buf, sizeof buf, v);
    cell_put(em, 'N', buf);
}

void hr_emit_row_end(hr_emit_t *em) {
    if (em->ncols == 0)
        return;
    while (em->col < em->ncols)
        cell_put(em, 'Z', "");
    em->nrows++;
    em->col = 0;
}

static const char *cell(const hr_emit_t *em, int r, int c) {
    const char *s = em->cells ? em->cells[(size_t)r * em->ncols + c] : NULL;
    return s ? s : "Z";
}

/* Display width: UTF-8 code points, so "µs" aligns like "us". */
static int width(const char *s) {
    int w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void pad(FILE *f, int n) {
    while (n-- > 0)
        fputc(' ', f);
}

static void render_text(hr_emit_t *em) {
    int w[HR_EMIT_MAX_COLS];
    for (int c = 0; c < em->ncols; c++) {
        w[c] = width(em->cols[c]);
        for (int r = 0; r < em->nrows; r++) {
            const char *s = cell(em, r, c);
            int cw = s[0] == 'Z' ? 1 : width(s + 1);
            if (cw > w[c])
                w[c] = cw;
        }
    }
    if (em->title && *em->title)
        fprintf(em->out, "%s\n", em->title);
    for (int r = -2; r < em->nrows; r++) {
        for (int c = 0; c < em->ncols; c++) {
            const char *s = r == -2 ? em->cols[c] : NULL;
            if (r >= 0) {
                s = cell(em, r, c);
                s = s[0] == 'Z' ? "-" : s + 1;
            }
            int last = c == em->ncols - 1;
            if (r == -1) {
                for (int i = 0; i < w[c]; i++)
                    fputc('-', em->out);
            } else if (em->right[c]) {
                pad(em->out, w[c] - width(s));
                fputs(s, em->out);
            } else {
                fputs(s, em->out);
                if (!last)
                    pad(em->out, w[c] - width(s));
            }
            if (!last)
                fputs("  ", em->out);
        }
        fputc('\n', em->out);
    }
    fputc('\n', em->out);
}

/* RFC 4180: quote a field holding a comma, quote, CR or LF (or edge
 * spaces, which some readers trim); double the quotes inside. */
static void put_csv(FILE *f, const char *s) {
    size_t n = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") != NULL || (n && (s[0] == ' ' || s[n - 1] == ' '));
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void render_csv(hr_emit_t *em) {
    if (em->title && *em->title)
        fprintf(em->out, "# %s\n", em->title);
    for (int r = -1; r < em->nrows; r++) {
        for (int c = 0; c < em->ncols; c++) {
            const char *s = r < 0 ? em->cols[c] : cell(em, r, c) + 1;
            if (c)
                fputs(",", em->out);
            put_csv(em->out, s);
        }
        fputc('\n', em->out); /* LF: friendlier to shells; quoting is RFC 4180 */
    }
}

static void put_md(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
}

static void render_md(hr_emit_t *em) {
    if (em->title && *em->title)
        fprintf(em->out, "### %s\n\n", em->title);
    for (int r = -2; r < em->nrows; r++) {
        fputc('|', em->out);
        for (int c = 0; c < em->ncols; c++) {
            if (r == -1) {
                fputs(em->right[c] ? "---:|" : "---|", em->out);
                continue;
            }
            const char *s = r == -2 ? em->cols[c] : cell(em, r, c);
            if (r >= 0)
                s = s[0] == 'Z' ? "-" : s + 1;
            fputc(' ', em->out);
            put_md(em->out, s);
            fputs(" |", em->out);
        }
        fputc('\n', em->out);
    }
    fputc('\n', em->out);
}

/* HTML: a caption from the title, a header row, one row per table row;
 * right-aligned columns get class "num", missing cells "-". The block is
 * framed by the HR_EMIT_HTML_BEGIN/END lines (emit.h). */
static void render_html(hr_emit_t *em) {
    fputs(HR_EMIT_HTML_BEGIN "\n<table class=\"hr\">\n", em->out);
    if (em->title && *em->title) {
        fputs("<caption>", em->out);
        hr_emit_put_xml(em->out, em->title);
        fputs("</caption>\n", em->out);
    }
    for (int r = -1; r < em->nrows; r++) {
        fputs(r < 0 ? "<thead><tr>" : "<tr>", em->out);
        for (int c = 0; c < em->ncols; c++) {
            const char *s = r < 0 ? em->cols[c] : cell(em, r, c);
            if (r >= 0)
                s = s[0] == 'Z' ? "-" : s + 1;
            fprintf(em->out, "<%s%s>", r < 0 ? "th" : "td", em->right[c] ? " class=\"num\"" : "");
            hr_emit_put_xml(em->out, s);
            fputs(r < 0 ? "</th>" : "</td>", em->out);
        }
        fputs(r < 0 ? "</tr></thead>\n<tbody>\n" : "</tr>\n", em->out);
    }
    fputs("</tbody>\n</table>\n" HR_EMIT_HTML_END "\n", em->out);
}

/* In JSON a table is an array of objects; inside an object it is keyed by
 * its title (or "table"). */
static void render_json(hr_emit_t *em) {
    int in_obj = em->depth > 0 && !(em->first[level(em)] & F_ARRAY);
    hr_emit_arr_begin(em, in_obj ? (em->title ? em->title : "table") : NULL);
    for (int r = 0; r < em->nrows; r++) {
        hr_emit_obj_begin(em, NULL);
        for (int c = 0; c < em->ncols; c++) {
            const char *s = cell(em, r, c);
            if (s[0] == 'Z') {
                hr_emit_null(em, em->cols[c]);
            } else if (s[0] == 'S') {
                hr_emit_str(em, em->cols[c], s + 1);
            } else {
                json_prefix(em, em->cols[c]);
                fputs(s + 1, em->out);
            }
        }
        hr_emit_obj_end(em);
    }
    hr_emit_arr_end(em);
    if (em->depth == 0)
        hr_emit_end(em);
}

void hr_emit_table_end(hr_emit_t *em) {
    if (em->col > 0)
        hr_emit_row_end(em);
    switch (em->format) {
    case HR_EMIT_TEXT: render_text(em); break;
    case HR_EMIT_CSV: render_csv(em); break;
    case HR_EMIT_MARKDOWN: render_md(em); break;
    case HR_EMIT_HTML: render_html(em); break;
    case HR_EMIT_JSON: render_json(em); break;
    }
    table_free(em);
    free(em->title);
    em->title = NULL;
    fflush(em->out);
}

int hr_emit_mem_open(hr_emit_mem_t *m, int compact) {
    m->buf = NULL;
    m->len = 0;
    m->f = hr_memstream_open(&m->buf, &m->len);
    if (!m->f)
        return -1;
    hr_emit_init(&m->em, m->f, HR_EMIT_JSON);
    m->em.compact = compact;
    return 0;
}

char *hr_emit_mem_close(hr_emit_mem_t *m) {
    if (!m->f)
        return NULL;
    int bad = ferror(m->f); /* a write that could not grow the buffer */
    bad |= fclose(m->f) != 0;
    m->f = NULL;
    if (bad || !m->buf) {
        hr_outfile_note_oom();
        free(m->buf);
        m->buf = NULL;
    }
    return m->buf;
}
