#!/usr/bin/env bash
# capture --stacks (docs/CAPTURE.md, "Call stacks"): tests/progs/stacks_prog.c
# (three allocating functions, one inlined function, and a module it dlopens
# with one more), built
# here with -g -O0 -fno-omit-frame-pointer, is captured with --stacks; after
# symbolizing, the trace's stacks name those functions at the lines marked
# SITE: in the sources, with main as their caller, each with its number of
# blocks; the inlined one is a frame of its own, marked inlined, before the
# function it was inlined into; the dlopen'ed module's frame resolves; --stacks=2 keeps 2 frames;
# a deleted module and a rebuilt one each give one note and keep their frames
# as module+0xOFF; the digest is the same with and without --stacks (stacks
# never change the events); threads and a fork child keep their stacks;
# heaptrack files of the same program and of CPython keep their stacks (the
# top 3 sites agree with heaptrack_print's); bad depths are usage errors.
# Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
B=$(cd "${top_builddir:-.}" && pwd)
S=$(cd "${top_srcdir:-.}" && pwd)
HR="$B/heapreplay"
DUMP="$B/tests/capture/hr_import_dump"
LIB="$B/.libs/libheapreplay-capture.so"
CC=${CC:-cc}
W=$(mktemp -d "${TMPDIR:-/tmp}/hrstacks.XXXXXX")
trap 'rm -rf "$W"' EXIT
if [ ! -x "$HR" ] || [ ! -x "$DUMP" ] || [ ! -f "$LIB" ]; then
    skip_all "heapreplay, the capture library or hr_import_dump not built"
fi
skip_all_if_asan "$HR" "the capture library preloaded into the test program"
grep -q '^#define HAVE_LIBUNWIND 1' "$B/config.h" 2>/dev/null ||
    skip_all "built without libunwind: capture --stacks is off"
grep -q '^#define HAVE_LIBDW 1' "$B/config.h" 2>/dev/null ||
    skip_all "built without libdw: stacks keep their addresses"
P="$S/tests/progs"
FLAGS="-g -O0 -fno-omit-frame-pointer"
$CC $FLAGS -o "$W/prog" "$P/stacks_prog.c" -ldl 2>"$W/cc.err" &&
    $CC $FLAGS -shared -fPIC -o "$W/libmod.so" "$P/stacks_mod.c" 2>>"$W/cc.err" ||
    skip_all "cannot build the test program with $CC: $(head -n 1 "$W/cc.err")"

line_of() { grep -n "$1" "$2" | cut -d: -f1; }
L_TEMP=$(line_of SITE:frame_temp "$P/stacks_prog.c")
L_ENT=$(line_of SITE:make_entity "$P/stacks_prog.c")
L_LEVEL=$(line_of SITE:load_level "$P/stacks_prog.c")
L_MOD=$(line_of SITE:module_alloc "$P/stacks_mod.c")
C_TEMP=$(line_of CALL:frame_temp "$P/stacks_prog.c")
C_ENT=$(line_of CALL:make_entity "$P/stacks_prog.c")
C_LEVEL=$(line_of CALL:load_level "$P/stacks_prog.c")
C_MOD=$(line_of CALL:module_alloc "$P/stacks_prog.c")
L_CELL=$(line_of SITE:pool_cell "$P/stacks_prog.c")
C_CELL=$(line_of CALL:pool_cell "$P/stacks_prog.c")

# stacks RAW: the --stacks lines of the dump, blocks of 40..70000 bytes
# (the program's own sizes; libc's and the loader's are mostly outside).
stacks() { "$DUMP" "$1" --min 40 --max 70000 --stacks; }
# blocks_at OUT FRAME0: blocks of the stacks whose innermost frame is FRAME0
blocks_at() { awk -v f="$2" '$1 == "stack" && $3 == f { n += $2 } END { print n + 0 }' "$1"; }
# expect_site NAME OUT FRAME0 CALLER BLOCKS: every stack of FRAME0 has CALLER
# as its second frame, and they made BLOCKS blocks
expect_site() {
    local got callers
    got=$(blocks_at "$2" "$3")
    callers=$(awk -v f="$3" '$1 == "stack" && $3 == f { print $4 }' "$2" | sort -u)
    if [ "$got" = "$5" ] && [ "$callers" = "$4" ]; then ok "$1"
    else not_ok "$1" "expected $5 blocks at $3 called from $4, got $got from '$callers'" \
        "$(grep '^stack' "$2" | head -n 8)"; fi
}

