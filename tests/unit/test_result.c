/* The typed result (src/base/result.h): decoding a result object into the
 * fields generated from the metric registry. */
#include <math.h>
#include <string.h>

#include "base/result.h"
#include "hr_test.h"
#include "report/access.h"
#include "trace/trace.h"

static const char *doc =
    "{\"trace\":\"t.hrt\",\"allocator\":\"block\",\"status\":\"ok\",\"runs\":3,"
    "\"unstable\":true,\"series\":{\"points\":1},"
    "\"ops\":{\"total\":10,\"alloc\":6,\"free\":4},"
    "\"time\":{\"ns_per_op\":12.5,\"ns_per_op_min\":11,\"ns_per_op_max\":14,"
    "\"ns_per_op_mad\":0.5,\"clock\":\"cpu\"},"
    "\"memory\":{\"peak_live\":4096,\"footprint_source\":\"exact\"},"
    "\"native\":{\"native_ops\":3,\"fallback_ops\":1}}";

/* json parsed and decoded into *t; the parsed object (free it). */
static hr_json_t *decoded(const char *json, hr_result_t *t) {
    hr_json_t *r = hr_json_parse(json, strlen(json), "fixture", NULL);
    HR_CHECK(r != NULL);
    hr_report_result(r, t);
    return r;
}

static void test_decode(void) {
    hr_result_t t;
    hr_json_t *r = decoded(doc, &t);
    HR_CHECK(t.json == r && strcmp(t.trace, "t.hrt") == 0 && strcmp(t.allocator, "block") == 0);
    HR_CHECK(strcmp(t.status, "ok") == 0 && t.error == NULL && t.runs == 3);
    HR_CHECK(t.unstable && !t.mostly_fallback && t.series != NULL && t.samples == NULL);
    /* scalars, strings, a ranged metric's summary */
    HR_CHECK(t.m.OPS_TOTAL == 10 && t.m.PEAK_LIVE == 4096);
    HR_CHECK(t.m.NS_PER_OP == 12.5 && t.m.NS_PER_OP_min == 11 && t.m.NS_PER_OP_max == 14 &&
             t.m.NS_PER_OP_mad == 0.5);
    HR_CHECK(strcmp(t.m.CLOCK, "cpu") == 0 && strcmp(t.m.FP_SOURCE, "exact") == 0);
    /* absent: NAN and NULL */
    HR_CHECK(isnan(t.m.PEAK_FP) && isnan(t.m.OPS_PER_S_mad) && t.m.THR_MODE == NULL);
    /* a family, indexed by op code; a computed (render) metric */
    HR_CHECK(t.m.OPS_BY_OP[HR_OP_ALLOC] == 6 && t.m.OPS_BY_OP[HR_OP_FREE] == 4);
    HR_CHECK(isnan(t.m.OPS_BY_OP[HR_OP_REALLOC]));
    HR_CHECK(t.m.NATIVE_SHARE == 0.75);
    /* the same through the registry's ids */
    HR_CHECK(hr_result_num(&t.m, HR_M_PEAK_LIVE, 0, 0) == 4096);
    HR_CHECK(hr_result_num(&t.m, HR_M_NS_PER_OP, 0, 2) == 14);
    HR_CHECK(hr_result_num(&t.m, HR_M_OPS_BY_OP, HR_OP_FREE, 0) == 4);
    HR_CHECK(isnan(hr_result_num(&t.m, HR_M_PEAK_LIVE, 0, 1))); /* not ranged */
    HR_CHECK(strcmp(hr_result_str(&t.m, HR_M_CLOCK), "cpu") == 0);
    HR_CHECK(hr_result_str(&t.m, HR_M_PEAK_LIVE) == NULL);
    hr_json_free(r);
}

/* Every registry metric has its field: decoding reads each one's path. */
static void test_every_metric(void) {
    hr_result_t t;
    hr_json_t *r = decoded(doc, &t);
    for (int k = 0; k < HR_M__COUNT; k++) {
        double v = hr_result_num(&t.m, (hr_metric_id_t)k, HR_OP_ALLOC, 0);
        double want = hr_metrics[k].type == HR_MT_STR ? NAN : hr_metric_value(&hr_metrics[k], r);
        if (hr_metrics[k].family)
            want = k == HR_M_OPS_BY_OP ? 6 : NAN;
        HR_CHECK((isnan(v) && isnan(want)) || v == want);
    }
    hr_json_free(r);
}

