/* A hash index over a string table (internal to src/trace/): the heap,
 * pool, stream and mark names of a trace, found by name in O(1) expected
 * time. A trace may name 100 k distinct marks; a linear search per event
 * made reading or converting it quadratic (minutes for a 1 MB file).
 *
 * The index holds positions into a `char **strings` array that the caller
 * owns and only ever appends to; it keeps no copy of the text. When equal
 * names sit at several positions, the first one added is the one found.
 *
 * `probes` counts the slots every lookup has looked at, so a test can
 * assert that lookups stay O(1) on average without timing anything. */
#ifndef HR_TRACE_NAMES_H
#define HR_TRACE_NAMES_H

#include <stdint.h>

typedef struct hr_names {
    uint32_t *slot;   /* cap entries: a position + 1; 0 = empty */
    uint32_t  cap;    /* a power of two, or 0 before the first add */
    uint32_t  n;      /* positions held */
    uint32_t  upto;   /* strings[0, upto) have been offered to the index */
    uint64_t  probes; /* slots looked at by all lookups so far */
} hr_names_t;

void hr_names_init(hr_names_t *x);
void hr_names_free(hr_names_t *x);

/* The position of a string equal to `name` among those indexed, or -1. */
int64_t hr_names_find(hr_names_t *x, char *const *strings, const char *name);

/* Indexes position i (strings[i] must stay valid and unchanged while the
 * index is used) unless an equal name is already held. 0, or -1 on out of
 * memory. */
int hr_names_add(hr_names_t *x, char *const *strings, uint32_t i);

/* Indexes strings[upto, n) (what was appended since the last call): a
 * reader that filled the table directly hands it over this way. 0 or -1. */
int hr_names_catch_up(hr_names_t *x, char *const *strings, uint32_t n);

#endif
