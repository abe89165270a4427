#!/usr/bin/env bash
# Scale: resident memory per event and speed of `info` and of
# `replay -a all` on large generated traces. Writes results/scale-<host>.md.
#
#   bash bench/scale/scale.sh BUILDDIR          (make bench-scale)
#   SIZES="10M 100M"   trace sizes (gen session --events), default 10M 100M;
#                      KxN (e.g. 10x100M: 1 G events) repeats the N trace K times
#                      (bench/scale/repeat_trace.py: gen holds every event decoded)
#   REPLAY_SIZES="10M" sizes also replayed with -a all -r 1 (default: SIZES)
#   PIN="taskset -c 0 nice -n 19"  prefix of every measured command (default)
#   HR_BIN=PATH        another heapreplay binary to measure (e.g. an older build)
#   OUT=PATH           where to write (default results/scale-<host>.md)
#
# info: wall time and the peak RSS of the process (/usr/bin/time %e %M).
# replay: the peak over time of the summed RSS and PSS of the whole process
# tree (parent and workers), sampled from /proc/PID/smaps_rollup every 0.2 s,
# and the largest peak RSS of any one process. Bytes per event = bytes / events.
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
HR=${HR_BIN:-$HR}
SIZES=${SIZES:-"10M 100M"}
REPLAY_SIZES=${REPLAY_SIZES:-$SIZES}
PIN=${PIN:-"taskset -c 0 nice -n 19"}
OUT=${OUT:-"$S/results/scale-$(hostname -s).md"}

events_of() { "$HR" info --json "$1" | tr ',' '\n' | sed -n 's/.*"events": *\([0-9]*\).*/\1/p' | head -1; }

# tree_mem PID: "RSS_KB PSS_KB" summed over PID and its descendants.
tree_mem() {
    local pids=$1 all="" next p
    while [ -n "$pids" ]; do
        all="$all $pids"
        next=""
        for p in $pids; do
            next="$next $(cat /proc/"$p"/task/*/children 2>/dev/null || true)"
        done
        pids=$(echo $next)
    done
    for p in $all; do
        cat /proc/"$p"/smaps_rollup 2>/dev/null || true
    done | awk '/^Rss:/ {r += $2} /^Pss:/ {p += $2} END {print r + 0, p + 0}'
}

# peak_tree CMD...: runs CMD, prints "WALL_S PEAK_RSS_KB PEAK_PSS_KB MAXRSS_KB RC": the wall
# time and the largest RSS of any one process (/usr/bin/time: wait4's ru_maxrss is the
# maximum over the process and its descendants), the tree's sampled peaks.
peak_tree() {
    local pid rss pss mr=0 mp=0 rc wall maxrss
    /usr/bin/time -f "%e %M" -o "$W/time.out" "$@" >"$W/cmd.out" 2>"$W/cmd.err" &
    pid=$!
    while kill -0 $pid 2>/dev/null; do
        read -r rss pss < <(tree_mem $pid)
        [ "$rss" -gt "$mr" ] && mr=$rss
        [ "$pss" -gt "$mp" ] && mp=$pss
        sleep 0.2
    done
    wait $pid && rc=0 || rc=$?
    read -r wall maxrss < <(tail -1 "$W/time.out")
    echo "$wall $mr $mp $maxrss $rc"
}

per_event() { echo "scale=1; $1 * 1024 / $2" | bc; }

{
    hr_header "Scale: resident bytes per event, info and replay -a all" "bash bench/scale/scale.sh (SIZES=\"$SIZES\" REPLAY_SIZES=\"$REPLAY_SIZES\")"
    echo "Traces: \`heapreplay gen session --events N --seed 21\` (the shipped event mix of a"
    echo "game session). Every command ran as \`$PIN ...\` (one CPU, lowest priority)."
    echo
    echo "## info"
    echo
    echo "| events | file bytes | wall s | M events/s | peak RSS | RSS bytes/event |"
    echo "|---:|---:|---:|---:|---:|---:|"
} >"$W/report.md"

# make_trace N: $W/session_N.hrt, generated or (KxN) repeated.
make_trace() {
    local n=$1 tr="$W/session_$1.hrt" k base last
    [ -f "$tr" ] && return 0
    case $n in
    *x*)
        k=${n%%x*} base=${n#*x}
        make_trace "$base"
        last=$("$HR" convert "$W/session_$base.hrt" -t text -o - 2>/dev/null |
            grep -E '^(alloc|calloc|free|realloc) ' | tail -1 |
            awk '{print ($1 == "realloc") ? $3 : $2}')
        say "repeat session_$base $k times (last id $last)"
        python3 "$S/bench/scale/repeat_trace.py" "$W/session_$base.hrt" "$tr" "$k" "$last"
        ;;
    *)
        say "gen session --events $n"
        $PIN "$HR" gen session --events "$n" --seed 21 -o "$tr" >/dev/null
        ;;
    esac
}

for n in $SIZES; do
    tr="$W/session_$n.hrt"
    make_trace "$n"
    ev=$(events_of "$tr")
    bytes=$(stat -c %s "$tr")
    say "info ($ev events)"
    read -r wall _ _ maxrss rc < <(peak_tree $PIN "$HR" info --json "$tr")
    [ "$rc" = 0 ] || { say "info failed: $(cat "$W/cmd.err")"; exit 1; }
    printf '| %s | %s | %.2f | %.1f | %.0f MiB | %s |\n' "$ev" "$bytes" "$wall" \
        "$(echo "$ev / $wall / 1000000" | bc -l)" "$(echo "$maxrss / 1024" | bc -l)" \
        "$(per_event "$maxrss" "$ev")" >>"$W/report.md"
done

{
    echo
    echo "## replay -a all -r 1 --warm-time 0 --timeout 7200"
    echo
    echo "Peak over time of the process tree (parent + workers), sampled every 0.2 s."
    echo
    echo "| events | wall s | tree peak RSS | RSS bytes/event | tree peak PSS | PSS bytes/event | largest process peak RSS | its bytes/event | exit |"
    notes=""
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >>"$W/report.md"
for n in $REPLAY_SIZES; do
    tr="$W/session_$n.hrt"
    make_trace "$n"
    ev=$(events_of "$tr")
    say "replay -a all -r 1 ($ev events)"
    read -r wall mr mp maxrss rc < <(peak_tree $PIN "$HR" replay -q -a all -r 1 --warm-time 0 \
        --timeout 7200 "$tr" -o "$W/r_$n.json")
    rows=$(grep -o '"status": "[a-z]*"\|"event_form": "[a-z]*"' "$W/r_$n.json" 2>/dev/null |
        sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $3}' | tr -d '"')
    notes="$notes- $ev events: rows: ${rows:-none}"$'\n'
    printf '| %s | %.1f | %.0f MiB | %s | %.0f MiB | %s | %.0f MiB | %s | %s |\n' "$ev" "$wall" \
        "$(echo "$mr / 1024" | bc -l)" "$(per_event "$mr" "$ev")" "$(echo "$mp / 1024" | bc -l)" \
        "$(per_event "$mp" "$ev")" "$(echo "$maxrss / 1024" | bc -l)" "$(per_event "$maxrss" "$ev")" \
        "$rc" >>"$W/report.md"
done
printf '\nRow statuses and event forms (results, status counts):\n\n%s' "$notes" >>"$W/report.md"
cp "$W/report.md" "$OUT"
say "wrote $OUT"
