/* Prose of the text reports, wrapped to a width (prose.h). */
#include "report/prose.h"

#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"

/* Code points of s[0..n). */
static size_t cps(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* One line (without its newline) broken at spaces to the width; pieces
 * after the first are indented by the line's indent plus 4. A word longer
 * than the width stays whole. */
static void wrap_line(FILE *out, const char *s, size_t n) {
    size_t indent = 0, pad = 0, skip;
    while (indent < n && s[indent] == ' ')
        indent++;
    skip = indent; /* never break inside the indent */
    while (pad < HR_PROSE_WIDTH && cps(s, n) + pad > HR_PROSE_WIDTH) {
        size_t room = HR_PROSE_WIDTH - pad, brk = 0, w = 0;
        for (size_t i = 0; i < n && w <= room; i++) {
            if (s[i] == ' ' && i > skip)
                brk = i; /* s[0..i) is w code points: it fits */
            w += ((unsigned char)s[i] & 0xC0) != 0x80;
        }
        if (brk == 0)
            break;
        fprintf(out, "%*s%.*s\n", (int)pad, "", (int)brk, s);
        s += brk + 1;
        n -= brk + 1;
        pad = indent + 4;
        skip = 0;
    }
    fprintf(out, "%*s%.*s\n", (int)pad, "", (int)n, s);
}

FILE *hr_prose_open(hr_prose_t *p) {
    p->text = NULL;
    p->len = 0;
    p->f = hr_memstream_open(&p->text, &p->len);
    return p->f;
}

void hr_prose_close(hr_prose_t *p, FILE *out, int md) {
    int bad = ferror(p->f);
    bad |= fclose(p->f) != 0;
    if (bad || !p->text) /* the buffer could not grow: the text is cut */
        hr_outfile_note_oom();
    else
        hr_prose_wrap(out, p->text, md);
    free(p->text);
}

void hr_prose_wrap(FILE *out, const char *text, int md) {
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text) : strlen(text);
        if (md)
            fprintf(out, "%.*s\n", (int)n, text);
        else
            wrap_line(out, text, n);
        text += n + (nl != NULL);
    }
}
