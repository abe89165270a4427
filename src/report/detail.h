/* The detail sections of text and Markdown reports (`--detail`,
 * docs/REPORTS.md): per trace the comparison table with one column per
 * registry metric, its notes, the engine's pools, the ranking lines, ns/op by
 * op type and the native tables; and the pieces the CSV shares with them. */
#ifndef HR_REPORT_DETAIL_H
#define HR_REPORT_DETAIL_H

#include <stdio.h>

#include "base/emit.h"
#include "base/json.h"
#include "report/access.h"

/* Writes every detail section of `trace` (the rows of v whose trace is it)
 * on em; `md`: Markdown notes. */
void hr_report_detail_trace(hr_emit_t *em, const hr_report_view_t *v, const char *trace, int md);

/* One table per array of objects in r's "native" object (free-form: the
 * backend's own, printed as it is), titled
 * "<allocator> <key> (<trace>)"; `csv`: every row, led by trace and
 * allocator columns (so sections can be joined), else the first 16 rows. */
void hr_report_native_tables(hr_emit_t *em, const hr_result_t *r, int csv);
/* A JSON scalar as an exact table cell; nested values as compact JSON. */
void hr_report_cell_value(hr_emit_t *em, const hr_json_t *v);
/* 1 when v is a non-empty array whose first element is an object. */
int hr_report_is_object_array(const hr_json_t *v);

#endif
