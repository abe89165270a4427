#!/usr/bin/env bash
# traces/README.md's promise: traces/real/recapture.sh re-creates each
# real-program trace with an event count within 5 % of the committed one (and
# with the program's own run time), and each committed trace reads and
# validates. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
S=${srcdir:-.}
B=${top_builddir:-.}
HR=$(readlink -f "$B/heapreplay")
W=$(mktemp -d "${TMPDIR:-/tmp}/hrreal.XXXXXX")
trap 'rm -rf "$W"' EXIT
events() { "$HR" info "$1" 2>/dev/null | awk '$1 == "events" { print $2 }'; }

for name in freeciv_ai python_json sqlite_index; do
    n=$(events "$S/traces/real/$name.hrt")
    check "committed $name.hrt reads ($n events)" test -n "$n"
done

missing=""
for p in /usr/games/freeciv-server "${PYTHON:-/usr/bin/python3}" "$(command -v sqlite3)"; do
    [ -n "$p" ] && [ -x "$p" ] || missing="$missing ${p:-python3/sqlite3}"
done
if [ -n "$missing" ]; then
    for name in freeciv_ai python_json sqlite_index; do
        skip "re-capture of $name" "not installed:$missing (quickstart.sh installs them)"
    done
    tap_done
fi
# As root the freeciv capture runs as nobody, who must be able to run the
# build's heapreplay and read the capture library.
if [ "$(id -u)" = 0 ] && ! setpriv --reuid=nobody --regid=nogroup --clear-groups "$HR" --version >/dev/null 2>&1; then
    for name in freeciv_ai python_json sqlite_index; do
        skip "re-capture of $name" "the user nobody cannot run $HR (freeciv-server refuses root)"
    done
    tap_done
fi
# One timing run per program (the script's default is 5): the --time-runs
# path is exercised without making the check five runs longer.
if ! TIME_RUNS=1 "$S/traces/real/recapture.sh" "$HR" "$W" > "$W/out.txt" 2> "$W/err.txt"; then
    not_ok "recapture.sh runs" "$(tail -5 "$W/err.txt")"
    tap_done
fi
for name in freeciv_ai python_json sqlite_index; do
    old=$(events "$S/traces/real/$name.hrt")
    new=$(events "$W/$name.hrt")
    if awk -v a="${new:-0}" -v b="${old:-0}" 'BEGIN { exit !(b > 0 && a >= 0.95 * b && a <= 1.05 * b) }'; then
        ok "re-capture of $name: $new events against $old committed"
    else
        not_ok "re-capture of $name within 5 %" "new ${new:-none}, committed ${old:-none}"
    fi
    "$HR" info "$W/$name.hrt" 2>/dev/null | grep -q "^  program .*median of 1 run without" &&
        ok "re-capture of $name records the program time" ||
        not_ok "re-capture of $name records the program time" "$(grep "$name" "$W/out.txt")"
done
tap_done
