/* Routing plans by call site (docs/SITES.md): which in-house allocator each
 * allocation site of a program should use, as a hand-editable file that
 * `heapreplay plan` writes and `replay --plan` proves.
 *
 * A plan is an ordered list of rules "ROUTE PATTERN". An allocation's route
 * is found from its stack (src/trace/stacks.h): frames from the innermost
 * out, wrapper frames (the skip list) passed over, and for each frame the
 * rules in file order; the first rule whose pattern matches the frame's
 * function name wins (a frame without a name is matched as printed,
 * module+0xOFF). Patterns name functions, not lines or addresses, so a plan
 * stays valid across rebuilds. An allocation no rule takes goes to the
 * general heap.
 *
 * Replaying a plan (hr_route_apply) turns the routed blocks into blocks of
 * three engine pools (pool ops, as annotate.h's hr_alloc_named makes them),
 * which `replay` serves by in-house allocators in front of each general
 * allocator, through the composition machinery (backends/compose.h):
 *   frame-stack  HR_ROUTE_POOL_STACK, served by `stack`
 *   pool N       HR_ROUTE_POOL_CELLS, served by `bank` (cells of N bytes)
 *   level        HR_ROUTE_POOL_LEVEL, served by `marker` (made while loading
 *                or in a phase, freed together; released at frame marks as
 *                far as live blocks allow)
 * The trace is known whole, so a block that breaks its route's promise is
 * found before the replay and left to the general allocator (the fallback a
 * checked engine allocator would take), counted per rule as a violation:
 *   frame-stack  the block outlives the frame it was made in, or is not
 *                freed in LIFO order with the other frame-stack blocks, or
 *                is resized (realloc)
 *   pool N       the block is not N bytes, or is resized
 *   level        the block is resized */
#ifndef HR_REPLAY_ROUTE_H
#define HR_REPLAY_ROUTE_H

#include <stdint.h>

#include "base/error.h"
#include "trace/trace.h"

enum {
    HR_ROUTE_FRAME_STACK,
    HR_ROUTE_POOL,
    HR_ROUTE_LEVEL,
    HR_ROUTE_GENERAL,
    HR_ROUTE__COUNT
};

/* The engine pools a routed trace uses (one per in-house route). */
#define HR_ROUTE_POOL_STACK "site:frame-stack"
#define HR_ROUTE_POOL_CELLS "site:pool"
#define HR_ROUTE_POOL_LEVEL "site:level"

/* The wrapper functions passed over by default: the allocator's own entry
 * points and the common wrappers around them (C++, GLib, SDL, libstdc++).
 * `_Znw*` and `_Zna*` are operator new and new[] by their mangled names, as
 * a stripped libstdc++ names them from its dynamic symbol table (when this
 * machine has no libstdc++ to demangle with). `std::*::_M_*` are libstdc++'s
 * internal members (vector's _M_realloc_insert, string's _M_create, node and
 * hash-table growth), with std::vector's and std::string's own members
 * (push_back, emplace_back, reserve, constructors; "* std::" is the same with
 * a return type in front): a container growing is not a site a game
 * programmer can change, the code that filled the container is. */
#define HR_ROUTE_SKIP_DEFAULT                                                              \
    "malloc,calloc,realloc,free,aligned_alloc,memalign,posix_memalign,valloc,pvalloc,"    \
    "__libc_*,operator new*,operator delete*,_Znw*,_Zna*,__gnu_cxx::*,std::allocator*,"    \
    "std::__new_allocator*,std::allocator_traits*,std::*::_M_*,* std::*::_M_*,"    \
    "std::vector<*>::*,* std::vector<*>::emplace_back*,std::__cxx11::basic_string*,g_malloc*,g_realloc*,g_try_malloc*,"    \
    "g_slice_*,g_new*,g_strdup*,g_strndup,strdup,strndup,xmalloc,xcalloc,xrealloc,"       \
    "xstrdup,SDL_malloc,SDL_calloc,SDL_realloc,SDL_strdup,hr_*"

typedef struct hr_route_rule {
    uint8_t  route;     /* HR_ROUTE_* */
    uint64_t cell;      /* HR_ROUTE_POOL: the cell size in bytes */
    char    *pattern;   /* '*' matches any run of characters */
    /* filled by hr_route_apply: */
    uint64_t blocks;    /* blocks this rule took */
    uint64_t routed;    /* ... that its allocator served */
    uint64_t violations;
    uint64_t outlived, not_lifo, wrong_size, resized; /* the violations by kind */
} hr_route_rule_t;

typedef struct hr_route_plan_file {
    hr_route_rule_t *rules;
    uint32_t         n, cap;
    char            *skip;        /* comma-separated wrapper patterns */
    uint64_t         stack_bytes; /* the frame stack's buffer (stack:size=) */
    uint32_t         stack_entries; /* its entries (stack:entries=) */
    uint64_t         level_bytes; /* the level heap's buffer (marker:size=) */
} hr_route_plan_file_t;

/* '*' glob match of a whole name. */
int hr_route_glob(const char *pattern, const char *name);
/* A rule's pattern for the function `func` (a frame's printed name): a C++
 * name without its argument list, "Surface::from_file(std::string const&)" ->
 * "Surface::from_file*", so that the rule still matches when a parameter's
 * type changes and overloads share one rule; a C name as it is. */
void hr_route_pattern_of(const char *func, char *buf, size_t cap);
/* 1 when name matches one of the comma-separated patterns of `list`. */
int hr_route_skipped(const char *list, const char *name);
const char *hr_route_name(unsigned route); /* "frame-stack", "pool", "level", "general" */

void hr_route_plan_init(hr_route_plan_file_t *p);
void hr_route_plan_free(hr_route_plan_file_t *p);
/* Appends a rule (pattern copied); 0 or -1 out of memory. */
int hr_route_plan_add(hr_route_plan_file_t *p, unsigned route, uint64_t cell, const char *pattern);
/* Reads a plan file; 0, or -1 with "FILE:LINE: what was expected" in err. */
int hr_route_plan_read(const char *path, hr_route_plan_file_t *p, hr_error_t *err);
/* Writes the plan; `comments` (may be NULL) gives one comment per rule,
 * printed after it. 0, or -1 with err. */
int hr_route_plan_write(const char *path, const hr_route_plan_file_t *p,
                        const char *const *comments, const char *header, hr_error_t *err);
/* The allocator spec of each in-house route's part, e.g.
 * "stack:size=262144,entries=64" (buf of cap bytes). */
void hr_route_part_spec(const hr_route_plan_file_t *p, unsigned route, char *buf, size_t cap);

/* The rule (index) for each stack of t, by the plan's matching; -1 when no
 * rule takes it. *out is malloc'd, n_stacks + 1 entries (entry 0: no stack).
 * 0 or -1 out of memory. */
int hr_route_match_stacks(const hr_trace_t *t, const hr_route_plan_file_t *p, int32_t **out);

/* Routes t's blocks by the plan: each block a rule takes and its route can
 * serve becomes a block of that route's pool (alloc/calloc -> palloc, its
 * free -> pfree), the others stay general; fills the rules' counters.
 * Blocks of the trace's own pools are left as they are. Then revalidates.
 * 0, or -1 with err. */
int hr_route_apply(hr_trace_t *t, hr_route_plan_file_t *p, hr_error_t *err);

#endif
