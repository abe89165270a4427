#!/usr/bin/env bash
# The steps of contrib/ci/game-github-actions.yml (docs/CI.md): heapreplay in
# the CI of a game's own repository. Every `run:` of that workflow is one call
# of this script, so the same steps run on a laptop, and
# tests/cli/test_game_ci.sh runs them on examples/game from outside
# heapreplay's tree with an installed heapreplay.
#
#   heapreplay-game-ci.sh install        heapreplay into $HR_PREFIX (nothing to
#                                        do when $HR_PREFIX/bin/heapreplay exists:
#                                        a cache hit): from the release tarball
#                                        $HR_TARBALL (a path or URL, made by
#                                        `make dist`), else from the git
#                                        repository $HR_GIT at the pinned $HR_REF
#   heapreplay-game-ci.sh build          the game: $HR_GAME_BUILD, with
#                                        heapreplay's pkg-config file found
#   heapreplay-game-ci.sh capture        $HR_GAME_RUN (a bounded headless run)
#                                        under heapreplay capture ->
#                                        $HR_CI_OUT/$HR_GAME_NAME.hrt
#   heapreplay-game-ci.sh replay         that trace (and its child processes'
#                                        traces: --follow-forks) on $HR_CI_ALLOCATORS ->
#                                        $HR_CI_OUT/report.json (+ report.html)
#   heapreplay-game-ci.sh fetch-baseline the artifact $HR_CI_BASELINE_ARTIFACT of
#                                        the latest successful run of this
#                                        workflow on $HR_CI_MAIN (GitHub CLI `gh`;
#                                        none yet: nothing fetched, exit 0)
#   heapreplay-game-ci.sh compare        $HR_CI_BASELINE vs report.json in program
#                                        mode: compare.md (also appended to
#                                        $GITHUB_STEP_SUMMARY), junit.xml,
#                                        compare.json; exits as compare (1: the
#                                        game regressed)
#   heapreplay-game-ci.sh save-baseline  report.json becomes $HR_CI_BASELINE
#
# Environment:
#   HR_PREFIX          where heapreplay is installed ($HOME/.cache/heapreplay)
#   HR_TARBALL         heapreplay-VERSION.tar.gz to install from (path or URL)
#   HR_GIT, HR_REF     else: the repository and the pinned commit or tag
#   HR_GAME_BUILD      the game's build command (make)
#   HR_GAME_RUN        the run to capture, a bounded headless one (./game)
#   HR_GAME_NAME       the trace's name: rows of base and new are matched by it
#                      (game)
#   HR_CAPTURE_OPTS    capture options (--frames=auto: the game's hr_frame()
#                      marks win, else its buffer swaps mark frames)
#   HR_CI_ALLOCATORS   replay -a list (glibc,jemalloc)
#   HR_CI_REPLAY_OPTS  replay options (-r 3 --count callgrind: samples for the
#                      measured figures, and the allocator's instruction count,
#                      deterministic for a build; needs valgrind)
#   HR_CI_MAX_REGRESS  compare's --max-regress (empty: program mode's defaults)
#   HR_CI_OUT          where traces and reports go (heapreplay-out)
#   HR_CI_BASELINE     the main branch's report (heapreplay-baseline/report.json)
#   HR_CI_BASELINE_ARTIFACT, HR_CI_MAIN, HR_CI_WORKFLOW
#                      the baseline's artifact name (heapreplay-baseline), the
#                      main branch (main) and this workflow's file name
#                      (heapreplay-game.yml)
#   GITHUB_STEP_SUMMARY the job summary file (set by GitHub Actions)
# Exit status: 0 done; 1 compare found a regression; 2 bad input or a step
# that failed (one line on stderr says which).
set -euo pipefail

