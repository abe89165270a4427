#!/usr/bin/env bash
# The memory lap (replay --memory-lap; docs/METRICS.md "Memory lap: paced or
# fast"): a trace with timestamps gets the paced lap, which waits for the
# recorded times (a 300 ms gap makes it last at least 0.3 s: a check that it
# paces, not a timing target), serial and on threads; a trace without
# timestamps gets the fast lap and the note; fast on request; the option's
# parsing; predict's RSS change from the paced lap when both rows have one.
# Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup pc
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (quickstart.sh installs it)"
replay() { "$HR" replay --warm-time 0 -r 1 -q -f json "$@"; }

# jq_check NAME FILE FILTER: ok when FILTER gives true for FILE.
jq_check() {
    local got
    got=$(jq -e "$3" "$2" 2>&1)
    if [ "$got" = true ]; then ok "$1"; else not_ok "$1" "jq: $3" "got: $got"; fi
}

# 300 ms between the allocations and the frees (timestamps in ns)
cat > "$T/gap.hrtt" <<'TR'
heapreplay-trace 1 timestamps
alloc 0 65536 @1000
alloc 1 64 @2000
free 0 65536 @300002000
free 1 64 @300003000
TR
# the same on two threads: thread 1's block freed by thread 0 after the gap
cat > "$T/gap2.hrtt" <<'TR'
heapreplay-trace 1 timestamps
alloc 0 65536 @1000
alloc 1 64 t=1 @2000
free 1 64 @300002000
free 0 65536 @300003000
TR
sed -e '1s/ timestamps//' -e 's/ @[0-9]*$//' "$T/gap.hrtt" > "$T/nots.hrtt"

s0=$(date +%s%N)
replay -a glibc "$T/gap.hrtt" > "$T/gap.json" 2> "$T/err"
s1=$(date +%s%N)
jq_check "auto: a trace with timestamps gets the paced lap" "$T/gap.json" \
    '.results[0] | .memory.lap == "paced" and (.memory.lap_note == null)'
jq_check "paced: the lap lasted the 300 ms gap, and the fast lap's peak is kept beside" \
    "$T/gap.json" '.results[0].memory | .paced_lap_s >= 0.3 and .peak_rss > 0 and .peak_rss_fast > 0'
if [ $((s1 - s0)) -ge 300000000 ]; then ok "paced: the replay took at least 0.3 s of wall time"
else not_ok "paced: the replay took at least 0.3 s of wall time" "took $((s1 - s0)) ns"; fi

# One paced lap per row, not per sample: the replay's server runs it in a
# process of its own (HR_PACED_FD in its environment) and hands its figures
# to each of the row's measure workers (HR_PACED_GIVEN): with -r 3, one
# paced process for glibc, none for the in-house sizeclass, three measure
# workers given the same figures. With two paced rows, both laps run at
# once: the second paced process starts before the first has exited.
ext=
for e in jemalloc mimalloc tcmalloc; do
    "$HR" replay --warm-time 0 -q -f json -a "$e" "$T/nots.hrtt" 2>/dev/null |
        jq -e '.results[0].status == "ok"' >/dev/null 2>&1 && { ext=$e; break; }
done
if ! command -v strace >/dev/null 2>&1 || ! strace -f -o /dev/null true 2>/dev/null; then
    skip "paced lap once per row (strace)" "strace cannot run here"
    skip "paced laps of a trace's rows at once (strace)" "strace cannot run here"
