#!/usr/bin/env bash
# The capture library's page probe (docs/CAPTURE.md, "How much of a large
# block was used"): `heapreplay capture` of tests/capture/cap_touch gives a
# `touched` event, right before the event that made the block, for each
# block of at least 64 KiB, with the bytes the program used (whole pages
# written + the partial head page); none for a small block, none with
# HEAPREPLAY_CAPTURE_TOUCH=0; the trace replays with --touch recorded; a
# child's log with a record for a block made before the fork imports with a
# repair note. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
B=${top_builddir:-.}
HR="$B/heapreplay"
PROG="$B/tests/capture/cap_touch"
LIB="$B/.libs/libheapreplay-capture.so"
W=$(mktemp -d "${TMPDIR:-/tmp}/hrtouch.XXXXXX")
trap 'rm -rf "$W"' EXIT
P=4096
[ "$(getconf PAGESIZE 2>/dev/null)" = 4096 ] || skip_all "the expected values assume 4 KiB pages"
if [ ! -x "$HR" ] || [ ! -x "$PROG" ] || [ ! -f "$LIB" ]; then
    skip_all "heapreplay, the capture library or cap_touch not built"
fi
skip_all_if_asan "$HR" "the capture library preloaded into the test program"

# pairs FILE.txt: one line "OP SIZE TOUCHED" per block-making event of the
# text trace (OP alloc/calloc/realloc; SIZE its bytes; TOUCHED the value of
# the `touched` line right before it, or "-"); "bad" lines for a `touched`
# not followed by a block-making event.
pairs() {
    awk '$1 == "touched" { if (t != "") print "bad", t; t = $2; next }
         $1 == "alloc" || $1 == "calloc" || $1 == "realloc" {
             s = $1 == "alloc" ? $3 : $1 == "calloc" ? $3 * $4 : $4
             print $1, s, (t == "" ? "-" : t); t = ""; next }
         t != "" { print "bad", t; t = "" }' "$1"
}
# expect NAME PAIRS OP SIZE LO HI: the one block OP SIZE has LO <= touched < HI
# ("- -": no touched event).
expect() {
    local name=$1 f=$2 op=$3 size=$4 lo=$5 hi=$6
    local got
    got=$(awk -v o="$op" -v s="$size" '$1 == o && $2 == s { print $3 }' "$f")
    if [ "$(printf '%s\n' "$got" | grep -c .)" != 1 ]; then
        not_ok "$name" "expected one $op of $size bytes, got: ${got:-none}"
    elif [ "$lo" = - ]; then
        [ "$got" = - ] && ok "$name" || not_ok "$name" "expected no touched record, got $got"
    elif [ "$got" != - ] && [ "$got" -ge "$lo" ] && [ "$got" -lt "$hi" ]; then
        ok "$name"
    else
        not_ok "$name" "touched ${got}, expected [$lo, $hi)"
    fi
}

if "$HR" capture -o "$W/t.hrt" -- "$PROG" > "$W/t.log" 2>&1 &&
    "$HR" convert "$W/t.hrt" -o "$W/t.txt" > /dev/null 2>&1; then
    ok "capture of cap_touch converts"
else
    not_ok "capture of cap_touch converts" "$(cat "$W/t.log")"
fi
pairs "$W/t.txt" > "$W/t.pairs" 2>/dev/null
grep -q '^bad' "$W/t.pairs" && not_ok "every touched event stands right before a block's event" \
    "$(cat "$W/t.pairs")" || ok "every touched event stands right before a block's event"
K=1024
MIB=$((1024 * K))
expect "malloc 1 MiB, 3 pages written: 3 pages" "$W/t.pairs" alloc $MIB $((3 * P)) $((4 * P))
expect "malloc 1 MiB - 4 KiB, nothing written: head page only" "$W/t.pairs" alloc $((MIB - P)) 0 $P
expect "calloc 256 KiB, 10 pages written: 10 pages" "$W/t.pairs" calloc $((256 * K)) $((10 * P)) $((11 * P))
expect "malloc 100 KiB, 1 page written: 1 page" "$W/t.pairs" alloc $((100 * K)) $P $((2 * P))
expect "realloc to 1 MiB + 4 KiB: the 100 KiB kept + 2 pages written" "$W/t.pairs" realloc \
    $((MIB + P)) $((100 * K + P)) $((100 * K + 3 * P))
expect "malloc 96 KiB + 16, all written: 24 pages" "$W/t.pairs" alloc $((96 * K + 16)) $((23 * P)) $((25 * P))
expect "malloc 96 KiB on a freed block's pages: dropped, 2 pages written" "$W/t.pairs" alloc \
    $((96 * K)) $((2 * P)) $((3 * P))
expect "malloc 1 KiB: below the threshold, no record" "$W/t.pairs" alloc $K - -
grep -q "^touched: 7 large blocks measured" "$W/t.log" && ok "capture summary counts the records" ||
    not_ok "capture summary counts the records" "$(cat "$W/t.log")"

if "$HR" replay "$W/t.hrt" -a glibc --touch recorded -r 1 > "$W/r.out" 2>&1; then
    ok "the trace replays with --touch recorded"
else
    not_ok "the trace replays with --touch recorded" "$(tail -5 "$W/r.out")"
fi

if HEAPREPLAY_CAPTURE_TOUCH=0 "$HR" capture -o "$W/n.hrt" -- "$PROG" > "$W/n.log" 2>&1 &&
    "$HR" convert "$W/n.hrt" -o "$W/n.txt" > /dev/null 2>&1 && [ -s "$W/n.txt" ]; then
    grep -q '^touched' "$W/n.txt" && not_ok "HEAPREPLAY_CAPTURE_TOUCH=0: no touched records" \
        "$(grep '^touched' "$W/n.txt")" || ok "HEAPREPLAY_CAPTURE_TOUCH=0: no touched records"
else
    not_ok "HEAPREPLAY_CAPTURE_TOUCH=0: no touched records" "$(cat "$W/n.log")"
fi

# A log with a TOUCHED record for a block it never saw made (freed by a
# fork child): imported, the record ignored and counted.
rm -f "$W"/f.raw*
HEAPREPLAY_CAPTURE_FILE="$W/f.raw" LD_PRELOAD="$LIB" "$PROG" fork
child=$(ls "$W"/f.raw.* 2>/dev/null | head -n 1)
if [ -n "$child" ] && "$HR" convert "$child" -o "$W/f.hrt" > "$W/f.log" 2>&1; then
    grep -q "^touched: 0 large blocks measured by the page probe, 1 records for no live block ignored" \
        "$W/f.log" && ok "a record for an unknown block: a repair note" ||
        not_ok "a record for an unknown block: a repair note" "$(cat "$W/f.log")"
else
    not_ok "a record for an unknown block: a repair note" "child log: ${child:-none}" \
        "$(cat "$W/f.log" 2>/dev/null)"
fi

tap_done
