/* jget PATH FILE: prints the JSON value at a dotted path (for shell tests):
 * strings raw, integers exactly, booleans true/false, null/missing as "null". */
#include <inttypes.h>
#include <stdio.h>

#include "base/json.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: jget PATH FILE\n");
        return 2;
    }
    hr_error_t err;
    hr_json_t *doc = hr_json_parse_file(argv[2], &err);
    if (!doc) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    const hr_json_t *v = hr_json_path(doc, argv[1]);
    uint64_t u;
    switch (hr_json_type(v)) {
    case HR_JSON_STRING: printf("%s\n", hr_json_str(v)); break;
    case HR_JSON_BOOL: printf("%s\n", hr_json_is_true(v) ? "true" : "false"); break;
    case HR_JSON_NUMBER:
        if (hr_json_get_u64(v, &u) == 0)
            printf("%" PRIu64 "\n", u);
        else
            printf("%.17g\n", hr_json_num(v, 0));
        break;
    case HR_JSON_NULL: printf("null\n"); break;
    default: printf("%s\n", hr_json_to_string(v, 1)); break;
    }
    hr_json_free(doc);
    return 0;
}
