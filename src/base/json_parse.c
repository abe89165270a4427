/* JSON DOM parser (see json.h): recursive descent over a byte buffer, with
 * one-line errors naming the input, the byte offset and what was expected;
 * at most HR_JSON_MAX_DEPTH nested arrays and objects. */
#include "base/json.h"
#include "base/json_int.h"
#include "base/outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HR_JSON_MAX_DEPTH 256

typedef struct parser {
    const char *p, *start, *end, *name;
    hr_error_t *err;
    int         failed, depth;
} parser_t;

static hr_json_t *fail(parser_t *ps, const char *expected) {
    if (!ps->failed)
        hr_error_set(ps->err, "%s: offset %zu: expected %s", ps->name,
                     (size_t)(ps->p - ps->start), expected);
    ps->failed = 1;
    return NULL;
}

static void skip_ws(parser_t *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int literal(parser_t *ps, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return 0;
    ps->p += n;
    return 1;
}

static int hex4(parser_t *ps, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++, ps->p++) {
        if (ps->p >= ps->end)
            return -1;
        char c = *ps->p;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* One escape after the backslash; appends UTF-8 to o, returns bytes or -1. */
static int unescape(parser_t *ps, char *o) {
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = ps->p < ps->end && *ps->p ? strchr(from, *ps->p) : NULL;
    if (k) {
        ps->p++;
        *o = to[k - from];
        return 1;
    }
    if (ps->p >= ps->end || *ps->p != 'u')
        return fail(ps, "escape character (one of \"\\/bfnrtu)"), -1;
    ps->p++;
    unsigned cp, lo;
    if (hex4(ps, &cp) < 0)
        return fail(ps, "4 hex digits after \\u"), -1;
    if (cp >= 0xD800 && cp < 0xDC00) { /* high surrogate: needs its pair */
        if (!literal(ps, "\\u") || hex4(ps, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
            return fail(ps, "low surrogate \\uDC00-\\uDFFF"), -1;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    } else if (cp >= 0xDC00 && cp < 0xE000) {
        return fail(ps, "high surrogate before low surrogate"), -1;
    }
    return (int)put_utf8(o, cp);
}

/* A string at ps->p (on the opening quote). Returns malloc'd UTF-8. The
 * decoded text is never longer than the source span. */
static char *parse_string(parser_t *ps) {
    if (ps->p >= ps->end || *ps->p != '"')
        return fail(ps, "string"), NULL;
    const char *q = ++ps->p;
    while (q < ps->end && *q != '"')
        q += (*q == '\\' && q + 1 < ps->end) ? 2 : 1;
    char *out = malloc((size_t)(q - ps->p) + 1), *o = out;
    if (!out) {
        hr_outfile_note_oom();
        return fail(ps, "memory for a string"), NULL;
    }
    for (;;) {
        if (ps->p >= ps->end) {
            free(out);
            return fail(ps, "closing '\"'"), NULL;
        }
        unsigned char c = (unsigned char)*ps->p;
        if (c == '"')
            break;
        if (c < 0x20) {
            free(out);
            return fail(ps, "escaped control character in string"), NULL;
        }
        ps->p++;
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        int n = unescape(ps, o);
        if (n < 0) {
            free(out);
            return NULL;
        }
        o += n;
    }
    ps->p++;
    *o = 0;
    return out;
}

static hr_json_t *parse_number(parser_t *ps) {
    const char *s = ps->p, *q = s;
    int integral = 1;
    if (q < ps->end && *q == '-')
        q++;
    if (q >= ps->end || *q < '0' || *q > '9')
        return fail(ps, "value");
    if (*q == '0')
        q++;
    else
        while (q < ps->end && *q >= '0' && *q <= '9')
            q++;
    if (q < ps->end && *q == '.') {
        integral = 0;
        if (++q >= ps->end || *q < '0' || *q > '9')
            return ps->p = q, fail(ps, "digit after '.'");
        while (q < ps->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        integral = 0;
        if (++q < ps->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= ps->end || *q < '0' || *q > '9')
            return ps->p = q, fail(ps, "digit in exponent");
        while (q < ps->end && *q >= '0' && *q <= '9')
            q++;
    }
    char buf[400];
    size_t n = (size_t)(q - s);
    if (n >= sizeof buf)
        return fail(ps, "number of at most 399 characters");
    memcpy(buf, s, n);
    buf[n] = 0;
    ps->p = q;
    hr_json_t *v = hr_json_new_num(strtod(buf, NULL));
    if (!v)
        return fail(ps, "memory for a number");
    if (integral) {
        errno = 0;
        if (buf[0] != '-') {
            unsigned long long u = strtoull(buf, NULL, 10);
            if (errno == 0) {
                v->is_u64 = 1;
                v->u64 = u;
            }
        } else {
            long long i = strtoll(buf, NULL, 10);
            if (errno == 0 && i < 0) {
                v->is_i64 = 1;
                v->i64 = i;
            } /* "-0" stays the double -0.0: it prints back as "-0" (fuzz_json) */
        }
    }
    return v;
}

static hr_json_t *parse_value(parser_t *ps);

static hr_json_t *parse_array(parser_t *ps) {
    hr_json_t *a = hr_json_new_array();
    if (!a)
        return fail(ps, "memory for an array");
    ps->p++; /* '[' */
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return a;
    }
    for (;;) {
        hr_json_t *v = parse_value(ps);
        if (!v || hr_json_push(a, v) < 0)
            goto bad;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return a;
        }
        fail(ps, "',' or ']'");
        goto bad;
    }
bad:
    hr_json_free(a);
    return NULL;
}

static hr_json_t *parse_object(parser_t *ps) {
    hr_json_t *o = hr_json_new_object();
    if (!o)
        return fail(ps, "memory for an object");
    ps->p++; /* '{' */
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return o;
    }
    for (;;) {
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != '"') {
            fail(ps, "'\"' starting an object key");
            goto bad;
        }
        char *key = parse_string(ps);
        if (!key)
            goto bad;
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':') {
            free(key);
            fail(ps, "':' after object key");
            goto bad;
        }
        ps->p++;
        hr_json_t *v = parse_value(ps);
        if (!v) {
            free(key);
            goto bad;
        }
        if (hr_json_obj_append(o, key, v) < 0) {
            fail(ps, "memory for an object member");
            goto bad;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return o;
        }
        fail(ps, "',' or '}'");
        goto bad;
    }
bad:
    hr_json_free(o);
    return NULL;
}

