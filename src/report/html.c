/* The HTML report page (see html.h). Per trace, the text report's body is
 * rendered through the emitter in HTML format (report.c): its tables come
 * out as ready HTML blocks framed by HR_EMIT_HTML_BEGIN/END lines, and every
 * other line is the text report's own (verdicts, rankings, notes), which this
 * file turns into paragraphs and legends that wrap (never <pre>: a fixed
 * width breaks sentences on a narrow window). The charts of the trace follow
 * inline: the summary chart as the overview, memory, frames and latency in
 * closed <details>. */
#include "report/html.h"

#include <stdlib.h>
#include <string.h>

#include "base/emit.h"
#include "base/outfile.h"
#include "report/access.h"
#include "report/chart.h"
#include "report/crosstrace.h"
#include "report/tables.h"

/* The page takes the window's width (up to a comfortable reading width of
 * 1500 px); charts scale to it (svg.c writes width 100 % and a viewBox);
 * tables too wide for the window scroll inside their own box; prose wraps. */
#define CSS                                                                                   \
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1500px;color:#222;padding:0 1.5em;" \
    "line-height:1.4}"                                                                        \
    "h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}"                      \
    "div.tbl{overflow-x:auto;max-width:100%;margin:.8em 0}"                                   \
    "table{border-collapse:collapse;font-size:.85em}"                                         \
    "caption{text-align:left;font-weight:bold;padding:.3em 0}"                                \
    "th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;white-space:nowrap}"       \
    "th{background:#f3f3f3}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}" \
    "p{margin:.5em 0;max-width:75em}"                                                         \
    "dl.legend{font-size:.85em;color:#444;margin:.3em 0 1em;display:grid;"                    \
    "grid-template-columns:max-content auto;gap:.15em 1em;max-width:75em}"                    \
    "dl.legend dt{font-weight:bold}dl.legend dd{margin:0}"                                    \
    "dl.meta{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}"               \
    "dl.meta dt{font-weight:bold}dl.meta dd{margin:0;overflow-wrap:anywhere}"                 \
    "figure{margin:1em 0}svg{display:block;width:100%;height:auto}"                           \
    "figcaption{font-size:.85em;color:#444;max-width:75em}"                                   \
    "details{margin:.6em 0;border:1px solid #ddd;border-radius:4px;padding:.3em .8em}"        \
    "summary{cursor:pointer;font-weight:bold}"

/* The viewBox width of the page's charts: about the page's width at 1280
 * px, so their 12 px text reads at about 12-14 px there. */
#define HTML_CHART_W 1100

hr_html_options_t hr_html_options_default(void) {
    hr_html_options_t o;
    o.charts = hr_svg_options_default();
    o.charts.width = HTML_CHART_W;
    o.charts.no_xml_decl = 1;
    o.render = hr_render_opts_default();
    return o;
}

static void put(FILE *out, const char *tag, const char *text) {
    fprintf(out, "<%s>", tag);
    hr_emit_put_xml(out, text);
    fprintf(out, "</%s>\n", tag);
}

static void meta_row(FILE *out, const char *name, const char *value) {
    if (!value)
        return;
    put(out, "dt", name);
    put(out, "dd", value);
}

