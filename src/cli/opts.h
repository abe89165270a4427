/* One option table per command, parsed with getopt_long (GNU forms:
 * --opt=VALUE, --opt VALUE, -oVALUE, -o VALUE, bundled flags -qv, "--" ends
 * the options, unique prefixes of long names). The same table generates the
 * command's --help text, the man page and the bash completion (help.c), so
 * they cannot disagree with what the parser accepts.
 *
 * Every command gets -h/--help for free. Errors are one line on stderr,
 * "heapreplay CMD: ...", and exit status 2:
 *   unknown option '--bogus' (see 'heapreplay CMD --help')
 *   option '-r' requires an argument
 *   option '--flag' takes no argument
 *   option '--repeat' expects an integer 1..1000, got 'x' */
#ifndef HR_CLI_OPTS_H
#define HR_CLI_OPTS_H

#include <stdint.h>
#include <stdio.h>

/* Keys of long-only options start here (below: the short letter itself). */
#define HR_OPT_LONG 256

typedef struct hr_opt {
    int key;          /* a letter (also the short option) or >= HR_OPT_LONG */
    const char *name; /* long name without "--"; NULL: short only */
    const char *arg;  /* the value's placeholder ("N", "FILE"); NULL: a flag;
                       * "[N]": an optional value, given only as --name=N */
    const char *help; /* text; '\n' separates lines of --help (the man page fills) */
} hr_opt_t;

typedef struct hr_cmd_spec {
    const char *name;     /* "replay" */
    const char *operands; /* synopsis after the options: "TRACE|DIR..." */
    const char *summary;  /* one line, lower case, no full stop */
    const hr_opt_t *opts; /* ends with a zero entry; -h/--help is implied */
    /* Text after the options, in --help and in the man page: paragraphs
     * separated by blank lines; lines starting with two spaces are kept
     * as they are (examples, tables). May be NULL. */
    const char *details;
    int in_order;   /* stop at the first operand (capture: CMD's own options follow) */
    int min_operands, max_operands; /* -1: no maximum */
    /* More text after details, written when help is asked for (lists that
     * come from a registry: plot's metrics). May be NULL. */
    void (*details_fn)(FILE *f);
} hr_cmd_spec_t;

/* One parsed option, handed to the command's callback. */
typedef struct hr_optarg {
    const hr_cmd_spec_t *cmd;
    int key;
    const char *arg; /* NULL for a flag */
    char as[64];     /* the option as typed, for messages: "-r" or "--repeat" */
} hr_optarg_t;

/* The callback returns 0, or 2 after printing a usage error. */
typedef int (*hr_opt_fn)(void *ctx, const hr_optarg_t *o);

/* Parses argv[1..] (argv[0] = the command's name). Returns 0 with
 * *first_operand set (the operands are argv[*first_operand..argc-1], in
 * order), HR_OPTS_HELP after printing the help on stdout (exit 0), or 2
 * after a usage error (a callback's included). The operand count is checked
 * against the spec. */
#define HR_OPTS_HELP (-1)
int hr_opts_parse(const hr_cmd_spec_t *cmd, int argc, char **argv, hr_opt_fn fn, void *ctx,
                  int *first_operand);

/* Strict value parsers for callbacks: the whole value must be a number in
 * [min, max]; otherwise one line names the option and the value, and they
 * return 2. */
int hr_opt_uint(const hr_optarg_t *o, uint64_t min, uint64_t max, uint64_t *out);
int hr_opt_bytes(const hr_optarg_t *o, uint64_t *out); /* 64k, 10M, 1G, 512KiB */
/* lo_open: the minimum itself is refused (seconds > 0). */
int hr_opt_double(const hr_optarg_t *o, double min, double max, int lo_open, double *out);
/* Prints "heapreplay CMD: option 'AS' expects WHAT, got 'ARG'"; returns 2. */
int hr_opt_bad(const hr_optarg_t *o, const char *what);

/* --max-input SIZE, on the commands that read traces (info, convert): the
 * input limit of hr_trace_set_max_input (src/trace/trace.h). One row and one
 * handler, so every command says and does the same. */
#define HR_OPT_MAX_INPUT (HR_OPT_LONG + 200)
#define HR_OPT_MAX_INPUT_ROW                                                                   \
    {HR_OPT_MAX_INPUT, "max-input", "SIZE",                                                    \
     "the most bytes taken from a compressed trace once decompressed, or from a "              \
     "pipe or stdin (default 1G, or HEAPREPLAY_MAX_INPUT; 0: no limit); a binary "             \
     "header that claims more fails at once"}
int hr_opt_max_input(const hr_optarg_t *o); /* sets the limit: 0, or 2 after a usage error */

/* Generated documentation (help.c). */
void hr_opts_help(const hr_cmd_spec_t *cmd, FILE *f);
void hr_opts_usage_line(const hr_cmd_spec_t *cmd, FILE *f);
/* cmds: every command's table, NULL-terminated. */
void hr_opts_man(const hr_cmd_spec_t *const *cmds, FILE *f);
void hr_opts_bash(const hr_cmd_spec_t *const *cmds, FILE *f);

#endif
