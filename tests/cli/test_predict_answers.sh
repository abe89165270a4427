#!/usr/bin/env bash
# The prediction's two answers (docs/METRICS.md, "Predicted change of the
# program's run time"): "is the change real?" and "will one run show it?".
# A trace captured with --time-runs carries the noise record (MAD, load,
# CPUs) and its report answers (b); a trace without timed runs says "noise
# unknown"; a hand-written trace whose recorded load is high gets the load
# warning in every format; the noise record survives conversion, keeps the
# digest, and malformed fields are one-line errors (exit 2). No timing is
# asserted: only which answer the report gives, never its figures.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup answers jget
LIB="$top_builddir/.libs/libheapreplay-capture.so"
PROG="$top_builddir/tests/capture/cap_single"

# A hand-written trace: 5 timed runs, MAD 10 ms, the given load on 2 CPUs.
write_trace() { # FILE LOAD_BEFORE LOAD_AFTER
    {
        printf 'heapreplay-trace 1 runs=5 timed=plain wall_ns=3600000000 cpu_ns=3500000000 '
        printf 'cpu_min_ns=3470000000 cpu_max_ns=3520000000 max_rss=125829120 '
        printf 'cpu_mad_ns=10000000 load_before=%s load_after=%s cpus=2\n' "$2" "$3"
        printf 'alloc 0 32\nalloc 1 4000\nfree 0\nalloc 2 100\nfree 1\nfree 2\n'
    } > "$1"
}
write_trace "$T/loaded.txt" 9.00 8.5
write_trace "$T/quiet.txt" 0.20 0.75

# 1. the noise record in the text form: read, shown, converted byte for byte
"$HR" info --json "$T/loaded.txt" > "$T/l.json" 2> "$T/l.err"
if [ "$(jget 0.program.load_before "$T/l.json")" = 9 ] && [ "$(jget 0.program.load_after "$T/l.json")" = 8.5 ] &&
    [ "$(jget 0.program.cpus "$T/l.json")" = 2 ] && [ "$(jget 0.program.cpu_s_mad "$T/l.json")" = 0.01 ]; then
    ok "text: the noise record (cpu_mad_ns, load_before, load_after, cpus) is read"
else not_ok "text: the noise record is read" "$(cat "$T/l.json" "$T/l.err")"; fi
"$HR" convert "$T/loaded.txt" -o "$T/l.hrt" > /dev/null && "$HR" convert "$T/l.hrt" -o "$T/l2.txt" > /dev/null &&
    "$HR" convert "$T/l2.txt" -o "$T/l2.hrt" > /dev/null
if cmp -s "$T/l.hrt" "$T/l2.hrt" && head -n 1 "$T/l2.txt" | grep -q " load_before=9.00 load_after=8.50 cpus=2$"; then
    ok "convert: text -> binary (1.6) -> text -> binary keeps the noise record"
else not_ok "convert keeps the noise record" "$(head -n 1 "$T/l2.txt")"; fi
minor=$(od -An -tu2 -j10 -N2 "$T/l.hrt" | tr -d ' ')
[ "$minor" = 6 ] && ok "binary: a trace with the noise record is minor 6" || not_ok "binary minor 6 ($minor)"
sed '1s/ cpu_mad_ns=.*//' "$T/loaded.txt" > "$T/old.txt"
"$HR" convert "$T/old.txt" -o "$T/old.hrt" > /dev/null
minor=$(od -An -tu2 -j10 -N2 "$T/old.hrt" | tr -d ' ')
d1=$("$HR" info --json "$T/l.hrt" | "$JGET" 0.digest /dev/stdin)
d2=$("$HR" info --json "$T/old.hrt" | "$JGET" 0.digest /dev/stdin)
if [ "$minor" = 4 ] && [ -n "$d1" ] && [ "$d1" = "$d2" ] &&
    [ "$("$HR" info --json "$T/old.hrt" | "$JGET" 0.program.cpus /dev/stdin)" = null ]; then
    ok "without the record: minor 4 as before, same digest ($d1), no cpus"
