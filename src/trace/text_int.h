/* Internals of the text trace format shared by its reader's parts
 * (text.c: header and events; text_stacks.c: the stack lines). */
#ifndef HR_TRACE_TEXT_INT_H
#define HR_TRACE_TEXT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"

typedef struct tok {
    const char *s;
    size_t      n;
} tok_t;

typedef struct tctx {
    const char *name;
    size_t      line;
    hr_error_t *err;
    /* The stack lines read so far: file number - 1 -> the model's frame
     * index / stack id (interning may merge equal ones). */
    uint32_t *frame_map, *stack_map;
    uint32_t  n_frames, n_stacks, n_modules;
} tctx_t;

/* Token text for messages, shortened to 40 bytes. */
#define TOKF "'%.*s%s'"
#define TOKA(t) (int)((t).n > 40 ? 40 : (t).n), (t).s, ((t).n > 40 ? "..." : "")

/* "FILE:LINE: what" into c->err; returns -1. */
__attribute__((format(printf, 2, 3))) int hr_text_fail(tctx_t *c, const char *fmt, ...);
/* A whole token as an unsigned decimal number: 0, or -1. */
int hr_text_u64(tok_t t, uint64_t *out);
/* A hex digit's value, or -1. */
int hr_text_hexval(char ch);
/* A percent-encoded name token into a fresh string; NULL after a message. */
char *hr_text_unescape(tctx_t *c, tok_t t);

/* The stack lines: which one tk starts (KW_NONE: an event line), and
 * parsing one into t (0, or -1 after a message). */
enum { KW_NONE = 0, KW_MODULE, KW_AT, KW_STACK };
int hr_text_stack_keyword(tok_t t);
int hr_text_stack_line(tctx_t *c, hr_trace_t *t, const tok_t *tk, int ntok, int kw);

#endif
