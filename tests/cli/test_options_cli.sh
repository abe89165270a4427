#!/usr/bin/env bash
# The option parsing of every command (src/cli/opts.c), table-driven: GNU
# forms (--opt=value, -r1, bundled flags, --), -h/--help and `help CMD`,
# missing values, bad numbers, unknown options. Each row: the exit status
# wanted, a fixed string the output must contain (stderr on errors, stdout
# otherwise; '-' = none; fields separated by '~'), then the arguments, where $T is a scratch
# directory holding t.hrt (a small trace) and r.json (a report).
set -u
. "$(dirname "$0")/tap.sh"
tap_setup opts
srcdir=${srcdir:-.}

"$HR" gen frame_loop -n 3000 -o "$T/t.hrt" > /dev/null || skip_all "cannot generate a trace"
"$HR" replay -a bump -r 1 --warm-time 0 -q -o "$T/r.json" "$T/t.hrt" > /dev/null ||
    skip_all "cannot make a report"

# rc ~ expected text ~ arguments
ROWS=$(cat << 'EOF'
0 ~ usage: heapreplay replay     ~ replay -h
0 ~ --warm-time=SECONDS          ~ replay --help
0 ~ --detail                     ~ replay --help
0 ~ usage: heapreplay compare    ~ compare -h
0 ~ usage: heapreplay info       ~ info -h
0 ~ usage: heapreplay convert    ~ convert -h
0 ~ usage: heapreplay gen        ~ gen -h
0 ~ usage: heapreplay capture    ~ capture -h
0 ~ usage: heapreplay plot       ~ plot -h
0 ~ usage: heapreplay report     ~ report -h
0 ~ usage: heapreplay list       ~ list --help
0 ~ usage: heapreplay replay     ~ help replay
0 ~ --max-regress                ~ help compare
0 ~ commands:                    ~ help
2 ~ unknown command 'nosuch'     ~ help nosuch
2 ~ unknown command 'bogus'      ~ bogus
0 ~ heapreplay                   ~ --version
2 ~ unknown option '--bogus'     ~ replay --bogus $T/t.hrt
2 ~ unknown option '--bogus'     ~ compare --bogus $T/r.json $T/r.json
2 ~ unknown option '--bogus'     ~ info --bogus $T/t.hrt
2 ~ unknown option '--bogus'     ~ convert --bogus $T/t.hrt -o $T/x.hrt
2 ~ unknown option '--bogus'     ~ gen --bogus session -o $T/x.hrt
2 ~ unknown option '--bogus'     ~ capture --bogus -o $T/c.hrt -- true
2 ~ unknown option '--bogus'     ~ plot --bogus $T/r.json
2 ~ unknown option '--bogus'     ~ report --bogus $T/r.json
2 ~ unknown option '--bogus'     ~ list --bogus
2 ~ unknown option '-z'          ~ list -z
2 ~ unknown option '-z'          ~ replay -qz $T/t.hrt
2 ~ option '-r' requires an argument          ~ replay $T/t.hrt -r
2 ~ option '--repeat' requires an argument    ~ replay $T/t.hrt --repeat
2 ~ option '-f' requires an argument          ~ compare $T/r.json $T/r.json -f
2 ~ option '--max-regress' requires an argument ~ compare $T/r.json $T/r.json --max-regress
2 ~ option '-o' requires an argument          ~ convert $T/t.hrt -o
2 ~ option '--events' requires an argument    ~ gen session -o $T/x.hrt --events
2 ~ option '-o' requires an argument          ~ capture -o
2 ~ option '--width' requires an argument     ~ plot $T/r.json --width
2 ~ option '--verify' takes no argument       ~ replay --verify=1 $T/t.hrt
2 ~ option '--detail' takes no argument       ~ replay --detail=yes $T/t.hrt
2 ~ option '--json' takes no argument         ~ info --json=yes $T/t.hrt
2 ~ option '--repeat' expects an integer 1..1000, got 'abc' ~ replay --repeat=abc $T/t.hrt
2 ~ option '-r' expects an integer 1..1000, got '0'         ~ replay -r0 $T/t.hrt
2 ~ option '-r' expects an integer 1..1000, got '2x'        ~ replay -r 2x $T/t.hrt
2 ~ option '--timeout' expects a number > 0                 ~ replay --timeout=0 $T/t.hrt
2 ~ option '--warm-time' expects a number >= 0              ~ replay --warm-time=-1 $T/t.hrt
2 ~ option '--budget' expects a size in bytes               ~ replay --budget 12Q $T/t.hrt
2 ~ option '--touch' expects none|first|all|recorded, or one of the last three :SIZE, got 'some'   ~ replay --touch=some $T/t.hrt
2 ~ option '--format' expects text|json|csv|md              ~ replay --format yaml $T/t.hrt
2 ~ option '--seed' expects an integer                      ~ gen session -o $T/x.hrt --seed=-3
2 ~ option '--threads' expects an integer 1..64, got '65'   ~ gen session -o $T/x.hrt --threads 65
2 ~ option '--events' expects an event count 1000..2000000000 ~ gen session -o $T/x.hrt --events lots
2 ~ option '-w' expects an integer 400..10000               ~ plot -w 20 $T/r.json
2 ~ option '--kind' expects bars, summary, memory           ~ plot --kind=pie $T/r.json
2 ~ option '--frame-budget' expects a duration              ~ plot --frame-budget=soon $T/r.json
2 ~ option '--format' expects text, md, csv, json or html   ~ report --format=xml $T/r.json
2 ~ option '--to' expects binary or text, got 'yaml'        ~ convert $T/t.hrt -o $T/x --to=yaml
2 ~ option '--format' expects text, json, csv, md or junit ~ compare --format=xml $T/r.json $T/r.json
2 ~ option '--max-rows' expects      ~ compare --max-rows=0 $T/r.json $T/r.json
2 ~ option '--shard' expects K/N    ~ replay --shard 3/2 $T/t.hrt
0 ~ usage: heapreplay merge      ~ merge -h
2 ~ unknown option '--bogus'     ~ merge --bogus $T/r.json
2 ~ option '--t' is ambiguous                               ~ replay --t=2 $T/t.hrt
2 ~ expected TRACE|DIR...        ~ replay
2 ~ expected TRACE...            ~ info
2 ~ too many arguments           ~ compare $T/r.json $T/r.json $T/r.json
2 ~ too many arguments           ~ list extra
2 ~ expected [--] CMD            ~ capture -o $T/c.hrt
2 ~ unknown allocator 'nosuch'   ~ replay -a nosuch $T/t.hrt
2 ~ unknown scenario 'nosuch'    ~ gen nosuch -o $T/x.hrt
0 ~ "events"                     ~ info --json -- $T/t.hrt
0 ~ "digest"                     ~ info -j $T/t.hrt
0 ~ bump                         ~ replay -r1 -abump --warm-time=0 -qf json -- $T/t.hrt
0 ~ bump                         ~ replay $T/t.hrt --allocators=bump --repeat 1 --warm-time 0 --quiet
0 ~ glibc                        ~ list --names
0 ~ peak live                    ~ convert --to=text $T/t.hrt --output=$T/t.txt
0 ~ peak live                    ~ gen -n2000 --seed=5 -o$T/g.hrt session
0 ~ level_load                   ~ gen --list
0 ~ <svg                         ~ plot --metric=peak_live -w 600 $T/r.json
0 ~ bump                         ~ compare --no-drift -ftext $T/r.json $T/r.json
EOF
)

