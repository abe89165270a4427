#!/usr/bin/env bash
# Does the paced memory lap (replay --memory-lap, docs/METRICS.md "Memory lap:
# paced or fast") predict what switching allocator does to a real program's
# max RSS better than the fast (back-to-back) lap?
# For each program of PROGRAMS and each round (ROUNDS, interleaved):
#   real    the program under LD_PRELOAD of each allocator: its max RSS
#           (bench/fidelity/rusage_run.py: wait4), as bench/fidelity/fidelity.sh
#           runs it;
#   replay  heapreplay replay traces/real/NAME.hrt -a ALLOCATORS -r 1
#           --memory-lap paced: each row's measure worker gives the paced lap's
#           peak RSS (memory.peak_rss) and the fast lap's (memory.peak_rss_fast).
# Per allocator: the median over the rounds of the change against glibc, real
# and predicted by each lap (the per-round differences, paired by round), and
# the error of each prediction. Writes results/paced-memory-<host>.md ($OUT).
#
# Usage: bench/paced/paced.sh [BUILDDIR]        (make bench-paced)
# Environment (defaults):
#   ROUNDS=5  ALLOCATORS="glibc jemalloc mimalloc tcmalloc"
#   PROGRAMS="supertux freeciv_ai"   supertux: the threaded capture (6 threads,
#            20 s of SuperTux 0.6.3 under Xvfb, traces/real/recapture.sh);
#            freeciv_ai: freeciv-server, one thread, 1.4 s
#   GAME_SECS=20  OUT=results/paced-memory-$(hostname).md
set -euo pipefail
. "$(dirname "$0")/../lib/hr_bench_lib.sh"
hr_bench_need_hr paced.sh "${1:-.}"
ROUNDS=${ROUNDS:-5}
ALLOCATORS=${ALLOCATORS:-glibc jemalloc mimalloc tcmalloc}
PROGRAMS=${PROGRAMS:-supertux freeciv_ai}
GAME_SECS=${GAME_SECS:-20}
SUPERTUX=${SUPERTUX:-/usr/games/supertux2}
LEVEL=${LEVEL:-/usr/share/games/supertux2/levels/world1/welcome_antarctica.stl}
FREECIV=${FREECIV:-/usr/games/freeciv-server}
PYTHON=${PYTHON:-/usr/bin/python3}
OUT=${OUT:-$S/results/paced-memory-$(hostname).md}
CMD="ROUNDS=$ROUNDS ALLOCATORS='$ALLOCATORS' PROGRAMS='$PROGRAMS' bench/paced/paced.sh"
R=$S/traces/real
RUN=("$PYTHON" "$S/bench/fidelity/rusage_run.py" "$W/time.txt")
case " $PROGRAMS " in *" supertux "*)
    command -v Xvfb > /dev/null && [ -x "$SUPERTUX" ] ||
        { echo "paced.sh: supertux needs $SUPERTUX and Xvfb" >&2; exit 2; }
    Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3> "$W/display" > /dev/null 2>&1 &
    xvfb_pid=$!
    trap 'kill "$xvfb_pid" 2> /dev/null || true; rm -rf "$W"' EXIT
    for i in $(seq 100); do [ -s "$W/display" ] && break; sleep 0.1; done
    DISPLAY=:$(cat "$W/display")
    export DISPLAY LIBGL_ALWAYS_SOFTWARE=1 SUPERTUX2_USER_DIR="$W/supertux" ;;
esac

# max RSS (KiB) of program $1 under LD_PRELOAD=$2 ("" = glibc)
real_rss() {
    local name=$1 lib=$2 pre=(env "LD_PRELOAD=$2")
    [ -n "$lib" ] || pre=(env -u LD_PRELOAD)
    case "$name" in
    supertux)
        "${RUN[@]}" "${pre[@]}" timeout --preserve-status -s TERM "$GAME_SECS" "$SUPERTUX" \
            --disable-sound --disable-music --renderer opengl -g 640x480 -w "$LEVEL" \
            < /dev/null > /dev/null 2>&1 || true ;;
    freeciv_ai)
        hr_freeciv_game "$W/fc" "$R/freeciv_ai.serv" "$FREECIV" "$(hr_free_port)" "$W/fc.log" \
            "${RUN[@]}" "${pre[@]}" ;;
    *) echo "paced.sh: unknown program $name" >&2; exit 2 ;;
    esac
    read -r _ rss _ code _ < "$W/time.txt"
    [ "$code" = 0 ] || { echo "paced.sh: $name under '${lib:-glibc}' exited $code" >&2; exit 1; }
    echo "$rss"
}

alist=$(echo "$ALLOCATORS" | tr ' ' ',')
: > "$W/rows.tsv" # program allocator round real_kib paced_bytes fast_bytes lap
for r in $(seq 1 "$ROUNDS"); do
    for p in $PROGRAMS; do
        declare -A real=()
        for a in $ALLOCATORS; do
            lib=$(hr_lib "$a") || { echo "paced.sh: $a not found" >&2; exit 2; }
            say "round $r/$ROUNDS $p on $a (real)"
            real[$a]=$(real_rss "$p" "$lib")
        done
        say "round $r/$ROUNDS $p (replay, paced and fast)"
        "$HR" replay "$R/$p.hrt" -a "$alist" -r 1 --warm-time 0 --memory-lap paced -q \
            -f json > "$W/rep.json"
        for a in $ALLOCATORS; do
            jq -r --arg a "$a" --arg p "$p" --arg r "$r" --arg k "${real[$a]}" \
                '.results[] | select(.allocator == $a) |
                 [$p, $a, $r, $k, .memory.peak_rss, .memory.peak_rss_fast, .memory.lap] | @tsv' \
                "$W/rep.json" >> "$W/rows.tsv"
        done
    done
done

{
    hr_header "Paced memory lap: predicted vs real max RSS change" "$CMD"
    "$PYTHON" "$S/bench/paced/paced_report.py" "$W/rows.tsv"
} > "$OUT"
say "wrote $OUT"
