#!/usr/bin/env bash
# Custom-allocator events (and named frame streams): a game with its own pools (tests/capture/
# pool_game.c, annotated with hr_alloc_named & co.) is captured; its pools
# appear by name and count in the capture summary, `info` and the replay
# report; replay runs them as plain malloc by default and routes one to an
# in-house allocator with --pool NAME=ALLOC. Also the trace format: pool ops
# round-trip text <-> binary, a 1.2 file cannot hold them, validation keeps
# pool and malloc blocks apart.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup pools jget
srcdir=${srcdir:-.}
LIB="$top_builddir/.libs/libheapreplay-capture.so"
CC=${CC:-cc}

# 1. the trace format (hand-written text trace)
cat > "$T/p.txt" << 'SRC'
heapreplay-trace 1
alloc 0 4096
palloc 1 64 Particles
palloc 2 32 Nodes
prealloc 1 3 128
pfree 3 Particles
pfree 2 Nodes
free 0
SRC
"$HR" convert "$T/p.txt" -o "$T/p.hrt" > /dev/null && "$HR" convert "$T/p.hrt" -o "$T/p2.txt" > /dev/null
check "pool ops: text -> binary -> text is identical" cmp -s "$T/p.txt" "$T/p2.txt"
minor=$(od -An -tu2 -j10 -N2 "$T/p.hrt" | tr -d ' ')
"$HR" convert "$srcdir/traces/frame_loop.hrt" -o "$T/fl.hrt" > /dev/null
if [ "$minor" = 3 ] && cmp -s "$T/fl.hrt" "$srcdir/traces/frame_loop.hrt"; then
    ok "format 1.3 only with pool ops; a trace without them is written as before (1.2)"
else
    not_ok "format minor version" "minor $minor"
fi
printf 'heapreplay-trace 1\npalloc 0 64 P\nfree 0\n' > "$T/bad1.txt"
"$HR" info "$T/bad1.txt" > /dev/null 2> "$T/err"
if [ $? = 2 ] && grep -q "bad1.txt:3: event 1 (free): id 0 is a block of pool 'P' (expected pfree)" "$T/err"; then
    ok "validation: free of a pool block is exit 2 naming the line"
else not_ok "validation: free of a pool block" "$(cat "$T/err")"; fi
printf 'heapreplay-trace 1\npalloc 0 64 P\npfree 0 Q\n' > "$T/bad2.txt"
"$HR" info "$T/bad2.txt" > /dev/null 2> "$T/err"
if [ $? = 2 ] && grep -q "id 0 is a block of pool 'P', not of pool 'Q'" "$T/err"; then
    ok "validation: pfree naming another pool is exit 2"
else not_ok "validation: pfree naming another pool" "$(cat "$T/err")"; fi

# 2. a captured game with three pools
if [ ! -f "$LIB" ]; then
    skip "pool game captured" "capture library not built"
    tap_done
fi
if ! $CC -std=c11 -pedantic -Wall -Wextra -Werror -I"$srcdir/include" "$srcdir/tests/capture/pool_game.c" \
        -o "$T/pool_game" 2> "$T/err"; then
    not_ok "pool_game.c compiles with -std=c11 -pedantic -Werror" "$(cat "$T/err")"
    tap_done
fi
ok "pool_game.c compiles with -std=c11 -pedantic -Wall -Wextra -Werror"
"$HR" capture -o "$T/g.hrt" -- "$T/pool_game" > "$T/out" 2> "$T/cap.err"
if grep -q "pool_game: ok" "$T/out" &&
   grep -q "^pools: Particles (200 allocs, 0 reallocs, peak live 12800 bytes), FrameArena (160 allocs, 0 reallocs, peak live 1472 bytes), Strings (5 allocs, 15 reallocs, peak live 128 bytes)$" "$T/cap.err"; then
    ok "capture summary names the pools with their counts"
else
    not_ok "capture summary names the pools" "$(cat "$T/cap.err")"
