/* Varint and zig-zag coding (src/base/varint.h). */
#include "hr_test.h"
#include "base/varint.h"

/* Round trip through both readers; the unchecked one gets HR_VARINT_MAX of
 * padding as its contract requires. */
static int round_trip(uint64_t v, size_t expect_len) {
    uint8_t buf[HR_VARINT_MAX + 16] = {0};
    size_t n = hr_varint_put(buf, v);
    int ok = n == expect_len && n == hr_varint_len(v);
    const uint8_t *p = buf;
    uint64_t got = 0;
    ok = ok && hr_varint_get(&p, buf + n, &got) == HR_VARINT_OK && got == v && p == buf + n;
    p = buf;
    got = 0;
    ok = ok && hr_varint_get_unchecked(&p, &got) == HR_VARINT_OK && got == v && p == buf + n;
    return ok;
}

static void test_round_trip(void) {
    HR_CHECK(round_trip(0, 1));
    HR_CHECK(round_trip(1, 1));
    HR_CHECK(round_trip(127, 1));
    HR_CHECK(round_trip(128, 2));
    HR_CHECK(round_trip(16383, 2));
    HR_CHECK(round_trip(16384, 3));
    HR_CHECK(round_trip(UINT32_MAX, 5));
    HR_CHECK(round_trip((uint64_t)1 << 32, 5));
    HR_CHECK(round_trip((uint64_t)1 << 63, 10));
    HR_CHECK(round_trip(UINT64_MAX, 10));
    for (uint64_t v = 1; v; v <<= 1) /* every width */
        HR_CHECK(round_trip(v - 1, hr_varint_len(v - 1)) && round_trip(v, hr_varint_len(v)));
}

static void test_known_bytes(void) {
    uint8_t buf[HR_VARINT_MAX];
    HR_CHECK_EQ_U64(hr_varint_put(buf, 300), 2);
    HR_CHECK_EQ_U64(buf[0], 0xac);
    HR_CHECK_EQ_U64(buf[1], 0x02);
    HR_CHECK_EQ_U64(hr_varint_put(buf, UINT64_MAX), 10);
    HR_CHECK_EQ_U64(buf[9], 0x01);
}

static void test_zigzag(void) {
    HR_CHECK_EQ_U64(hr_zigzag(0), 0);
    HR_CHECK_EQ_U64(hr_zigzag(-1), 1);
    HR_CHECK_EQ_U64(hr_zigzag(1), 2);
    HR_CHECK_EQ_U64(hr_zigzag(-2), 3);
    HR_CHECK_EQ_U64(hr_zigzag(-64), 127); /* small negative deltas stay 1 byte */
    HR_CHECK_EQ_U64(hr_zigzag(INT64_MAX), UINT64_MAX - 1);
    HR_CHECK_EQ_U64(hr_zigzag(INT64_MIN), UINT64_MAX);
    int64_t vals[] = {0, 1, -1, 63, -64, 64, -65, 1000000, -1000000, INT64_MAX, INT64_MIN};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
        HR_CHECK(hr_unzigzag(hr_zigzag(vals[i])) == vals[i]);
}

static int get_rc(const uint8_t *b, size_t n) {
    const uint8_t *p = b;
    uint64_t v;
    int rc = hr_varint_get(&p, b + n, &v);
    uint8_t pad[32] = {0};
    memcpy(pad, b, n);
    const uint8_t *q = pad;
    int rc2 = hr_varint_get_unchecked(&q, &v);
    /* The unchecked reader sees zero padding instead of the end, so a
     * truncated varint reads as non-minimal there: both must fail. */
    if (n > 0 && (rc == 0) != (rc2 == 0))
        return 99;
    if (rc != 0 && p != b)
        return 98; /* failure must not advance */
    return rc;
}

static void test_rejects(void) {
    const uint8_t trunc1[] = {0x80};
    const uint8_t trunc2[] = {0xff, 0xff, 0xff};
    const uint8_t empty[] = {0};
    const uint8_t nonmin[] = {0x80, 0x00};     /* 0 written in two bytes */
    const uint8_t nonmin2[] = {0xff, 0x80, 0x00};
    const uint8_t eleven[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x01};
    const uint8_t over64[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    HR_CHECK_EQ_I64(get_rc(trunc1, 1), HR_VARINT_TRUNC);
    HR_CHECK_EQ_I64(get_rc(trunc2, 3), HR_VARINT_TRUNC);
    HR_CHECK_EQ_I64(get_rc(empty, 0), HR_VARINT_TRUNC);
    HR_CHECK_EQ_I64(get_rc(nonmin, 2), HR_VARINT_OVERLONG);
    HR_CHECK_EQ_I64(get_rc(nonmin2, 3), HR_VARINT_OVERLONG);
    HR_CHECK_EQ_I64(get_rc(eleven, 11), HR_VARINT_OVERLONG);
    HR_CHECK_EQ_I64(get_rc(over64, 10), HR_VARINT_OVERLONG);
}

int main(void) {
    HR_RUN(test_round_trip);
    HR_RUN(test_known_bytes);
    HR_RUN(test_zigzag);
    HR_RUN(test_rejects);
    return hr_test_done();
}
