/* Allocation-heavy workload for bench/capture/bench_capture.sh: N rounds (argv[1],
 * default 2M) of malloc/free churn over a 4096-slot window with game-like
 * sizes, 4 threads (argv[2]). Prints nothing; the script times it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static long rounds = 2000000;

static void *churn(void *arg) {
    uint64_t x = 88172645463325252ull + (uintptr_t)arg;
    void *slot[4096] = {0};
    for (long i = 0; i < rounds; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        unsigned k = (unsigned)(x & 4095);
        free(slot[k]);
        size_t size = (x >> 12) % 8 == 0 ? 256 + (x >> 20) % 4096 : 16 + (x >> 20) % 112;
        slot[k] = malloc(size);
        if (slot[k])
            *(volatile char *)slot[k] = 1;
    }
    for (int k = 0; k < 4096; k++)
        free(slot[k]);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1)
        rounds = atol(argv[1]);
    int nt = argc > 2 ? atoi(argv[2]) : 4;
    pthread_t th[64];
    if (nt < 1 || nt > 64)
        nt = 4;
    for (int t = 0; t < nt; t++)
        pthread_create(&th[t], NULL, churn, (void *)(intptr_t)t);
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    return 0;
}
