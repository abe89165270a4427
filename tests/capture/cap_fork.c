/* fork: the parent allocates 30001..30003, forks, waits, frees them. The
 * child allocates 31000..31004, frees 31000, 31001 and the inherited 30001,
 * and exits. Expected in [30000, 32000): parent file 3 alloc, 3 free, peak
 * 90006; child file (FILE.<pid>) 5 alloc, 2 free, 1 unknown free, peak 155010. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
/* Opaque to the optimizer: gcc may drop a malloc/free pair it can see through. */
void *volatile sink;
int main(void) {
    void *a[3], *b[5];
    for (int i = 0; i < 3; i++)
        sink = a[i] = malloc(30001 + (size_t)i);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 5; i++)
            sink = b[i] = malloc(31000 + (size_t)i);
        free(b[0]);
        free(b[1]);
        free(a[0]);
        exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    for (int i = 0; i < 3; i++)
        free(a[i]);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
