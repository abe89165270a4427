#!/usr/bin/env bash
# `replay --touch recorded` (docs/METRICS.md, "Touch policy") on
# traces with `touched` records (docs/TRACE_FORMAT.md): a recorded block gets
# just the bytes the program used (its pages count in RSS, the others do not),
# a block without a record is touched as under `first`, and :SIZE caps only
# those; the records keep calloc'd blocks zero and a realloc's copied bytes
# intact (--verify on the in-house allocators); the packed form and the
# threaded replay read them alike; the report says `recorded` and counts the
# records in ops.touched (JSON) but adds no CSV column. Bad values exit 2.
# RSS is read from glibc rows (its 8 MiB blocks are fresh mmaps, so their RSS
# is the pages written): no timing assertions. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup touch jget
skip_all_if_asan "$HR" "a replay worker (its malloc is the allocator under test)"
jget() { "$JGET" "$@"; }
MiB=1048576

# 1. bad values: exit 2, one line naming the option
for bad in recorded: recorded:0 recorded:12x recorde none:4K; do
    "$HR" replay --touch "$bad" -a bump "$top_builddir/tests/cli/tap.sh" > "$T/o" 2> "$T/e"
    rc=$?
    if [ $rc = 2 ] && [ "$(wc -l < "$T/e")" = 1 ] && grep -q "option '--touch' expects" "$T/e"; then
        ok "--touch $bad: exit 2, one line"
    else
        not_ok "--touch $bad: exit 2, one line" "rc=$rc" "$(cat "$T/e")"
    fi
done

# Two 8 MiB blocks: the first recorded as used in 12 KiB, the second without
# a record. They stay live to the end, where the replay reads RSS whatever
# the sampling interval (docs/METRICS.md).
cat > "$T/big.txt" <<'TXT'
heapreplay-trace 1
touched 12288
alloc 0 8388608
alloc 1 8388608
TXT
"$HR" convert "$T/big.txt" -o "$T/big.hrt" > /dev/null 2>&1
rss() { # TOUCH [extra args]: glibc's peak RSS above baseline, bytes
    local t=$1
    shift
    "$HR" replay "$T/big.hrt" -a glibc -r 1 --warm-time 0 -q -f json --touch "$t" "$@" > "$T/r.json" 2> "$T/r.err" &&
        jget results.0.memory.peak_rss_above_baseline "$T/r.json"
}
first=$(rss first)
rec=$(rss recorded)
cap=$(rss recorded:2M)
none=$(rss none)
"$HR" replay "$T/big.hrt" -a glibc -r 1 --warm-time 0 -q -f json > "$T/d.json" 2> /dev/null
packed=$(rss recorded --event-form packed)
packed_none=$(rss none --event-form packed)
# 2-4. what each policy leaves resident
if [ -n "$first" ] && [ "$first" -ge $((16 * MiB)) ]; then
    ok "first: both blocks resident ($first bytes)"
else
    not_ok "first: both blocks resident" "got '$first'" "$(cat "$T/r.err")"
fi
# (bounds of whole MiB: the harness's own RSS varies by some 100 KiB)
if [ -n "$rec" ] && [ "$rec" -ge $((8 * MiB - 256 * 1024)) ] && [ "$rec" -lt $((9 * MiB)) ]; then
    ok "recorded: the recorded block's 12 KiB and the other block whole ($rec bytes)"
else
    not_ok "recorded: 8 MiB + 12 KiB resident" "got '$rec'" "first '$first' none '$none'"
fi
if [ -n "$cap" ] && [ "$cap" -ge $((2 * MiB - 256 * 1024)) ] && [ "$cap" -lt $((3 * MiB)) ]; then
    ok "recorded:2M caps only the block without a record ($cap bytes, none $none)"
else
    not_ok "recorded:2M: 2 MiB + 12 KiB resident" "got '$cap'" "none '$none'"
