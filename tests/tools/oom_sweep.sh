#!/usr/bin/env bash
# The allocation-failure sweep (`make check-oom`; docs/TESTING.md): every
# command of heapreplay is run on a small input with tests/tools/failmalloc.so
# preloaded, once to count its malloc-family calls, then once per failure
# point N with call N failing. Each run must
#   - end by exit, 0 or 2 (never a signal, a hang, or 1 from a sanitizer;
#     replay and compare: 1 where the run without failure gives 1, below);
#   - on exit 2, print exactly one line on standard error, and leave the
#     output file as it was (a file holding "OLD" is there before the run);
#   - on exit 0 (the command tolerated the failure), write the same output
#     as the run without a failure (for the commands whose output is
#     deterministic: all but replay and merge of fresh timings, whose output
#     must then just be a new, non-empty file).
# In an ASan build (configure --enable-asan) LeakSanitizer also checks that
# no error path leaks: a leak ends the run with status 1.
#
# usage: oom_sweep.sh BUILDDIR SRCDIR
# environment:
#   OOM_SWEEP=all      every N from 1 to the count (default); when the count
#                      is above OOM_MAX, the first call of every distinct
#                      caller (return address) plus every k-th N, k chosen
#                      so that about OOM_MAX runs are made
#   OOM_SWEEP=sites    only the first call of every distinct caller (the fast
#                      subset that `make check` runs)
#   OOM_MAX=1500       runs per command at most in the "all" mode
#   OOM_CMDS="info gen"  a subset of the commands (names below)
#   OOM_PERSIST=1      every call from N on fails, not call N alone
#   OOM_LOG=FILE       also append one line per command: name, calls, runs,
#                      exits 2, tolerated, failures (for bench/hostile)
# Prints TAP, one case per command.
set -u
B=$(cd "${1:-.}" && pwd)
S=$(cd "${2:-.}" && pwd)
. "$S/tests/cli/tap.sh"
HR="$B/heapreplay"
SHIM="$B/tests/tools/failmalloc.so"
MODE=${OOM_SWEEP:-all}
MAX=${OOM_MAX:-1500}
CMDS=${OOM_CMDS:-"list info info-json convert convert-text gen replay report report-html compare compare-build report-build replay-build merge plot"}
[ -x "$HR" ] || skip_all "$HR not built"
[ -f "$SHIM" ] || skip_all "$SHIM not built (make check or make check-oom builds it)"

# Without address randomisation the failed call's address names the same
# place in every run: a broken contract then says where (addr2line).
NORAND=""
setarch -R true 2>/dev/null && NORAND="setarch -R"

# where: the function and line of the call that failed in the last run.
where() {
    local addr
    addr=$(awk '$1 == "failed" { print $3 }' "$W/run.log" 2>/dev/null)
    [ -n "$addr" ] && [ -n "$NORAND" ] || return 0
    # x86-64 Linux maps a PIE at 0x555555554000 without randomisation.
    printf ' [call made at %s]' "$(addr2line -f -i -p -e "$HR" \
        "$(printf '%#x' $((addr - 0x555555554000)))" 2>/dev/null | head -1)"
}

