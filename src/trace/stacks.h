/* heapreplay — call stacks of a trace's allocations (the stack model).
 *
 * A trace may carry, beside its events, where each block was allocated: the
 * module map of the captured process, a table of unique frames and a table
 * of deduplicated stacks, and per event the stack id of the block it
 * creates (hr_trace_t.site). docs/TRACE_FORMAT.md ("Stacks") gives the text
 * and binary form; docs/SITES.md what the reports make of them.
 *
 * Stacks never change what a trace *is*: its digest, its replay and every
 * figure of a stack-less report are the same with or without them, and a
 * trace without stacks is written byte for byte as before.
 *
 * Indices: modules and frames are 0-based in their arrays; a frame names its
 * module as index + 1 (0 = unknown) and its strings as string-table index + 1
 * (0 = unknown); stack ids are 1-based (0 = no stack). Interning is O(1)
 * expected per call (private hash indexes), so a capture that meets the same
 * return address a million times stores it once. */
#ifndef HEAPREPLAY_STACKS_H
#define HEAPREPLAY_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One mapped object of the captured process (the module map). */
typedef struct hr_module {
    char    *path;     /* as mapped in the captured process (absolute) */
    char    *build_id; /* lowercase hex of the GNU build id, or NULL */
    uint64_t base;     /* load address (the object's l_addr / start of its first mapping) */
    uint64_t size;     /* bytes mapped */
} hr_module_t;

/* One unique frame (a return address, or a symbol an importer already resolved). */
typedef struct hr_frame {
    uint64_t addr;   /* absolute address in the captured process; 0 when only a name is known */
    uint32_t module; /* module index + 1; 0 = unknown */
    uint32_t func;   /* string index + 1 into the trace's string table; 0 = unresolved */
    uint32_t file;   /* string index + 1; 0 = unknown */
    uint32_t line;   /* 0 = unknown */
    uint32_t inl;    /* 1 when this frame is an inlined call inside the next (outer) frame */
} hr_frame_t;

/* The deduplicated stacks: stack s (1-based id) is the frame indices
 * frame_ix[off[s-1] .. off[s]), innermost first (frame 0 = the caller of malloc). */
typedef struct hr_stacks {
    hr_module_t *modules;
    uint32_t     n_modules, cap_modules;
    hr_frame_t  *frames;
    uint32_t     n_frames, cap_frames;
    uint32_t    *off; /* n_stacks + 1 entries, off[0] = 0 */
    uint32_t    *frame_ix;
    uint32_t     n_stacks, cap_stacks, n_ix, cap_ix;
    void        *index; /* private hash indexes for interning (frames by addr/name, stacks by content) */
} hr_stacks_t;

/* An empty table (malloc'd), or NULL on out of memory. */
hr_stacks_t *hr_stacks_new(void);
/* Frees the tables and `s` itself; NULL is fine. */
void hr_stacks_free(hr_stacks_t *s);

/* Appends a module (path and build_id copied; build_id may be NULL).
 * Returns its index, or -1 on out of memory. Modules are not deduplicated:
 * a dlclose'd and re-dlopen'ed object is two mappings. */
int64_t hr_stacks_add_module(hr_stacks_t *s, const char *path, const char *build_id, uint64_t base,
                             uint64_t size);
/* The module index + 1 whose [base, base + size) holds addr; 0 when none. */
uint32_t hr_stacks_module_of(const hr_stacks_t *s, uint64_t addr);

/* The frame of a bare return address, interned by address; its module is
 * set from the map when the address falls in one (modules added later are
 * not looked up again). Returns the frame index, or -1 on out of memory. */
int64_t hr_stacks_frame_addr(hr_stacks_t *s, uint64_t addr);
/* A frame whose symbol is already known (an importer's, or a hand-written
 * trace's), interned by (addr, func, file, line, inl); func and file (may be
 * NULL) go into t's string table. Creates t->stacks on first use. Returns
 * the frame index, or -1 on out of memory. */
int64_t hr_stacks_frame_named(hr_trace_t *t, uint64_t addr, const char *func, const char *file,
                              uint32_t line, int inl);

/* A frame given whole (string fields already indices + 1 into the trace's
 * table, module as stored): what the readers use. A bare address (func,
 * file, line and inl 0) is interned as hr_stacks_frame_addr does, any
 * other frame as hr_stacks_frame_named does; a module of 0 is taken from
 * the map. Returns the frame index (an equal frame's, if one exists), or
 * -1 on out of memory. */
int64_t hr_stacks_frame_put(hr_stacks_t *s, const hr_frame_t *f);

/* The 1-based id of the stack frame_ix[0..n) (innermost first), added if
 * new, deduplicated by content; -1 on out of memory. Every index must be
 * < s->n_frames (the caller's contract; n may be 0: the empty stack). */
int64_t hr_stacks_intern(hr_stacks_t *s, const uint32_t *frame_ix, uint32_t n);

/* Frames of stack `id` (1 <= id <= n_stacks): *n gets the depth. */
static inline const uint32_t *hr_stacks_get(const hr_stacks_t *s, uint32_t id, uint32_t *n) {
    *n = s->off[id] - s->off[id - 1];
    /* an empty stack of a table with no frames has no frame_ix array: no
     * pointer arithmetic on NULL */
    return s->frame_ix ? s->frame_ix + s->off[id - 1] : NULL;
}

/* The trace's stack table, created on first use; NULL on out of memory. */
hr_stacks_t *hr_trace_stacks(hr_trace_t *t);
/* Records that event `event_index` (< t->n_events) created a block at
 * stack `stack_id` (0 = none). Allocates t->site on first use (every other
 * event 0); hr_trace_push keeps it in step afterwards. 0, or -1 on out of
 * memory. */
int hr_trace_set_site(hr_trace_t *t, size_t event_index, uint32_t stack_id);

/* How reports print frame `fi` of t's stacks: "func (file:line)" when the
 * function is known (file's last path component; no parentheses without a
 * file, no ":line" without a line; only "func" when with_line is 0), else
 * "module+0xOFF" (the module's last path component and the offset from its
 * base), else "0xADDR". Always NUL-terminated (cut to cap). */
void hr_stacks_frame_name(const hr_trace_t *t, uint32_t fi, int with_line, char *buf, size_t cap);

/* Frees t->stacks and t->site and sets both to NULL (hr_trace_free calls it). */
void hr_trace_drop_stacks(hr_trace_t *t);

#ifdef __cplusplus
}
#endif
#endif
