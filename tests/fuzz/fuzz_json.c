/* libFuzzer target: the JSON parser (reports, replay result lines). A
 * document that parses prints, compact and pretty, to text that parses back
 * to the same compact text; a failure is one line naming the input. */
#include <stdint.h>

#include "fuzz_common.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    hr_error_t err = {{0}};
    hr_json_t *v = hr_json_parse((const char *)data, size, "fuzz.json", &err);
    if (!v) {
        fuzz_one_line(&err, "fuzz.json");
        return 0;
    }
    char *compact = hr_json_to_string(v, 1), *pretty = hr_json_to_string(v, 0);
    FUZZ_REQUIRE(compact && pretty);
    hr_json_t *w = hr_json_parse(pretty, strlen(pretty), "pretty", &err);
    FUZZ_REQUIRE(w != NULL);
    char *again = hr_json_to_string(w, 1);
    FUZZ_REQUIRE(again && strcmp(again, compact) == 0);
    free(compact);
    free(pretty);
    free(again);
    hr_json_free(v);
    hr_json_free(w);
    return 0;
}