/* The blocks that are not registry metrics: per-thread figures, the
 * program and predict objects, the budget, violations, pools, samples. */
static const char *blocks =
    "{\"trace\":\"t.hrt\",\"allocator\":\"glibc\",\"status\":\"ok\",\"runs\":2,"
    "\"ns_per_op\":{\"alloc\":null,\"free\":3.5},"
    "\"per_thread\":[{\"ns_per_op\":10.5},{\"ns_per_op\":20}],"
    "\"program\":{\"cpu_s\":2,\"cpu_s_min\":1.9,\"cpu_s_max\":2.1,\"wall_s\":2.5,"
    "\"max_rss\":1000,\"runs\":5,\"timed\":\"capture\",\"cpu_s_mad\":0.05,\"load_before\":1.5,"
    "\"load_after\":0.25,\"cpus\":4},"
    "\"predict\":{\"alloc_s\":0.1,\"change_s\":-0.02,\"real\":\"saving\",\"runs_to_see\":3},"
    "\"budget\":{\"bytes\":64,\"first_failure_op\":7},"
    "\"native\":{\"violations\":{\"a\":2,\"b\":0,\"c\":9}},"
    "\"pools\":[{\"name\":\"p\",\"allocs\":3,\"peak_live_bytes\":96,\"replayed_as\":\"x\"}],"
    "\"samples\":{\"time.ns_per_op\":[3,1,2]}}";

static void test_blocks(void) {
    hr_result_t t;
    hr_json_t *r = decoded(blocks, &t);
    HR_CHECK(t.ok && t.has_threads && t.n_threads == 2 && t.thread_ns[0] == 10.5 &&
             t.thread_ns[1] == 20 && isnan(t.thread_ns[2]));
    HR_CHECK(t.program.present && t.program.cpu_s == 2 && t.program.cpu_s_max == 2.1 &&
             t.program.runs == 5 && strcmp(t.program.timed, "capture") == 0);
    HR_CHECK(t.program.cpu_s_mad == 0.05 && t.program.load_before == 1.5 &&
             t.program.load_after == 0.25 && t.program.cpus == 4);
    HR_CHECK(t.predict.present && t.predict.change_s == -0.02 && t.predict.real == -1 &&
             t.predict.runs_to_see == 3 && !t.predict.paired && isnan(t.predict.noise_s));
    hr_json_free(r);
    /* a report made before the two answers: its within_noise is read as real */
    static const char *const old[] = {
        "{\"trace\":\"t\",\"allocator\":\"a\",\"status\":\"ok\","
        "\"predict\":{\"change_s\":-0.02,\"within_noise\":false}}",
        "{\"trace\":\"t\",\"allocator\":\"a\",\"status\":\"ok\","
        "\"predict\":{\"change_s\":0.02,\"within_noise\":false}}",
        "{\"trace\":\"t\",\"allocator\":\"a\",\"status\":\"ok\","
        "\"predict\":{\"change_s\":-0.02,\"within_noise\":true}}"};
    for (int i = 0; i < 3; i++) {
        hr_json_t *o = decoded(old[i], &t);
        HR_CHECK(t.predict.present && t.predict.real == (i == 0 ? -1 : i == 1 ? 1 : 0) &&
                 isnan(t.predict.runs_to_see));
        hr_json_free(o);
    }
    r = decoded(blocks, &t);
    HR_CHECK(t.has_budget && t.m.BUDGET_BYTES == 64 && t.m.BUDGET_FAIL == 7);
    HR_CHECK(t.violations.present && t.violations.kinds == 2 && t.violations.top_n == 9 &&
             strcmp(t.violations.top, "c") == 0);
    /* a null family member was written: its key counts, its value is NAN */
    HR_CHECK(t.family_keys[HR_M_NS_BY_OP] == ((1u << HR_OP_ALLOC) | (1u << HR_OP_FREE)));
    HR_CHECK(isnan(t.m.NS_BY_OP[HR_OP_ALLOC]) && t.m.NS_BY_OP[HR_OP_FREE] == 3.5);
    hr_result_pool_t p;
    HR_CHECK(hr_result_n_pools(&t) == 1 && hr_result_pool(&t, 0, &p) == 0 &&
             strcmp(p.name, "p") == 0 && p.allocs == 3 && p.peak_live_bytes == 96 &&
             strcmp(p.replayed_as, "x") == 0 && hr_result_pool(&t, 1, &p) < 0);
    double v[4];
    HR_CHECK(hr_result_samples(&t, HR_M_NS_PER_OP, v, 4) == 3 && v[0] == 3 && v[2] == 2);
    HR_CHECK(hr_result_samples(&t, HR_M_CPU, v, 4) == 0);
    /* the one that has none of them */
    hr_json_t *d = decoded(doc, &t);
    HR_CHECK(!t.has_threads && !t.program.present && !t.predict.present && !t.has_budget &&
             !t.violations.present && hr_result_n_pools(&t) == 0);
    hr_json_free(d);
    hr_json_free(r);
}

