/* The captured program's own run time (hr_program_time_t, trace.h): the
 * rules both file forms check, the text header options, and the JSON object
 * `info` and the report show. The layout in the binary header is in
 * binary.c / binary_enc.c; all of it is specified in docs/TRACE_FORMAT.md,
 * "Program time". */
#include "trace/format.h"
#include "base/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fields in their binary order: text key, byte offset from the start of
 * the program block (header offset 64), width. */
typedef struct pfield {
    const char *key;
    unsigned    off, width;
} pfield_t;

enum { PF_WALL, PF_CPU, PF_CPU_MIN, PF_CPU_MAX, PF_RSS, PF_RUNS, PF_FLAGS, PF__COUNT };

static const pfield_t pfields[PF__COUNT] = {
    {"wall_ns", 0, 8},     {"cpu_ns", 8, 8},  {"cpu_min_ns", 16, 8}, {"cpu_max_ns", 24, 8},
    {"max_rss", 32, 8},    {"runs", 40, 4},   {"timed", 44, 4},
};

static uint64_t *pfield_u64(hr_program_time_t *p, int f) {
    switch (f) {
    case PF_WALL: return &p->wall_ns;
    case PF_CPU: return &p->cpu_ns;
    case PF_CPU_MIN: return &p->cpu_min_ns;
    case PF_CPU_MAX: return &p->cpu_max_ns;
    case PF_RSS: return &p->max_rss;
    default: return NULL;
    }
}

/* Writes the message into what and returns `ret` (an offset, or -1). */
__attribute__((format(printf, 4, 5))) static int pfail(char *what, size_t cap, int ret,
                                                       const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, cap, fmt, ap);
    va_end(ap);
    return ret;
}

int hr_program_check(const hr_program_time_t *p, char *what, size_t cap) {
    if (p->flags & ~(uint32_t)HR_PROGF_KNOWN)
        return pfail(what, cap, (int)pfields[PF_FLAGS].off, "program time: unknown flags 0x%x "
                     "(known: 0x%x)", p->flags, (unsigned)HR_PROGF_KNOWN);
    if (p->runs == 0) {
        for (int f = 0; f < PF_RUNS; f++)
            if (*pfield_u64((hr_program_time_t *)p, f))
                return pfail(what, cap, (int)pfields[f].off, "program time: %s is set but runs "
                             "is 0 (no program time: every field 0)", pfields[f].key);
        if (p->flags)
            return pfail(what, cap, (int)pfields[PF_FLAGS].off,
                         "program time: flags set but runs is 0");
        return -1;
    }
    if (p->cpu_min_ns > p->cpu_ns)
        return pfail(what, cap, (int)pfields[PF_CPU_MIN].off, "program time: cpu_min_ns %llu is "
                     "above cpu_ns %llu (expected cpu_min_ns <= cpu_ns <= cpu_max_ns)",
                     (unsigned long long)p->cpu_min_ns, (unsigned long long)p->cpu_ns);
    if (p->cpu_max_ns < p->cpu_ns)
        return pfail(what, cap, (int)pfields[PF_CPU_MAX].off, "program time: cpu_max_ns %llu is "
                     "below cpu_ns %llu (expected cpu_min_ns <= cpu_ns <= cpu_max_ns)",
                     (unsigned long long)p->cpu_max_ns, (unsigned long long)p->cpu_ns);
    return -1;
}

/* ---- binary header block -------------------------------------------------- */

