#!/usr/bin/env bash
# Re-captures the real-program traces of traces/real/ (traces/README.md):
#   freeciv_ai.hrt    freeciv-server 3.0 playing a 50-turn game of 6 AI players
#   python_json.hrt   CPython 3.11 on python_json.py (JSON and dict churn)
#   sqlite_index.hrt  sqlite3 3.40 on sqlite_index.sql (insert, index, update)
#   supertux.hrt      SuperTux 0.6.3 (SDL2, OpenGL) in its first level for
#                     GAME_SECS seconds, headless (Xvfb, Mesa's software
#                     renderer), frames found at SDL_GL_SwapWindow (--frames)
# each with `heapreplay capture --time-runs $TIME_RUNS` (the program's own run
# time: the median of that many runs without the capture library, recorded in
# the trace for the report's "predicted change of the program's run time";
# docs/CAPTURE.md), then prints each trace's event counts beside the committed
# ones (a re-capture should agree within 5 %: the programs are seeded, but the
# C library's and the interpreter's start-up vary a little) and its program time.
#
# Usage: traces/real/recapture.sh [HEAPREPLAY] [OUTDIR]
#   HEAPREPLAY  the heapreplay binary (default: ./heapreplay of the source tree)
#   OUTDIR      where to write the traces (default: traces/real, replacing them)
#   TIME_RUNS   (environment) runs without the library per program (default 5;
#               0: record the captured run's own, slowed time instead)
#   PYTHON      (environment) the interpreter, by path (default /usr/bin/python3:
#               a python3 on PATH may be a script, e.g. a pyenv shim, whose bash
#               and helpers would be captured and timed with it; refused)
#   ONLY        (environment) the traces to re-capture (default: all four)
#   SUPERTUX, LEVEL (environment) the game and the level it plays (default
#               /usr/games/supertux2 and the first level of world 1)
#   GAME_SECS   (environment) how long each run of the game lasts (default 20):
#               it has no end of its own, so each run (the captured one and the
#               timing runs) gets SIGTERM after that many seconds, on which SDL
#               makes it quit cleanly (exit 0). The work is bounded by time, not
#               by frames: a faster machine renders more frames, and a
#               re-capture's events differ from the committed ones by more than
#               the 5 % of the other programs.
#   PORT_TRIES  (environment) freeciv-server ports to try (default 5): each is
#               a port the kernel reports free; another is tried when the
#               server cannot bind it
# A program that does not run to its end (exit status 0, every timing run alike)
# stops the script with exit 1 and its last output: its trace would be short.
# Needs: freeciv-server, python3, sqlite3 (Debian: apt-get install
# freeciv-server python3 sqlite3); for supertux.hrt also supertux2 and Xvfb
# (apt-get install supertux xvfb; without them that trace is skipped, with a
# line on stderr). freeciv-server refuses to run as root: as
# root the freeciv capture runs as the user `nobody` (setpriv).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
HR=$(readlink -f "${1:-$here/../../heapreplay}")
OUT=$(mkdir -p "${2:-$here}" && cd "${2:-$here}" && pwd)
FREECIV=${FREECIV:-/usr/games/freeciv-server}
TIME_RUNS=${TIME_RUNS:-5}
PYTHON=${PYTHON:-/usr/bin/python3}
ONLY=${ONLY:-"freeciv_ai python_json sqlite_index supertux"}
SUPERTUX=${SUPERTUX:-/usr/games/supertux2}
# the game's first level, from the supertux-data package
LEVEL=${LEVEL:-/usr/share/games/supertux2/levels/world1/welcome_antarctica.stl}
GAME_SECS=${GAME_SECS:-20}
for need in "$HR" "$FREECIV" "$PYTHON" "$(command -v sqlite3)"; do
    [ -x "$need" ] || { echo "recapture.sh: missing $need" >&2; exit 2; }
done
if head -c 2 "$(readlink -f "$PYTHON")" | grep -q '#!'; then
    echo "recapture.sh: $PYTHON is a script, not the interpreter (set PYTHON)" >&2
    exit 2
fi
wanted() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
if wanted supertux && { [ ! -x "$SUPERTUX" ] || [ ! -f "$LEVEL" ] || ! command -v Xvfb > /dev/null; }; then
    echo "recapture.sh: skipping supertux: needs $SUPERTUX and Xvfb (apt-get install supertux xvfb)" >&2
    ONLY=$(echo " $ONLY " | sed 's/ supertux / /')
fi
work=$(mktemp -d)
chmod 755 "$work"
xvfb_pid=""
trap '[ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

# ran_to_end NAME: 0 when $work/NAME.err says the captured program exited 0
# and every timing run ended like it. A program that stopped early (a server
# that could not bind its port exits 1 after a few thousand allocations) leaves
# a short trace that is not the program's: it is never compared or kept.
ran_to_end() {
    grep -q "^capture: .* exited with status 0 after" "$work/$1.err" &&
        ! grep -q "^warning: .* timing runs ended unlike the captured run" "$work/$1.err"
}
not_to_end() { # not_to_end NAME WHY: the one-line error, then the program's last output
    echo "recapture.sh: $1: $2; its trace is not kept:" >&2
    tail -n 20 "$work/$1.err" "$work/$1.out" >&2
    exit 1
}

capture() { # capture NAME CMD... -> $work/NAME.hrt, the summary on stderr
    local name=$1
    shift
    # stdin from /dev/null: the timing runs re-run CMD (a piped stdin is refused)
    "$HR" capture --time-runs "$TIME_RUNS" -o "$work/$name.hrt" -- "$@" < /dev/null \
        > "$work/$name.out" 2> "$work/$name.err" || {
        echo "recapture.sh: capture of $name failed:" >&2
        cat "$work/$name.err" "$work/$name.out" >&2
        exit 1
    }
    ran_to_end "$name" || not_to_end "$name" "the program did not run to its end"
}

