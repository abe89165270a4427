/* The CSV renderer of a report: one row per result with flattened dotted
 * columns (the registry's HR_MF_CSV metrics first, in registry order), then
 * one "# title" section per native array of objects (docs/REPORTS.md). */
#ifndef HR_REPORT_CSV_H
#define HR_REPORT_CSV_H

#include "base/emit.h"
#include "base/json.h"
#include "report/access.h"

void hr_report_csv(const hr_report_view_t *v, hr_emit_t *em);

#endif
