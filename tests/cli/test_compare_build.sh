#!/usr/bin/env bash
# compare's program mode on two captures of a program of several processes
# (a build: `capture --follow-forks` writes b.hrt and one b.PID.hrt per
# child process; docs/REPORTS.md, "A program of several processes"). The
# children's names carry their pids, so two captures never share them: the
# children are compared as the whole program, never reported as missing.
#   1. the same build captured twice (the children under other pids, the
#      parent's digest changed): exit 0, no MISSING or new row, the whole
#      program's processes and allocations unchanged, 3 of 4 processes
#      with the same trace;
#   2. a build with one process more and one child allocating twice as much:
#      exit 1, its first line the whole program's processes 4 -> 5, the
#      allocations summed over the processes (85 -> 145);
#   2b. with the processes' commands (trace format 1.8): rows per program
#      (cc1's processes summed) and a note naming the process whose events
#      changed most among those that ran the same command; the report's
#      whole-program block lists the programs, each trace heading its process,
#      and where each allocator's change comes from (summed by program); its
#      sections read the parent, then the children heaviest first;
#   2d. every compile's command changed (a flag added): each pairs with its
#      own unit's by likeness, the note names the flag;
#   3. the whole program's allocator time is the processes' times summed
#      sample by sample (sample i of each process: one replay of the whole
#      program), its median the row's figure;
#   4. --max-regress program.processes=30 moves that figure's threshold;
#   5. a capture without its children on one side: one n/a row says so;
#   6. a game started by a launcher (the one child process with frame
#      marks): its per-frame figures are compared as its own;
#   7. replay: a folder of compressed traces (a capture compressed after the
#      run) is replayed whole; a parent named without its children gets a
#      note saying how many child traces lie beside it.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
HR="$top_builddir/heapreplay"
[ -x "$HR" ] || skip_all "heapreplay not built"
command -v jq >/dev/null || skip_all "jq not installed"
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_cmp_build.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

# A text trace: N blocks of SIZE made, the first KEEP of them never freed.
blocks() { # N SIZE KEEP
    local i
    for ((i = 0; i < $1; i++)); do echo "alloc $i $2"; done
    for ((i = $3; i < $1; i++)); do echo "free $i"; done
}
parent() { # DIR PARENT_SIZE: the parent, with the whole run's program time
    { echo "heapreplay-trace 1 runs=5 timed=plain wall_ns=900000000 cpu_ns=800000000 cpu_min_ns=790000000 cpu_max_ns=810000000 max_rss=10485760"
      blocks 19 100 0; echo "alloc 19 $2"; echo "free 19"; } > "$1/b.hrtt"
}
child() { # DIR PID N SIZE KEEP [COMMAND, percent-encoded]: its own program time, as capture's
    { echo "heapreplay-trace 1 runs=1 timed=capture wall_ns=2000000 cpu_ns=1000000 cpu_min_ns=1000000 cpu_max_ns=1000000 max_rss=1048576${6:+ command=$6}"
      blocks "$3" "$4" "$5"; } > "$1/b.$2.hrtt"
}
mkdir -p "$T/a" "$T/same" "$T/more" "$T/alone" "$T/opt"
# the children's commands (trace format 1.8): two compilers and an assembler
CA=/usr/bin/cc1%20a.c CB=/usr/bin/cc1%20b.c AS=/usr/bin/as%20-o%20a.o%20/tmp/ccX1.s
parent "$T/a" 100;    child "$T/a" 201 10 64 0 "$CA";    child "$T/a" 202 50 32 0 "$CB"
child "$T/a" 203 5 4096 3 "$AS"
parent "$T/same" 104; child "$T/same" 301 10 64 0 "$CA"; child "$T/same" 302 50 32 0 "$CB"
child "$T/same" 303 5 4096 3 /usr/bin/as%20-o%20a.o%20/tmp/ccY2.s
parent "$T/more" 104; child "$T/more" 401 10 64 0 "$CA"; child "$T/more" 402 100 32 0 "$CB"
child "$T/more" 403 5 4096 3 "$AS"; child "$T/more" 404 10 16 0 /usr/bin/ld
parent "$T/alone" 104
# the build with another flag to every compile: no cc1 command as before
parent "$T/opt" 104; child "$T/opt" 701 10 64 0 /usr/bin/cc1%20-O3%20a.c
child "$T/opt" 702 100 32 0 /usr/bin/cc1%20-O3%20b.c; child "$T/opt" 703 5 4096 3 "$AS"
# frames: a child of K allocations per frame, 4 frames (the first is the load)
game() { # DIR PID K
    local f i id=0
    { echo "heapreplay-trace 1"
      for f in 1 2 3 4; do
          echo "frame $f"
          for ((i = 0; i < $3; i++)); do echo "alloc $id 48"; echo "free $id"; id=$((id + 1)); done
      done; } > "$1/b.$2.hrtt"
}
mkdir -p "$T/ga" "$T/gb"
parent "$T/ga" 100; child "$T/ga" 501 10 64 0; game "$T/ga" 502 40
parent "$T/gb" 104; child "$T/gb" 601 10 64 0; game "$T/gb" 602 80
for d in a same more alone ga gb opt; do
    if ! "$HR" replay "$T/$d" -a glibc -r 3 --warm-time 0 -q -o "$T/$d.json" >/dev/null 2>"$T/$d.err"; then
        not_ok "replay of the capture '$d'" "$(cat "$T/$d.err")"
        tap_done
    fi
