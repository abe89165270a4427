#!/usr/bin/env bash
# The hostile-input campaign, re-runnable (make bench-hostile): heapreplay's
# commands on damaged, special and edge inputs, outputs that cannot be
# written, and the allocation-failure sweep; writes results/hostile-<host>.md,
# a table of case categories, how many cases were tried and how they ended.
#
# Every case must end by exit 0 (accepted), or exit 2 with exactly one line
# on standard error (refused): anything else is counted as "broken" (a
# signal, a hang past the timeout, exit 1 from a sanitizer, exit 2 with no
# line or several), and the first few are listed under the table.
#
#   bash bench/hostile/hostile.sh BUILDDIR
# environment:
#   ASAN_BUILD=DIR   a second build tree configured with --enable-asan: the
#                    mutated traces and reports and the failure sweep also
#                    run there (leaks and memory errors become "broken")
#   MUTANTS=240      mutated traces (of 4 seeds) per build
#   REPORT_MUTANTS=120  mutated reports (of 2 seeds) per build
#   OOM_SWEEP=sites  the failure sweep's mode (tests/tools/oom_sweep.sh:
#                    "sites" about 30 s, "all" several minutes)
#   TIMEOUT=10       seconds a case may take
#   OUT=FILE         default results/hostile-<host>.md
# About 5 minutes on a 2-core VM with an ASan build (less without). What is
# not built (the ASan tree, the failure shim) is reported as not run.
set -uo pipefail
B="$(cd "${1:-.}" && pwd)"
S="$(cd "$(dirname "$0")/../.." && pwd)"
HR="$B/heapreplay"
MUTANTS=${MUTANTS:-240}
REPORT_MUTANTS=${REPORT_MUTANTS:-120}
OOM_SWEEP=${OOM_SWEEP:-sites}
TIMEOUT=${TIMEOUT:-10}
OUT=${OUT:-"$S/results/hostile-$(hostname -s).md"}
ASAN_BUILD=${ASAN_BUILD:-}
[ -x "$HR" ] || { echo "$HR not built (make)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/hr_hostile.XXXXXX") || exit 1
trap 'chmod -R u+rwx "$W" 2>/dev/null; rm -rf "$W"' EXIT
START=$(date -u +%Y-%m-%dT%H:%M:%SZ)
say() { echo "[$(date +%H:%M:%S)] $*" >&2; }

ASAN_HR=""
if [ -n "$ASAN_BUILD" ] && [ -x "$ASAN_BUILD/heapreplay" ] &&
    nm "$ASAN_BUILD/heapreplay" 2>/dev/null | grep __asan_init >/dev/null; then # not -q: pipefail
    ASAN_HR="$(cd "$ASAN_BUILD" && pwd)/heapreplay"
fi
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export LSAN_OPTIONS=suppressions=$S/tests/lsan.supp

# Per category: cases, accepted (exit 0), refused (exit 2 + one line), broken.
declare -A N A R X EX
CATS=()

# try CAT OK_CODES CMD...: runs one case; OK_CODES lists the other exit codes
# that are an answer, not a failure (compare's 1: a regression found).
try() {
    local cat=$1 okc=$2 rc lines
    shift 2
    [ -n "${N[$cat]+x}" ] || { CATS+=("$cat"); N[$cat]=0 A[$cat]=0 R[$cat]=0 X[$cat]=0 EX[$cat]=""; }
    timeout -s KILL "$TIMEOUT" "$@" >"$W/out" 2>"$W/err" </dev/null
    rc=$?
    lines=$(wc -l <"$W/err")
    N[$cat]=$((N[$cat] + 1))
    if [ "$rc" = 0 ] || [[ " $okc " == *" $rc "* ]]; then
        A[$cat]=$((A[$cat] + 1))
    elif [ "$rc" = 2 ] && [ "$lines" = 1 ]; then
        R[$cat]=$((R[$cat] + 1))
    else
        X[$cat]=$((X[$cat] + 1))
        if [ "${X[$cat]}" -le 3 ]; then
            local why="exit $rc"
            [ "$rc" = 137 ] && why="killed after ${TIMEOUT} s (hang or too slow)"
            [ "$rc" -gt 128 ] && [ "$rc" != 137 ] && why="signal $((rc - 128))"
            [ "$rc" = 2 ] && why="exit 2 with $lines lines on stderr"
            EX[$cat]+="- $cat: \`${*#"$B/"}\`: $why: $(grep -m1 -v '^$' "$W/err" | cut -c1-160)"$'\n'
        fi
    fi
}

