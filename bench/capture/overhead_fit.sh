#!/usr/bin/env bash
# The capture summary's own overhead figure against the measured one
# (docs/CAPTURE.md, "Overhead"). For each program, ROUNDS interleaved rounds,
# each a plain run then a captured run, both pinned to one CPU (taskset -c
# $CPU), so that a machine that gets busier or quieter moves both alike:
#   plain     the program alone: CPU time (user + system, wait4)
#   captured  heapreplay capture -s SUM -- PROG: the program's CPU time
#             under the library (the summary's "(CPU X s") and the
#             library's figure ("overhead: ~X ms")
# Measured overhead of a round = captured CPU - plain CPU of the same round;
# the figure's error = figure / measured. Also the medians: median figure /
# (median captured - median plain), and the plain runs' spread (the farthest
# one from their median), which bounds what this measurement can resolve.
# Programs: bench/capture/cap_churn (malloc/free loop, 1 thread, CHURN rounds
# = 2 x CHURN events), sqlite3 on traces/real/sqlite_index.sql, CPython on
# traces/real/python_json.py.
# Writes its section at the end of $OUT (from the "overhead-fit" marker on,
# replacing an earlier one; capture_cost.sh keeps it when it rewrites the
# head of the file) and prints it.
# Usage: overhead_fit.sh BUILDDIR
#   ROUNDS (env, default 7), CHURN (default 5000000), CPU (default 1),
#   PROGS (default "churn sqlite python"), OUT (default results/capture-cost-vm.md),
#   PYTHON (default /usr/bin/python3)
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
. "$(dirname "$0")/cap_programs.sh"
hr_bench_need_hr overhead_fit.sh "${1:-.}"
ROUNDS=${ROUNDS:-7}
CHURN=${CHURN:-5000000}
CPU=${CPU:-1}
PROGS=${PROGS:-churn sqlite python}
OUT=${OUT:-$S/results/capture-cost-vm.md}
PYTHON=$(readlink -f "${PYTHON:-/usr/bin/python3}")
CHURN_BIN="$B/bench/capture/cap_churn"
RUSAGE="$S/bench/fidelity/rusage_run.py"
[ -x "$CHURN_BIN" ] || make -C "$B" bench/capture/cap_churn >&2
for need in "$CHURN_BIN" "$PYTHON" "$(command -v sqlite3)" "$(command -v taskset)"; do
    [ -x "$need" ] || { echo "overhead_fit: missing $need" >&2; exit 2; }
done
[ "$ROUNDS" -ge 1 ] || { echo "overhead_fit: ROUNDS must be at least 1" >&2; exit 2; }
for p in $PROGS; do cap_prog "$p" > /dev/null; done # an unknown name: exit 2 here

# round NAME: appends "plain_cpu captured_cpu figure_s" to $W/NAME
round() {
    local p=$1 plain cap est
    local -a cmd
    mapfile -t cmd < <(cap_prog "$p")
    taskset -c "$CPU" python3 "$RUSAGE" "$W/r" "${cmd[@]}" < /dev/null > /dev/null 2>&1
    plain=$(cut -d' ' -f1 "$W/r")
    rm -rf "$W/run" && mkdir -p "$W/run"
    taskset -c "$CPU" "$HR" capture -s "$W/sum" -o "$W/run/t.hrt" -- "${cmd[@]}" \
        < /dev/null > /dev/null 2>&1
    cap=$(sed -n 's/^capture: .*(CPU \([0-9.]*\) s.*/\1/p' "$W/sum")
    est=$(sed -n 's/^overhead: ~\([0-9.]*\) ms.*/\1/p' "$W/sum")
    [ -n "$cap" ] && [ -n "$est" ] || { echo "overhead_fit: no summary for $p" >&2; cat "$W/sum" >&2; exit 2; }
    echo "$plain $cap $(awk -v e="$est" 'BEGIN { printf "%.4f", e / 1000 }')" >> "$W/$p"
    sed -n 's/^trace: [^:]*: \([0-9]*\) events.*/\1/p' "$W/sum" > "$W/$p.events"
}

for r in $(seq "$ROUNDS"); do
    for p in $PROGS; do
        say "round $r/$ROUNDS: $p"
        round "$p"
    done
done

mr() { # median (min-max) of the numbers on stdin, printf format $1
    local v
    v=$(cat)
    printf "$1 ($1-$1)" "$(echo "$v" | hr_median)" "$(echo "$v" | hr_min)" "$(echo "$v" | hr_max)"
}
{
    echo "<!-- overhead-fit: bench/capture/overhead_fit.sh writes from here to the end -->"
    echo
    hr_header "The capture summary's overhead figure against the measured overhead" \
        "ROUNDS=$ROUNDS CHURN=$CHURN CPU=$CPU bench/capture/overhead_fit.sh $B" | sed '1s/^# /## /'
    echo "$ROUNDS interleaved rounds per program, each a plain run then a captured run, both"
    echo "pinned to CPU $CPU. CPU: user + system (wait4) of the program; under capture the"
    echo "summary's \"(CPU X s\" (the program with the library, not the conversion). figure:"
    echo "the summary's \"overhead: ~X ms\". measured: captured CPU - plain CPU of the same"
    echo "round. Per-round columns: median (min-max) over the rounds. \"medians\": median"
    echo "figure / (median captured - median plain). spread: the farthest plain run from the"
    echo "plain median, what one run's difference cannot resolve."
    echo
    echo "| program | events | plain CPU s | captured CPU s | figure ms | measured ms | figure / measured per round | figure / measured, medians | plain spread ms |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for p in $PROGS; do
        f="$W/$p"
        pm=$(cut -d' ' -f1 "$f" | hr_median)
        cm=$(cut -d' ' -f2 "$f" | hr_median)
        em=$(cut -d' ' -f3 "$f" | hr_median)
        spread=$(cut -d' ' -f1 "$f" | awk -v m="$pm" '{ d = $1 - m; d = d < 0 ? -d : d; if (d > s) s = d }
            END { printf "%.1f", s * 1000 }')
        ratios=$(awk '$2 > $1 { printf "%.3f\n", $3 / ($2 - $1) } $2 <= $1 { print "null" }' "$f")
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$p" "$(cat "$f.events")" \
            "$(cut -d' ' -f1 "$f" | mr %.3f)" "$(cut -d' ' -f2 "$f" | mr %.3f)" \
            "$(awk '{ print $3 * 1000 }' "$f" | mr %.1f)" \
            "$(awk '{ print ($2 - $1) * 1000 }' "$f" | mr %.1f)" \
            "$(echo "$ratios" | mr %.2f)" \
            "$(awk -v c="$cm" -v p="$pm" -v e="$em" 'BEGIN { if (c > p) printf "%.2f", e / (c - p); else print "-" }')" \
            "$spread"
    done
    echo
    for p in $PROGS; do
        echo "rounds $p (plain_cpu captured_cpu figure_s): $(tr '\n' ' ' < "$W/$p")"
    done
    echo
} > "$W/out.md"
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)." >> "$W/out.md"
mkdir -p "$(dirname "$OUT")"
if [ -f "$OUT" ]; then
    sed '/^<!-- overhead-fit/,$d' "$OUT" > "$W/head.md"
    cat "$W/head.md" "$W/out.md" > "$OUT"
else
    cp "$W/out.md" "$OUT"
fi
cat "$W/out.md"
say "written to $OUT"
