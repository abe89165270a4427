#!/usr/bin/env bash
# The report's "series" (docs/REPORT_SCHEMA.md, docs/METRICS.md "Series"):
# lengths and bounds, the memory series' peak equal to the result's peak live, time_s exactly when the trace has timestamps, series
# from an external allocator's worker, none in CSV or text, a golden series
# of a hand-written trace with its budget failure (frame and heap), and
# compare reading a version-1 report against a version-2 one. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
S=${srcdir:-.}
tap_setup sr
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (quickstart.sh installs it)"
replay() { "$HR" replay --warm-time 0 -r 1 -q "$@" > /dev/null; }

# jq_check NAME FILE FILTER: ok when FILTER gives true for FILE.
jq_check() {
    local got
    got=$(jq -e "$3" "$2" 2>&1)
    if [ "$got" = true ]; then ok "$1"; else not_ok "$1" "jq: $3" "got: $got"; fi
}

# Every result: equal lengths, <= 512 points, events increasing, the memory
# series' maximum is the peak live exactly, the latency buckets add up to
# the timed ops.
SHAPE='[.results[] | .series as $s | $s.memory as $m |
  ($m.points > 0) and ($m.points <= 512) and
  ([$m.event, $m.live_bytes, $m.footprint_bytes] | all(length == $m.points)) and
  (($m.rss_bytes // $m.event) | length == $m.points) and
  (($m.time_s // $m.event) | length == $m.points) and
  ([range(1; $m.points) as $i | $m.event[$i] > $m.event[$i - 1]] | all) and
  (($m.live_bytes | max) == .memory.peak_live) and
  ($s.latency.le_ns | length) == ($s.latency.count | length) and
  ([range(1; $s.latency.le_ns | length) as $i | $s.latency.le_ns[$i] > $s.latency.le_ns[$i - 1]] | all) and
  (($s.latency.count | add) == .latency_ns.samples)] | all'
# The frame series: count = frames, ceil(count / per_point) <= 512 points,
# min <= mean <= max, and its largest max is the worst frame.
FRAMES='[.results[] | .series.frames as $f | ($f.first_frame | length) as $n |
  ($f.count == .worst_frame.frames - 1) and ($n <= 512) and
  ($n == (($f.count + $f.per_point - 1) / $f.per_point | floor)) and
  ([$f.ns_mean, $f.ns_min, $f.ns_max] | all(length == $n)) and
  ($f.first_frame == [range(0; $n) | . * $f.per_point]) and
  ([range(0; $n) as $i | $f.ns_min[$i] <= $f.ns_mean[$i] and $f.ns_mean[$i] <= $f.ns_max[$i]] | all) and
  ((($f.ns_max | max) - .worst_frame.ns) | fabs < 0.01)] | all'

# 1. a shipped trace with frames, no timestamps: in-house and glibc
replay "$S/traces/frame_loop.hrt" -a stack,glibc -o "$T/fl.json"
jq_check "frame_loop: schema_version 2" "$T/fl.json" '.schema_version == 2'
jq_check "frame_loop: series shape, peak live, latency" "$T/fl.json" "$SHAPE"
jq_check "frame_loop: frame series (3712 play frames, 8 per point)" "$T/fl.json" \
    "($FRAMES) and (.results[0].series.frames | .count == 3712 and .per_point == 8)"
jq_check "frame_loop: no time_s without timestamps" "$T/fl.json" \
    '[.results[].series.memory | has("time_s") | not] | all'
jq_check "frame_loop: stack's footprint series peaks at its exact peak footprint" "$T/fl.json" \
    '.results[0] | (.series.memory.footprint_bytes | max) == .memory.peak_footprint'
jq_check "frame_loop: rss_bytes only where RSS is sampled (glibc, not stack)" "$T/fl.json" \
    '(.results[0].series.memory | has("rss_bytes") | not) and (.results[1].series.memory | has("rss_bytes"))'

# 2. frames and timestamps (a generated frame loop): time_s present, non-decreasing
"$HR" gen frame_loop -T -n 20000 -o "$T/ts.hrt" > /dev/null
replay "$T/ts.hrt" -a block -o "$T/ts.json"
jq_check "timestamped trace: shape and frames" "$T/ts.json" "($SHAPE) and ($FRAMES)"
jq_check "timestamped trace: time_s from 0, non-decreasing" "$T/ts.json" \
    '.results[0].series.memory.time_s as $t | $t[0] == 0 and ([range(1; $t | length) as $i | $t[$i] >= $t[$i - 1]] | all)'

# 3. no frame marks: no "frames" key
printf 'heapreplay-trace 1\nalloc 0 100\nalloc 1 50\nfree 0\nfree 1\n' > "$T/nf.hrtt"
replay "$T/nf.hrtt" -a glibc -o "$T/nf.json"
jq_check "no frame marks: no frames series, every event a point" "$T/nf.json" \
    '.results[0].series | (has("frames") | not) and .memory.event == [0, 1, 2, 3] and .memory.live_bytes == [100, 150, 50, 0]'

# 4. an external allocator's worker writes series too
if "$HR" list 2>/dev/null | grep -q '^jemalloc .*libjemalloc'; then
    replay "$S/traces/particles.hrt" -a jemalloc -o "$T/je.json"
    jq_check "jemalloc (worker): series with rss_bytes and frames" "$T/je.json" \
        "($SHAPE) and ($FRAMES) and (.results[0].series.memory | has(\"rss_bytes\"))"
else
    skip "jemalloc (worker): series" "jemalloc not found"
fi

# 5. text and CSV do not print the series
"$HR" replay --warm-time 0 -r 1 -q "$T/nf.hrtt" -a stack -f csv > "$T/nf.csv"
"$HR" replay --warm-time 0 -r 1 -q "$T/nf.hrtt" -a stack > "$T/nf.txt"
if [ -s "$T/nf.csv" ] && ! head -1 "$T/nf.csv" | tr ',' '\n' | grep -q '^series' &&
   ! grep -q 'le_ns' "$T/nf.csv" && [ -s "$T/nf.txt" ] && ! grep -Eq 'series|le_ns' "$T/nf.txt"; then
    ok "CSV and text leave the series out"
else
    not_ok "CSV and text leave the series out" "$(head -c 300 "$T/nf.csv")"
fi

# 6. golden: the deterministic part of a hand-written trace's series (block:
# exact footprint) and the budget failure's frame and heap; with 2 repeats
# the result carries one sample's series, not a merge
"$HR" replay --warm-time 0 -r 2 -q "$S/tests/data/series/small.hrtt" -a block --budget 50000 \
    -o "$T/small.json" > /dev/null
jq '.results[0] | {budget, memory: .series.memory, frames: (.series.frames | {count, per_point, first_frame}), latency: (.series.latency | keys)}' \
    "$T/small.json" > "$T/small.got"
if diff -u "$S/tests/expected/series_small.json" "$T/small.got" > "$T/small.diff"; then
    ok "golden series and budget of tests/data/series/small.hrtt"
else
    not_ok "golden series and budget of tests/data/series/small.hrtt" "$(head -40 "$T/small.diff")"
fi

# 7. compare reads a version-1 report (no series) against version 2 and
# compares the common figures; a changed common figure still fails
V1="$S/tests/data/reports/v1_frame_loop.json"
"$HR" compare "$V1" "$T/fl.json" --max-regress live=0% > "$T/cmp.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -Eq 'stack .*live .*378112 .*378112' "$T/cmp.out" &&
   grep -Eq 'stack .*peak .*480904 .*480904' "$T/cmp.out"; then
    ok "compare v1 -> v2: common figures compared, exit 0"
else
    not_ok "compare v1 -> v2: common figures compared, exit 0" "exit $rc" "$(cat "$T/cmp.out")"
fi
"$HR" compare "$T/fl.json" "$V1" > "$T/cmp2.out" 2>&1
rc=$?
if [ $rc = 0 ] || [ $rc = 1 ]; then ok "compare v2 -> v1 reads both (exit $rc)"; else
    not_ok "compare v2 -> v1 reads both" "exit $rc" "$(cat "$T/cmp2.out")"; fi
sed 's/"peak_live": 378112/"peak_live": 378111/' "$V1" > "$T/v1_changed.json"
"$HR" compare "$T/v1_changed.json" "$T/fl.json" --max-regress live=0% > "$T/cmp3.out" 2>&1
rc=$?
if [ $rc = 1 ]; then ok "compare v1 -> v2: a changed peak live is a mismatch (exit 1)"; else
    not_ok "compare v1 -> v2: a changed peak live is a mismatch" "exit $rc" "$(cat "$T/cmp3.out")"; fi
printf '{"schema": "heapreplay-report", "schema_version": 3, "results": []}\n' > "$T/v3.json"
out=$("$HR" compare "$T/v3.json" "$V1" 2>&1)
rc=$?
if [ $rc = 2 ] && printf '%s' "$out" | grep -q 'v3.json: expected "schema_version" 1 to 2'; then
    ok "a version-3 report is refused (exit 2, one line)"
else
    not_ok "a version-3 report is refused (exit 2, one line)" "exit $rc" "$out"
fi
tap_done
