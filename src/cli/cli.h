/* The command table (after git's builtin/): one cmd_<name>.c per subcommand,
 * each `int hr_cmd_<name>(int argc, char **argv)` with argv[0] = the subcommand.
 * Exit status: 0 success, 1 a regression (compare) or a failed replay, 2 bad
 * input or usage (one line on stderr naming the file and what was expected). */
#ifndef HR_CLI_CLI_H
#define HR_CLI_CLI_H

#define HR_CMD_LIST(X)                                                        \
    X(replay,  "replay traces against allocators and report")                 \
    X(compare, "compare two reports; exit 1 on a regression")                 \
    X(info,    "print a trace's counts, threads, heaps, frames, peak live")   \
    X(convert, "convert between trace formats; import captures")              \
    X(gen,     "generate a synthetic game-like trace")                        \
    X(capture, "record a program's allocations into a trace")                 \
    X(plot,    "draw an SVG chart of a report")                               \
    X(list,    "list the built allocators")

#define HR_CMD_DECL_(n, d) int hr_cmd_##n(int argc, char **argv);
HR_CMD_LIST(HR_CMD_DECL_)
#undef HR_CMD_DECL_

/* Shared helpers for commands. */
int hr_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))); /* prints "heapreplay CMD: ...", returns 2 */
int hr_cli_parse_size(const char *s, unsigned long long *out); /* 64k, 10M, 1G; 0 ok */
/* Path of the running executable (for re-exec of workers). */
const char *hr_cli_self_exe(void);

#endif
