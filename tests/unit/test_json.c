/* JSON DOM: parse/print round trip, exact integers, errors with offsets,
 * dotted-path lookup, construction and emission. */
#include <math.h>
#include <stdlib.h>

#include "hr_test.h"
#include "base/json.h"

static hr_json_t *parse(const char *s, hr_error_t *err) {
    return hr_json_parse(s, strlen(s), "doc.json", err);
}

static void test_round_trip(void) {
    const char *src = "{\"a\":1,\"b\":[true,false,null,\"x\\\"y\"],\"c\":{\"d\":0.1,\"e\":-7},"
                      "\"f\":18446744073709551615,\"g\":\"\\u00b5\\ud83d\\ude00\",\"h\":{},\"i\":[]}";
    hr_error_t err;
    hr_json_t *v = parse(src, &err);
    HR_CHECK(v != NULL);
    char *out = hr_json_to_string(v, 1);
    /* \u escapes come back as UTF-8; everything else byte-identical */
    HR_CHECK_STR(out, "{\"a\":1,\"b\":[true,false,null,\"x\\\"y\"],\"c\":{\"d\":0.1,\"e\":-7},"
                      "\"f\":18446744073709551615,\"g\":\"\xc2\xb5\xf0\x9f\x98\x80\",\"h\":{},\"i\":[]}");
    /* and printing the reparsed output is a fixed point, pretty or not */
    hr_json_t *w = hr_json_parse(out, strlen(out), "out", &err);
    char *pretty = hr_json_to_string(w, 0);
    hr_json_t *x = hr_json_parse(pretty, strlen(pretty), "pretty", &err);
    char *again = hr_json_to_string(x, 1);
    HR_CHECK_STR(again, out);
    HR_CHECK(strchr(pretty, '\n') != NULL);
    free(out);
    free(pretty);
    free(again);
    hr_json_free(v);
    hr_json_free(w);
    hr_json_free(x);
}

static void test_numbers(void) {
    hr_error_t err;
    hr_json_t *v = parse("[18446744073709551615, 18446744073709551616, -9223372036854775808,"
                         " 1e3, 2.5, 0, -0, 9007199254740993]", &err);
    uint64_t u = 0;
    HR_CHECK(v != NULL);
    HR_CHECK(hr_json_get_u64(hr_json_at(v, 0), &u) == 0 && u == UINT64_MAX);
    HR_CHECK(hr_json_get_u64(hr_json_at(v, 1), &u) == -1); /* too big: double only */
    HR_CHECK(hr_json_num(hr_json_at(v, 1), 0) == 18446744073709551616.0);
    HR_CHECK(hr_json_at(v, 2)->is_i64 && hr_json_at(v, 2)->i64 == INT64_MIN);
    HR_CHECK(hr_json_get_u64(hr_json_at(v, 3), &u) == -1); /* 1e3 is not an integer literal */
    HR_CHECK(hr_json_num(hr_json_at(v, 3), 0) == 1000);
    HR_CHECK(hr_json_num(hr_json_at(v, 4), 0) == 2.5);
    HR_CHECK(hr_json_get_u64(hr_json_at(v, 7), &u) == 0 && u == 9007199254740993ull);
    char *s = hr_json_to_string(v, 1);
    HR_CHECK(strstr(s, "9007199254740993") != NULL); /* exact, not via double */
    free(s);
    hr_json_free(v);
}

/* Each bad input gives "doc.json: offset N: expected ..." with the right N. */
static void check_err(const char *src, size_t offset, const char *expect_sub) {
    hr_error_t err;
    char want[64];
    hr_json_t *v = parse(src, &err);
    HR_CHECK(v == NULL);
    snprintf(want, sizeof want, "doc.json: offset %zu: expected ", offset);
    if (strncmp(err.msg, want, strlen(want)) != 0 || !strstr(err.msg, expect_sub))
        printf("# input %s: got \"%s\", want \"%s...%s\"\n", src, err.msg, want, expect_sub);
    HR_CHECK(strncmp(err.msg, want, strlen(want)) == 0);
    HR_CHECK(strstr(err.msg, expect_sub) != NULL);
    HR_CHECK(strchr(err.msg, '\n') == NULL);
    hr_json_free(v);
}