static hr_json_t *parse_value(parser_t *ps) {
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "value (input ended)");
    if (ps->depth >= HR_JSON_MAX_DEPTH)
        return fail(ps, "at most 256 nested arrays/objects");
    hr_json_t *v = NULL;
    ps->depth++;
    switch (*ps->p) {
    case '{': v = parse_object(ps); break;
    case '[': v = parse_array(ps); break;
    case '"': {
        char *s = parse_string(ps);
        if (s && !(v = hr_json_new_value(HR_JSON_STRING)))
            free(s);
        else if (s)
            v->str = s;
        break;
    }
    case 't': v = literal(ps, "true") ? hr_json_new_bool(1) : fail(ps, "value"); break;
    case 'f': v = literal(ps, "false") ? hr_json_new_bool(0) : fail(ps, "value"); break;
    case 'n': v = literal(ps, "null") ? hr_json_new_null() : fail(ps, "value"); break;
    default: v = parse_number(ps); break;
    }
    ps->depth--;
    return v;
}

hr_json_t *hr_json_parse(const char *buf, size_t len, const char *name, hr_error_t *err) {
    parser_t ps = {buf, buf, buf + len, name ? name : "<input>", err, 0, 0};
    hr_error_set(err, "%s", "");
    hr_json_t *v = parse_value(&ps);
    if (!v) {
        /* a value the parser could not allocate has no message of its own */
        if (err && !err->msg[0])
            hr_error_set(err, "%s: %s", ps.name, strerror(ENOMEM));
        return NULL;
    }
    skip_ws(&ps);
    if (ps.p != ps.end) {
        hr_json_free(v);
        return fail(&ps, "end of input after the JSON value");
    }
    return v;
}

/* 1 when the first byte after the leading whitespace of b[0..n) can begin no
 * JSON value: the parse then fails there, whatever follows. */
static int cannot_start(const char *b, size_t n) {
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
        i++;
    return i < n && (b[i] == 0 || !strchr("{[\"-0123456789tfn", b[i]));
}

hr_json_t *hr_json_parse_file(const char *path, hr_error_t *err) {
    return hr_json_parse_file_max(path, 0, err);
}

hr_json_t *hr_json_parse_file_max(const char *path, size_t max, hr_error_t *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        hr_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == n && cannot_start(buf, len))
            break; /* refused at its first byte: an endless /dev/zero is not read on */
        if (max && len > max) { /* a device or pipe has no size to check first */
            hr_error_set(err, "%s: expected at most %zu bytes of JSON, got more", path, max);
            free(buf);
            fclose(f);
            return NULL;
        }
        if (len == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int rd_err = ferror(f);
    fclose(f);
    if (!buf || rd_err) {
        hr_error_set(err, "%s: cannot read: %s", path, buf ? "I/O error" : "out of memory");
        free(buf);
        return NULL;
    }
    hr_json_t *v = hr_json_parse(buf, len, path, err);
    free(buf);
    return v;
}

