/* Golden-file helpers of the unit tests: outputs are compared with
 * tests/expected/NAME under $srcdir (the source tree, which differs from the
 * build tree in `make distcheck`). HR_UPDATE_EXPECTED=1 rewrites each file
 * with what the test produced before comparing (review the diff!). */
#ifndef HR_TEST_GOLDEN_H
#define HR_TEST_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>

/* $srcdir, or "." when unset (running a test binary by hand). */
static inline const char *srcdir(void) {
    const char *s = getenv("srcdir");
    return s && *s ? s : ".";
}

/* The whole file as a NUL-terminated string (malloc'd), or NULL. */
static inline char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;
    while (m && (c = fgetc(f)) != EOF)
        fputc(c, m);
    fclose(f);
    if (m)
        fclose(m);
    return buf;
}

/* got == tests/expected/NAME; on a difference prints "# NAME differs at byte
 * N: want ... got ..." (30 bytes of each from there) and returns 0. */
static inline int matches_expected(const char *name, const char *got) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/expected/%s", srcdir(), name);
    if (getenv("HR_UPDATE_EXPECTED")) {
        FILE *f = fopen(path, "wb");
        if (f) {
            fputs(got, f);
            fclose(f);
        }
    }
    char *want = read_all(path);
    if (!want) {
        printf("# cannot read %s\n", path);
        return 0;
    }
    size_t i = 0;
    while (want[i] && want[i] == got[i])
        i++;
    int ok = want[i] == got[i];
    if (!ok)
        printf("# %s differs at byte %zu: want \"%.30s\" got \"%.30s\"\n", name, i, want + i,
               got + i);
    free(want);
    return ok;
}

#endif
