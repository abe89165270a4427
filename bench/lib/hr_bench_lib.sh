# Shared helpers of the bench scripts (fresh_agreement.sh, fidelity.sh,
# false_alarms.sh, power.sh, rank_stability.sh and the others), sourced (bash, set -euo
# pipefail in the caller). Not named bench_*.sh: bench/run.sh runs those.
#
#   hr_bench_start            HR_START_DATE/_LOAD and W only (builds nothing)
#   hr_bench_need_hr NAME BUILDDIR   B, S, HR (exit 2 without a built heapreplay), then hr_bench_start
#   hr_bench_setup BUILDDIR   sets S (source top), B (build top), HR, FRESH,
#                             FRESH_MT, DUMP, SHIM, JQ_NOTE, HR_START_DATE/_LOAD and W (a
#                             work folder removed on exit); builds what is
#                             missing; checks for jq
#   say MSG...                progress line on stderr
#   hr_header TITLE CMD       the head of a results file: title, the exact
#                             command, machine, date, binary
#   hr_traces                 the shipped traces, one path a line ($TRACES
#                             overrides: space-separated paths)
#   hr_lib ALLOC              the library to LD_PRELOAD for an external
#                             allocator ("" for glibc); exit 1 when not built
#   hr_programs SCRIPT PATH...  exit 2 unless each PATH is a program, not a script
#   hr_free_port              a TCP port free now, chosen by the kernel (never
#                             a fixed one: two runs on one machine would share it)
#   hr_has_warm_time          0 when `heapreplay replay` knows --warm-time
#   hr_relink OUT OBJ...      OBJ linked with heapreplay's libraries, its order
#   hr_same_libs MODE, hr_fresh_ref MODE NAME   how a reference program maps
#                             heapreplay's libraries (FRESH_LIBS, below)
#   hr_median / hr_min / hr_max   of the numbers on stdin ("null" lines
#                             skipped; "-" when none)
#   hr_turn K WORD...         the words turned left by K (mod their count):
#                             a round's order of allocators, so that the run
#                             after another program's (cold caches) falls on
#                             each of them in turn

say() { echo "[$(date +%H:%M:%S)] $*" >&2; }

hr_bench_setup() {
    B="$(cd "${1:-.}" && pwd)"
    S="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    HR="$B/heapreplay"
    FRESH="$B/tests/tools/fresh_replay"
    FRESH_MT="$B/tests/tools/fresh_mt_replay"
    DUMP="$B/tests/tools/dump_events"
    SHIM="$B/bench/power/.libs/spin_shim.so"
    if [ ! -x "$HR" ] || [ ! -x "$FRESH" ] || [ ! -x "$FRESH_MT" ] || [ ! -x "$DUMP" ] || [ ! -f "$SHIM" ]; then
        say "building heapreplay, tests/tools/{fresh_replay,fresh_mt_replay,dump_events}, bench/power/spin_shim.la"
        make -C "$B" heapreplay tests/tools/fresh_replay tests/tools/fresh_mt_replay tests/tools/dump_events \
            bench/power/spin_shim.la >&2
    fi
    JQ_NOTE=""
    if ! command -v jq > /dev/null 2>&1; then
        say "jq not found: installing it with apt-get install -y jq"
        apt-get install -y jq >&2 || { echo "jq is required (apt-get install jq)" >&2; exit 2; }
        JQ_NOTE="jq was installed by this script (apt-get install -y jq)."
    fi
    hr_bench_start
}

# The start of a script that needs only a built heapreplay (no test tools):
# B, S and HR as hr_bench_setup sets them, exit 2 naming the script when
# BUILDDIR has no heapreplay, then hr_bench_start.
#   hr_bench_need_hr SCRIPT_NAME BUILDDIR
hr_bench_need_hr() {
    B="$(cd "${2:-.}" && pwd)"
    S="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    HR="$B/heapreplay"
    [ -x "$HR" ] || { echo "$1: $HR: build heapreplay first" >&2; exit 2; }
    hr_bench_start
}