# ---- inputs ----------------------------------------------------------------
say "making seeds"
mkdir -p "$W/seed" "$W/mut" "$W/rmut" "$W/edge" "$W/o"
"$HR" gen frame_loop -n 3000 -o "$W/seed/frame.hrt" >/dev/null &&
    "$HR" gen jobs -n 3000 -t 4 -o "$W/seed/jobs.hrt" >/dev/null &&
    "$HR" gen session -n 3000 -T -o "$W/seed/session.hrt" >/dev/null &&
    "$HR" convert "$W/seed/frame.hrt" -o "$W/seed/frame.txt" >/dev/null &&
    "$HR" replay "$W/seed/frame.hrt" -a bump,block -r 1 --warm-time 0 -q -o "$W/seed/rep.json" &&
    "$HR" replay "$W/seed/jobs.hrt" "$W/seed/frame.hrt" -a block -r 2 --warm-time 0 -q \
        -o "$W/seed/rep2.json" || { echo "cannot make the seed inputs" >&2; exit 2; }
per=$((MUTANTS / 4))
i=0
for s in frame.hrt jobs.hrt session.hrt frame.txt; do
    python3 "$S/bench/hostile/mutate.py" "$W/seed/$s" "$W/mut" "$per" $((i += 1)) >>"$W/mut.list"
done
for s in rep.json rep2.json; do
    python3 "$S/bench/hostile/mutate.py" "$W/seed/$s" "$W/rmut" $((REPORT_MUTANTS / 2)) $((i += 1)) report \
        >>"$W/rmut.list"
done

