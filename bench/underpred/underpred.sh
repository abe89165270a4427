#!/usr/bin/env bash
# Why the predicted savings come out low: the real programs of traces/real
# against replays under each candidate model, in paired, interleaved rounds
# (docs/METRICS.md, "Predicted change of the program's run time").
#
#   bench/underpred/underpred.sh [BUILDDIR]   (run pinned: taskset -c 1 ...)
#
# Every round runs each program once on every allocator (LD_PRELOAD; CPU =
# user + system from wait4, bench/fidelity/rusage_run.py; the allocators'
# order rotates from round to round), then one replay of its trace under
# every model (the models' order rotates too). So each model's prediction is
# taken as often as the real change, under the same load, and its spread over
# the rounds is the prediction's stability. The models (MODELS: NAME=replay
# options, separated by ';'):
#   base       the default replay
#   l2         --pollute 2M:16   the program's work between calls evicts L1/L2
#   llc        --pollute 64M:16  ... and the last-level cache (35.8 MiB here)
# Two more can be added (MODELS='...;touchall=--touch all;spread=--access
# spread:4'): every new block written whole (an upper bound on the page
# faults of new memory) and the program's own use of its heap between calls.
# They are left out by default because they are slow here (a replay of
# freeciv_ai under --touch all writes its 8 MiB buffers whole: > 3 min; of
# sqlite_index under spread:4: ~70 s), and results/fidelity-access-vm.md
# measured the access models on the same three programs. The instructions
# the allocators change in a real program: bench/underpred/instructions.sh;
# user and system time apart: bench/underpred/user_sys.sh.
# From the base replays also: the warm laps as the predictor (time.cpu_s
# instead of time.cold_cpu_s), and the median of three rounds' predictions.
# The table and its reading: bench/underpred/underpred_report.py.
#
# Environment: ROUNDS (11), REPEAT (3), PROGRAMS (python_json sqlite_index
# freeciv_ai), ALLOCATORS (glibc jemalloc mimalloc tcmalloc), MODELS, OUT
# (results/underpred-$(hostname).md), KEEP (a folder to keep the raw TSVs in),
# FROM (a KEEP folder of an earlier run: its rounds written up again, none run;
# the header's date and load are then the write-up's, its command says FROM).
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_need_hr underpred.sh "${1:-.}"
command -v jq > /dev/null || { echo "underpred.sh: needs jq (apt-get install jq)" >&2; exit 2; }
ROUNDS=${ROUNDS:-11}
REPEAT=${REPEAT:-3}
PROGRAMS=${PROGRAMS:-python_json sqlite_index freeciv_ai}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc tcmalloc}
MODELS=${MODELS:-base=;l2=--pollute 2M:16;llc=--pollute 64M:16}
OUT=${OUT:-$S/results/underpred-$(hostname).md}
CMD="ROUNDS=$ROUNDS REPEAT=$REPEAT PROGRAMS='$PROGRAMS' ALLOCATORS='$ALLOCATORS' MODELS='$MODELS' bench/underpred/underpred.sh"
R=$S/traces/real
PYTHON=${PYTHON:-/usr/bin/python3}
SQLITE=${SQLITE:-/usr/bin/sqlite3}
FREECIV=${FREECIV:-/usr/games/freeciv-server}
RUN=("$PYTHON" "$S/bench/fidelity/rusage_run.py" "$W/time.txt")

# One real run of program $1 with library $2 ("" for glibc): "cpu rss wall exit minflt".
run_real() {
    local name=$1 lib=$2 pre=(env "LD_PRELOAD=$2")
    [ -n "$lib" ] || pre=(env -u LD_PRELOAD)
    case "$name" in
    freeciv_ai)
        hr_freeciv_game "$W/fc" "$R/freeciv_ai.serv" "$FREECIV" "$(hr_free_port)" "$W/fc.log" \
            "${RUN[@]}" "${pre[@]}" ;;
    python_json)
        "${RUN[@]}" "${pre[@]}" "$PYTHON" "$R/python_json.py" > /dev/null 2>&1 || true ;;
    sqlite_index)
        "${RUN[@]}" "${pre[@]}" "$SQLITE" :memory: ".read $R/sqlite_index.sql" > /dev/null 2>&1 || true ;;
    *) echo "underpred.sh: unknown program $name" >&2; exit 2 ;;
    esac
    cat "$W/time.txt"
}

