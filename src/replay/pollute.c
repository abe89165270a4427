/* The cache-pollution model (replay/pollute.h). */
#include "replay/pollute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmem.h"
#include "base/size.h"

int hr_pollute_parse(const char *s, hr_pollute_t *out) {
    if (strcmp(s, "none") == 0) {
        *out = (hr_pollute_t){0, 0};
        return 0;
    }
    const char *end;
    uint64_t b;
    if (hr_size_prefix(s, &end, &b) != 0 || b == 0 || b > (1ull << 30))
        return -1;
    unsigned long lines = HR_POLLUTE_DEFAULT_LINES;
    if (*end == ':') {
        const char *v = end + 1;
        char *lend;
        if (*v < '0' || *v > '9')
            return -1;
        lines = strtoul(v, &lend, 10);
        end = lend;
        if (lines < 1 || lines > HR_POLLUTE_MAX_LINES)
            return -1;
    }
    if (*end || b < 64 * 1024)
        return -1;
    *out = (hr_pollute_t){b, (uint32_t)lines};
    return 0;
}

const char *hr_pollute_spec(const hr_pollute_t *p, char *buf, size_t n) {
    if (!p->bytes) {
        snprintf(buf, n, "none");
        return buf;
    }
    static const char suffix[] = "KMG";
    int k = -1;
    uint64_t v = p->bytes;
    while (k < 2 && v % 1024 == 0) /* the largest exact unit: 4194304 -> 4M */
        v /= 1024, k++;
    if (k >= 0)
        snprintf(buf, n, "%llu%c:%u", (unsigned long long)v, suffix[k], p->lines);
    else
        snprintf(buf, n, "%llu:%u", (unsigned long long)v, p->lines);
    return buf;
}

/* The process's model, its scratch buffer and where the next writes go. */
static struct {
    int           read;   /* HR_POLLUTE looked at */
    hr_pollute_t  p;
    unsigned char *buf;   /* harness memory, faulted in when mapped */
    uint64_t      cursor; /* byte offset of the next line, a multiple of 64 */
} pol;

int hr_pollute_on(void) {
    if (!pol.read) {
        const char *e = getenv(HR_POLLUTE_ENV);
        hr_pollute_t p = {0, 0};
        pol.read = 1;
        if (e && hr_pollute_parse(e, &p) == 0 && p.bytes &&
            (pol.buf = hr_hmem_alloc(p.bytes, HR_HMEM_POPULATE)))
            pol.p = p; /* no memory for the buffer: the laps run without the model */
    }
    return pol.p.bytes != 0;
}

/* LINES lines from the cursor, wrapping at the buffer's end. */
static inline void pollute_step(void) {
    uint64_t c = pol.cursor, end = pol.p.bytes;
    volatile unsigned char *b = pol.buf;
    for (uint32_t i = 0; i < pol.p.lines; i++) {
        b[c]++;
        c += HR_POLLUTE_LINE;
        if (c >= end)
            c = 0;
    }
    pol.cursor = c;
}

void hr_pollute_range(run_t *r, const hr_event_t *from, const hr_event_t *to, int libc) {
    int was = r->libc;
    r->libc = libc;
    for (const hr_event_t *ev = from; ev < to; ev++) {
        if (r->acc)
            hr_run_access_before(r, ev);
        hr_run_dispatch(r, ev);
        if (r->acc)
            hr_run_access_after(r, ev);
        if (ev->op == HR_OP_ALLOC || ev->op == HR_OP_FREE || ev->op == HR_OP_CALLOC ||
            ev->op == HR_OP_REALLOC) /* an allocator call: the program's work follows it */
            pollute_step();
    }
    r->libc = was;
}

uint64_t hr_pollute_steps(uint64_t n) {
    if (!hr_pollute_on())
        return 0;
    while (n--)
        pollute_step();
    return pol.cursor;
}