else
    strace -f -v -s 300 -e trace=execve -o "$T/st" "$HR" replay --warm-time 0 -r 3 -q -f json \
        -a glibc,sizeclass "$T/gap.hrtt" > "$T/once.json" 2> "$T/err"
    n_fd=$(grep -c 'execve(.*"HR_PACED_FD=' "$T/st")
    given=$(grep -o '"HR_PACED_GIVEN=[^"]*"' "$T/st" | sort | uniq -c)
    if [ "$n_fd" = 1 ] && [ "$(printf '%s\n' "$given" | wc -l)" = 1 ] &&
       printf '%s\n' "$given" | grep -Eq '^ *3 "HR_PACED_GIVEN=paced [0-9]+ [0-9]+"$' &&
       jq -e '(.results | map({(.allocator): .}) | add) as $r | $r.glibc.memory.lap == "paced"
              and $r.glibc.runs == 3 and $r.sizeclass.memory.lap == "fast"' "$T/once.json" \
              >/dev/null; then
        ok "paced lap once per row: one paced process, its figures in the row's 3 measure workers"
    else not_ok "paced lap once per row: one paced process, its figures in the row's 3 measure workers" \
        "paced processes: $n_fd" "given: $given"; fi
    if [ -z "$ext" ]; then
        skip "paced laps of a trace's rows at once (strace)" "no external allocator built"
    else
        strace -f -v -s 300 -e trace=execve -o "$T/st2" "$HR" replay --warm-time 0 -r 1 -q \
            -f json -a "glibc,$ext" "$T/gap.hrtt" > "$T/two.json" 2> "$T/err"
        # the pids of the paced processes, then the order of their execs and exits
        pids=$(grep 'execve(.*"HR_PACED_FD=' "$T/st2" | awk '!seen[$1]++ {print $1}')
        set -- $pids
        if [ $# = 2 ]; then
            second_exec=$(grep -n "^$2 .*execve(.*\"HR_PACED_FD=" "$T/st2" | head -1 | cut -d: -f1)
            first_exit=$(grep -nE "^$1 +[+]{3} (exited|killed)" "$T/st2" | head -1 | cut -d: -f1)
        fi
        if [ $# = 2 ] && [ -n "${second_exec:-}" ] && [ -n "${first_exit:-}" ] &&
           [ "$second_exec" -lt "$first_exit" ] &&
           jq -e '[.results[].memory.lap] == ["paced", "paced"]' "$T/two.json" >/dev/null; then
            ok "paced laps of a trace's rows at once: glibc's and $ext's overlap"
        else not_ok "paced laps of a trace's rows at once: glibc's and $ext's overlap" \
            "paced pids: $pids" "second exec line ${second_exec:-?}, first exit line ${first_exit:-?}"; fi
    fi
fi

replay -a glibc --threads recorded "$T/gap2.hrtt" > "$T/gap2.json" 2> "$T/err"
jq_check "paced on threads: each thread waits for its own times" "$T/gap2.json" \
    '.results[0] | .memory.lap == "paced" and .memory.paced_lap_s >= 0.3 and .threads.n == 2'

replay -a glibc "$T/nots.hrtt" > "$T/nots.json" 2> "$T/err"
jq_check "no timestamps: the fast lap, with the note" "$T/nots.json" \
    '.results[0].memory | .lap == "fast" and
     .lap_note == "memory lap not paced: the trace has no timestamps" and .peak_rss_fast == null'

# the text report says which lap gave peak RSS
"$HR" report "$T/gap.json" > "$T/gap.txt" 2>&1
"$HR" report "$T/nots.json" > "$T/nots.txt" 2>&1
if grep -q "peak RSS from the paced memory lap: .*one lap per row" "$T/gap.txt" &&
   grep -q "memory lap not paced: the trace has no timestamps" "$T/nots.txt" &&
   ! grep -q "not paced" "$T/gap.txt"; then
    ok "text report: the memory lap's line (paced; the note without timestamps)"
else not_ok "text report: the memory lap's line (paced; the note without timestamps)" \
    "$(grep -i "memory lap" "$T/gap.txt" "$T/nots.txt")"; fi

replay -a glibc --memory-lap fast "$T/gap.hrtt" > "$T/fast.json" 2> "$T/err"
jq_check "--memory-lap fast: no paced lap, no note" "$T/fast.json" \
    '.results[0].memory | .lap == "fast" and .lap_note == null and .paced_lap_s == null'

"$HR" replay --memory-lap slow -q "$T/gap.hrtt" > /dev/null 2> "$T/err"; rc=$?
if [ $rc = 2 ] && grep -q "memory-lap" "$T/err" && grep -q "auto|fast|paced" "$T/err" &&
   [ "$(wc -l < "$T/err")" = 1 ]; then ok "--memory-lap slow: one-line error, exit 2"
else not_ok "--memory-lap slow: one-line error, exit 2" "exit $rc" "$(cat "$T/err")"; fi
"$HR" replay --help 2>&1 | grep -q -- "--memory-lap=MODE" && ok "--help lists --memory-lap" ||
    not_ok "--help lists --memory-lap"

# predict: with program time and a glibc row, the RSS change is the paced
# peaks' difference, and says so
{ echo "heapreplay-trace 1 timestamps runs=3 timed=plain wall_ns=400000000 cpu_ns=300000000" \
       "cpu_min_ns=290000000 cpu_max_ns=310000000 max_rss=10000000"; sed 1d "$T/gap.hrtt"; } \
    > "$T/prog.hrtt"
replay -a glibc,sizeclass "$T/prog.hrtt" > "$T/proga.json" 2> "$T/err"
jq_check "auto paces the C library's row, not an in-house allocator's (which releases nothing by time)" \
    "$T/proga.json" '(.results | map({(.allocator): .}) | add) as $r |
     $r.glibc.memory.lap == "paced" and $r.sizeclass.memory.lap == "fast" and
     ($r.sizeclass.memory.lap_note | test("in-house")) and $r.sizeclass.predict.rss_lap == "fast"'
"$HR" report "$T/proga.json" 2>&1 | grep -q "peak RSS: 1 rows from the paced memory lap (one lap per row" &&
    ok "text report, paced and fast rows: the paced lap is one per row" ||
    not_ok "text report, paced and fast rows: the paced lap is one per row" \
        "$("$HR" report "$T/proga.json" 2>&1 | grep -i "memory lap")"
replay -a glibc,sizeclass --memory-lap paced "$T/prog.hrtt" > "$T/prog.json" 2> "$T/err"
jq_check "predict: rss_change_bytes from the paced laps (rss_lap paced)" "$T/prog.json" \
    '(.results | map({(.allocator): .}) | add) as $r |
     $r.sizeclass.predict.rss_lap == "paced" and
     $r.sizeclass.predict.rss_change_bytes == ($r.sizeclass.memory.peak_rss - $r.glibc.memory.peak_rss)'
replay -a glibc,sizeclass --memory-lap fast "$T/prog.hrtt" > "$T/progf.json" 2> "$T/err"
jq_check "predict: the fast laps' difference with --memory-lap fast (rss_lap fast)" "$T/progf.json" \
    '(.results | map({(.allocator): .}) | add) as $r |
     $r.sizeclass.predict.rss_lap == "fast" and
     $r.sizeclass.predict.rss_change_bytes == ($r.sizeclass.memory.peak_rss - $r.glibc.memory.peak_rss)'
tap_done
