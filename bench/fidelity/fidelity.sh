#!/usr/bin/env bash
# Does a replay predict what switching allocator does to the real program?
# For each real program of traces/real/ and traces/fidelity/ and each allocator:
#   real    the program itself under LD_PRELOAD=LIB, ROUNDS interleaved rounds
#           (program x allocator inside a round, the allocators' order turned by
#           one each round): user+sys CPU time to the
#           microsecond, max RSS and minor faults (bench/fidelity/rusage_run.py: wait4);
#   replay  heapreplay replay TRACE -a ALLOCATORS -r REPEAT for
#           each --touch policy in TOUCH and each --access model in ACCESS:
#           the predicted allocator time is the cold lap (a program runs its
#           allocations once) times the ops, and the predicted memory is the
#           peak footprint. TRACE: traces/real/NAME.hrt, else
#           traces/fidelity/NAME.hrt.zst, else every trace of the folder
#           traces/fidelity/NAME/ (a multi-process program, one trace per
#           process: the report's whole_program prediction, below).
# Then, per program and policy (touch and access model): real and predicted rankings, Spearman rho for
# time and for memory, the predicted and the real saving against glibc, and
# whether the real differences exceed the noise (the 95 % interval of the
# rounds' paired differences excludes 0); and the report's two answers
# (`heapreplay report`'s predict section per allocator) scored against the
# real rounds, per program and over all programs:
#   (a) "is the change real?" (predict.real: saving / cost / none) against the
#       real paired test: the Hodges-Lehmann change of the rounds' paired
#       differences with its exact signed-rank 95 % interval (faster / slower
#       when it excludes 0, else within noise; 6 rounds or more);
#   (b) "will one run show it?" (predict.runs_to_see 1, or more) against
#       whether one real run shows it: |real change| > 1.96 x 1.4826 x MAD of
#       the rounds' paired differences (a robust sd of the difference of two
#       single runs, at the report's own z);
#   the interval width ratio: the report's (a) interval width over the real
#       paired 95 % interval's (target at most 3), and the predicted against
#       the real change in ms and in MiB of max RSS.
# bench/fidelity/fidelity_report.py does the arithmetic; docs in bench/README.md.
# Writes results/fidelity-<host>.md (or $OUT).
#
# Usage: bench/fidelity/fidelity.sh [BUILDDIR]      (make fidelity)
# Environment (defaults):
#   ROUNDS=11  REPEAT=3  TOUCH=recorded
#                            TOUCH: the report's default policy; add first:64K
#                            (TOUCH='first:64K recorded') to compare the two:
#                            each policy is one more replay of every program
#                            (about 8.5 min of the 2026-11-28 smoke run's
#                            17 min, results/raw/fidelity/). Planning a run: one
#                            round of the seven programs took 161 s on the
#                            loaded 2-core VM, 80 s of it supertux's fixed
#                            GAME_SECS x 4 allocators, so ROUNDS=11 is about
#                            25-30 min of real runs plus 5-8 min of replays
#   ACCESS="none"            --access models (docs/METRICS.md), e.g.
#                            ACCESS='none reuse:4 spread:4'
#   ALLOCATORS="glibc jemalloc mimalloc tcmalloc"
#   PROGRAMS="freeciv_ai python_json sqlite_index supertux mariadb_slap git_pack make_build"
#                            mariadb_slap, git_pack, make_build: the programs of
#                            traces/fidelity/ (bench/fidelity/progs/progs.sh,
#                            traces/README.md "Fidelity programs"), each on a
#                            fixed amount of work, made ready once in the work
#                            folder (a data folder, a repository, sources) and
#                            skipped (with a note) when not installed:
#                            mariadb_slap the server mariadbd (its CPU and RSS
#                            only: the client mariadb-slap, 4 connections,
#                            MARIADB_QUERIES=80000 queries, runs beside it);
#                            git_pack git pack-objects --threads=2; make_build
#                            make -j2 -B of 12 C files (every process: wait4
#                            adds the children's CPU, and max RSS is the
#                            largest process's; the prediction is the report's
#                            whole_program answer: each process's predicted
#                            change with its allocator start-up, added up;
#                            see traces/README.md)
#                            supertux: SuperTux 0.6.3 in its first level for
#                            GAME_SECS=20 seconds under Xvfb with Mesa's software
#                            renderer, as traces/real/recapture.sh captured it
#                            (SIGTERM then, on which it quits: timeout
#                            --preserve-status). Its play is bounded by time,
#                            not frames: an allocator that slows it renders
#                            fewer frames in the same CPU time. So its real
#                            CPU time is its fixed work: the whole run's less
#                            the CPU between its first and last frame (the
#                            preloaded bench/fidelity/progs/frame_cpu.so reads
#                            it at each SDL_GL_SwapWindow), i.e. the level load
#                            and the exit, which hold nearly all its
#                            allocations; max RSS is the whole run's. Skipped
#                            (with a note) without supertux2, Xvfb or the shim.
#   WARM_TIME=0.2            --warm-time of the replays (the warm figure is
#                            reported beside the cold one, not used to predict)
#   OUT=results/fidelity-$(hostname).md
#   PYTHON=/usr/bin/python3  the interpreter python_json runs on: the one
#                            traces/README.md captured (Debian's), given by
#                            path. Never a wrapper script: a `python3` found on
#                            PATH may be one (a pyenv shim runs bash and
#                            readlink before python), and LD_PRELOAD then puts
#                            the allocator under test into every helper process
#                            too: tcmalloc's start-up in each made the shimmed
#                            program +110 ms slower, and `python3 -c pass`
#                            alone showed it (results/fidelity-access-vm.md,
#                            2026-11-26 access-model run)
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_setup "${1:-.}"
ROUNDS=${ROUNDS:-11}
REPEAT=${REPEAT:-3}
TOUCH=${TOUCH:-recorded}
ACCESS=${ACCESS:-none}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc tcmalloc}
PROGRAMS=${PROGRAMS:-freeciv_ai python_json sqlite_index supertux mariadb_slap git_pack make_build}
SUPERTUX=${SUPERTUX:-/usr/games/supertux2}
LEVEL=${LEVEL:-/usr/share/games/supertux2/levels/world1/welcome_antarctica.stl}
GAME_SECS=${GAME_SECS:-20}
WARM_TIME=${WARM_TIME:-0.2}
OUT=${OUT:-$S/results/fidelity-$(hostname).md}
CMD="ROUNDS=$ROUNDS REPEAT=$REPEAT TOUCH='$TOUCH' ACCESS='$ACCESS' ALLOCATORS='$ALLOCATORS' PROGRAMS='$PROGRAMS' WARM_TIME=$WARM_TIME bench/fidelity/fidelity.sh"
R=$S/traces/real
F=$S/traces/fidelity
FREECIV=${FREECIV:-/usr/games/freeciv-server}
PYTHON=${PYTHON:-/usr/bin/python3}
SQLITE=${SQLITE:-/usr/bin/sqlite3}
hr_programs fidelity.sh "$PYTHON" "$SQLITE" # programs, not scripts (see PYTHON above)
RUN=("$PYTHON" "$S/bench/fidelity/rusage_run.py" "$W/time.txt")
FRAME_CPU="$B/bench/fidelity/progs/.libs/frame_cpu.so" # supertux's frame clock
# SuperTux needs a display: an Xvfb of our own (it picks a free number), and
# its frame clock, a check library that a build which never ran `make check`
# lacks: made here rather than SuperTux skipped
case " $PROGRAMS " in *" supertux "*)
    [ -f "$FRAME_CPU" ] || make -C "$B" bench/fidelity/progs/frame_cpu.la >&2 || true
    if [ -x "$SUPERTUX" ] && [ -f "$LEVEL" ] && command -v Xvfb > /dev/null && [ -f "$FRAME_CPU" ]; then
        Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3> "$W/display" > /dev/null 2>&1 &
        xvfb_pid=$!
        trap 'kill "$xvfb_pid" 2> /dev/null || true; rm -rf "$W"' EXIT
        for i in $(seq 100); do [ -s "$W/display" ] && break; sleep 0.1; done
        DISPLAY=:$(cat "$W/display")
        export DISPLAY LIBGL_ALWAYS_SOFTWARE=1 SUPERTUX2_USER_DIR="$W/supertux"
    else
        say "skipping supertux: needs $SUPERTUX, Xvfb (apt-get install supertux xvfb) and $FRAME_CPU (make bench/fidelity/progs/frame_cpu.la)"
        PROGRAMS=$(echo " $PROGRAMS " | sed 's/ supertux / /')
    fi ;;
