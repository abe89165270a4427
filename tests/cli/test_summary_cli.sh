#!/usr/bin/env bash
# The summary of the text report on the shipped traces (docs/REPORTS.md,
# "Summary"): every trace of traces/*.hrt (not traces/real: speed) replayed
# once on a few allocators; no line of the default text output is wider than
# 100 columns (code points: the output has UTF-8 symbols), every trace gets
# its ranking table and one verdict, and the output of --detail starts with
# exactly the default output (the default rendered from the JSON the same
# replay wrote). Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup summary_cli
srcdir=${srcdir:-.}
RENDER="$top_builddir/tests/tools/render_report"
[ -x "$RENDER" ] || skip_all "$RENDER not built"
command -v perl >/dev/null || skip_all "no perl to count code points"

set -- "$srcdir"/traces/*.hrt
[ -f "$1" ] || skip_all "no shipped traces in $srcdir/traces"
ntraces=$#
RUN=(-a glibc,block,stack,bank -r 1 --warm-time 0 -q)

# widest FILE: the longest line in code points
widest() { perl -CSD -ne 'chomp; $m = length if length > $m; END { print $m + 0 }' "$1"; }

"$HR" replay "${RUN[@]}" "$@" > "$T/default.txt" 2> "$T/err"
rc=$?
w=$(widest "$T/default.txt")
if [ "$rc" = 0 ] && [ "$w" -le 100 ]; then
    ok "default text output of $ntraces shipped traces fits 100 columns (widest line: $w)"
else
    not_ok "default text output fits 100 columns (exit $rc, widest line $w)" \
        "$(perl -CSD -ne 'print if length > 101' "$T/default.txt" | head -5)" "$(head -3 "$T/err")"
fi

heads=$(grep -c '^trace .*: [0-9]* ops, peak live ' "$T/default.txt")
verdicts=$(grep -c '^\(fastest by \|ship \|no allocator \|keep \)' "$T/default.txt")
if [ "$heads" = "$ntraces" ] && [ "$verdicts" = "$ntraces" ] &&
   ! grep -q 'details (--detail)\|ns/op by op type\|(digest ' "$T/default.txt"; then
    ok "one heading and one verdict per trace, no detail tables by default"
else
    not_ok "one heading and one verdict per trace ($heads headings, $verdicts verdicts)" \
        "$(head -20 "$T/default.txt")"
fi

"$HR" replay "${RUN[@]}" --detail -o "$T/r.json" "$@" > "$T/detail.txt" 2> "$T/err"
rc=$?
"$RENDER" "$T/r.json" text > "$T/summary.txt"
n=$(wc -c < "$T/summary.txt")
if [ "$rc" = 0 ] && [ "$n" -gt 0 ] && cmp -s -n "$n" "$T/summary.txt" "$T/detail.txt" &&
   [ "$(wc -c < "$T/detail.txt")" -gt "$n" ] &&
   [ "$(grep -c '(digest ' "$T/detail.txt")" = "$ntraces" ] && grep -q '^ns/op by op type' "$T/detail.txt"; then
    ok "--detail output starts with the default output, then the detail tables"
else
    not_ok "--detail output starts with the default output (exit $rc)" \
        "$(diff "$T/summary.txt" "$T/detail.txt" | head -8)" "$(head -3 "$T/err")"
fi
w=$(widest "$T/summary.txt")
if [ "$w" -le 100 ]; then
    ok "the default part of the --detail run fits 100 columns too (widest line: $w)"
else
    not_ok "the default part of the --detail run fits 100 columns (widest line $w)"
fi

"$RENDER" "$T/r.json" md > "$T/summary.md"
"$RENDER" "$T/r.json" md --detail > "$T/detail.md"
n=$(wc -c < "$T/summary.md")
if [ "$n" -gt 0 ] && cmp -s -n "$n" "$T/summary.md" "$T/detail.md" &&
   [ "$(grep -c '^### trace ' "$T/summary.md")" = "$ntraces" ] &&
   [ "$(grep -c '^| # | allocator | \(change\|cold/op\|warm/op\) |' "$T/summary.md")" = "$ntraces" ]; then
    ok "Markdown: one ranking table per trace; --detail starts with the default"
else
    not_ok "Markdown summary" "$(head -12 "$T/summary.md")"
fi

# JSON and CSV do not change with --detail (they already carry everything)
"$RENDER" "$T/r.json" csv > "$T/a.csv"
"$RENDER" "$T/r.json" csv --detail > "$T/b.csv"
check "CSV is the same with --detail" cmp -s "$T/a.csv" "$T/b.csv"

# the renderer used above refuses bad input like heapreplay: one line, exit 2
"$RENDER" "$srcdir/tests/data/reports/bad_syntax.json" text > /dev/null 2> "$T/err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q 'bad_syntax.json' "$T/err"; then
    ok "a malformed report: one line naming the file, exit 2"
else
    not_ok "a malformed report: one line naming the file, exit 2 (exit $rc)" "$(cat "$T/err")"
fi
tap_done