HR_PREFIX=${HR_PREFIX:-$HOME/.cache/heapreplay}
HR_TARBALL=${HR_TARBALL:-}
HR_GIT=${HR_GIT:-}
HR_REF=${HR_REF:-}
HR_GAME_BUILD=${HR_GAME_BUILD:-make}
HR_GAME_RUN=${HR_GAME_RUN:-./game}
HR_GAME_NAME=${HR_GAME_NAME:-game}
HR_CAPTURE_OPTS=${HR_CAPTURE_OPTS:---frames=auto}
HR_CI_ALLOCATORS=${HR_CI_ALLOCATORS:-glibc,jemalloc}
HR_CI_REPLAY_OPTS=${HR_CI_REPLAY_OPTS:--r 3 --count callgrind}
HR_CI_MAX_REGRESS=${HR_CI_MAX_REGRESS:-}
HR_CI_OUT=${HR_CI_OUT:-heapreplay-out}
HR_CI_BASELINE=${HR_CI_BASELINE:-heapreplay-baseline/report.json}
HR_CI_BASELINE_ARTIFACT=${HR_CI_BASELINE_ARTIFACT:-heapreplay-baseline}
HR_CI_MAIN=${HR_CI_MAIN:-main}
HR_CI_WORKFLOW=${HR_CI_WORKFLOW:-heapreplay-game.yml}

HR="$HR_PREFIX/bin/heapreplay"
TRACE="$HR_CI_OUT/$HR_GAME_NAME.hrt"
REPORT="$HR_CI_OUT/report.json"

die() {
    echo "heapreplay-game-ci: $*" >&2
    exit 2
}

# summary TEXT...: appends to the job summary when there is one.
summary() {
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then printf '%s\n' "$@" >>"$GITHUB_STEP_SUMMARY"; fi
}

need_hr() {
    [ -x "$HR" ] || die "$HR: heapreplay is not installed (run the install step, or set HR_PREFIX)"
}

# configure + make + make install of an unpacked heapreplay source tree.
install_from() {
    local dir=$1
    (cd "$dir" && { [ -x configure ] || autoreconf -fi >/dev/null; } &&
        ./configure -q --prefix="$HR_PREFIX" &&
        make -s -j"$(nproc 2>/dev/null || echo 2)" && make -s install) ||
        die "install: building heapreplay in $dir failed (see above)"
}

step_install() {
    if [ -x "$HR" ]; then
        echo "heapreplay-game-ci: $("$HR" --version 2>/dev/null | head -1) in $HR_PREFIX (cached)"
        return 0
    fi
    local work
    work=$(mktemp -d "${TMPDIR:-/tmp}/hr_install.XXXXXX")
    if [ -n "$HR_TARBALL" ]; then
        local tgz=$HR_TARBALL
        case $tgz in
        http://* | https://*)
            curl -fsSL -o "$work/hr.tar.gz" "$tgz" || die "install: cannot download $tgz"
            tgz=$work/hr.tar.gz
            ;;
        esac
        [ -f "$tgz" ] || die "install: $tgz: no such tarball"
        tar -xzf "$tgz" -C "$work" || die "install: $tgz: not a tar.gz"
        install_from "$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)"
    elif [ -n "$HR_GIT" ] && [ -n "$HR_REF" ]; then
        git clone -q "$HR_GIT" "$work/src" || die "install: cannot clone $HR_GIT"
        git -C "$work/src" checkout -q "$HR_REF" || die "install: $HR_GIT has no $HR_REF"
        install_from "$work/src"
    else
        die "install: set HR_TARBALL (a release tarball) or HR_GIT and HR_REF (a pinned checkout)"
    fi
    rm -rf "$work"
    need_hr
}

# The game finds <heapreplay/annotate.h> through heapreplay's pkg-config
# file; --define-prefix reads the prefix from where the file lies, so an
# installed tree that was moved (a cache restored elsewhere) still works.
step_build() {
    need_hr
    export PKG_CONFIG_PATH="$HR_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export PKG_CONFIG="${PKG_CONFIG:-pkg-config --define-prefix}"
    bash -c "$HR_GAME_BUILD" || die "build: '$HR_GAME_BUILD' failed"
}

# The trace and, when HR_CAPTURE_OPTS has --follow-forks, its child
# processes' traces ($HR_GAME_NAME.PID.hrt beside it): compare judges them
# together as the whole program.
traces() {
    local f pid
    echo "$TRACE"
    for f in "$HR_CI_OUT/$HR_GAME_NAME".*.hrt; do
        pid=${f#"$HR_CI_OUT/$HR_GAME_NAME."}
        pid=${pid%.hrt}
        case $pid in '' | *[!0-9]*) ;; *) echo "$f" ;; esac
    done
}

