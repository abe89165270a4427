#!/usr/bin/env bash
# compare's CI outputs (TAP): golden files for the text table, -f md, -f json
# and -f junit on tests/data/reports/ci_base.json -> ci_new.json (one
# regression, one missing row, a noise row, an improvement, a new row, 9
# unchanged figures); the JUnit file validated with xmllint against
# tests/data/junit.xsd; every format sorted alike (failing rows first, then
# |delta| descending); the Markdown cap; exit codes 0/1/2 in every format.
# Regenerate the goldens after a deliberate change with HR_REGEN=1.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
hr="$(cd "$top_builddir" && pwd)/heapreplay"
[ -x "$hr" ] || skip_all "$hr not built"
command -v jq >/dev/null || skip_all "jq not installed"
exp="$(cd "$srcdir" && pwd)/tests/expected"
xsd="$(cd "$srcdir" && pwd)/tests/data/junit.xsd"
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_cmp_fmt.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
# relative names: the outputs name the two files
cp "$srcdir/tests/data/reports/ci_base.json" "$srcdir/tests/data/reports/ci_new.json" "$T/"
cd "$T" || exit 1

for f in text md json junit; do
    "$hr" compare ci_base.json ci_new.json -f "$f" >"out.$f" 2>"err.$f"
    echo $? >"rc.$f"
done
golden() { # NAME OUTPUT GOLDEN
    if [ "${HR_REGEN:-}" = 1 ]; then cp "$2" "$exp/$3"; fi
    if cmp -s "$2" "$exp/$3"; then ok "$1 equals tests/expected/$3"
    else not_ok "$1 equals tests/expected/$3" "$(diff "$exp/$3" "$2" | head -12)"; fi
}
golden "compare text" out.text compare_ci.txt
golden "compare -f md" out.md compare_ci.md
golden "compare -f json" out.json compare_ci.json
golden "compare -f junit" out.junit compare_ci.junit.xml
if [ "$(cat rc.text rc.md rc.json rc.junit | paste -sd' ')" = "1 1 1 1" ]; then
    ok "a regression: exit 1 in every format"
else
    not_ok "a regression: exit 1 in every format" "$(cat rc.text rc.md rc.json rc.junit)"
fi

# JUnit against the schema; a broken file must fail it (the check can fail)
if command -v xmllint >/dev/null; then
    check "junit validates against tests/data/junit.xsd" xmllint --noout --schema "$xsd" out.junit
    sed 's/<testcase /<testcase bogus="1" /' out.junit >broken.xml
    if ! xmllint --noout --schema "$xsd" broken.xml >/dev/null 2>&1; then
        ok "the schema rejects an unknown attribute"
    else
        not_ok "the schema rejects an unknown attribute"
    fi
    n=$(xmllint --xpath 'count(//testcase)' out.junit) f=$(xmllint --xpath 'count(//testcase/failure)' out.junit)
    if [ "$n" = "$(jq '.rows | length' out.json)" ] && [ "$f" = "$(jq '[.rows[] | select(.failed)] | length' out.json)" ]; then
        ok "junit: one testcase per row ($n), one failure per failing row ($f)"
    else
        not_ok "junit: one testcase per row, one failure per failing row" "testcases $n, failures $f"
    fi
else
    skip "junit validates against tests/data/junit.xsd" "no xmllint"
fi

