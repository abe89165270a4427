#!/usr/bin/env bash
# Capture overhead: bench/capture/cap_churn (malloc/free churn, 4 threads) run
# uncaptured, under libheapreplay-capture.so, and under heaptrack, in the same
# run (median of 3 wall times each); bytes of raw log and of the converted
# trace per event. Prints Markdown. Usage: bench_capture.sh BUILDDIR [ROUNDS]
set -u
B="${1:-.}"
R="${2:-1000000}"
PROG="$B/bench/capture/cap_churn"
LIB="$B/.libs/libheapreplay-capture.so"
HR="$B/heapreplay"
W=$(mktemp -d "${TMPDIR:-/tmp}/hrbcap.XXXXXX")
trap 'rm -rf "$W"' EXIT
[ -x "$PROG" ] || make -C "$B" bench/capture/cap_churn >/dev/null 2>&1
if [ ! -x "$PROG" ] || [ ! -f "$LIB" ]; then
    echo "bench_capture: $PROG or $LIB not built"; exit 0
fi
now() { date +%s.%N; }
# median of 3 runs of "$@"
timeit() {
    local ts=()
    for i in 1 2 3; do
        local t0=$(now); "$@" >/dev/null 2>&1; local t1=$(now)
        ts+=("$(echo "$t1 - $t0" | bc -l)")
    done
    printf '%s\n' "${ts[@]}" | sort -g | sed -n 2p
}
base=$(timeit "$PROG" "$R" 4)
capt=$(timeit env HEAPREPLAY_CAPTURE_FILE="$W/c.raw" LD_PRELOAD="$LIB" "$PROG" "$R" 4)
capn=$(timeit env HEAPREPLAY_CAPTURE_FILE="$W/n.raw" HEAPREPLAY_CAPTURE_NO_TIMESTAMPS=1 LD_PRELOAD="$LIB" "$PROG" "$R" 4)
if command -v heaptrack >/dev/null 2>&1; then
    ht=$(timeit heaptrack -o "$W/ht" "$PROG" "$R" 4)
else ht=""; fi
ev=$((R * 4 * 2))
raw=$(stat -c %s "$W/c.raw")
echo "capture overhead, cap_churn: $R rounds x 4 threads (~$ev malloc+free events), median of 3 wall times"
echo
echo "| run | wall s | vs uncaptured |"
echo "|---|---:|---:|"
printf '| uncaptured | %.3f | 1.00x |\n' "$base"
printf '| libheapreplay-capture (timestamps) | %.3f | %.2fx |\n' "$capt" "$(echo "$capt / $base" | bc -l)"
printf '| libheapreplay-capture (--no-timestamps) | %.3f | %.2fx |\n' "$capn" "$(echo "$capn / $base" | bc -l)"
[ -n "$ht" ] && printf '| heaptrack %s | %.3f | %.2fx |\n' "$(heaptrack --version 2>/dev/null | awk '{print $2}')" "$ht" "$(echo "$ht / $base" | bc -l)"
echo
printf -- '- raw capture log: %d bytes, %.1f bytes/event\n' "$raw" "$(echo "$raw / $ev" | bc -l)"
if [ -x "$HR" ] && "$HR" convert "$W/c.raw" -o "$W/c.hrt" > "$W/conv.log" 2>&1; then
    t=$(stat -c %s "$W/c.hrt")
    printf -- '- converted trace (binary, with timestamps): %d bytes, %.2f bytes/event\n' "$t" "$(echo "$t / $ev" | bc -l)"
    grep -m1 '^overhead\|^import' "$W/conv.log" | sed 's/^/- /'
fi
if [ -n "$ht" ]; then
    h=$(ls "$W"/ht.* | head -n 1); printf -- '- heaptrack file (compressed): %d bytes\n' "$(stat -c %s "$h")"
fi

# Real programs beside the stress test: a Python JSON round trip over 200 k
# small objects and a gcc -O2 compile of one of our sources (driver, cc1, as:
# one log per process). They allocate between other work, as games do; the
# churn above is the worst case (nothing but malloc/free on glibc's fast path).
realprog() { # realprog NAME CMD...
    local name="$1"; shift
    local b c h="" ev
    b=$(timeit "$@")
    rm -f "$W"/p.raw*
    c=$(timeit env HEAPREPLAY_CAPTURE_FILE="$W/p.raw" LD_PRELOAD="$LIB" "$@")
    command -v heaptrack >/dev/null 2>&1 && h=$(timeit heaptrack -o "$W/hp" "$@")
    ev=$(cat "$W"/p.raw* | wc -c)
    printf '| %s | %.3f | %.3f (%.2fx) | %s | %d |\n' "$name" "$b" "$c" "$(echo "$c / $b" | bc -l)" \
        "$([ -n "$h" ] && printf '%.3f (%.2fx)' "$h" "$(echo "$h / $b" | bc -l)")" "$ev"
}
cat > "$W/p.py" <<'PY'
import json
d = [{"id": i, "name": "entity%d" % i, "pos": [i * 0.5, i * 1.5, 2.0],
      "tags": ["a" * (i % 50), "b" * (i % 700)]} for i in range(200000)]
print(len(json.loads(json.dumps(d))))
PY
echo
echo "real programs, median of 3 wall times (raw log: bytes of every process's log, ~6.3 bytes/event)"
echo
echo "| program | uncaptured s | captured s | heaptrack s | raw log bytes |"
echo "|---|---:|---:|---:|---:|"
# the interpreter itself, not a wrapper script (heaptrack follows one process)
PY3=/usr/bin/python3; [ -x "$PY3" ] || PY3=$(command -v python3 || true)
[ -n "$PY3" ] && realprog "python3 json round trip, 200 k objects" "$PY3" "$W/p.py"
command -v gcc >/dev/null 2>&1 && [ -n "${HR_SRCDIR:-}" ] &&
    realprog "gcc -O2 -c src/replay/engine.c" gcc -O2 -c "$HR_SRCDIR/src/replay/engine.c" \
        -I"$HR_SRCDIR/src" -I"$HR_SRCDIR/include" -I"$B" -o "$W/e.o"
exit 0