esac
# The programs of traces/fidelity/: each made ready in $W/NAME (not timed)
. "$S/bench/fidelity/progs/progs.sh"
for p in mariadb_slap git_pack make_build; do
    case " $PROGRAMS " in *" $p "*)
        if why=$(progs_have "$p"); then
            say "setting up $p"
            progs_setup "$p" "$W/$p"
        else
            say "skipping $p: not installed ($why)"
            PROGRAMS=$(echo " $PROGRAMS " | sed "s/ $p / /")
        fi ;;
    esac
done

# The traces of program NAME: traces/real/NAME.hrt, traces/fidelity/NAME.hrt.zst
# or the per-process traces of the folder traces/fidelity/NAME/, those
# decompressed into $W/NAME.traces/ (once): the report pairs a parent trace
# NAME.hrt with its children NAME.PID.hrt into its whole_program section
# (docs/METRICS.md, "A program of several processes"; it pairs the
# compressed names NAME.hrt.zst and NAME.PID.hrt.zst too)
traces_of() {
    if [ -f "$R/$1.hrt" ]; then echo "$R/$1.hrt"
    elif [ -f "$F/$1.hrt.zst" ]; then echo "$F/$1.hrt.zst"
    else
        local d="$W/$1.traces" f
        if [ ! -d "$d" ]; then
            mkdir -p "$d"
            for f in "$F/$1"/*.hrt.zst; do
                zstd -q -d -f "$f" -o "$d/$(basename "${f%.zst}")"
            done
        fi
        ls "$d"/*.hrt
    fi
}

# A replay report of several traces (one per process of a program) made into
# one result per allocator, as for a one-process program: ops and the
# predicted allocator time (cold ns/op x ops: the ops-weighted mean ns/op) are
# added up; peak footprint, RSS and baseline are the largest process's (what
# wait4's max RSS of a process tree is); status ok when every process's is.
# The prediction (predict: change, interval, both answers) is the report's
# own whole-program answer (WHOLE, the whole_program section of `heapreplay
# report -f json`: every process's change with its allocator start-up, added
# up, and "will one run show it?" against the parent's noise, the whole
# tree's), never one made here; its predicted max RSS change is the largest
# process's peak RSS against glibc's. add_up_processes REPLAY WHOLE
add_up_processes() {
    jq --slurpfile wp "$2" '($wp[0].whole_program[0].allocators // []) as $whole
      | .results |= (group_by(.allocator) | map(
        (map(.ops.total) | add) as $ops | .[0].allocator as $a
        | def wmean(f): if any(f == null) then null else (map(f * .ops.total) | add) / $ops end;
        .[0] + {trace: "\(length) processes", ops: (.[0].ops + {total: $ops}),
          status: (if all(.status == "ok") then "ok" else ([.[].status] | unique | join(",")) end),
          time: (.[0].time + {cold_ns_per_op: wmean(.time.cold_ns_per_op),
                 cold_ns_per_op_min: wmean(.time.cold_ns_per_op_min),
                 cold_ns_per_op_max: wmean(.time.cold_ns_per_op_max),
                 ns_per_op: wmean(.time.ns_per_op)}),
          memory: (.[0].memory + {peak_footprint: ([.[].memory.peak_footprint] | max),
                   peak_rss_above_baseline: ([.[].memory.peak_rss_above_baseline] | max),
                   peak_rss: ([.[].memory.peak_rss] | max),
                   rss_baseline: ([.[].memory.rss_baseline] | max)}),
          predict: ($whole | map(select(.allocator == $a)) | .[0]
                    | if . == null then null else
                      {change_s, interval_s_lo, interval_s_hi, real, startup_s, runs_to_see} end)}))
      | (.results | map(select(.allocator == "glibc")) | .[0].memory.peak_rss) as $g
      | .results |= map(if .predict != null and $g != null and .memory.peak_rss != null
                        then .predict.rss_change_bytes = (.memory.peak_rss - $g) else . end)' "$1"
}

# A time-bounded game's fixed work: its time.txt line with cpu_s less the CPU
# between its first and last frame (bench/fidelity/progs/frame_cpu.c), i.e.
# the level load before the first frame plus the exit after the last. A run
# that showed fewer than two frames gets exit status 3 (fidelity.sh stops).
# fixed_work_cpu TIME_TXT FRAMES_TXT
fixed_work_cpu() {
    local first=-1 last=-1 frames=0
    [ -s "$2" ] && read -r first last frames < "$2"
    awk -v f="$first" -v l="$last" -v n="$frames" '{
        if (n < 2) $4 = 3; else $1 = sprintf("%.6f", $1 - (l - f))
        print }' "$1"
}

# The real program NAME with LD_PRELOAD=LIB ("" = glibc), a server PORT (the
# server's output goes to $W/fc.log); one line on stdout:
# "cpu_s max_rss_kb wall_s exit minflt" (bench/fidelity/rusage_run.py).
run_real() {
    local name=$1 lib=$2 port=$3
    local pre=(env "LD_PRELOAD=$lib")
    [ -n "$lib" ] || pre=(env -u LD_PRELOAD)
    case "$name" in
    freeciv_ai)
        hr_freeciv_game "$W/fc" "$R/freeciv_ai.serv" "$FREECIV" "$port" "$W/fc.log" \
            "${RUN[@]}" "${pre[@]}" ;;
    python_json)
        "${RUN[@]}" "${pre[@]}" "$PYTHON" "$R/python_json.py" > /dev/null 2>&1 || true ;;
    sqlite_index)
        "${RUN[@]}" "${pre[@]}" "$SQLITE" :memory: ".read $R/sqlite_index.sql" \
            > /dev/null 2>&1 || true ;;
    supertux) # its play taken out of its CPU time (fixed_work_cpu)
        rm -f "$W/frames.txt"
        "${RUN[@]}" env "LD_PRELOAD=${lib:+$lib }$FRAME_CPU" "HR_FRAME_CPU_OUT=$W/frames.txt" \
            timeout --preserve-status -s TERM "$GAME_SECS" "$SUPERTUX" \
            --disable-sound --disable-music --renderer opengl -g 640x480 -w "$LEVEL" \
            < /dev/null > /dev/null 2>&1 || true
        fixed_work_cpu "$W/time.txt" "$W/frames.txt"
        return ;;
    mariadb_slap) # the server measured, its client beside it (progs/mariadb_drive.sh)
        progs_cmd "$name" "$W/$name"
        "$S/bench/fidelity/progs/mariadb_drive.sh" "$W/$name/sock" 1 "$MARIADB_QUERIES" \
            > /dev/null 2> "$W/fc.log" &
        local drive=$!
        (cd "$W/$name" && "${RUN[@]}" "${pre[@]}" "${PROG_CMD[@]}" < /dev/null > /dev/null 2>&1) || true
        # a client that failed makes the run fail (exit 1 in place of the server's 0)
        wait "$drive" || sed -i 's/^\([^ ]* [^ ]* [^ ]*\) 0 /\1 1 /' "$W/time.txt" ;;
    git_pack|make_build)
        progs_cmd "$name" "$W/$name"
        "${RUN[@]}" "${pre[@]}" "${PROG_CMD[@]}" < /dev/null > /dev/null 2>&1 || true ;;
    *) echo "fidelity.sh: unknown program $name" >&2; exit 2 ;;
    esac
    cat "$W/time.txt"
}

# secs[NAME]: the benchmark's wall seconds on NAME (its real runs, then its
# replays), printed at the end so that a longer run can be planned
declare -A secs
# real.tsv: program allocator round cpu_s max_rss_kb wall_s minflt
: > "$W/real.tsv"
for r in $(seq 1 "$ROUNDS"); do
    for p in $PROGRAMS; do
        # the order turns each round: the run after another program's pays for
        # its cold caches (a few ms on a short program), which a fixed order
        # would charge to glibc, the baseline (results/startup-vm.md)
        for a in $(hr_turn $((r - 1)) $ALLOCATORS); do
            lib=$(hr_lib "$a") || { say "skipping $a: not found at configure time"; continue; }
            say "round $r/$ROUNDS $p on $a (real)"
            t0=$SECONDS
            # a port the kernel says is free, per server (a fixed one is shared
            # with every other run on the machine; the last one may be in
            # TIME_WAIT); a server that still cannot bind it is run again on
            # another, its failed run not counted
            for try in 1 2 3 4 5; do
                : > "$W/fc.log"
                read -r cpu rss wall code flt < <(run_real "$p" "$lib" "$(hr_free_port)")
                [ "$code" != 0 ] && grep -qi "bind failure" "$W/fc.log" || break
                say "freeciv-server could not bind its port (try $try of 5)"
            done
            [ "$code" = 0 ] || { echo "fidelity.sh: $p on $a exited $code" >&2; tail -n 5 "$W/fc.log" >&2; exit 1; }
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$a" "$r" "$cpu" "$rss" "$wall" "$flt" >> "$W/real.tsv"
            secs[$p]=$(( ${secs[$p]:-0} + SECONDS - t0 ))
        done
    done
done

# verdict.tsv: program policy the report's verdict paragraph (one line)
# replay.tsv: program policy allocator ops cold_ns cold_ns_min cold_ns_max warm_ns peak_footprint
#             status peak_rss_above_baseline, then the report's own prediction
#             (predict.change_s, interval_s_lo, interval_s_hi, and its two
#             answers: predict.real, predict.runs_to_see) and
#             the worker's RSS before the replay (rss_baseline: the harness, the
#             same in every worker, and the allocator's own start-up);
#             policy: the touch policy, then " --access MODEL" unless none
: > "$W/replay.tsv"
: > "$W/verdict.tsv"
alist=$(echo "$ALLOCATORS" | tr ' ' ',')
for p in $PROGRAMS; do
    for t in $TOUCH; do
        for ac in $ACCESS; do
            pol=$t
            [ "$ac" = none ] || pol="$t --access $ac"
            say "replay $p --touch $pol"
            t0=$SECONDS
            mapfile -t tr < <(traces_of "$p")
            "$HR" replay "${tr[@]}" -a "$alist" -r "$REPEAT" --touch "$t" --access "$ac" \
                --warm-time "$WARM_TIME" -q -f json > "$W/rep.json" 2> "$W/rep.err" || true
            # the report's one answer (its verdict paragraph, as a user reads
            # it in `heapreplay report`), set beside the real outcome: of the
            # program's trace, or of a program of several processes its
            # parent's (its own trace's name), which answers for all of them
            printf '%s\t%s\t%s\n' "$p" "$pol" "$("$HR" report "$W/rep.json" 2> /dev/null |
                awk -v t="trace $W/$p.traces/$p.hrt:" -v many="$((${#tr[@]} > 1))" '
                     many && index($0, t) == 1 { mine = 1 }
                     (mine || !many) && /^(ship |keep |no allocator )/ { on = 1; printf "%s", $0; next }
                     on && /^    / { sub(/^ +/, " "); printf "%s", $0; next } on { exit }')" \
                >> "$W/verdict.tsv"
            if [ "${#tr[@]}" -gt 1 ]; then # one process a trace: added up (add_up_processes)
                "$HR" report "$W/rep.json" -f json > "$W/whole.json" 2> /dev/null || echo '{}' > "$W/whole.json"
                add_up_processes "$W/rep.json" "$W/whole.json" > "$W/rep1.json" && mv "$W/rep1.json" "$W/rep.json"
            fi
            jq -r --arg p "$p" --arg t "$pol" '.results[] | [$p, $t, .allocator, .ops.total,
                (.time.cold_ns_per_op // "null"), (.time.cold_ns_per_op_min // "null"),
                (.time.cold_ns_per_op_max // "null"), (.time.ns_per_op // "null"),
                (.memory.peak_footprint // "null"), .status,
                (.memory.peak_rss_above_baseline // "null"), (.predict.change_s // "null"),
                (.predict.interval_s_lo // "null"), (.predict.interval_s_hi // "null"),
                (.predict.real // "null"), (.predict.runs_to_see // "null"),
                (.memory.rss_baseline // "null"), (.predict.rss_change_bytes // "null")] | @tsv' \
                "$W/rep.json" >> "$W/replay.tsv"
            secs[$p]=$(( ${secs[$p]:-0} + SECONDS - t0 ))
        done
    done
done

{
    hr_header "Fidelity: replays against the real programs" "$CMD"
    progs=() # the programs of this run only
    case " $PROGRAMS " in *" python_json "*)
        progs+=("\`$(readlink -f "$PYTHON")\` ($("$PYTHON" --version 2>&1))");; esac
    case " $PROGRAMS " in *" sqlite_index "*)
        progs+=("\`$(readlink -f "$SQLITE")\` ($("$SQLITE" --version | cut -d' ' -f1))");; esac
    case " $PROGRAMS " in *" freeciv_ai "*) progs+=("\`$FREECIV\`");; esac
    case " $PROGRAMS " in *" supertux "*)
        progs+=("\`$SUPERTUX\` for $GAME_SECS s (time-bounded: its real CPU time is the fixed work, load and exit, without the play between its first and last frame)");; esac
    if [ ${#progs[@]} -gt 0 ]; then
        line="Programs: ${progs[0]}"
        for pr in "${progs[@]:1}"; do line+=", $pr"; done
        echo "$line."
    fi
    case " $PROGRAMS " in *" mariadb_slap "*)
        echo "mariadb_slap: $(mariadbd --version | cut -d' ' -f2-4), $MARIADB_QUERIES queries.";; esac
    case " $PROGRAMS " in *" git_pack "*) echo "git_pack: $(git --version).";; esac
    case " $PROGRAMS " in *" make_build "*)
        echo "make_build: $(make --version | head -n 1), $(gcc --version | head -n 1);" \
             "its prediction is the report's whole_program answer (every process's change, its allocator start-up included, added up).";; esac
    echo
    python3 "$S/bench/fidelity/fidelity_report.py" "$W/real.tsv" "$W/replay.tsv" "$ALLOCATORS" "$W/verdict.tsv"
    echo
    echo "<details><summary>Raw values</summary>"
    echo
    echo '```'
    echo "# real: program allocator round cpu_s max_rss_kb wall_s minflt"
    cat "$W/real.tsv"
    echo "# replay: program policy allocator ops cold_ns cold_min cold_max warm_ns peak_footprint status rss_above_base change_s lo_s hi_s real runs_to_see rss_baseline"
    cat "$W/replay.tsv"
    echo "# verdict: program policy the report's verdict (bench/fidelity/rerender.py reads all three)"
    cat "$W/verdict.tsv"
    echo '```'
    echo
    echo "</details>"
    echo
    echo "Wall time per program (real runs and replays, s): $(for p in $PROGRAMS; do
        printf '%s %s; ' "$p" "${secs[$p]:-0}"; done)total $SECONDS."
    echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
} > "$W/out.md"
mkdir -p "$(dirname "$OUT")"
cp "$W/out.md" "$OUT"
say "written to $OUT"
