/* A small C++ "game" annotated with <heapreplay/annotate.h>: a level load in
 * an HR_HEAP_SCOPE, then frames, each with its own scoped heap. Captured by
 * tests/cli/test_annotate_std.sh, which checks that the heaps appear by name.
 * Built there with -std=c++11 -pedantic -Wall -Wextra -Werror. */
#include <heapreplay/annotate.h>

#include <cstdio>
#include <cstdlib>

static void *volatile sink; /* keeps the allocations observable */

static void load_level() {
    HR_HEAP_SCOPE("Level");
    for (int i = 0; i < 10; i++) {
        sink = std::malloc(1024);
        std::free(sink);
    }
}

int main() {
    load_level();
    for (int f = 0; f < 5; f++) {
        HR_HEAP_SCOPE("Frame");
        sink = std::malloc(64);
        std::free(sink);
        hr_frame();
    }
    hr_mark("done");
    std::puts("annotate_game: ok");
    return 0;
}
