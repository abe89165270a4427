#!/usr/bin/env bash
# When a warm sample stops (src/replay/warmstop.h) as `replay` is told:
# --warm-stop PCT (the default, 2) with --warm-time as its cap, --warm-time
# alone as a fixed budget, --warm-stop off; what the report's options say, and
# the usage errors. The laps counted are the rule's, not a clock's: a cap of
# 0 s makes exactly one warm lap, and the rule never stops before 8.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup warmstop
command -v jq > /dev/null || skip_all "jq not installed"
"$HR" gen frame_loop -n 3000 -o "$T/t.hrt" > /dev/null || skip_all "cannot generate a trace"

# opts NAME EXPECTED ARGS...: the report's options warm_time_s and
# warm_stop_pct (null: absent, a fixed budget) after `replay ARGS`
opts() {
    local name=$1 want=$2
    shift 2
    if ! "$HR" replay "$T/t.hrt" -a bump -r 1 -q -o "$T/o.json" "$@" > /dev/null 2> "$T/err"; then
        not_ok "$name" "replay $* failed: $(head -c 300 "$T/err")"
        return
    fi
    local got
    got=$(jq -c '[.options.warm_time_s, .options.warm_stop_pct]' "$T/o.json")
    [ "$got" = "$want" ] && ok "$name" || not_ok "$name" "want $want, got $got"
}
opts "default: the rule at 2 %, capped at 0.25 s" '[0.25,2]'
opts "--warm-time alone: a fixed budget" '[0.1,null]' --warm-time 0.1
opts "--warm-stop with --warm-time: its cap" '[0.1,5]' --warm-stop 5 --warm-time 0.1
opts "... in either order" '[0.1,5]' --warm-time=0.1 --warm-stop=5
opts "--warm-stop off: the fixed budget of 0.25 s" '[0.25,null]' --warm-stop off

# laps NAME EXPECTED-JQ ARGS...: the sample's time.warm_laps passes the test
laps() {
    local name=$1 test=$2
    shift 2
    "$HR" replay "$T/t.hrt" -a bump -r 1 -q -o "$T/l.json" "$@" > /dev/null 2>&1
    local n
    n=$(jq '.results[0].time.warm_laps' "$T/l.json" 2> /dev/null)
    if [ -n "$n" ] && jq -e "$n | $test" <<< null > /dev/null 2>&1; then ok "$name ($n laps)"
    else not_ok "$name" "warm_laps $n, wanted $test"; fi
}
laps "the rule runs at least 8 laps" '. >= 8'
laps "the rule capped at 0 s runs one lap" '. == 1' --warm-stop 2 --warm-time 0
laps "a fixed budget of 0 s runs one lap" '. == 1' --warm-time 0

# usage errors: exit 2 and the option named
bad() {
    local want=$1
    shift
    local rc=0
    "$HR" replay "$T/t.hrt" -a bump -r 1 -q "$@" > /dev/null 2> "$T/err" || rc=$?
    if [ "$rc" = 2 ] && grep -qF -- "$want" "$T/err"; then ok "rejected: $*"
    else not_ok "rejected: $*" "exit $rc, stderr: $(head -c 300 "$T/err")"; fi
}
bad "option '--warm-stop' expects a number > 0 and <= 50" --warm-stop 0
bad "option '--warm-stop' expects a number > 0 and <= 50" --warm-stop 51
bad "option '--warm-stop' expects a number > 0 and <= 50" --warm-stop 2%
bad "option '--warm-stop' requires an argument" --warm-stop
tap_done
