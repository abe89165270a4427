#!/usr/bin/env bash
# Re-captures the traces of traces/fidelity/ (traces/README.md, "Fidelity
# programs"): the programs that only the fidelity benchmark replays
# (bench/fidelity/fidelity.sh), kept out of traces/real/, which the main job
# (./quickstart.sh) replays and which must stay fast:
#   mariadb_slap.hrt.zst  mariadbd 10.11 serving mariadb-slap, 4 concurrent
#                         clients, MARIADB_QUERIES mixed queries (the server only)
#   git_pack.hrt.zst      git pack-objects --threads=2 over a made-up history
#   make_build/           make -j2 -B of a made-up 12-file C project, captured
#                         with --follow-forks: one trace per process,
#                         make_build.hrt.zst (make itself) and
#                         make_build.PID.hrt.zst (each child: sh, gcc, cc1, as,
#                         collect2, ld)
# The programs, their set-up and their fixed work are those of
# bench/fidelity/progs/progs.sh, shared with fidelity.sh. Each is captured
# with `heapreplay capture --time-runs $TIME_RUNS` (docs/CAPTURE.md; the child
# traces of --follow-forks carry no program time) and compressed with
# zstd -19 (every reader detects it: docs/TRACE_FORMAT.md); then each trace's
# events are printed beside the committed ones. The work is fixed, but a
# re-capture differs a little: the server's four clients interleave as the
# scheduler runs them, pack-objects splits its delta search between two
# threads as they progress, and the build's process ids differ.
#
# Usage: traces/fidelity/recapture.sh [HEAPREPLAY] [OUTDIR]
#   HEAPREPLAY  the heapreplay binary (default: ./heapreplay of the source tree)
#   OUTDIR      where to write the traces (default: traces/fidelity, replacing them)
#   TIME_RUNS   (environment) runs without the library per program (default 11:
#               a MAD of 5 runs moved 2-10x between captures)
#   ONLY        (environment) the traces to re-capture (default: all three)
# A program missing is skipped with a line saying what installs it. A program
# that does not run to its end (exit status 0, every timing run alike) stops
# the script with exit 1 and its last output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
HR=$(readlink -f "${1:-$here/../../heapreplay}")
OUT=$(mkdir -p "${2:-$here}" && cd "${2:-$here}" && pwd)
TIME_RUNS=${TIME_RUNS:-11}
ONLY=${ONLY:-"mariadb_slap git_pack make_build"}
. "$here/../../bench/fidelity/progs/progs.sh"
[ -x "$HR" ] || { echo "recapture.sh: missing $HR" >&2; exit 2; }
command -v zstd > /dev/null || { echo "recapture.sh: needs zstd (apt-get install zstd)" >&2; exit 2; }
work=$(mktemp -d)
chmod 755 "$work"
drive_pid=""
trap '[ -z "$drive_pid" ] || kill "$drive_pid" 2> /dev/null || true; rm -rf "$work"' EXIT

events() { "$HR" info "$1" | awk '$1 == "events" { print $2 }'; }
total_events() { # total_events FILE...: the events of all the traces
    local f n=0
    for f in "$@"; do n=$((n + $(events "$f"))); done
    echo "$n"
}

printf '%-14s %12s %12s %8s %s\n' trace events committed ratio processes
for name in $ONLY; do
    if ! why=$(progs_have "$name"); then
        echo "recapture.sh: skipping $name: $why" >&2
        continue
    fi
    progs_setup "$name" "$work/$name"
    progs_cmd "$name" "$work/$name"
    opts=(--time-runs "$TIME_RUNS")
    dest=$work/out/$name
    mkdir -p "$dest"
    [ "$name" != make_build ] || opts+=(--follow-forks)
    # the server's client: the captured run, then one per timing run
    if [ "$name" = mariadb_slap ]; then
        "$PROGS_DIR/mariadb_drive.sh" "$work/$name/sock" $((1 + TIME_RUNS)) "$MARIADB_QUERIES" &
        drive_pid=$!
    fi
    (cd "$work/$name" && "$HR" capture "${opts[@]}" -o "$dest/$name.hrt" -- "${PROG_CMD[@]}") \
        < /dev/null > "$work/$name.out" 2> "$work/$name.err" || {
        echo "recapture.sh: capture of $name failed:" >&2
        tail -n 20 "$work/$name.err" >&2
        exit 1
    }
    if [ -n "$drive_pid" ]; then
        wait "$drive_pid" || { echo "recapture.sh: the client of $name failed" >&2; exit 1; }
        drive_pid=""
    fi
    if ! grep -q "^capture: .* exited with status 0 after" "$work/$name.err" ||
        grep -q "^warning: .* timing runs ended unlike the captured run" "$work/$name.err"; then
        echo "recapture.sh: $name did not run to its end; its trace is not kept:" >&2
        tail -n 20 "$work/$name.err" "$work/$name.out" >&2
        exit 1
    fi
    zstd -q -19 --rm "$dest"/*.hrt
    if [ "$name" = make_build ]; then
        old=("$here/make_build"/*.hrt.zst)
        [ -e "${old[0]}" ] || old=()
        new=("$dest"/*.hrt.zst)
        nold=$( ((${#old[@]})) && total_events "${old[@]}" || echo 0)
        rm -rf "$OUT/make_build.new"
        cp -r "$dest" "$OUT/make_build.new"
        rm -rf "$OUT/make_build"
        mv "$OUT/make_build.new" "$OUT/make_build"
    else
        new=("$dest/$name.hrt.zst")
        nold=$([ -f "$here/$name.hrt.zst" ] && events "$here/$name.hrt.zst" || echo 0)
        cp "$dest/$name.hrt.zst" "$OUT/"
    fi
    nnew=$(total_events "${new[@]}")
    printf '%-14s %12s %12s %8s %s\n' "$name" "$nnew" "$nold" \
        "$(awk -v a="$nnew" -v b="$nold" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')" \
        "${#new[@]}"
done
for name in $ONLY; do
    [ -f "$work/$name.err" ] || continue
    grep -h "^capture:\|^program time:" "$work/$name.err" | sed "s/^/$name: /"
done