# A TCP port free now, chosen by the kernel (bind to port 0, read it back): a
# fixed port is shared by every run on the machine, and a second server on it
# cannot bind. Another process may still take the port before the server binds
# it, so the freeciv capture below retries with a new port on a bind failure.
free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'
}
PORT_TRIES=${PORT_TRIES:-5}

# freeciv: an AI-only game (timeout -1 is freeciv's autogame mode), its own
# home and temporary folder, no network announcement.
cp "$here/freeciv_ai.serv" "$work/"
if [ "$(id -u)" = 0 ]; then
    chmod 777 "$work"
    asuser=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
else
    asuser=()
fi
capture_freeciv() { # capture_freeciv PORT: one try; 0 when the capture ran
    (cd "$work" && HOME=$work TMPDIR=$work "${asuser[@]}" "$HR" capture --time-runs "$TIME_RUNS" \
        -o "$work/freeciv_ai.hrt" -- \
        "$FREECIV" --read freeciv_ai.serv --exit-on-end --quitidle 5 --Announce none -p "$1" \
        < /dev/null > "$work/freeciv_ai.out" 2> "$work/freeciv_ai.err") || {
        echo "recapture.sh: capture of freeciv_ai failed:" >&2
        tail -n 20 "$work/freeciv_ai.err" "$work/freeciv_ai.out" >&2
        exit 1
    }
}
if wanted freeciv_ai; then
    # The server prints "bind failure" when its port is taken; a timing run's
    # output is not kept, so a timing run that ended unlike the captured one is
    # retried too (the port may have been taken between the runs).
    for try in $(seq 1 "$PORT_TRIES"); do
        port=$(free_port)
        capture_freeciv "$port"
        ran_to_end freeciv_ai && break
        grep -qi "bind failure" "$work/freeciv_ai.err" "$work/freeciv_ai.out" ||
            grep -q "^warning: .* timing runs ended unlike" "$work/freeciv_ai.err" ||
            not_to_end freeciv_ai "freeciv-server did not run to its end (port $port)"
        [ "$try" -lt "$PORT_TRIES" ] ||
            not_to_end freeciv_ai "freeciv-server could not use a free port in $PORT_TRIES tries (last $port)"
        echo "recapture.sh: freeciv-server could not use port $port; retrying on another" >&2
    done
fi
! wanted python_json || capture python_json "$PYTHON" "$here/python_json.py"
! wanted sqlite_index || capture sqlite_index sqlite3 :memory: ".read $here/sqlite_index.sql"

# SuperTux: a display of its own (Xvfb picks a free number: -displayfd),
# Mesa's software renderer, no sound, its own user folder (a fresh config:
# the first level, windowed 640x480). Each run of the game -- the captured
# one, then the timing runs, all children of heapreplay capture -- gets
# SIGTERM once it has run GAME_SECS seconds (stop_runs, in the background).
# Once per run: SDL restores the default action while it quits, and a second
# SIGTERM then would kill the game half-way through its exit.
stop_runs() { # stop_runs PID: until PID ends
    local pid
    declare -A seen=()
    while kill -0 "$1" 2> /dev/null; do
        for pid in $(pgrep -P "$1" || true); do
            [ -n "${seen[$pid]:-}" ] || seen[$pid]=$SECONDS
            [ "${seen[$pid]}" != sent ] && [ $((SECONDS - seen[$pid])) -ge "$GAME_SECS" ] || continue
            kill -TERM "$pid" 2> /dev/null || true
            seen[$pid]=sent
        done
        sleep 0.2
    done
}
if wanted supertux; then
    Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3> "$work/display" > "$work/xvfb.log" 2>&1 &
    xvfb_pid=$!
    for i in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
    dnum=$(cat "$work/display")
    [ -n "$dnum" ] || { echo "recapture.sh: Xvfb did not start:" >&2; cat "$work/xvfb.log" >&2; exit 1; }
    env DISPLAY=":$dnum" LIBGL_ALWAYS_SOFTWARE=1 SUPERTUX2_USER_DIR="$work/supertux" \
        "$HR" capture --frames=auto --time-runs "$TIME_RUNS" -o "$work/supertux.hrt" -- \
        "$SUPERTUX" --disable-sound --disable-music --renderer opengl -g 640x480 -w "$LEVEL" \
        < /dev/null > "$work/supertux.out" 2> "$work/supertux.err" &
    cap_pid=$! # env execs heapreplay: the same process
    stop_runs "$cap_pid" &
    stop_pid=$!
    wait "$cap_pid" || { echo "recapture.sh: capture of supertux failed:" >&2;
        tail -n 20 "$work/supertux.err" >&2; exit 1; }
    wait "$stop_pid"
    kill "$xvfb_pid" 2> /dev/null || true
    ran_to_end supertux || not_to_end supertux "the game did not quit cleanly on SIGTERM"
fi

events() { "$HR" info "$1" | awk '$1 == "events" { print $2 }'; }
printf '%-18s %12s %12s %8s\n' trace events committed ratio
for name in $ONLY; do
    new=$(events "$work/$name.hrt")
    # the committed trace (beside this script), whatever OUTDIR is
    old=$([ -f "$here/$name.hrt" ] && events "$here/$name.hrt" || echo 0)
    printf '%-18s %12s %12s %8s\n' "$name" "$new" "$old" \
        "$(awk -v a="$new" -v b="$old" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')"
    cp "$work/$name.hrt" "$OUT/$name.hrt"
done
for name in $ONLY; do
    grep -h "^capture:\|^program time:\|^frames:" "$work/$name.err" | sed "s/^/$name: /"
done
