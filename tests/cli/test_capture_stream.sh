#!/usr/bin/env bash
# The streaming conversion of capture logs (docs/CAPTURE.md "Conversion"):
# a binary trace written as the log is read must be the very trace the
# in-memory import builds (here: the log converted to text, which is built
# in memory, and that text converted to binary), for a multi-thread log with
# page-probe records, a cut log and a log with a block written twice; the
# same log twice gives the same bytes; capture writes the same events; and
# the conversion's memory does not grow with the events (max RSS at 4x the
# events within a few MB, where the in-memory import grew ~100 B/event).
# Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
B=${top_builddir:-.}
HR="$B/heapreplay"
LIB="$B/.libs/libheapreplay-capture.so"
LOOP="$B/tests/capture/cap_loop"
skip_all_if_asan "$HR" "the capture library"
W=$(mktemp -d "${TMPDIR:-/tmp}/hrstream.XXXXXX")
trap 'rm -rf "$W"' EXIT

# log RAW ROUNDS THREADS: cap_loop under the library
log() { HEAPREPLAY_CAPTURE_FILE=$1 LD_PRELOAD=$LIB "$LOOP" "$2" "$3"; }
# same_as_memory NAME RAW: the streamed binary trace equals the one built in memory
same_as_memory() {
    local name=$1 raw=$2
    "$HR" convert "$raw" -o "$W/s.hrt" > "$W/s.log" 2>&1 &&
        "$HR" convert "$raw" -o "$W/m.txt" > "$W/m.log" 2>&1 &&
        "$HR" convert "$W/m.txt" -o "$W/m.hrt" > /dev/null 2>&1
    if cmp -s "$W/s.hrt" "$W/m.hrt" &&
        diff <(sed 1d "$W/s.log") <(sed 1d "$W/m.log") > "$W/d" 2>&1; then
        ok "$name"
    else
        not_ok "$name" "$(cmp "$W/s.hrt" "$W/m.hrt" 2>&1)" "$(head -5 "$W/d")"
    fi
}

log "$W/a.raw" 60000 3
same_as_memory "3 threads with page-probe records: streamed trace = in-memory trace (bytes, repair report)" "$W/a.raw"
grep -q "^touched: [1-9]" "$W/s.log" && ok "the log holds page-probe records (the notes pass ran)" ||
    not_ok "the log holds page-probe records (the notes pass ran)" "$(cat "$W/s.log")"
cp "$W/s.hrt" "$W/first.hrt"
"$HR" convert "$W/a.raw" -o "$W/again.hrt" > /dev/null 2>&1
check "the same log converted twice: the same bytes" cmp "$W/first.hrt" "$W/again.hrt"

# a cut log: the streamed and in-memory traces stop at the same record
size=$(stat -c %s "$W/a.raw")
head -c $((size * 2 / 3)) "$W/a.raw" > "$W/cut.raw"
same_as_memory "a log cut at 2/3: the same trace both ways" "$W/cut.raw"
grep -q "truncated\|cut" "$W/s.log" && ok "the cut log is reported as cut" ||
    not_ok "the cut log is reported as cut" "$(cat "$W/s.log")"

# the first block written twice (a flush interrupted by a signal): its
# records come out as duplicates and are dropped, the trace unchanged
nbytes=$(od -An -tu4 -j52 -N4 "$W/a.raw" | tr -d ' ')
{ cat "$W/a.raw"; tail -c +49 "$W/a.raw" | head -c $((32 + nbytes)); } > "$W/dup.raw"
same_as_memory "a block written twice: the same trace both ways" "$W/dup.raw"
if cmp -s "$W/s.hrt" "$W/first.hrt" && grep -q "duplicates\|duplicate" "$W/s.log"; then
    ok "a block written twice: its records dropped as duplicates, the trace as without it"
elif cmp -s "$W/s.hrt" "$W/first.hrt"; then
    ok "a block written twice: the trace as without it"
else
    not_ok "a block written twice: the trace as without it" "$(cat "$W/s.log")"
fi

# capture writes the same events (its header adds the program time)
"$HR" capture --keep-raw -o "$W/c.hrt" -s "$W/c.sum" -- "$LOOP" 20000 2 > /dev/null 2>&1
"$HR" convert "$W/c.hrt.raw" -o "$W/c2.hrt" > /dev/null 2>&1
d1=$("$HR" info "$W/c.hrt" 2>/dev/null | awk '$1 == "digest" { print $2 }')
d2=$("$HR" info "$W/c2.hrt" 2>/dev/null | awk '$1 == "digest" { print $2 }')
if [ -n "$d1" ] && [ "$d1" = "$d2" ] && "$HR" info "$W/c.hrt" | grep -q "captured run"; then
    ok "capture's streamed trace: the events of convert's, with the program time"
else
    not_ok "capture's streamed trace: the events of convert's, with the program time" \
        "digests '$d1' '$d2'" "$(cat "$W/c.sum")"
fi

# memory: max RSS of the conversion at 1x and 4x the events
if [ -x /usr/bin/time ]; then
    log "$W/one.raw" 100000 2
    log "$W/four.raw" 400000 2
    rss() { /usr/bin/time -f '%M' -o "$W/rss" "$HR" convert "$1" -o "$W/r.hrt" > /dev/null 2>&1; cat "$W/rss"; }
    r1=$(rss "$W/one.raw")
    r4=$(rss "$W/four.raw")
    ev4=$("$HR" info "$W/r.hrt" | awk '$1 == "events" { print $2 }')
    # the in-memory import needed ~100 B per event: 1.2 M events more, ~120 MB more
    if [ -n "$r1" ] && [ -n "$r4" ] && [ "$r4" -lt $((r1 + 4096)) ]; then
        ok "conversion memory does not grow with events: $r1 KB at 1x, $r4 KB at 4x ($ev4 events)"
    else
        not_ok "conversion memory does not grow with events" "max RSS ${r1:-?} KB at 1x, ${r4:-?} KB at 4x ($ev4 events)"
    fi
else
    skip "conversion memory does not grow with events" "/usr/bin/time not installed"
fi
tap_done
