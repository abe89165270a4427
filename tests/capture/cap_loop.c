/* Allocation loop for tests/cli/test_capture_stream.sh: argv[1] rounds
 * (default 100000) of free + malloc over a 1024-slot window in each of
 * argv[2] threads (default 2), sizes from a small set so that the addresses
 * repeat; every 4096th round a 96 KiB block, half of it written, which the
 * capture library's page probe measures (a TOUCHED record). Prints nothing. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static long rounds = 100000;
void *volatile cap_loop_sink; /* keeps the large block's writes (and the block) */

static void *loop(void *arg) {
    uint64_t x = 0x9E3779B97F4A7C15ull * (1 + (uintptr_t)arg);
    void *slot[1024] = {0};
    for (long i = 0; i < rounds; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        unsigned k = (unsigned)(x & 1023);
        free(slot[k]);
        slot[k] = malloc(16u << ((x >> 10) & 3));
        cap_loop_sink = slot[k];
        if ((i & 4095) == 4095) {
            char *big = malloc(96 * 1024);
            if (big)
                memset(big, 1, 48 * 1024);
            cap_loop_sink = big;
            free(cap_loop_sink);
        }
    }
    for (int k = 0; k < 1024; k++)
        free(slot[k]);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1)
        rounds = atol(argv[1]);
    int nt = argc > 2 ? atoi(argv[2]) : 2;
    pthread_t th[16];
    if (nt < 1 || nt > 16)
        nt = 2;
    for (int t = 0; t < nt; t++)
        pthread_create(&th[t], NULL, loop, (void *)(intptr_t)t);
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    return 0;
}