else not_ok "without the record: minor 4, same digest" "minor $minor, $d1 vs $d2"; fi

# 2. malformed noise fields: one line naming the line, exit 2
bad() { # NAME SED-EXPRESSION EXPECTED-TEXT
    sed "$2" "$T/loaded.txt" > "$T/$1.txt"
    "$HR" info "$T/$1.txt" > /dev/null 2> "$T/$1.err"
    local rc=$?
    if [ $rc = 2 ] && [ "$(wc -l < "$T/$1.err")" = 1 ] && grep -q "$1.txt:1: .*$3" "$T/$1.err"; then
        ok "text: $1 -> FILE:1: message, exit 2"
    else not_ok "text: $1 (rc $rc)" "$(cat "$T/$1.err")"; fi
}
bad bad_load '1s/load_before=9.00/load_before=9.123/' "load_before=9.123': expected a load average"
bad no_cpus '1s/ cpus=2//' "noise record needs every one of .*missing cpus="
bad big_mad '1s/cpu_mad_ns=10000000/cpu_mad_ns=60000000/' "cpu_mad_ns 60000000 is above the runs' range"
cp "$T/l.hrt" "$T/badb.hrt"
printf '\001' | dd of="$T/badb.hrt" bs=1 seek=132 conv=notrunc 2> /dev/null
"$HR" info "$T/badb.hrt" > /dev/null 2> "$T/badb.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$T/badb.err")" = 1 ] &&
    grep -q "badb.hrt: offset 132: program time: the noise record's word at 132 is not 0 (other_cpu needs minor 7" "$T/badb.err" &&
    ok "binary: the word at 132 set in a 1.6 noise record -> FILE: offset 132: message, exit 2" ||
    not_ok "binary: bad noise record (rc $rc)" "$(cat "$T/badb.err")"

# 3. the load warning: in every format of the loaded trace's report, never
# in the quiet one's (loaded: the larger load average above CPUs / 2 + 1)
"$HR" replay -q -r 2 -a glibc,jemalloc -o "$T/l.rep.json" "$T/loaded.txt" > "$T/l.rep.txt" 2> "$T/l.rep.err"
"$HR" report -f md "$T/l.rep.json" > "$T/l.rep.md" 2>> "$T/l.rep.err"
"$HR" report -f html "$T/l.rep.json" > "$T/l.rep.html" 2>> "$T/l.rep.err"
n=0
for f in txt md html; do
    grep -q "the machine was loaded while the program was timed (load average 9.00 before, 8.50 after" \
        "$T/l.rep.$f" && n=$((n + 1))
done
[ $n = 3 ] && [ "$(jget results.1.predict.loaded "$T/l.rep.json")" = true ] &&
    ok "a recorded load of 9 on 2 CPUs: the warning in text, Markdown, HTML; predict.loaded in JSON" ||
    not_ok "the load warning ($n of 3 formats)" "$(cat "$T/l.rep.err")"
"$HR" replay -q -r 2 -a glibc,jemalloc -o "$T/q.rep.json" "$T/quiet.txt" > "$T/q.rep.txt" 2> /dev/null
! grep -q "machine was loaded" "$T/q.rep.txt" && [ "$(jget results.1.predict.loaded "$T/q.rep.json")" = null ] &&
    ok "a recorded load of 0.75 on 2 CPUs: no warning" || not_ok "no warning on a quiet load"

# 3b. the other programs' CPU (1.7): when measured it decides, whatever the
# load averages (which count the program's own threads and processes)
sed '1s/ cpus=2$/ cpus=2 other_cpu=1.20/' "$T/quiet.txt" > "$T/busy.txt"
sed '1s/ cpus=2$/ cpus=2 other_cpu=0.10/' "$T/loaded.txt" > "$T/own.txt"
"$HR" replay -q -r 2 -a glibc,jemalloc -o "$T/b.rep.json" "$T/busy.txt" > "$T/b.rep.txt" 2> "$T/b.rep.err"
"$HR" replay -q -r 2 -a glibc,jemalloc -o "$T/o.rep.json" "$T/own.txt" > "$T/o.rep.txt" 2>> "$T/b.rep.err"
if grep -q "the machine was busy while the program was timed (other programs kept 1.20 of its 2 CPUs" \
        "$T/b.rep.txt" && [ "$(jget results.1.predict.loaded "$T/b.rep.json")" = true ] &&
   [ "$(jget results.0.program.other_cpu "$T/b.rep.json")" = 1.2 ] &&
   ! grep -q "machine was" "$T/o.rep.txt" && [ "$(jget results.1.predict.loaded "$T/o.rep.json")" = null ]; then
    ok "other_cpu decides: 1.20 of 2 CPUs warns at load 0.75; 0.10 does not at load 9"
