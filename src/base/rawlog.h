/* The raw capture log written by libheapreplay-capture.so and read by
 * src/trace/import_capture.c. docs/CAPTURE.md describes it byte by byte.
 *
 * File  = header (48 bytes) + blocks. Fixed-size fields are little-endian
 *         (the log is read on the machine that wrote it; the header's endian
 *         tag checks it).
 * Block = block header (32 bytes) + `nbytes` of records, written by one
 *         write(2) on an O_APPEND descriptor, so blocks of different threads
 *         never interleave; only the last block of a file can be cut short.
 * Record = variable length (version 2): an op byte, then LEB128 varints:
 *         the clock delta vs the previous record of the block, the zig-zag
 *         pointer delta vs the previous record's pointer, then the op's own
 *         fields (hr_cap_put_rec below is the one encoder). Records carry a
 *         hybrid logical clock: the importer sorts by (clock, thread) (see
 *         CAPTURE.md "Ordering"). */
#ifndef HR_BASE_RAWLOG_H
#define HR_BASE_RAWLOG_H

#include <stdint.h>
#include <string.h>

#include "base/varint.h"

#define HR_CAP_MAGIC "HRCAPLOG"          /* 8 bytes at offset 0 */
#define HR_CAP_VERSION 6u     /* written; 3 = 2 + the TOUCHED op; 4 = 3 + stacks; 5 = 4 + PROC;
                                 6 = 5 + CMD */
#define HR_CAP_VERSION_MIN 2u /* oldest version the importer reads */
#define HR_CAP_ENDIAN_TAG 0x01020304u
/* The longest CMD name: HR_COMMAND_MAX of src/trace/trace.h (the importer
 * checks that they agree). */
#define HR_CAP_CMD_MAX 4096u
#define HR_CAP_BLOCK_MAGIC 0x4b4c4248u   /* "HBLK" little-endian */
/* Blocks whose usable size is at least this get a TOUCHED record at their
 * end (the capture library's page probe, docs/CAPTURE.md). The same value as
 * HR_TOUCH_PROBE_MIN of src/trace/trace.h, which this layer cannot include
 * (the importer checks they agree). */
#define HR_CAP_TOUCH_MIN (64u * 1024u)
/* A frame the library found by itself (capture --frames: a present function
 * such as SDL_GL_SwapWindow returned, src/capture/frames.c) is a MARK record
 * named this prefix + the function's name, with a = the frame's number, right
 * before its FRAME record in the same thread. The mark stays in the trace
 * (`mark frame-by:SDL_GL_SwapWindow`): `heapreplay info` counts frames by it;
 * a frame without one is the program's own (hr_frame). docs/TRACE_FORMAT.md. */
#define HR_CAP_FRAME_BY "frame-by:"
/* Longest record without its name: op byte + 4 varints + the stack id. */
#define HR_CAP_REC_MAX (1u + 5u * HR_VARINT_MAX)
/* Version 4 (capture --stacks): an allocation record whose op byte has this
 * bit set carries one more varint after its fields, the id of its call stack
 * (a STACK record of the same file defines it). Without --stacks no record
 * has it, so such a log is the version 3 log plus a version number. */
#define HR_CAP_OP_STACKED 0x80u
/* Deepest stack the importer keeps (the library writes at most 128 frames). */
#define HR_CAP_STACK_DEPTH_MAX 256u

enum {
    HR_CAPF_TIMESTAMPS = 1u << 0, /* convert clocks to timestamps on import */
    HR_CAPF_CLK_NS = 1u << 1      /* clock unit is ns (no TSC): no calibration needed */
};

typedef struct hr_cap_header {
    char     magic[8];    /* HR_CAP_MAGIC */
    uint32_t version;     /* HR_CAP_VERSION */
    uint32_t endian;      /* HR_CAP_ENDIAN_TAG */
    uint32_t flags;       /* HR_CAPF_* */
    uint32_t pid;         /* process that wrote the file */
    uint64_t start_ns;    /* CLOCK_MONOTONIC at library start */
    uint64_t start_clk;   /* the record clock read at the same moment */
    uint64_t reserved;    /* 0 */
} hr_cap_header_t;

typedef struct hr_cap_block {
    uint32_t magic;       /* HR_CAP_BLOCK_MAGIC */
    uint32_t nbytes;      /* payload bytes that follow */
    uint32_t tid;         /* kernel thread id of the writer */
    uint32_t nrecs;       /* records in the payload */
    uint64_t clk, ns;     /* calibration pair read when the block was written */
} hr_cap_block_t;

