/* Limits say what they accept: the heap config's size limit "<= 1T" takes
 * 1T itself (and 1024G), and refuses one unit more with that message. */
#include "hr_test.h"
#include "alloc/routed.h"

/* Parses "heap 0 Default tracking SIZE" (a tracking heap: nothing is
 * allocated for it). 0 or -1 with err. */
static int parse_size_line(hr_heapcfg_t *c, const char *size, hr_error_t *err) {
    char text[128];
    snprintf(text, sizeof text, "heap 0 Default tracking %s\n", size);
    return hr_heapcfg_parse(c, text, strlen(text), "t.heaps", err);
}

static void test_heapcfg_size_limit(void) {
    static hr_heapcfg_t c; /* large: not on the stack */
    hr_error_t err = {""};
    HR_CHECK(parse_size_line(&c, "1T", &err) == 0);
    HR_CHECK_EQ_U64(c.heaps[0].size, 1ull << 40);
    HR_CHECK(parse_size_line(&c, "1t", &err) == 0);
    HR_CHECK(parse_size_line(&c, "1024G", &err) == 0);
    HR_CHECK_EQ_U64(c.heaps[0].size, 1ull << 40);
    HR_CHECK(parse_size_line(&c, "1025G", &err) != 0);
    HR_CHECK(strstr(err.msg, "(<= 1T), got '1025G'") != NULL);
    HR_CHECK(parse_size_line(&c, "2T", &err) != 0);
    HR_CHECK(parse_size_line(&c, "1099511627777", &err) != 0);
}

int main(void) {
    HR_RUN(test_heapcfg_size_limit);
    return hr_test_done();
}
