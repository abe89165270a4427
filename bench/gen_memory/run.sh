#!/bin/sh
# What `heapreplay gen` costs in memory and time as the event count grows:
# max RSS (GNU time's %M, from wait4) and wall time of `gen session -n N`
# for N = 1 M, 10 M, 100 M, 1 G, for the build under test (NEW) and,
# optionally, an older build (OLD, e.g. one that held the whole trace in
# memory, 28 B/event), which is run only up to OLD_MAX events.
# Outputs up to 100 M events go to a file in DIR (compared byte for byte when
# both builds ran, then deleted); 1 G goes to /dev/null (about 3.7 GB).
#   bench/gen_memory/run.sh NEW [OLD] > table.md
# Env: DIR (default: a fresh temporary folder), OLD_MAX (default 100000000).
set -eu
NEW=$1
OLD=${2:-}
OLD_MAX=${OLD_MAX:-100000000}
DIR=${DIR:-$(mktemp -d)}
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
# one run: prints "| build | N | max RSS MiB | seconds |"
run() {
    bin=$1 label=$2 n=$3 out=$4
    /usr/bin/time -f "%M %e" -o "$DIR/time" "$bin" gen session -n "$n" -o "$out" >/dev/null
    read -r kb s < "$DIR/time"
    printf '| %s | %s | %s | %s |\n' "$label" "$n" "$(awk "BEGIN{printf \"%.1f\", $kb/1024}")" "$s"
}
echo "| build | events | max RSS (MiB) | wall (s) |"
echo "|---|---|---|---|"
for n in 1000000 10000000 100000000 1000000000; do
    if [ "$n" -gt 100000000 ]; then out=/dev/null; else out=$DIR/new.hrt; fi
    run "$NEW" new "$n" "$out"
    if [ -n "$OLD" ] && [ "$n" -le "$OLD_MAX" ]; then
        run "$OLD" old "$n" "$DIR/old.hrt"
        cmp -s "$DIR/old.hrt" "$DIR/new.hrt" || { echo "outputs differ at $n events" >&2; exit 1; }
        rm -f "$DIR/old.hrt"
    fi
    rm -f "$DIR/new.hrt"
done
