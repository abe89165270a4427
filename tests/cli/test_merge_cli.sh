#!/usr/bin/env bash
# replay --shard K/N and merge through the heapreplay binary (TAP):
#  - shards 1/3 2/3 3/3 partition the (trace, allocator) matrix;
#  - merge(1/3, 2/3, 3/3) equals the unsharded run on every deterministic
#    field (op counts, peak live, in-house footprints, slop, digests,
#    statuses, in the same order; timings left out), and options match;
#  - negative controls: the same comparison fails on a merge missing a shard
#    (--partial) and merge refuses a shard replayed with other options;
#  - every refusal is one line on stderr and exit 2;
#  - the merged report is an ordinary report: compare and plot read it.
set -u
. "$(dirname "$0")/tap.sh"
srcdir=${srcdir:-.}
tap_setup merge_cli
command -v jq >/dev/null || skip_all "jq not installed"

# three small traces x three in-house allocators: 9 cells
for g in frame_loop particles level_load; do
    "$HR" gen "$g" -n 4000 -o "$T/$g.hrt" >/dev/null || skip_all "cannot generate $g"
done
run=(replay "$T/frame_loop.hrt" "$T/particles.hrt" "$T/level_load.hrt" -a stack,block,sizeclass
     -r 1 --warm-time 0 -q -f csv)
"$HR" "${run[@]}" -o "$T/all.json" >/dev/null 2>"$T/err" || skip_all "replay failed: $(head -1 "$T/err")"
for k in 1 2 3; do
    "$HR" "${run[@]}" --shard "$k/3" -o "$T/s$k.json" >/dev/null 2>"$T/err" ||
        skip_all "replay --shard $k/3 failed: $(head -1 "$T/err")"
done

# The deterministic fields of every result, in report order.
det='[.results[] | {trace, allocator, status, trace_digest, ops,
      peak_live: .memory.peak_live, source: .memory.footprint_source,
      footprint: (if .memory.footprint_source == "exact" then .memory.peak_footprint else null end),
      slop: .memory.internal_slop, native_ops: .native.native_ops,
      fallback_ops: .native.fallback_ops}]'
cells() { jq -r '.results[] | "\(.trace) \(.allocator)"' "$@" | sort; }

# partition: every cell once over the three shards, none twice, sizes 3/3/3
cells "$T/s1.json" "$T/s2.json" "$T/s3.json" >"$T/union"
cells "$T/all.json" >"$T/whole"
sizes=$(for k in 1 2 3; do jq '.results | length' "$T/s$k.json"; done | paste -sd' ')
if cmp -s "$T/union" "$T/whole" && [ "$(wc -l <"$T/whole")" = 9 ] && [ "$sizes" = "3 3 3" ]; then
    ok "shards 1/3 2/3 3/3 partition the 9 cells (3 each)"
else
    not_ok "shards partition the matrix" "sizes $sizes" "$(diff "$T/union" "$T/whole" | head -5)"
fi
if [ "$(jq -r .options.shard "$T/s2.json")" = 2/3 ] &&
    [ "$(jq -c .matrix.allocators "$T/s2.json")" = '["stack","block","sizeclass"]' ]; then
    ok "a shard report records options.shard and the matrix"
else
    not_ok "a shard report records options.shard and the matrix" "$(jq -c '.options, .matrix' "$T/s2.json")"
fi
# deterministic: the same shard again picks the same cells
"$HR" "${run[@]}" --shard 2/3 -o "$T/s2b.json" >/dev/null 2>&1
if [ "$(cells "$T/s2.json")" = "$(cells "$T/s2b.json")" ]; then
    ok "shard 2/3 picks the same cells twice"
else
    not_ok "shard 2/3 picks the same cells twice"
fi

# merge in any argument order equals the unsharded run
if "$HR" merge "$T/s3.json" "$T/s1.json" "$T/s2.json" -o "$T/m.json" 2>"$T/err"; then
    ok "merge 3 shards (exit 0)"
else
    not_ok "merge 3 shards (exit 0)" "$(cat "$T/err")"
fi
jq -S "$det" "$T/all.json" >"$T/all.det"
jq -S "$det" "$T/m.json" >"$T/m.det" 2>/dev/null
if [ -s "$T/all.det" ] && cmp -s "$T/all.det" "$T/m.det" && [ "$(jq length "$T/all.det")" = 9 ]; then
    ok "merged shards equal the unsharded run on every deterministic field"
else
    not_ok "merged shards equal the unsharded run on every deterministic field" \
        "$(diff "$T/all.det" "$T/m.det" | head -10)"
fi
if [ "$(jq -S .options "$T/all.json")" = "$(jq -S .options "$T/m.json")" ] &&
    [ "$(jq -c '[.merged.count, .merged.partial, (.merged.shards | map(.shard))]' "$T/m.json")" = \
        '[3,false,["1/3","2/3","3/3"]]' ]; then
    ok "merged options equal the unsharded run's; merged names the shards"
else
    not_ok "merged options and merged object" "$(jq -c '.options, .merged' "$T/m.json")"
fi

# uneven shards: 9 cells over 4 shards (3 2 2 2) merge to the same; a shard
# with no cell (10 shards) is an empty report, and the run exits 0
for k in 1 2 3 4; do
    "$HR" "${run[@]}" --shard "$k/4" -o "$T/q$k.json" >/dev/null 2>&1
done
sizes=$(for k in 1 2 3 4; do jq '.results | length' "$T/q$k.json"; done | sort -rn | paste -sd' ')
"$HR" merge "$T"/q[1-4].json -o "$T/q.json" 2>/dev/null
if [ "$sizes" = "3 2 2 2" ] && [ "$(jq -S "$det" "$T/q.json" 2>/dev/null)" = "$(cat "$T/all.det")" ]; then
    ok "4 shards of 9 cells (3 2 2 2) merge to the unsharded run too"