W=$(mktemp -d "${TMPDIR:-/tmp}/hr_oom.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
echo OLD >"$W/old" # what an output file holds before each run

export HR_FAILMALLOC_PERSIST=${OOM_PERSIST:-0}
ASAN=0
if nm "$HR" 2>/dev/null | grep -q __asan_init; then
    ASAN=1
    # The shim comes before ASan's runtime in link order (it forwards to it).
    export ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:allocator_may_return_null=1
    export LSAN_OPTIONS=suppressions=$S/tests/lsan.supp
fi

# Inputs, made without the shim: a small trace in both formats, a one-row
# report (twice, for compare), the two shards of a two-trace replay, and two
# captures of a program of three processes (a launcher, a compiler whose flag
# changed, a game with frames: compare pairs the processes by command and
# likeness, and compares the game per frame).
# The replay uses an in-house allocator (block), which replays under ASan
# too (only the external mallocs' rows are skipped there), so it exits 0 in
# both builds.
Q="-a block -r 1 --warm-time 0 -q"
REPLAY_RC=0
rp() {
    "$HR" replay "$@"
    [ $? = "$REPLAY_RC" ]
}
family() { # DIR FLAG PER_FRAME: b.hrtt and its two children's traces, with commands
    local f i id=0
    mkdir -p "$1"
    { echo "heapreplay-trace 1 runs=5 timed=plain wall_ns=9000000 cpu_ns=8000000 cpu_min_ns=7900000 cpu_max_ns=8100000 max_rss=1048576 command=launch.sh"
      echo "alloc 0 100"; echo "free 0"; } > "$1/b.hrtt"
    { echo "heapreplay-trace 1 runs=1 timed=capture wall_ns=2000000 cpu_ns=1000000 cpu_min_ns=1000000 cpu_max_ns=1000000 max_rss=1048576 command=/usr/bin/cc1%20$2%20a.c%20-o%20/tmp/cc$3.s"
      for ((i = 0; i < $3; i++)); do echo "alloc $i 64"; echo "free $i"; done; } > "$1/b.1$3.hrtt"
    { echo "heapreplay-trace 1 runs=1 timed=capture wall_ns=2000000 cpu_ns=1000000 cpu_min_ns=1000000 cpu_max_ns=1000000 max_rss=1048576 command=/usr/games/game"
      for f in 1 2 3; do echo "frame $f"
          for ((i = 0; i < $3; i++)); do echo "alloc $id 48"; echo "free $id"; id=$((id + 1)); done
      done; } > "$1/b.2$3.hrtt"
}
if ! { "$HR" gen frame_loop -n 1000 -o "$W/t.hrt" &&
    family "$W/fa" -O2 4 && family "$W/fb" -O3 8 &&
    rp "$W/fa" $Q -o "$W/fa.json" && rp "$W/fb" $Q -o "$W/fb.json" &&
    "$HR" gen particles -n 1000 -o "$W/u.hrt" &&
    "$HR" convert "$W/t.hrt" -o "$W/t.txt" &&
    rp "$W/t.hrt" $Q -o "$W/r.json" &&
    cp "$W/r.json" "$W/r2.json" &&
    rp "$W/t.hrt" "$W/u.hrt" $Q --shard 1/2 -o "$W/s1.json" &&
    rp "$W/t.hrt" "$W/u.hrt" $Q --shard 2/2 -o "$W/s2.json"; } >"$W/setup.log" 2>&1; then
    not_ok "inputs of the sweep" "$(tail -5 "$W/setup.log")"
    tap_done
fi

# case NAME: sets OUT (the output file, or "" for standard output), DET (1:
# the output is the same on every run), OK (the exit status of a run without
# failure: 0 for every case here) and ARGS (the command).
set_case() {
    OUT="" DET=1 OK=0
    case "$1" in
    list) ARGS=(list) ;;
    info) ARGS=(info "$W/t.hrt") ;;
    info-json) ARGS=(info --json "$W/t.hrt" "$W/u.hrt") ;;
    convert) OUT=$W/out.txt ARGS=(convert "$W/t.hrt" -o "$OUT") ;;
    convert-text) OUT=$W/out.hrt ARGS=(convert "$W/t.txt" -o "$OUT") ;;
    gen) OUT=$W/out.hrt ARGS=(gen frame_loop -n 1000 -o "$OUT") ;;
    replay) OUT=$W/out.json DET=0 OK=$REPLAY_RC ARGS=(replay "$W/t.hrt" $Q -o "$OUT") ;;
    report) ARGS=(report "$W/r.json") ;;
    report-html) OUT=$W/out.html ARGS=(report -f html "$W/r.json" -o "$OUT") ;;
    compare) ARGS=(compare "$W/r.json" "$W/r2.json") ;;
    compare-build) OK=1 ARGS=(compare "$W/fa.json" "$W/fb.json") ;;
    replay-build) OUT=$W/out.json DET=0 OK=$REPLAY_RC ARGS=(replay "$W/fa" $Q -o "$OUT") ;;
    report-build) ARGS=(report "$W/fb.json") ;; # the whole program's block, by program
    merge) OUT=$W/out.json ARGS=(merge "$W/s1.json" "$W/s2.json" -o "$OUT") ;;
    plot) OUT=$W/out.svg ARGS=(plot "$W/r.json" -o "$OUT") ;;
    *) return 1 ;;
    esac
}