# The start of a run without building anything (hr_bench_setup's last step;
# a script that needs only heapreplay calls it alone): HR_START_DATE/_LOAD
# for hr_header and W, a work folder removed on exit.
hr_bench_start() {
    JQ_NOTE=${JQ_NOTE:-}
    HR_START_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    HR_START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
    W=$(mktemp -d "${TMPDIR:-/tmp}/hr_bench.XXXXXX")
    trap 'rm -rf "$W"' EXIT
}

hr_header() {
    local title=$1 cmd=$2 cpus
    cpus=$(taskset -cp $$ | sed 's/.*: //')
    [ "$(nproc)" -ge "$(nproc --all)" ] || cmd="taskset -c $cpus env $cmd" # the run was pinned
    echo "# $title"
    echo
    echo "Command: \`$cmd\`"
    echo
    echo "- machine: \`$(uname -a)\`"
    echo "- cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc --all) online;" \
         "this run used CPU(s) $cpus"
    echo "- date: started $HR_START_DATE, finished $(date -u +%Y-%m-%dT%H:%M:%SZ); load average at start: $HR_START_LOAD"
    echo "- heapreplay: $("$HR" --version 2>/dev/null | head -1 || true) ($(git -C "$S" describe --always --dirty 2>/dev/null || echo "no git"))"
    echo "- replay --warm-time supported: $(hr_has_warm_time && echo yes || echo "no (old engine)")"
    [ -z "$JQ_NOTE" ] || echo "- $JQ_NOTE"
    echo
}

# Ends a results file: the load average now, then $W/out.md copied to $OUT
# and printed.
hr_write_out() {
    echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)." >> "$W/out.md"
    mkdir -p "$(dirname "$OUT")"
    cp "$W/out.md" "$OUT"
    cat "$OUT"
    say "written to $OUT"
}

