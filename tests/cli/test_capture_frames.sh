#!/usr/bin/env bash
# capture --frames without a display (docs/CAPTURE.md, "Frames without
# annotation"): tests/capture/cap_frames presents through a stand-in for
# libSDL2/libGL (tests/capture/libcapfake.so). Checks the frame marks'
# number, source and place between the program's allocations, the nested
# present call (one frame), the arguments and return value passed through,
# --frames=none and =NAME, a library loaded with dlopen(RTLD_LOCAL), a program that marks its own frames (no frame
# counted twice), info's frame sources, the error for an unknown name, and
# that a program that never presents captures the same trace as with
# --frames=none. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
B=${top_builddir:-.}
HR="$B/heapreplay"
P="$B/tests/capture/cap_frames"
W=$(mktemp -d "${TMPDIR:-/tmp}/hrfrm.XXXXXX")
trap 'rm -rf "$W"' EXIT
N=5

# cap NAME ARGS...: capture (text trace, no timestamps) to $W/NAME.txt, summary
# in $W/NAME.sum; the status in rc.
cap() {
    local name=$1; shift
    "$HR" capture --no-timestamps -o "$W/$name.txt" --summary "$W/$name.sum" "$@" \
        > "$W/$name.out" 2>&1
    rc=$?
}
# places NAME: the program's own allocations (1001..1000+N), the stand-in's
# (555 in SDL_GL_SwapWindow, 777 in glXSwapBuffers), marks and frames, in
# trace order, one per line.
places() {
    awk -v n="$N" '($1 == "alloc" && (($3 > 1000 && $3 <= 1000 + n) || $3 == 555 || $3 == 777)) {
        print "alloc " $3 } $1 == "mark" || $1 == "frame"' "$W/$1.txt"
}
# expect SRC...: the places of N rounds, round i presenting with SRC[i % #SRC]
# (sdl: SDL_GL_SwapWindow, which allocates 555 and calls glXSwapBuffers; glx:
# glXSwapBuffers, which allocates 777; own: SDL_GL_SwapWindow then hr_frame).
expect() {
    local i src srcs=("$@")
    for i in $(seq 1 "$N"); do
        src=${srcs[$(( (i - 1) % ${#srcs[@]} ))]}
        echo "alloc $((1000 + i))"
        case $src in
        sdl) printf 'alloc 555\nalloc 777\nmark frame-by:SDL_GL_SwapWindow\n' ;;
        sdl-glx) printf 'alloc 555\nalloc 777\nmark frame-by:glXSwapBuffers\n' ;;
        glx) printf 'alloc 777\nmark frame-by:glXSwapBuffers\n' ;;
        own) printf 'alloc 555\nalloc 777\n' ;;
        esac
        echo "frame $i"
    done
}
# same NAME WHAT EXPECTED...: the places of NAME are the expected ones.
same() {
    local name=$1 what=$2; shift 2
    if [ "$rc" = 0 ] && [ "$(places "$name")" = "$(expect "$@")" ]; then ok "$what"; else
        not_ok "$what"; echo "# rc $rc"; diff <(expect "$@") <(places "$name") | sed 's/^/#   /'
        sed 's/^/#   /' "$W/$name.out" "$W/$name.sum"; fi
}
has() { # has NAME WHAT LINE: the summary has LINE
    if grep -qxF -- "$3" "$W/$1.sum"; then ok "$2"; else
        not_ok "$2"; echo "# expected: $3"; sed 's/^/#   /' "$W/$1.sum"; fi
}

cap sdl -- "$P" sdl "$N"
same sdl "SDL_GL_SwapWindow: one frame per call, after its allocations, before the next round's" sdl
has sdl "summary: frames by SDL_GL_SwapWindow" "frames: $N ($N by SDL_GL_SwapWindow)"
cap glx -- "$P" glx "$N"
same glx "glXSwapBuffers: one frame per call (arguments and return value passed through)" glx
cap mixed -- "$P" mixed "$N"
same mixed "SDL_GL_SwapWindow and glXSwapBuffers in turn, each named" sdl glx
has mixed "summary: frames of both functions" "frames: $N (3 by SDL_GL_SwapWindow, 2 by glXSwapBuffers)"
cap none --frames=none -- "$P" sdl "$N"
if [ "$rc" = 0 ] && ! grep -q '^frame\|^mark' "$W/none.txt" && grep -qx "frames: 0 (none)" "$W/none.sum"
then ok "--frames=none: no frame marks"; else not_ok "--frames=none"; sed 's/^/#   /' "$W/none.sum"; fi
cap glxonly --frames=glXSwapBuffers -- "$P" sdl "$N"
same glxonly "--frames=glXSwapBuffers: the call inside SDL_GL_SwapWindow is the frame" sdl-glx
cap own -- "$P" annot "$N"
same own "a program that marks its own frames: hr_frame's only, numbered from 1" own
has own "summary: frames by hr_frame" "frames: $N ($N by hr_frame)"
if grep -q "^dropped: 1 frame marks found at present functions" "$W/own.sum"; then
    ok "summary: the automatic mark before the first hr_frame is dropped and counted"; else
    not_ok "summary: dropped automatic marks"; sed 's/^/#   /' "$W/own.sum"; fi

# the present functions in a library loaded with dlopen(RTLD_LOCAL): the
# wrapper finds them outside the global scope (their allocations are there)
cap dl -- "$B/tests/capture/cap_frames_dl" "$(cd "$B/tests/capture" && pwd)/libcapfake.so" "$N"
same dl "present functions in a dlopen(RTLD_LOCAL) library: reached and marked" sdl

# info: the frame sources, in text and JSON; no frame-by name among the marks
"$HR" convert "$W/mixed.txt" -o "$W/mixed.hrt" > /dev/null 2>&1
line=$("$HR" info "$W/mixed.hrt" | sed -n 's/^  frame sources *//p')
json=$("$HR" info --json "$W/mixed.hrt" | tr -d ' \n')
if [ "$line" = "3 by SDL_GL_SwapWindow, 2 by glXSwapBuffers" ] &&
    echo "$json" | grep -q '"frames_by":{"SDL_GL_SwapWindow":3,"glXSwapBuffers":2}' &&
    echo "$json" | grep -q '"marks":\[\]'; then ok "info: frame sources"; else
    not_ok "info: frame sources"; echo "# $line"; echo "$json" | sed 's/^/#   /'; fi

# an unknown name: one line, exit 2, nothing run
"$HR" capture --frames=SDL_GL_SwapWindow,glSwap -o "$W/bad.hrt" -- "$P" sdl 1 > "$W/bad.out" 2>&1
rc=$?
if [ $rc = 2 ] && [ "$(wc -l < "$W/bad.out")" = 1 ] && grep -q "'glSwap' is not a function" "$W/bad.out" &&
    [ ! -e "$W/bad.hrt" ]; then ok "--frames with an unknown name: exit 2, one line"; else
    not_ok "--frames unknown name (rc $rc)"; sed 's/^/#   /' "$W/bad.out"; fi

# a program that never presents: the same events with and without --frames
# (digests of traces without timestamps), and no frames
C="$B/tests/capture/cap_single"
"$HR" capture --no-timestamps -o "$W/q_auto.hrt" -- "$C" > /dev/null 2>&1
"$HR" capture --no-timestamps --frames=none -o "$W/q_none.hrt" -- "$C" > /dev/null 2>&1
"$HR" info "$W/q_auto.hrt" > "$W/q_auto.info" 2>&1
"$HR" info "$W/q_none.hrt" > "$W/q_none.info" 2>&1
v() { awk -v k="$1" '$1 == k { print $2 }' "$W/$2.info"; }
if [ -n "$(v digest q_auto)" ] && [ "$(v digest q_auto)" = "$(v digest q_none)" ] &&
    [ "$(v events q_auto)" -gt 0 ] && [ "$(v frames q_auto)" = 0 ]; then
    ok "a program that never presents: the same trace as with --frames=none ($(v events q_auto) events, no frames)"
else not_ok "a program that never presents"; sed 's/^/#   /' "$W/q_auto.info" "$W/q_none.info"; fi

# the committed game trace (traces/README.md): frames found at SDL_GL_SwapWindow
# only, and the program time of its runs without the library
S=${srcdir:-.}
"$HR" info "$S/traces/real/supertux.hrt" > "$W/game.info" 2>&1
if [ "$(v frames game)" -gt 0 ] &&
    grep -qx "  frame sources   $(v frames game) by SDL_GL_SwapWindow" "$W/game.info" &&
    grep -q "^  program .*median of .* without the capture library" "$W/game.info"; then
    ok "traces/real/supertux.hrt: $(v frames game) frames, all by SDL_GL_SwapWindow, program time"
else not_ok "traces/real/supertux.hrt"; sed 's/^/#   /' "$W/game.info"; fi
tap_done