cd "$W" || exit 1
"$HR" capture --stacks --keep-raw -o "$W/t.hrt" -- ./prog ./libmod.so >"$W/cap.out" 2>&1
rc=$?
if [ $rc != 0 ] || [ ! -f "$W/t.hrt.raw" ]; then
    not_ok "capture --stacks of the test program (exit $rc)" "$(tail -n 5 "$W/cap.out")"
    tap_done
fi
stacks "$W/t.hrt.raw" >"$W/s.out"
expect_site "the per-frame temporaries: frame_temp at its line, from main" "$W/s.out" \
    "frame_temp@stacks_prog.c:$L_TEMP" "main@stacks_prog.c:$C_TEMP" 400
expect_site "the entities: make_entity at its line, from main" "$W/s.out" \
    "make_entity@stacks_prog.c:$L_ENT" "main@stacks_prog.c:$C_ENT" 64
expect_site "the level data: load_level at its line, from main" "$W/s.out" \
    "load_level@stacks_prog.c:$L_LEVEL" "main@stacks_prog.c:$C_LEVEL" 1
expect_site "an inlined call: the inlined function at its line, then the function it is in" \
    "$W/s.out" "pool_cell@stacks_prog.c:$L_CELL[inl]" "make_cell@stacks_prog.c:$C_CELL" 8
expect_site "the dlopen'ed module's frame resolves (module_alloc at its line)" "$W/s.out" \
    "module_alloc@stacks_mod.c:$L_MOD" "main@stacks_prog.c:$C_MOD" 10
if grep -q '^stacks: [1-9][0-9]* unique stacks of .* frames from [1-9][0-9]* modules; symbols: [1-9]' \
    "$W/cap.out"; then ok "the capture summary counts stacks, modules and named frames"
else not_ok "the capture summary counts stacks, modules and named frames" "$(cat "$W/cap.out")"; fi

# --stacks=2: no stack deeper than 2 return addresses (an inlined frame
# shares its return address with the next frame)
"$HR" capture --stacks=2 --keep-raw -o "$W/d.hrt" -- ./prog >/dev/null 2>&1
deep=$(stacks "$W/d.hrt.raw" | awk '$1 == "stack" { n = 0; for (i = 3; i <= NF; i++) n += $i !~ /\[inl\]$/
    if (n > 2) print }' | wc -l)
n2=$(stacks "$W/d.hrt.raw" | grep -c '^stack .* main@')
if [ "$deep" = 0 ] && [ "$n2" -ge 3 ]; then ok "--stacks=2 keeps 2 frames (the function and main)"
else not_ok "--stacks=2 keeps 2 frames" "deeper stacks: $deep, stacks ending in main: $n2"; fi

# the same log read after the module was rebuilt, then deleted: one note
# each, its frames keep their address, the program's frames still resolve
$CC $FLAGS -DREBUILT=1 -shared -fPIC -o "$W/libmod.so" "$P/stacks_mod.c" -Wl,--build-id=sha1 \
    -Wl,-soname,rebuilt 2>/dev/null
stacks "$W/t.hrt.raw" >"$W/r.out"
notes=$(grep -c "^symbols: .*libmod.so: build id [0-9a-f]*, the captured process had" "$W/r.out")
off=$(blocks_at "$W/r.out" "$(awk '$1 == "stack" && $3 ~ /^libmod.so\+0x/ { print $3; exit }' "$W/r.out")")
if [ "$notes" = 1 ] && [ "$off" = 10 ] && [ "$(blocks_at "$W/r.out" "make_entity@stacks_prog.c:$L_ENT")" = 64 ]
then ok "a rebuilt module: one build-id note, its frames stay module+0xOFF"
else not_ok "a rebuilt module: one build-id note, its frames stay module+0xOFF" \
    "notes $notes, module+0xOFF blocks $off" "$(grep -v '^stack' "$W/r.out" | grep symbols)"; fi
