#!/usr/bin/env bash
# The load apart from play (docs/METRICS.md, "Frames and the load"): on a
# trace whose load is far heavier than any play frame, the worst frame and
# the budget name a play frame, the load's figures are the load's, and the
# per-frame figures and lifetime shares equal what an awk over the text
# trace computes independently. No timing is asserted beyond "> 0".
set -u
. "$(dirname "$0")/tap.sh"
tap_setup phases jget
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 + 1e-9 * (b < 0 ? -b : b)) }'; }

# The trace: a load of 3000 blocks (2500 freed LIFO before the first frame),
# then play frames 2..31 of 20..32 blocks each, whose fates are fixed by
# their place: freed LIFO at the frame's end, in the next frame, three
# frames later, or never.
awk 'BEGIN {
    print "heapreplay-trace 1"
    for (i = 0; i < 3000; i++) print "alloc " i " " 64 + (i * 37) % 4000
    for (i = 2499; i >= 0; i--) print "free " i
    print "frame 1"
    id = 10000
    for (f = 2; f <= 31; f++) {
        for (k in due) if (due[k] == f) { print "free " k; delete due[k] }
        n = 20 + (f * 7) % 13; m = 0
        for (j = 0; j < n; j++) {
            print "alloc " id " " 16 + (id * 13) % 500
            r = j % 5
            if (r <= 1) lifo[m++] = id
            else if (r == 2) due[id] = f + 1
            else if (r == 3) due[id] = f + 3
            id++
        }
        for (j = m - 1; j >= 0; j--) print "free " lifo[j]
        print "frame " f
    }
}' > "$T/p.txt"

# What the figures must be, from the text alone: the load (before the first
# frame), blocks per play frame (between two frames, named by the closing
# one) and each play block's fate in frames.
awk '
NR == 1 { next }
$1 == "frame" && NF == 2 { if (nf > 0) { cnt[nf] = a; num[nf] = $2 } nf++; a = 0; next }
$1 == "alloc" || $1 == "calloc" {
    if (nf == 0) { le++; la++; lb += ($1 == "calloc" ? $3 * $4 : $3) } else { mk[$2] = nf; made++ }
    a++; next }
$1 == "free" { if (nf == 0) le++; else if ($2 in mk) { d = nf - mk[$2]; if (d == 0) same++; else if (d == 1) next1++; else later++; delete mk[$2] } next }
{ if (nf == 0) le++ }
END {
    s = 0; mx = -1
    for (i = 1; i < nf; i++) { s += cnt[i]; if (cnt[i] > mx) { mx = cnt[i]; mf = num[i] } }
    printf "count=%d play=%d mean=%.12g max=%d maxf=%d same=%.12g next=%.12g later=%.12g never=%.12g le=%d la=%d lb=%d\n",
        nf, nf - 1, s / (nf - 1), mx, mf, same / made, next1 / made, later / made, (made - same - next1 - later) / made, le, la, lb
}' "$T/p.txt" > "$T/want"
eval "$(tr ' ' '\n' < "$T/want" | sed 's/^/w_/')"

# 1. the report's figures
if "$HR" replay -q -r 1 -a sizeclass --budget=200000 -f json "$T/p.txt" > "$T/p.json" 2> "$T/err"; then
    got="count=$(jget results.0.frames.count "$T/p.json") play=$(jget results.0.frames.play_count "$T/p.json")"
    if [ "$got" = "count=$w_count play=$w_play" ]; then ok "frames: count and play_count"
    else not_ok "frames: count and play_count" "got $got" "want $(cat "$T/want")"; fi
    if near "$(jget results.0.frames.allocs_mean "$T/p.json")" "$w_mean" &&
        [ "$(jget results.0.frames.allocs_max "$T/p.json")" = "$w_max" ] &&
        [ "$(jget results.0.frames.allocs_max_frame "$T/p.json")" = "$w_maxf" ]; then
        ok "frames: allocations per play frame (mean, max, which frame) as computed from the text"
    else not_ok "frames: allocations per play frame" "$(jget results.0.frames "$T/p.json")" "want $(cat "$T/want")"; fi
    if near "$(jget results.0.frames.freed_same "$T/p.json")" "$w_same" &&
        near "$(jget results.0.frames.freed_next "$T/p.json")" "$w_next" &&
        near "$(jget results.0.frames.freed_later "$T/p.json")" "$w_later" &&
        near "$(jget results.0.frames.freed_never "$T/p.json")" "$w_never"; then
        ok "frames: shares freed in the same frame, the next, later, never as computed from the text"
    else not_ok "frames: lifetime shares" "$(jget results.0.frames "$T/p.json")" "want $(cat "$T/want")"; fi
    if [ "$(jget results.0.load.events "$T/p.json")" = "$w_le" ] &&
        [ "$(jget results.0.load.allocs "$T/p.json")" = "$w_la" ] &&
        [ "$(jget results.0.load.bytes "$T/p.json")" = "$w_lb" ] &&
        awk -v v="$(jget results.0.load.ns "$T/p.json")" 'BEGIN { exit !(v > 0) }' &&
        awk -v v="$(jget results.0.load.peak_footprint "$T/p.json")" \
            -v l="$(jget results.0.load.peak_live "$T/p.json")" 'BEGIN { exit !(v >= l && l > 0) }'; then
        ok "load: events, allocations, bytes as computed from the text; time and peaks measured"
    else not_ok "load figures" "$(jget results.0.load "$T/p.json")" "want $(cat "$T/want")"; fi
    wf=$(jget results.0.worst_frame.index "$T/p.json")
    bf=$(jget results.0.budget.first_failure_frame "$T/p.json")
    if [ "$wf" -ge 2 ] && [ "$wf" -le 31 ] && [ "$bf" -ge 2 ] && [ "$bf" -le 31 ]; then
        ok "worst frame ($wf) and budget ($bf) name play frames, not the load"
    else not_ok "worst frame and budget name play frames" "worst $wf budget $bf"; fi
else
    for c in 1 2 3 4 5; do not_ok "replay of the phases trace" "$(cat "$T/err")"; done
fi

tap_done
