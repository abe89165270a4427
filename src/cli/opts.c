/* getopt_long over a command's option table (opts.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "trace/trace.h"

#define HR_OPTS_MAX 48 /* options of one command, -h/--help included */

static const hr_opt_t help_opt = {'h', "help", NULL, "show this help and exit"};

static size_t count_opts(const hr_cmd_spec_t *cmd) {
    size_t n = 0;
    while (cmd->opts && cmd->opts[n].key)
        n++;
    return n;
}

static const hr_opt_t *find_key(const hr_cmd_spec_t *cmd, int key) {
    for (size_t i = 0; cmd->opts && cmd->opts[i].key; i++)
        if (cmd->opts[i].key == key)
            return &cmd->opts[i];
    return key == 'h' ? &help_opt : NULL;
}

/* getopt_long's inputs from the table: "+:a:r:qh" and the long options. */
static int build(const hr_cmd_spec_t *cmd, char *shorts, size_t cap, struct option *longs) {
    size_t n = count_opts(cmd), k = 0, s = 0;
    if (n + 2 > HR_OPTS_MAX)
        return -1;
    if (cmd->in_order)
        shorts[s++] = '+';
    shorts[s++] = ':';
    for (size_t i = 0; i <= n; i++) {
        const hr_opt_t *o = i < n ? &cmd->opts[i] : &help_opt;
        if (o->key < HR_OPT_LONG && s + 3 < cap) {
            shorts[s++] = (char)o->key;
            if (o->arg)
                shorts[s++] = ':';
        }
        if (o->name)
            longs[k++] = (struct option){o->name, !o->arg ? no_argument
                                                  : o->arg[0] == '[' ? optional_argument /* "[N]" */
                                                                     : required_argument,
                                         NULL, o->key};
    }
    shorts[s] = 0;
    longs[k] = (struct option){NULL, 0, NULL, 0};
    return 0;
}

/* "--name" of "--name=value" into out. */
static void long_as_typed(const char *word, char *out, size_t cap) {
    size_t n = strcspn(word, "=");
    snprintf(out, cap, "%.*s", (int)(n < 60 ? n : 60), word);
}

/* How many long names start with the typed prefix (getopt's '?' does not
 * tell an unknown option from an ambiguous one). */
static int prefix_matches(const struct option *longs, const char *typed) {
    int m = 0;
    size_t n = strlen(typed + 2);
    for (; longs->name; longs++)
        m += strncmp(longs->name, typed + 2, n) == 0;
    return m;
}

static int unknown(const hr_cmd_spec_t *cmd, const struct option *longs, char **argv) {
    char typed[64];
    const char *word = argv[optind - 1];
    if (optopt == 0 && word && strncmp(word, "--", 2) == 0) {
        long_as_typed(word, typed, sizeof typed);
        if (prefix_matches(longs, typed) > 1)
            return hr_cli_usage_error(cmd->name, "option '%s' is ambiguous (see 'heapreplay %s --help')",
                                      typed, cmd->name);
    } else if (optopt != 0 && word && strncmp(word, "--", 2) == 0 && find_key(cmd, optopt)) {
        long_as_typed(word, typed, sizeof typed);
        return hr_cli_usage_error(cmd->name, "option '%s' takes no argument", typed);
    } else {
        snprintf(typed, sizeof typed, "-%c", optopt ? optopt : '?');
    }
    return hr_cli_usage_error(cmd->name, "unknown option '%s' (see 'heapreplay %s --help')", typed,
                              cmd->name);
}

static int missing(const hr_cmd_spec_t *cmd, char **argv) {
    char typed[64];
    const char *word = argv[optind - 1];
    if (word && strncmp(word, "--", 2) == 0)
        long_as_typed(word, typed, sizeof typed);
    else
        snprintf(typed, sizeof typed, "-%c", optopt);
    return hr_cli_usage_error(cmd->name, "option '%s' requires an argument", typed);
}

static int check_operands(const hr_cmd_spec_t *cmd, int n) {
    if (n < cmd->min_operands)
        return hr_cli_usage_error(cmd->name, "expected %s (see 'heapreplay %s --help')",
                                  cmd->operands, cmd->name);
    if (cmd->max_operands >= 0 && n > cmd->max_operands)
        return hr_cli_usage_error(cmd->name, "too many arguments: expected %s (see 'heapreplay %s "
                                  "--help')", cmd->operands, cmd->name);
    return 0;
}

int hr_opts_parse(const hr_cmd_spec_t *cmd, int argc, char **argv, hr_opt_fn fn, void *ctx,
                  int *first_operand) {
    char shorts[2 * HR_OPTS_MAX + 4];
    struct option longs[HR_OPTS_MAX + 1];
    if (build(cmd, shorts, sizeof shorts, longs) != 0)
        return hr_cli_usage_error(cmd->name, "internal error: option table too large");
    opterr = 0;
    optind = 0; /* glibc: a full reset (another command may have parsed before) */
    for (;;) {
        int li = -1;
        int c = getopt_long(argc, argv, shorts, longs, &li);
        if (c == -1)
            break;
        if (c == '?')
            return unknown(cmd, longs, argv);
        if (c == ':')
            return missing(cmd, argv);
        if (c == 'h') { /* every command's; tables never use 'h' */
            hr_opts_help(cmd, stdout);
            return HR_OPTS_HELP;
        }
        hr_optarg_t o = {cmd, c, optarg, {0}};
        if (li >= 0)
            snprintf(o.as, sizeof o.as, "--%s", longs[li].name);
        else
            snprintf(o.as, sizeof o.as, "-%c", c);
        int rc = fn(ctx, &o);
        if (rc)
            return rc;
    }
    *first_operand = optind;
    return check_operands(cmd, argc - optind);
}

int hr_opt_bad(const hr_optarg_t *o, const char *what) {
    return hr_cli_usage_error(o->cmd->name, "option '%s' expects %s, got '%s'", o->as, what,
                              o->arg ? o->arg : "");
}

int hr_opt_uint(const hr_optarg_t *o, uint64_t min, uint64_t max, uint64_t *out) {
    char what[96], *end;
    const char *s = o->arg;
    snprintf(what, sizeof what, "an integer %llu..%llu", (unsigned long long)min,
             (unsigned long long)max);
    if (!s || *s < '0' || *s > '9')
        return hr_opt_bad(o, what);
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v < min || v > max)
        return hr_opt_bad(o, what);
    *out = v;
    return 0;
}

int hr_opt_bytes(const hr_optarg_t *o, uint64_t *out) {
    unsigned long long v;
    if (hr_cli_parse_size(o->arg, &v) != 0)
        return hr_opt_bad(o, "a size in bytes (e.g. 4096, 64K, 10M, 1G)");
    *out = v;
    return 0;
}

int hr_opt_double(const hr_optarg_t *o, double min, double max, int lo_open, double *out) {
    char what[96], *end;
    snprintf(what, sizeof what, "a number %s %g and <= %g", lo_open ? ">" : ">=", min, max);
    const char *s = o->arg;
    if (!s || !*s || (*s != '.' && (*s < '0' || *s > '9')))
        return hr_opt_bad(o, what);
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v) || v < min || (lo_open && v == min) || v > max)
        return hr_opt_bad(o, what);
    *out = v;
    return 0;
}

int hr_opt_max_input(const hr_optarg_t *o) {
    uint64_t v = 0;
    if (hr_opt_bytes(o, &v) != 0)
        return 2;
    hr_trace_set_max_input(v);
    return 0;
}