static void test_errors(void) {
    check_err("", 0, "value");
    check_err("{\"a\":1,}", 7, "object key");
    check_err("{\"a\" 1}", 5, "':'");
    check_err("[1 2]", 3, "',' or ']'");
    check_err("{\"a\":1 \"b\":2}", 7, "',' or '}'");
    check_err("[1.]", 3, "digit after '.'");
    check_err("[1e]", 3, "digit in exponent");
    check_err("\"abc", 4, "closing");
    check_err("\"a\\qb\"", 3, "escape");
    check_err("\"\\u12G4\"", 5, "hex");
    check_err("tru", 0, "value");
    check_err("{} x", 3, "end of input");
    check_err("[\"a\nb\"]", 3, "control");
    check_err("-", 0, "value");
    char deep[600];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = 0;
    check_err(deep, 256, "nested");
}

static void test_file_errors(void) {
    hr_error_t err;
    HR_CHECK(hr_json_parse_file("/nonexistent/x.json", &err) == NULL);
    HR_CHECK(strncmp(err.msg, "/nonexistent/x.json: cannot open", 32) == 0);
}

static void test_path(void) {
    hr_error_t err;
    hr_json_t *v = parse("{\"memory\":{\"peak_footprint\":123,\"src\":\"exact\"},"
                         "\"results\":[{\"allocator\":\"glibc\"},{\"allocator\":\"stack\"}],"
                         "\"n\":null}", &err);
    HR_CHECK(v != NULL);
    HR_CHECK(hr_json_path_num(v, "memory.peak_footprint") == 123);
    HR_CHECK_STR(hr_json_path_str(v, "memory.src"), "exact");
    HR_CHECK_STR(hr_json_path_str(v, "results.1.allocator"), "stack");
    HR_CHECK(hr_json_path(v, "results.2.allocator") == NULL);
    HR_CHECK(hr_json_path(v, "results.x") == NULL);
    HR_CHECK(hr_json_path(v, "memory.missing") == NULL);
    HR_CHECK(hr_json_path(v, "memory.peak_footprint.deeper") == NULL);
    HR_CHECK(isnan(hr_json_path_num(v, "n")));
    HR_CHECK(hr_json_type(hr_json_path(v, "n")) == HR_JSON_NULL && hr_json_path(v, "n") != NULL);
    HR_CHECK(hr_json_path(v, "") == v);
    HR_CHECK_STR(hr_json_key_at(v, 1), "results");
    hr_json_free(v);
}

static void test_build_and_emit(void) {
    hr_json_t *o = hr_json_new_object(), *a = hr_json_new_array();
    HR_CHECK(hr_json_set(o, "schema", hr_json_new_str("heapreplay-report")) == 0);
    HR_CHECK(hr_json_set(o, "n", hr_json_new_u64(5)) == 0);
    HR_CHECK(hr_json_set(o, "x", hr_json_new_num(NAN)) == 0);
    HR_CHECK(hr_json_push(a, hr_json_new_i64(-3)) == 0);
    HR_CHECK(hr_json_push(a, hr_json_new_bool(1)) == 0);
    HR_CHECK(hr_json_push(a, hr_json_new_null()) == 0);
    HR_CHECK(hr_json_set(o, "a", a) == 0);
    HR_CHECK(hr_json_set(o, "n", hr_json_new_u64(6)) == 0); /* replace keeps position */
    HR_CHECK(hr_json_push(o, hr_json_new_null()) == -1);    /* not an array */
    hr_json_t *c = hr_json_clone(o);
    char *s = hr_json_to_string(c, 1);
    HR_CHECK_STR(s, "{\"schema\":\"heapreplay-report\",\"n\":6,\"x\":null,\"a\":[-3,true,null]}");
    free(s);
    /* emit a subtree under a key inside a surrounding document */
    hr_emit_mem_t m;
    hr_emit_mem_open(&m, 1);
    hr_emit_obj_begin(&m.em, NULL);
    hr_json_emit(&m.em, "report", o);
    hr_emit_obj_end(&m.em);
    hr_emit_end(&m.em);
    char *buf = hr_emit_mem_close(&m);
    HR_CHECK_STR(buf, "{\"report\":{\"schema\":\"heapreplay-report\",\"n\":6,\"x\":null,"
                      "\"a\":[-3,true,null]}}\n");
    free(buf);
    hr_json_free(o);
    hr_json_free(c);
}

