#!/usr/bin/env bash
# What the whole `heapreplay capture` command costs (docs/CAPTURE.md,
# "Overhead"): CPU time (user + system of the process tree, from wait4) and
# max RSS (the largest process of the tree) of each program run three ways,
# interleaved A B C per round so a machine that gets busier or quieter moves
# all three alike:
#   A none       the program alone
#   B capture    heapreplay capture -o T.hrt -- PROG   (library, log, conversion, file)
#   C heaptrack  heaptrack -o T PROG                   (library, interpreter, file)
# (and D old: $OLD capture, another build's heapreplay, when OLD is set).
# Programs: bench/capture/cap_churn (a malloc/free loop, 1 thread, CHURN rounds
# = 2 x CHURN events), sqlite3 on traces/real/sqlite_index.sql and CPython on
# traces/real/python_json.py. Prints Markdown and writes it to $OUT, keeping
# the section bench/capture/overhead_fit.sh wrote at its end (the summary's
# overhead figure against the measured one).
# Usage: capture_cost.sh BUILDDIR
#   ROUNDS (env, default 5), CHURN (default 10000000: 20 M events),
#   OUT (default results/capture-cost-vm.md), PYTHON (default /usr/bin/python3),
#   OLD (a heapreplay binary to compare with; its capture library next to it)
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
. "$(dirname "$0")/cap_programs.sh"
B="$(cd "${1:-.}" && pwd)"
S="$(cd "$(dirname "$0")/../.." && pwd)"
HR="$B/heapreplay"
ROUNDS=${ROUNDS:-5}
CHURN=${CHURN:-10000000}
OUT=${OUT:-$S/results/capture-cost-vm.md}
PYTHON=$(readlink -f "${PYTHON:-/usr/bin/python3}")
OLD=${OLD:-}
CHURN_BIN="$B/bench/capture/cap_churn"
RUSAGE="$S/bench/fidelity/rusage_run.py"
[ -x "$CHURN_BIN" ] || make -C "$B" bench/capture/cap_churn >&2
for need in "$HR" "$CHURN_BIN" "$PYTHON" "$(command -v sqlite3)" "$(command -v heaptrack)" ${OLD:+"$OLD"}; do
    [ -x "$need" ] || { echo "capture_cost: missing $need" >&2; exit 2; }
done
hr_bench_start

# one MODE NAME: appends "cpu_s max_rss_kb" to $W/NAME.MODE; a capture's
# summary goes to $W/NAME.MODE.sum.N
one() {
    local mode=$1 p=$2 n
    local -a cmd
    mapfile -t cmd < <(cap_prog "$p")
    rm -rf "$W/run" && mkdir -p "$W/run"
    n=0
    [ ! -f "$W/$p.$mode" ] || n=$(wc -l < "$W/$p.$mode")
    case "$mode" in
        none) python3 "$RUSAGE" "$W/r" "${cmd[@]}" >/dev/null 2>&1 ;;
        capture) python3 "$RUSAGE" "$W/r" "$HR" capture -s "$W/$p.$mode.sum.$n" \
                     -o "$W/run/t.hrt" -- "${cmd[@]}" >/dev/null 2>&1 ;;
        old) python3 "$RUSAGE" "$W/r" "$OLD" capture -s "$W/$p.$mode.sum.$n" \
                 -o "$W/run/t.hrt" -- "${cmd[@]}" >/dev/null 2>&1 ;;
        heaptrack) python3 "$RUSAGE" "$W/r" heaptrack -o "$W/run/ht" "${cmd[@]}" >/dev/null 2>&1 ;;
    esac
    awk '{ printf "%.3f %d\n", $1, $2 }' "$W/r" >> "$W/$p.$mode"
}

MODES="none capture heaptrack${OLD:+ old}"
PROGS="churn sqlite python"
for r in $(seq "$ROUNDS"); do
    for p in $PROGS; do
        say "round $r/$ROUNDS: $p"
        for m in $MODES; do one "$m" "$p"; done
    done
done

col() { cut -d' ' -f"$1" < "$2"; }
mr() { # median (min-max) of column $1 of file $2
    echo "$(col "$1" "$2" | hr_median) ($(col "$1" "$2" | hr_min)-$(col "$1" "$2" | hr_max))"
}
{
    hr_header "The whole capture command against heaptrack: CPU and max RSS" \
        "ROUNDS=$ROUNDS CHURN=$CHURN${OLD:+ OLD=$OLD} bench/capture/capture_cost.sh $B"
    echo "Per run: CPU seconds (user + system of the whole process tree, wait4) and max RSS"
    echo "(MB, the largest process of the tree), median (min-max) of $ROUNDS interleaved rounds"
    echo "($MODES in turn). capture and heaptrack are whole commands, from the program's start"
    echo "to the written file."
    echo
    echo "| program | events | mode | CPU s | max RSS MB | CPU / none | CPU / heaptrack |"
    echo "|---|---:|---|---:|---:|---:|---:|"
    for p in $PROGS; do
        ev=$(sed -n 's/^trace: [^:]*: \([0-9]*\) events.*/\1/p' "$W/$p.capture.sum.0")
        none=$(col 1 "$W/$p.none" | hr_median)
        ht=$(col 1 "$W/$p.heaptrack" | hr_median)
        for m in $MODES; do
            med=$(col 1 "$W/$p.$m" | hr_median)
            rss=$(awk '{ print $2 / 1024 }' "$W/$p.$m" | hr_median)
            rssr=$(awk '{ printf "%.1f\n", $2 / 1024 }' "$W/$p.$m" | sort -g |
                   awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }')
            awk -v p="$p" -v ev="$ev" -v m="$m" -v c="$(mr 1 "$W/$p.$m")" -v rss="$rss" \
                -v rssr="$rssr" -v med="$med" -v none="$none" -v ht="$ht" 'BEGIN {
                printf "| %s | %s | %s | %s | %.1f (%s) | %.2f | %.2f |\n",
                    p, ev, m, c, rss, rssr, med / none, med / ht }'
        done
    done
    echo
    for p in $PROGS; do
        for m in $MODES; do echo "rounds $p $m (cpu rss_kb): $(tr '\n' ' ' < "$W/$p.$m")"; done
    done
    echo
} > "$W/out.md"
: > "$W/fit.md"
[ ! -f "$OUT" ] || sed -n '/^<!-- overhead-fit/,$p' "$OUT" > "$W/fit.md"
hr_write_out
if [ -s "$W/fit.md" ]; then echo >> "$OUT"; cat "$W/fit.md" >> "$OUT"; fi
