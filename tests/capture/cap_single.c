/* Single thread: 100 mallocs of 10000+i bytes, one calloc(3, 11111), all
 * freed. Expected in [10000, 40000): 100 alloc, 1 calloc, 101 free,
 * peak 1038283 bytes. */
#include <stdlib.h>
#include <string.h>
int main(void) {
    void *p[100];
    for (int i = 0; i < 100; i++) {
        p[i] = malloc(10000 + (size_t)i);
        memset(p[i], 1, 16);
    }
    volatile char *c = calloc(3, 11111);
    c[5] = 1;
    free((void *)c);
    for (int i = 0; i < 100; i++)
        free(p[i]);
    return 0;
}
