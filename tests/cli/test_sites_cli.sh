#!/usr/bin/env bash
# Call sites (docs/SITES.md): a trace with three known sites (sites_game.awk:
# per-frame temporaries freed LIFO, fixed-size entities, level data) keeps its
# stacks through both formats without changing its digest; `sites` names the
# three functions and lines, classes each and recommends frame stack, pool
# and level heap; `plan` routes them so; `replay --plan` reports 0 violations
# on it and the temporaries' violations on a variant that leaks them into the
# next frame. Then the same with a real program (tests/progs/sites_game.c)
# captured with --stacks: the functions and their source lines are named.
# Stack-less traces are written as before.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup sites jget
srcdir=${srcdir:-.}
awk -f "$srcdir/tests/cli/sites_game.awk" > "$T/g.txt"
awk -v LEAK=1 -f "$srcdir/tests/cli/sites_game.awk" > "$T/leak.txt"

# 1. the format
"$HR" convert "$T/g.txt" -o "$T/g.hrt" > /dev/null && "$HR" convert "$T/g.hrt" -o "$T/g2.txt" > /dev/null
check "stacks: text -> binary -> text is identical" cmp -s "$T/g.txt" "$T/g2.txt"
minor=$(od -An -tu2 -j10 -N2 "$T/g.hrt" | tr -d ' ')
grep -v '^at \|^stack ' "$T/g.txt" | sed 's/ s=[0-9]*//' > "$T/plain.txt"
d1=$("$HR" info "$T/g.hrt" | awk '/digest/ {print $2}')
d2=$("$HR" info "$T/plain.txt" | awk '/digest/ {print $2}')
if [ "$minor" = 5 ] && [ -n "$d1" ] && [ "$d1" = "$d2" ]; then
    ok "format 1.5 with stacks; the digest is the stack-less trace's ($d1)"
else not_ok "format minor and digest" "minor $minor digest $d1 vs $d2"; fi
"$HR" convert "$srcdir/traces/frame_loop.hrt" -o "$T/fl.hrt" > /dev/null
check "a trace without stacks is written byte for byte as before" \
    cmp -s "$T/fl.hrt" "$srcdir/traces/frame_loop.hrt"
printf 'heapreplay-trace 1\nat 1 f=x\nstack 1 1\nalloc 0 8\nfree 0 s=1\n' > "$T/bad.txt"
"$HR" info "$T/bad.txt" > /dev/null 2> "$T/err"
if [ $? = 2 ] && grep -q "bad.txt:5: s=STACK on 'free'" "$T/err"; then
    ok "a stack on a free is exit 2 naming the line"
else not_ok "s= on a free" "$(cat "$T/err")"; fi

# 2. the sites
"$HR" sites "$T/g.hrt" --format=csv > "$T/sites.csv" 2> "$T/err"
row() { grep "^[0-9]*,$1" "$T/sites.csv"; }
if row "update_frame (game.c:88)" | grep -q ",150,.*,same-frame-lifo,1.00,frame stack$" &&
    row "spawn_entity (entity.c:17)" | grep -q ",60,2880,.*,48,.*,pool of 48 B cells$" &&
    row "load_level (level.c:41)" | grep -q ",20,48500,48500,.*,long,1.00,level heap$"; then
    ok "sites names the three functions and lines, classes and advises each"
else not_ok "sites table" "$(cat "$T/sites.csv" "$T/err")"; fi
"$HR" sites "$T/g.hrt" --format=folded --weight=bytes > "$T/folded"
if grep -qx "main;update_frame;malloc 14880" "$T/folded" && [ "$(wc -l < "$T/folded")" = 3 ]; then
    ok "folded stacks, outermost first, weighted by bytes"
else not_ok "folded stacks" "$(cat "$T/folded")"; fi
"$HR" sites "$T/g.hrt" --skip= --format=csv > "$T/noskip.csv"
check "--skip= passes over no wrapper: one site, malloc" \
    test "$(grep -c '^[0-9]*,malloc,230,' "$T/noskip.csv")" = 1
