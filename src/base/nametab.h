/* Name tables of the command line's enumerations (--memory-lap, --threads,
 * --event-form, the replay modes, --count): one lookup each way, so that
 * every option spells its values from one array and parses them the same
 * way. Header-only. */
#ifndef HR_BASE_NAMETAB_H
#define HR_BASE_NAMETAB_H

#include <string.h>

#define HR_NAMES_N(names) ((int)(sizeof(names) / sizeof((names)[0])))

/* The index of s in names[0..n), or -1 (s NULL: -1). */
static inline int hr_name_index(const char *const *names, int n, const char *s) {
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* names[i], or "?" when i is outside [0, n). */
static inline const char *hr_name_at(const char *const *names, int n, int i) {
    return i >= 0 && i < n ? names[i] : "?";
}

#endif
