#!/usr/bin/env bash
# same_outputs.sh OLD NEW — does a refactor keep what the user sees?
#
# A refactor of the result, report or run-plan code must leave every output
# the same. Timings differ from run to run, so the check has two halves:
#
#  1. Rendering, byte for byte. Reports are measured once, by OLD (the
#     shipped traces on every allocator; the real programs' traces, which
#     carry program time and so predictions; a threaded trace; a pools trace
#     with --pool; --verify; a callgrind count). Then OLD and NEW each render
#     them: report -f text|md|csv|json|html (and --detail), every plot kind,
#     compare of two OLD runs in every format, merge of two shards. Every
#     pair of outputs must be identical.
#  2. Measuring, structurally. Each binary replays the same commands twice.
#     NEW's JSON must have the same keys in the same order with the same
#     types as OLD's, and every value on which each binary's two runs agree
#     (op counts, exact footprints, statuses, digests, ...) must be the same
#     in both (tests/tools/same_json.py); values that differ between two runs
#     of one binary (timings, RSS) are the measurement and are skipped. Then
#     NEW's report rendered by OLD and by NEW must be identical (NEW's JSON
#     reads the same to the old renderers).
#
# Usage: tests/tools/same_outputs.sh OLD_BINARY NEW_BINARY [TRACES_DIR]
# TRACES_DIR defaults to the traces/ beside this script's tree. Prints TAP
# (one case per compared output) and exits 1 on any difference. Takes about
# 2-3 minutes on 2 cores (every replay uses --warm-time 0).
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 OLD_BINARY NEW_BINARY [TRACES_DIR]" >&2
    exit 2
fi
OLD=$(readlink -f "$1")
NEW=$(readlink -f "$2")
TR=$(readlink -f "${3:-$(dirname "$0")/../../traces}")
for b in "$OLD" "$NEW"; do
    [ -x "$b" ] || { echo "$0: $b: not an executable" >&2; exit 2; }
done
[ -d "$TR/real" ] || { echo "$0: $TR: expected the traces/ folder (with real/)" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/hr_same.XXXXXX") || exit 2
# SAME_OUTPUTS_KEEP=1 keeps the outputs (their folder is named at the end).
if [ -n "${SAME_OUTPUTS_KEEP:-}" ]; then trap 'echo "# outputs kept in $W"' EXIT
else trap 'rm -rf "$W"' EXIT; fi
cd "$W" || exit 2

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1)); failed=$((failed + 1))
    echo "not ok $n - $1"
    [ -n "${2:-}" ] && printf '%s\n' "$2" | head -20 | sed 's/^/# /'
}

# The inputs: a threaded trace with timestamps and a pools trace.
"$OLD" gen jobs -t 3 -n 40000 -T -s 5 -o jobs.hrt >/dev/null || exit 2
cat >pools.txt <<'SRC'
heapreplay-trace 1
alloc 0 4096
palloc 1 64 Particles
palloc 2 32 Nodes
frame 1
prealloc 1 3 128
pfree 3 Particles
palloc 4 48 Particles
frame 2
pfree 2 Nodes
pfree 4 Particles
free 0
SRC
"$OLD" convert pools.txt -o pools.hrt >/dev/null || exit 2

# name|arguments of each measured replay (a leading - keeps it out of the
# shard/merge case). Every one runs with -q --warm-time 0.
RUNS="shipped|$TR -a all -r 2
real|$TR/real --touch recorded -a glibc,jemalloc,mimalloc,tcmalloc,block,stack+block,routed -r 2
jobs|jobs.hrt -a glibc,mimalloc,block,sizeclass -r 2
pools|pools.hrt -a glibc,jemalloc --pool Particles=bank --pool Nodes=stack -r 2
verify|$TR/frame_loop.hrt $TR/strings.hrt -a all --verify -r 1
count|$TR/particles.hrt -a glibc,block,stack+block --count callgrind -r 1"

# replay BIN NAME SUFFIX: BIN's report of run NAME into NAME.SUFFIX.json.
replay() {
    local args
    args=$(printf '%s\n' "$RUNS" | sed -n "s/^$2|//p")
    # shellcheck disable=SC2086
    "$1" replay $args -q --warm-time 0 -o "$2.$3.json" >/dev/null 2>"$2.$3.err"
}

# render BIN JSON PREFIX: every rendering of one report into PREFIX.*
render() {
    local b=$1 j=$2 p=$3 f k
    for f in text md csv json html; do
        "$b" report -f "$f" "$j" >"$p.report.$f" 2>&1
        echo "rc=$?" >>"$p.report.$f"
    done
    for f in text md html; do
        "$b" report --detail -f "$f" "$j" >"$p.detail.$f" 2>&1
        echo "rc=$?" >>"$p.detail.$f"
    done
    for k in bars summary memory frames latency all; do
        "$b" plot -k "$k" "$j" >"$p.plot.$k.svg" 2>&1
        echo "rc=$?" >>"$p.plot.$k.svg"
    done
    "$b" plot -k bars -m peak "$j" >"$p.plot.peak.svg" 2>&1
    "$b" plot -k summary -m cold --frame-budget 2ms "$j" >"$p.plot.cold.svg" 2>&1
}

