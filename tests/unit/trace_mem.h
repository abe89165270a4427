/* Test helper: a trace written to memory by the FILE writers, for tests that
 * compare formats byte by byte (test_trace_format, test_stacks). */
#ifndef HR_TEST_TRACE_MEM_H
#define HR_TEST_TRACE_MEM_H

#include <stdio.h>
#include <stdlib.h>

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

#endif
