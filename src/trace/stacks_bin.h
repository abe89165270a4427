/* The stacks block of a binary trace (internal to src/trace/; format 1.5,
 * docs/TRACE_FORMAT.md "Stacks block"). */
#ifndef HR_TRACE_STACKS_BIN_H
#define HR_TRACE_STACKS_BIN_H

#include "trace/format.h"

/* 1 when t has anything to write in a stacks block (a module, frame,
 * stack or site); a trace without is written as before 1.5. */
int hr_stacks_has(const hr_trace_t *t);

/* Appends the block for t (its events already final); 0, or -1 on out of
 * memory or a model that names what the trace does not have. */
int hr_stacks_encode_bin(const hr_trace_t *t, hr_buf_t *b);

/* Reads the block [p, end) into t, whose events and strings are decoded;
 * messages give offsets from base. 0, or -1 with err set. */
int hr_stacks_decode_bin(hr_trace_t *t, const uint8_t *p, const uint8_t *end, const uint8_t *base,
                         const char *name, hr_error_t *err);

#endif