rm -f "$W/libmod.so"
stacks "$W/t.hrt.raw" >"$W/m.out"
notes=$(grep -c "^symbols: .*libmod.so: cannot open" "$W/m.out")
off=$(awk '$1 == "stack" && $3 ~ /^libmod.so\+0x[0-9a-f]+$/ { n += $2 } END { print n + 0 }' "$W/m.out")
if [ "$notes" = 1 ] && [ "$off" = 10 ] && [ "$(blocks_at "$W/m.out" "load_level@stacks_prog.c:$L_LEVEL")" = 1 ]
then ok "a deleted module: one note, no failure, its frames stay module+0xOFF"
else not_ok "a deleted module: one note, no failure, its frames stay module+0xOFF" \
    "notes $notes, module+0xOFF blocks $off" "$(grep -v '^stack' "$W/m.out" | tail -n 5)"; fi

# stacks never change the events: the same digest with and without
$CC $FLAGS -o "$W/prog" "$P/stacks_prog.c" -ldl 2>/dev/null
"$HR" capture --no-timestamps -o "$W/a.hrt" -- ./prog >/dev/null 2>&1
"$HR" capture --no-timestamps --stacks -o "$W/b.hrt" -- ./prog >/dev/null 2>&1
da=$("$HR" info "$W/a.hrt" 2>/dev/null | awk '$1 == "digest" { print $2 }')
db=$("$HR" info "$W/b.hrt" 2>/dev/null | awk '$1 == "digest" { print $2 }')
if [ -n "$da" ] && [ "$da" = "$db" ]; then ok "the same digest with and without --stacks"
else not_ok "the same digest with and without --stacks" "without: '$da', with: '$db'"; fi
if [ "$("$DUMP" "$W/a.hrt" --trace --stacks 2>/dev/null | grep -c '^stack ')" = 0 ] &&
    ! grep -q "^stacks:" <("$HR" capture -o "$W/c.hrt" -- ./prog 2>&1 >/dev/null)
then ok "without --stacks: no stacks, no stacks line in the summary"
else not_ok "without --stacks: no stacks, no stacks line in the summary"; fi

# threads and a fork child (tests/capture: the capture tests' programs)
T="$B/tests/capture"
if [ -x "$T/cap_threads" ]; then
    "$HR" capture --stacks --keep-raw -o "$W/th.hrt" -- "$T/cap_threads" >/dev/null 2>&1
    "$DUMP" "$W/th.hrt.raw" --min 20000 --max 24000 --stacks >"$W/th.out"
    n=$(awk '$1 == "stack" && $3 ~ /^run@cap_threads.c:/ { n += $2 } END { print n + 0 }' "$W/th.out")
    if grep -q "^f_alloc 4000$" "$W/th.out" && [ "$n" = 4000 ]; then
        ok "4 threads: every block of the threads has its stack (run in cap_threads.c)"
    else not_ok "4 threads: every block has its stack" "$n of 4000" "$(grep '^stack' "$W/th.out" | head -3)"; fi
else skip "4 threads: every block has its stack" "cap_threads not built"; fi
if [ -x "$T/cap_fork" ]; then
    "$HR" capture --stacks -f --keep-raw -o "$W/fk.hrt" -- "$T/cap_fork" >/dev/null 2>&1
    child=$(ls "$W"/fk.hrt.raw.* 2>/dev/null | head -n 1)
    n=$([ -n "$child" ] && "$DUMP" "$child" --min 31000 --max 32000 --stacks |
        awk '$1 == "stack" && $3 ~ /^main@cap_fork.c:/ { n += $2 } END { print n + 0 }')
    if [ "$n" = 5 ]; then ok "a fork child's log defines its own stacks (5 blocks at main)"
    else not_ok "a fork child's log defines its own stacks" "got '$n' blocks at main"; fi
