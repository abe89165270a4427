#!/usr/bin/env bash
# <heapreplay/annotate.h> is game-ready: it compiles warning-free with
# -pedantic -Wall -Wextra -Werror as C99, C11, C17, C++11 and C++17, with and
# without HR_ANNOTATE_DISABLE (which leaves no dlsym behind), and a C++ game
# using HR_HEAP_SCOPE is captured with its heaps by name.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
HR="$top_builddir/heapreplay"
CC=${CC:-cc}
CXX=${CXX:-g++}
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_ann.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
INC="-I$srcdir/include"
W="-pedantic -Wall -Wextra -Werror"
cat > "$T/a.c" << 'SRC'
#include <heapreplay/annotate.h>
int main(void) {
    hr_heap_push("Level");
    hr_frame();
    hr_mark("m");
    hr_heap_pop("Level");
    return 0;
}
SRC
for std in c99 c11 c17; do
    for d in "" -DHR_ANNOTATE_DISABLE; do
        # shellcheck disable=SC2086
        if $CC -std=$std $d $W $INC -c "$T/a.c" -o "$T/a.o" 2> "$T/err"; then ok "C $std $d: no warning"
        else not_ok "C $std $d: no warning" "$(head -5 "$T/err")"; fi
    done
done
GAME="$srcdir/tests/capture/annotate_game.cpp"
if command -v "$CXX" > /dev/null; then
    for std in c++11 c++17; do
        for d in "" -DHR_ANNOTATE_DISABLE; do
            # shellcheck disable=SC2086
            if $CXX -std=$std $d $W $INC "$GAME" -o "$T/game$d" 2> "$T/err"; then ok "C++ $std $d: no warning"
            else not_ok "C++ $std $d: no warning" "$(head -5 "$T/err")"; fi
        done
    done
    # shellcheck disable=SC2086
    $CXX -O2 -DHR_ANNOTATE_DISABLE $INC "$GAME" -o "$T/off" 2> /dev/null
    if [ -x "$T/off" ] && ! nm -u "$T/off" | grep -q dlsym; then ok "HR_ANNOTATE_DISABLE: no dlsym left"
    else not_ok "HR_ANNOTATE_DISABLE: no dlsym left"; fi
    if [ -x "$HR" ] && [ -f "$top_builddir/.libs/libheapreplay-capture.so" ] && [ -x "$T/game" ]; then
        "$HR" capture -o "$T/g.hrt" -- "$T/game" > "$T/out" 2> "$T/err"
        "$HR" info "$T/g.hrt" > "$T/info" 2>&1
        if grep -q "annotate_game: ok" "$T/out" && grep -q "heaps  *Level, Frame" "$T/info" &&
           grep -q "^    push  *6" "$T/info" && grep -q "^    pop  *6" "$T/info"; then
            ok "HR_HEAP_SCOPE: captured game has heaps Level and Frame, pushes and pops paired"
        else
            not_ok "HR_HEAP_SCOPE: heaps by name" "$(cat "$T/err" "$T/info")"
        fi
    else
        skip "HR_HEAP_SCOPE: heaps by name" "heapreplay or the capture library not built"
    fi
else
    skip "C++: annotate.h compiles" "no C++ compiler ($CXX)"
fi
tap_done