done
W="b.hrtt (whole program)"
# row FILE METRIC [ALLOCATOR]: "base new verdict" of the whole program's row
row() {
    jq -r --arg t "$W" --arg m "$2" --arg a "${3:--}" \
        '.rows[] | select(.trace == $t and .metric == $m and .allocator == $a) |
         "\(.base) \(.new) \(.verdict)"' "$1"
}

# 1. the same build twice
"$HR" compare -f json "$T/a.json" "$T/same.json" > "$T/same.cmp" 2>"$T/err"
rc=$?
lost=$(jq '[.rows[] | select(.verdict == "MISSING" or .verdict == "new")] | length' "$T/same.cmp")
if [ $rc = 0 ] && [ "$lost" = 0 ] && [ "$(jq -r .mode "$T/same.cmp")" = program ]; then
    ok "the same build twice: exit 0, no child process missing or new"
else not_ok "the same build twice: exit 0, no child process missing or new" \
    "exit $rc, $lost missing/new rows" "$(jq -c '.rows[] | select(.verdict == "MISSING")' "$T/same.cmp" | head -3)"; fi
if [ "$(row "$T/same.cmp" processes)" = "4 4 ok" ] && [ "$(row "$T/same.cmp" allocations)" = "85 85 ok" ] &&
   jq -r --arg t "$W" '.rows[] | select(.trace == $t and .metric == "identical processes") | .reason' \
       "$T/same.cmp" | grep -q "^3 of 4 (new: 4) with the same trace in both"; then
    ok "the same build twice: the whole program's 4 processes and 85 allocations, 3 processes identical"
else not_ok "the same build twice: the whole program's figures" \
    "processes: $(row "$T/same.cmp" processes); allocations: $(row "$T/same.cmp" allocations)" \
    "$(jq -c --arg t "$W" '.rows[] | select(.trace == $t)' "$T/same.cmp" | head -4)"; fi

# 2. one process more, one child allocating twice as much
"$HR" compare "$T/a.json" "$T/more.json" > "$T/more.txt" 2>"$T/err"
rc=$?
"$HR" compare -f json "$T/a.json" "$T/more.json" > "$T/more.cmp" 2>>"$T/err"
if [ $rc = 1 ] && head -1 "$T/more.txt" | grep -q "^$W: processes 4 → 5 (+25 %), REGRESSION$"; then
    ok "a build with a process more: exit 1, the first line says so"
else not_ok "a build with a process more: exit 1, the first line says so" "exit $rc" "$(head -3 "$T/more.txt")"; fi
if [ "$(row "$T/more.cmp" allocations)" = "85 145 REGRESSION" ] &&
   [ "$(row "$T/more.cmp" "blocks never freed")" = "3 3 ok" ] &&
   [ "$(row "$T/more.cmp" "peak live")" = "20480 20480 ok" ]; then
    ok "the whole program: allocations summed (85 -> 145), never freed summed, the largest peak live"
else not_ok "the whole program: allocations summed, never freed summed, the largest peak live" \
    "allocations: $(row "$T/more.cmp" allocations); never freed: $(row "$T/more.cmp" "blocks never freed"); peak live: $(row "$T/more.cmp" "peak live")"; fi

