/* The call sites and the routing plan in a replay report (text, Markdown,
 * HTML; docs/SITES.md): read from the rows' "sites" and "routing" (the JSON
 * is the source; these are its reading form). */
#ifndef HR_REPORT_SITES_REPORT_H
#define HR_REPORT_SITES_REPORT_H

#include <stdio.h>

#include "base/emit.h"
#include "report/ranking.h"

/* The trace's top call sites (its own figures, the same for every row) as a
 * table through em; nothing when no row has "sites". */
void hr_report_sites_table(hr_emit_t *em, const hr_ranking_t *rk);

/* One line per general allocator X of a `replay --plan`: plan+X against X
 * alone (cold-lap allocator time, peak RSS, violations served by X) and
 * oracle+X against X alone. Returns the lines written (0: no plan rows). */
int hr_report_plan_lines(FILE *out, const hr_ranking_t *rk, const char *pre);

#endif