/* Machine, date, command and options, from the report itself. */
static void header(FILE *out, const hr_json_t *rep) {
    const hr_json_t *m = hr_json_get(rep, "machine"), *o = hr_json_get(rep, "options");
    char buf[1024], mem[32];
    fputs("<h1>heapreplay report</h1>\n<dl class=\"meta\">\n", out);
    snprintf(buf, sizeof buf, "heapreplay %s (report schema %.0f)",
             hr_json_path_str(rep, "tool_version") ? hr_json_path_str(rep, "tool_version") : "?",
             hr_json_path_num(rep, "schema_version"));
    meta_row(out, "tool", buf);
    meta_row(out, "created", hr_json_path_str(rep, "created"));
    hr_fmt_bytes(mem, sizeof mem, hr_json_path_num(m, "mem_bytes"));
    snprintf(buf, sizeof buf, "%s, %s, %.0f cores, %s, %s, cycle counter %.3f GHz",
             hr_json_path_str(m, "hostname") ? hr_json_path_str(m, "hostname") : "?",
             hr_json_path_str(m, "cpu") ? hr_json_path_str(m, "cpu") : "?",
             hr_json_path_num(m, "cores"), mem,
             hr_json_path_str(m, "os") ? hr_json_path_str(m, "os") : "?",
             hr_json_path_num(m, "cycle_hz") / 1e9);
    meta_row(out, "machine", buf);
    meta_row(out, "command", hr_json_path_str(rep, "command"));
    if (hr_json_type(o) == HR_JSON_OBJECT) { /* as the text header: key=value ... */
        put(out, "dt", "options");
        fputs("<dd>", out);
        for (size_t i = 0; i < hr_json_len(o); i++) {
            const hr_json_t *v = hr_json_at(o, i);
            char *js = hr_json_str(v) ? NULL : hr_json_to_string(v, 1);
            fputs(i ? " " : "", out);
            hr_emit_put_xml(out, hr_json_key_at(o, i));
            fputc('=', out);
            hr_emit_put_xml(out, js ? js : hr_json_str(v));
            free(js);
        }
        fputs("</dd>\n", out);
    }
    if (hr_json_path_str(rep, "interrupted"))
        meta_row(out, "INTERRUPTED", "by a signal: only the rows finished before it");
    fputs("</dl>\n", out);
}

/* The prose of the text body (see fragment) as HTML: a line at indent 0 is a
 * paragraph; an indented "name: meaning" line is an entry of a legend (a
 * definition list in small print), other indented lines a note. */
typedef struct prose {
    FILE *out;
    int   in_dl;
} prose_t;

static void prose_close_dl(prose_t *pr) {
    if (pr->in_dl)
        fputs("</dl>\n", pr->out);
    pr->in_dl = 0;
}

/* The length of a legend line's name ("unstable" of "unstable: samples ..."),
 * or 0 when it has none: a short name before ": " with no sentence in it. */
static size_t legend_name(const char *s) {
    const char *c = strstr(s, ": ");
    if (!c || c == s || c - s > 40)
        return 0;
    for (const char *q = s; q < c; q++)
        if (*q == '.' || *q == ',' || *q == ';' || *q == '(')
            return 0;
    return (size_t)(c - s);
}

static void prose_line(prose_t *pr, int indent, const char *text) {
    size_t name = indent ? legend_name(text) : 0;
    if (!name) {
        prose_close_dl(pr);
        fputs(indent ? "<p class=\"note\">" : "<p>", pr->out);
        hr_emit_put_xml(pr->out, text);
        fputs("</p>\n", pr->out);
        return;
    }
    if (!pr->in_dl)
        fputs("<dl class=\"legend\">\n", pr->out);
    pr->in_dl = 1;
    char *dt = strndup(text, name);
    if (!dt)
        hr_outfile_note_oom(); /* the term would be lost */
    put(pr->out, "dt", dt ? dt : "");
    put(pr->out, "dd", text + name + 2);
    free(dt);
}

/* Copies the report.c fragment: table blocks as they are, each in a box of
 * its own that scrolls sideways when the table is wider than the window; the
 * text between them as prose (prose_line). The text is the text format's,
 * wrapped at its width: a line indented 4 more than the line before
 * continues it (prose.h, hr_prose_wrap), so it is joined back. */
