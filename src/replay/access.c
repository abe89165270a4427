/* The access model's names (replay/access.h); the uses themselves are inline
 * in the op loops (engine_access.h). */
#include "replay/access.h"

#include <stdio.h>
#include <string.h>

hr_access_t hr_access_none(void) {
    hr_access_t a = {HR_ACCESS_NONE, 0, 0};
    return a;
}

int hr_access_on(const hr_access_t *a) { return a->kind != HR_ACCESS_NONE || a->read_free; }

static const char *const kind_names[] = {"none", "reuse", "spread"};

/* "reuse:N" or "spread:N" of length len at s into a. */
static int parse_lines(const char *s, size_t len, hr_access_t *a) {
    for (int k = HR_ACCESS_REUSE; k <= HR_ACCESS_SPREAD; k++) {
        size_t kl = strlen(kind_names[k]);
        if (len <= kl + 1 || strncmp(s, kind_names[k], kl) != 0 || s[kl] != ':')
            continue;
        unsigned long n = 0;
        for (size_t i = kl + 1; i < len; i++) {
            if (s[i] < '0' || s[i] > '9' || n > HR_ACCESS_MAX_LINES)
                return -1;
            n = n * 10 + (unsigned long)(s[i] - '0');
        }
        if (n < 1 || n > HR_ACCESS_MAX_LINES)
            return -1;
        a->kind = (hr_access_kind_t)k;
        a->lines = (uint32_t)n;
        return 0;
    }
    return -1;
}

int hr_access_parse(const char *s, hr_access_t *out) {
    hr_access_t a = hr_access_none();
    if (strcmp(s, "none") == 0) {
        *out = a;
        return 0;
    }
    /* at most two parts: a lines model and "free", in either order */
    for (int part = 0; part < 2; part++) {
        size_t len = strcspn(s, "+");
        if (len == 4 && strncmp(s, "free", 4) == 0) {
            if (a.read_free)
                return -1;
            a.read_free = 1;
        } else if (a.kind != HR_ACCESS_NONE || parse_lines(s, len, &a) != 0) {
            return -1;
        }
        if (!s[len])
            break;
        if (part == 1 || !s[len + 1])
            return -1; /* a third part, or a trailing '+' */
        s += len + 1;
    }
    *out = a;
    return 0;
}

const char *hr_access_spec(const hr_access_t *a, char *buf, size_t n) {
    if (a->kind == HR_ACCESS_NONE)
        snprintf(buf, n, "%s", a->read_free ? "free" : "none");
    else
        snprintf(buf, n, "%s:%u%s", kind_names[a->kind], (unsigned)a->lines,
                 a->read_free ? "+free" : "");
    return buf;
}
