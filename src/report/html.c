/* The HTML report page (see html.h). Per trace, the text report's body is
 * rendered through the emitter in HTML format (report.c): its tables come
 * out as ready HTML blocks framed by HR_EMIT_HTML_BEGIN/END lines, and every
 * other line is the text report's own (verdicts, rankings, notes), which this
 * file escapes into <pre> blocks. The charts of the trace follow inline. */
#include "report/html.h"

#include <stdlib.h>
#include <string.h>

#include "base/emit.h"
#include "base/outfile.h"
#include "report/access.h"
#include "report/chart.h"
#include "report/crosstrace.h"
#include "report/tables.h"

#define CSS                                                                                   \
    "body{font-family:sans-serif;margin:1.5em auto;max-width:1100px;color:#222;padding:0 1em}" \
    "h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}"                      \
    "table{border-collapse:collapse;margin:.8em 0;font-size:.85em;display:block;overflow-x:auto}"\
    "caption{text-align:left;font-weight:bold;padding:.3em 0}"                                \
    "th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;white-space:nowrap}"       \
    "th{background:#f3f3f3}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}" \
    "pre.txt{white-space:pre-wrap;font-size:.85em;background:#fafafa;padding:.5em}"           \
    "dl.meta{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}"               \
    "dl.meta dt{font-weight:bold}dl.meta dd{margin:0;overflow-wrap:anywhere}"                 \
    "figure{margin:1em 0}svg{max-width:100%;height:auto}"

hr_html_options_t hr_html_options_default(void) {
    hr_html_options_t o;
    o.charts = hr_svg_options_default();
    o.charts.width = 760;
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

/* Copies the report.c fragment: table blocks as they are, the text between
 * them escaped, each run of non-blank lines as one <pre>. */
static void fragment(FILE *out, char *text) {
    int in_table = 0, in_pre = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!in_table && strcmp(line, HR_EMIT_HTML_BEGIN) == 0) {
            if (in_pre)
                fputs("</pre>\n", out);
            in_table = 1, in_pre = 0;
        } else if (in_table) {
            if (strcmp(line, HR_EMIT_HTML_END) == 0)
                in_table = 0;
            else
                fprintf(out, "%s\n", line);
        } else if (*line == '\0') {
            if (in_pre)
                fputs("</pre>\n", out);
            in_pre = 0;
        } else {
            fputs(in_pre ? "\n" : "<pre class=\"txt\">", out);
            hr_emit_put_xml(out, line);
            in_pre = 1;
        }
    }
    if (in_pre)
        fputs("</pre>\n", out);
}

static int trace_section(FILE *out, const hr_report_view_t *v, const char *trace, int idx,
                         const hr_html_options_t *o, hr_error_t *err) {
    static const hr_chart_kind_t kinds[] = {HR_CHART_SUMMARY, HR_CHART_MEMORY, HR_CHART_FRAMES,
                                            HR_CHART_LATENCY};
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
    int rc = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && rc == 0; k++) {
        hr_svg_options_t so = o->charts;
        so.kind = kinds[k];
        so.no_xml_decl = 1;
        so.baseline_checked = 1;
        so.only_trace = trace; /* the whole report: an allocator's colour is the same everywhere */
        fputs("<figure>\n", out);
        rc = hr_svg_render_view(v, &so, out, err);
        fputs("</figure>\n", out);
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
    if (nt > 1) {
        fputs("<p>Traces:", out);
        for (int t = 0; t < nt; t++) {
            fprintf(out, "%s <a href=\"#trace-%d\">", t ? "," : "", t + 1);
            hr_emit_put_xml(out, hr_report_trace_base(traces[t]));
            fputs("</a>", out);
        }
        fputs("</p>\n", out);
    }
    if (nt == 0)
        fputs("<p>(no results)</p>\n", out);
    for (int t = 0; t < nt && rc == 0; t++)
        rc = trace_section(out, &v, traces[t], t, o, err);
    hr_crosstrace_html(out, &v); /* two traces or more: the table across them */
    fputs("</body>\n</html>\n", out);
    hr_report_view_free(&v);
    if (rc == 0 && (fflush(out) != 0 || ferror(out))) {
        hr_error_set(err, "write error");
        rc = -1;
    }
    return rc;
}