# The list rotated left by $1 places.
rotate() {
    local k=$1; shift
    local a=("$@") n=$#
    for ((i = 0; i < n; i++)); do printf '%s\n' "${a[(i + k) % n]}"; done
}

IFS=';' read -r -a model_list <<< "$MODELS"
if [ -n "${FROM:-}" ]; then # written up again from an earlier run's raw values
    cp "$FROM/real.tsv" "$FROM/replay.tsv" "$W/"
    ROUNDS=0
    CMD="FROM=$FROM $CMD"
fi
read -r -a alloc_list <<< "$ALLOCATORS"
alist=$(echo "$ALLOCATORS" | tr ' ' ',')
[ -n "${FROM:-}" ] || { : > "$W/real.tsv"; : > "$W/replay.tsv"; }
for r in $(seq 1 "$ROUNDS"); do
    for p in $PROGRAMS; do
        for a in $(rotate "$r" "${alloc_list[@]}"); do
            lib=$(hr_lib "$a") || { say "skipping $a: not built"; continue; }
            say "round $r/$ROUNDS $p on $a (real)"
            for try in 1 2 3 4 5; do # freeciv-server: a port taken between the probe and the bind
                read -r cpu rss wall code flt < <(run_real "$p" "$lib")
                [ "$code" != 0 ] && [ -f "$W/fc.log" ] && grep -qi "bind failure" "$W/fc.log" || break
            done
            [ "$code" = 0 ] || { echo "underpred.sh: $p on $a exited $code" >&2; exit 1; }
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$a" "$r" "$cpu" "$rss" "$flt" >> "$W/real.tsv"
        done
        mapfile -t models < <(rotate "$r" "${model_list[@]}")
        for m in "${models[@]}"; do
            name=${m%%=*}
            read -r -a args <<< "${m#*=}"
            say "round $r/$ROUNDS $p replay, model $name"
            "$HR" replay "$R/$p.hrt" -a "$alist" -r "$REPEAT" --warm-time 0.05 --memory-lap fast \
                ${args[@]+"${args[@]}"} -q -f json > "$W/rep.json" 2> "$W/rep.err" ||
                { echo "underpred.sh: replay of $p ($name) failed:" >&2; cat "$W/rep.err" >&2; exit 1; }
            jq -r --arg p "$p" --arg m "$name" --arg r "$r" '.results[] | [$p, $m, $r, .allocator,
                .ops.total, .time.cold_cpu_s, .time.cpu_s, (.predict.change_s // 0),
                (.predict.startup_s // 0), (.predict.real // "-"), (.predict.interval_s_lo // 0),
                (.predict.interval_s_hi // 0), (.samples["time.cold_cpu_s"] | map(tostring) | join(",")),
                (.samples["time.cpu_s"] | map(tostring) | join(","))] | @tsv' \
                "$W/rep.json" >> "$W/replay.tsv"
        done
    done
done
[ -z "${KEEP:-}" ] || { mkdir -p "$KEEP"; cp "$W/real.tsv" "$W/replay.tsv" "$KEEP/"; }

{
    hr_header "Under-prediction: the replay's models against the real programs" "$CMD"
    echo "Programs: \`$(readlink -f "$PYTHON")\` ($("$PYTHON" --version 2>&1)), \`$(readlink -f "$SQLITE")\`" \
         "($("$SQLITE" --version | cut -d' ' -f1)), \`$FREECIV\`."
    echo
    echo "Rounds: $(cut -f3 "$W/real.tsv" | sort -un | wc -l); one replay per round, program and model (\`-r $REPEAT\`)."
    echo
    python3 "$S/bench/underpred/underpred_report.py" "$W/real.tsv" "$W/replay.tsv" "$ALLOCATORS"
    echo
    echo "<details><summary>Raw values</summary>"
    echo
    echo '```'
    echo "# real: program allocator round cpu_s max_rss_kb minflt"
    cat "$W/real.tsv"
    echo "# replay: program model round allocator ops cold_cpu_s warm_cpu_s change_s startup_s real lo_s hi_s cold_samples warm_samples"
    cat "$W/replay.tsv"
    echo '```'
    echo
    echo "</details>"
    echo
} > "$W/out.md"
hr_write_out > /dev/null
