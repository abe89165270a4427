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

static const hr_opt_t list_opts[] = {
    {'n', "names", NULL, "print only the allocator names, one per line"},
    {0, NULL, NULL, NULL}};

const hr_cmd_spec_t hr_spec_list = {
    .name = "list", .operands = "", .opts = list_opts, .min_operands = 0, .max_operands = 0,
    .summary = "list the built allocators, their capabilities and libraries",
    .details =
        "compositions: -a 'PART+PART[+PART...]' (up to 4): each block goes to the first\n"
        "part whose rule takes it, the last part takes the rest (routing planned from\n"
        "the whole trace):\n"
        "  stack      LIFO temporaries (freed in their frame, nested inside what the\n"
        "             stack holds, at most entries=N live, 32 by default)\n"
        "  marker     frame-scoped blocks (freed before the next frame mark)\n"
        "  block      requests up to 640 B   sizeclass  up to 128 B   bank  up to 4 KiB\n"
        "  glibc, jemalloc, mimalloc, tcmalloc, preload:PATH, routed: every block (last\n"
        "             part only; one external allocator at most: the worker preloads it)\n"
        "  e.g. stack+block (Box2D), marker+glibc, bank+mimalloc, stack+marker+block\n"
        "\n"
        "An allocator marked NOT FOUND was not found at configure time; 'all' skips it.\n"};

static int on_opt(void *ctx, const hr_optarg_t *o) {
    *(int *)ctx = o->key == 'n';
    return 0;
}

int hr_cmd_list(int argc, char **argv) {
    int names = 0, first;
    int rc = hr_opts_parse(&hr_spec_list, argc, argv, on_opt, &names, &first);
    if (rc)
        return rc == HR_OPTS_HELP ? 0 : rc;
    for (size_t i = 0; hr_backends[i]; i++) {
        const hr_backend_t *b = hr_backends[i];
        if (b->caps & HR_CAP_TEST_ONLY)
            continue;
        if (names) {
            printf("%s\n", b->name);
            continue;
        }
        char caps[160];
        caps_string(b->caps, caps, sizeof caps);
        const char *lib = (b->caps & HR_CAP_EXTERNAL_PROCESS) ? hr_external_lib(b->name) : NULL;
        printf("%-10s %-34s %s", b->name, caps, b->description);
        if (b->caps & HR_CAP_EXTERNAL_PROCESS && strcmp(b->name, "preload") != 0)
            printf(" [%s]", lib ? (lib[0] ? lib : "libc") : "NOT FOUND");
        printf("\n");
    }
    if (names)
        return 0;
    fputs("\n", stdout);
    fputs(hr_spec_list.details, stdout);
    return 0;
}