static void fragment(FILE *out, char *text) {
    prose_t pr = {out, 0};
    int in_table = 0, indent = 0;
    char *cur = NULL; /* the logical line being joined */
    size_t cur_len = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        int ind = (int)strspn(line, " ");
        if (cur && !in_table && line[ind] && ind == indent + 4) { /* a continuation */
            char *j = realloc(cur, cur_len + strlen(line + ind) + 2);
            if (j) {
                cur = j;
                cur_len += (size_t)sprintf(cur + cur_len, " %s", line + ind);
            } else {
                hr_outfile_note_oom(); /* the continuation would be lost */
            }
            continue;
        }
        if (cur) {
            prose_line(&pr, indent, cur);
            free(cur);
            cur = NULL;
        }
        if (!in_table && strcmp(line, HR_EMIT_HTML_BEGIN) == 0) {
            prose_close_dl(&pr);
            fputs("<div class=\"tbl\">\n", out);
            in_table = 1;
        } else if (in_table) {
            if (strcmp(line, HR_EMIT_HTML_END) == 0) {
                fputs("</div>\n", out);
                in_table = 0;
            } else {
                fprintf(out, "%s\n", line);
            }
        } else if (line[ind] == '\0') {
            prose_close_dl(&pr);
        } else if ((cur = strdup(line + ind)) != NULL) {
            indent = ind;
            cur_len = strlen(cur);
        } else {
            hr_outfile_note_oom(); /* the line would be lost */
        }
    }
    if (cur)
        prose_line(&pr, indent, cur);
    free(cur);
    prose_close_dl(&pr);
}

/* The caption of a chart of the page: how to read it. */
static void caption(FILE *out, hr_chart_kind_t kind, const hr_svg_options_t *o) {
    char v[48];
    fputs("<figcaption>", out);
    switch (kind) {
    case HR_CHART_SUMMARY:
        fputs("Each bar: the allocator's figure divided by the baseline's (the dashed line at "
              "1); the whiskers: the lowest and highest of the repeats.", out);
        break;
    case HR_CHART_MEMORY:
        fputs("Footprint (or RSS) of each allocator over the trace; dashed: the bytes the "
              "trace asked for and had not freed (live), the least any allocator can hold.", out);
        break;
    case HR_CHART_FRAMES:
        hr_svg_fmt(v, sizeof v, HR_UNIT_NS, o->budget_ns);
        fprintf(out, "Time spent in the allocator per frame of the trace. The dashed line is the "
                     "frame budget, %s: ", v);
        if (o->budget_set)
            fputs("set with --frame-budget.", out);
        else
            fputs("by default 1 % of a 16.6 ms frame (one frame at 60 frames per second); a "
                  "frame above it spends a visible share of its time in malloc and free. Set "
                  "another with --frame-budget (e.g. 2ms, or 5% of 16.6 ms).", out);
        fprintf(out, " With more than %d allocators each gets a panel of its own.", HR_GRID_OVER);
        break;
    default:
        fprintf(out, "The share of allocator calls at or below each latency (log axis); the "
                     "curves part in the slow tail, above the dotted 99 %% line. With more than "
                     "%d allocators each gets a panel of its own.", HR_GRID_OVER);
        break;
    }
    fputs("</figcaption>\n", out);
}

static int chart(FILE *out, const hr_report_view_t *v, const char *trace, hr_chart_kind_t kind,
                 const hr_html_options_t *o, hr_error_t *err) {
    hr_svg_options_t so = o->charts;
    so.kind = kind;
    so.no_xml_decl = 1;
    so.baseline_checked = 1;
    so.only_trace = trace; /* the whole report: an allocator's colour is the same everywhere */
    fputs("<figure>\n", out);
    int rc = hr_svg_render_view(v, &so, out, err);
    caption(out, kind, &so);
    fputs("</figure>\n", out);
    return rc;
}

/* The table across traces as a section of the page, its prose as the trace
 * sections' is (fragment); nothing under 2 traces. Out of memory drops it
 * and marks the output failed. */
static void across_section(FILE *out, const hr_report_view_t *v) {
    char *body = NULL;
    size_t len = 0;
    FILE *mem = hr_memstream_open(&body, &len);
    if (!mem) {
        hr_outfile_note_oom();
        return;
    }
    int any = hr_crosstrace_html(mem, v);
    int bad = ferror(mem);
    bad |= fclose(mem) != 0;
    if (any && !bad && body) {
        fputs("<section id=\"across\">\n<h2>Across traces</h2>\n", out);
        fragment(out, body);
        fputs("</section>\n", out);
    } else if (bad) {
        hr_outfile_note_oom();
    }
    free(body);
}

