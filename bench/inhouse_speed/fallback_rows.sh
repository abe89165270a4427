#!/usr/bin/env bash
# The in-house allocators on traces they mostly cannot serve: stack (32
# entries, a 100 KiB buffer) and marker (a 1 MiB buffer) hand nearly every
# block of a real program to the C library's malloc (their "fallback"). Such
# a row should cost about what glibc alone costs plus the allocator's own
# refusal; what the replay adds on top is harness work. Before (OLD_BIN) and
# after, interleaved, pinned to one CPU. Writes
# results/inhouse-fallback-<host>.md.
#
#   bash bench/inhouse_speed/fallback_rows.sh BUILDDIR   (make bench-inhouse-fallback)
#   OLD_BIN=PATH   the "before" heapreplay (default: none, only the build's)
#   ROUNDS=N       rounds (default 3); each runs every trace with the old
#                  binary, then with the new one
#   TRACES=PATHS   space-separated (default: traces/real/*.hrt traces/*.hrt)
#   ALLOCS=LIST    the rows (default glibc,stack,marker; glibc first: the
#                  ratios are to it)
#   CPU=N          the CPU every replay is pinned to (default 1)
#   OUT=PATH       where to write
#
# Figures: time.ns_per_op (CPU ns of the median warm lap per op) and its
# ratio to glibc's in the same replay call; time.measure_wall_s (the
# instrumented lap, which asks the allocator for every block's usable size);
# native and fallback ops (the same on both sides: the change moves no op).
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_need_hr fallback_rows.sh "${1:-.}"
ROUNDS=${ROUNDS:-3}
OLD_BIN=${OLD_BIN:-}
CPU=${CPU:-1}
ALLOCS=${ALLOCS:-glibc,stack,marker}
OUT=${OUT:-"$S/results/inhouse-fallback-$(hostname -s).md"}
if [ -z "${TRACES:-}" ]; then
    TRACES=$(ls "$S"/traces/real/*.hrt "$S"/traces/*.hrt | tr '\n' ' ')
fi
sides="new"
[ -z "$OLD_BIN" ] || sides="old new"
raw="$W/raw.tsv"
: > "$raw"

one() { # one ROUND TRACE SIDE BINARY
    say "round $1/$ROUNDS $(basename "$2") $3"
    taskset -c "$CPU" "$4" replay "$2" -a "$ALLOCS" -r 1 --touch recorded -f csv 2>/dev/null |
        grep -v '^#' | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if r.get("status") != "ok":
        continue
    print("\t".join([sys.argv[1], sys.argv[2], sys.argv[3], r["allocator"], r["time.ns_per_op"],
                     r["time.measure_wall_s"], r.get("native.native_ops") or "",
                     r.get("native.fallback_ops") or ""]))
' "$1" "$(basename "$(dirname "$2")")/$(basename "$2" .hrt)" "$3" >> "$raw" || true
}

for round in $(seq 1 "$ROUNDS"); do
    for t in $TRACES; do
        for side in $sides; do
            if [ "$side" = new ]; then one "$round" "$t" new "$HR"; else one "$round" "$t" old "$OLD_BIN"; fi
        done
    done
done

{
    hr_header "In-house allocators on traces they mostly hand to malloc" \
        "OLD_BIN=${OLD_BIN:-} ROUNDS=$ROUNDS CPU=$CPU ALLOCS=$ALLOCS bash bench/inhouse_speed/fallback_rows.sh"
    [ -z "$OLD_BIN" ] || echo "- old binary: $OLD_BIN ($("$OLD_BIN" --version 2>/dev/null | head -1))"
    echo
    python3 - "$raw" "$ROUNDS" <<'EOF'
import statistics as st, sys
from collections import defaultdict
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
ns, meas, ops, order = defaultdict(list), defaultdict(list), {}, []
ref = defaultdict(dict)  # (round, trace, side) -> glibc ns/op
for rnd, tr, side, a, n, m, nat, fb in rows:
    ref[(rnd, tr, side)].setdefault(a, float(n))
for rnd, tr, side, a, n, m, nat, fb in rows:
    key = (tr, a)
    if key not in order:
        order.append(key)
    g = ref[(rnd, tr, side)].get("glibc")
    ns[(tr, a, side)].append((float(n), float(n) / g if g else None))
    meas[(tr, a, side)].append(float(m) * 1e3)
    if nat:
        ops[(tr, a, side)] = (int(nat), int(fb))
def fmt(v, d=1):
    v = [x for x in v if x is not None]
    if not v:
        return "-"
    return f"{st.median(v):.{d}f} [{min(v):.{d}f}-{max(v):.{d}f}]"
sides = [s for s in ("old", "new") if any(k[2] == s for k in ns)]
head = "| trace | allocator | native / fallback ops |"
for s in sides:
    head += f" {s} ns/op | {s} / glibc | {s} measure lap ms |"
if len(sides) == 2:
    head += " new / old ns/op |"
print(head)
print("|" + "---|" * (head.count("|") - 1))
for tr, a in order:
    o = ops.get((tr, a, sides[-1]))
    line = f"| {tr} | {a} | {f'{o[0]} / {o[1]}' if o else '-'} |"
    for s in sides:
        v = ns[(tr, a, s)]
        line += f" {fmt([x[0] for x in v])} | {fmt([x[1] for x in v], 2)} | {fmt(meas[(tr, a, s)], 0)} |"
    if len(sides) == 2:
        pairs = [n[0] / o[0] for n, o in zip(ns[(tr, a, 'new')], ns[(tr, a, 'old')])]
        line += f" {st.median(pairs):.2f} |"
    print(line)
print()
print(f"{sys.argv[2]} rounds, old then new in each. ns/op: CPU ns of the median warm lap per op "
      "(time.ns_per_op); `/ glibc`: over glibc's in the same replay call; measure lap: "
      "time.measure_wall_s; median [min-max] over the rounds.")
EOF
} > "$OUT"
say "wrote $OUT"
