#!/usr/bin/env bash
# same_hot_loop.sh OLD NEW — is the replay engine's timed code unchanged?
#
# A refactor around the engine (how specs are parsed, how the run is
# planned, how results travel) must not change what is timed. This compares
# the disassembly of the functions that run inside the timed laps in two
# builds of heapreplay, with addresses taken out (call and jump targets keep
# their symbol and offset, rip-relative operands lose their displacement), so
# two builds of the same source compare equal although the code moved.
# A function that differs is listed with its first differing lines. If it
# differs, time it: bench/micro/bench_overhead of both builds, interleaved.
#
# Usage: tests/tools/same_hot_loop.sh OLD_BINARY NEW_BINARY [FUNCTION...]
# Exit 0 when every function is the same, 1 otherwise, 2 on bad arguments.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 OLD_BINARY NEW_BINARY [FUNCTION...]" >&2
    exit 2
fi
old=$1 new=$2
shift 2
# The timed loops of src/replay/ (engine.c, engine_modes.c, engine_measure.c,
# engine_slow.c, threads.c) and what they inline.
funcs=${*:-hr_run_range hr_run_lap_timed hr_measure_pass run_range_access stretch_loop}
for b in "$old" "$new"; do
    [ -x "$b" ] || { echo "$0: $b: not an executable" >&2; exit 2; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/hr_hot.XXXXXX") || exit 2
trap 'rm -rf "$W"' EXIT

# dis BINARY FUNCTION: the function's instructions without addresses.
dis() {
    objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '$2 == f {p = 1; next} p && /^$/ {exit} p' |
        sed -E 's/^ *[0-9a-f]+://; s/\b[0-9a-f]{4,} <([^>+]*)(\+0x[0-9a-f]+)?>/<\1\2>/g;
                s/-?0x[0-9a-f]+\(%rip\)/X(%rip)/g; s/# [0-9a-f]+ <[^>]*>//;
                s/# <([^>+]*)\+0x[0-9a-f]+>/# <\1>/'
}

n=0 bad=0
for f in $funcs; do
    n=$((n + 1))
    dis "$old" "$f" >"$W/old"
    dis "$new" "$f" >"$W/new"
    if [ ! -s "$W/old" ]; then
        echo "not ok $n - $f: not in $old"; bad=$((bad + 1))
    elif cmp -s "$W/old" "$W/new"; then
        echo "ok $n - $f: the same $(wc -l <"$W/old") instructions"
    else
        echo "not ok $n - $f differs:"; bad=$((bad + 1))
        diff "$W/old" "$W/new" | head -10 | sed 's/^/# /'
    fi
done
echo "1..$n"
[ "$bad" = 0 ]
