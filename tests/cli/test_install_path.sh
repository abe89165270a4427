#!/usr/bin/env bash
# Where heapreplay is installed must not change what the allocator under
# test sees: the same trace replayed by copies of the binary at a short and
# at a long path gives each external allocator the same peak footprint (the
# allocator's own statistics, deterministic for one sequence of calls).
# Re-executed processes get a fixed argv[0] (src/replay/child.h): the
# dynamic linker put the program's path into the error string a failed
# dlsym leaves on the heap, and jemalloc's footprint moved with its length.
# Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup install_path jget
srcdir=${srcdir:-.}
TRACE="$srcdir/traces/particles.hrt"
[ -f "$TRACE" ] || skip_all "no $TRACE"

short="$T/a"
long="$T/a-folder-with-a-much-longer-name-than-the-other-one/and-deeper-still"
mkdir -p "$short" "$long"
cp "$HR" "$short/h"
cp "$HR" "$long/heapreplay-at-a-long-path"

for a in jemalloc mimalloc tcmalloc; do
    if ! tap_lib "$a" > /dev/null; then
        skip "$a: same footprint from a short and a long install path" "$a not built"
        continue
    fi
    fp=()
    for b in "$short/h" "$long/heapreplay-at-a-long-path"; do
        "$b" replay "$TRACE" -a "$a" -r 1 --warm-time 0 -q -f json > "$T/r.json" 2> "$T/r.err"
        fp+=("$(jget results.0.memory.peak_footprint "$T/r.json")")
    done
    if [ -n "${fp[0]}" ] && [ "${fp[0]}" = "${fp[1]}" ]; then
        ok "$a: same footprint from a short and a long install path"
    else
        not_ok "$a: same footprint from a short and a long install path" \
            "short: ${fp[0]:-none}, long: ${fp[1]:-none}" "$(head -n 3 "$T/r.err")"
    fi
done
tap_done
