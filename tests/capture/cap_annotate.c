/* The annotation API: push "level", malloc(70001), mark "loaded", 3 frames,
 * pop "level", free. Without the capture library every call is a no-op. */
#include <stdlib.h>
#include "heapreplay/annotate.h"
void *volatile sink;
int main(void) {
    hr_heap_push("level");
    void *p = malloc(70001);
    sink = p;
    hr_mark("loaded");
    for (int i = 0; i < 3; i++)
        hr_frame();
    hr_heap_pop("level");
    free(p);
    return 0;
}
