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
 * the program block (header offset 64), width. PF_MAD..PF_CPUS are the noise
 * record (1.6, offsets 112..131 of the header), all given or none; PF_OTHER
 * (1.7, offset 132, the word 1.6 reserved) is optional within it, given
 * exactly when the flags have HR_PROGF_OTHER_CPU. */
typedef struct pfield {
    const char *key;
    unsigned    off, width;
} pfield_t;

enum {
    PF_WALL, PF_CPU, PF_CPU_MIN, PF_CPU_MAX, PF_RSS, PF_RUNS, PF_FLAGS,
    PF_MAD, PF_LOAD_BEFORE, PF_LOAD_AFTER, PF_CPUS, PF_OTHER, PF__COUNT
};
#define PF_BASE_BITS ((1u << PF_MAD) - 1)
#define PF_NOISE_BITS (((1u << PF_OTHER) - 1) & ~PF_BASE_BITS) /* the required ones */

static const pfield_t pfields[PF__COUNT] = {
    {"wall_ns", 0, 8},     {"cpu_ns", 8, 8},       {"cpu_min_ns", 16, 8}, {"cpu_max_ns", 24, 8},
    {"max_rss", 32, 8},    {"runs", 40, 4},        {"timed", 44, 4},      {"cpu_mad_ns", 48, 8},
    {"load_before", 56, 4}, {"load_after", 60, 4}, {"cpus", 64, 4},     {"other_cpu", 68, 4},
};

static uint64_t *pfield_u64(hr_program_time_t *p, int f) {
    switch (f) {
    case PF_WALL: return &p->wall_ns;
    case PF_CPU: return &p->cpu_ns;
    case PF_CPU_MIN: return &p->cpu_min_ns;
    case PF_CPU_MAX: return &p->cpu_max_ns;
    case PF_RSS: return &p->max_rss;
    case PF_MAD: return &p->cpu_mad_ns;
    default: return NULL;
    }
}

static uint32_t *pfield_u32(hr_program_time_t *p, int f) {
    switch (f) {
    case PF_LOAD_BEFORE: return &p->load_before_c;
    case PF_LOAD_AFTER: return &p->load_after_c;
    case PF_CPUS: return &p->cpus;
    case PF_OTHER: return &p->other_cpu_c;
    default: return NULL;
    }
}

int hr_program_has_noise(const hr_program_time_t *p) { return p->cpus != 0; }

/* Writes the message into what and returns `ret` (an offset, or -1). */
__attribute__((format(printf, 4, 5))) static int pfail(char *what, size_t cap, int ret,
                                                       const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, cap, fmt, ap);
    va_end(ap);
    return ret;
}

