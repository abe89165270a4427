/* A program with three known allocation sites, one inlined into a fourth
 * function, and one in a dlopen'ed module,
 * for tests/cli/test_capture_stacks.sh (capture --stacks, symbols). Built
 * by the test itself with -g -O0 -fno-omit-frame-pointer; each site's line
 * is marked with a SITE: comment, the line of its call in main with CALL:,
 * which the test looks up.
 * Usage: stacks_prog [MODULE.so] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static char *frame_temp(size_t n) {
    char *p = malloc(n); /* SITE:frame_temp */
    if (p)
        memset(p, 1, n);
    return p;
}

__attribute__((noinline)) static void *make_entity(void) {
    return calloc(1, 48); /* SITE:make_entity */
}

__attribute__((noinline)) static char *load_level(size_t n) {
    char *p = malloc(n); /* SITE:load_level */
    if (p)
        memset(p, 2, n);
    return p;
}

/* Inlined even at -O0: its frame comes from the DWARF inline records. */
static inline __attribute__((always_inline)) void *pool_cell(void) {
    return malloc(40); /* SITE:pool_cell */
}

__attribute__((noinline)) static void *make_cell(void) {
    return pool_cell(); /* CALL:pool_cell */
}

int main(int argc, char **argv) {
    char *level = load_level(1 << 16); /* CALL:load_level */
    void *ents[64];
    for (int i = 0; i < 64; i++)
        ents[i] = make_entity(); /* CALL:make_entity */
    for (int frame = 0; frame < 200; frame++) {
        char *a = frame_temp(100 + (size_t)frame % 7), *b = frame_temp(300); /* CALL:frame_temp */
        free(b);
        free(a);
    }
    for (int i = 0; i < 64; i++)
        free(ents[i]);
    for (int i = 0; i < 8; i++)
        free(make_cell()); /* CALL:make_cell */
    free(level);
    if (argc > 1) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        void *(*fn)(size_t) = h ? (void *(*)(size_t))dlsym(h, "module_alloc") : NULL;
        if (!fn) {
            fprintf(stderr, "stacks_prog: %s\n", dlerror());
            return 1;
        }
        for (int i = 0; i < 10; i++)
            free(fn(64)); /* CALL:module_alloc */
    }
    return 0;
}