# 2b. by program (the recorded commands): cc1's allocations 60 -> 110, ld
#     only in new; the note names the compile that grew, paired by command
#     (the assembler's temporary file's name does not count)
cc1=$(jq -r '.rows[] | select(.trace == "b.hrtt (whole program: cc1)" and .metric == "allocations") |
      "\(.base) \(.new) \(.verdict)"' "$T/more.cmp")
ld=$(jq -r '.rows[] | select(.trace == "b.hrtt (whole program: ld)") | "\(.metric) \(.verdict)"' "$T/more.cmp")
note=$(jq -r --arg t "$W" '.rows[] | select(.trace == $t and (.metric | startswith("process "))) |
       "\(.metric): \(.reason)"' "$T/more.cmp")
if [ "$cc1" = "60 110 REGRESSION" ] && [ "$ld" = "processes n/a" ] &&
   [ "$(printf '%s\n' "$note" | head -n 1 | cut -d, -f1)" = "process cc1 b.c: the same command in both captures: events 100 -> 200 (+100.0%)" ] &&
   [ "$(printf '%s\n' "$note" | wc -l)" = 1 ]; then
    ok "by program: cc1's allocations summed (60 -> 110), ld new; the note names cc1 b.c (+100 %)"
else not_ok "by program and by command" "cc1: $cc1" "ld: $ld" "note: $note"; fi

# 2d. every compile's command changed (a flag added): each pairs with its own
#     unit's by likeness, and the note names the one that grew and the flag
"$HR" compare -f json "$T/a.json" "$T/opt.json" > "$T/opt.cmp" 2>"$T/err"
note=$(jq -r --arg t "$W" '.rows[] | select(.trace == $t and (.metric | startswith("process "))) |
       "\(.metric): \(.reason)"' "$T/opt.cmp")
if [ "$(printf '%s\n' "$note" | cut -d, -f1)" = "process cc1 b.c: a like command in both captures ((none) -> -O3): events 100 -> 200 (+100.0%)" ]; then
    ok "a flag added to every compile: the grown unit's process paired by likeness, the flag named"
else not_ok "a flag added to every compile: paired by likeness" "note: $note"; fi

# 2c'. the report's sections: the parent, then its children heaviest first
#      (events: b.402 200, b.401 and b.404 20 each in report order, b.403 7)
"$HR" report "$T/more.json" > "$T/order.txt" 2>&1
order=$(sed -n 's|^trace '"$T"'/more/\([^:]*\):.*|\1|p' "$T/order.txt" | tr '\n' ' ')
check "the report reads the parent, then its children heaviest first ($order)" \
    test "$order" = "b.hrtt b.402.hrtt b.401.hrtt b.404.hrtt b.403.hrtt "

# 2c. the report lists the programs of the whole program (the parent has no
#     command here: three children's)
progs=$(jq -c '[.whole_program[0].programs[] | "\(.name) \(.processes)"]' "$T/more.json")
"$HR" report "$T/more.json" > "$T/more.txt" 2>&1
if [ "$progs" = '["cc1 2","as 1","ld 1"]' ] && grep -q "^  processes: cc1 x2, as, ld$" "$T/more.txt" &&
   grep -q "^trace $T/more/b.402.hrtt: .*; process: cc1 b.c$" "$T/more.txt"; then
    ok "the report: the whole program's programs (cc1 x2, as, ld), each trace's process"
else not_ok "the report names the programs" "$progs" "$(grep -E "processes:|process:" "$T/more.txt")"; fi

# 2d. where an allocator's whole-program change comes from: its processes'
#     predicted changes summed by program (block: an allocator of its own)
"$HR" replay "$T/more" -a glibc,block -r 1 --warm-time 0 -q -o "$T/bp.json" >/dev/null 2>"$T/err"
bp=$(jq -r '.whole_program[0].allocators[] | select(.allocator == "block") | .by_program[] |
     select(.name == "cc1") | "\(.processes) \(.change_s)"' "$T/bp.json")
want=$(jq -r '[.results[] | select(.allocator == "block" and ((.process_command // "") |
       startswith("/usr/bin/cc1 "))) | .predict.change_s] | "\(length) \(add)"' "$T/bp.json")
"$HR" report "$T/bp.json" > "$T/bp.txt" 2>&1
if [ -n "$bp" ] && awk -v a="$bp" -v b="$want" 'BEGIN { split(a, x, " "); split(b, y, " ")
       exit !(x[1] == 2 && y[1] == 2 && (x[2] - y[2]) ^ 2 < 1e-18) }' &&
   grep -A1 "^    block " "$T/bp.txt" | tr -s ' \n' ' ' | grep -q "; by program: .*cc1 "; then
    ok "by program: block's change summed over cc1's 2 processes ($bp), shown in the report"
else not_ok "by program: an allocator's change summed by program" "by_program: '$bp'" \
    "results: '$want'" "$(grep -A1 '^    block' "$T/bp.txt")"; fi

# 3. allocator time: each process's cold-lap samples summed sample by sample
want=$(jq -r '[.results[] | .samples["time.cold_cpu_s"]] | transpose | map(add) | sort |
              .[1]' "$T/a.json")
got=$(row "$T/more.cmp" "allocator time" glibc | cut -d' ' -f1)
if awk -v a="$want" -v b="$got" 'BEGIN { exit !(a > 0 && (a - b) ^ 2 < 1e-24) }'; then
    ok "the whole program's allocator time: the median of the sample-wise sums ($got s)"
else not_ok "the whole program's allocator time: the median of the sample-wise sums" \
    "want $want, got '$got'"; fi

# 4. --max-regress names the figure's path
"$HR" compare -f json --max-regress program.processes=30 "$T/a.json" "$T/more.json" > "$T/thr.cmp" 2>"$T/err"
if [ "$(row "$T/thr.cmp" processes)" = "4 5 ok" ] && [ "$(row "$T/thr.cmp" allocations)" = "85 145 REGRESSION" ]; then
    ok "--max-regress program.processes=30: 4 -> 5 within it, allocations still called"
else not_ok "--max-regress program.processes=30" "$(row "$T/thr.cmp" processes)" "$(cat "$T/err")"; fi

# 5. the new capture has no children (made without --follow-forks)
"$HR" compare -f json "$T/a.json" "$T/alone.json" > "$T/alone.cmp" 2>"$T/err"
rc=$?
lost=$(jq '[.rows[] | select(.verdict == "MISSING")] | length' "$T/alone.cmp")
if [ $rc = 0 ] && [ "$lost" = 0 ] &&
   jq -r --arg t "$W" '.rows[] | select(.trace == $t and .metric == "processes") | "\(.verdict) \(.reason)"' \
       "$T/alone.cmp" | grep -q "^n/a base has 3 child processes, new none"; then
    ok "children on one side only: one n/a row says so, nothing missing"
else not_ok "children on one side only: one n/a row says so" "exit $rc, $lost missing" \
    "$(jq -c --arg t "$W" '.rows[] | select(.trace == $t)' "$T/alone.cmp")"; fi

# 6. the game under a launcher: its allocations per frame, 40 -> 80
"$HR" compare -f json "$T/ga.json" "$T/gb.json" > "$T/g.cmp" 2>"$T/err"
rc=$?
G="b.hrtt (its process with frames)"
apf=$(jq -r --arg t "$G" '.rows[] | select(.trace == $t and .metric == "allocations per frame") |
      "\(.base) \(.new) \(.verdict)"' "$T/g.cmp")
if [ $rc = 1 ] && [ "$apf" = "40 80 REGRESSION" ]; then
    ok "a game under a launcher: its allocations per frame compared (40 -> 80)"
else not_ok "a game under a launcher: its allocations per frame compared" "exit $rc, '$apf'" \
    "$(jq -c '.rows[] | select(.verdict == "REGRESSION")' "$T/g.cmp" | head -5)"; fi

# 7. compressed traces in a folder; a parent replayed alone
mkdir -p "$T/z"
for f in "$T"/a/*.hrtt; do gzip -c "$f" > "$T/z/$(basename "$f").gz"; done
"$HR" replay "$T/z" -a glibc -r 1 --warm-time 0 -q -o "$T/z.json" >/dev/null 2>"$T/err"
ntr=$(jq '[.results[].trace] | unique | length' "$T/z.json" 2>/dev/null)
wp=$(jq -r '.whole_program[0].processes' "$T/z.json" 2>/dev/null)
if [ "$ntr" = 4 ] && [ "$wp" = 4 ]; then
    ok "a folder of gzip-compressed traces: all 4 replayed, one whole program"
else not_ok "a folder of compressed traces replayed" "traces $ntr, whole program $wp" "$(cat "$T/err")"; fi
"$HR" replay "$T/a/b.hrtt" "$T/a/b.201.hrtt" -a glibc -r 1 --warm-time 0 -o "$T/one.json" \
    >/dev/null 2>"$T/err"
"$HR" replay "$T/a" -a glibc -r 1 --warm-time 0 -o "$T/all.json" >/dev/null 2>"$T/err2"
if grep -q "^heapreplay replay: note: $T/a/b.hrtt has 2 child process traces beside it" "$T/err" &&
   ! grep -q "note: .*child process" "$T/err2"; then
    ok "a parent replayed without 2 of its children: a note says so; the whole folder: none"
else not_ok "a parent replayed without its children: a note" "$(cat "$T/err")" "$(cat "$T/err2")"; fi
tap_done