hr_traces() {
    if [ -n "${TRACES:-}" ]; then
        printf '%s\n' $TRACES
    else
        ls "$S"/traces/*.hrt
    fi
}

hr_lib() {
    case "$1" in
        glibc) echo "" ;;
        *) local so
           so=$("$HR" list | awk -v a="$1" '$1 == a' | sed -n 's/.*\[\(.*\)\]$/\1/p')
           [ -n "$so" ] && [ "$so" != "NOT FOUND" ] && [ -f "$so" ] || return 1
           echo "$so" ;;
    esac
}

# hr_programs SCRIPT PATH...: exit 2 (naming SCRIPT) unless every PATH is an
# executable program, not a script. A real program measured under LD_PRELOAD
# is named by path: a `python3` found on PATH may be a wrapper (a pyenv shim
# runs bash and readlink first), and the allocator under test then runs in
# every helper process too and its start-up is what gets measured.
hr_programs() {
    local script=$1 prog
    shift
    for prog in "$@"; do
        [ -x "$prog" ] && [ "$(head -c 2 "$(readlink -f "$prog")")" != '#!' ] ||
            { echo "$script: $prog must be an executable program, not a script" >&2; exit 2; }
    done
}

hr_free_port() {
    "${PYTHON:-python3}" -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'
}

# hr_freeciv_game DIR SERV FREECIV PORT LOG CMD...: one freeciv-server game
# from the script SERV, run in a folder DIR of its own (made afresh, writable
# by all: as root the server runs as nobody, which it requires) after CMD...
# (a timer and an `env ...` prefix; HOME and TMPDIR are added to it), its
# output to LOG. Its exit status is the timer's to record, not returned.
hr_freeciv_game() {
    local d=$1 serv=$2 fc=$3 port=$4 log=$5 as=()
    shift 5
    chmod o+x "$(dirname "$d")"
    rm -rf "$d"; mkdir -p "$d"; chmod 777 "$d"; cp "$serv" "$d/"
    [ "$(id -u)" != 0 ] || as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    (cd "$d" && "$@" HOME="$d" TMPDIR="$d" "${as[@]}" "$fc" --read "$(basename "$serv")" \
        --exit-on-end --quitidle 5 --Announce none -p "$port" < /dev/null > "$log" 2>&1) || true
}

# The help is read whole: `grep -q` would exit at its first match and, under
# `set -o pipefail`, the help's SIGPIPE would make the answer "no" at random
# (on a loaded machine a benchmark then ran without --warm-time).
hr_has_warm_time() { "$HR" replay --help 2>&1 | grep -- --warm-time > /dev/null; }

hr_median() { grep -v '^null$' | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
hr_min() { grep -v '^null$' | sort -g | awk 'NR == 1 { print; f = 1 } END { if (!f) print "-" }'; }
hr_max() { grep -v '^null$' | sort -g | awk '{ l = $1 } END { print (NR ? l : "-") }'; }

# The reference programs (tests/tools/fresh_replay, fresh_mt_replay) can map
# heapreplay's shared libraries three ways, FRESH_LIBS:
#   linked  relinked here with heapreplay's own DT_NEEDED list, in its order
#           (hr_fresh_ref), nothing preloaded: both processes map the same
#           libraries in the same order;
#   same    the libraries preloaded (LD_PRELOAD) into the plain build, which
#           maps them, but in another order;
#   none    neither: the plain build maps the C library alone.
# Why it matters: glibc's frame_loop costs a fresh program 82-85 ns/op with
# the libraries preloaded or linked in one order and 93-99 with none or with
# heapreplay's order (quiet AMD VM, 2026-11-29: the same page faults and brk
# calls; the system time differs), so a reference mapped otherwise than
# heapreplay measures the layout, not the harness (results/fresh-agreement.md).

# hr_same_libs MODE: the libraries to preload into a reference program ("" but
# for MODE same).
hr_same_libs() {
    case "$1" in
        same) ldd "$HR" | awk '$2 == "=>" && $3 ~ /^\// && $1 !~ /^(libc|ld-linux)/ { print $3 }' |
                  tr '\n' ' ' | sed 's/ $//' ;;
        none | linked) ;;
        *) echo "FRESH_LIBS must be linked, same or none" >&2; return 2 ;;
    esac
}

# hr_needed BINARY: its DT_NEEDED libraries in order, one a line.
hr_needed() { readelf -d "$1" | awk '/\(NEEDED\)/ { gsub(/[][]/, "", $5); print $5 }'; }

# hr_relink OUT OBJ...: the objects linked into OUT with heapreplay's
# DT_NEEDED libraries first, in heapreplay's order (as a reference program
# maps them under FRESH_LIBS=linked); the linker's status.
hr_relink() {
    local out=$1 libs=() l
    shift
    while read -r l; do
        libs+=("-l:$l")
    done < <(hr_needed "$HR")
    ${CC:-cc} -o "$out" "$@" -Wl,--no-as-needed "${libs[@]}" -Wl,--as-needed -lpthread
}

# hr_fresh_ref MODE NAME: the path of the reference program NAME (fresh_replay
# or fresh_mt_replay) to run under MODE; for linked, NAME's object relinked in
# $W with heapreplay's DT_NEEDED libraries first, in heapreplay's order (exit 1
# when the result's list differs from heapreplay's).
hr_fresh_ref() {
    local bin="$B/tests/tools/$2"
    [ "$1" = linked ] || { echo "$bin"; return 0; }
    local out="$W/$2-linked" want got
    want=$(hr_needed "$HR")
    hr_relink "$out" "$B/tests/tools/$2.o" >&2 || { echo "hr_fresh_ref: cannot relink $2" >&2; return 1; }
    got=$(hr_needed "$out" | grep -v '^libpthread')
    if [ "$got" != "$want" ]; then
        echo "hr_fresh_ref: $out maps $(tr '\n' ' ' <<< "$got")but heapreplay $(tr '\n' ' ' <<< "$want")" >&2
        return 1
    fi
    echo "$out"
}

hr_turn() {
    local k=$1
    shift
    local n=$#
    [ "$n" -gt 0 ] || return 0
    local w=("$@") i
    for ((i = 0; i < n; i++)); do echo "${w[(i + k) % n]}"; done
}
