/* The command table (after git's builtin/): one cmd_<name>.c per subcommand,
 * each `int hr_cmd_<name>(int argc, char **argv)` with argv[0] = the subcommand.
 * Exit status: 0 success, 1 a regression (compare) or a failed replay, 2 bad
 * input or usage (one line on stderr naming the file and what was expected). */
#ifndef HR_CLI_CLI_H
#define HR_CLI_CLI_H

#include "cli/opts.h"

/* Each command also defines its option table, `hr_spec_<name>` (opts.h),
 * which carries its one-line summary, its --help and its man page section. */
#define HR_CMD_LIST(X) X(replay) X(compare) X(merge) X(info) X(convert) X(gen) X(capture) X(plot) X(report) X(list) X(sites) X(plan)

#define HR_CMD_DECL_(n) int hr_cmd_##n(int argc, char **argv); extern const hr_cmd_spec_t hr_spec_##n;
HR_CMD_LIST(HR_CMD_DECL_)
#undef HR_CMD_DECL_

/* Shared helpers for commands. */
int hr_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))); /* prints "heapreplay CMD: ...", returns 2 */
int hr_cli_parse_size(const char *s, unsigned long long *out); /* 64k, 10M, 1G; 0 ok */
/* The chart options plot and report share (--kind, --metric, --baseline,
 * --frame-budget, --width; cmd_plot.c): 0 taken, 2 after a usage error, 1
 * when o is not one of them. */
struct hr_svg_options;
int hr_cli_chart_opt(struct hr_svg_options *opt, const hr_optarg_t *o);
/* sites and plan: reads TRACE and names its address frames that have no
 * symbol yet (trace/symbols.h; one note per unusable module on stderr).
 * 0, or 2 after one line on stderr. */
struct hr_trace;
int hr_cli_read_sites_trace(const char *cmd, const char *path, struct hr_trace *t);
/* Path of the running executable (for re-exec of workers). */
const char *hr_cli_self_exe(void);

#endif
