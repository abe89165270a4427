/* Allocates N blocks of 60000+i (N = argv[1], default 200), writes its pid
 * to the file argv[2] (if given) to say it is ready, then waits to be killed. Expected
 * after SIGTERM with N=200 in [60000, 70000): 200 alloc, 0 free, peak
 * 12019900, capture ended by signal 15. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    for (int i = 0; i < n; i++) {
        volatile char *p = malloc(60000 + (size_t)(i % 10000));
        p[0] = 1;
    }
    if (argc > 2) { /* write our pid to a temporary name, then rename: atomic */
        char tmp[4096], pid[32];
        snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        if (fd < 0 || write(fd, pid, (size_t)len) != len || close(fd) != 0 || rename(tmp, argv[2]) != 0)
            return 4;
    }
    for (int i = 0; i < 600; i++)
        sleep(1);
    return 3; /* not killed within 10 minutes */
}
