/* libFuzzer target: the heap-config parser (docs/HEAP_CONFIG.md). A table
 * that parses is internally consistent (every index in range, names
 * terminated); a failure is one line naming the input. */
#include <stdint.h>

#include "fuzz_common.h"
#include "alloc/routed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static hr_heapcfg_t c; /* large: not on the stack */
    hr_error_t err = {{0}};
    if (hr_heapcfg_parse(&c, (const char *)data, size, "fuzz.heaps", &err) != 0) {
        fuzz_one_line(&err, "fuzz.heaps");
        return 0;
    }
    FUZZ_REQUIRE(c.nheaps >= 1 && c.nheaps <= HR_HEAPCFG_MAX_HEAPS);
    FUZZ_REQUIRE(c.nsearches >= 0 && c.nsearches <= HR_HEAPCFG_MAX_SEARCH);
    FUZZ_REQUIRE(c.default_heap >= 0 && c.default_heap < c.nheaps + c.nsearches);
    FUZZ_REQUIRE(c.corral_heap >= -1 && c.corral_heap < c.nheaps);
    for (int i = 0; i < c.nheaps; i++) {
        FUZZ_REQUIRE(memchr(c.heaps[i].name, 0, sizeof c.heaps[i].name) != NULL);
        FUZZ_REQUIRE(c.heaps[i].parent >= -1 && c.heaps[i].parent < c.nheaps);
        FUZZ_REQUIRE(hr_heapcfg_lookup(&c, c.heaps[i].name) >= 0);
    }
    for (int i = 0; i < c.nsearches; i++) {
        const hr_heapcfg_search_t *s = &c.searches[i];
        FUZZ_REQUIRE(memchr(s->name, 0, sizeof s->name) != NULL);
        FUZZ_REQUIRE(s->n >= 0 && s->n <= HR_HEAPCFG_MAX_LIST);
        for (int j = 0; j < s->n; j++)
            FUZZ_REQUIRE(s->heaps[j] >= 0 && s->heaps[j] < c.nheaps);
    }
    return 0;
}
