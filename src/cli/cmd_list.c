/* heapreplay list: the built allocators, their capabilities and libraries. */
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/be_system.h"
#include "cli/cli.h"

static void caps_string(unsigned caps, char *out, size_t n) {
    static const struct { unsigned bit; const char *name; } names[] = {
        {HR_CAP_NEEDS_SIZE_ON_FREE, "sized-free"}, {HR_CAP_LIFO_ONLY, "lifo"},
        {HR_CAP_FIXED_CELL, "fixed-cell"}, {HR_CAP_ALIGNED, "aligned"},
        {HR_CAP_REALLOC, "realloc"}, {HR_CAP_HEAP_ROUTING, "heaps"},
        {HR_CAP_EXTERNAL_PROCESS, "worker"}, {HR_CAP_FRAMES, "frames"}};
    out[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (caps & names[i].bit) {
            size_t len = strlen(out);
            snprintf(out + len, n - len, "%s%s", len ? "," : "", names[i].name);
        }
}

int hr_cmd_list(int argc, char **argv) {
    (void)argc, (void)argv;
    for (size_t i = 0; hr_backends[i]; i++) {
        const hr_backend_t *b = hr_backends[i];
        if (b->caps & HR_CAP_TEST_ONLY)
            continue;
        char caps[160];
        caps_string(b->caps, caps, sizeof caps);
        const char *lib = (b->caps & HR_CAP_EXTERNAL_PROCESS) ? hr_external_lib(b->name) : NULL;
        printf("%-10s %-34s %s", b->name, caps, b->description);
        if (b->caps & HR_CAP_EXTERNAL_PROCESS && strcmp(b->name, "preload") != 0)
            printf(" [%s]", lib ? (lib[0] ? lib : "libc") : "NOT FOUND");
        printf("\n");
    }
    return 0;
}
