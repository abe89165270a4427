#!/usr/bin/env bash
# Report readers trust no number they did not check (docs/REPORT_SCHEMA.md,
# "Limits"): a report whose count or byte figure is negative, or with a
# number that is not finite (1e999 parses as infinity), is refused with one
# line naming the file and the JSON path, exit 2, by every command that reads
# reports (report, compare, plot); a report larger than the limit (256 MiB)
# is refused before it is parsed. The unmodified report is read fine, so the
# refusals come from the edits. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup report_input
srcdir=${srcdir:-.}
SRC="$srcdir/results/shipped-traces.json"
[ -f "$SRC" ] || skip_all "no $SRC"

cp "$SRC" "$T/good.json"
# The first peak_live (results[0].memory.peak_live) made negative, the first
# warm ns/op (results[0].time.ns_per_op) made infinite; the first peak
# footprint sample negative (the samples on one line, or one a line as the
# writer laid them out before).
sed '0,/"peak_live": [0-9]*/s//"peak_live": -1/' "$SRC" > "$T/neg.json"
sed '0,/"ns_per_op": [0-9.]*,/s//"ns_per_op": 1e999,/' "$SRC" > "$T/inf.json"
awk '!done && /"memory\.peak_footprint": \[[0-9]/ { sub(/\[[0-9]+/, "[-5"); done = 1 }
     !done && prev ~ /"memory\.peak_footprint": \[$/ { sub(/[0-9]+/, "-5"); done = 1 }
     { print; prev = $0 }' "$SRC" > "$T/negs.json"
for f in neg inf negs; do
    cmp -s "$SRC" "$T/$f.json" && not_ok "the $f fixture differs from the report" "sed changed nothing"
done

# refused CASE FILE PATTERN CMD...: exit 2 and exactly one stderr line matching PATTERN
refused() {
    local name=$1 pat=$2
    shift 2
    "$@" > "$T/out" 2> "$T/err"
    local rc=$? lines
    lines=$(wc -l < "$T/err")
    if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -q -- "$pat" "$T/err"; then
        ok "$name"
    else
        not_ok "$name" "exit $rc, $lines stderr lines, expected 2 and 1 line matching: $pat" \
            "$(head -3 "$T/err")"
    fi
}

if "$HR" report "$T/good.json" > /dev/null 2> "$T/err"; then
    ok "the unmodified report renders"
else
    not_ok "the unmodified report renders" "$(head -3 "$T/err")"
fi

neg="neg.json: results\[0\]\.memory\.peak_live: expected a byte count >= 0, got -1$"
inf="inf.json: results\[0\]\.time\.ns_per_op: expected a finite number, got inf$"
refused "report: a negative byte count is refused" "$neg" "$HR" report "$T/neg.json"
refused "compare: a negative byte count is refused" "$neg" "$HR" compare "$T/good.json" "$T/neg.json"
refused "plot: a negative byte count is refused" "$neg" "$HR" plot "$T/neg.json" -o "$T/x.svg"
refused "report: 1e999 is refused" "$inf" "$HR" report "$T/inf.json"
refused "compare: 1e999 is refused" "$inf" "$HR" compare "$T/inf.json" "$T/good.json"
refused "report: a negative sample of a byte figure is refused" \
    "negs.json: results\[[0-9]*\]\.samples\.memory\.peak_footprint\[0\]: expected a byte count >= 0, got -5$" \
    "$HR" report "$T/negs.json"

# 300 MiB of nothing (sparse: no disk used): refused by its size, unread.
if truncate -s 300M "$T/big.json" 2>/dev/null; then
    refused "report: a report over 256 MiB is refused before it is parsed" \
        "big.json: expected a report of at most 256 MiB, got 314572800 bytes" \
        "$HR" report "$T/big.json"
    refused "compare: a report over 256 MiB is refused" "big.json: expected a report of at most" \
        "$HR" compare "$T/good.json" "$T/big.json"
else
    skip "a report over 256 MiB is refused" "truncate cannot make a sparse file here"
fi
# A pipe has no size to check first: an endless JSON array is refused once
# it passes the limit, not read on (a device such as /dev/urandom alike).
mkfifo "$T/endless"
(printf '['; yes '1,' 2>/dev/null) > "$T/endless" &
refused "report: an endless pipe is refused past 256 MiB" "expected at most 268435456 bytes of JSON" \
    timeout 120 "$HR" report "$T/endless"
kill %1 2>/dev/null
wait 2>/dev/null
tap_done
