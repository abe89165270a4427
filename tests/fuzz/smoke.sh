#!/usr/bin/env bash
# The fuzz smoke of CI: each libFuzzer target over its committed seed corpus
# for RUNS inputs (mutations after the seeds). TAP, one case per target; a
# target that finds a crash, a leak or a broken contract fails with the tail
# of its log. New inputs go to a scratch directory, not into the tree.
# usage: smoke.sh BUILDDIR SRCDIR [RUNS]
set -u
B=${1:-.}
S=${2:-.}
RUNS=${3:-3000}
. "$S/tests/cli/tap.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/hr_fuzz.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
for t in trace import json heapcfg; do
    bin="$B/tests/fuzz/fuzz_$t"
    if [ ! -x "$bin" ]; then
        not_ok "fuzz_$t: $RUNS runs" "$bin not built (make fuzz)"
        continue
    fi
    mkdir -p "$W/$t"
    if "$bin" -runs="$RUNS" -seed=1 -rss_limit_mb=2048 -timeout=20 -max_len=65536 \
        -artifact_prefix="$W/$t-" \
        "$W/$t" "$S/tests/fuzz/corpus/$t" >"$W/$t.log" 2>&1; then
        ok "fuzz_$t: $RUNS runs ($(grep -o 'cov: [0-9]*' "$W/$t.log" | tail -1))"
    else
        not_ok "fuzz_$t: $RUNS runs" "$(tail -20 "$W/$t.log")"
    fi
done
tap_done