step_capture() {
    need_hr
    mkdir -p "$HR_CI_OUT"
    # an earlier capture's child processes' traces would be replayed as this one's
    local f
    while read -r f; do [ "$f" = "$TRACE" ] || rm -f "$f"; done < <(traces)
    # shellcheck disable=SC2086 # options and the run command are word lists
    "$HR" capture -o "$TRACE" -s "$HR_CI_OUT/capture.txt" $HR_CAPTURE_OPTS -- $HR_GAME_RUN ||
        die "capture: '$HR_GAME_RUN' failed under heapreplay capture ($HR_CI_OUT/capture.txt)"
    "$HR" info "$TRACE" >"$HR_CI_OUT/info.txt" || die "capture: $TRACE is not a trace"
}

step_replay() {
    need_hr
    local rc=0 all=()
    [ -f "$TRACE" ] || die "replay: no $TRACE (capture first)"
    mapfile -t all < <(traces)
    # shellcheck disable=SC2086 # the options are a word list
    "$HR" replay "${all[@]}" -a "$HR_CI_ALLOCATORS" $HR_CI_REPLAY_OPTS -q -o "$REPORT" \
        >"$HR_CI_OUT/replay.txt" || rc=$?
    case $rc in
    0) ;;
    1) echo "::warning::heapreplay replay: some rows failed (see $HR_CI_OUT/replay.txt)" ;;
    *) die "replay: exited $rc" ;;
    esac
    "$HR" report "$REPORT" -f html -o "$HR_CI_OUT/report.html" || die "replay: the HTML report failed"
}

# The main branch's report: the artifact of its latest successful run.
step_fetch_baseline() {
    local id dir
    dir=$(dirname "$HR_CI_BASELINE")
    command -v gh >/dev/null || die "fetch-baseline: needs the GitHub CLI (gh)"
    id=$(gh run list --workflow "$HR_CI_WORKFLOW" --branch "$HR_CI_MAIN" --status success \
        --limit 1 --json databaseId --jq '.[0].databaseId // empty') || id=""
    if [ -z "$id" ]; then
        echo "heapreplay-game-ci: no successful run on $HR_CI_MAIN yet: no baseline"
        return 0
    fi
    mkdir -p "$dir"
    gh run download "$id" -n "$HR_CI_BASELINE_ARTIFACT" -D "$dir" ||
        echo "heapreplay-game-ci: run $id has no artifact $HR_CI_BASELINE_ARTIFACT: no baseline"
}

step_compare() {
    need_hr
    local rc=0 gate=()
    [ -f "$REPORT" ] || die "compare: no $REPORT (replay first)"
    if [ ! -f "$HR_CI_BASELINE" ]; then
        summary "### heapreplay compare: no baseline" "" \
            "No baseline report at \`$HR_CI_BASELINE\` (the first run on the main branch makes one): nothing compared."
        echo "heapreplay-game-ci: no baseline at $HR_CI_BASELINE: nothing compared"
        return 0
    fi
    [ -z "$HR_CI_MAX_REGRESS" ] || gate=(--max-regress "$HR_CI_MAX_REGRESS")
    local cmp=("$HR" compare "$HR_CI_BASELINE" "$REPORT" --mode program ${gate[@]+"${gate[@]}"})
    "${cmp[@]}" >"$HR_CI_OUT/compare.txt" || rc=$?
    [ "$rc" -le 1 ] || die "compare: exit $rc (bad input)"
    "${cmp[@]}" -f md >"$HR_CI_OUT/compare.md" || true
    "${cmp[@]}" -f junit >"$HR_CI_OUT/junit.xml" || true
    "${cmp[@]}" -f json >"$HR_CI_OUT/compare.json" || true
    summary "$(cat "$HR_CI_OUT/compare.md")"
    cat "$HR_CI_OUT/compare.txt"
    return "$rc"
}

step_save_baseline() {
    [ -f "$REPORT" ] || die "save-baseline: no $REPORT"
    mkdir -p "$(dirname "$HR_CI_BASELINE")"
    cp "$REPORT" "$HR_CI_BASELINE"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
install) step_install ;;
build) step_build ;;
capture) step_capture ;;
replay) step_replay ;;
fetch-baseline) step_fetch_baseline ;;
compare) step_compare ;;
save-baseline) step_save_baseline ;;
*) die "expected a step: install, build, capture, replay, fetch-baseline, compare, save-baseline (got '$cmd')" ;;
esac
