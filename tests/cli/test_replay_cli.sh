#!/usr/bin/env bash
# Integration tests of `heapreplay replay`, child isolation and the external
# allocator workers (docs/ARCHITECTURE.md, "Isolation"). Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
HR="${HR:-./heapreplay}"
[ -x "$HR" ] || HR="$(dirname "$0")/../../heapreplay"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
JGET="${JGET:-$(dirname "$HR")/tests/cli/jget}"
jget() { "$JGET" "$1" "$2"; }

"$HR" gen session -o "$T/s.hrt" --events 20000 --seed 7 >/dev/null || skip_all "cannot generate"

# A trace whose peak is at a frame mark: the external sample there sees it.
cat > "$T/peak.hrtt" <<'EOF'
heapreplay-trace 1
alloc 0 100000
alloc 1 200000
alloc 2 300000
frame 0
free 0
free 1
free 2
EOF

# 1. in-house and glibc replays succeed; report JSON has the schema
"$HR" replay --warm-time 0 --verify "$T/s.hrt" -a glibc,bump -r 2 -q -o "$T/r.json" -f csv > "$T/r.csv"
rc=$?
if [ $rc = 0 ] && [ "$(jget schema "$T/r.json")" = heapreplay-report ] &&
   [ "$(jget results.0.status "$T/r.json")" = ok ] && [ "$(jget results.1.status "$T/r.json")" = ok ] &&
   [ "$(jget results.0.runs "$T/r.json")" = 2 ]; then
    ok "replay glibc,bump: status ok, 2 runs merged"
else
    not_ok "replay glibc,bump: status ok, 2 runs merged" "rc=$rc" "$(head -c 600 "$T/r.json")"
fi
check "csv output has a header and two rows" test "$(wc -l < "$T/r.csv")" -ge 3

# 1b. an in-house allocator's exact footprint does not depend on what the
# process did before: the same trace replayed alone and after other traces and
# allocators (another heap history in the server) gives the same peak, fallback
# blocks included (they are charged by alloc/chunk.h, not malloc_usable_size).
"$HR" replay --warm-time 0 --verify "$T/s.hrt" -a stack,routed -r 1 -q -o "$T/h1.json" > /dev/null
"$HR" replay --warm-time 0 --verify "$T/peak.hrtt" "$T/s.hrt" -a glibc,routed,stack -r 2 -q -o "$T/h2.json" > /dev/null
s1=$(jget results.0.memory.peak_footprint "$T/h1.json"); s2=$(jget results.5.memory.peak_footprint "$T/h2.json")
r1=$(jget results.1.memory.peak_footprint "$T/h1.json"); r2=$(jget results.4.memory.peak_footprint "$T/h2.json")
if [ -n "$s1" ] && [ "$s1" = "$s2" ] && [ -n "$r1" ] && [ "$r1" = "$r2" ] &&
   [ "$(jget results.5.allocator "$T/h2.json")" = stack ]; then
    ok "exact peak footprint independent of the process history (stack $s1, routed $r1)"
else
    not_ok "exact peak footprint independent of the process history" "stack $s1 vs $s2" "routed $r1 vs $r2"
fi

# 2. the glibc worker proves it measured the C library
lib=$(jget results.0.library "$T/r.json")
case "$lib" in */libc.so*) ok "glibc worker: malloc from $lib" ;; *) not_ok "glibc worker names libc" "library=$lib" ;; esac

# 3. every external allocator found at configure time: dladdr names its library
for a in jemalloc mimalloc tcmalloc; do
    if ! so=$(tap_lib "$a"); then
        ok "$a # SKIP not found at configure time"
        continue
    fi
    "$HR" replay --warm-time 0 --verify "$T/peak.hrtt" -a "$a" -r 1 -q -o "$T/$a.json" >/dev/null
    got=$(jget results.0.library "$T/$a.json")
    st=$(jget results.0.status "$T/$a.json")
    if [ "$st" = ok ] && [ "$(readlink -f "$got")" = "$(readlink -f "$so")" ]; then
        ok "$a worker: malloc provided by $got"
    else
        not_ok "$a worker: malloc provided by $so" "status=$st library=$got" "$(jget results.0.error "$T/$a.json")"
    fi
    sf=$(jget results.0.native.sized_free "$T/$a.json")
    check "$a frees plainly by default, as the program did ($sf)" test "$sf" = "none (plain free, as recorded)"
    "$HR" replay --warm-time 0 --verify "$T/peak.hrtt" -a "$a:sized" -r 1 -q -o "$T/$a-sized.json" >/dev/null
    sf=$(jget results.0.native.sized_free "$T/$a-sized.json")
    case "$a:$sf" in jemalloc:sdallocx|mimalloc:mi_free_size|tcmalloc:tc_free_sized) ok "$a:sized frees through its sized free ($sf)" ;;
        *) not_ok "$a:sized frees through its sized free" "sized_free=$sf" ;; esac
    check "$a:sized preloads $a" test "$(readlink -f "$(jget results.0.library "$T/$a-sized.json")")" = "$(readlink -f "$so")"
    src=$(jget results.0.memory.footprint_source "$T/$a.json")
    check "$a footprint from the allocator's own stats ($src)" test "$src" = "$a"