# run N: one run of the case with call N failing (0: none); sets RC and
# leaves stdout, stderr and the shim's log in $W/run.*.
run() {
    rm -f "$W/run.log"
    [ -z "$OUT" ] || cp "$W/old" "$OUT"
    # env, not timeout, is given the shim: only heapreplay counts.
    timeout -s KILL 60 $NORAND env HR_FAILMALLOC_N="$1" HR_FAILMALLOC_LOG="$W/run.log" \
        LD_PRELOAD="$SHIM" "$HR" "${ARGS[@]}" >"$W/run.out" 2>"$W/run.err"
    RC=$?
}

# The output a run left: the file, or standard output.
result_of() {
    if [ -n "$OUT" ]; then cat "$OUT"; else cat "$W/run.out"; fi
}

# failure points of the case, one per line, from the counting run's log.
points() {
    local total=$1 k
    if [ "$MODE" = all ] && [ "$total" -le "$MAX" ]; then
        seq 1 "$total"
        return
    fi
    {
        awk '$1 == "site" { print $2 }' "$W/count.log"
        if [ "$MODE" = all ]; then
            k=$(((total + MAX - 1) / MAX))
            seq 1 "$k" "$total"
        fi
    } | sort -n | uniq
}

# whole FILE: FILE is a complete output, as written by a run without a
# failure. A command that writes its file and then fails on standard output
# (replay -o) has kept the contract.
whole() {
    if [ "$DET" = 1 ]; then
        cmp -s "$1" "$W/base.out"
    else
        "$HR" report -f json "$1" >/dev/null 2>&1
    fi
}

# judge N: the verdict of the last run ("" when it kept the contract).
judge() {
    local n=$1 lines
    if [ "$RC" -ge 124 ]; then
        echo "N=$n: status $RC (killed by a signal or hung): $(tail -3 "$W/run.err" | tr '\n' ' ')"
    elif [ "$RC" = 2 ]; then
        lines=$(wc -l <"$W/run.err")
        if [ "$lines" != 1 ]; then
            echo "N=$n: exit 2 with $lines lines on stderr: $(head -3 "$W/run.err" | tr '\n' ' ')"
        elif [ -n "$OUT" ] && ! cmp -s "$OUT" "$W/old" && ! whole "$OUT"; then
            echo "N=$n: exit 2 but $OUT was changed: $(head -c 100 "$OUT" | tr -d '\0' | tr '\n' ' ')"
        fi
    elif [ "$RC" = "$OK" ]; then
        if [ "$DET" = 1 ] && ! result_of | cmp -s - "$W/base.out"; then
            echo "N=$n: exit $RC (failure tolerated) but the output differs from a run without failure"
        elif [ -n "$OUT" ] && { [ ! -s "$OUT" ] || cmp -s "$OUT" "$W/old"; }; then
            echo "N=$n: exit $RC (failure tolerated) but $OUT was not written"
        fi
    else
        echo "N=$n: exit $RC: $(head -3 "$W/run.err" | tr '\n' ' ')"
    fi
}

sweep() {
    local name=$1 total n verdict bad=0 runs=0 e2=0 e0=0 diag=""
    set_case "$name" || { not_ok "$name" "no such case"; return; }
    run 0
    if [ "$RC" != "$OK" ]; then
        not_ok "$name: the run without failure" "exit $RC: $(head -3 "$W/run.err")"
        return
    fi
    result_of >"$W/base.out"
    cp "$W/run.log" "$W/count.log"
    total=$(awk '$1 == "calls" { print $2 }' "$W/count.log")
    for n in $(points "${total:-0}"); do
        run "$n"
        runs=$((runs + 1))
        if [ "$RC" = "$OK" ]; then e0=$((e0 + 1)); elif [ "$RC" = 2 ]; then e2=$((e2 + 1)); fi
        verdict=$(judge "$n")
        [ -z "$verdict" ] || verdict="$verdict$(where)"
        if [ -n "$verdict" ]; then
            bad=$((bad + 1))
            [ "$bad" -le 5 ] && diag="$diag$verdict"$'\n'
        fi
    done
    local what="$name: $runs failure points of $total calls ($e2 exit 2, $e0 tolerated)"
    [ -z "${OOM_LOG:-}" ] || echo "$name $total $runs $e2 $e0 $bad" >>"$OOM_LOG"
    if [ "$bad" = 0 ]; then ok "$what"; else not_ok "$what: $bad broke the contract" "$diag"; fi
}

for c in $CMDS; do sweep "$c"; done
tap_done
