#!/usr/bin/env bash
# The installed tree: `make install DESTDIR=...` puts the binary, the capture
# library, annotate.h (and no header without a library), the man page, bash
# completion, docs, heapreplay.pc and the CMake package in place; the staged
# (moved) tree still finds its own capture library; a C and a C++ program
# build against it through pkg-config and through CMake with -pedantic
# -Werror; the man page renders without warnings; uninstall removes it all.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
CC=${CC:-cc}
CXX=${CXX:-g++}
[ -x "$top_builddir/heapreplay" ] || skip_all "heapreplay not built"
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_install.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
B=$(cd "$top_builddir" && pwd)
S=$(cd "$srcdir" && pwd)
STAGE="$T/stage"
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -s -C "$B" "$@"; }

if ! mk install DESTDIR="$STAGE" > "$T/install.log" 2>&1; then
    not_ok "make install DESTDIR=..." "$(tail -20 "$T/install.log")"
    tap_done
fi
prefix=$(sed -n 's/^prefix=//p' "$B/pkg/heapreplay.pc")
R="$STAGE$prefix"
PC="pkg-config --define-variable=prefix=$R"
export PKG_CONFIG_PATH="$R/lib/pkgconfig"
libdir=$($PC --variable=libdir heapreplay 2> /dev/null)
want="$R/bin/heapreplay $libdir/libheapreplay-capture.so $R/include/heapreplay/annotate.h
$R/share/man/man1/heapreplay.1 $R/share/bash-completion/completions/heapreplay
$R/share/doc/heapreplay/TRACE_FORMAT.md $R/share/doc/heapreplay/README.md
$libdir/pkgconfig/heapreplay.pc $libdir/cmake/heapreplay/heapreplayConfig.cmake
$libdir/cmake/heapreplay/heapreplayConfigVersion.cmake"
missing=
for f in $want; do [ -f "$f" ] || missing="$missing ${f#"$STAGE"}"; done
extra=$(find "$R/include" -type f ! -name annotate.h)
if [ -z "$missing" ] && [ -z "$extra" ]; then
    ok "make install: binary, capture library, annotate.h only, man page, completion, docs, .pc, CMake package"
else
    not_ok "make install puts every file in place" "missing:$missing" "headers without a library: $extra"
fi

# The moved tree finds its own capture library (no HEAPREPLAY_CAPTURE_LIB).
# shellcheck disable=SC2046 # pkg-config's output is words
$CC -std=c11 -pedantic -Wall -Wextra -Werror $($PC --cflags --libs heapreplay) \
    "$S/tests/capture/pool_game.c" -o "$T/game_pc" 2> "$T/err"
rc=$?
if [ $rc = 0 ]; then ok "C: -std=c11 -pedantic -Wall -Wextra -Werror against the installed tree via pkg-config"
else not_ok "C via pkg-config" "$(head -5 "$T/err")"; fi
if command -v "$CXX" > /dev/null; then
    # shellcheck disable=SC2046 # pkg-config's output is words
    $CXX -std=c++11 -pedantic -Wall -Wextra -Werror $($PC --cflags --libs heapreplay) \
        "$S/tests/capture/annotate_game.cpp" -o "$T/game_pc_cxx" 2> "$T/err"
    if [ $? = 0 ]; then ok "C++: -std=c++11 -pedantic -Werror via pkg-config"
    else not_ok "C++ via pkg-config" "$(head -5 "$T/err")"; fi
else
    skip "C++ via pkg-config" "no C++ compiler"
fi
if [ -x "$T/game_pc" ]; then
    env -u HEAPREPLAY_CAPTURE_LIB "$R/bin/heapreplay" capture -o "$T/g.hrt" -- "$T/game_pc" \
        > /dev/null 2> "$T/cap.err"
    if [ $? = 0 ] && grep -q "^pools: Particles" "$T/cap.err"; then
        ok "the staged (moved) install finds its own capture library and captures the pools"
    else
        not_ok "the moved install finds its capture library" "$(cat "$T/cap.err")"
    fi
else
    skip "the moved install finds its capture library" "no program built"
fi

# CMake: find_package(heapreplay 0.1) -> heapreplay::annotate
if command -v cmake > /dev/null; then
    mkdir -p "$T/proj"
    cp "$S/tests/capture/pool_game.c" "$S/tests/capture/annotate_game.cpp" "$T/proj/"
    cat > "$T/proj/CMakeLists.txt" << 'EOF'
cmake_minimum_required(VERSION 3.13)
project(hr_consumer C CXX)
find_package(heapreplay 0.1 REQUIRED)
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS OFF)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_EXTENSIONS OFF)
add_compile_options(-pedantic -Wall -Wextra -Werror)
add_executable(game_c pool_game.c)
target_link_libraries(game_c PRIVATE heapreplay::annotate)
add_executable(game_cxx annotate_game.cpp)
target_link_libraries(game_cxx PRIVATE heapreplay::annotate)
if(NOT EXISTS "${heapreplay_EXECUTABLE}" OR NOT EXISTS "${heapreplay_CAPTURE_LIBRARY}")
  message(FATAL_ERROR "heapreplay_EXECUTABLE or heapreplay_CAPTURE_LIBRARY missing")
endif()
EOF
    if cmake -S "$T/proj" -B "$T/build" -DCMAKE_PREFIX_PATH="$R" > "$T/cmake.log" 2>&1 &&
       cmake --build "$T/build" > "$T/build.log" 2>&1 && [ -x "$T/build/game_c" ] && [ -x "$T/build/game_cxx" ]; then
        ok "CMake: find_package(heapreplay 0.1) + heapreplay::annotate builds C11 and C++17 with -pedantic -Werror"
    else
        not_ok "CMake consumer" "$(tail -15 "$T/cmake.log" "$T/build.log" 2> /dev/null)"
    fi
    cat > "$T/proj/CMakeLists.txt" << 'EOF'
cmake_minimum_required(VERSION 3.13)
project(hr_consumer2 C)
find_package(heapreplay 9.0 QUIET)
if(heapreplay_FOUND)
  message(FATAL_ERROR "version 9.0 accepted")
endif()
EOF
    if cmake -S "$T/proj" -B "$T/build2" -DCMAKE_PREFIX_PATH="$R" > "$T/cmake2.log" 2>&1; then
        ok "CMake: a newer version asked for is refused"
    else
        not_ok "CMake version check" "$(tail -5 "$T/cmake2.log")"
    fi
else
    skip "CMake consumer" "cmake not installed"
    skip "CMake version check" "cmake not installed"
fi

# man -l renders the installed page with no warning
if command -v man > /dev/null; then
    MANWIDTH=80 man --warnings -l "$R/share/man/man1/heapreplay.1" > "$T/man.txt" 2> "$T/man.err"
    if [ -s "$T/man.txt" ] && [ ! -s "$T/man.err" ] && grep -q "heapreplay replay" "$T/man.txt"; then
        ok "man --warnings -l heapreplay.1: no warning"
    else
        not_ok "man -l renders without warnings" "$(head -5 "$T/man.err")"
    fi
else
    skip "man -l renders without warnings" "man not installed"
fi

mk uninstall DESTDIR="$STAGE" > "$T/uninstall.log" 2>&1
left=$(find "$STAGE" -type f 2> /dev/null | sed "s|^$STAGE||")
if [ -z "$left" ]; then ok "make uninstall removes every installed file"
else not_ok "make uninstall removes every installed file" "$left"; fi
tap_done