fi
# 5. recorded is the default (docs/METRICS.md, "Why the default is recorded")
d_rss=$(jget results.0.memory.peak_rss_above_baseline "$T/d.json")
if [ "$(jget options.touch "$T/d.json")" = recorded ] && [ -n "$d_rss" ] &&
   [ "$d_rss" -ge $((8 * MiB - 256 * 1024)) ] && [ "$d_rss" -lt $((9 * MiB)) ]; then
    ok "no --touch: the report says recorded and the recorded block stays 12 KiB ($d_rss bytes)"
else
    not_ok "no --touch: recorded" "$(jget options.touch "$T/d.json")" "rss '$d_rss'"
fi
# 6. the packed form reads the records alike (its window buffer is harness
# memory in the RSS of both rows: compared against its own `none`)
if [ -n "$packed" ] && [ -n "$packed_none" ] && [ "$packed" -ge $((packed_none + 8 * MiB - 256 * 1024)) ] &&
   [ "$packed" -lt $((packed_none + 9 * MiB)) ]; then
    ok "recorded, packed form: the same pages written ($packed bytes, none $packed_none)"
else
    not_ok "recorded, packed form" "got '$packed'" "none '$packed_none'"
fi

# 7. report: the policy's name, ops.touched in JSON (not counted in
# ops.total), no ops.touched column in the CSV of a trace without records
"$HR" replay "$T/big.hrt" -a bump -r 1 --warm-time 0 -q -f json --touch recorded > "$T/j.json" 2> /dev/null
printf 'heapreplay-trace 1\nalloc 0 10\nfree 0\n' > "$T/plain.txt"
"$HR" replay "$T/plain.txt" -a bump -r 1 --warm-time 0 -q -f csv --touch recorded > "$T/c.csv" 2> /dev/null
if [ "$(jget options.touch "$T/j.json")" = recorded ] && [ "$(jget results.0.ops.touched "$T/j.json")" = 1 ] &&
   [ "$(jget results.0.ops.total "$T/j.json")" = 2 ] && grep -q recorded "$T/c.csv" &&
   ! grep -q touched "$T/c.csv"; then
    ok "report: touch recorded, ops.touched 1 beside 2 memory ops; no CSV column without records"
else
    not_ok "report: touch recorded, ops.touched" "$(head -c 300 "$T/j.json")"
fi

# 8. --verify: records on calloc and realloc keep zeros and copied bytes, in
# every in-house allocator and glibc, in the serial and the threaded replay
cat > "$T/mix.txt" <<'TXT'
heapreplay-trace 1
touched 8192
calloc 0 100 1024
alloc 1 300
touched 20000
realloc 1 2 200000
touched 4096 t=1
alloc 3 70000 t=1
free 0
free 2
free 3 t=1
TXT
"$HR" convert "$T/mix.txt" -o "$T/mix.hrt" > /dev/null 2>&1
"$HR" replay "$T/mix.hrt" -a glibc,bump,block,bank,stack,routed -r 1 --warm-time 0 -q -f json \
    --touch recorded --verify > "$T/v.json" 2> "$T/v.err"
bad=""
for i in 0 1 2 3 4 5; do
    a=$(jget "results.$i.allocator" "$T/v.json")
    s=$(jget "results.$i.verify.status" "$T/v.json")
    [ "$s" = ok ] || bad="$bad $a:$s"
done
if [ -z "$bad" ]; then
    ok "--verify --touch recorded: every row verifies (calloc zeros, realloc copies intact)"
else
    not_ok "--verify --touch recorded" "$bad" "$(cat "$T/v.err")"
fi
"$HR" replay "$T/mix.hrt" -a glibc -r 1 --warm-time 0 -q -f json --touch recorded \
    --threads recorded > "$T/th.json" 2> "$T/th.err"
if [ "$(jget results.0.status "$T/th.json")" = ok ] && [ "$(jget results.0.ops.touched "$T/th.json")" = 3 ]; then
    ok "threaded replay with records: ok, 3 records counted"
else
    not_ok "threaded replay with records" "$(jget results.0.status "$T/th.json")" "$(cat "$T/th.err")"
fi
tap_done
