#!/usr/bin/env bash
# plot --kind and report through the heapreplay binary (TAP): golden SVG of
# every chart kind for the series fixture (tests/data/reports/series.json, 2
# traces x 3 allocators, one row without series), each valid XML (xmllint
# when installed); a report without series (schema 1) and a row without
# series degrade to notes; no raw JSON field names and no "n/a (ok)" in the
# charts; option errors exit 2 with one line; report renders every format;
# the HTML page's golden file and shape; the palette and the small panels of
# many allocators.
# Regenerate the golden files with HR_UPDATE_EXPECTED=1 after a deliberate change.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
hr="$top_builddir/heapreplay"
[ -x "$hr" ] || skip_all "$hr not built"
data="$srcdir/tests/data/reports"
fx="$data/series.json"
exp="$srcdir/tests/expected"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hr_charts.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
have_xmllint=0
command -v xmllint >/dev/null 2>&1 && have_xmllint=1

# check_err NAME WANT_TEXT CMD...: exit 2, exactly one line on stderr holding
# WANT_TEXT, nothing on stdout.
check_err() {
    local name=$1 want=$2 rc lines
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -qF -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok "$name"
    else
        not_ok "$name (exit $rc, $lines stderr lines)" "$(head -c 400 "$tmp/err")"
    fi
}

for kind in bars summary memory frames latency all; do
    if ! "$hr" plot "$fx" --kind "$kind" -o "$tmp/$kind.svg" 2>"$tmp/err"; then
        not_ok "plot --kind $kind" "$(cat "$tmp/err")"
        continue
    fi
    if [ "$have_xmllint" = 1 ]; then
        if xmllint --noout "$tmp/$kind.svg" 2>"$tmp/err"; then ok "$kind: valid XML"
        else not_ok "$kind: valid XML" "$(head -5 "$tmp/err")"; fi
    else
        skip "$kind: valid XML" "xmllint not installed"
    fi
    [ "$kind" = all ] && continue
    golden="$exp/charts_$kind.svg"
    [ "${HR_UPDATE_EXPECTED:-0}" = 1 ] && cp "$tmp/$kind.svg" "$golden"
    if diff -u "$golden" "$tmp/$kind.svg" >"$tmp/diff"; then ok "$kind: golden file"
    else not_ok "$kind: golden file" "$(head -20 "$tmp/diff")"; fi
done

