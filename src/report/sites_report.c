/* Call sites and routing plans in a replay report (sites_report.h). The
 * rows of `replay --plan` are recognised by access.h's hr_result_route_role;
 * plan+X and oracle+X are judged against X alone, never against each other's
 * general allocator, because the plan's value is what it saves X. */
#include "report/sites_report.h"

#include <math.h>
#include <string.h>

#include "report/access.h"
#include "report/sites.h"

void hr_report_sites_table(hr_emit_t *em, const hr_ranking_t *rk) {
    static const char *const cols[] = {">rank", "site", ">allocs", ">bytes", ">peak live",
                                       "lifetime", "advice"};
    const hr_json_t *sites = NULL;
    for (int i = 0; i < rk->n && !sites; i++)
        if (rk->e[i].r->json && (sites = hr_json_get(rk->e[i].r->json, "sites")) &&
            (hr_json_type(sites) != HR_JSON_ARRAY || !hr_json_len(sites)))
            sites = NULL;
    if (!sites)
        return;
    int cut = em->format == HR_EMIT_TEXT || em->format == HR_EMIT_MARKDOWN;
    char title[128], shown[1024], b[32], c[32];
    snprintf(title, sizeof title, "Call sites (top %zu by blocks; the trace's own figures, "
             "'heapreplay sites' for all)", hr_json_len(sites));
    hr_emit_table_begin(em, title, (int)(sizeof cols / sizeof cols[0]), cols);
    for (size_t k = 0; k < hr_json_len(sites); k++) {
        const hr_json_t *s = hr_json_at(sites, k);
        const char *name = hr_json_path_str(s, "site");
        hr_site_name_short(name ? name : "?", shown, sizeof shown,
                           cut ? HR_SITE_NAME_COLS : sizeof shown);
        hr_fmt_bytes(b, sizeof b, hr_json_path_num(s, "bytes"));
        hr_fmt_bytes(c, sizeof c, hr_json_path_num(s, "peak_live"));
        hr_emit_cell_u64(em, k + 1);
        hr_emit_cell_str(em, shown);
        hr_emit_cell_u64(em, (uint64_t)hr_json_path_num(s, "allocs"));
        hr_emit_cell_str(em, b);
        hr_emit_cell_str(em, c);
        hr_emit_cell_str(em, hr_json_path_str(s, "lifetime"));
        hr_emit_cell_str(em, hr_json_path_str(s, "advice"));
        hr_emit_row_end(em);
    }
    hr_emit_table_end(em);
}

/* The row of rk that is X alone (plain, its spec X) or the routed row of
 * `role` over X; NULL when absent or failed. */
static const hr_result_t *row_of(const hr_ranking_t *rk, int role, const char *x) {
    for (int i = 0; i < rk->n; i++) {
        const hr_result_t *r = rk->e[i].r;
        if (!hr_result_ok(r) || hr_result_route_role(r) != role)
            continue;
        if (strcmp(role == HR_ROW_PLAIN ? r->allocator : hr_result_route_general(r, NULL), x) == 0)
            return r;
    }
    return NULL;
}

/* "+12.3 ms": b - a of a seconds figure, or "?" when either is missing. */
static void delta_ms(char *buf, size_t n, double a, double b) {
    if (isfinite(a) && isfinite(b))
        snprintf(buf, n, "%+.1f ms", (b - a) * 1e3);
    else
        snprintf(buf, n, "?");
}

/* The plan's violations by kind, from its "routing" rules. */
static void violations(char *buf, size_t n, const hr_result_t *r) {
    static const char *const kinds[] = {"outlived_frame", "not_lifo", "wrong_size", "resized"};
    double v[5] = {0}, routed = 0;
    const hr_json_t *rules = hr_json_path(r->json, "routing.rules");
    for (size_t i = 0; rules && i < hr_json_len(rules); i++) {
        const hr_json_t *u = hr_json_at(rules, i);
        routed += hr_json_path_num(u, "routed");
        v[4] += hr_json_path_num(u, "violations");
        for (int k = 0; k < 4; k++)
            v[k] += hr_json_path_num(u, kinds[k]);
    }
    snprintf(buf, n, "plan violations: %.0f of %.0f blocks its rules matched (outlived frame %.0f, not LIFO %.0f, "
             "wrong size %.0f, resized %.0f), each served by the row's general allocator", v[4], routed + v[4], v[0], v[1], v[2], v[3]);
}

int hr_report_plan_lines(FILE *out, const hr_ranking_t *rk, const char *pre) {
    int k = 0;
    for (int i = 0; i < rk->n; i++) {
        const hr_result_t *p = rk->e[i].r;
        if (hr_result_route_role(p) != HR_ROW_PLAN || !hr_result_ok(p))
            continue;
        const char *x = hr_result_route_general(p, NULL);
        const hr_result_t *alone = row_of(rk, HR_ROW_PLAIN, x), *o = row_of(rk, HR_ROW_ORACLE, x);
        if (!alone)
            continue;
        char t[32], ot[32];
        delta_ms(t, sizeof t, alone->m.COLD_CPU, p->m.COLD_CPU);
        delta_ms(ot, sizeof ot, alone->m.COLD_CPU, o ? o->m.COLD_CPU : NAN);
        if (!k++) {
            char why[256];
            violations(why, sizeof why, p);
            fprintf(out, "%s%s\n", pre, why);
        }
        fprintf(out, "%splan+%s vs %s alone: allocator time %s (cold lap), peak RSS %+.2f MiB; "
                "oracle+%s vs %s alone: %s, %+.2f MiB\n", pre, x, x, t,
                (p->m.PEAK_RSS_ALL - alone->m.PEAK_RSS_ALL) / 1048576.0, x, x, ot,
                o ? (o->m.PEAK_RSS_ALL - alone->m.PEAK_RSS_ALL) / 1048576.0 : NAN);
    }
    if (k)
        fprintf(out, "%splan+X, oracle+X: X behind the routing plan's in-house parts, and behind "
                "the oracle's (parts that know each block's future); X serves what they do not "
                "take, by design, so these rows are judged against X alone, not flagged "
                "fallback (docs/SITES.md)\n", pre);
    return k;
}