static int trace_section(FILE *out, const hr_report_view_t *v, const char *trace, int idx,
                         const hr_html_options_t *o, hr_error_t *err) {
    /* The details, closed: a reader opens the one they need. */
    static const struct {
        hr_chart_kind_t kind;
        const char     *what;
    } details[] = {{HR_CHART_MEMORY, "Memory over time"},
                   {HR_CHART_FRAMES, "Allocator time per frame"},
                   {HR_CHART_LATENCY, "Latency of allocator calls"}};
    hr_report_view_t sub; /* the rows of this trace only */
    char *body = NULL;
    size_t len = 0;
    int ok = hr_report_view_trace(&sub, v, trace) == 0;
    FILE *mem = ok ? hr_memstream_open(&body, &len) : NULL;
    if (!mem) {
        hr_report_view_free(&sub);
        hr_error_set(err, "out of memory");
        return -1;
    }
    hr_emit_t em;
    hr_emit_init(&em, mem, HR_EMIT_HTML);
    hr_report_tables(&sub, &em, 0, &o->render); /* the text format's body as a fragment */
    int bad = ferror(mem);
    bad |= fclose(mem) != 0;
    hr_report_view_free(&sub);
    if (bad || !body) { /* the buffer could not grow */
        free(body);
        hr_error_set(err, "out of memory");
        return -1;
    }
    fprintf(out, "<section id=\"trace-%d\">\n", idx + 1);
    put(out, "h2", hr_report_trace_base(trace));
    fragment(out, body);
    free(body);
    fputs("<h3>Charts</h3>\n", out);
    int rc = chart(out, v, trace, HR_CHART_SUMMARY, o, err); /* the overview, always shown */
    for (size_t k = 0; k < sizeof details / sizeof details[0] && rc == 0; k++) {
        fputs("<details>\n<summary>", out);
        fputs(details[k].what, out);
        fputs("</summary>\n", out);
        rc = chart(out, v, trace, details[k].kind, o, err);
        fputs("</details>\n", out);
    }
    fputs("</section>\n", out);
    return rc;
}

int hr_html_render(const hr_json_t *rep, const hr_html_options_t *o, FILE *out,
                   hr_error_t *err) {
    hr_html_options_t dflt = hr_html_options_default();
    hr_report_view_t v; /* the results decoded once for every table and chart */
    if (hr_report_view_init(&v, rep) < 0) {
        hr_error_set(err, "out of memory");
        return -1;
    }
    const char **traces = v.traces;
    int nt = v.ntraces, rc = 0;
    if (!o)
        o = &dflt;
    if (hr_svg_check_baseline(&v, &o->charts, err) < 0) { /* once, against every trace */
        hr_report_view_free(&v);
        return -1;
    }
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<title>heapreplay report: %d trace%s</title>\n", nt, nt == 1 ? "" : "s");
    fputs("<style>" CSS "</style>\n</head>\n<body>\n", out);
    header(out, rep);
    int *order = nt > 1 ? hr_report_trace_order(&v) : NULL; /* a build's processes heaviest first */
    if (nt > 1) {
        fputs("<p>Traces:", out);
        for (int k = 0; k < nt; k++) {
            int t = order ? order[k] : k;
            fprintf(out, "%s <a href=\"#trace-%d\">", k ? "," : "", t + 1);
            hr_emit_put_xml(out, hr_report_trace_base(traces[t]));
            fputs("</a>", out);
        }
        fputs("</p>\n", out);
    }
    if (nt == 0)
        fputs("<p>(no results)</p>\n", out);
    for (int k = 0; k < nt && rc == 0; k++) {
        int t = order ? order[k] : k;
        rc = trace_section(out, &v, traces[t], t, o, err);
    }
    free(order);
    if (rc == 0)
        across_section(out, &v); /* two traces or more: the table across them */
    fputs("</body>\n</html>\n", out);
    hr_report_view_free(&v);
    if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
        hr_error_set(err, "write error");
        rc = -1;
    }
    return rc;
}