/* The noise record's rules (cpus 0: every field of it 0). */
static int noise_check(const hr_program_time_t *p, char *what, size_t cap) {
    int other = (p->flags & HR_PROGF_OTHER_CPU) != 0;
    if (!other && p->other_cpu_c)
        return pfail(what, cap, (int)pfields[PF_OTHER].off, "program time: other_cpu is set "
                     "without its flag (0x%x in timed)", (unsigned)HR_PROGF_OTHER_CPU);
    if (!p->cpus) {
        if (p->cpu_mad_ns || p->load_before_c || p->load_after_c || other)
            return pfail(what, cap, (int)pfields[PF_CPUS].off, "program time: a noise field is "
                         "set but cpus is 0 (no noise record: every field of it 0)");
        return -1;
    }
    if ((uint64_t)p->other_cpu_c > (uint64_t)p->cpus * 100)
        return pfail(what, cap, (int)pfields[PF_OTHER].off, "program time: other_cpu %u.%02u is "
                     "above the %u CPUs (expected other_cpu <= cpus)", p->other_cpu_c / 100,
                     p->other_cpu_c % 100, p->cpus);
    if (!p->runs)
        return pfail(what, cap, (int)pfields[PF_CPUS].off, "program time: cpus is set but runs "
                     "is 0 (no program time: every field 0)");
    if (p->cpu_mad_ns > p->cpu_max_ns - p->cpu_min_ns)
        return pfail(what, cap, (int)pfields[PF_MAD].off, "program time: cpu_mad_ns %llu is above "
                     "the runs' range %llu (expected cpu_mad_ns <= cpu_max_ns - cpu_min_ns)",
                     (unsigned long long)p->cpu_mad_ns,
                     (unsigned long long)(p->cpu_max_ns - p->cpu_min_ns));
    return -1;
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
        return noise_check(p, what, cap);
    }
    if (p->cpu_min_ns > p->cpu_ns)
        return pfail(what, cap, (int)pfields[PF_CPU_MIN].off, "program time: cpu_min_ns %llu is "
                     "above cpu_ns %llu (expected cpu_min_ns <= cpu_ns <= cpu_max_ns)",
                     (unsigned long long)p->cpu_min_ns, (unsigned long long)p->cpu_ns);
    if (p->cpu_max_ns < p->cpu_ns)
        return pfail(what, cap, (int)pfields[PF_CPU_MAX].off, "program time: cpu_max_ns %llu is "
                     "below cpu_ns %llu (expected cpu_min_ns <= cpu_ns <= cpu_max_ns)",
                     (unsigned long long)p->cpu_max_ns, (unsigned long long)p->cpu_ns);
    return noise_check(p, what, cap);
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
    memset(p, 0, sizeof *p); /* no noise record until hr_program_decode_noise */
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

/* The record starts at block + HR_BIN_PROGRAM_SIZE (the fields' offsets
 * are the block's); p's flags decoded first. Returns -1, or the block offset
 * of other_cpu when it is set in a header whose flags (or minor) do not
 * give it. */
int hr_program_decode_noise(const uint8_t *rec, unsigned minor, hr_program_time_t *p) {
    const uint8_t *block = rec - pfields[PF_MAD].off;
    p->cpu_mad_ns = get_le(block + pfields[PF_MAD].off, 8);
    for (int f = PF_LOAD_BEFORE; f < PF__COUNT; f++)
        *pfield_u32(p, f) = (uint32_t)get_le(block + pfields[f].off, 4);
    int given = (p->flags & HR_PROGF_OTHER_CPU) && minor >= HR_BIN_MINOR_OTHER;
    return p->other_cpu_c && !given ? (int)pfields[PF_OTHER].off : -1;
}