else not_ok "other_cpu decides the warning" "$(cat "$T/b.rep.err")" "$(grep -h machine "$T/b.rep.txt" "$T/o.rep.txt")"; fi
"$HR" convert "$T/busy.txt" -o "$T/busy.hrt" > /dev/null && "$HR" convert "$T/busy.hrt" -o "$T/busy2.txt" > /dev/null
minor=$(od -An -tu2 -j10 -N2 "$T/busy.hrt" | tr -d ' ')
d1=$("$HR" info --json "$T/busy.hrt" | "$JGET" 0.digest /dev/stdin)
d2=$("$HR" info --json "$T/l.hrt" | "$JGET" 0.digest /dev/stdin)
if [ "$minor" = 7 ] && head -n 1 "$T/busy2.txt" | grep -q " cpus=2 other_cpu=1.20$" && [ "$d1" = "$d2" ]; then
    ok "convert: other_cpu survives text -> binary (1.7) -> text, the digest unchanged"
else not_ok "convert keeps other_cpu (minor $minor)" "$(head -n 1 "$T/busy2.txt")" "$d1 vs $d2"; fi
if "$HR" info "$T/busy.hrt" | grep -q "^  program noise   MAD 0.010 s; load average 0.20 before, 0.75 after, 2 CPUs; other programs kept 1.20 CPUs busy$" &&
   "$HR" info "$T/l.hrt" | grep -q "^  program noise   MAD 0.010 s; load average 9.00 before, 8.50 after, 2 CPUs$"; then
    ok "info shows the noise record, other_cpu when measured"
else not_ok "info shows the noise record" "$("$HR" info "$T/busy.hrt" | grep program)"; fi
bad too_busy '1s/ cpus=2$/ cpus=2 other_cpu=3.00/' "other_cpu 3.00 is above the 2 CPUs"
bad other_3dp '1s/ cpus=2$/ cpus=2 other_cpu=0.125/' "other_cpu=0.125': expected CPUs with at most two decimals"
sed '1s/ cpu_mad_ns=.*$/ other_cpu=0.50/' "$T/loaded.txt" > "$T/lone.txt"
"$HR" info "$T/lone.txt" > /dev/null 2> "$T/lone.err"
rc=$?
[ $rc = 2 ] && grep -q "lone.txt:1: header option 'other_cpu=' needs the noise record" "$T/lone.err" &&
    ok "text: other_cpu without the noise record -> FILE:1: message, exit 2" ||
    not_ok "text: other_cpu alone (rc $rc)" "$(cat "$T/lone.err")"
cp "$T/l.hrt" "$T/bad7.hrt" # a 1.6 file claiming the flag: only 1.7 has it
printf '\002' | dd of="$T/bad7.hrt" bs=1 seek=108 conv=notrunc 2> /dev/null
"$HR" info "$T/bad7.hrt" > /dev/null 2> "$T/bad7.err"
rc=$?
[ $rc = 2 ] && grep -q "bad7.hrt: offset 108: program time: flag 0x2 (other_cpu) in a 1.6 header" "$T/bad7.err" &&
    ok "binary: the other_cpu flag in a 1.6 header -> FILE: offset 108: message, exit 2" ||
    not_ok "binary: the flag in 1.6 (rc $rc)" "$(cat "$T/bad7.err")"

