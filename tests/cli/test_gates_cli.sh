#!/usr/bin/env bash
# Gates and the small CLI contracts around them (docs/REPORTS.md, "Paired
# A/B"; docs/METRICS.md, "Kernel work and the cost"):
#  - replay -o is checked before any replay; its extension picks the format;
#  - capture -o into a missing directory says so and runs nothing;
#  - a launcher (sh -c) is named, with --follow-forks;
#  - compare of a report with itself (or a copy) warns;
#  - replay --pair: its usage errors, a slowed build caught (exit 1), a
#    faster one not, the "paired" section in the report;
#  - --count callgrind: faults, system calls and the cost; the cost gate
#    catches glibc's mmap_threshold=4096 that instructions call an improvement.
# Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup gates jget
SHIM="$top_builddir/bench/power/.libs/spin_shim.so"
"$HR" gen frame_loop -n 6000 --seed 2 -o "$T/fl.hrt" > /dev/null || skip_all "cannot generate"
R="-q -a bump -r 1 --warm-time 0"

# 1. replay -o: checked first (no replay process starts: -v would print one
#    line per process), a directory refused, the format from the extension.
"$HR" replay -v $R "$T/fl.hrt" -o "$T/nodir/r.json" > "$T/out" 2> "$T/err"
rc=$?
if [ "$rc" = 2 ] && grep -q "nodir/r.json: cannot create: No such file or directory (checked before replaying)" "$T/err" &&
   ! grep -q '^\[1/' "$T/err"; then ok "replay -o into a missing directory fails before replaying"
else not_ok "replay -o into a missing directory fails before replaying (exit $rc)" "$(head -3 "$T/err")"; fi
"$HR" replay $R "$T/fl.hrt" -o "$T" > /dev/null 2> "$T/err"
rc=$?
if [ "$rc" = 2 ] && grep -q "is a directory" "$T/err"; then ok "replay -o DIR is refused"
else not_ok "replay -o DIR is refused (exit $rc)" "$(head -3 "$T/err")"; fi
"$HR" replay $R -f html "$T/fl.hrt" -o "$T/r.html" > "$T/stdout.html" 2> /dev/null
if head -1 "$T/r.html" | grep -q '^<!DOCTYPE html>' && cmp -s "$T/r.html" "$T/stdout.html"; then
    ok "replay -f html -o out.html writes the HTML page"
else not_ok "replay -f html -o out.html writes the HTML page" "$(head -c 200 "$T/r.html")"; fi
"$HR" replay $R "$T/fl.hrt" -o "$T/r.csv" > "$T/stdout.txt" 2> /dev/null
"$HR" replay $R "$T/fl.hrt" -o "$T/r.md" > /dev/null 2> /dev/null
"$HR" replay $R "$T/fl.hrt" -o "$T/r.txt" > /dev/null 2> /dev/null
"$HR" replay $R "$T/fl.hrt" -o "$T/r.report" > /dev/null 2> /dev/null
if head -1 "$T/r.csv" | grep -q '^trace,trace_digest,allocator' && head -1 "$T/r.md" | grep -q '^## heapreplay' &&
   grep -q '^trace .*fl.hrt' "$T/r.txt" && grep -q '^trace .*fl.hrt' "$T/stdout.txt" &&
   "$JGET" results.0.allocator "$T/r.report" 2> /dev/null | grep -qx bump; then
    ok "replay -o picks csv, md, txt by extension, JSON otherwise; stdout stays text"
else not_ok "replay -o picks csv, md, txt by extension, JSON otherwise" "$(head -2 "$T/r.csv" "$T/r.md" "$T/r.txt")"; fi

# 2. capture -o into a missing directory: said, and the program never runs.
if [ -e "$top_builddir/.libs/libheapreplay-capture.so" ]; then
    "$HR" capture -o "$T/nodir/c.hrt" -- sh -c "touch '$T/ran'" > /dev/null 2> "$T/err"
    rc=$?
    if [ "$rc" = 2 ] && grep -q "nodir/c.hrt: the directory does not exist" "$T/err" && [ ! -e "$T/ran" ] &&
       ! grep -q "static" "$T/err"; then ok "capture -o into a missing directory says so, runs nothing"
    else not_ok "capture -o into a missing directory says so (exit $rc)" "$(cat "$T/err")"; fi
    "$HR" capture -o "$T/sh.hrt" -- sh -c 'ls / > /dev/null; ls / > /dev/null' > /dev/null 2> "$T/err"
    if grep -q "child process" "$T/err" && grep -q -- "--follow-forks" "$T/err"; then
        ok "capture -- sh -c: the children that allocated are named, with --follow-forks"
    else not_ok "capture -- sh -c names its children" "$(tail -3 "$T/err")"; fi
else
    skip "capture -o into a missing directory" "capture library not built"
    skip "capture -- sh -c names its children" "capture library not built"
fi

