/* Four threads. Phase 1: thread t allocates 500 blocks of 20000+1000t+i.
 * Phase 2 (after a barrier): thread t frees thread (t+1)%4's blocks (2000
 * cross-thread frees). Phase 3 (after a barrier): each thread allocates and
 * frees 500 blocks of its own sizes again, reusing freed addresses.
 * Expected in [20000, 24000): 4000 alloc, 4000 free, 2000 cross-thread,
 * 4 threads, peak 43499000, no reuse inversions. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#define NT 4
#define NB 500
static void *slots[NT][NB];
static pthread_barrier_t bar;
static void *run(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < NB; i++)
        slots[t][i] = malloc(20000 + 1000 * (size_t)t + (size_t)i);
    pthread_barrier_wait(&bar);
    for (int i = 0; i < NB; i++)
        free(slots[(t + 1) % NT][i]);
    pthread_barrier_wait(&bar);
    for (int i = 0; i < NB; i++)
        slots[t][i] = malloc(20000 + 1000 * (size_t)t + (size_t)i);
    for (int i = 0; i < NB; i++)
        free(slots[t][i]);
    return NULL;
}
int main(void) {
    pthread_t th[NT];
    pthread_barrier_init(&bar, NULL, NT);
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, run, (void *)(intptr_t)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    return 0;
}