/* Raw operations. The meaning of ptr/a/b per op:
 *   MALLOC        ptr=result  a=size
 *   CALLOC        ptr=result  a=count        b=size
 *   REALLOC       ptr=result  a=old pointer  b=size
 *   FREE          ptr=pointer
 *   MEMALIGN      ptr=result  a=size         b=alignment  (memalign, aligned_alloc,
 *                 posix_memalign (ptr=0 on failure), valloc, pvalloc (size rounded))
 *   HEAP_PUSH/HEAP_POP/MARK   a=0            b=name length; the name follows
 *   FRAME         a=frame number (per process, from 1)
 *   POOL_ALLOC    ptr=result  a=size         b=pool name length; the name follows
 *   POOL_FREE     ptr=pointer a=0            b=pool name length; the name follows
 *   POOL_REALLOC  ptr=result  a=old pointer  b=size (the block keeps its pool)
 *   FRAME_NAMED   a=0 b=stream name length; the name follows (hr_frame_named;
 *                 the importer numbers each stream's frames from 1)
 *                 (the POOL_ ops: annotate.h's hr_alloc_named & co., an
 *                 engine's own allocators; added to version 2 at the end of
 *                 the op list: older importers reject them as unknown ops)
 *   TOUCHED       ptr=block      a=bytes used  b=0 (version 3: written by the
 *                 thread that frees or reallocs a block of usable size >=
 *                 HR_CAP_TOUCH_MIN, right before that FREE/REALLOC record:
 *                 the partial head page + resident interior pages x page size)
 *   END           ptr=events recorded  a=overhead estimate ns  b=how  (clean exit)
 *   MODULE        ptr=load bias (l_addr)  a=bytes from it to the end of the last
 *                 PT_LOAD segment  b=payload length; the payload is the path,
 *                 a 0 byte, then the GNU build id in lowercase hex (maybe empty)
 *                 (version 4: one per mapped object, at start and whenever a
 *                 new stack holds an address outside the objects known so far)
 *   STACK         a=stack id (from 1)  b=payload length; the payload is the
 *                 frames, 8-byte little-endian return addresses, innermost
 *                 (the caller of malloc) first (version 4: written by the
 *                 thread that first met the stack, before its first use)
 *   PROC          ptr=the process's own CPU time in ns (user + system,
 *                 getrusage RUSAGE_SELF: its children not included)  a=its
 *                 peak RSS in bytes  b=ns from the library's start (version 5:
 *                 written with END, right before it, at a clean finish; the
 *                 program time of a --follow-forks child's trace)
 *   CMD           a=0  b=name length; the name is the process's command line:
 *                 /proc/self/exe's path, then each argument after one space,
 *                 at most HR_CAP_CMD_MAX bytes (version 6: the first record of
 *                 the file, in a block of its own; an exec'd image starts the
 *                 file over with its own) */
typedef enum hr_cap_op {
    HR_CAP_MALLOC = 1,
    HR_CAP_CALLOC,
    HR_CAP_REALLOC,
    HR_CAP_FREE,
    HR_CAP_MEMALIGN,
    HR_CAP_HEAP_PUSH,
    HR_CAP_HEAP_POP,
    HR_CAP_FRAME,
    HR_CAP_MARK,
    HR_CAP_END,
    HR_CAP_POOL_ALLOC,
    HR_CAP_POOL_FREE,
    HR_CAP_POOL_REALLOC,
    HR_CAP_FRAME_NAMED,
    HR_CAP_TOUCHED, /* version 3 */
    HR_CAP_MODULE,  /* version 4 */
    HR_CAP_STACK,   /* version 4 */
    HR_CAP_PROC,    /* version 5 */
    HR_CAP_CMD,     /* version 6: the process's command line (the name), first */
    HR_CAP__COUNT
} hr_cap_op_t;

/* One decoded record (never written as is). */
typedef struct hr_cap_rec {
    uint64_t clk;   /* hybrid logical clock: order of events (CAPTURE.md) */
    uint64_t ptr;
    uint64_t a;
    uint64_t b;
    uint32_t tid;   /* kernel thread id (from the block header) */
    uint8_t  op;    /* hr_cap_op_t */
    uint32_t stack; /* the allocation's stack id; 0 = none (HR_CAP_OP_STACKED) */
} hr_cap_rec_t;

/* Delta state of one block: both start at 0 after each block header. */
typedef struct hr_cap_delta {
    uint64_t clk, ptr;
} hr_cap_delta_t;

_Static_assert(sizeof(hr_cap_header_t) == 48, "capture header is 48 bytes");
_Static_assert(sizeof(hr_cap_block_t) == 32, "capture block header is 32 bytes");

static inline int hr_cap_has_name(unsigned op) {
    return op == HR_CAP_HEAP_PUSH || op == HR_CAP_HEAP_POP || op == HR_CAP_MARK ||
           op == HR_CAP_POOL_ALLOC || op == HR_CAP_POOL_FREE || op == HR_CAP_FRAME_NAMED ||
           op == HR_CAP_MODULE || op == HR_CAP_STACK || op == HR_CAP_CMD;
}

/* REALLOC and POOL_REALLOC code their old pointer relative to the result. */
static inline int hr_cap_is_realloc(unsigned op) {
    return op == HR_CAP_REALLOC || op == HR_CAP_POOL_REALLOC;
}

/* Encodes r at p (room: HR_CAP_REC_MAX + name length) and returns the bytes
 * written. Fields: op; clk - d->clk; zigzag(ptr - d->ptr); then FREE: none;
 * REALLOC, POOL_REALLOC: zigzag(a - ptr), b; every other op: a, b; names
 * (annotations, pools, modules, stacks): b raw bytes (b = name length); a
 * nonzero r->stack sets HR_CAP_OP_STACKED and follows as the last varint. */
static inline __attribute__((always_inline)) size_t
hr_cap_put_rec(uint8_t *p, hr_cap_delta_t *d, const hr_cap_rec_t *r,
                                    const char *name) {
    uint8_t *q = p;
    *q++ = (uint8_t)(r->op | (r->stack ? HR_CAP_OP_STACKED : 0u));
    q += hr_varint_put(q, r->clk - d->clk);
    q += hr_varint_put(q, hr_zigzag((int64_t)(r->ptr - d->ptr)));
    d->clk = r->clk;
    d->ptr = r->ptr;
    if (r->op == HR_CAP_FREE)
        return (size_t)(q - p);
    if (hr_cap_is_realloc(r->op))
        q += hr_varint_put(q, hr_zigzag((int64_t)(r->a - r->ptr)));
    else
        q += hr_varint_put(q, r->a);
    q += hr_varint_put(q, r->b);
    if (name && hr_cap_has_name(r->op) && r->b) {
        memcpy(q, name, (size_t)r->b);
        q += r->b;
    }
    if (r->stack)
        q += hr_varint_put(q, r->stack);
    return (size_t)(q - p);
}

#endif
