#!/usr/bin/env bash
# contrib/ci/github-actions.yml, run locally (TAP). The workflow's `run:`
# scripts are read from the YAML (python3's yaml module when installed, and a
# line-based extractor always; the two must agree), checked (every run is one
# step of contrib/ci/heapreplay-ci.sh; jobs build -> shard matrix -> merge)
# and executed in job order as GitHub would, with shards 1/3 2/3 3/3 of a
# small matrix (3 generated traces x 3 in-house allocators, one repeat):
#   1. no baseline yet: the compare step says so in the job summary, exit 0;
#      the default-branch step then saves the merged report as the baseline;
#   2. again with that baseline: job summary PASS, JUnit valid against
#      tests/data/junit.xsd, compare.json exit_status 0, 9 results merged;
#   3. a baseline whose exact footprints are smaller (negative control): the
#      compare step exits 1, the summary says FAIL, the JUnit file has failures.
# The deps and build steps are not run (they need root and the network; the
# binary under test is the build).
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
hr="$(cd "$top_builddir" && pwd)/heapreplay"
src="$(cd "$srcdir" && pwd)"
yml="$src/contrib/ci/github-actions.yml"
[ -x "$hr" ] || skip_all "$hr not built"
command -v jq >/dev/null || skip_all "jq not installed"
command -v python3 >/dev/null || skip_all "python3 not installed"
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_ci_wf.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

