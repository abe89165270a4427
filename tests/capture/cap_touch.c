/* The capture library's page probe (docs/CAPTURE.md, "How much of a large
 * block was used"): blocks of at least 64 KiB get a `touched` record with the
 * bytes the program used, counted in whole pages plus the partial head page.
 * Every block is made first and freed at the end (a free would move glibc's
 * mmap threshold between them). Sizes are distinctive for the test:
 *   A  malloc(1 MiB)           3 pages written in its middle  -> 3 pages
 *   B  malloc(1 MiB - 4096)    nothing written                -> 0 pages
 *   C  calloc(64, 4096)        10 pages written               -> 10 pages
 *   D  malloc(100 KiB)         1 page written in its middle   -> 1 page
 *      then realloc(D, 1 MiB + 4096): the 100 KiB copied, and the 2 pages
 *      after them written                                     -> 100 KiB + 2 pages
 *   E  malloc(1 KiB)           below the threshold            -> no record
 *   F  malloc(96 KiB + 16)     all written, freed (E keeps it off the top of
 *                              the heap)                      -> 24 pages
 *   G  malloc(96 KiB)          glibc hands out F's memory again, resident:
 *                              the probe drops it; 2 pages written -> 2 pages
 * With the argument "fork": a 1 MiB block made before a fork is freed by the
 * child, whose log (FILE.<pid>) then has a TOUCHED record for a block it never
 * saw made (imported as a repair, ignored).
 * Transparent huge pages are turned off for this process, so a page written
 * is a page resident, whatever the host's THP setting. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define PAGE 4096u

/* One byte in each of `n` pages from p + off (volatile: the writes stay). */
static void touch(void *p, size_t off, unsigned n) {
    volatile char *c = (volatile char *)p + off;
    for (unsigned i = 0; i < n; i++)
        c[(size_t)i * PAGE] = 1;
}

static int inherited(void) {
    void *p = malloc(1u << 20);
    if (!p)
        return 1;
    touch(p, 0, 4);
    pid_t pid = fork();
    if (pid == 0) {
        free(p);
        _exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 1;
    free(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv) {
#if defined(__linux__) && defined(PR_SET_THP_DISABLE)
    prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
#endif
    if (argc > 1 && strcmp(argv[1], "fork") == 0)
        return inherited();
    void *a = malloc(1u << 20);
    touch(a, 512u * 1024u, 3);
    void *b = malloc((1u << 20) - PAGE);
    void *c = calloc(64, PAGE);
    touch(c, 20u * PAGE, 10);
    void *d = malloc(100u * 1024u);
    touch(d, 50u * 1024u, 1);
    void *e = malloc(1024);
    touch(e, 0, 1);
    void *f = malloc(96u * 1024u + 16u);
    void *guard = malloc(1000);
    if (!f || !guard)
        return 1;
    touch(f, 0, 24); /* every page (a memset before free may be optimised out) */
    touch(f, 96u * 1024u + 15u, 1);
    free(f);
    void *g = malloc(96u * 1024u);
    touch(g, 40u * 1024u, 2);
    void *d2 = realloc(d, (1u << 20) + PAGE);
    if (!a || !b || !c || !d2 || !e || !g)
        return 1;
    touch(d2, 100u * 1024u, 2);
    free(e);
    free(g);
    free(guard);
    free(d2);
    free(c);
    free(b);
    free(a);
    return 0;
}