/* Negative zero, however written, prints as "-0" and reads back as itself
 * (fuzz_json found "-0e-3" -> "-0" -> 0: the integer path dropped the sign). */
static void test_negative_zero(void) {
    hr_error_t err;
    hr_json_t *v = parse("[-0e-3,-0,-0.0,0]", &err);
    HR_CHECK(v != NULL);
    char *a = v ? hr_json_to_string(v, 1) : NULL;
    HR_CHECK_STR(a ? a : "", "[-0,-0,-0,0]");
    hr_json_t *w = a ? parse(a, &err) : NULL;
    char *b = w ? hr_json_to_string(w, 1) : NULL;
    HR_CHECK_STR(b ? b : "", "[-0,-0,-0,0]");
    free(a);
    free(b);
    hr_json_free(v);
    hr_json_free(w);
}

/* Whatever nesting the parser accepts (255 containers deep),
 * printing keeps: pretty and compact forms parse back to the same text (the
 * emitter's old limit of 32 levels wrote broken separators past it). */
static void test_deep_round_trip(void) {
    char src[8 * 256], *p = src;
    for (int i = 0; i < 254; i++)
        p += sprintf(p, "%s", i % 2 ? "[" : "{\"k\":");
    p = src + strlen(src);
    *p++ = '[';
    *p++ = '1';
    *p++ = ',';
    *p++ = '2';
    *p++ = ']';
    for (int i = 253; i >= 0; i--)
        *p++ = i % 2 ? ']' : '}';
    *p = 0;
    hr_error_t err;
    hr_json_t *v = parse(src, &err);
    HR_CHECK(v != NULL);
    if (!v) {
        printf("# %s\n", err.msg);
        return;
    }
    char *compact = hr_json_to_string(v, 1), *pretty = hr_json_to_string(v, 0);
    HR_CHECK_STR(compact, src);
    hr_json_t *w = hr_json_parse(pretty, strlen(pretty), "pretty", &err);
    HR_CHECK(w != NULL);
    char *again = w ? hr_json_to_string(w, 1) : NULL;
    HR_CHECK(again && strcmp(again, src) == 0);
    free(compact);
    free(pretty);
    free(again);
    hr_json_free(v);
    hr_json_free(w);
}

/* Pretty-printed, an array of numbers stays on one line (the report's
 * series and samples); any other array has one element per line; the
 * text parses back to the same document. */
static void test_inline_number_arrays(void) {
    hr_error_t err;
    hr_json_t *v = parse("{\"n\":[1,2.5,-3],\"m\":[1,\"x\"],\"e\":[],\"o\":{\"k\":[7]}}", &err);
    HR_CHECK(v != NULL);
    char *pretty = hr_json_to_string(v, 0), *compact = hr_json_to_string(v, 1);
    HR_CHECK(pretty && strstr(pretty, "\"n\": [1, 2.5, -3],\n") != NULL);
    HR_CHECK(pretty && strstr(pretty, "\"m\": [\n    1,\n    \"x\"\n  ]") != NULL);
    HR_CHECK(pretty && strstr(pretty, "\"e\": [],") != NULL);
    HR_CHECK(pretty && strstr(pretty, "\"k\": [7]\n") != NULL);
    HR_CHECK_STR(compact, "{\"n\":[1,2.5,-3],\"m\":[1,\"x\"],\"e\":[],\"o\":{\"k\":[7]}}");
    hr_json_t *back = pretty ? parse(pretty, &err) : NULL;
    char *again = back ? hr_json_to_string(back, 1) : NULL;
    HR_CHECK_STR(again, compact);
    if (pretty && hr_t_cur_failed)
        printf("# %s\n", pretty);
    free(pretty);
    free(compact);
    free(again);
    hr_json_free(back);
    hr_json_free(v);
}

int main(void) {
    HR_RUN(test_round_trip);
    HR_RUN(test_deep_round_trip);
    HR_RUN(test_negative_zero);
    HR_RUN(test_numbers);
    HR_RUN(test_errors);
    HR_RUN(test_file_errors);
    HR_RUN(test_path);
    HR_RUN(test_build_and_emit);
    HR_RUN(test_inline_number_arrays);
    return hr_test_done();
}
