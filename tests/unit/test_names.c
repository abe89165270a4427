/* Heap and mark names are found through a hash index (src/trace/names.h):
 * the cost of interning, reading and canonicalising 100 k distinct names
 * is asserted by the index's probe counter, never by a clock. A linear
 * search would look at n/2 names per lookup on average, 2.5e9 probes for
 * 100 k names; the index looks at a few. */
#include "hr_test.h"
#include "trace/format.h"
#include "trace/names.h"

enum { N_NAMES = 100000 };

/* Probes per lookup that a working hash index stays under (a half-full
 * linear-probing table averages about 1.5 on a hit, 2.5 on a miss). */
#define MAX_PROBES_PER_LOOKUP 8

static void name_of(char *buf, size_t cap, const char *prefix, uint32_t i) {
    snprintf(buf, cap, "%s%u", prefix, i);
}

static void test_intern_distinct_names_is_linear(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    char name[32];
    for (uint32_t i = 0; i < N_NAMES; i++) {
        name_of(name, sizeof name, "mark ", i);
        HR_CHECK_EQ_I64(hr_trace_intern(&t, name), i);
    }
    /* again: every name found, none added */
    for (uint32_t i = 0; i < N_NAMES; i += 7) {
        name_of(name, sizeof name, "mark ", i);
        HR_CHECK_EQ_I64(hr_trace_intern(&t, name), i);
    }
    HR_CHECK_EQ_U64(t.n_strings, N_NAMES);
    HR_CHECK(t.names != NULL);
    uint64_t lookups = N_NAMES + N_NAMES / 7 + 1;
    HR_CHECK(t.names && t.names->probes <= lookups * MAX_PROBES_PER_LOOKUP);
    if (t.names)
        printf("# %llu probes for %llu lookups\n", (unsigned long long)t.names->probes,
               (unsigned long long)lookups);
    hr_trace_free(&t);
    HR_CHECK(t.names == NULL);
}

/* Equal names at several positions (a binary table may hold them): the
 * first is the one found, and strings placed directly are indexed on the
 * next intern. */
static void test_first_equal_name_wins(void) {
    hr_trace_t t;
    hr_trace_init(&t);
    HR_CHECK_EQ_I64(hr_trace_intern(&t, "a"), 0);
    char **s = realloc(t.strings, 4 * sizeof *s);
    HR_CHECK(s != NULL);
    if (!s)
        return;
    t.strings = s;
    t.cap_strings = 4;
    t.strings[1] = strdup("b");
    t.strings[2] = strdup("b");
    t.n_strings = 3;
    HR_CHECK_EQ_I64(hr_trace_intern(&t, "b"), 1);
    HR_CHECK_EQ_I64(hr_trace_intern(&t, "a"), 0);
    HR_CHECK_EQ_I64(hr_trace_intern(&t, "c"), 3);
    HR_CHECK_EQ_U64(t.n_strings, 4);
    hr_trace_free(&t);
}

/* A text trace of 100 k distinct marks reads, and its digest (which
 * renumbers names canonically) is taken, with O(1) probes per name. */
static void test_read_many_marks(void) {
    size_t cap = (size_t)N_NAMES * 24 + 64, len = 0;
    char *text = malloc(cap);
    HR_CHECK(text != NULL);
    if (!text)
        return;
    len += (size_t)snprintf(text, cap, "heapreplay-trace 1\n");
    for (uint32_t i = 0; i < N_NAMES; i++)
        len += (size_t)snprintf(text + len, cap - len, "mark m%u\n", i);
    hr_trace_t t;
    hr_error_t err = {""};
    HR_CHECK(hr_trace_read_mem(text, len, "marks.txt", HR_FMT_AUTO, &t, &err) == 0);
    HR_CHECK_EQ_U64(t.n_strings, N_NAMES);
    HR_CHECK(t.names && t.names->probes <= (uint64_t)N_NAMES * MAX_PROBES_PER_LOOKUP);
    char d[17];
    hr_trace_digest(&t, d);
    HR_CHECK(strlen(d) == 16);
    hr_trace_free(&t);
    free(text);
}

/* The index on its own: finds what it holds, misses what it does not. */
static void test_index_find_and_miss(void) {
    char *strs[] = {"heap", "frame", "particles", "heap"};
    hr_names_t x;
    hr_names_init(&x);
    HR_CHECK_EQ_I64(hr_names_find(&x, strs, "heap"), -1);
    HR_CHECK(hr_names_catch_up(&x, strs, 4) == 0);
    HR_CHECK_EQ_U64(x.n, 3);
    HR_CHECK_EQ_I64(hr_names_find(&x, strs, "heap"), 0);
    HR_CHECK_EQ_I64(hr_names_find(&x, strs, "particles"), 2);
    HR_CHECK_EQ_I64(hr_names_find(&x, strs, "missing"), -1);
    hr_names_free(&x);
}

int main(void) {
    HR_RUN(test_index_find_and_miss);
    HR_RUN(test_intern_distinct_names_is_linear);
    HR_RUN(test_first_equal_name_wins);
    HR_RUN(test_read_many_marks);
    return hr_test_done();
}