else skip "a fork child's log defines its own stacks" "cap_fork not built"; fi

# heaptrack's stacks survive `convert`'s import: its own report's top 3
# allocation sites (most calls) are ours, in the same order, grouping our
# stacks by their innermost frame's function. heaptrack_print counts all
# the addresses without a symbol of one module as one site (shown as its
# first address): both sides count them as one "unresolved" site here.
# top3_heaptrack FILE.zst / top3_ours FILE.zst: "NAME CALLS" lines
top3_heaptrack() {
    heaptrack_print "$1" 2>/dev/null | awk '/^MOST CALLS TO ALLOCATION FUNCTIONS/ { f = 1; next }
        f && / calls to allocation functions with / { c = $1; getline
            print ($1 ~ /^0x/ ? "unresolved" : $1), c; if (++n == 3) exit }'
}
top3_ours() {
    "$DUMP" "$1" --stacks | awk '$1 == "stack" { split($3, a, "@")
            c[a[1] ~ /^0x/ ? "unresolved" : a[1]] += $2 }
        END { for (k in c) print k, c[k] }' | sort -k2,2nr -k1,1 | head -n 3
}
# same_top3 NAME FILE.zst: the same names in the same order, calls within 1 %
same_top3() {
    local h o
    h=$(top3_heaptrack "$2")
    o=$(top3_ours "$2")
    if [ "$(echo "$h" | wc -l)" = 3 ] && paste -d' ' <(echo "$h") <(echo "$o") |
        awk '$1 != $3 || $4 < $2 * 0.99 || $4 > $2 * 1.01 { bad = 1 } END { exit bad }'
    then ok "$1"
    else not_ok "$1" "heaptrack_print:" "$h" "ours:" "$o"; fi
}
if command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null; then
    $CC $FLAGS -shared -fPIC -o "$W/libmod.so" "$P/stacks_mod.c" 2>/dev/null
    heaptrack -o "$W/ht" ./prog ./libmod.so >/dev/null 2>&1
    ht=$(ls "$W"/ht.* 2>/dev/null | head -n 1)
    if [ -n "$ht" ]; then
        same_top3 "heaptrack import of the test program: the top 3 sites of heaptrack_print" "$ht"
        "$DUMP" "$ht" --min 40 --max 70000 --stacks >"$W/hs.out"
        expect_site "heaptrack import: heaptrack's frames, make_entity at its line, from main"             "$W/hs.out" "make_entity@stacks_prog.c:$L_ENT" "main@stacks_prog.c:$C_ENT" 64
    else not_ok "heaptrack import of the test program (heaptrack wrote no file)"; fi
    PY=$(readlink -f /usr/bin/python3 2>/dev/null)
    if [ -x "$PY" ] && [ -f "$S/traces/real/python_json.py" ]; then
        heaptrack -o "$W/py" "$PY" "$S/traces/real/python_json.py" >/dev/null 2>&1
        py=$(ls "$W"/py.* 2>/dev/null | head -n 1)
        if [ -n "$py" ]; then same_top3 "heaptrack import of CPython on python_json.py: the top 3 \
sites of heaptrack_print" "$py"
        else not_ok "heaptrack import of CPython (heaptrack wrote no file)"; fi
    else skip "heaptrack import of CPython" "no /usr/bin/python3"; fi
else
    skip "heaptrack import: the top 3 sites of heaptrack_print" "heaptrack not installed"
fi

# bad depths
for bad in 0 129 x; do
    "$HR" capture --stacks=$bad -o "$W/x.hrt" -- ./prog >"$W/bad.out" 2>&1
    rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$W/bad.out")" = 1 ] && grep -q "stacks" "$W/bad.out"; then
        ok "--stacks=$bad: one-line usage error, exit 2"
    else not_ok "--stacks=$bad: one-line usage error, exit 2" "exit $rc" "$(cat "$W/bad.out")"; fi
done
tap_done
