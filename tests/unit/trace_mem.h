/* Test helpers: a trace written to memory by the FILE writers, and one read
 * from a text held in memory, for tests that compare formats byte by byte
 * (test_trace_format, test_stacks, test_program, test_command). */
#ifndef HR_TEST_TRACE_MEM_H
#define HR_TEST_TRACE_MEM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace.h"

/* The text (text != 0) or binary form of t in a malloc'd buffer of *len
 * bytes; NULL when a writer failed or out of memory. */
static inline char *write_mem(const hr_trace_t *t, int text, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    int rc = text ? hr_trace_write_text(f, t) : hr_trace_write_binary(f, t);
    fclose(f);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The text trace `src` read into t (initialized here) as file `name`: 0, or
 * -1 with err set. */
static inline int read_text_mem(const char *src, const char *name, hr_trace_t *t,
                                hr_error_t *err) {
    hr_trace_init(t);
    return hr_trace_read_mem(src, strlen(src), name, HR_FMT_TEXT, t, err);
}

/* t's text form as a string (free it); NULL when the writer failed. */
static inline char *text_of(const hr_trace_t *t) {
    size_t len;
    return write_mem(t, 1, &len);
}

#endif
