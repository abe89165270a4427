/* The CSV renderer of a report: one row per result with flattened dotted
 * columns (the registry's HR_MF_CSV metrics first, in registry order), then
 * one "# title" section per native array of objects (docs/REPORTS.md). */
#ifndef HR_REPORT_CSV_H
#define HR_REPORT_CSV_H

#include "base/emit.h"
#include "base/json.h"

void hr_report_csv(const hr_json_t *rep, hr_emit_t *em);

#endif