# ---- the run: scripts, two ways -------------------------------------------
# line-based: "JOB<TAB>COMMAND" for every single-line `run:` under jobs:
awk '/^jobs:/ { in_jobs = 1; next }
     in_jobs && /^[^ #]/ { in_jobs = 0 }
     in_jobs && /^  [A-Za-z0-9_-]+:[ ]*$/ { job = $1; sub(/:$/, "", job) }
     in_jobs && /^ +(- )?run: / { r = $0; sub(/^ +(- )?run: /, "", r); print job "\t" r }' \
    "$yml" >"$T/runs.awk"
if python3 -c 'import yaml' 2>/dev/null; then
    python3 - "$yml" >"$T/runs.py" <<'EOF'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for job, spec in doc["jobs"].items():
    for step in spec["steps"]:
        if "run" in step:
            print("%s\t%s" % (job, step["run"].rstrip("\n")))
EOF
    if cmp -s "$T/runs.awk" "$T/runs.py"; then
        ok "the line extractor and python3-yaml read the same run: scripts"
    else
        not_ok "the line extractor and python3-yaml agree" "$(diff "$T/runs.awk" "$T/runs.py")"
    fi
    python3 - "$yml" >"$T/shape" <<'EOF'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
j = doc["jobs"]
print(list(j), j["shard"]["needs"], j["merge"]["needs"], j["shard"]["strategy"]["matrix"]["shard"],
      doc["env"]["HR_CI_SHARDS"])
EOF
    if [ "$(cat "$T/shape")" = "['build', 'shard', 'merge'] build shard [1, 2, 3] 3" ]; then
        ok "jobs: build, then a matrix of 3 shard jobs, then merge"
    else
        not_ok "jobs: build, shard matrix, merge" "$(cat "$T/shape")"
    fi
else
    skip "the line extractor and python3-yaml agree" "python3-yaml not installed"
    skip "jobs: build, then a matrix of 3 shard jobs, then merge" "python3-yaml not installed"
fi
bad=$(cut -f2 "$T/runs.awk" | grep -v '^contrib/ci/heapreplay-ci\.sh \(deps\|build\|shard .*\|merge\|report\|compare\|save-baseline\)$')
if [ -s "$T/runs.awk" ] && [ -z "$bad" ] && ! grep -q 'run: *[|>]' "$yml" &&
    [ "$(cut -f2 "$T/runs.awk" | awk '{ print $2 }' | sort -u | paste -sd' ')" = \
        "build compare deps merge report save-baseline shard" ]; then
    ok "every run: is one step of contrib/ci/heapreplay-ci.sh, each step used"
else
    not_ok "every run: is one step of heapreplay-ci.sh" "$bad" "$(cat "$T/runs.awk")"
fi
for f in all.json report.html junit.xml; do
    grep -q "ci-out/$f" "$yml" || missing_up="${missing_up:-} $f"
done
if [ -z "${missing_up:-}" ] && grep -q 'GITHUB_STEP_SUMMARY' "$src/contrib/ci/heapreplay-ci.sh" &&
    grep -q 'actions/cache/restore' "$yml"; then
    ok "the workflow restores a baseline, uploads the merged JSON, HTML and JUnit, writes the summary"
else
    not_ok "uploads and summary" "not uploaded:${missing_up:-}"
fi

# ---- run the steps ----------------------------------------------------------
for g in frame_loop particles level_load; do
    "$hr" gen "$g" -n 3000 -o "$T/$g.hrt" >/dev/null || skip_all "cannot generate $g"
done
yenv() { sed -n "s/^  $1: *//p" "$yml" | head -1; }
export HR="$hr" HR_CI_BASELINE="$T/ci-baseline/baseline.json"
export HR_CI_TRACES="$T/frame_loop.hrt $T/particles.hrt $T/level_load.hrt"
export HR_CI_ALLOCATORS=stack,block,sizeclass HR_CI_REPLAY_OPTS="-r 1 --warm-time 0"
HR_CI_MAX_REGRESS=$(yenv HR_CI_MAX_REGRESS)
shards=$(yenv HR_CI_SHARDS)
export HR_CI_MAX_REGRESS
# run_job JOB LOG: every run: of JOB as GitHub would (the shard job once per
# matrix value), from the source tree; the save-baseline step only when
# SAVE=1 (its `if:` is the default branch). Returns the first failing status.
run_job() {
    local job=$1 log=$2 cmd rc k
    while IFS=$'\t' read -r j cmd; do
        [ "$j" = "$job" ] || continue
        case $cmd in *" deps" | *" build") continue ;; esac
        case $cmd in *save-baseline) [ "${SAVE:-0}" = 1 ] || continue ;; esac
        for k in $([ "$job" = shard ] && seq 1 "$shards" || echo 0); do
            c=${cmd//'${{ matrix.shard }}'/$k}
            c=${c//'${{ env.HR_CI_SHARDS }}'/$shards}
            (cd "$src" && bash -c "$c") >>"$log" 2>&1 || { rc=$?; echo "step '$c' exit $rc" >>"$log"; return "$rc"; }
        done
    done <"$T/runs.awk"
    return 0
}
round() { # N: a fresh output directory and job summary
    export HR_CI_OUT="$T/out$1" GITHUB_STEP_SUMMARY="$T/summary$1.md"
    : >"$GITHUB_STEP_SUMMARY"
}

round 1
run_job shard "$T/log1" && run_job merge "$T/log1"
rc=$?
if [ "$rc" = 0 ] && grep -q 'no baseline' "$T/summary1.md" && [ -f "$T/out1/all.json" ]; then
    ok "no baseline yet: shards, merge, compare step exit 0, the summary says so"
else
    not_ok "first run without a baseline (exit $rc)" "$(tail -5 "$T/log1")"
fi
SAVE=1 run_job merge "$T/log1b" >/dev/null 2>&1
if cmp -s "$T/out1/all.json" "$HR_CI_BASELINE"; then
    ok "the default-branch step keeps the merged report as the baseline"
else
    not_ok "save-baseline" "$(tail -3 "$T/log1b")"
fi

round 2
run_job shard "$T/log2" && run_job merge "$T/log2"
rc=$?
n=$(jq '.results | length' "$T/out2/all.json" 2>/dev/null)
c=$(jq -c '[.merged.count, (.merged.shards | map(.shard))]' "$T/out2/all.json" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$n" = 9 ] && [ "$c" = '[3,["1/3","2/3","3/3"]]' ]; then
    ok "shards 1/3 2/3 3/3 merged: 9 results"
else
    not_ok "shards merged (exit $rc, $n results, $c)" "$(tail -5 "$T/log2")"
fi
if grep -q '^### heapreplay compare: PASS' "$T/summary2.md" &&
    [ "$(jq .summary.exit_status "$T/out2/compare.json" 2>/dev/null)" = 0 ] &&
    [ "$(jq .summary.matched "$T/out2/compare.json")" = 9 ]; then
    ok "with the baseline: job summary PASS, compare.json exit_status 0, 9 matched"
else
    not_ok "compare with the baseline" "$(head -5 "$T/summary2.md")" "$(tail -3 "$T/log2")"
fi
if command -v xmllint >/dev/null; then
    check "the JUnit file validates against tests/data/junit.xsd" \
        xmllint --noout --schema "$src/tests/data/junit.xsd" "$T/out2/junit.xml"
else
    skip "the JUnit file validates against tests/data/junit.xsd" "no xmllint"
fi
if [ -s "$T/out2/report.html" ] && grep -q "<svg" "$T/out2/report.html"; then
    ok "the report step wrote report.html with its charts"
else
    not_ok "the report step" "$(grep -i report "$T/log2" | tail -3)"
fi

# negative control: a baseline with smaller exact footprints
jq '(.results[] | select(.memory.footprint_source == "exact") | .memory.peak_footprint) |= . - 4096' \
    "$T/out1/all.json" >"$HR_CI_BASELINE"
round 3
run_job shard "$T/log3" && run_job merge "$T/log3"
rc=$?
fails=$(xmllint --xpath 'count(//testcase/failure)' "$T/out3/junit.xml" 2>/dev/null || grep -c '<failure' "$T/out3/junit.xml")
if [ "$rc" = 1 ] && grep -q '^### heapreplay compare: FAIL' "$T/summary3.md" && [ "${fails:-0}" -gt 0 ]; then
    ok "negative control: a regressed baseline fails the compare step (exit 1, FAIL, $fails JUnit failures)"
else
    not_ok "negative control (exit $rc, failures ${fails:-?})" "$(head -3 "$T/summary3.md")"
fi
"$src/contrib/ci/heapreplay-ci.sh" bogus >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ]; then
    ok "an unknown step: one line, exit 2"
else
    not_ok "an unknown step (exit $rc)" "$(cat "$T/err")"
fi
tap_done