void hr_program_encode_noise(const hr_program_time_t *p, uint8_t *rec) {
    uint8_t *block = rec - pfields[PF_MAD].off;
    put_le(block + pfields[PF_MAD].off, p->cpu_mad_ns, 8);
    for (int f = PF_LOAD_BEFORE; f < PF__COUNT; f++)
        put_le(block + pfields[f].off, *pfield_u32((hr_program_time_t *)p, f), 4);
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

/* A load average with at most two decimals ("1.25", "3") as hundredths. */
static int parse_load(const char *s, size_t n, uint64_t *out) {
    const char *dot = memchr(s, '.', n);
    size_t il = dot ? (size_t)(dot - s) : n, fl = dot ? n - il - 1 : 0;
    uint64_t i, f = 0;
    if (parse_dec(s, il, &i) || (dot && (fl == 0 || fl > 2 || parse_dec(dot + 1, fl, &f))) ||
        i > UINT32_MAX / 100 - 1)
        return -1;
    *out = i * 100 + (fl == 1 ? f * 10 : f);
    return 0;
}

/* The value of field f from [val, val+vl) into p: 0, or -1 when malformed. */
static int set_field(hr_program_time_t *p, int f, const char *val, size_t vl) {
    uint64_t v;
    if (f == PF_LOAD_BEFORE || f == PF_LOAD_AFTER || f == PF_OTHER) {
        if (parse_load(val, vl, &v))
            return -1;
        if (f == PF_OTHER)
            p->flags |= HR_PROGF_OTHER_CPU;
    } else if (parse_dec(val, vl, &v) ||
               ((f == PF_RUNS || f == PF_CPUS) && (v == 0 || v > UINT32_MAX))) {
        return -1;
    }
    if (pfield_u64(p, f))
        *pfield_u64(p, f) = v;
    else if (f == PF_RUNS)
        p->runs = (uint32_t)v;
    else
        *pfield_u32(p, f) = (uint32_t)v;
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
    if (f == PF_FLAGS) {
        if (vl == 7 && memcmp(val, "capture", 7) == 0)
            p->flags |= HR_PROGF_CAPTURED;
        else if (!(vl == 5 && memcmp(val, "plain", 5) == 0))
            return pfail(what, cap, -1, "header option 'timed=%.*s': expected 'capture' or "
                         "'plain'", (int)(vl > 40 ? 40 : vl), val);
        return 1;
    }
    if (set_field(p, f, val, vl))
        return pfail(what, cap, -1, "header option '%s=%.*s': expected %s", pfields[f].key,
                     (int)(vl > 40 ? 40 : vl), val,
                     f == PF_RUNS   ? "a run count 1..4294967295"
                     : f == PF_CPUS ? "a CPU count 1..4294967295"
                     : f == PF_LOAD_BEFORE || f == PF_LOAD_AFTER
                         ? "a load average with at most two decimals (1.25)"
                     : f == PF_OTHER ? "CPUs with at most two decimals (0.25)"
                         : "a decimal number");
    return 1;
}

int hr_program_text_finish(const hr_program_time_t *p, unsigned seen, char *what, size_t cap) {
    if (!seen)
        return 0;
    for (int f = 0; f < PF_MAD; f++)
        if (!(seen & (1u << f)))
            return pfail(what, cap, -1, "program time needs every one of runs=, timed=, "
                         "wall_ns=, cpu_ns=, cpu_min_ns=, cpu_max_ns=, max_rss= (missing %s=)",
                         pfields[f].key);
    if ((seen & (1u << PF_OTHER)) && !(seen & PF_NOISE_BITS))
        return pfail(what, cap, -1, "header option 'other_cpu=' needs the noise record "
                     "(cpu_mad_ns=, load_before=, load_after=, cpus=)");
    for (int f = PF_MAD; f < PF_OTHER && (seen & PF_NOISE_BITS); f++)
        if (!(seen & (1u << f)))
            return pfail(what, cap, -1, "the program's noise record needs every one of "
                         "cpu_mad_ns=, load_before=, load_after=, cpus= (missing %s=)",
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
    size_t n = strlen(buf);
    if (hr_program_has_noise(p) && n < cap)
        snprintf(buf + n, cap - n, " cpu_mad_ns=%llu load_before=%u.%02u load_after=%u.%02u "
                 "cpus=%u", (unsigned long long)p->cpu_mad_ns, p->load_before_c / 100,
                 p->load_before_c % 100, p->load_after_c / 100, p->load_after_c % 100, p->cpus);
    n = strlen(buf);
    if ((p->flags & HR_PROGF_OTHER_CPU) && n < cap)
        snprintf(buf + n, cap - n, " other_cpu=%u.%02u", p->other_cpu_c / 100,
                 p->other_cpu_c % 100);
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
    if (hr_program_has_noise(p)) {
        hr_json_set(o, "cpu_s_mad", hr_json_new_num((double)p->cpu_mad_ns / 1e9));
        hr_json_set(o, "load_before", hr_json_new_num(p->load_before_c / 100.0));
        hr_json_set(o, "load_after", hr_json_new_num(p->load_after_c / 100.0));
        hr_json_set(o, "cpus", hr_json_new_u64(p->cpus));
        if (p->flags & HR_PROGF_OTHER_CPU)
            hr_json_set(o, "other_cpu", hr_json_new_num(p->other_cpu_c / 100.0));
    }
    return o;
}