done

# an external allocator takes no option but 'sized': anything else is an error row
"$HR" replay --warm-time 0 "$T/peak.hrtt" -a glibc:bogus -r 1 -q -o "$T/bogus.json" >/dev/null 2>&1
check "glibc:bogus is an error row" test "$(jget results.0.status "$T/bogus.json")" = error
case "$(jget results.0.error "$T/bogus.json")" in *"bad option 'bogus'"*) ok "glibc:bogus names the option" ;;
    *) not_ok "glibc:bogus names the option" "$(jget results.0.error "$T/bogus.json")" ;; esac

# 4. jemalloc stats are plausible: sampled peak allocated >= peak live
if [ -f "$T/jemalloc.json" ]; then
    pa=$(jget results.0.native.jemalloc.peak_allocated_sampled "$T/jemalloc.json")
    pl=$(jget results.0.memory.peak_live "$T/jemalloc.json")
    check "jemalloc allocated ($pa) >= peak live ($pl)" test "$pa" -ge "$pl"
    check "jemalloc mapped > 0" test "$(jget results.0.native.jemalloc.mapped "$T/jemalloc.json")" -gt 0
fi

# 5. a wrong preload: a library that is not a malloc replacement is refused
z=$(ls /usr/lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libz.so.1 2>/dev/null | head -1)
if [ -n "$z" ]; then
    "$HR" replay --warm-time 0 --verify "$T/s.hrt" -a "preload:$z" -r 1 -q -o "$T/z.json" >/dev/null
    rc=$?
    err=$(jget results.0.error "$T/z.json")
    case "$err" in *"refusing to report"*) ok "preload of $z refused (dladdr mismatch), exit $rc" ;;
        *) not_ok "preload of a non-malloc library refused" "error=$err" ;; esac
    check "a refused preload makes the exit status 1" test "$rc" = 1
fi

# 6. a missing preload path gives a clear error
"$HR" replay --warm-time 0 --verify "$T/s.hrt" -a preload:/nonexistent/libx.so -r 1 -q -o "$T/m.json" >/dev/null
err=$(jget results.0.error "$T/m.json")
case "$err" in */nonexistent/libx.so*"cannot read"*) ok "missing preload path: $err" ;;
    *) not_ok "missing preload path reported" "error=$err" ;; esac

# 7. a crashing allocator is reported with its signal; the others go on
"$HR" replay --warm-time 0 --verify "$T/s.hrt" -a crash:5,bump -r 1 -q -o "$T/c.json" >/dev/null
rc=$?
if [ "$(jget results.0.status "$T/c.json")" = crashed ] && [ "$(jget results.0.signal "$T/c.json")" = 11 ] &&
   [ "$(jget results.1.status "$T/c.json")" = ok ] && [ $rc = 1 ]; then
    ok "crash:5 reported as crashed (SIGSEGV), bump still ok, exit 1"
else
    not_ok "crash reported" "rc=$rc" "$(head -c 400 "$T/c.json")"
fi

# 8. a hanging allocator is killed at the timeout
"$HR" replay --warm-time 0 --verify "$T/s.hrt" -a hang:5 -r 1 -q --timeout 1 -o "$T/h.json" >/dev/null
check "hang:5 reported as timeout" test "$(jget results.0.status "$T/h.json")" = timeout

