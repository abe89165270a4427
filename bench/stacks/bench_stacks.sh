#!/usr/bin/env bash
# What call stacks cost in capture (docs/CAPTURE.md, "Call stacks"): the CPU
# time (user + system of the whole process tree, as wait4 reports it: bash's
# `time`) of each program run four ways, interleaved A B C D per round so a
# machine that gets busier or quieter moves all four alike:
#   A none       the program alone
#   B capture    heapreplay capture -o T.hrt            (no stacks)
#   C stacks     heapreplay capture --stacks -o T.hrt   (stacks, symbols, trace)
#   D heaptrack  heaptrack -o T                         (its stacks, symbols, file)
# B, C and D are whole pipelines, from the program's start to the written file
# (ours: log, import, symbols; heaptrack's: its preload library and its
# interpreter process). Programs: bench/capture/cap_churn (malloc/free loop,
# 1 thread), sqlite3 on traces/real/sqlite_index.sql and CPython on
# traces/real/python_json.py (the programs of traces/real/recapture.sh that
# run in seconds). Then the bytes stacks add to the trace: the binary trace
# with --stacks minus the one without, per event, and the raw log's growth.
# Prints Markdown and writes it to $OUT.
# Usage: bench_stacks.sh BUILDDIR
#   ROUNDS (env, default 5), CHURN (env: cap_churn rounds, default 1000000),
#   OUT (env, default results/capture-stacks-vm.md), PYTHON (default /usr/bin/python3)
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
B="$(cd "${1:-.}" && pwd)"
S="$(cd "$(dirname "$0")/../.." && pwd)"
HR="$B/heapreplay"
ROUNDS=${ROUNDS:-5}
CHURN=${CHURN:-1000000}
OUT=${OUT:-$S/results/capture-stacks-vm.md}
PYTHON=$(readlink -f "${PYTHON:-/usr/bin/python3}")
CHURN_BIN="$B/bench/capture/cap_churn"
[ -x "$CHURN_BIN" ] || make -C "$B" bench/capture/cap_churn >&2
for need in "$HR" "$CHURN_BIN" "$PYTHON" "$(command -v sqlite3)" "$(command -v heaptrack)"; do
    [ -x "$need" ] || { echo "bench_stacks: missing $need" >&2; exit 2; }
done
hr_bench_start
SQL="$S/traces/real/sqlite_index.sql"
PYS="$S/traces/real/python_json.py"

# prog NAME: the command of program NAME (one word a line: no quoting issues)
prog() {
    case "$1" in
        churn) printf '%s\n' "$CHURN_BIN" "$CHURN" 1 ;;
        sqlite) printf '%s\n' sqlite3 :memory: ".read $SQL" ;;
        python) printf '%s\n' "$PYTHON" "$PYS" ;;
    esac
}

# cpu MODE NAME: the process tree's user + system seconds
cpu() {
    local mode=$1 TIMEFORMAT='%3U %3S' t
    local -a cmd
    mapfile -t cmd < <(prog "$2")
    rm -rf "$W/run" && mkdir -p "$W/run"
    case "$mode" in
        none) t=$( { time "${cmd[@]}" >/dev/null 2>&1; } 2>&1 ) ;;
        capture) t=$( { time "$HR" capture -o "$W/run/t.hrt" -- "${cmd[@]}" >/dev/null 2>&1; } 2>&1 ) ;;
        stacks) t=$( { time "$HR" capture --stacks -o "$W/run/t.hrt" -- "${cmd[@]}" >/dev/null 2>&1; } 2>&1 ) ;;
        heaptrack) t=$( { time heaptrack -o "$W/run/ht" "${cmd[@]}" >/dev/null 2>&1; } 2>&1 ) ;;
    esac
    echo "$t" | awk '{ printf "%.3f\n", $1 + $2 }'
}

MODES="none capture stacks heaptrack"
PROGS="churn sqlite python"
for r in $(seq "$ROUNDS"); do
    for p in $PROGS; do
        say "round $r/$ROUNDS: $p"
        for m in $MODES; do
            cpu "$m" "$p" >> "$W/$p.$m"
        done
    done
done

# bytes: one capture each way, --keep-raw
bytes() {
    local p=$1
    local -a cmd
    mapfile -t cmd < <(prog "$p")
    "$HR" capture --keep-raw -o "$W/$p.plain.hrt" -- "${cmd[@]}" >/dev/null 2>"$W/$p.plain.log"
    "$HR" capture --keep-raw --stacks -o "$W/$p.stk.hrt" -- "${cmd[@]}" >/dev/null 2>"$W/$p.stk.log"
    local ev a b ra rb
    ev=$("$HR" info "$W/$p.stk.hrt" | awk '$1 == "events" { print $2; exit }')
    a=$(stat -c %s "$W/$p.plain.hrt")
    b=$(stat -c %s "$W/$p.stk.hrt")
    ra=$(stat -c %s "$W/$p.plain.hrt.raw")
    rb=$(stat -c %s "$W/$p.stk.hrt.raw")
    awk -v p="$p" -v ev="$ev" -v a="$a" -v b="$b" -v ra="$ra" -v rb="$rb" \
        -v st="$(grep '^stacks:' "$W/$p.stk.log" | sed 's/^stacks: //')" 'BEGIN {
        printf "| %s | %d | %d | %d | %.2f | %d | %d | %.2f | %s |\n",
            p, ev, a, b, (b - a) / ev, ra, rb, (rb - ra) / ev, st }'
}

{
    hr_header "Call stacks in capture: CPU and bytes (capture --stacks vs heaptrack)" \
        "ROUNDS=$ROUNDS CHURN=$CHURN bench/stacks/bench_stacks.sh $B"
    echo "CPU seconds (user + system of the process tree) per run, median and range of $ROUNDS"
    echo "interleaved rounds (none, capture, capture --stacks, heaptrack in turn). Pipelines"
    echo "end with the written file: ours import and symbolize, heaptrack interprets."
    echo
    echo "| program | none | capture | capture --stacks | heaptrack | --stacks / heaptrack | --stacks - capture |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for p in $PROGS; do
        row="| $p"
        for m in $MODES; do
            med=$(hr_median < "$W/$p.$m")
            row="$row | $med ($(hr_min < "$W/$p.$m")-$(hr_max < "$W/$p.$m"))"
            eval "med_$m=$med"
        done
        row="$row | $(awk -v a="$med_stacks" -v b="$med_heaptrack" 'BEGIN { printf "%.2f", a / b }')"
        row="$row | $(awk -v a="$med_stacks" -v b="$med_capture" 'BEGIN { printf "%+.3f s", a - b }') |"
        echo "$row"
    done
    echo
    echo "Bytes stacks add (one capture with and one without --stacks; binary trace format 1.5,"
    echo "site ids delta-coded per allocating event, the stack table in the header; the raw log"
    echo "of the capture library):"
    echo
    echo "| program | events | trace bytes | with --stacks | added per event | raw log bytes | with --stacks | added per event | stacks |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
    for p in $PROGS; do bytes "$p"; done
    echo
    for p in $PROGS; do
        for m in $MODES; do echo "rounds $p $m: $(tr '\n' ' ' < "$W/$p.$m")"; done
    done
    echo
} > "$W/out.md"
hr_write_out