# 3. compare of a report with itself, or with a copy, warns; two runs do not.
"$HR" replay $R "$T/fl.hrt" -o "$T/a.json" > /dev/null 2>&1
"$HR" replay $R "$T/fl.hrt" -o "$T/b.json" > /dev/null 2>&1
cp "$T/a.json" "$T/a_copy.json"
"$HR" compare "$T/a.json" "$T/a.json" > /dev/null 2> "$T/e1"
rc1=$?
"$HR" compare "$T/a.json" "$T/a_copy.json" > /dev/null 2> "$T/e2"
"$HR" compare "$T/a.json" "$T/b.json" --max-regress live=0% > /dev/null 2> "$T/e3"
if [ "$rc1" = 0 ] && grep -q "warning: .*a.json and .*a.json are the same file" "$T/e1" &&
   grep -q "identical reports" "$T/e2" && ! grep -q warning "$T/e3"; then
    ok "compare warns on a report compared with itself or a copy"
else not_ok "compare warns on a report compared with itself" "$(cat "$T/e1" "$T/e2" "$T/e3")"; fi

# 4. replay --pair
"$HR" replay -q -a bump -r 6 --pair "$T/fl.hrt" > /dev/null 2> "$T/err"
rc=$?
"$HR" replay -q -a bump,glibc -r 3 --pair "$T/fl.hrt" > /dev/null 2> "$T/err2"
rc2=$?
if [ "$rc" = 2 ] && grep -q "exactly two allocators" "$T/err" && [ "$rc2" = 2 ] && grep -q -- "-r 6 or more" "$T/err2"; then
    ok "replay --pair: two allocators and -r 6 or more"
else not_ok "replay --pair usage errors (exit $rc, $rc2)" "$(cat "$T/err" "$T/err2")"; fi
if [ -f "$SHIM" ]; then
    # b spins ~2000 iterations per call (several times glibc's cost): every
    # pair is slower, whatever the machine's load
    SPIN_ITERS=2000 "$HR" replay -q -a "glibc,preload:$SHIM" -r 6 --warm-time 0.02 --pair "$T/fl.hrt" \
        -o "$T/p.json" > "$T/out" 2> "$T/err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q "paired: .*spin_shim.so over glibc" "$T/out" && grep -q "ns/op .*REGRESSION$" "$T/out" &&
       grep -q "paired: 1 trace, 1 regression .*FAIL" "$T/out" &&
       [ "$("$JGET" paired.traces.0.figures.0.verdict "$T/p.json")" = REGRESSION ]; then
        ok "replay --pair catches a slowed build (exit 1, REGRESSION in the report)"
    else not_ok "replay --pair catches a slowed build (exit $rc)" "$(tail -6 "$T/out")" "$(head -3 "$T/err")"; fi
    SPIN_ITERS=2000 "$HR" replay -q -a "preload:$SHIM,glibc" -r 6 --warm-time 0.02 --pair "$T/fl.hrt" > "$T/out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q "ns/op .*improved$" "$T/out" && grep -q "0 regressions .*PASS" "$T/out"; then
        ok "replay --pair: a faster build passes, marked improved"
    else not_ok "replay --pair: a faster build passes (exit $rc)" "$(tail -6 "$T/out")"; fi
else
    skip "replay --pair catches a slowed build" "bench/power/spin_shim.la not built"
    skip "replay --pair: a faster build passes" "bench/power/spin_shim.la not built"
fi

# 5. --count callgrind: the kernel's work and the cost
if command -v valgrind > /dev/null 2>&1; then
    "$HR" gen level_load -n 6000 --seed 2 -o "$T/ll.hrt" > /dev/null
    C="-q -a glibc -r 1 --warm-time 0 --count callgrind"
    "$HR" replay $C "$T/ll.hrt" -o "$T/c0.json" > /dev/null 2>&1
    GLIBC_TUNABLES=glibc.malloc.mmap_threshold=4096 "$HR" replay $C "$T/ll.hrt" -o "$T/c1.json" > /dev/null 2>&1
    f0=$("$JGET" results.0.count.faults "$T/c0.json")
    s0=$("$JGET" results.0.count.syscalls "$T/c0.json")
    m1=$("$JGET" results.0.count.sys_mmap "$T/c1.json")
    m0=$("$JGET" results.0.count.sys_mmap "$T/c0.json")
    if [ "${f0:-0}" -gt 0 ] && [ -n "$s0" ] && [ "${m1:-0}" -gt "${m0:-0}" ]; then
        ok "--count callgrind: page faults, system calls by kind (mmap_threshold=4096: more mmap)"
    else not_ok "--count callgrind: page faults and system calls" "faults $f0 syscalls $s0 mmap $m0 -> $m1"; fi
    "$HR" compare "$T/c0.json" "$T/c1.json" --max-regress insns=1% > /dev/null 2>&1
    old=$?
    "$HR" compare "$T/c0.json" "$T/c1.json" --max-regress insns=1%,cost=1% > "$T/out" 2>&1
    new=$?
    if [ "$old" = 0 ] && [ "$new" = 1 ] && grep -q "cost .*REGRESSION" "$T/out"; then
        ok "the cost gate catches mmap_threshold=4096, which instructions pass"
    else not_ok "the cost gate catches mmap_threshold=4096 (insns gate exit $old, cost gate exit $new)" "$(head -8 "$T/out")"; fi
else
    skip "--count callgrind: page faults and system calls" "valgrind not on PATH"
    skip "the cost gate catches mmap_threshold=4096" "valgrind not on PATH"
fi
tap_done
