#!/usr/bin/env bash
# The program's own run time (docs/METRICS.md, "Predicted change of the
# program's run time"): capture records it in the trace (the captured run,
# or --time-runs N runs without the library), convert and info keep and show it, malformed program fields
# are one-line errors (exit 2), and replay's report carries "program" and
# "predict" in JSON, CSV, text and Markdown. No timing is asserted beyond
# "measured something" (> 0).
set -u
. "$(dirname "$0")/tap.sh"
tap_setup program jget
LIB="$top_builddir/.libs/libheapreplay-capture.so"
PROG="$top_builddir/tests/capture/cap_single"
[ -f "$LIB" ] && [ -x "$PROG" ] || skip_all "capture library or test program not built"
skip_all_if_asan "$PROG" "the capture library preloaded into the test program"
pos() { awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }'; }

# 1. capture: the captured run's own time
if "$HR" capture -o "$T/c.hrt" -- "$PROG" < /dev/null > /dev/null 2> "$T/c.log" &&
    "$HR" info --json "$T/c.hrt" > "$T/c.json"; then
    if [ "$(jget 0.program.runs "$T/c.json")" = 1 ] && [ "$(jget 0.program.timed "$T/c.json")" = capture ] &&
        pos "$(jget 0.program.cpu_s "$T/c.json")" && pos "$(jget 0.program.wall_s "$T/c.json")" &&
        pos "$(jget 0.program.max_rss "$T/c.json")"; then
        ok "capture records the captured run: runs 1, timed capture, cpu, wall, max RSS > 0"
    else not_ok "capture records the captured run" "$(cat "$T/c.json")"; fi
else not_ok "capture records the captured run" "$(cat "$T/c.log")"; fi

# 2. --time-runs 3: three runs without the library
if "$HR" capture --time-runs 3 -o "$T/t.hrt" -- "$PROG" < /dev/null > /dev/null 2> "$T/t.log" &&
    "$HR" info --json "$T/t.hrt" > "$T/t.json"; then
    lo=$(jget 0.program.cpu_s_min "$T/t.json") mid=$(jget 0.program.cpu_s "$T/t.json")
    hi=$(jget 0.program.cpu_s_max "$T/t.json")
    if [ "$(jget 0.program.runs "$T/t.json")" = 3 ] && [ "$(jget 0.program.timed "$T/t.json")" = plain ] &&
        pos "$mid" && awk -v a="$lo" -v b="$mid" -v c="$hi" 'BEGIN { exit !(a <= b && b <= c) }' &&
        grep -q "^program time: median of 3 runs" "$T/t.log"; then
        ok "--time-runs 3 records runs 3, timed plain, cpu min <= median <= max"
    else not_ok "--time-runs 3 records runs 3" "$(cat "$T/t.json" "$T/t.log")"; fi
else not_ok "--time-runs 3" "$(cat "$T/t.log")"; fi
"$HR" info "$T/t.hrt" | grep -q "^  program .*median of 3 runs without the capture library" &&
    ok "info (text) shows the program time" || not_ok "info (text) shows the program time"

# 3. a piped standard input cannot be read again: refused before running
echo input | "$HR" capture --time-runs 2 -o "$T/p.hrt" -- "$PROG" > /dev/null 2> "$T/p.err"
rc=$?
if [ $rc = 2 ] && [ "$(wc -l < "$T/p.err")" = 1 ] && grep -q "standard input is a pipe" "$T/p.err" &&
    [ ! -e "$T/p.hrt" ]; then
    ok "--time-runs with piped standard input: one line, exit 2, nothing run"
else not_ok "--time-runs with piped standard input (rc $rc)" "$(cat "$T/p.err")"; fi
"$HR" capture --time-runs x -o "$T/x.hrt" -- "$PROG" < /dev/null > /dev/null 2>&1
[ $? = 2 ] && ok "--time-runs x: exit 2" || not_ok "--time-runs x: exit 2"

# 4. convert keeps the fields (binary 1.4 -> text -> binary), the digest ignores them
"$HR" convert "$T/t.hrt" -o "$T/t.txt" > /dev/null && "$HR" convert "$T/t.txt" -o "$T/t2.hrt" > /dev/null
if cmp -s "$T/t.hrt" "$T/t2.hrt" && head -n 1 "$T/t.txt" | grep -q " runs=3 timed=plain wall_ns="; then
    ok "convert: binary -> text -> binary keeps the program time byte for byte"
