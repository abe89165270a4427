#!/usr/bin/env bash
# The steps of contrib/ci/github-actions.yml (docs/REPORTS.md, "CI on GitHub
# Actions"): every `run:` of the workflow is one call of this script, so the
# same steps run on a laptop and tests/cli/test_ci_workflow.sh runs them.
#
#   heapreplay-ci.sh deps            install the build and runtime packages (apt)
#   heapreplay-ci.sh build           autoreconf, configure, make
#   heapreplay-ci.sh shard K N       replay shard K of N -> $HR_CI_OUT/shard-K.json
#   heapreplay-ci.sh merge           the shards -> $HR_CI_OUT/all.json
#   heapreplay-ci.sh report          all.json -> $HR_CI_OUT/report.html
#   heapreplay-ci.sh compare         baseline vs all.json: compare.md (also
#                                    appended to $GITHUB_STEP_SUMMARY),
#                                    junit.xml, compare.json; exits as compare
#   heapreplay-ci.sh save-baseline   all.json becomes $HR_CI_BASELINE
#
# Environment (defaults: the README's CI example):
#   HR                  the heapreplay binary (./heapreplay)
#   HR_CI_OUT           where reports go (ci-out)
#   HR_CI_TRACES        traces and directories to replay (traces)
#   HR_CI_ALLOCATORS    -a list (glibc,jemalloc,mimalloc,tcmalloc,block,bank)
#   HR_CI_REPLAY_OPTS   replay options (-r 3 --warm-time 0.2 --count callgrind --verify)
#   HR_CI_MAX_REGRESS   compare's gate (insns=1%,cost=1%: deterministic, instructions
#                       and the kernel's work; see README)
#   HR_CI_BASELINE      the baseline report (ci-baseline/baseline.json)
#   GITHUB_STEP_SUMMARY the job summary file (set by GitHub Actions)
# Exit status: 0 done; 1 compare found a regression; 2 bad input or a step
# that failed (one line on stderr says which).
set -euo pipefail

HR=${HR:-./heapreplay}
HR_CI_OUT=${HR_CI_OUT:-ci-out}
HR_CI_TRACES=${HR_CI_TRACES:-traces}
HR_CI_ALLOCATORS=${HR_CI_ALLOCATORS:-glibc,jemalloc,mimalloc,tcmalloc,block,bank}
HR_CI_REPLAY_OPTS=${HR_CI_REPLAY_OPTS:--r 3 --warm-time 0.2 --count callgrind --verify}
HR_CI_MAX_REGRESS=${HR_CI_MAX_REGRESS:-insns=1%,cost=1%}
HR_CI_BASELINE=${HR_CI_BASELINE:-ci-baseline/baseline.json}
HR_CI_PACKAGES=${HR_CI_PACKAGES:-build-essential autoconf automake libtool pkg-config \
libjemalloc-dev libmimalloc-dev libgoogle-perftools-dev libzstd-dev zlib1g-dev valgrind jq}

die() {
    echo "heapreplay-ci: $*" >&2
    exit 2
}

# summary TEXT...: appends to the job summary when there is one.
summary() {
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then printf '%s\n' "$@" >>"$GITHUB_STEP_SUMMARY"; fi
}

step_deps() {
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    # shellcheck disable=SC2086 # a list of package names
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        $HR_CI_PACKAGES >/dev/null
}

step_build() {
    autoreconf -fi >/dev/null
    ./configure -q
    make -j"$(nproc 2>/dev/null || echo 2)"
}

# The binary may come from an artifact, which does not keep the mode.
need_hr() {
    [ -f "$HR" ] || die "$HR: no heapreplay binary (build first, or set HR)"
    [ -x "$HR" ] || chmod +x "$HR"
}

step_shard() {
    local k=${1:-} n=${2:-} rc=0
    [[ "$k" =~ ^[0-9]+$ && "$n" =~ ^[0-9]+$ ]] || die "shard: expected K N, got '${1:-}' '${2:-}'"
    need_hr
    mkdir -p "$HR_CI_OUT"
    # shellcheck disable=SC2086 # the trace list and the options are word lists
    "$HR" replay $HR_CI_TRACES -a "$HR_CI_ALLOCATORS" $HR_CI_REPLAY_OPTS --shard "$k/$n" -q \
        -o "$HR_CI_OUT/shard-$k.json" -f md >"$HR_CI_OUT/shard-$k.md" || rc=$?
    # 1: some rows failed (crashed, invalid, ...): they are in the report and
    # compare calls them FAILED against an ok baseline; go on to the merge
    case $rc in
    0) ;;
    1) echo "::warning::heapreplay shard $k/$n: some rows failed (see the report)" ;;
    *) die "shard $k/$n: replay exited $rc" ;;
    esac
}

step_merge() {
    need_hr
    local shards=("$HR_CI_OUT"/shard-*.json)
    [ -e "${shards[0]}" ] || die "merge: no $HR_CI_OUT/shard-*.json"
    "$HR" merge "${shards[@]}" -o "$HR_CI_OUT/all.json" || die "merge: refused (see above)"
}

# The HTML report (`heapreplay report`): tables, verdicts and charts in one page.
step_report() {
    need_hr
    [ -f "$HR_CI_OUT/all.json" ] || die "report: no $HR_CI_OUT/all.json (merge first)"
    "$HR" report "$HR_CI_OUT/all.json" -f html -o "$HR_CI_OUT/report.html" ||
        die "report: heapreplay report failed"
}

step_compare() {
    need_hr
    local all="$HR_CI_OUT/all.json" rc=0
    [ -f "$all" ] || die "compare: no $all (merge first)"
    if [ ! -f "$HR_CI_BASELINE" ]; then
        summary "### heapreplay compare: no baseline" "" \
            "No baseline report at \`$HR_CI_BASELINE\` (the first run on the default branch" \
            "makes one): nothing compared. $(jq -r '.results | length' "$all" 2>/dev/null || echo '?') results replayed."
        echo "heapreplay-ci: no baseline at $HR_CI_BASELINE: nothing compared"
        return 0
    fi
    local gate=(--max-regress "$HR_CI_MAX_REGRESS")
    "$HR" compare "$HR_CI_BASELINE" "$all" "${gate[@]}" -f md >"$HR_CI_OUT/compare.md" || rc=$?
    [ "$rc" -le 1 ] || die "compare: exit $rc (bad input)"
    "$HR" compare "$HR_CI_BASELINE" "$all" "${gate[@]}" -f junit >"$HR_CI_OUT/junit.xml" || true
    "$HR" compare "$HR_CI_BASELINE" "$all" "${gate[@]}" -f json >"$HR_CI_OUT/compare.json" || true
    summary "$(cat "$HR_CI_OUT/compare.md")"
    cat "$HR_CI_OUT/compare.md"
    return "$rc"
}

step_save_baseline() {
    [ -f "$HR_CI_OUT/all.json" ] || die "save-baseline: no $HR_CI_OUT/all.json"
    mkdir -p "$(dirname "$HR_CI_BASELINE")"
    cp "$HR_CI_OUT/all.json" "$HR_CI_BASELINE"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
deps) step_deps ;;
build) step_build ;;
shard) step_shard "$@" ;;
merge) step_merge ;;
report) step_report ;;
compare) step_compare ;;
save-baseline) step_save_baseline ;;
*) die "expected a step: deps, build, shard K N, merge, report, compare, save-baseline (got '$cmd')" ;;
esac