fi
"$HR" info --json "$T/g.hrt" > "$T/info.json"
got=$(for i in 0 1 2; do printf '%s:%s:%s:%s ' "$("$JGET" "0.pools.$i.name" "$T/info.json")" \
    "$("$JGET" "0.pools.$i.allocs" "$T/info.json")" "$("$JGET" "0.pools.$i.frees" "$T/info.json")" \
    "$("$JGET" "0.pools.$i.reallocs" "$T/info.json")"; done)
if [ "$got" = "Particles:200:200:0 FrameArena:160:160:0 Strings:5:5:15 " ]; then
    ok "info --json: pools by name, allocs/frees/reallocs exact"
else
    not_ok "info --json: pools" "$got"
fi
check "info (text): pools line" grep -q "pools  *Particles (200 allocs" <("$HR" info "$T/g.hrt")
if [ "$("$JGET" 0.frame_streams.0.name "$T/info.json")" = physics ] &&
   [ "$("$JGET" 0.frame_streams.0.frames "$T/info.json")" = 20 ] && [ "$("$JGET" 0.frames "$T/info.json")" = 10 ]; then
    ok "hr_frame_named: stream physics with 20 frames, main stream 10 frames"
else
    not_ok "named frame stream" "$(grep -A6 frame_streams "$T/info.json")"
fi

# 3. replay: plain malloc by default, said on stderr and in the report (--detail: the pools line)
"$HR" replay --detail -a glibc -r 1 --warm-time 0 --verify -o "$T/d.json" "$T/g.hrt" > "$T/d.txt" 2> "$T/d.err"
rc=$?
if [ $rc = 0 ] && [ "$("$JGET" results.0.pools.0.replayed_as "$T/d.json")" = malloc ] &&
   [ "$("$JGET" results.0.pools.2.name "$T/d.json")" = Strings ] &&
   [ "$("$JGET" results.0.ops.total "$T/d.json")" = "$(( $("$JGET" 0.ops.alloc "$T/info.json") + $("$JGET" 0.ops.free "$T/info.json") + 200 + 200 + 160 + 160 + 5 + 5 + 15 ))" ] &&
   grep -q "pools Particles -> plain malloc (default)" "$T/d.err" && grep -q "^pools (the engine" "$T/d.txt"; then
    ok "replay: pools replayed as plain malloc by default, every pool op counted, said on stderr and in the report"
else
    not_ok "replay: default pools" "exit $rc" "$(cat "$T/d.err")" "$(grep -i pool "$T/d.txt")"
fi
# 4. --pool routes a pool's blocks to an in-house allocator
"$HR" replay -a glibc --pool Particles=bank --pool FrameArena=marker -r 1 --warm-time 0 --verify -q \
    -o "$T/r.json" "$T/g.hrt" > "$T/r.txt"
rc=$?
if [ $rc = 0 ] && [ "$("$JGET" results.0.allocator "$T/r.json")" = "bank@Particles+marker@FrameArena+glibc" ] &&
   [ "$("$JGET" results.0.status "$T/r.json")" = ok ] &&
   [ "$("$JGET" results.0.native.parts.0.blocks "$T/r.json")" = 200 ] &&
   [ "$("$JGET" results.0.native.parts.1.blocks "$T/r.json")" = 160 ] &&
   [ "$("$JGET" results.0.pools.0.replayed_as "$T/r.json")" = bank ] &&
   [ "$("$JGET" results.0.pools.2.replayed_as "$T/r.json")" = malloc ]; then
    ok "--pool Particles=bank --pool FrameArena=marker: 200 and 160 blocks routed, Strings as malloc"
else
    not_ok "--pool routing" "exit $rc" "$(head -c 600 "$T/r.json")"
fi
"$HR" replay -a glibc --pool Particles "$T/g.hrt" > /dev/null 2> "$T/err"
check "--pool without =ALLOC: exit 2" test $? = 2
"$HR" replay -a glibc --pool Particles=jemalloc "$T/g.hrt" > /dev/null 2> "$T/err"
if [ $? = 2 ] && grep -q "option '--pool' expects NAME=ALLOC with ALLOC one of malloc" "$T/err"; then
    ok "--pool to an external allocator: exit 2, the allowed ones named"
else not_ok "--pool to an external allocator" "$(cat "$T/err")"; fi
tap_done