static uint64_t get_le(const uint8_t *p, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void hr_program_decode(const uint8_t *block, hr_program_time_t *p) {
    memset(p, 0, sizeof *p);
    for (int f = 0; f < PF_RUNS; f++)
        *pfield_u64(p, f) = get_le(block + pfields[f].off, 8);
    p->runs = (uint32_t)get_le(block + pfields[PF_RUNS].off, 4);
    p->flags = (uint32_t)get_le(block + pfields[PF_FLAGS].off, 4);
}

void hr_program_encode(const hr_program_time_t *p, uint8_t *block) {
    for (int f = 0; f < PF_RUNS; f++)
        put_le(block + pfields[f].off, *pfield_u64((hr_program_time_t *)p, f), 8);
    put_le(block + pfields[PF_RUNS].off, p->runs, 4);
    put_le(block + pfields[PF_FLAGS].off, p->flags, 4);
}

/* ---- text header options -------------------------------------------------- */

static int parse_dec(const char *s, size_t n, uint64_t *out) {
    uint64_t v = 0;
    if (n == 0 || n > 20)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int hr_program_text_option(hr_program_time_t *p, unsigned *seen, const char *tok, size_t n,
                           char *what, size_t cap) {
    const char *eq = memchr(tok, '=', n);
    if (!eq)
        return 0;
    size_t kl = (size_t)(eq - tok), vl = n - kl - 1;
    const char *val = eq + 1;
    int f = 0;
    while (f < PF__COUNT && !(strlen(pfields[f].key) == kl && memcmp(pfields[f].key, tok, kl) == 0))
        f++;
    if (f == PF__COUNT)
        return 0;
    if (*seen & (1u << f))
        return pfail(what, cap, -1, "header option '%s=' given twice", pfields[f].key);
    *seen |= 1u << f;
    uint64_t v;
    if (f == PF_FLAGS) {
        if (vl == 7 && memcmp(val, "capture", 7) == 0)
            p->flags |= HR_PROGF_CAPTURED;
        else if (!(vl == 5 && memcmp(val, "plain", 5) == 0))
            return pfail(what, cap, -1, "header option 'timed=%.*s': expected 'capture' or "
                         "'plain'", (int)(vl > 40 ? 40 : vl), val);
        return 1;
    }
    if (parse_dec(val, vl, &v) || (f == PF_RUNS && (v == 0 || v > UINT32_MAX)))
        return pfail(what, cap, -1, "header option '%s=%.*s': expected %s", pfields[f].key,
                     (int)(vl > 40 ? 40 : vl), val,
                     f == PF_RUNS ? "a run count 1..4294967295" : "a decimal number");
    if (f == PF_RUNS)
        p->runs = (uint32_t)v;
    else
        *pfield_u64(p, f) = v;
    return 1;
}

int hr_program_text_finish(const hr_program_time_t *p, unsigned seen, char *what, size_t cap) {
    if (!seen)
        return 0;
    for (int f = 0; f < PF__COUNT; f++)
        if (!(seen & (1u << f)))
            return pfail(what, cap, -1, "program time needs every one of runs=, timed=, "
                         "wall_ns=, cpu_ns=, cpu_min_ns=, cpu_max_ns=, max_rss= (missing %s=)",
                         pfields[f].key);
    return hr_program_check(p, what, cap) >= 0 ? -1 : 0;
}

void hr_program_text(const hr_program_time_t *p, char *buf, size_t cap) {
    if (!p->runs) {
        if (cap)
            buf[0] = 0;
        return;
    }
    snprintf(buf, cap, " runs=%u timed=%s wall_ns=%llu cpu_ns=%llu cpu_min_ns=%llu "
             "cpu_max_ns=%llu max_rss=%llu", p->runs,
             (p->flags & HR_PROGF_CAPTURED) ? "capture" : "plain",
             (unsigned long long)p->wall_ns, (unsigned long long)p->cpu_ns,
             (unsigned long long)p->cpu_min_ns, (unsigned long long)p->cpu_max_ns,
             (unsigned long long)p->max_rss);
}

/* ---- JSON ------------------------------------------------------------------ */

hr_json_t *hr_program_json(const hr_program_time_t *p) {
    if (!p->runs)
        return NULL;
    hr_json_t *o = hr_json_new_object();
    hr_json_set(o, "wall_s", hr_json_new_num((double)p->wall_ns / 1e9));
    hr_json_set(o, "cpu_s", hr_json_new_num((double)p->cpu_ns / 1e9));
    hr_json_set(o, "cpu_s_min", hr_json_new_num((double)p->cpu_min_ns / 1e9));
    hr_json_set(o, "cpu_s_max", hr_json_new_num((double)p->cpu_max_ns / 1e9));
    hr_json_set(o, "runs", hr_json_new_u64(p->runs));
    hr_json_set(o, "max_rss", hr_json_new_u64(p->max_rss));
    hr_json_set(o, "timed", hr_json_new_str((p->flags & HR_PROGF_CAPTURED) ? "capture" : "plain"));
    return o;
}
