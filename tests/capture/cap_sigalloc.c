/* Allocation in a signal handler that interrupts the allocator: SIGALRM from
 * setitimer every 50 us while the main loop does nothing but malloc(48) and
 * free; the handler mallocs and frees one block of 777 bytes and counts the
 * pair. Under the capture library most of the main loop's time is spent in
 * the hooks, so most signals interrupt one. Runs until the handler has run
 * argv[1] times (default 500; gives up after 20 s), then prints
 * "handler_pairs N" on stdout: the capture must hold exactly N allocations
 * and N frees of 777 bytes.
 * argv[2] = "signal": installs the handler with signal() (re-armed in the
 * handler, as System V semantics need) instead of sigaction().
 *
 * Not a licence to allocate in handlers: malloc is not async-signal-safe.
 * This one stays safe with glibc because both sizes live in glibc's
 * per-thread cache (tcache, blocks up to 1032 bytes), in different bins,
 * each warmed before the timer starts, so neither the loop nor the handler
 * touches the arena the other may be in the middle of changing. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define HANDLER_SIZE 777
#define LOOP_SIZE 48

static volatile sig_atomic_t pairs;
static int use_signal;
void *volatile sink; /* opaque to the optimizer: the pairs stay calls */

static void on_alarm(int sig) {
    char *q = malloc(HANDLER_SIZE);
    if (q) {
        q[0] = 1;
        sink = q;
        free(q);
        pairs = pairs + 1;
    }
    if (use_signal)
        signal(sig, on_alarm);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    int want = argc > 1 ? atoi(argv[1]) : 500;
    use_signal = argc > 2 && strcmp(argv[2], "signal") == 0;
    free(sink = malloc(HANDLER_SIZE)); /* warm both tcache bins */
    free(sink = malloc(LOOP_SIZE));
    if (use_signal) {
        if (signal(SIGALRM, on_alarm) == SIG_ERR)
            return 2;
    } else {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigaction(SIGALRM, &sa, NULL) != 0)
            return 2;
    }
    struct itimerval it = {{0, 50}, {0, 50}};
    if (setitimer(ITIMER_REAL, &it, NULL) != 0)
        return 2;
    double t0 = now();
    for (unsigned long i = 0; pairs < want; i++) {
        void *p = malloc(LOOP_SIZE);
        sink = p;
        free(p);
        if ((i & 4095) == 0 && now() - t0 > 20)
            break;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    printf("handler_pairs %d\n", (int)pairs);
    return pairs >= want ? 0 : 1;
}