# What a reader sees: words, not the report's field names.
bad=$(grep -oE 'n/a \(ok\)|live_bytes|footprint_bytes|rss_bytes|ns_mean|ns_max|le_ns|first_frame|time\.ops_per_s|ops_per_s' \
      "$tmp"/*.svg | sort -u | head -5)
if [ -z "$bad" ]; then ok "no raw field names or n/a (ok) in the charts"
else not_ok "no raw field names or n/a (ok) in the charts" "$bad"; fi
grep -q '<polyline' "$tmp/memory.svg" && grep -q 'Memory over time: game_session.hrt' "$tmp/memory.svg" &&
    grep -q 'Memory over time: frame_loop.hrt' "$tmp/memory.svg" &&
    ok "memory: one titled panel per trace" || not_ok "memory: one titled panel per trace"
grep -q 'time in the trace' "$tmp/memory.svg" && grep -q '>event index<' "$tmp/memory.svg" &&
    ok "memory: time axis with timestamps, event index without" ||
    not_ok "memory: time axis with timestamps, event index without"
grep -q 'jemalloc: no memory series' "$tmp/memory.svg" && grep -q 'jemalloc: no frame series' "$tmp/frames.svg" &&
    grep -q 'jemalloc: no latency series' "$tmp/latency.svg" &&
    ok "a row without series is named in the legend" || not_ok "a row without series is named in the legend"
grep -q 'frame budget 166 µs: 1 % of 16.6 ms' "$tmp/frames.svg" && ok "frames: the default budget line" ||
    not_ok "frames: the default budget line"
grep -q 'relative to glibc' "$tmp/summary.svg" && grep -q '1.00×' "$tmp/summary.svg" &&
    grep -q 'min-max of the repeats' "$tmp/summary.svg" &&
    ok "summary: normalised to glibc with error bars" || not_ok "summary: normalised to glibc with error bars"
grep -q 'log scale' "$tmp/latency.svg" && ok "latency: log x axis" || not_ok "latency: log x axis"

# Options change what is drawn.
"$hr" plot "$fx" --kind summary --baseline block -o "$tmp/b.svg" &&
    grep -q 'relative to block' "$tmp/b.svg" && ok "--baseline block" || not_ok "--baseline block"
"$hr" plot "$fx" --kind frames --frame-budget 2ms -o "$tmp/f.svg" &&
    grep -q 'frame budget 2 ms (--frame-budget)' "$tmp/f.svg" && ok "--frame-budget 2ms" || not_ok "--frame-budget 2ms"
"$hr" plot "$fx" --kind summary --metric peak -o "$tmp/p.svg" &&
    grep -q 'Peak footprint relative to glibc (lower is better)' "$tmp/p.svg" &&
    ok "--kind summary --metric peak" || not_ok "--kind summary --metric peak"

# A report without series (schema 1): every kind draws, each panel says why.
if "$hr" plot "$data/base.json" --kind all -o "$tmp/v1.svg" 2>"$tmp/err" &&
    grep -q 'No memory series for this trace' "$tmp/v1.svg" &&
    grep -q 'No frame series for this trace' "$tmp/v1.svg" &&
    grep -q 'No latency series for this trace' "$tmp/v1.svg"; then
    ok "a report without series: notes, not errors"
else
    not_ok "a report without series: notes, not errors" "$(cat "$tmp/err")"
fi

# Option errors: exit 2, one line.
check_err "--kind pie" "option '--kind' expects bars, summary" "$hr" plot "$fx" --kind pie
check_err "--baseline unknown" "--baseline: the report has no allocator \"nosuch\"" \
    "$hr" plot "$fx" --kind summary --baseline nosuch -o "$tmp/x.svg"
check_err "--frame-budget no unit" "option '--frame-budget' expects a duration" \
    "$hr" plot "$fx" --kind frames --frame-budget 12
check_err "--frame-budget 0" "option '--frame-budget' expects a duration" \
    "$hr" plot "$fx" --kind frames --frame-budget 0ms
check_err "--kind without argument" "option '--kind' requires an argument" "$hr" plot "$fx" --kind
check_err "report -f yaml" "option '-f' expects text, md, csv, json or html" "$hr" report -f yaml "$fx"
check_err "report missing file" "nosuch.json" "$hr" report "$tmp/nosuch.json"
check_err "report bad JSON" "bad_syntax.json" "$hr" report "$data/bad_syntax.json"
check_err "report wrong schema" "wrong_schema.json" "$hr" report "$data/wrong_schema.json"
check_err "report two operands" "too many arguments" "$hr" report "$fx" "$fx"
check_err "report --metric unknown" "--metric: unknown metric" "$hr" report -f html --metric nope "$fx"
check_err "report --baseline unknown" "--baseline: the report has no allocator" \
    "$hr" report -f html --baseline nosuch "$fx" -o "$tmp/never.html"
[ ! -e "$tmp/never.html" ] && ok "a failed report leaves no file" || not_ok "a failed report leaves no file"

# report renders what replay would have printed.
if "$hr" report "$fx" -f json >"$tmp/r.json" && command -v jq >/dev/null 2>&1; then
    if [ "$(jq -S . "$tmp/r.json")" = "$(jq -S . "$fx")" ]; then ok "report -f json: the same document"
    else not_ok "report -f json: the same document"; fi
else
    skip "report -f json: the same document" "jq not installed"
fi
"$hr" report "$fx" >"$tmp/r.txt" && grep -q 'game_session.hrt' "$tmp/r.txt" &&
    ok "report: text by default" || not_ok "report: text by default"
"$hr" report "$fx" -f md -o "$tmp/r.md" && grep -q '^|' "$tmp/r.md" && ok "report -f md -o" ||
    not_ok "report -f md -o"
"$hr" report "$fx" -f csv | head -1 | grep -q '^trace,' && ok "report -f csv" || not_ok "report -f csv"
if "$hr" report "$fx" -f html -o "$tmp/r.html" 2>"$tmp/err"; then
    n=$(grep -c '^<svg' "$tmp/r.html")
    if [ "$n" = 8 ] && grep -q '</html>' "$tmp/r.html" && grep -q '<table class="hr">' "$tmp/r.html" &&
        ! grep -qiE '<script|https?:|src=|url\(' "$tmp/r.html"; then
        ok "report -f html: 2 traces x 4 charts inline, tables, no script or URL"
    else
        not_ok "report -f html: 2 traces x 4 charts inline, tables, no script or URL" "svg: $n"
    fi
    if [ "$have_xmllint" = 1 ]; then
        # libxml2's HTML 4 parser does not know the SVG tags; any other error counts
        xmllint --html --noout "$tmp/r.html" 2>"$tmp/err"
        errs=$(grep 'error' "$tmp/err" | grep -v 'Tag [a-zA-Z]* invalid' | head -5)
        if [ -z "$errs" ]; then ok "report -f html parses as HTML"
        else not_ok "report -f html parses as HTML" "$errs"; fi
    else
        skip "report -f html parses as HTML" "xmllint not installed"
    fi
else
    not_ok "report -f html" "$(cat "$tmp/err")"
fi

# The page's shape (docs/REPORTS.md, "HTML report"): its golden file; no
# <pre> (prose wraps: paragraphs and legends); every chart scales to the
# page (width 100 %, a viewBox, no pixel size); per trace the summary chart
# shown and the memory, frame and latency charts each in a closed <details>.
if [ -s "$tmp/r.html" ]; then
    golden="$exp/report_series.html"
    [ "${HR_UPDATE_EXPECTED:-0}" = 1 ] && cp "$tmp/r.html" "$golden"
    if diff -u "$golden" "$tmp/r.html" >"$tmp/diff"; then ok "report -f html: golden file"
    else not_ok "report -f html: golden file" "$(head -20 "$tmp/diff")"; fi
    grep -qi '<pre' "$tmp/r.html" && not_ok "report -f html: no <pre>" "$(grep -i -m2 '<pre' "$tmp/r.html")" ||
        ok "report -f html: no <pre>"
    "$hr" report "$data/v1_frame_loop.json" -f html -o "$tmp/v1.html"
    grep -qE '^<p>(fastest|ship|keep|no allocator)' "$tmp/r.html" &&
        grep -q '^<dl class="legend">' "$tmp/v1.html" && grep -A1 '^<dt>fallback</dt>' "$tmp/v1.html" |
        grep -q '^<dd>under 50% of the ops served natively' &&
        ok "report -f html: the verdict a paragraph, the legend a definition list" ||
        not_ok "report -f html: the verdict a paragraph, the legend a definition list"
    bad=$(grep '^<svg' "$tmp/r.html" | grep -vE '^<svg width="100%" viewBox="0 0 [0-9]+ [0-9]+" [^>]*>$' |
          head -2; grep '^<svg' "$tmp/r.html" | grep -E ' height=' | head -2)
    [ -z "$bad" ] && ok "report -f html: every svg width 100 % with a viewBox, no pixel size" ||
        not_ok "report -f html: every svg width 100 % with a viewBox, no pixel size" "$bad"
    # depth of <details> at each chart: 2 traces x (1 outside + 3 inside, one per <details>)
    shape=$(awk '/^<details>$/ {d++; n = 0} /^<\/details>$/ {if (n != 1) bad++; d--}
                 /^<svg/ {if (d) {inside++; n++} else outside++}
                 END {printf "outside=%d inside=%d bad=%d", outside, inside, bad}' "$tmp/r.html")
    [ "$shape" = "outside=2 inside=6 bad=0" ] &&
        ok "report -f html: the summary shown, each detail chart in a <details> ($shape)" ||
        not_ok "report -f html: the summary shown, each detail chart in a <details>" "$shape"
    grep -q '<figcaption>Time spent in the allocator per frame.*frame budget, 166 µs: by default 1 % of a 16.6 ms frame' \
        "$tmp/r.html" && ok "report -f html: the frame budget explained under its chart" ||
        not_ok "report -f html: the frame budget explained under its chart"
fi

# Many allocators (24 made from the fixture's rows): the palette gives each
# line a style of its own (8 colours, then dashed, then dotted); frames and
# latency draw one small panel per allocator, the reference in each.
if command -v jq >/dev/null 2>&1; then
    jq '.results as $r | ($r | map(select(.trace | endswith("game_session.hrt")))) as $g |
        .results = [range(0; 24) as $i | $g[$i % 3] | .allocator = "a\($i)"]' "$fx" >"$tmp/many.json"
    "$hr" plot "$tmp/many.json" --kind memory -o "$tmp/many_m.svg" 2>"$tmp/err"
    styles=$(grep '<polyline' "$tmp/many_m.svg" | grep -v 'stroke="#333"' |
             grep -oE 'stroke="[^"]*" stroke-width="[^"]*"( stroke-dasharray="[^"]*")?' | sort -u | wc -l)
    colors=$(grep '<polyline' "$tmp/many_m.svg" | grep -v 'stroke="#333"' | grep -v dasharray |
             grep -oE 'stroke="#[0-9A-Fa-f]{6}"' | sort -u | wc -l)
    [ "$styles" = 24 ] && [ "$colors" = 8 ] &&
        ok "palette: 24 allocators, 24 line styles (8 colours)" ||
        not_ok "palette: 24 allocators, 24 line styles (8 colours)" "styles $styles, colours $colors"
    jq '.results |= .[0:10]' "$tmp/many.json" >"$tmp/ten.json"
    for k in frames latency; do
        "$hr" plot "$tmp/ten.json" --kind "$k" -o "$tmp/ten_$k.svg" 2>"$tmp/err"
        cells=$(grep -cE 'font-weight="bold">a[0-9]+<' "$tmp/ten_$k.svg")
        refs=$(grep '<polyline' "$tmp/ten_$k.svg" | grep -c 'stroke="#b8b8b8"')
        [ "$cells" = 10 ] && [ "$refs" = 9 ] &&
            ok "$k: 10 allocators, 10 small panels with the reference line" ||
            not_ok "$k: 10 allocators, 10 small panels with the reference line" "cells $cells, ref $refs"
    done
    # the panels in the summary chart's order: the fastest first, not report order
    "$hr" plot "$tmp/ten.json" --kind summary -o "$tmp/ten_s.svg" 2>"$tmp/err"
    bars=$(grep -oE 'text-anchor="end">a[0-9]+<' "$tmp/ten_s.svg" | grep -oE 'a[0-9]+' | tr '\n' ' ')
    cells=$(grep -oE 'font-weight="bold">a[0-9]+<' "$tmp/ten_frames.svg" | grep -oE 'a[0-9]+' | tr '\n' ' ')
    [ -n "$bars" ] && [ "$bars" = "$cells" ] && [ "${bars%% *}" != a0 ] &&
        ok "frames: small panels in the summary's order ($cells)" ||
        not_ok "frames: small panels in the summary's order" "bars: $bars; panels: $cells"
else
    for k in palette frames latency; do skip "$k with many allocators" "jq not installed"; done
fi

# --detail: the default output is a prefix of the detailed one; the page gets more tables.
"$hr" report "$fx" >"$tmp/d0.txt" && "$hr" report "$fx" --detail >"$tmp/d1.txt"
if [ -s "$tmp/d0.txt" ] && [ "$(wc -c <"$tmp/d1.txt")" -gt "$(wc -c <"$tmp/d0.txt")" ] &&
    [ "$(head -c "$(wc -c <"$tmp/d0.txt")" "$tmp/d1.txt" | cmp - "$tmp/d0.txt" && echo same)" = same ]; then
    ok "report --detail starts with the default output"
else
    not_ok "report --detail starts with the default output"
fi
t0=$("$hr" report "$fx" -f html | grep -c '<table class="hr">')
t1=$("$hr" report "$fx" -f html --detail | grep -c '<table class="hr">')
[ "$t1" -gt "$t0" ] && ok "report -f html --detail: more tables ($t0 -> $t1)" ||
    not_ok "report -f html --detail: more tables" "$t0 -> $t1"

# Names with markup and control characters come out escaped: still valid XML.
if command -v jq >/dev/null 2>&1 && [ "$have_xmllint" = 1 ]; then
    jq '(.results[] | select(.allocator == "block") | .allocator) |= "bl<o>&\"ck\u0001"' \
        "$fx" >"$tmp/markup.json"
    if "$hr" plot "$tmp/markup.json" --kind all -o "$tmp/markup.svg" 2>"$tmp/err" &&
        xmllint --noout "$tmp/markup.svg" 2>>"$tmp/err" && grep -q 'bl&lt;o&gt;&amp;&quot;ck' "$tmp/markup.svg"; then
        ok "allocator names with markup: escaped, valid XML"
    else
        not_ok "allocator names with markup: escaped, valid XML" "$(head -3 "$tmp/err")"
    fi
else
    skip "allocator names with markup: escaped, valid XML" "jq or xmllint not installed"
fi

# A baseline one trace lacks: that trace's summary panel says so, the page is made.
if command -v jq >/dev/null 2>&1; then
    jq '.results |= map(select((.trace | endswith("frame_loop.hrt") | not) or .allocator != "block"))' \
        "$fx" >"$tmp/noblock.json"
    if "$hr" report "$tmp/noblock.json" -f html --baseline block -o "$tmp/nb.html" 2>"$tmp/err" &&
        grep -q 'No ok block row with this figure on this trace' "$tmp/nb.html" &&
        grep -q 'relative to block' "$tmp/nb.html"; then
        ok "--baseline missing from one trace: a note in its panel"
    else
        not_ok "--baseline missing from one trace: a note in its panel" "$(cat "$tmp/err")"
    fi
else
    skip "--baseline missing from one trace: a note in its panel" "jq not installed"
fi

# replay -f html writes the page on standard output.
printf 'heapreplay-trace 1\nalloc 0 64\nframe 1\nalloc 1 32\nfree 0\nframe 2\nfree 1\n' >"$tmp/t.txt"
if "$hr" replay "$tmp/t.txt" -a glibc,block -r 1 --warm-time 0 -q -f html >"$tmp/replay.html" 2>"$tmp/err" &&
    grep -q '^<!DOCTYPE html>' "$tmp/replay.html" && [ "$(grep -c '^<svg' "$tmp/replay.html")" = 4 ]; then
    ok "replay -f html"
else
    not_ok "replay -f html" "$(head -3 "$tmp/err")"
fi
tap_done