else not_ok "convert keeps the program time" "$(head -n 1 "$T/t.txt")"; fi
sed '1s/ runs=.*//' "$T/t.txt" > "$T/bare.txt"
d1=$("$HR" info --json "$T/t.hrt" | "$JGET" 0.digest /dev/stdin)
d2=$("$HR" info --json "$T/bare.txt" | "$JGET" 0.digest /dev/stdin)
[ -n "$d1" ] && [ "$d1" = "$d2" ] && ok "same events with and without program time: same digest ($d1)" ||
    not_ok "digest without program time" "$d1 vs $d2"
"$HR" info --json "$T/bare.txt" > "$T/bare.json"
[ "$(jget 0.program "$T/bare.json")" = null ] && ok "info --json: no program object without program time" ||
    not_ok "info --json: no program object without program time"

# 5. malformed program fields: one line naming the line or offset, exit 2
sed '1s/cpu_min_ns=[0-9]*/cpu_min_ns=99999999999999/' "$T/t.txt" > "$T/bad.txt"
"$HR" info "$T/bad.txt" > /dev/null 2> "$T/bad.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$T/bad.err")" = 1 ] && grep -q "bad.txt:1: program time: cpu_min_ns" "$T/bad.err" &&
    ok "text: malformed program time -> FILE:1: message, exit 2" ||
    not_ok "text: malformed program time (rc $rc)" "$(cat "$T/bad.err")"
cp "$T/t.hrt" "$T/bad.hrt"
printf '\007' | dd of="$T/bad.hrt" bs=1 seek=108 conv=notrunc 2> /dev/null
"$HR" info "$T/bad.hrt" > /dev/null 2> "$T/badb.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$T/badb.err")" = 1 ] && grep -q "bad.hrt: offset 108: program time: unknown flags 0x7" "$T/badb.err" &&
    ok "binary: malformed program time -> FILE: offset N: message, exit 2" ||
    not_ok "binary: malformed program time (rc $rc)" "$(cat "$T/badb.err")"

# 6. the report: program and predict per row, in every format
if "$HR" replay -q -r 2 -a glibc,stack -o "$T/r.json" -f md "$T/t.hrt" > "$T/r.md" 2> "$T/r.err"; then
    if [ "$(jget results.0.program.runs "$T/r.json")" = 3 ] && [ "$(jget results.1.program.runs "$T/r.json")" = 3 ] &&
        [ "$(jget results.0.predict.change_s "$T/r.json")" = 0 ] &&
        [ "$(jget results.1.predict.baseline "$T/r.json")" = glibc ] &&
        [ "$(jget results.1.predict.change_s "$T/r.json")" != null ] &&
        [ -n "$(jget results.1.predict.real "$T/r.json" | grep -x "saving\|cost\|none")" ] &&
        pos "$(jget results.1.predict.alloc_s "$T/r.json")"; then
        ok "report JSON: program and predict on every row"
    else not_ok "report JSON: program and predict" "$(cat "$T/r.json")"; fi
    grep -q "^### Predicted change of the program's run time" "$T/r.md" &&
        ok "report Markdown: the predicted-change table" || not_ok "report Markdown: the predicted-change table"
else not_ok "replay with program time" "$(cat "$T/r.err")"; fi
"$HR" replay -q -a glibc,stack -f csv "$T/t.hrt" > "$T/r.csv" 2> /dev/null
head -n 1 "$T/r.csv" | tr ',' '\n' | grep -qx "predict.change_pct" && head -n 1 "$T/r.csv" | tr ',' '\n' | grep -qx "program.cpu_s" &&
    ok "report CSV: predict.* and program.* columns" || not_ok "report CSV: predict.* and program.* columns"
"$HR" replay -q -a glibc,stack "$T/t.hrt" > "$T/r.txt" 2> /dev/null
grep -q "^Predicted change of the program's run time" "$T/r.txt" && ok "report text: the predicted-change table" ||
    not_ok "report text: the predicted-change table"
"$HR" replay -q -a glibc,stack -o "$T/n.json" "$T/bare.txt" > "$T/n.txt" 2> /dev/null
[ "$(jget results.0.program "$T/n.json")" = null ] && [ "$(jget results.1.predict "$T/n.json")" = null ] &&
    ! grep -q "Predicted change" "$T/n.txt" && ok "a trace without program time: no program, no predict, no table" ||
    not_ok "a trace without program time: no program, no predict"
"$HR" replay -q -a stack -o "$T/s.json" "$T/t.hrt" > /dev/null 2>&1
[ "$(jget results.0.program.runs "$T/s.json")" = 3 ] && [ "$(jget results.0.predict "$T/s.json")" = null ] &&
    ok "no glibc row: program kept, no predict" || not_ok "no glibc row: program kept, no predict"

tap_done