# sorting: failing rows first, then |delta| descending (null last), in JSON;
# the text table and the JUnit test cases in the same order
if jq -e '[.rows[] | [(if .failed then 0 else 1 end), (if .delta_pct == null then 1 else 0 end),
          -((.delta_pct // 0) | fabs)]] as $k | $k == ($k | sort)' out.json >/dev/null; then
    ok "json rows sorted: failing first, then |delta_pct| descending"
else
    not_ok "json rows sorted" "$(jq -c '.rows[] | [.failed, .delta_pct]' out.json | head)"
fi
jq -r '.rows[] | "\(.trace) \(.allocator) \(.metric)"' out.json >order.json
awk 'NR > 3 && NF == 0 { exit } NR > 3 { print $1, $2, $3 }' out.text >order.text
sed -n 's/.*classname="\([^"]*\)" name="\([^"]*\)".*/\1 \2/p' out.junit >order.junit
awk '{ t = $1; a = $2; gsub(/\./, "_", t); gsub(/\./, "_", a); $1 = t "." a; $2 = ""; sub(/  /, " "); print }' \
    order.json >order.json.junit
if cmp -s order.json order.text && cmp -s order.json.junit order.junit && [ -s order.json ]; then
    ok "text and junit keep the json order"
else
    not_ok "text and junit keep the json order" "$(diff order.json order.text | head -5)" \
        "$(diff order.json.junit order.junit | head -5)"
fi
if [ "$(head -1 order.json)" = "game_session.hrt glibc ns_per_op" ] &&
    [ "$(sed -n 2p order.json)" = "game_session.hrt preload:/tmp/libbroken.so result" ]; then
    ok "the regression first, the missing row (no delta) second"
else
    not_ok "the regression first, the missing row second" "$(head -3 order.json)"
fi

# json: stable snake_case keys, no "delta %"; the summary with exit status
keys=$(jq -r '[.rows[0] | keys_unsorted[]] | join(" ")' out.json)
if [ "$keys" = "trace allocator metric base new delta_pct threshold_pct exact verdict failed separated reason" ] &&
    ! grep -q '"delta %"' out.json && [ "$(jq -c '.summary | [.exit_status, .verdict, .regressions, .missing, .improved, .noise, .unchanged]' out.json)" = '[1,"FAIL",1,1,1,1,9]' ]; then
    ok "json: snake_case row keys, summary with counts and exit_status"
else
    not_ok "json keys and summary" "$keys" "$(jq -c .summary out.json)"
fi
if [ "$(jq -c '[.rows[] | select(.verdict == "noise") | .separated]' out.json)" = '[false]' ]; then
    ok "json: the noise row's samples are not separated"
else
    not_ok "json: the noise row's samples are not separated" "$(jq -c '.rows[] | select(.verdict == "noise")' out.json)"
fi
"$hr" compare ci_base.json ci_new.json -f csv >out.csv 2>err.csv
if [ "$(head -1 out.csv)" = "trace,allocator,metric,base,new,delta_pct,threshold_pct,exact,verdict,separated,reason" ] &&
    grep -q '^compare: .*FAIL$' err.csv; then
    ok "csv: the json row keys as header, summary on stderr"
else
    not_ok "csv header" "$(head -1 out.csv)"
fi

# Markdown: the sections in order, the cap
if grep -q '^#### Regressions and other failures (2)' out.md && grep -q '^#### Improvements (1)' out.md &&
    grep -q '^\*\*9 figures unchanged\*\*' out.md &&
    [ "$(grep -n '^####' out.md | cut -d: -f1 | paste -sd' ')" = "$(grep -n '^####' out.md | cut -d: -f1 | sort -n | paste -sd' ')" ]; then
    ok "md: regressions, then improvements, then the unchanged count"
else
    not_ok "md sections" "$(grep '^####\|unchanged' out.md)"
fi
"$hr" compare ci_base.json ci_new.json -f md --max-rows 1 >capped.md
if [ "$(grep -c '^| game_session\|^| particles' capped.md)" = 3 ] &&
    [ "$(grep -c '^\.\.\. and 1 more' capped.md)" = 2 ]; then
    ok "md --max-rows 1: one row per section and '... and N more'"
else
    not_ok "md --max-rows 1" "$(cat capped.md)"
fi

# exit codes: identical reports pass, bad input is 2 with one line
for f in text md json junit csv; do
    "$hr" compare ci_base.json ci_base.json -f "$f" >/dev/null 2>&1
    rc0=$?
    "$hr" compare ci_base.json "$srcdir/nonexistent.json" -f "$f" >bad.out 2>bad.err
    rc2=$?
    if [ "$rc0" = 0 ] && [ "$rc2" = 2 ] && [ "$(wc -l <bad.err)" = 1 ] && [ ! -s bad.out ]; then
        ok "-f $f: identical reports exit 0, a missing file exit 2 with one line"
    else
        not_ok "-f $f: exit codes" "identical $rc0, missing file $rc2" "$(cat bad.err)"
    fi
done
tap_done
