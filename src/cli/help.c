/* Documentation generated from the option tables (opts.h): each command's
 * --help, the man page heapreplay.1 (`heapreplay __man`) and the bash
 * completion (`heapreplay __bash-completion`). The build writes the last two
 * with the built binary, so they always describe the options it parses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"

#define HELP_COL 26   /* where option descriptions start in --help */
#define HELP_WIDTH 79 /* and where they end */

void hr_opts_usage_line(const hr_cmd_spec_t *cmd, FILE *f) {
    fprintf(f, "usage: heapreplay %s [options]%s%s\n", cmd->name, cmd->operands[0] ? " " : "",
            cmd->operands);
}

/* "  -a, --allocators=LIST" into buf. */
static void opt_label(const hr_opt_t *o, char *buf, size_t cap) {
    char sh[8] = "    ";
    if (o->key < HR_OPT_LONG)
        snprintf(sh, sizeof sh, "-%c%s", o->key, o->name ? ", " : "");
    if (o->name && o->arg && o->arg[0] == '[') /* an optional value "[N]": --name[=N] */
        snprintf(buf, cap, "  %s--%s[=%s", sh, o->name, o->arg + 1);
    else if (o->name)
        snprintf(buf, cap, "  %s--%s%s%s", sh, o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
    else
        snprintf(buf, cap, "  %s%s%s", sh, o->arg ? " " : "", o->arg ? o->arg : "");
}

/* Writes text from column `col` to HELP_WIDTH, words wrapped; '\n' breaks. */
static void wrap(const char *h, int col, FILE *f) {
    int at = col;
    while (*h) {
        if (*h == '\n') {
            fprintf(f, "\n%*s", col, "");
            at = col, h++;
            continue;
        }
        size_t sp = strspn(h, " "), w = strcspn(h + sp, " \n");
        if (at > col && at + (int)(sp + w) > HELP_WIDTH) {
            fprintf(f, "\n%*s", col, "");
            at = col, h += sp;
            continue;
        }
        at += fprintf(f, "%.*s", (int)(sp + w), h);
        h += sp + w;
    }
    fputc('\n', f);
}

static void help_opt(const hr_opt_t *o, FILE *f) {
    char label[96];
    opt_label(o, label, sizeof label);
    int col = (int)strlen(label);
    if (col + 1 >= HELP_COL)
        fprintf(f, "%s\n%*s", label, HELP_COL, "");
    else
        fprintf(f, "%s%*s", label, HELP_COL - col, "");
    wrap(o->help, HELP_COL, f);
}

void hr_opts_help(const hr_cmd_spec_t *cmd, FILE *f) {
    static const hr_opt_t help = {'h', "help", NULL, "show this help and exit"};
    hr_opts_usage_line(cmd, f);
    int c0 = cmd->summary[0];
    fprintf(f, "%c%s.\n\noptions:\n", c0 >= 'a' && c0 <= 'z' ? c0 - 'a' + 'A' : c0,
            cmd->summary + 1);
    for (const hr_opt_t *o = cmd->opts; o && o->key; o++)
        help_opt(o, f);
    help_opt(&help, f);
    if (cmd->details)
        fprintf(f, "\n%s", cmd->details);
    if (cmd->details && cmd->details[strlen(cmd->details) - 1] != '\n')
        fputc('\n', f);
    if (cmd->details_fn)
        cmd->details_fn(f);
}

/* ---- man page ---------------------------------------------------------- */

/* Text for roff: backslashes and hyphens escaped; a line never starts with
 * a control character. */
static void roff_text(const char *s, size_t n, FILE *f) {
    if (n && (s[0] == '.' || s[0] == '\''))
        fputs("\\&", f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\')
            fputs("\\e", f);
        else if (s[i] == '-')
            fputs("\\-", f);
        else
            fputc(s[i], f);
    }
}

/* Paragraphs (blank line between) fill; lines starting with two spaces are
 * kept as they are. */
static void roff_block(const char *s, FILE *f) {
    int nofill = 0;
    fputs(".PP\n", f);
    while (*s) {
        size_t n = strcspn(s, "\n");
        int verbatim = n >= 2 && s[0] == ' ' && s[1] == ' ';
        if (n == 0) {
            if (nofill)
                fputs(".fi\n", f), nofill = 0;
            fputs(".PP\n", f);
        } else {
            if (verbatim && !nofill)
                fputs(".nf\n", f), nofill = 1;
            else if (!verbatim && nofill)
                fputs(".fi\n", f), nofill = 0;
            roff_text(s, n, f);
            fputc('\n', f);
        }
        s += n + (s[n] == '\n');
    }
    if (nofill)
        fputs(".fi\n", f);
}

static void man_opt(const hr_opt_t *o, FILE *f) {
    fputs(".TP\n", f);
    if (o->key < HR_OPT_LONG)
        fprintf(f, "\\fB\\-%c\\fR%s", o->key, o->name ? ", " : "");
    if (o->name) {
        fputs("\\fB\\-\\-", f);
        roff_text(o->name, strlen(o->name), f);
        fputs("\\fR", f);
    }
    if (o->arg) {
        fputs(o->name ? "=\\fI" : " \\fI", f);
        roff_text(o->arg, strlen(o->arg), f);
        fputs("\\fR", f);
    }
    fputc('\n', f);
    for (const char *h = o->help; *h;) { /* one filled paragraph */
        size_t n = strcspn(h, "\n");
        roff_text(h, n, f);
        fputc('\n', f);
        h += n + (h[n] == '\n');
    }
}

static void man_cmd(const hr_cmd_spec_t *c, FILE *f) {
    static const hr_opt_t help = {'h', "help", NULL, "show this help and exit"};
    fprintf(f, ".SS heapreplay %s\n", c->name);
    fprintf(f, "\\fBheapreplay %s\\fR [\\fIoptions\\fR]", c->name);
    if (c->operands[0]) {
        fputs(" \\fI", f);
        roff_text(c->operands, strlen(c->operands), f);
        fputs("\\fR", f);
    }
    fputs("\n.br\n", f);
    fputc(c->summary[0] >= 'a' && c->summary[0] <= 'z' ? c->summary[0] - 'a' + 'A' : c->summary[0], f);
    roff_text(c->summary + 1, strlen(c->summary + 1), f);
    fputs(".\n", f);
    for (const hr_opt_t *o = c->opts; o && o->key; o++)
        man_opt(o, f);
    man_opt(&help, f);
    if (c->details)
        roff_block(c->details, f);
    char *more = NULL;
    size_t len = 0;
    FILE *m = c->details_fn ? open_memstream(&more, &len) : NULL;
    if (m) {
        c->details_fn(m);
        if (fclose(m) == 0 && more)
            roff_block(more, f);
    }
    free(more);
}

void hr_opts_man(const hr_cmd_spec_t *const *cmds, FILE *f) {
    fprintf(f, ".\\\" Generated by 'heapreplay __man' from the option tables; do not edit.\n"
               ".TH HEAPREPLAY 1 \"\" \"heapreplay %s\" \"User Commands\"\n"
               ".SH NAME\nheapreplay \\- replay allocation traces against allocators, "
               "capture and compare them\n.SH SYNOPSIS\n",
            PACKAGE_VERSION);
    for (size_t i = 0; cmds[i]; i++) {
        fprintf(f, "%s\\fBheapreplay %s\\fR [\\fIoptions\\fR]", i ? ".br\n" : "", cmds[i]->name);
        if (cmds[i]->operands[0]) {
            fputs(" \\fI", f);
            roff_text(cmds[i]->operands, strlen(cmds[i]->operands), f);
            fputs("\\fR", f);
        }
        fputc('\n', f);
    }
    fputs(".br\n\\fBheapreplay help\\fR [\\fIcommand\\fR]\n"
          ".SH DESCRIPTION\n"
          "\\fBheapreplay\\fR records the allocations of a program into a trace (\\fBcapture\\fR),\n"
          "replays traces against in\\-house game allocators and against glibc, jemalloc,\n"
          "mimalloc and tcmalloc, each replay in its own process (\\fBreplay\\fR), and reports\n"
          "time, latency, footprint and fragmentation; \\fBcompare\\fR gates regressions.\n"
          "Every command accepts \\fB\\-h\\fR, \\fB\\-\\-help\\fR; long options take their value\n"
          "as \\fB\\-\\-opt\\fR=\\fIvalue\\fR or \\fB\\-\\-opt\\fR \\fIvalue\\fR, short ones as\n"
          "\\fB\\-r\\fR\\fI1\\fR or \\fB\\-r\\fR \\fI1\\fR; \\fB\\-\\-\\fR ends the options.\n"
          ".SH COMMANDS\n", f);
    for (size_t i = 0; cmds[i]; i++)
        man_cmd(cmds[i], f);
    fputs(".SH EXIT STATUS\n"
          "0 success; 1 a regression (\\fBcompare\\fR) or a failed replay; 2 bad input or\n"
          "usage, with one line on standard error naming the file and what was expected;\n"
          "130 or 143 when \\fBreplay\\fR was interrupted by SIGINT or SIGTERM.\n"
          ".SH ENVIRONMENT\n"
          ".TP\n.B HEAPREPLAY_CAPTURE_LIB\n"
          "the capture library \\fBcapture\\fR preloads (default: found relative to the\n"
          "program, \\fI../lib/libheapreplay\\-capture.so\\fR, then the configured path).\n"
          ".SH FILES\n"
          "Traces: \\fI*.hrt\\fR (binary), \\fI*.hrtt\\fR and \\fI*.txt\\fR (text); the formats\n"
          "are specified in \\fITRACE_FORMAT.md\\fR in the installed documentation, as are\n"
          "the metrics (\\fIMETRICS.md\\fR) and the annotation API (\\fICAPTURE.md\\fR).\n"
          ".SH SEE ALSO\n"
          ".BR jemalloc (3),\n.BR mallopt (3),\n.BR ld.so (8)\n", f);
}

/* ---- bash completion --------------------------------------------------- */

void hr_opts_bash(const hr_cmd_spec_t *const *cmds, FILE *f) {
    fputs("# bash completion for heapreplay; generated by 'heapreplay __bash-completion'.\n"
          "_heapreplay() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local cmds='", f);
    for (size_t i = 0; cmds[i]; i++)
        fprintf(f, "%s ", cmds[i]->name);
    fputs("help'\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"$cmds --help --version\" -- \"$cur\")); return\n"
          "    fi\n"
          "    local opts='-h --help' argopts=''\n"
          "    case ${COMP_WORDS[1]} in\n"
          "    help) COMPREPLY=($(compgen -W \"$cmds\" -- \"$cur\")); return ;;\n", f);
    for (size_t i = 0; cmds[i]; i++) {
        fprintf(f, "    %s) opts=\"$opts", cmds[i]->name);
        for (const hr_opt_t *o = cmds[i]->opts; o && o->key; o++) {
            if (o->key < HR_OPT_LONG)
                fprintf(f, " -%c", o->key);
            if (o->name)
                fprintf(f, " --%s", o->name);
        }
        fputs("\"; argopts='", f);
        for (const hr_opt_t *o = cmds[i]->opts; o && o->key; o++) {
            if (!o->arg)
                continue;
            if (o->key < HR_OPT_LONG)
                fprintf(f, " -%c", o->key);
            if (o->name)
                fprintf(f, " --%s", o->name);
        }
        fputs(" ' ;;\n", f);
    }
    fputs("    esac\n"
          "    case \"$argopts\" in\n"
          "    *\" $prev \"*)\n"
          "        case $prev in\n"
          "        -a|--allocators) COMPREPLY=($(compgen -W \"all $(${COMP_WORDS[0]} list --names "
          "2>/dev/null)\" -- \"$cur\")) ;;\n"
          "        *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
          "        esac\n"
          "        return ;;\n"
          "    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o filenames -o bashdefault -F _heapreplay heapreplay\n", f);
}
