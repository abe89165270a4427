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

static void test_decode(void) {
    hr_json_t *r = hr_json_parse(doc, strlen(doc), "doc", NULL);
    hr_result_t t;
    HR_CHECK(r != NULL);
    hr_report_result(r, &t);
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
    hr_json_t *r = hr_json_parse(doc, strlen(doc), "doc", NULL);
    hr_result_t t;
    hr_report_result(r, &t);
    for (int k = 0; k < HR_M__COUNT; k++) {
        double v = hr_result_num(&t.m, (hr_metric_id_t)k, HR_OP_ALLOC, 0);
        double want = hr_metrics[k].type == HR_MT_STR ? NAN : hr_metric_value(&hr_metrics[k], r);
        if (hr_metrics[k].family)
            want = k == HR_M_OPS_BY_OP ? 6 : NAN;
        HR_CHECK((isnan(v) && isnan(want)) || v == want);
    }
    hr_json_free(r);
}

int main(void) {
    HR_RUN(test_decode);
    HR_RUN(test_every_metric);
    return hr_test_done();
}
