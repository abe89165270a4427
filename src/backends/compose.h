/* Compositions: several allocators in one replay, each block routed to one of
 * them by what the whole trace says of it (docs/ARCHITECTURE.md
 * "Compositions").
 *
 *   -a 'stack+block'     Box2D: LIFO temporaries on the stack, the rest on
 *                        the block allocator (> 640 B: block's own malloc)
 *   -a 'marker+glibc'    frame-scoped blocks on the frame allocator, the rest
 *                        on the process's malloc
 *   -a 'bank+mimalloc'   small blocks in the pools, the rest on mimalloc
 *
 * A spec is parts joined by '+', each an allocator spec as for -a (name or
 * name:args; args may not contain '+'). Parts are tried in order: a block
 * goes to the first part whose rule takes it; the last part takes every
 * block the others did not. The rules, by allocator:
 *   stack     LIFO temporaries: a block freed in the frame it was made in
 *             (any block that is freed, when the trace has no frame marks)
 *             whose lifetime nests inside every block the stack part already
 *             holds (freed before them: a stack never gets a block that would
 *             break LIFO), while fewer than `entries` (32, or the part's
 *             entries=N) are live on it
 *   marker    frame-scoped: freed before the next frame mark (a frame
 *             allocator never gets a block that outlives its frame)
 *   block     requests up to 640 B (b2_maxBlockSize)
 *   sizeclass requests up to 128 B (the Orx article's proposed small-object lists)
 *   bank      requests up to 4 KiB (its largest default cell)
 *   others    (glibc, jemalloc, mimalloc, tcmalloc, preload:, routed) every
 *             block: allowed only as the last part
 *   PART@POOL the blocks of the engine's pool POOL (pool ops of the trace,
 *             annotate.h's hr_alloc_named), whatever the part is; `replay
 *             --pool POOL=ALLOC` puts such parts in front of each -a spec
 * At most one part is an external allocator (a process has one malloc), and
 * it must be the last; the in-house parts' own memory then comes from it.
 *
 * The routing plan is made by the replay layer (src/replay/compose.c: it
 * knows the trace), once per replay, and handed to the composite backend
 * with the parsed parts through hr_backend_config_t.route_plan and .parts. */
#ifndef HR_BACKENDS_COMPOSE_H
#define HR_BACKENDS_COMPOSE_H

#include <stdint.h>

#include "backends/backend.h"

#define HR_COMPOSE_MAX_PARTS 4
#define HR_ROUTE_NONE        0xFFu  /* route[] of an event that is not a memory op */
#define HR_ROUTE_NO_CONSUMER UINT64_MAX

typedef enum hr_take {
    HR_TAKE_LIFO_TEMP, /* stack */
    HR_TAKE_FRAME,     /* marker */
    HR_TAKE_SIZE,      /* block, sizeclass, bank: size <= max_size */
    HR_TAKE_ALL,       /* a general allocator: last part only */
    HR_TAKE_POOL,      /* PART@POOL: the blocks of one pool */
} hr_take_t;

typedef struct hr_compose_part {
    const hr_backend_t *be;
    char                spec[128]; /* "name" or "name:args" */
    uint8_t             arg_at;    /* where args start in spec (after ':'), 0: none */
    hr_take_t           take;
    uint64_t            max_size;  /* HR_TAKE_SIZE */
    uint32_t            entries;   /* HR_TAKE_LIFO_TEMP */
    char                pool[64];  /* HR_TAKE_POOL: the pool's name */
} hr_compose_part_t;

typedef struct hr_compose_spec {
    int               n;
    hr_compose_part_t part[HR_COMPOSE_MAX_PARTS];
} hr_compose_spec_t;

/* Parses "a+b[+c...]" (backends/spec.c, with every other reading of spec
 * text); 0, or -1 with err set (unknown part, a general allocator before the
 * last part, two external parts, too many parts). */
int hr_compose_parse(const char *spec, hr_compose_spec_t *out, hr_error_t *err);

/* 1 when `spec` names a composition (has a '+'). */
int hr_compose_is(const char *spec);

/* The composite backend for a parsed composition: its variant follows the
 * last part (exact in-house footprint, the process's malloc, or an external
 * allocator preloaded into the worker). */
struct hr_compose_spec;
const hr_backend_t *hr_compose_backend(const struct hr_compose_spec *parts);

/* The routing plan (one per trace and spec). Per event i of the trace:
 * route[i] = HR_ROUTE_NONE for events that are not memory ops; else the low
 * nibble is the part of the block the event creates (alloc, calloc, the new
 * block of a realloc) or frees (free), the high nibble a realloc's old
 * block's part. consumer[i] = the index of the event that frees or reallocs
 * the block event i creates, or HR_ROUTE_NO_CONSUMER. */
typedef struct hr_route_plan {
    const uint8_t  *route;
    const uint64_t *consumer;
    uint64_t        n;
    uint64_t        part_blocks[HR_COMPOSE_MAX_PARTS]; /* blocks routed to each part */
    uint64_t        part_bytes[HR_COMPOSE_MAX_PARTS];  /* their requested bytes */
    uint64_t        blocks;        /* blocks the trace creates */
    uint64_t        frame_scoped;  /* freed in the frame they were made in */
    uint64_t        lifo_temps;    /* temporaries that nest LIFO with no entry limit */
    uint64_t        live_at_end;   /* blocks no event ends (freed by the engine after a lap) */
} hr_route_plan_t;

#endif
