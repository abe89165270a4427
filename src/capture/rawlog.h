/* The raw capture log written by libheapreplay-capture.so and read by
 * src/trace/import_capture.c. docs/CAPTURE.md describes it byte by byte.
 *
 * File  = header (32 bytes) + blocks. Every field is little-endian (the log is
 *         read on the machine that wrote it; the header's endian tag checks it).
 * Block = block header (16 bytes) + `nbytes` of records, written by one
 *         write(2) on an O_APPEND descriptor, so blocks of different threads
 *         never interleave; only the last block of a file can be cut short.
 * Record = 48-byte fixed part + for annotation names `b` bytes of name padded
 *         to a multiple of 8. Records carry a global sequence number: the
 *         importer sorts by it (see CAPTURE.md "Ordering"). */
#ifndef HR_CAPTURE_RAWLOG_H
#define HR_CAPTURE_RAWLOG_H

#include <stdint.h>

#define HR_CAP_MAGIC "HRCAPLOG"          /* 8 bytes at offset 0 */
#define HR_CAP_VERSION 1u
#define HR_CAP_ENDIAN_TAG 0x01020304u
#define HR_CAP_BLOCK_MAGIC 0x4b4c4248u   /* "HBLK" little-endian */
#define HR_CAP_REC_SIZE 48u

enum { HR_CAPF_TIMESTAMPS = 1u << 0 };

typedef struct hr_cap_header {
    char     magic[8];    /* HR_CAP_MAGIC */
    uint32_t version;     /* HR_CAP_VERSION */
    uint32_t endian;      /* HR_CAP_ENDIAN_TAG */
    uint32_t flags;       /* HR_CAPF_* */
    uint32_t pid;         /* process that wrote the file */
    uint64_t start_ns;    /* CLOCK_MONOTONIC at library start */
} hr_cap_header_t;

typedef struct hr_cap_block {
    uint32_t magic;       /* HR_CAP_BLOCK_MAGIC */
    uint32_t nbytes;      /* payload bytes that follow */
    uint32_t tid;         /* kernel thread id of the writer (0: exit flush) */
    uint32_t nrecs;       /* records in the payload */
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
 *   END           ptr=events recorded  a=sampled hook ns  b=samples   (clean exit) */
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
    HR_CAP__COUNT
} hr_cap_op_t;

typedef struct hr_cap_rec {
    uint64_t seq;   /* global order (atomic counter); see CAPTURE.md */
    uint64_t ts;    /* ns since header.start_ns, or 0 without timestamps */
    uint64_t ptr;
    uint64_t a;
    uint64_t b;
    uint32_t tid;   /* kernel thread id */
    uint8_t  op;    /* hr_cap_op_t */
    uint8_t  flags; /* reserved, 0 */
    uint16_t reserved;
} hr_cap_rec_t;

_Static_assert(sizeof(hr_cap_header_t) == 32, "capture header is 32 bytes");
_Static_assert(sizeof(hr_cap_block_t) == 16, "capture block header is 16 bytes");
_Static_assert(sizeof(hr_cap_rec_t) == HR_CAP_REC_SIZE, "capture record is 48 bytes");

/* Name bytes after an annotation record, padded to 8. */
static inline uint64_t hr_cap_name_pad(uint64_t len) { return (len + 7u) & ~(uint64_t)7u; }

#endif
