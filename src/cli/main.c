/* heapreplay: the command table and dispatch. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/outfile.h"
#include "base/size.h"
#include "replay/child.h"
#include "replay/startup.h"
#include "trace/trace.h"

typedef struct hr_cmd {
    const hr_cmd_spec_t *spec;
    int (*fn)(int, char **);
} hr_cmd_t;

#define HR_CMD_ENTRY_(n) {&hr_spec_##n, hr_cmd_##n},
static const hr_cmd_t commands[] = {HR_CMD_LIST(HR_CMD_ENTRY_)};
#undef HR_CMD_ENTRY_
#define HR_NCMDS (sizeof commands / sizeof commands[0])

int hr_cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "heapreplay %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

int hr_cli_parse_size(const char *s, unsigned long long *out) {
    const char *end;
    uint64_t v;
    if (!s || hr_size_prefix(s, &end, &v) != 0 || *end)
        return -1;
    *out = v;
    return 0;
}

const char *hr_cli_self_exe(void) {
    static char path[PATH_MAX];
    if (!path[0]) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        if (n <= 0)
            snprintf(path, sizeof path, "heapreplay");
        else
            path[n] = 0;
    }
    return path;
}

static void usage(FILE *f) {
    fprintf(f, "usage: heapreplay COMMAND [options] [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < HR_NCMDS; i++)
        fprintf(f, "  %-8s  %s\n", commands[i].spec->name, commands[i].spec->summary);
    fprintf(f, "\n'heapreplay help COMMAND' or 'heapreplay COMMAND --help' describes a command;\n"
               "'man heapreplay' all of them. Version %s.\n", PACKAGE_VERSION);
}

static const hr_cmd_t *find_cmd(const char *name) {
    for (size_t i = 0; i < HR_NCMDS; i++)
        if (strcmp(commands[i].spec->name, name) == 0)
            return &commands[i];
    return NULL;
}

/* The generated documents (help.c): the build writes them with this binary. */
static int print_doc(const char *what) {
    const hr_cmd_spec_t *specs[HR_NCMDS + 1];
    for (size_t i = 0; i < HR_NCMDS; i++)
        specs[i] = commands[i].spec;
    specs[HR_NCMDS] = NULL;
    if (strcmp(what, "__man") == 0)
        hr_opts_man(specs, stdout);
    else
        hr_opts_bash(specs, stdout);
    return fflush(stdout) == 0 ? 0 : 2;
}

/* heapreplay help [COMMAND] */
static int help(int argc, char **argv) {
    if (argc < 3) {
        usage(stdout);
        return 0;
    }
    const hr_cmd_t *c = find_cmd(argv[2]);
    if (!c || argc > 3) {
        fprintf(stderr, "heapreplay help: %s '%s' (commands: see 'heapreplay help')\n",
                c ? "expected one command, got also" : "unknown command", c ? argv[3] : argv[2]);
        return 2;
    }
    hr_opts_help(c->spec, stdout);
    return 0;
}

/* A command's output that did not reach stdout (full disk, closed pipe
 * reader...) is an error: exit 2 with one line, whatever the command said. */
static int finish(const char *cmd, int rc) {
    hr_error_t err;
    /* Out of memory and rc 2: the command has said so in its one line. */
    int oom = hr_outfile_oom();
    if (hr_stdout_check(&err) != 0 && !(rc == 2 && oom)) {
        fprintf(stderr, "heapreplay %s: %s\n", cmd, err.msg);
        return 2;
    }
    return rc;
}

/* HEAPREPLAY_MAX_INPUT: the input limit for every command (trace.h's
 * hr_trace_set_max_input), where --max-input is not offered (replay, and
 * its workers). 0, or 2 after a one-line error. */
static int input_limit_from_env(void) {
    const char *v = getenv("HEAPREPLAY_MAX_INPUT");
    unsigned long long n;
    if (!v)
        return 0;
    if (hr_cli_parse_size(v, &n) != 0) {
        fprintf(stderr, "heapreplay: HEAPREPLAY_MAX_INPUT: expected a size in bytes (e.g. 1G; "
                        "0: no limit), got '%s'\n", v);
        return 2;
    }
    hr_trace_set_max_input(n);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (input_limit_from_env() != 0)
        return 2;
    if (strcmp(name, "__worker") == 0)
        return hr_worker_main(argc - 1, argv + 1);
    if (strcmp(name, "__startup-probe") == 0)
        return hr_startup_probe_main();
    if (strcmp(name, "__man") == 0 || strcmp(name, "__bash-completion") == 0)
        return print_doc(name);
    if (strcmp(name, "help") == 0)
        return help(argc, argv);
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("heapreplay %s\n", PACKAGE_VERSION);
        return 0;
    }
    const hr_cmd_t *c = find_cmd(name);
    if (c) {
        hr_stdout_capture();
        return finish(name, c->fn(argc - 1, argv + 1));
    }
    fprintf(stderr, "heapreplay: unknown %s '%s' (see 'heapreplay --help')\n",
            name[0] == '-' ? "option" : "command", name);
    return 2;
}