# 4. both answers in every format: the quiet trace has a noise record, so
# (b) is answered ("one run shows it", "needs ~K runs" or "not in 100 runs")
real=$(jget results.1.predict.real "$T/q.rep.json") k=$(jget results.1.predict.runs_to_see "$T/q.rep.json")
case "$real" in saving | cost | none) r_ok=1 ;; *) r_ok=0 ;; esac
[ $r_ok = 1 ] && [ "$k" != null ] && [ "$(jget results.1.predict.noise_basis "$T/q.rep.json")" = mad ] &&
    ok "JSON: predict.real ($real) and predict.runs_to_see ($k) from the MAD" ||
    not_ok "JSON: both answers" "real $real, runs_to_see $k"
answers='(real saving|real cost|no real change).*(one run shows it|needs ~[0-9]+ runs|not in 100 runs)'
"$HR" report -f md "$T/q.rep.json" > "$T/q.rep.md" 2> /dev/null
"$HR" report -f html "$T/q.rep.json" > "$T/q.rep.html" 2> /dev/null
"$HR" report -f csv "$T/q.rep.json" > "$T/q.rep.csv" 2> /dev/null
n=0
for f in txt md html; do
    grep -Eq "^jemalloc .*$answers|^\\| jemalloc .*$answers|<td>jemalloc</td>.*$answers" "$T/q.rep.$f" &&
        n=$((n + 1))
done
head -n 1 "$T/q.rep.csv" | tr ',' '\n' | grep -qx "predict.real" &&
    head -n 1 "$T/q.rep.csv" | tr ',' '\n' | grep -qx "predict.runs_to_see" && n=$((n + 1))
[ $n = 4 ] && ok "text, Markdown, HTML rows and CSV columns carry both answers" ||
    not_ok "both answers in every format ($n of 4)"

# 5. captured traces: with --time-runs the record is there and (b) answered;
# without, "noise unknown"
if [ -f "$LIB" ] && [ -x "$PROG" ] && ! nm "$PROG" 2> /dev/null | grep -q __asan_init; then
    "$HR" capture --time-runs 3 -o "$T/t.hrt" -- "$PROG" < /dev/null > /dev/null 2> "$T/t.log"
    "$HR" capture -o "$T/c.hrt" -- "$PROG" < /dev/null > /dev/null 2> "$T/c.log"
    "$HR" replay -q -a glibc,stack -o "$T/t.json" "$T/t.hrt" > "$T/t.txt" 2> /dev/null
    "$HR" replay -q -a glibc,stack -o "$T/c.json" "$T/c.hrt" > "$T/c.txt" 2> /dev/null
    if [ "$(jget results.0.program.cpus "$T/t.json")" != null ] &&
        [ "$(jget results.0.program.load_before "$T/t.json")" != null ] &&
        [ "$(jget results.1.predict.runs_to_see "$T/t.json")" != null ] &&
        grep -q "load average .* before, .* after, [0-9]* CPUs; other programs kept [0-9.]* CPUs busy meanwhile$" "$T/t.log" &&
        awk -v o="$(jget results.0.program.other_cpu "$T/t.json")" -v c="$(jget results.0.program.cpus "$T/t.json")" \
            'BEGIN { exit !(o != "null" && o >= 0 && o <= c) }' &&
        ! grep -q "noise unknown" "$T/t.txt"; then
        ok "capture --time-runs 3: the noise record (other_cpu within 0..CPUs), and (b) answered"
    else not_ok "capture --time-runs 3: (b)" "$(cat "$T/t.log" "$T/t.txt")"; fi
    if [ "$(jget results.1.predict.runs_to_see "$T/c.json")" = null ] &&
        [ "$(jget results.0.program.cpus "$T/c.json")" = null ] &&
        grep -q "^stack .*noise unknown" "$T/c.txt"; then
        ok "capture without --time-runs: noise unknown"
    else not_ok "capture without --time-runs: noise unknown" "$(cat "$T/c.txt")"; fi
else
    skip "capture --time-runs: (b) answered" "capture library or test program not built (or ASan)"
    skip "capture without --time-runs: noise unknown" "capture library or test program not built (or ASan)"
fi

tap_done
