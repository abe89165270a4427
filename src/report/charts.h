/* The chart kinds (svg.h, hr_chart_kind_t), one file each (chart_<kind>.c),
 * each drawing its panels onto a canvas; the table of kinds that picks one
 * is chart.h, above them. */
#ifndef HR_REPORT_CHARTS_H
#define HR_REPORT_CHARTS_H

#include "base/error.h"
#include "base/json.h"
#include "report/svg.h"

int hr_chart_bars(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o, hr_error_t *err);
int hr_chart_summary(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o,
                     hr_error_t *err);
int hr_chart_memory(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o,
                    hr_error_t *err);
int hr_chart_frames(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o,
                    hr_error_t *err);
int hr_chart_latency(hr_svg_t *s, const hr_report_view_t *v, const hr_svg_options_t *o,
                     hr_error_t *err);

/* 0 when opt->baseline is NULL or an allocator of the report; else -1 with
 * a one-line err (the summary chart's baseline; chart_summary.c). */
int hr_svg_check_baseline(const hr_report_view_t *v, const hr_svg_options_t *opt,
                          hr_error_t *err);

#endif
