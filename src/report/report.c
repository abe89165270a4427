/* The table of output formats and the last step of a replay (see report.h). */
#include "report/report.h"

#include "base/outfile.h"
#include "report/csv.h"
#include "report/html.h"
#include "report/predict.h"

static void render_json(const hr_report_view_t *v, hr_emit_t *em, const hr_render_opts_t *o) {
    (void)o;
    hr_json_emit(em, NULL, v->doc);
    hr_emit_end(em);
}

static void render_csv(const hr_report_view_t *v, hr_emit_t *em, const hr_render_opts_t *o) {
    (void)o;
    hr_report_csv(v, em);
}

static void render_text(const hr_report_view_t *v, hr_emit_t *em, const hr_render_opts_t *o) {
    hr_report_tables(v, em, 0, o);
}

static void render_md(const hr_report_view_t *v, hr_emit_t *em, const hr_render_opts_t *o) {
    hr_report_tables(v, em, 1, o);
}

/* The formats: one renderer each (HTML here is the fragment, report.h). */
static const struct {
    hr_emit_format_t fmt;
    void (*render)(const hr_report_view_t *v, hr_emit_t *em, const hr_render_opts_t *o);
    int  typed; /* reads the results: decode them first (JSON prints the document) */
} formats[] = {
    {HR_EMIT_JSON, render_json, 0},     {HR_EMIT_CSV, render_csv, 1},
    {HR_EMIT_TEXT, render_text, 1},     {HR_EMIT_MARKDOWN, render_md, 1},
    {HR_EMIT_HTML, render_text, 1},
};

int hr_report_render(const hr_json_t *report, hr_emit_format_t fmt, FILE *out) {
    hr_render_opts_t o = hr_render_opts_default();
    return hr_report_render_opts(report, fmt, &o, out);
}

int hr_report_render_opts(const hr_json_t *report, hr_emit_format_t fmt,
                          const hr_render_opts_t *opts, FILE *out) {
    hr_emit_t em;
    hr_emit_init(&em, out, fmt);
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (formats[i].fmt != fmt)
            continue;
        hr_report_view_t v = {report, NULL, 0, NULL, 0, NULL};
        if (formats[i].typed && hr_report_view_init(&v, report) < 0)
            return -1; /* out of memory */
        formats[i].render(&v, &em, opts);
        hr_report_view_free(&v);
    }
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* The report on `out` in `fmt`: HTML as the whole page (html.h). 0, or 2
 * after a one-line message (a write error is said where the output is
 * committed). */
static int render_to(const hr_json_t *doc, hr_emit_format_t fmt, const hr_render_opts_t *opts,
                     FILE *out) {
    if (fmt == HR_EMIT_HTML) {
        hr_error_t err;
        hr_html_options_t ho = hr_html_options_default();
        ho.render = *opts;
        if (hr_html_render(doc, &ho, out, &err) < 0) {
            fprintf(stderr, "heapreplay replay: %s\n", err.msg);
            return 2;
        }
        return 0;
    }
    if (hr_report_render_opts(doc, fmt, opts, out) == 0)
        return 0;
    if (!ferror(out))
        fprintf(stderr, "heapreplay replay: out of memory\n");
    return 2;
}

int hr_report_finish(hr_json_t *doc, const char *path, hr_emit_format_t path_fmt,
                     hr_emit_format_t fmt, const hr_render_opts_t *opts, FILE *out) {
    hr_report_predict(doc); /* all rows are in: each row's share of the program's time */
    if (path) {
        hr_outfile_t o;
        hr_error_t err = {{0}};
        FILE *f = hr_outfile_open(&o, path, &err);
        int rc = f ? render_to(doc, path_fmt, opts, f) : 2;
        if (f && rc != 0) {
            hr_outfile_abort(&o);
            return rc;
        }
        if (!f || hr_outfile_commit(&o, &err) != 0) {
            fprintf(stderr, "heapreplay replay: %s\n", err.msg);
            return 2;
        }
    }
    return render_to(doc, fmt, opts, out);
}