/* hr_result_check: counts and byte figures never negative (a signed one
 * may be), in the result and its samples; identity strings present. */
static void test_check(void) {
    static const struct {
        const char *json, *where, *what;
    } c[] = {
        {"{\"trace\":\"t\",\"allocator\":\"a\",\"status\":\"ok\","
         "\"memory\":{\"internal_slop\":-5,\"peak_live\":3}}", NULL, NULL},
        {"{\"trace\":\"t\",\"allocator\":\"a\",\"status\":\"ok\","
         "\"memory\":{\"peak_live\":-1}}", "memory.peak_live", "expected a byte count >= 0, got -1"},
        {"{\"trace\":\"t\",\"allocator\":\"a\",\"status\":\"ok\",\"ops\":{\"free\":-2}}",
         "ops.free", "expected a count >= 0, got -2"},
        {"{\"trace\":\"t\",\"allocator\":\"a\",\"status\":\"ok\","
         "\"samples\":{\"memory.peak_rss_above_baseline\":[1,-3]}}",
         "samples.memory.peak_rss_above_baseline[1]", "expected a byte count >= 0, got -3"},
        {"{\"trace\":\"t\",\"status\":\"ok\"}", "", "expected an object with string"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        hr_json_t *r = hr_json_parse(c[i].json, strlen(c[i].json), "case", NULL);
        char where[192], what[128];
        int rc = hr_result_check(r, where, sizeof where, what, sizeof what);
        HR_CHECK(r != NULL);
        if (!c[i].where)
            HR_CHECK(rc == 0);
        else
            HR_CHECK(rc < 0 && strcmp(where, c[i].where) == 0 &&
                     strncmp(what, c[i].what, strlen(c[i].what)) == 0);
        hr_json_free(r);
    }
}

/* A report view: every result decoded once, the traces in first-seen order,
 * and a trace's rows alone. */
static void test_view(void) {
    static const char *rep =
        "{\"results\":[{\"trace\":\"b\",\"allocator\":\"x\",\"status\":\"ok\"},"
        "{\"trace\":\"a\",\"allocator\":\"x\",\"status\":\"error\"},"
        "{\"trace\":\"b\",\"allocator\":\"y\",\"status\":\"ok\"}]}";
    hr_json_t *d = hr_json_parse(rep, strlen(rep), "rep", NULL);
    hr_report_view_t v, sub;
    HR_CHECK(hr_report_view_init(&v, d) == 0);
    HR_CHECK(v.n == 3 && v.ntraces == 2 && strcmp(v.traces[0], "b") == 0 &&
             strcmp(v.traces[1], "a") == 0);
    HR_CHECK(hr_result_ok(&v.rows[0]) && !hr_result_ok(&v.rows[1]));
    HR_CHECK(hr_report_view_trace(&sub, &v, "b") == 0);
    HR_CHECK(sub.n == 2 && sub.ntraces == 1 && strcmp(sub.rows[1].allocator, "y") == 0);
    hr_report_view_free(&sub);
    hr_report_view_free(&v);
    hr_json_free(d);
}

int main(void) {
    HR_RUN(test_decode);
    HR_RUN(test_every_metric);
    HR_RUN(test_blocks);
    HR_RUN(test_check);
    HR_RUN(test_view);
    return hr_test_done();
}