while IFS= read -r row; do
    [ -n "$row" ] || continue
    want=$(printf '%s' "$row" | cut -d'~' -f1 | tr -d ' ')
    text=$(printf '%s' "$row" | cut -d'~' -f2 | sed 's/^ *//; s/ *$//')
    args=$(printf '%s' "$row" | cut -d'~' -f3- | sed 's/^ *//; s/ *$//')
    args=${args//\$T/$T}
    # shellcheck disable=SC2086 # the arguments are words
    set -- $args
    "$HR" "$@" > "$T/out" 2> "$T/err" < /dev/null
    rc=$?
    if [ "$want" = 0 ]; then where="$T/out"; else where="$T/err"; fi
    name="heapreplay $args -> $want"
    if [ "$rc" != "$want" ]; then
        not_ok "$name" "exit $rc" "$(head -c 400 "$T/err")"
    elif [ "$text" != - ] && ! grep -qF -- "$text" "$where"; then
        not_ok "$name: '$text'" "$(head -c 400 "$where")"
    elif [ "$want" = 2 ] && [ "$(wc -l < "$T/err")" != 1 ]; then
        not_ok "$name: one line on stderr" "$(cat "$T/err")"
    elif [ "$want" = 2 ] && [ -s "$T/out" ]; then
        not_ok "$name: nothing on stdout" "$(head -c 200 "$T/out")"
    else
        ok "$name"
    fi
done <<< "$ROWS"

# A spec with two options of its own: the comma before "refill" does not
# split, the one before "glibc" does.
"$HR" replay -a 'sizeclass:max=32K,refill=1,bump' -a bump -r 1 --warm-time 0 -q -f csv "$T/t.hrt" \
    > "$T/out" 2> "$T/err"
rc=$?
n=$(grep -c '^"\?[^,]*t\.hrt' "$T/out")
if [ $rc = 0 ] && grep -q 'sizeclass:max=32K,refill=1' "$T/out" && [ "$n" = 3 ]; then
    ok "-a keeps a spec's own options together (3 rows)"
else
    not_ok "-a keeps a spec's own options together" "exit $rc, rows $n" "$(cat "$T/err" "$T/out" | head -c 600)"
fi

# Help text and man page come from the same tables: every long option of
# every --help appears in the man page, and no help line is wider than 79.
"$HR" __man > "$T/hr.1"
missing=
for c in replay compare info convert gen capture plot report list merge; do
    for o in $("$HR" "$c" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
        grep -qF -- "\\-\\-$(printf '%s' "${o#--}" | sed 's/-/\\-/g')" "$T/hr.1" ||
            missing="$missing $c:$o"
    done
    wide=$("$HR" "$c" --help | awk 'length > 79')
    [ -z "$wide" ] || missing="$missing $c:wide"
done
if [ -z "$missing" ]; then ok "every --help option is in the man page; help fits 79 columns"
else not_ok "man page and --help agree" "missing:$missing"; fi
if command -v groff > /dev/null; then
    groff -ww -man -Tutf8 "$T/hr.1" > /dev/null 2> "$T/groff.err"
    if [ -s "$T/groff.err" ]; then not_ok "groff -ww renders the man page without warnings" "$(head -5 "$T/groff.err")"
    else ok "groff -ww renders the man page without warnings"; fi
else
    skip "groff -ww renders the man page without warnings" "groff not installed"
fi
"$HR" __bash-completion > "$T/c.bash"
if bash -n "$T/c.bash" && (. "$T/c.bash"; COMP_WORDS=("$HR" replay --al); COMP_CWORD=2; _heapreplay;
                            [ "${COMPREPLY[*]}" = --allocators ]); then
    ok "bash completion: parses, completes replay --al to --allocators"
else
    not_ok "bash completion works"
fi
tap_done
