/* Ways to end: argv[1] = exit | _exit | return | abort | exec. Each mode
 * mallocs one block of 80001 (the exec mode mallocs 80002 and then execs
 * itself in "exit" mode, so the capture holds only the new image's 80001). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    const char *m = argc > 1 ? argv[1] : "return";
    volatile char *p = malloc(strcmp(m, "exec") == 0 ? 80002 : 80001);
    p[0] = 1;
    if (strcmp(m, "exit") == 0)
        exit(0);
    if (strcmp(m, "_exit") == 0)
        _exit(0);
    if (strcmp(m, "abort") == 0)
        abort();
    if (strcmp(m, "exec") == 0) {
        char *args[] = {argv[0], (char *)"exit", NULL};
        execv("/proc/self/exe", args);
        return 9;
    }
    return 0;
}
