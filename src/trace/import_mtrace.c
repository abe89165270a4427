/* Importer for glibc mtrace logs (MALLOC_TRACE=file + mtrace()).
 *
 * Lines (glibc malloc/mtrace-impl.c; numbers are %p / %#lx hex):
 *   = Start | = End                        session marks (ignored)
 *   @ CALLER + ADDR SIZE                    malloc/calloc/memalign/realloc(NULL,n)
 *   @ CALLER - ADDR                         free (also realloc(p,0))
 *   @ CALLER < OLD                          realloc, first half: the old block
 *   @ CALLER > NEW SIZE                     realloc, second half: the new block
 *   @ CALLER ! OLD SIZE                     failed realloc (old stays live)
 * The "@ CALLER" prefix is optional ("@ ./prog:[0x4005d4]" or
 * "@ ./prog:(main+0x1c)[0x4005d4]"). mtrace has no thread ids: thread 0. */
#include <stdlib.h>
#include <string.h>

#include "trace/import.h"

typedef struct mt_state {
    const char *path;
    unsigned long line;
    uint64_t pending_old; /* "<" seen, waiting for ">" */
    int have_pending;
} mt_state_t;

/* Parses a %p / %#lx number: 0x..., a bare hex or "(nil)". */
static int parse_hex(const char **p, uint64_t *v) {
    while (**p == ' ' || **p == '\t')
        (*p)++;
    if (strncmp(*p, "(nil)", 5) == 0) {
        *v = 0;
        *p += 5;
        return 0;
    }
    char *end;
    unsigned long long x = strtoull(*p, &end, 16);
    if (end == *p)
        return -1;
    *v = x;
    *p = end;
    return 0;
}

/* Finds the op character: skips "@ caller" if present. */
static const char *op_start(const char *s) {
    if (s[0] != '@')
        return s;
    const char *p = s + 1;
    while (*p == ' ')
        p++;
    while (*p && *p != ' ') /* the caller token has no spaces */
        p++;
    while (*p == ' ')
        p++;
    return p;
}

static int mt_line(mt_state_t *st, hr_addrmap_t *m, hr_repair_t *rep, const char *s,
                   hr_error_t *err) {
    if (s[0] == '=' || s[0] == '\0' || s[0] == '\n')
        return 0;
    const char *p = op_start(s);
    char op = *p;
    uint64_t a = 0, n = 0;
    if (!op || !strchr("+-<>!", op) || p[1] != ' ') {
        hr_error_set(err, "%s:%lu: expected an mtrace record '+ ADDR SIZE', '- ADDR', '< ADDR', "
                     "'> ADDR SIZE' or '! ADDR SIZE'", st->path, st->line);
        return -1;
    }
    p++;
    int need_size = op == '+' || op == '>' || op == '!';
    if (parse_hex(&p, &a) != 0 || (need_size && parse_hex(&p, &n) != 0)) {
        hr_error_set(err, "%s:%lu: expected a hex address%s after '%c'", st->path, st->line,
                     need_size ? " and size" : "", op);
        return -1;
    }
    rep->events_in++;
    if (op != '>' && st->have_pending) { /* "<" without its ">": treat as free */
        st->have_pending = 0;
        if (hr_addrmap_free(m, 0, st->pending_old, 0) != 0)
            return -1;
    }
    switch (op) {
    case '+': return hr_addrmap_alloc(m, 0, a, n, 0, 0);
    case '-': return hr_addrmap_free(m, 0, a, 0);
    case '<':
        st->pending_old = a;
        st->have_pending = 1;
        return 0;
    case '>':
        if (!st->have_pending)
            return hr_addrmap_realloc(m, 0, 0, a, n, 0);
        st->have_pending = 0;
        return hr_addrmap_realloc(m, 0, st->pending_old, a, n, 0);
    default: /* '!' */
        rep->failed_allocs++;
        return 0;
    }
}

int hr_import_mtrace(const char *path, hr_trace_t *out, hr_repair_t *rep, hr_error_t *err) {
    FILE *f = fopen(path, "r");
    if (!f) {
        hr_error_set(err, "%s: cannot open", path);
        return -1;
    }
    mt_state_t st = {.path = path};
    err->msg[0] = 0;
    hr_addrmap_t *m = hr_addrmap_new(out, rep, 0);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = m ? 0 : -1, saw_end = 0, last_complete = 1;
    if (!m)
        hr_error_set(err, "%s: out of memory", path);
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        st.line++;
        last_complete = len > 0 && line[len - 1] == '\n';
        if (!last_complete) { /* a cut last line: stop before it */
            rep->truncated = 1;
            snprintf(rep->truncation, sizeof rep->truncation, "line %lu cut short", st.line);
            break;
        }
        if (strncmp(line, "= End", 5) == 0)
            saw_end = 1;
        if (mt_line(&st, m, rep, line, err) != 0) {
            if (!err->msg[0])
                hr_error_set(err, "%s:%lu: out of memory", path, st.line);
            rc = -1;
        }
    }
    if (rc == 0 && st.have_pending)
        rc = hr_addrmap_free(m, 0, st.pending_old, 0);
    snprintf(rep->ended, sizeof rep->ended, "%s",
             saw_end ? "= End (muntrace)" : "no '= End' line (muntrace() not called)");
    rep->threads = 1;
    hr_addrmap_finish(m);
    free(line);
    fclose(f);
    return rc;
}