else
    not_ok "4 uneven shards" "sizes $sizes"
fi
"$HR" "${run[@]}" --shard 10/10 -o "$T/e.json" >/dev/null 2>&1
rc=$?
if [ "$rc" = 0 ] && [ "$(jq '.results | length' "$T/e.json")" = 0 ] && [ "$(jq -r .options.shard "$T/e.json")" = 10/10 ]; then
    ok "a shard without a cell: an empty report, exit 0"
else
    not_ok "a shard without a cell (exit $rc)"
fi

# negative controls: a merge missing a shard does not pass the comparison
"$HR" merge --partial "$T/s1.json" "$T/s3.json" -o "$T/p.json" 2>"$T/err"
jq -S "$det" "$T/p.json" >"$T/p.det" 2>/dev/null
if [ -s "$T/p.det" ] && ! cmp -s "$T/all.det" "$T/p.det" &&
    [ "$(jq -c '[.merged.partial, .merged.missing]' "$T/p.json")" = '[true,["2/3"]]' ] &&
    grep -q 'partial: 1 of 3 shards missing' "$T/err"; then
    ok "negative control: --partial without shard 2 differs and says so"
else
    not_ok "negative control: --partial without shard 2" "$(jq -c .merged "$T/p.json" 2>&1)"
fi
"$HR" replay "$T/frame_loop.hrt" "$T/particles.hrt" "$T/level_load.hrt" -a stack,block,sizeclass \
    -r 1 --warm-time 0 -q -f csv --touch none --shard 2/3 -o "$T/s2none.json" >/dev/null 2>&1
jq -S "$det" "$T/s2none.json" >"$T/s2none.det"
if ! "$HR" merge "$T/s1.json" "$T/s2none.json" "$T/s3.json" -o "$T/bad.json" 2>"$T/err" &&
    grep -q 'option touch is "none", expected "recorded"' "$T/err" && [ ! -e "$T/bad.json" ]; then
    ok "negative control: a shard with other options is refused"
else
    not_ok "negative control: a shard with other options is refused" "$(cat "$T/err")"
fi

# every refusal: one line on stderr, exit 2, nothing written
sed 's/"tool_version": "[^"]*"/"tool_version": "0.0.0-other"/' "$T/s2.json" >"$T/ver.json"
jq '.schema_version = (.schema_version + 1)' "$T/s2.json" >"$T/schema.json"
jq '.results[0].trace_digest = "0000000000000000"' "$T/s2.json" >"$T/digest.json"
jq '.options.shard = "2/4"' "$T/s2.json" >"$T/count.json"
jq '.matrix.allocators = ["stack"]' "$T/s2.json" >"$T/matrix.json"
head -c 100 "$T/s2.json" >"$T/trunc.json"
refuse() { # NAME EXPECTED-TEXT FILES...
    local name=$1 want=$2 rc
    shift 2
    rm -f "$T/out.json"
    "$HR" merge "$@" -o "$T/out.json" >/dev/null 2>"$T/err"
    rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$want" "$T/err" &&
        [ ! -e "$T/out.json" ]; then
        ok "refused, one line, exit 2: $name"
    else
        not_ok "refused, one line, exit 2: $name (exit $rc)" "$(cat "$T/err")"
    fi
}
refuse "different tool version" 'tool_version "0.0.0-other"' "$T/s1.json" "$T/ver.json" "$T/s3.json"
refuse "different schema" "schema_version" "$T/s1.json" "$T/schema.json" "$T/s3.json"
refuse "different options" "option touch" "$T/s1.json" "$T/s2none.json" "$T/s3.json"
refuse "different trace digest" "has digest 0000000000000000" "$T/s1.json" "$T/digest.json" "$T/s3.json"
refuse "different shard count" "expected one of 3 shards" "$T/s1.json" "$T/count.json" "$T/s3.json"
refuse "different matrix" '"matrix"' "$T/s1.json" "$T/matrix.json" "$T/s3.json"
refuse "duplicate shard" "shard 2/3 given twice" "$T/s1.json" "$T/s2.json" "$T/s2b.json" "$T/s3.json"
refuse "missing shard" "missing shard 2/3 of 3" "$T/s1.json" "$T/s3.json"
refuse "not a shard report" "expected a shard report" "$T/s1.json" "$T/all.json"
refuse "bad JSON" "trunc.json: offset" "$T/s1.json" "$T/trunc.json"
refuse "missing file" "nonexistent.json: cannot open" "$T/s1.json" "$T/nonexistent.json"
rm -f "$T/out.json"
"$HR" merge "$T/s1.json" "$T/s2.json" "$T/s3.json" -o "$T/no/such/dir/all.json" >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q 'no/such/dir/all.json' "$T/err"; then
    ok "an unwritable output: one line, exit 2"
else
    not_ok "an unwritable output (exit $rc)" "$(cat "$T/err")"
fi

# the merged report is an ordinary report
if "$HR" compare "$T/all.json" "$T/m.json" --max-regress live=0%,slop=0% -f json >"$T/cmp.json" 2>/dev/null &&
    [ "$(jq .summary.matched "$T/cmp.json")" = 9 ] && [ "$(jq .summary.mismatches "$T/cmp.json")" = 0 ]; then
    ok "compare reads the merged report: 9 matched, no mismatch against the unsharded run"
else
    not_ok "compare reads the merged report" "$(jq -c .summary "$T/cmp.json" 2>&1)"
fi
check "plot reads the merged report" "$HR" plot "$T/m.json" -o "$T/m.svg"
tap_done
