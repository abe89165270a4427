/* The dlopen'ed module of stacks_prog.c: one allocation site. */
#include <stdlib.h>

void *module_alloc(size_t n);

__attribute__((noinline)) void *module_alloc(size_t n) {
    return malloc(n); /* SITE:module_alloc */
}
