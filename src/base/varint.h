/* LEB128 varints and zig-zag deltas for the binary trace format.
 *
 * Contract (docs/TRACE_FORMAT.md, "Varints"): an unsigned value is written
 * little-endian in 7-bit groups, the high bit of each byte meaning "more
 * bytes follow". Encodings are canonical: at most 10 bytes, no value bits
 * beyond 64, and no trailing zero group (0x80 0x00 is "overlong", not 0).
 * Readers reject anything else, so every value has exactly one encoding and
 * the digest of the canonical encoding identifies a trace.
 *
 * Signed deltas are zig-zag mapped first (0,-1,1,-2,2 -> 0,1,2,3,4) so small
 * negative steps stay one byte. */
#ifndef HR_BASE_VARINT_H
#define HR_BASE_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define HR_VARINT_MAX 10 /* bytes in the longest (64-bit) varint */

enum {
    HR_VARINT_OK = 0,
    HR_VARINT_TRUNC = -1,    /* input ended inside the varint */
    HR_VARINT_OVERLONG = -2, /* > 10 bytes, > 64 bits, or a non-minimal encoding */
};

static inline uint64_t hr_zigzag(int64_t v) {
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t hr_unzigzag(uint64_t u) {
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* Writes v at p (room for HR_VARINT_MAX bytes needed); returns bytes written. */
static inline size_t hr_varint_put(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Bytes hr_varint_put would write. */
static inline size_t hr_varint_len(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Shared body: `checked` is a compile-time constant at every call site, so the
 * unchecked instance has no bounds tests at all. */
static inline __attribute__((always_inline)) int
hr_varint_get_(const uint8_t **pp, const uint8_t *end, uint64_t *out, int checked) {
    const uint8_t *p = *pp;
    if (checked && p >= end)
        return HR_VARINT_TRUNC;
    uint64_t b = *p++;
    if (b < 0x80) { /* the common one-byte case */
        *out = b;
        *pp = p;
        return HR_VARINT_OK;
    }
    uint64_t v = b & 0x7f;
    unsigned shift = 7;
    for (;;) {
        if (checked && p >= end)
            return HR_VARINT_TRUNC;
        b = *p++;
        if (shift == 63 && b > 1) /* bits beyond 64, or an 11th byte */
            return HR_VARINT_OVERLONG;
        v |= (b & 0x7f) << shift;
        if (b < 0x80) {
            if (b == 0) /* trailing zero group: non-minimal */
                return HR_VARINT_OVERLONG;
            break;
        }
        shift += 7;
    }
    *out = v;
    *pp = p;
    return HR_VARINT_OK;
}

/* Reads one varint from [*pp, end); advances *pp only on success. */
static inline int hr_varint_get(const uint8_t **pp, const uint8_t *end, uint64_t *out) {
    return hr_varint_get_(pp, end, out, 1);
}

/* Same without bounds checks: the caller guarantees HR_VARINT_MAX readable
 * bytes at *pp (a canonical varint never reads more). One- and two-byte
 * values (the bulk of ids, sizes and deltas) are decoded without a
 * data-dependent branch: whether a size is < 128 is unpredictable. */
__attribute__((always_inline)) static inline int hr_varint_get_unchecked(const uint8_t **pp, uint64_t *out) {
    const uint8_t *p = *pp;
    uint64_t b0 = p[0], b1 = p[1];
    uint64_t c0 = b0 >> 7; /* 1 when a second byte follows */
    if (__builtin_expect((c0 & (b1 >> 7)) | (c0 & (b1 == 0)), 0))
        return hr_varint_get_(pp, NULL, out, 0); /* 3+ bytes, or non-minimal */
    *out = (b0 & 0x7f) | ((b1 << 7) & (0 - c0));
    *pp = p + 1 + c0;
    return HR_VARINT_OK;
}

#endif
