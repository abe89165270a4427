/* Allocator specs (backends/spec.h): what a good spec parses into, the
 * one-line message of every bad form (the same text the command line has
 * always printed), the -a list splitter and the --pool routes. */
#include <stdio.h>
#include <string.h>

#include "backends/be_system.h"
#include "backends/spec.h"
#include "hr_test.h"

static void test_single(void) {
    hr_alloc_spec_t s;
    hr_error_t err = {{0}};
    HR_CHECK(hr_alloc_spec_parse("sizeclass:max=32K,refill=1", &s, &err) == 0);
    HR_CHECK_STR(s.text, "sizeclass:max=32K,refill=1");
    HR_CHECK(s.be == hr_backend_find("sizeclass") && s.last == s.be);
    HR_CHECK(s.arg && strcmp(s.arg, "max=32K,refill=1") == 0);
    HR_CHECK_EQ_U64(s.parts.n, 0);
    HR_CHECK(s.lib == NULL); /* in-house: no library */
    hr_alloc_spec_free(&s);
    HR_CHECK(hr_alloc_spec_parse("glibc", &s, &err) == 0);
    HR_CHECK(s.arg == NULL && s.lib && s.lib[0] == '\0'); /* the C library: nothing preloaded */
    HR_CHECK(s.be->caps & HR_CAP_EXTERNAL_PROCESS);
    hr_alloc_spec_free(&s);
    HR_CHECK(hr_alloc_spec_parse("routed:shar-pc", &s, &err) == 0);
    HR_CHECK(strcmp(s.be->name, "routed") == 0 && s.arg && strcmp(s.arg, "shar-pc") == 0);
    hr_alloc_spec_free(&s);
    HR_CHECK(hr_alloc_spec_parse("jemalloc:sized", &s, &err) == 0);
    HR_CHECK(s.lib == hr_external_lib("jemalloc")); /* NULL when not configured */
    hr_alloc_spec_free(&s);
}

static void test_preload(void) {
    hr_alloc_spec_t s;
    hr_error_t err = {{0}};
    HR_CHECK(hr_alloc_spec_parse("preload:/opt/x/libmy.so", &s, &err) == 0);
    HR_CHECK(s.lib && strcmp(s.lib, "/opt/x/libmy.so") == 0);
    hr_alloc_spec_free(&s);
    HR_CHECK(hr_alloc_spec_parse("preload:", &s, &err) == 0);
    HR_CHECK(s.lib == NULL); /* no path: not runnable, said before any process */
    hr_alloc_spec_free(&s);
    HR_CHECK(hr_alloc_spec_parse("stack+preload:/opt/y.so", &s, &err) == 0);
    HR_CHECK(s.lib && strcmp(s.lib, "/opt/y.so") == 0);
    HR_CHECK(strcmp(s.last->name, "preload") == 0);
    hr_alloc_spec_free(&s);
}

static void test_composition(void) {
    hr_alloc_spec_t s;
    hr_error_t err = {{0}};
    HR_CHECK(hr_alloc_spec_parse("stack:entries=8+block", &s, &err) == 0);
    HR_CHECK((s.be->caps & HR_CAP_COMPOSITE) && !(s.be->caps & HR_CAP_EXTERNAL_PROCESS));
    HR_CHECK(s.arg == NULL && s.lib == NULL);
    HR_CHECK_EQ_U64(s.parts.n, 2);
    HR_CHECK_STR(s.parts.part[0].spec + s.parts.part[0].arg_at, "entries=8");
    HR_CHECK_EQ_U64(s.parts.part[0].entries, 8);
    HR_CHECK_EQ_U64(s.parts.part[1].arg_at, 0);
    HR_CHECK(s.last == hr_backend_find("block"));
    hr_alloc_spec_free(&s);
    HR_CHECK(hr_alloc_spec_parse("marker+glibc", &s, &err) == 0);
    HR_CHECK((s.be->caps & HR_CAP_COMPOSITE) && (s.be->caps & HR_CAP_EXTERNAL_PROCESS));
    HR_CHECK(s.lib && s.lib[0] == '\0' && strcmp(s.last->name, "glibc") == 0);
    hr_alloc_spec_free(&s);
}