# ---- mutated traces and reports (each build) -------------------------------
mutated() {
    local hr=$1 tag=$2 k=0 f
    say "mutated traces ($tag)"
    while IFS=$'\t' read -r f _; do
        k=$((k + 1))
        try "mutated traces ($tag)" "" "$hr" info "$f"
        try "mutated traces ($tag)" "" "$hr" convert "$f" -o "$W/o/c.txt"
        # replay starts processes: every 4th mutant
        [ $((k % 4)) = 0 ] && try "mutated traces ($tag)" "1" "$hr" replay "$f" -a bump -r 1 --warm-time 0 -q
    done <"$W/mut.list"
    say "malformed reports ($tag)"
    while IFS=$'\t' read -r f _; do
        try "malformed reports ($tag)" "" "$hr" report "$f"
        try "malformed reports ($tag)" "" "$hr" report -f html "$f" -o "$W/o/r.html"
        try "malformed reports ($tag)" "" "$hr" plot "$f" -o "$W/o/p.svg"
        try "malformed reports ($tag)" "1" "$hr" compare "$W/seed/rep.json" "$f"
        try "malformed reports ($tag)" "" "$hr" merge "$f" "$f" -o "$W/o/m.json"
    done <"$W/rmut.list"
    for f in "$S"/tests/data/reports/*.json; do
        try "malformed reports ($tag)" "" "$hr" report "$f"
        try "malformed reports ($tag)" "1" "$hr" compare "$f" "$f"
    done
}
mutated "$HR" "plain build"
[ -z "$ASAN_HR" ] || mutated "$ASAN_HR" "ASan build"

# ---- special files ------------------------------------------------------------
say "special files"
: >"$W/edge/empty"
mkdir -p "$W/edge/dir.hrt"
mkfifo "$W/edge/fifo"
cp "$W/seed/frame.hrt" "$W/edge/unreadable.hrt"
chmod 000 "$W/edge/unreadable.hrt"
ln -s loop "$W/edge/loop" && ln -s "$W/edge/loop" "$W/edge/loop2" 2>/dev/null
specials="/dev/zero /dev/null /dev/urandom $W/edge/empty $W/edge/dir.hrt $W/edge/fifo
$W/edge/unreadable.hrt $W/edge/loop $W/edge/missing.hrt"
for f in $specials; do
    for cmd in info convert replay report compare plot merge; do
        # a FIFO gets a writer that sends a piece of a trace and closes
        [ "$f" = "$W/edge/fifo" ] && { head -c 100 "$W/seed/frame.hrt" >"$f" & }
        case $cmd in
        info) try "special files" "" "$HR" info "$f" ;;
        convert) try "special files" "" "$HR" convert "$f" -o "$W/o/s.txt" ;;
        replay) try "special files" "" "$HR" replay "$f" -a bump -r 1 --warm-time 0 -q ;;
        report) try "special files" "" "$HR" report "$f" ;;
        compare) try "special files" "" "$HR" compare "$W/seed/rep.json" "$f" ;;
        plot) try "special files" "" "$HR" plot "$f" -o "$W/o/s.svg" ;;
        merge) try "special files" "" "$HR" merge "$f" -o "$W/o/s.json" ;;
        esac
        wait 2>/dev/null
    done
done
[ "$(id -u)" = 0 ] && ROOT_NOTE="run as root: the mode-000 file was readable, so it was an ordinary input"

# ---- edge traces ---------------------------------------------------------------
say "edge traces"
e() { printf 'heapreplay-trace 1\n%b' "$2" >"$W/edge/$1.txt"; }
e header_only ''
e one_leak 'alloc 0 8\n'
e free_unknown 'free 7\n'
e size_zero 'alloc 0 0\nfree 0\n'
e size_max 'alloc 0 18446744073709551615\nfree 0\n'
e size_2p62 'alloc 0 4611686018427387904\nfree 0\n'
e align_huge 'alloc 0 64 1099511627776\nfree 0\n'
e align_odd 'alloc 0 64 3\nfree 0\n'
e calloc_overflow 'calloc 0 4294967295 4294967295\nfree 0\n'
e id_max 'alloc 2147483647 8\nfree 2147483647\n'
e id_over 'alloc 2147483648 8\n'
e realloc_self 'alloc 0 8\nrealloc 0 0 16\nfree 0\n'
e realloc_unknown 'realloc 3 4 16\n'
e only_frames 'frame 1\nframe 2\nframe 18446744073709551615\n'
e mark_long "mark $(head -c 100000 /dev/zero | tr '\0' a)\n"
e many_threads "$(for t in 0 1 2 65535; do printf 'alloc %d 8 t=%d\\nfree %d t=%d\\n' $t $t $t $t; done)"
e push_pop 'push a\npush b\npop b\npop a\npop a\n'
e nul_byte 'alloc 0 8\0\nfree 0\n'
e crlf 'alloc 0 8\r\nfree 0\r\n'
e no_newline 'alloc 0 8\nfree 0'
for f in "$W"/edge/*.txt "$S"/tests/data/bad/*.txt; do
    try "edge traces" "1" "$HR" info "$f"
    try "edge traces" "1" "$HR" convert "$f" -o "$W/o/e.hrt"
    try "edge traces" "1" "$HR" replay "$f" -a bump,block -r 1 --warm-time 0 -q
done
"$HR" gen frame_loop -n 1000 -o "$W/edge/min_gen.hrt" >/dev/null &&
    try "edge traces" "1" "$HR" replay "$W/edge/min_gen.hrt" -a all -r 1 --warm-time 0 -q

# ---- output faults ---------------------------------------------------------------
say "output faults"
mkdir -p "$W/o/ro" "$W/o/isdir.json"
chmod 555 "$W/o/ro"
echo OLD >"$W/o/old.json"
outs="/dev/full $W/o/isdir.json $W/o/missing/x.json $W/o/ro/x.json"
for o in $outs; do
    try "output faults" "" "$HR" replay "$W/seed/frame.hrt" -a bump -r 1 --warm-time 0 -q -o "$o"
    try "output faults" "" "$HR" convert "$W/seed/frame.hrt" -o "$o"
    try "output faults" "" "$HR" gen frame_loop -n 1000 -o "$o"
    try "output faults" "" "$HR" report -f html "$W/seed/rep.json" -o "$o"
    try "output faults" "" "$HR" plot "$W/seed/rep.json" -o "$o"
    try "output faults" "" "$HR" merge "$W/seed/rep.json" -o "$o"
done
for cmd in "info $W/seed/frame.hrt" "info --json $W/seed/frame.hrt" "report $W/seed/rep.json" \
    "compare $W/seed/rep.json $W/seed/rep.json" "list" "gen --list"; do
    # shellcheck disable=SC2086
    try "output faults" "" sh -c 'exec "$0" "$@" >/dev/full' "$HR" $cmd
done
# an output that exists is kept whole when the command fails
try "output faults" "" "$HR" convert "$W/edge/free_unknown.txt" -o "$W/o/old.json"
[ "$(cat "$W/o/old.json")" = OLD ] || { X["output faults"]=$((X["output faults"] + 1)); EX["output faults"]+="- output faults: a failed convert changed its existing output file"$'\n'; }
chmod 755 "$W/o/ro"
[ "$(id -u)" = 0 ] && ROOT_NOTE="${ROOT_NOTE:-}${ROOT_NOTE:+; }run as root: the read-only folder was writable"

# ---- the allocation-failure sweep -----------------------------------------------------
sweep() {
    local b=$1 tag=$2
    if [ ! -f "$b/tests/tools/failmalloc.so" ]; then
        make -C "$b" -s tests/tools/failmalloc.so >/dev/null 2>&1 ||
            { SWEEP_ROWS+="| allocation-failure sweep ($tag) | not run | | | | tests/tools/failmalloc.so not built |"$'\n'; return; }
    fi
    say "allocation-failure sweep ($tag, $OOM_SWEEP)"
    rm -f "$W/oom.log"
    OOM_SWEEP=$OOM_SWEEP OOM_LOG="$W/oom.log" bash "$S/tests/tools/oom_sweep.sh" "$b" "$S" >"$W/oom.tap" 2>&1
    local calls=0 runs=0 e2=0 e0=0 bad=0 name c r x y z
    while read -r name c r x y z; do
        calls=$((calls + c)) runs=$((runs + r)) e2=$((e2 + x)) e0=$((e0 + y)) bad=$((bad + z))
    done <"$W/oom.log"
    SWEEP_ROWS+="| allocation-failure sweep ($tag; $(wc -l <"$W/oom.log") commands, $calls malloc-family calls) | $runs | $e0 | $e2 | $bad | $( [ "$bad" = 0 ] && echo "kept the contract" || echo "**$bad broke it**") |"$'\n'
    grep -A3 '^not ok' "$W/oom.tap" | head -12 | sed "s/^/    /" >>"$W/sweep_ex"
}
SWEEP_ROWS=""
: >"$W/sweep_ex"
sweep "$B" "plain build"
[ -z "$ASAN_HR" ] || sweep "$(dirname "$ASAN_HR")" "ASan build"

# ---- the results file ------------------------------------------------------------------------
{
    echo "# Hostile inputs: damaged, special and edge inputs, output faults, allocation failures"
    echo
    echo "Command: \`${ASAN_HR:+ASAN_BUILD=$(dirname "$ASAN_HR") }MUTANTS=$MUTANTS REPORT_MUTANTS=$REPORT_MUTANTS OOM_SWEEP=$OOM_SWEEP bash bench/hostile/hostile.sh $B\` (\`make bench-hostile\`)"
    echo
    echo "- machine: \`$(uname -a)\`"
    echo "- cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), nproc $(nproc)"
    echo "- date: started $START, finished $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "- heapreplay: $(git -C "$S" describe --always --dirty 2>/dev/null || echo "no git")"
    echo "- ASan build: ${ASAN_HR:-none (ASAN_BUILD not given or not an ASan build): memory errors that do not crash are not seen}"
    [ -z "${ROOT_NOTE:-}" ] || echo "- $ROOT_NOTE"
    echo
    echo "A case is *accepted* (exit 0, or compare's 1 for a regression it found, or replay's 1 for a"
    echo "row that failed), *refused* (exit 2 with one line on standard error) or *broken* (anything"
    echo "else: a signal, killed after ${TIMEOUT} s, exit 1 from a sanitizer, exit 2 with no line or several)."
    echo "The sweep's *accepted* are failures the command tolerated with the same output."
    echo
    echo "| category | cases | accepted | refused | broken | outcome |"
    echo "|---|---:|---:|---:|---:|---|"
    for c in "${CATS[@]}"; do
        verdict="no crash, no hang, one line per refusal"
        [ "${X[$c]}" = 0 ] || verdict="**${X[$c]} broken**"
        echo "| $c | ${N[$c]} | ${A[$c]} | ${R[$c]} | ${X[$c]} | $verdict |"
    done
    printf '%s' "$SWEEP_ROWS"
    echo
    echo "Inputs: mutated traces are byte-level mutants (bit flips, truncation, insertions, header"
    echo "overwrites, zeroed or repeated spans, 0xff runs: bench/hostile/mutate.py) of four small"
    echo "generated traces (binary, 4 threads, timestamps, text), run through info, convert and (every"
    echo "4th) replay; malformed reports are mutants of two reports (numbers replaced by huge, negative,"
    echo "string or null values, containers emptied, keys renamed, deep nesting, truncation, byte damage)"
    echo "through report, report -f html, plot, compare and merge, plus tests/data/reports/; special files"
    echo "are /dev/zero, /dev/null, /dev/urandom, an empty file, a directory, a FIFO, a mode-000 file, a"
    echo "symlink loop and a missing file as the input of each command; edge traces are hand-written"
    echo "limits (sizes 0 and 2^64-1, alignment 2^40, calloc overflow, id 2^31-1 and 2^31, thread 65535,"
    echo "a 100 000-byte name, NUL and CR bytes, no final newline...) and tests/data/bad/; output faults"
    echo "are /dev/full, a directory, a missing folder and a read-only folder as -o of each writing"
    echo "command, standard output on /dev/full, and an existing output kept when a command fails; the"
    echo "sweep is tests/tools/oom_sweep.sh (docs/TESTING.md)."
    echo
    if [ -n "$(printf '%s' "${EX[@]}")" ] || [ -s "$W/sweep_ex" ]; then
        echo "Broken cases (the first three of each category):"
        echo
        for c in "${CATS[@]}"; do printf '%s' "${EX[$c]}"; done
        [ -s "$W/sweep_ex" ] && { echo; echo "Sweep:"; echo; cat "$W/sweep_ex"; }
    else
        echo "No case broke the contract."
    fi
} >"$W/out.md"
mkdir -p "$(dirname "$OUT")"
cp "$W/out.md" "$OUT"
cat "$OUT"
say "written to $OUT"
