#!/usr/bin/env bash
# C++ call sites and routing plans as a game programmer reads them
# (docs/SITES.md): mangled names are printed demangled (libstdc++'s
# __cxa_demangle, found at run time), libstdc++'s container growth is passed
# over as a wrapper, a long name is shortened in text tables only, plan rules
# use the name without its argument list and are pruned to the sites that
# matter (--min-share), and a replay report of `replay --plan` names its rows
# plan+X / oracle+X, judges them against X alone (never "fallback") and shows
# the trace's call sites. Last, a C++ program (tests/progs/sites_cxx.cpp)
# captured with --stacks, when g++ is here.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup sitescxx jget
srcdir=${srcdir:-.}

# A level loader: 300 surfaces of 64 bytes made through operator new and
# freed in the next frame (Surface::from_file, surface.cpp:72), half of them
# on the way through vector growth (std::vector<int>::_M_realloc_insert, a
# wrapper), and 1 block from a helper (tiny_helper: 0.3 % of the blocks).
FROM=_ZN7Surface9from_fileERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE
GROW=_ZNSt6vectorIiSaIiEE17_M_realloc_insertIJRKiEEEvN9__gnu_cxx17__normal_iteratorIPiS1_EEDpOT_
{
    echo "heapreplay-trace 1"
    echo "at 1 f=malloc"
    echo "at 2 f=_Znwm"
    echo "at 3 f=$GROW"
    echo "at 4 f=$FROM file=src/video/surface.cpp line=72"
    echo "at 5 f=main file=src/main.cpp line=10"
    echo "at 6 f=tiny_helper file=src/util.c line=5"
    echo "stack 1 1,2,4,5"
    echo "stack 2 1,2,3,4,5"
    echo "stack 3 1,6,5"
    for i in $(seq 0 299); do echo "alloc $i 64 s=$((1 + i % 2))"; done
    echo "alloc 300 16 s=3"
    echo "free 300"
    echo "frame 1"
    for i in $(seq 0 299); do echo "free $i"; done
} > "$T/cxx.txt"

# 1. demangled names, wrappers, shortened text
"$HR" sites "$T/cxx.txt" -f csv > "$T/s.csv" 2> "$T/err"
if grep -q "no libstdc++.so.6" "$T/err"; then
    skip "demangled names" "no libstdc++.so.6 here: $(head -n 1 "$T/err")"
    skip "shortened text" "no libstdc++.so.6"
    skip "plan pattern" "no libstdc++.so.6"
else
    NAME="Surface::from_file(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) (surface.cpp:72)"
    if grep -qF "1,\"$NAME\",300," "$T/s.csv" && ! grep -q "_Z\|_M_realloc_insert" "$T/s.csv"; then
        ok "C++ names demangled; vector growth passed over: one site of 300 blocks"
    else not_ok "demangled sites" "$(cat "$T/s.csv" "$T/err")"; fi
    "$HR" sites "$T/cxx.txt" > "$T/s.txt"
    row=$(grep "^ *1  " "$T/s.txt")
    site=$(printf '%s\n' "$row" | sed 's/^ *1  //; s/  *300 .*//')
    if [ "${#site}" -le 60 ] && printf '%s' "$site" | grep -q "^Surface::from_file(.*\.\.\..*(surface.cpp:72)$"; then
        ok "text table: the long name shortened to ${#site} columns, its start and end kept"
    else not_ok "shortened name" "$row"; fi
    "$HR" plan "$T/cxx.txt" -o "$T/p.plan" > "$T/out" 2> "$T/err"
    if grep -qx "pool 64 Surface::from_file\*" "$T/p.plan" && grep -q "2 rules from 2 sites" "$T/out"; then
        ok "plan: the rule names the function without its arguments (Surface::from_file*)"
    else not_ok "plan pattern" "$(cat "$T/p.plan" "$T/out" "$T/err")"; fi
fi

# 2. pruning
"$HR" plan "$T/cxx.txt" -o "$T/all.plan" --min-share=0 > "$T/out0" 2> "$T/err"
"$HR" plan "$T/cxx.txt" -o "$T/big.plan" --min-share=1 > "$T/out1" 2>> "$T/err"
n0=$(grep -c "^frame-stack \|^pool \|^level " "$T/all.plan")
n1=$(grep -c "^frame-stack \|^pool \|^level " "$T/big.plan")
if [ "$n0" = 2 ] && [ "$n1" = 1 ] && grep -q "tiny_helper" "$T/all.plan" &&
    ! grep -q "tiny_helper" "$T/big.plan" &&
    grep -q "; 1 sites .* under 1 % .* (1 blocks, 16 bytes): left on the general allocator" "$T/out1"; then
    ok "--min-share=1: the site of 1 block stays general and the plan says so; 0 keeps it"
