/* The emitter: one writer for every output format (after jemalloc's emitter.h).
 *
 * Structured data (what a replay child sends back, what report JSON holds) is
 * written with the kv/object/array calls and comes out as JSON. Tabular data
 * (the human report) is written with the table calls and comes out as a text
 * table, CSV or Markdown depending on the emitter's format; in JSON format a
 * table becomes an array of objects keyed by column name.
 *
 * Contract: keys are ASCII identifiers; strings are escaped; doubles that are
 * not finite are written as null (JSON has no NaN).
 */
#ifndef HR_BASE_EMIT_H
#define HR_BASE_EMIT_H

#include <stdint.h>
#include <stdio.h>

typedef enum hr_emit_format {
    HR_EMIT_JSON = 0,
    HR_EMIT_TEXT,
    HR_EMIT_CSV,
    HR_EMIT_MARKDOWN,
    HR_EMIT_HTML, /* tables as <table> blocks (see hr_emit_table_end) */
} hr_emit_format_t;

#define HR_EMIT_MAX_DEPTH 256 /* = the JSON parser's limit: whatever it reads, the emitter writes back */
#define HR_EMIT_MAX_COLS 256 /* CSV of flattened results: ~150 with every allocator */

typedef struct hr_emit {
    FILE            *out;
    hr_emit_format_t format;
    int              depth;
    int              first[HR_EMIT_MAX_DEPTH]; /* no element yet at this depth */
    int              compact;                  /* JSON on one line (pipes) */
    /* current table (text/CSV/Markdown) */
    int    ncols, nrows, cap_rows;
    char  *cols[HR_EMIT_MAX_COLS];
    int    right[HR_EMIT_MAX_COLS];            /* right-align (numbers) */
    char **cells;                              /* nrows * ncols, owned */
    int    col;                                /* next cell in current row */
    char  *title;                              /* the open table's title, owned (or NULL) */
} hr_emit_t;

void hr_emit_init(hr_emit_t *em, FILE *out, hr_emit_format_t fmt);

/* An emitter writing JSON into memory: open, emit through m.em, close. The
 * text (malloc'd, no trailing newline) is returned by close; NULL on OOM. */
typedef struct hr_emit_mem {
    hr_emit_t em;
    FILE     *f;
    char     *buf;
    size_t    len;
} hr_emit_mem_t;
int hr_emit_mem_open(hr_emit_mem_t *m, int compact); /* 0, or -1 on OOM */
/* The text written (the caller frees it), or NULL when out of memory (the
 * buffer could not grow: a truncated text is never returned). */
char *hr_emit_mem_close(hr_emit_mem_t *m);
/* json, text, csv, md: 0 ok, -1 unknown. The _html variant also takes
 * "html" (commands that render a whole report page: replay, report; compare
 * has no page and keeps the plain one). */
int hr_emit_format_parse(const char *s, hr_emit_format_t *fmt);
int hr_emit_format_parse_html(const char *s, hr_emit_format_t *fmt);

/* The one XML/HTML escaper (& < > " '; other control characters than tab
 * and line ends, which XML 1.0 forbids, become spaces), for the HTML tables,
 * the SVG charts and the HTML page. NULL writes nothing. */
void hr_emit_put_xml(FILE *f, const char *s);

/* In HTML format a table is written as one block that starts with the line
 * HR_EMIT_HTML_BEGIN and ends with the line HR_EMIT_HTML_END, so a page
 * renderer can tell the (escaped, ready) tables from the free text lines a
 * report writes between them (which it must escape itself). */
#define HR_EMIT_HTML_BEGIN "<!--hr-table-->"
#define HR_EMIT_HTML_END "<!--/hr-table-->"

/* Structured (JSON). `key` is NULL inside arrays and at the top level. */
void hr_emit_obj_begin(hr_emit_t *em, const char *key);
void hr_emit_obj_end(hr_emit_t *em);
void hr_emit_arr_begin(hr_emit_t *em, const char *key);
void hr_emit_arr_end(hr_emit_t *em);
/* An array whose elements are written on one line ("[1, 2, 3]") also when
 * pretty-printing; for arrays of scalars (long series stay readable and
 * small). Ended by hr_emit_arr_end. */
void hr_emit_arr_begin_inline(hr_emit_t *em, const char *key);
void hr_emit_u64(hr_emit_t *em, const char *key, uint64_t v);
void hr_emit_i64(hr_emit_t *em, const char *key, int64_t v);
void hr_emit_f64(hr_emit_t *em, const char *key, double v);
void hr_emit_str(hr_emit_t *em, const char *key, const char *v);
void hr_emit_bool(hr_emit_t *em, const char *key, int v);
void hr_emit_null(hr_emit_t *em, const char *key);
/* Finish the document (newline). */
void hr_emit_end(hr_emit_t *em);

/* Tables. Column names starting with '>' are right-aligned (the '>' is
 * dropped). Cells are added left to right; rows end with hr_emit_row_end. */
void hr_emit_table_begin(hr_emit_t *em, const char *title, int ncols, const char *const *cols);
void hr_emit_cell_str(hr_emit_t *em, const char *v);
void hr_emit_cell_u64(hr_emit_t *em, uint64_t v);
void hr_emit_cell_f64(hr_emit_t *em, double v, int decimals);
/* An exact number: the shortest form that reads back to v, in every format
 * (CSV/JSON exports; non-finite -> empty/null). */
void hr_emit_cell_num(hr_emit_t *em, double v);
void hr_emit_row_end(hr_emit_t *em);
void hr_emit_table_end(hr_emit_t *em);

#endif
