/* Sizes written by a user ("4096", "64K", "10M", "1GiB"): the one reader the
 * command line, the allocator specs (-a sizeclass:max=32K) and the
 * cache-pollution model (--pollute 4M:16) share, so that a size means the
 * same wherever it is typed. */
#ifndef HR_BASE_SIZE_H
#define HR_BASE_SIZE_H

#include <stdint.h>

/* Reads decimal digits and an optional binary unit (k/K, m/M, g/G, t/T:
 * 2^10..2^40), itself optionally followed by "iB" or "B" ("B" alone also
 * after the digits), at the start of s; *end is set just past what was read.
 * 0 with *out, or -1 when s does not start with a digit or the value passes
 * 2^64 - 1. What follows (a ':' or ',', or junk) is the caller's to judge. */
static inline int hr_size_prefix(const char *s, const char **end, uint64_t *out) {
    uint64_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    unsigned sh = 0;
    switch (*p) {
    case 'k': case 'K': sh = 10; break;
    case 'm': case 'M': sh = 20; break;
    case 'g': case 'G': sh = 30; break;
    case 't': case 'T': sh = 40; break;
    default: break;
    }
    if (sh) {
        if (v > (UINT64_MAX >> sh))
            return -1;
        v <<= sh;
        p++;
    }
    if (*p == 'i' && p[1] == 'B')
        p += 2;
    else if (*p == 'B')
        p++;
    *end = p;
    *out = v;
    return 0;
}

#endif