# 9. bad input: exit 2 and one line naming the file
printf 'not a trace\n' > "$T/bad.hrt"
"$HR" replay --warm-time 0 --verify "$T/bad.hrt" -a glibc -q > /dev/null 2> "$T/err"
rc=$?
if [ $rc = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "$T/bad.hrt" "$T/err"; then
    ok "bad trace: exit 2, one line: $(cat "$T/err")"
else
    not_ok "bad trace: exit 2, one line naming the file" "rc=$rc" "$(cat "$T/err")"
fi
"$HR" replay --warm-time 0 --verify "$T/s.hrt" -a nosuch -q > /dev/null 2> "$T/err"
check "unknown allocator: exit 2" test $? = 2
"$HR" replay --warm-time 0 --verify "$T/s.hrt" --touch sometimes -q > /dev/null 2> "$T/err"
check "bad --touch: exit 2" test $? = 2

# 10. the in-house footprint is deterministic across repeats
"$HR" replay --warm-time 0 --verify "$T/s.hrt" -a bump -r 3 -q -o "$T/d.json" >/dev/null
check "bump repeats agree exactly (deterministic)" test "$(jget results.0.deterministic "$T/d.json")" = true

# 11. touch policy is printed in the text report
"$HR" replay --warm-time 0 --verify "$T/s.hrt" -a bump -r 1 -q --touch none > "$T/out.txt"
check "text report prints the touch policy" grep -qi "touch.*none" "$T/out.txt"

# 12. every in-house backend replays the shipped session deterministically
S="${srcdir:-$(dirname "$0")/../..}"
"$HR" replay --warm-time 0 --verify "$S/traces/game_session.hrt" -a stack,marker,block,bank,sizeclass,routed -r 2 -q \
    -o "$T/inhouse.json" -f csv > "$T/inhouse.csv"
for i in 0 1 2 3 4 5; do
    a=$(jget "results.$i.allocator" "$T/inhouse.json")
    if [ "$(jget "results.$i.status" "$T/inhouse.json")" = ok ] &&
       [ "$(jget "results.$i.deterministic" "$T/inhouse.json")" = true ] &&
       [ "$(jget "results.$i.memory.footprint_source" "$T/inhouse.json")" = exact ]; then
        ok "$a: shipped session replays, exact footprint identical in 2 runs ($(jget "results.$i.memory.peak_footprint" "$T/inhouse.json") B)"
    else
        not_ok "$a: deterministic replay of the shipped session" "$(jget "results.$i" "$T/inhouse.json" | head -c 300)"
    fi
done
pl=$(jget results.0.memory.peak_live "$T/inhouse.json")
check "peak live equals the trace's own figure" sh -c "'$HR' info --json '$S/traces/game_session.hrt' | grep -q '\"peak_live_bytes\": *$pl'"

# 13. the routed backend's per-heap table appears in text (--detail), JSON and CSV
"$HR" replay --detail --warm-time 0 --verify "$S/traces/level_load.hrt" -a routed -r 1 -q -o "$T/routed.json" > "$T/routed.txt"
"$HR" replay --warm-time 0 --verify "$S/traces/level_load.hrt" -a routed -r 1 -q -f csv > "$T/routed.csv"
check "routed: per-heap rows in JSON" test "$(jget results.0.native.heaps.0.name "$T/routed.json")" != null
check "routed: per-heap table in text" grep -q "routed heaps" "$T/routed.txt"
check "routed: per-heap section in CSV" grep -q "Level" "$T/routed.csv"

# 14. a bad heap config is bad input: exit 2 with FILE:LINE before any replay
"$HR" replay --warm-time 0 --verify "$S/traces/particles.hrt" -a routed --heap-config "$S/tests/data/heaps/bad_kind.conf" -q \
    > /dev/null 2> "$T/err"
rc=$?
if [ $rc = 2 ] && grep -q "bad_kind.conf:3:" "$T/err"; then ok "bad --heap-config: exit 2, $(cat "$T/err")"
else not_ok "bad --heap-config: exit 2 with file:line" "rc=$rc" "$(cat "$T/err")"; fi

# 15. the other commands: bad input is exit 2 with one line naming the place
printf 'heapreplay-trace 1\nalloc 0 16\nfree 1\n' > "$T/dead.txt"
"$HR" info "$T/dead.txt" > /dev/null 2> "$T/err"
rc=$?
if [ $rc = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "dead.txt:3:" "$T/err"; then ok "info: free of a dead id, exit 2: $(cat "$T/err")"
else not_ok "info: bad trace gives exit 2 and FILE:LINE" "rc=$rc" "$(cat "$T/err")"; fi
head -c 100 "$T/s.hrt" > "$T/cut.hrt"
"$HR" convert "$T/cut.hrt" -o "$T/cut.txt" > /dev/null 2> "$T/err"
rc=$?
if [ $rc = 2 ] && grep -q "cut.hrt: offset" "$T/err"; then ok "convert: truncated binary, exit 2: $(cat "$T/err")"
else not_ok "convert: truncated binary gives exit 2 and an offset" "rc=$rc" "$(cat "$T/err")"; fi
"$HR" convert "$T/s.hrt" -o "$T/x" --to yaml > /dev/null 2>&1
check "convert: bad --to is exit 2" test $? = 2
"$HR" convert "$T/s.hrt" -o "$T/s.txt" > /dev/null && "$HR" convert "$T/s.txt" -o "$T/s2.hrt" > /dev/null
check "convert: binary -> text -> binary is byte identical" cmp -s "$T/s.hrt" "$T/s2.hrt"
"$HR" gen volcano -o "$T/v.hrt" > /dev/null 2>&1
check "gen: unknown scenario is exit 2" test $? = 2
"$HR" gen session -o "$T/v.hrt" --events lots > /dev/null 2>&1
check "gen: bad --events is exit 2" test $? = 2

tap_done
