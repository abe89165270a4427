/* realloc chain: realloc(NULL, 40000), then 40001..40009, then realloc(p, 0);
 * reallocarray(NULL, 4, 10250) (41000) then free. Expected in [40000, 42000):
 * 2 alloc (realloc(NULL) -> alloc), 9 realloc, 2 free, peak 41000. */
#include <stdlib.h>
int main(void) {
    char *p = realloc(NULL, 40000);
    for (int i = 1; i <= 9; i++) {
        p = realloc(p, 40000 + (size_t)i);
        p[0] = (char)i;
    }
    p = realloc(p, 0); /* glibc frees and returns NULL */
    void *q = reallocarray(NULL, 4, 10250);
    free(q);
    return p != NULL;
}