# same WHAT A B: one case, identical files.
same() {
    if cmp -s "$2" "$3"; then ok "$1"
    else not_ok "$1" "$(diff "$2" "$3" | head -20)"; fi
}

names=$(printf '%s\n' "$RUNS" | cut -d'|' -f1)
for r in $names; do
    replay "$OLD" "$r" old || { not_ok "OLD replay $r" "$(tail -3 "$r.old.err")"; continue; }
    replay "$OLD" "$r" old2 || { not_ok "OLD replay $r (second)" "$(tail -3 "$r.old2.err")"; continue; }
    replay "$NEW" "$r" new || { not_ok "NEW replay $r" "$(tail -3 "$r.new.err")"; continue; }
    replay "$NEW" "$r" new2 || { not_ok "NEW replay $r (second)" "$(tail -3 "$r.new2.err")"; continue; }
    # 1. rendering of OLD's measurement.
    render "$OLD" "$r.old.json" "$r.o"
    render "$NEW" "$r.old.json" "$r.n"
    for f in "$r".o.*; do same "$r: render ${f#"$r".o.}" "$f" "$r.n.${f#"$r".o.}"; done
    for f in text json csv md junit; do
        "$OLD" compare -f "$f" "$r.old.json" "$r.old2.json" >"$r.co.$f" 2>&1; echo "rc=$?" >>"$r.co.$f"
        "$NEW" compare -f "$f" "$r.old.json" "$r.old2.json" >"$r.cn.$f" 2>&1; echo "rc=$?" >>"$r.cn.$f"
        same "$r: compare -f $f" "$r.co.$f" "$r.cn.$f"
    done
    "$OLD" compare --no-drift -m ns_per_op=1%,peak=0%,p99=5% "$r.old.json" "$r.old2.json" >"$r.cgo" 2>&1; echo "rc=$?" >>"$r.cgo"
    "$NEW" compare --no-drift -m ns_per_op=1%,peak=0%,p99=5% "$r.old.json" "$r.old2.json" >"$r.cgn" 2>&1; echo "rc=$?" >>"$r.cgn"
    same "$r: compare --no-drift with gates" "$r.cgo" "$r.cgn"
    # 2. NEW's measurement: structure, deterministic values, and rendering.
    if msg=$(python3 "$HERE/same_json.py" "$r.old.json" "$r.old2.json" "$r.new.json" "$r.new2.json" 2>&1); then
        ok "$r: NEW replay's JSON matches OLD's (keys, types, deterministic values) $msg"
    else
        not_ok "$r: NEW replay's JSON matches OLD's" "$msg"
    fi
    for f in text md csv html; do
        "$OLD" report --detail -f "$f" "$r.new.json" >"$r.nro.$f" 2>&1
        "$NEW" report --detail -f "$f" "$r.new.json" >"$r.nrn.$f" 2>&1
        same "$r: NEW's report rendered by OLD and NEW (-f $f)" "$r.nro.$f" "$r.nrn.$f"
    done
done

# Shards and merge: two shards by OLD, merged by each binary.
for k in 1 2; do
    "$OLD" replay "$TR" -a glibc,block,bank -r 1 --warm-time 0 -q --shard "$k/2" -o "s$k.json" >/dev/null 2>&1
done
"$OLD" merge -o mo.json s1.json s2.json >/dev/null 2>&1
"$NEW" merge -o mn.json s1.json s2.json >/dev/null 2>&1
same "merge of two shards" mo.json mn.json

# Commands whose output does not depend on timing.
"$OLD" list >lo 2>&1; "$NEW" list >ln 2>&1; same "list" lo ln
for t in "$TR"/*.hrt jobs.hrt pools.hrt; do
    "$OLD" info "$t" >io 2>&1; "$NEW" info "$t" >in 2>&1; same "info $(basename "$t")" io in
done
# Bad input: the same one-line errors and exit codes (standard error: a
# spec that is only refused at replay still prints a dated report).
for a in "-a nosuch" "-a stack+nosuch" "-a sizeclass:max=0" "-a preload:/nonexistent.so" \
         "--pool Particles=nosuch" "-a glibc+glibc" "-r 0"; do
    # shellcheck disable=SC2086
    "$OLD" replay $a -q pools.hrt 2>eo >/dev/null; echo "rc=$?" >>eo
    # shellcheck disable=SC2086
    "$NEW" replay $a -q pools.hrt 2>en >/dev/null; echo "rc=$?" >>en
    same "replay $a: same error" eo en
done

echo "1..$n"
echo "# $failed of $n outputs differ"
[ "$failed" = 0 ]