else not_ok "--min-share" "$n0 $n1 $(cat "$T/out0" "$T/out1" "$T/err")"; fi
"$HR" plan "$T/cxx.txt" -o "$T/x.plan" --min-share=abc > /dev/null 2> "$T/err"
if [ $? = 2 ] && grep -q "min-share expects a percentage" "$T/err"; then
    ok "--min-share=abc: exit 2 saying what was expected"
else not_ok "bad --min-share" "$(cat "$T/err")"; fi

# 3. the replay report of a plan
if nm "$HR" 2> /dev/null | grep -q __asan_init; then
    skip "replay --plan report" "ASan build: replay processes cannot run under AddressSanitizer"
else
    awk -f "$srcdir/tests/cli/sites_game.awk" > "$T/g.txt"
    "$HR" plan "$T/g.txt" -o "$T/g.plan" > /dev/null 2>&1
    "$HR" replay -q --plan="$T/g.plan" -a glibc -r 1 "$T/g.txt" -o "$T/g.json" > /dev/null 2> "$T/err"
    "$HR" report "$T/g.json" > "$T/r.txt" 2>> "$T/err"
    "$HR" report -f md "$T/g.json" > "$T/r.md" 2>> "$T/err"
    if grep -q "^[0-9-]  plan+glibc  " "$T/r.txt" && grep -q "^[0-9-]  oracle+glibc  " "$T/r.txt" &&
        ! grep "plan+glibc\|oracle+glibc" "$T/r.txt" | grep -q "fallback" &&
        grep -q "plan+glibc vs glibc alone: allocator time [+-][0-9.]* ms (cold lap), peak RSS" "$T/r.txt" &&
        grep -q "plan violations: 0 of " "$T/r.txt" &&
        "$JGET" results.1.allocator "$T/g.json" | grep -q "@site:frame-stack+.*+glibc$"; then
        ok "report: plan+glibc / oracle+glibc rows, not fallback, a line against glibc alone; the JSON keeps the spec"
    else not_ok "plan report" "$(cat "$T/err" "$T/r.txt")"; fi
    if grep -q "^Call sites (top 3 by blocks" "$T/r.txt" &&
        grep -q "^ *1  update_frame (game.c:88) .* frame stack" "$T/r.txt" &&
        grep -q "^### Call sites" "$T/r.md" && grep -q "| load_level (level.c:41) |" "$T/r.md"; then
        ok "report: the trace's call sites in text and Markdown"
    else not_ok "sites in report" "$(grep -A6 "Call sites" "$T/r.txt" "$T/r.md")"; fi
fi

# 4. a C++ program captured with --stacks
LIB="$top_builddir/.libs/libheapreplay-capture.so"
CXX=${CXX:-g++}
P="$srcdir/tests/progs/sites_cxx.cpp"
if [ ! -f "$LIB" ] || ! grep -q '^#define HAVE_LIBUNWIND 1' "$top_builddir/config.h" 2> /dev/null ||
    ! grep -q '^#define HAVE_LIBDW 1' "$top_builddir/config.h" 2> /dev/null; then
    skip "captured C++ program" "capture library, libunwind or libdw missing"
    tap_done
fi
if ! command -v "$CXX" > /dev/null 2>&1 ||
    ! "$CXX" -g -O0 -fno-omit-frame-pointer -o "$T/cxx" "$P" 2> "$T/err"; then
    skip "captured C++ program" "no C++ compiler ($CXX): $(head -n 1 "$T/err" 2> /dev/null)"
    tap_done
fi
line() { grep -n "SITE:$1" "$P" | cut -d: -f1; }
ABS_HR=$(cd "$top_builddir" && pwd)/heapreplay
(cd "$T" && "$ABS_HR" capture --stacks -o c.hrt -- ./cxx > /dev/null 2>&1)
"$HR" sites "$T/c.hrt" -f csv > "$T/c.csv" 2> "$T/err"
"$HR" plan "$T/c.hrt" -o "$T/c.plan" > /dev/null 2>> "$T/err"
if grep -q "^[0-9]*,Level::load(int) (sites_cxx.cpp:$(line load)),200,8800,.*,pool of 44 B cells$" "$T/c.csv" &&
    grep -q "^[0-9]*,Level::load(int) (sites_cxx.cpp:$(line grow))," "$T/c.csv" &&
    grep -q "^[0-9]*,Level::scratch(int) (sites_cxx.cpp:$(line scratch)),50,.*,frame stack$" "$T/c.csv" &&
    grep -qx "pool 44 Level::load\*" "$T/c.plan" && grep -qx "frame-stack Level::scratch\*" "$T/c.plan"; then
    ok "captured C++: qualified, demangled names at the lines that asked (new, push_back, std::string)"
else not_ok "captured C++" "$(cat "$T/c.csv" "$T/c.plan" "$T/err")"; fi
tap_done
