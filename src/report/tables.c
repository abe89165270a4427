/* The text, Markdown and HTML-fragment tables of a report (see tables.h). */
#include "report/tables.h"

#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"
#include "report/access.h"
#include "report/compare_family.h"
#include "report/crosstrace.h"
#include "report/wholeprog.h"
#include "report/detail.h"
#include "report/predict.h"
#include "report/prose.h"
#include "report/summary.h"

static void print_header(FILE *out, const hr_report_view_t *v, int md) {
    const hr_json_t *rep = v->doc;
    const hr_json_t *m = hr_json_get(rep, "machine"), *o = hr_json_get(rep, "options");
    const char *touch = hr_json_path_str(o, "touch");
    if (!touch)
        touch = v->n ? v->rows[0].touch : NULL;
    char mem[32];
    hr_fmt_bytes(mem, sizeof mem, hr_json_path_num(m, "mem_bytes"));
    fprintf(out, "%sheapreplay %s report (schema %s v%.0f)\n\n", md ? "## " : "",
            hr_json_path_str(rep, "tool_version") ? hr_json_path_str(rep, "tool_version") : "?",
            HR_REPORT_SCHEMA, hr_json_path_num(rep, "schema_version"));
    if (hr_json_path_str(rep, "created"))
        fprintf(out, "%screated: %s\n", md ? "- " : "", hr_json_path_str(rep, "created"));
    if (hr_json_path_str(rep, "interrupted"))
        fprintf(out, "%sINTERRUPTED by %s: only the rows finished before it (a row marked\n"
                "%sinterrupted has fewer samples than asked for)\n", md ? "- " : "",
                hr_json_path_str(rep, "interrupted"), md ? "  " : "");
    fprintf(out, "%smachine: %s, %s, %.0f cores, %s, %s, cycle counter %.3f GHz\n", md ? "- " : "",
            hr_json_path_str(m, "hostname") ? hr_json_path_str(m, "hostname") : "?",
            hr_json_path_str(m, "cpu") ? hr_json_path_str(m, "cpu") : "?",
            hr_json_path_num(m, "cores"), mem,
            hr_json_path_str(m, "os") ? hr_json_path_str(m, "os") : "?",
            hr_json_path_num(m, "cycle_hz") / 1e9);
    /* touch first and always: it changes both RSS and time; the access model
     * (reports that have one) next to it, for the same reason */
    fprintf(out, "%soptions: touch=%s", md ? "- " : "", touch ? touch : "unknown");
    if (hr_json_path_str(o, "access"))
        fprintf(out, " access=%s", hr_json_path_str(o, "access"));
    for (size_t i = 0; i < hr_json_len(o) && hr_json_type(o) == HR_JSON_OBJECT; i++) {
        if (strcmp(hr_json_key_at(o, i), "touch") == 0 || strcmp(hr_json_key_at(o, i), "access") == 0)
            continue;
        char *s = hr_json_str(hr_json_at(o, i)) ? NULL : hr_json_to_string(hr_json_at(o, i), 1);
        const char *val = s ? s : hr_json_str(hr_json_at(o, i));
        fprintf(out, " %s=%s", hr_json_key_at(o, i), val ? val : "?"); /* ?: out of memory */
        free(s);
    }
    fputs("\n\n", out);
}

/* The header, wrapped to the summary's width in text (the options line is
 * long). */
static void header(FILE *out, const hr_report_view_t *rep, int md) {
    hr_prose_t p;
    FILE *f = hr_prose_open(&p);
    if (!f) {
        print_header(out, rep, md);
        return;
    }
    print_header(f, rep, md);
    hr_prose_close(&p, out, md);
}

int *hr_report_trace_order(const hr_report_view_t *v) {
    hr_families_t *fs = hr_families_new(v);
    int *order = fs ? hr_families_trace_order(fs) : NULL;
    hr_families_free(fs);
    if (!order)
        hr_outfile_note_oom(); /* the sections in another order: not the report */
    return order;
}

/* The default output is the header, every trace's summary and the table
 * across traces; with `detail` the detail sections follow, so the default
 * is a prefix. */
void hr_report_tables(const hr_report_view_t *v, hr_emit_t *em, int md,
                      const hr_render_opts_t *opts) {
    int nt = v->ntraces;
    /* a build's processes heaviest first; one trace (an HTML section's
     * view) has no order to find */
    int *order = nt > 1 ? hr_report_trace_order(v) : NULL;
    if (em->format != HR_EMIT_HTML) /* the HTML page writes its own header (html.c) */
        header(em->out, v, md);
    hr_wholeprog_table(em, v, md); /* a --follow-forks capture's processes: its answer first */
    /* Legends once per report in text and Markdown; the HTML page keeps
     * them in every trace's section, each of which can be read alone. */
    hr_legends_t legends = {0};
    hr_legends_t *lg = em->format == HR_EMIT_HTML ? NULL : &legends;
    for (int k = 0; k < nt; k++) {
        const char *trace = v->traces[order ? order[k] : k];
        hr_summary_trace(em, v, trace, md, lg);
        hr_report_predict_table(em, v, trace, lg);
    }
    if (nt == 0)
        fputs("(no results)\n", em->out);
    hr_crosstrace_table(em, v, md); /* two traces or more */
    if (opts->detail && nt > 0) {
        fputs(md ? "## details\n\n" : "details (--detail)\n\n", em->out);
        for (int k = 0; k < nt; k++)
            hr_report_detail_trace(em, v, v->traces[order ? order[k] : k], md);
    }
    free(order);
}

hr_render_opts_t hr_render_opts_default(void) {
    hr_render_opts_t o = {0};
    return o;
}