/* Each bad spec and its message, as the command line prints it. */
static void test_bad_forms(void) {
    char long_part[200];
    memset(long_part, 'a', 140);
    snprintf(long_part + 140, sizeof long_part - 140, "+glibc");
    static char long_msg[400];
    snprintf(long_msg, sizeof long_msg, "composition '%s': a part spec is too long", long_part);
    const struct { const char *spec, *msg; } bad[] = {
        {"nosuch", "unknown allocator 'nosuch' (see 'heapreplay list')"},
        {"sizeclas:max=1", "unknown allocator 'sizeclas:max=1' (see 'heapreplay list')"},
        {"stack+", "composition 'stack+': an empty part"},
        {"+stack", "composition '+stack': an empty part"},
        {"glibc+stack", "composition 'glibc+stack': 'glibc' takes every block, so it must be the "
                        "last part (parts are tried in order)"},
        {"jemalloc+mimalloc", "composition 'jemalloc+mimalloc': 'jemalloc' takes every block, so "
                              "it must be the last part (parts are tried in order)"},
        {"stack+nosuch", "composition 'stack+nosuch': unknown allocator 'nosuch' (see 'heapreplay "
                         "list')"},
        {"stack+crash", "composition 'stack+crash': unknown allocator 'crash' (see 'heapreplay "
                        "list')"},
        {"stack+marker+block+bank+glibc", "composition 'stack+marker+block+bank+glibc': at most 4 "
                                          "parts"},
        {"bank@+glibc", "composition 'bank@+glibc': 'bank@': expected PART@POOL with a pool name "
                        "of at most 63 bytes"},
        {long_part, long_msg},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hr_alloc_spec_t s;
        hr_error_t err = {{0}};
        HR_CHECK(hr_alloc_spec_parse(bad[i].spec, &s, &err) == -1);
        HR_CHECK_STR(err.msg, bad[i].msg);
        HR_CHECK(hr_backend_find(bad[i].spec) == NULL);
    }
}

static void test_list(void) {
    char list[] = "glibc,sizeclass:max=32K,refill=1,,bank:round=16,all,stack+block";
    const char *want[] = {"glibc", "sizeclass:max=32K,refill=1", "bank:round=16", "all",
                          "stack+block"};
    char *cursor = list, *tok;
    size_t n = 0;
    while ((tok = hr_alloc_spec_next(&cursor)) != NULL) {
        HR_CHECK(n < 5);
        if (n < 5)
            HR_CHECK_STR(tok, want[n]);
        n++;
    }
    HR_CHECK_EQ_U64(n, 5);
    HR_CHECK(hr_alloc_spec_is_all("all") && !hr_alloc_spec_is_all("all:x"));
}

static void test_pool_routes(void) {
    hr_pool_routes_t pr = {2, {{"ui", "bank:round=16"}, {"other", "malloc"}}};
    hr_alloc_spec_t s;
    hr_error_t err = {{0}};
    HR_CHECK(hr_alloc_spec_pool_alloc_ok("malloc") && hr_alloc_spec_pool_alloc_ok("bank:round=16"));
    HR_CHECK(!hr_alloc_spec_pool_alloc_ok("glibc") && !hr_alloc_spec_pool_alloc_ok("malloc:x"));
    HR_CHECK(!hr_alloc_spec_pool_alloc_ok("stack+block") && !hr_alloc_spec_pool_alloc_ok("bankx"));
    HR_CHECK(hr_alloc_spec_parse("glibc", &s, &err) == 0);
    HR_CHECK(hr_alloc_spec_route_pools(&s, &pr, &err) == 0);
    HR_CHECK_STR(s.text, "bank:round=16@ui+glibc"); /* a route to malloc adds no part */
    HR_CHECK_EQ_U64(s.parts.n, 2);
    HR_CHECK_EQ_U64(s.parts.part[0].take, HR_TAKE_POOL);
    HR_CHECK_STR(s.parts.part[0].pool, "ui");
    HR_CHECK_STR(s.parts.part[0].spec + s.parts.part[0].arg_at, "round=16");
    hr_alloc_spec_free(&s);
    hr_pool_routes_t three = {3, {{"a", "stack"}, {"b", "block"}, {"c", "bank"}}};
    HR_CHECK(hr_alloc_spec_parse("stack+block", &s, &err) == 0);
    HR_CHECK(hr_alloc_spec_route_pools(&s, &three, &err) == -1);
    HR_CHECK_STR(err.msg, "composition 'stack@a+block@b+bank@c+stack+block': at most 4 parts");
    HR_CHECK_STR(s.text, "stack+block"); /* left as it was */
    hr_alloc_spec_free(&s);
}

/* A backend of the caller's own (tests, benches): its name is not in the
 * table, the options still reach create(). */
static void test_bind(void) {
    static const hr_backend_t mock = {.name = "mock"};
    hr_alloc_spec_t s;
    hr_alloc_spec_bind(&mock, "mock:opt=1", &s);
    HR_CHECK(s.be == &mock && s.last == &mock && s.arg && strcmp(s.arg, "opt=1") == 0);
    HR_CHECK_EQ_U64(s.parts.n, 0);
    hr_alloc_spec_free(&s);
    hr_alloc_spec_bind(hr_backend_find("bank"), "bank:round=16", &s);
    HR_CHECK(s.be == hr_backend_find("bank") && strcmp(s.arg, "round=16") == 0);
    hr_alloc_spec_free(&s);
}

int main(int argc, char **argv) {
    hr_test_args(argc, argv);
    HR_RUN(test_single);
    HR_RUN(test_preload);
    HR_RUN(test_composition);
    HR_RUN(test_bad_forms);
    HR_RUN(test_list);
    HR_RUN(test_pool_routes);
    HR_RUN(test_bind);
    return hr_test_done();
}
