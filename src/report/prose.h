/* Prose of the text reports (the verdicts and notes under each table, the
 * notes of the prediction and cross-trace tables): collected in memory, then
 * written wrapped to the summary's width. Text only: it knows nothing of a
 * report, so every floor above may use it (src/report/report.h). */
#ifndef HR_REPORT_PROSE_H
#define HR_REPORT_PROSE_H

#include <stddef.h>
#include <stdio.h>

/* Text summaries fit this many columns (code points) on the shipped traces:
 * the table is laid out for it and prose lines are wrapped at it. */
#define HR_PROSE_WIDTH 100

/* Writes `text` on out. Text (md == 0): every line longer than
 * HR_PROSE_WIDTH code points is broken at spaces, the continuation
 * indented by the line's own indent plus 4; Markdown: unchanged. */
void hr_prose_wrap(FILE *out, const char *text, int md);

/* Prose collected in memory, then written wrapped (hr_prose_wrap):
 * hr_prose_open returns the stream to write to, or NULL (out of memory);
 * hr_prose_close writes what was collected on out and frees it. */
typedef struct hr_prose {
    char  *text;
    size_t len;
    FILE  *f;
} hr_prose_t;
FILE *hr_prose_open(hr_prose_t *p);
void hr_prose_close(hr_prose_t *p, FILE *out, int md);

#endif