"$HR" sites "$T/g.hrt" --format=html -o "$T/s.html"
if grep -q "<svg" "$T/s.html" && grep -q "update_frame (game.c:88)" "$T/s.html" &&
    ! grep -qi "<script" "$T/s.html"; then
    ok "the HTML page: the table and a flame graph in SVG, no script"
else not_ok "HTML page" "$(head -c 400 "$T/s.html")"; fi
"$HR" sites "$T/plain.txt" > /dev/null 2> "$T/err"
if [ $? = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "plain.txt: the trace has no stacks" "$T/err"; then
    ok "sites of a trace without stacks: exit 2, one line"
else not_ok "sites without stacks" "$(cat "$T/err")"; fi

# 3. the plan
"$HR" plan "$T/g.hrt" -o "$T/g.plan" > /dev/null 2> "$T/err"
if grep -qx "frame-stack update_frame" "$T/g.plan" && grep -qx "pool 48 spawn_entity" "$T/g.plan" &&
    grep -qx "level load_level" "$T/g.plan"; then
    ok "plan routes the three sites to frame stack, pool and level heap"
else not_ok "plan" "$(cat "$T/g.plan" "$T/err")"; fi
printf 'heapreplay-plan 1\nheap 3 x\n' > "$T/bad.plan"
"$HR" replay --plan="$T/bad.plan" -a glibc "$T/g.hrt" > /dev/null 2> "$T/err"
if [ $? = 2 ] && grep -q "bad.plan:2: expected 'frame-stack PATTERN'" "$T/err"; then
    ok "a bad plan line is exit 2 naming file and line"
else not_ok "bad plan" "$(cat "$T/err")"; fi

# 4. replay --plan
if nm "$HR" 2> /dev/null | grep -q __asan_init; then
    skip "replay --plan" "ASan build: replay processes cannot run under AddressSanitizer"
    skip "replay --plan, leak variant" "ASan build"
    tap_done
fi
"$HR" replay -q --plan="$T/g.plan" -a glibc -r 1 "$T/g.hrt" -o "$T/g.json" > /dev/null 2> "$T/err"
viol=0
for k in 0 1 2; do
    v=$("$JGET" "results.1.routing.rules.$k.violations" "$T/g.json")
    viol=$((viol + ${v:-1}))
done
if [ "$("$JGET" results.0.allocator "$T/g.json")" = glibc ] &&
    "$JGET" results.1.allocator "$T/g.json" | grep -q "@site:frame-stack+.*+glibc$" &&
    [ "$("$JGET" results.2.allocator "$T/g.json")" = "stack+marker+bank+glibc" ] &&
    [ "$viol" = 0 ] && [ "$("$JGET" results.1.routing.rules.0.routed "$T/g.json")" = 150 ]; then
    ok "replay --plan: the allocator alone, behind the plan, the oracle; 0 violations"
else not_ok "replay --plan" "$(cat "$T/err"; "$JGET" results.1.routing "$T/g.json")"; fi
"$HR" replay --plan="$T/g.plan" -a glibc -r 1 "$T/leak.txt" -o "$T/l.json" > /dev/null 2> "$T/err"
if [ "$("$JGET" results.1.routing.rules.0.pattern "$T/l.json")" = update_frame ] &&
    [ "$("$JGET" results.1.routing.rules.0.violations "$T/l.json")" = 30 ] &&
    [ "$("$JGET" results.1.routing.rules.0.outlived_frame "$T/l.json")" = 29 ] &&
    [ "$("$JGET" results.1.routing.rules.1.violations "$T/l.json")" = 0 ] &&
    grep -q "update_frame .* 30 violations (outlived frame 29" "$T/err"; then
    ok "leaked temporaries: violations at their site, on stderr and in the report"
else not_ok "leak variant" "$(cat "$T/err"; "$JGET" results.1.routing "$T/l.json")"; fi

# 5. a real program captured with --stacks
LIB="$top_builddir/.libs/libheapreplay-capture.so"
CC=${CC:-cc}
P="$srcdir/tests/progs/sites_game.c"
if [ ! -f "$LIB" ] || ! grep -q '^#define HAVE_LIBUNWIND 1' "$top_builddir/config.h" 2> /dev/null ||
    ! grep -q '^#define HAVE_LIBDW 1' "$top_builddir/config.h" 2> /dev/null; then
    skip "captured program" "capture library, libunwind or libdw missing"
    tap_done
fi
if ! $CC -g -O0 -fno-omit-frame-pointer -I"$srcdir/include" -o "$T/game" "$P" -ldl 2> "$T/err"; then
    skip "captured program" "cannot build sites_game.c: $(head -n 1 "$T/err")"
    tap_done
fi
line() { grep -n "SITE:$1" "$P" | cut -d: -f1; }
ABS_HR=$(cd "$top_builddir" && pwd)/heapreplay
(cd "$T" && "$ABS_HR" capture --stacks -o cap.hrt -- ./game > /dev/null 2>&1 &&
    "$ABS_HR" capture --stacks -o capleak.hrt -- ./game leak > /dev/null 2>&1)
"$HR" sites "$T/cap.hrt" -f csv > "$T/cap.csv" 2> "$T/err"
if grep -q "^[0-9]*,frame_temp (sites_game.c:$(line frame_temp)),200,.*,same-frame-lifo,1.00,frame stack$" "$T/cap.csv" &&
    grep -q "^[0-9]*,spawn_entity (sites_game.c:$(line spawn_entity)),80,3840,.*,pool of 48 B cells$" "$T/cap.csv" &&
    grep -q "^[0-9]*,load_level (sites_game.c:$(line load_level)),20,48500,48500,.*,long,1.00,level heap$" "$T/cap.csv"; then
    ok "captured with --stacks: sites names the three functions at their lines, classed and advised"
else not_ok "captured sites" "$(cat "$T/cap.csv" "$T/err")"; fi
"$HR" plan "$T/cap.hrt" -o "$T/cap.plan" > /dev/null 2> "$T/err"
"$HR" replay -q --plan="$T/cap.plan" -a glibc -r 1 "$T/cap.hrt" -o "$T/c.json" > /dev/null 2>> "$T/err"
"$HR" replay -q --plan="$T/cap.plan" -a glibc -r 1 "$T/capleak.hrt" -o "$T/cl.json" > /dev/null 2>> "$T/err"
# rule: the violations of the plan's rule for FUNCTION in report FILE
rule() {
    local k=0 p
    while p=$("$JGET" "results.1.routing.rules.$k.pattern" "$2") && [ "$p" != null ]; do
        [ "$p" = "$1" ] && { "$JGET" "results.1.routing.rules.$k.violations" "$2"; return; }
        k=$((k + 1))
    done
    echo missing
}
if grep -qx "frame-stack frame_temp" "$T/cap.plan" && grep -qx "pool 48 spawn_entity" "$T/cap.plan" &&
    grep -qx "level load_level" "$T/cap.plan" &&
    [ "$(rule frame_temp "$T/c.json")/$(rule spawn_entity "$T/c.json")/$(rule load_level "$T/c.json")" = 0/0/0 ] &&
    [ "$(rule frame_temp "$T/cl.json")" = 40 ] && [ "$(rule spawn_entity "$T/cl.json")" = 0 ] &&
    [ "$("$JGET" results.0.sites.0.advice "$T/c.json")" = "frame stack" ] &&
    "$JGET" results.0.sites.0.site "$T/c.json" | grep -q "^frame_temp (sites_game.c:"; then
    ok "captured: the report lists the sites; the plan routes them with 0 violations, 40 at frame_temp when it leaks"
else not_ok "captured plan" "$(cat "$T/cap.plan" "$T/err"; rule frame_temp "$T/cl.json")"; fi
tap_done
