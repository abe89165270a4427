#!/usr/bin/env bash
# Captures the small programs of tests/capture/ with libheapreplay-capture.so
# and checks exact counts, sizes and peak live bytes of their distinctive
# sizes (libc/loader noise is filtered out by size range); compares with
# heaptrack when it is installed; drives `heapreplay capture` (signals to it,
# relative paths, launchers) and a signal handler that allocates. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
B=${top_builddir:-.}
LIB="$B/.libs/libheapreplay-capture.so"
T="$B/tests/capture"
DUMP="$T/hr_import_dump"
W=$(mktemp -d "${TMPDIR:-/tmp}/hrcap.XXXXXX")
trap 'rm -rf "$W"' EXIT
# check_dump NAME DUMPFILE "key value" ...: every "key value" line must be in the dump.
check_dump() {
    name=$1; out=$2; shift 2
    bad=""
    for kv in "$@"; do
        grep -qx -- "$kv" "$out" || bad="$bad [$kv]"
    done
    if [ -z "$bad" ]; then ok "$name"; else
        not_ok "$name"; echo "# missing:$bad"; sed 's/^/#   /' "$out"; fi
}
key() { sed -n "s/^$1 //p" "$2"; }
# cap RAW PROG ARGS...: run PROG under the library writing RAW.
cap() {
    raw=$1; shift
    rm -f "$raw" "$raw".*
    HEAPREPLAY_CAPTURE_FILE=$raw LD_PRELOAD=$LIB "$@"
}
dump() { f=$1; shift; "$DUMP" "$f" "$@" > "$f.out" 2>&1; echo "$f.out"; }
wait_file() { i=0; while [ ! -s "$1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done; }

# running PID: 0 while PID is a live process (not gone, not a zombie)
running() {
    [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]
}
# gone PID: 0 once PID is no longer running (polls up to 10 s)
gone() {
    local i=0
    while running "$1" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    ! running "$1"
}
# interrupt_capture LOG ARGS...: starts `heapreplay capture ARGS` in the
# background, waits for its program's ready file $W/ready, sends SIGTERM to
# capture (not the program), waits; sets rc (capture's status) and prog
# (the program's pid).
interrupt_capture() {
    local log=$1; shift
    rm -f "$W/ready"
    "$HR" capture "$@" > "$log" 2>&1 &
    local cpid=$!
    wait_file "$W/ready"
    prog=$(cat "$W/ready" 2>/dev/null)
    kill -TERM "$cpid"
    wait "$cpid"
    rc=$?
}
# The CLI's handling of signals, paths and launchers (docs/CAPTURE.md).
cli_signals() {
    interrupt_capture "$W/i.log" -o "$W/i.hrt" -- "$T/cap_sigterm" 200 "$W/ready"
    if [ "$rc" = 143 ] && [ -n "$prog" ] && gone "$prog" &&
        grep -q "^capture: interrupted by signal 15" "$W/i.log"; then
        check_dump "heapreplay capture: SIGTERM to capture: forwarded, no process left, exit 143, trace whole" \
            "$(dump "$W/i.hrt" --trace --min 60000 --max 70000)" "f_alloc 200" "f_peak 12019900"
    else not_ok "heapreplay capture: SIGTERM to capture (rc $rc, program ${prog:-?} running: $(running "${prog:-0}" && echo yes || echo no))"
        sed 's/^/#   /' "$W/i.log"; kill "${prog:-0}" 2>/dev/null; fi

    # sh forks the program (the command is not its last): the signal reaches
    # the whole process group; sh's own log still ends with its END record
    interrupt_capture "$W/j.log" -f -o "$W/j.hrt" -- sh -c "\"$T/cap_sigterm\" 200 \"$W/ready\"; exit 0"
    # the program's trace: the largest child trace (sh may fork more than
    # the program, e.g. a subshell that records next to nothing)
    jc=$(ls -S "$W"/j.[0-9]*.hrt 2>/dev/null | head -n 1)
    if [ "$rc" = 143 ] && [ -n "$prog" ] && gone "$prog" && [ -n "$jc" ] &&
        grep -q "^ended: signal 15 (buffers flushed)" "$W/j.log"; then
        check_dump "heapreplay capture: SIGTERM to capture of a launcher: its child gets it too" \
            "$(dump "$jc" --trace --min 60000 --max 70000)" "f_alloc 200"
    else not_ok "heapreplay capture: SIGTERM to capture of a launcher (rc $rc, child trace ${jc:-none})"
        sed 's/^/#   /' "$W/j.log"; kill "${prog:-0}" 2>/dev/null; fi

    # at a terminal (a pseudo-terminal, capture as its foreground job): ^C
    # reaches the program, capture exits 130; ^Z stops both, continuing
    # capture (fg) continues the program
    local S=${srcdir:-.}
    if command -v python3 > /dev/null 2>&1; then
        rm -f "$W/ready"
        python3 "$S/tests/capture/pty_interrupt.py" "$HR" "$W/p.hrt" "$T/cap_sigterm" "$W/ready" int \
            > "$W/p.out" 2>&1
        if grep -qx "exit 130" "$W/p.out" && grep -qx "program gone" "$W/p.out"; then
            check_dump "heapreplay capture: ^C at the terminal reaches the program, trace whole, capture exits 130" \
                "$(dump "$W/p.hrt" --trace --min 60000 --max 70000)" "f_alloc 200"
        else not_ok "heapreplay capture: ^C at the terminal"; sed 's/^/#   /' "$W/p.out"; fi
        rm -f "$W/ready"
        python3 "$S/tests/capture/pty_interrupt.py" "$HR" "$W/q.hrt" "$T/cap_sigterm" "$W/ready" tstp \
            > "$W/q.out" 2>&1
        if grep -qx "stopped_capture T" "$W/q.out" && grep -qx "stopped_program T" "$W/q.out" &&
            grep -qx "continued_program S" "$W/q.out" && grep -qx "exit 130" "$W/q.out"; then
            ok "heapreplay capture: ^Z stops the program and capture, fg continues both"
        else not_ok "heapreplay capture: ^Z and fg"; sed 's/^/#   /' "$W/q.out"; fi
    else
        skip "heapreplay capture: ^C at the terminal" "no python3 (the test's pseudo-terminal)"
        skip "heapreplay capture: ^Z and fg" "no python3 (the test's pseudo-terminal)"
    fi

    mkdir -p "$W/cwd/sub"
    local top; top=$(cd "$B" && pwd) # the paths must not depend on the directory
    if (cd "$W/cwd" && "$top/heapreplay" capture -o rel.hrt -- \
        sh -c "cd sub && exec \"$top/tests/capture/cap_single\"") > "$W/r.log" 2>&1 &&
        [ ! -e "$W/cwd/sub/rel.hrt.raw" ]; then
        check_dump "heapreplay capture: relative -o through cd && exec: the program's trace" \
            "$(dump "$W/cwd/rel.hrt" --trace --min 10000 --max 40000)" "f_alloc 100" "f_calloc 1" "f_free 101"
    else not_ok "heapreplay capture: relative -o through cd && exec"; sed 's/^/#   /' "$W/r.log"; ls "$W/cwd/sub" | sed 's/^/#   /'; fi

    "$HR" capture -o "$W/l.hrt" -- sh -c "\"$T/cap_single\"; exit 0" > "$W/l.log" 2>&1
    rc=$?
    if [ $rc = 2 ] && grep -q "looks like a launcher.*--follow-forks" "$W/l.log" &&
        ! ls "$W"/l.hrt.raw.* > /dev/null 2>&1; then
        ok "heapreplay capture: launcher without --follow-forks fails (exit 2) and suggests --follow-forks"
    else not_ok "heapreplay capture: launcher without --follow-forks (rc $rc)"; sed 's/^/#   /' "$W/l.log"; fi
    "$HR" capture -f -o "$W/m.hrt" -- sh -c "\"$T/cap_single\"; exit 0" > "$W/m.log" 2>&1
    rc=$?
    mc=$(ls "$W"/m.[0-9]*.hrt 2>/dev/null | head -n 1)
    if [ $rc = 0 ] && [ -n "$mc" ]; then
        check_dump "heapreplay capture: launcher with --follow-forks: the program's trace" \
            "$(dump "$mc" --trace --min 10000 --max 40000)" "f_alloc 100" "f_calloc 1" "f_free 101"
    else not_ok "heapreplay capture: launcher with --follow-forks (rc $rc)"; sed 's/^/#   /' "$W/m.log"; fi
    # each process's command (format 1.8): the launcher's and the program's,
    # kept in the binary trace (streamed) and in a text one (built in memory)
    local pc cc tc
    pc=$("$HR" info "$W/m.hrt" 2>&1 | sed -n 's/^  command *//p')
    cc=$([ -n "$mc" ] && "$HR" info "$mc" 2>&1 | sed -n 's/^  command *//p')
    "$HR" capture -f -o "$W/mt.hrtt" -- sh -c "\"$T/cap_single\" one two; exit 0" > "$W/mt.log" 2>&1
    tc=$(ls "$W"/mt.[0-9]*.hrtt 2>/dev/null | head -n 1)
    tc=$([ -n "$tc" ] && head -n 1 "$tc")
    case "$pc|$cc|$tc" in
    "$(command -v sh | xargs readlink -f) -c \"$T/cap_single\"; exit 0|$(readlink -f "$T/cap_single")|"*" command=$(readlink -f "$T/cap_single" | sed 's/%/%25/g')%20one%20two")
        ok "heapreplay capture --follow-forks: each process's command in its trace (binary and text)" ;;
    *) not_ok "heapreplay capture --follow-forks: each process's command" "parent: $pc" "child: $cc" \
        "text child's header: $tc" ;;
    esac
}

if [ ! -f "$LIB" ] || [ ! -x "$DUMP" ]; then
    skip_all "capture library or driver not built ($LIB)"
fi
skip_all_if_asan "$DUMP" "the capture library preloaded into the test programs"

cap "$W/s.raw" "$T/cap_single"
check_dump "single thread: 100 malloc + 1 calloc, 101 free, peak" "$(dump "$W/s.raw" --min 10000 --max 40000)" \
    "f_alloc 100" "f_calloc 1" "f_free 101" "f_peak 1038283" "f_threads 1" "ended exit" "truncated 0"

cap "$W/t.raw" "$T/cap_threads"
check_dump "4 threads, 2000 cross-thread frees, reuse ordered" "$(dump "$W/t.raw" --min 20000 --max 24000)" \
    "f_alloc 4000" "f_free 4000" "f_cross 2000" "f_threads 4" "f_peak 43499000" \
    "reuse_inversions 0" "double_frees 0" "duplicates 0"

cap "$W/f.raw" "$T/cap_fork"
check_dump "fork: parent file has only the parent's blocks" "$(dump "$W/f.raw" --min 30000 --max 32000)" \
    "f_alloc 3" "f_free 3" "f_peak 90006"
child=$(ls "$W"/f.raw.* 2>/dev/null | grep -v '\.out$' | head -n 1)
if [ -n "$child" ]; then
    check_dump "fork: child writes FILE.<pid>; inherited block freed = unknown free" \
        "$(dump "$child" --min 30000 --max 32000)" "f_alloc 5" "f_free 2" "f_peak 155010" "unknown_frees 1"
else not_ok "fork: child writes FILE.<pid>"; fi
HEAPREPLAY_CAPTURE_CHILDREN=0 cap "$W/g.raw" "$T/cap_fork"
if ls "$W"/g.raw.* >/dev/null 2>&1; then not_ok "fork: HEAPREPLAY_CAPTURE_CHILDREN=0 writes no child file"
else ok "fork: HEAPREPLAY_CAPTURE_CHILDREN=0 writes no child file"; fi

cap "$W/r.raw" "$T/cap_realloc"
check_dump "realloc chain, realloc(NULL), realloc(p,0), reallocarray" "$(dump "$W/r.raw" --min 40000 --max 42000)" \
    "f_alloc 2" "f_realloc 9" "f_free 2" "f_peak 41000"
o="$W/r.raw.out"
# (gcc folds realloc(NULL, n) into malloc(n); reallocarray(NULL, ...) stays a realloc)
if [ "$(key realloc_zero "$o")" -ge 1 ] && [ "$(key realloc_null "$o")" -ge 1 ]; then
    ok "realloc repairs counted (NULL -> alloc, size 0 -> free)"
else not_ok "realloc repairs counted"; fi

cap "$W/a.raw" "$T/cap_aligned"
check_dump "aligned: posix_memalign, aligned_alloc, memalign, valloc, pvalloc" \
    "$(dump "$W/a.raw" --min 50000 --max 54000)" \
    "annots align:64 align:128 align:256 align:4096 align:4096" "f_alloc 5" "f_free 5" "f_peak 253302"

rm -f "$W/ready"
cap "$W/k.raw" "$T/cap_sigterm" 200 "$W/ready" &
wait_file "$W/ready"
kill -TERM "$(cat "$W/ready")" 2>/dev/null
wait
check_dump "SIGTERM: buffers flushed, file whole" "$(dump "$W/k.raw" --min 60000 --max 70000)" \
    "f_alloc 200" "f_free 0" "f_peak 12019900" "truncated 0" "ended signal 15 (buffers flushed)"

rm -f "$W/ready"
# small buffers (records are ~10 bytes): some blocks reach the file before the kill
HEAPREPLAY_CAPTURE_BUFFER=4096 cap "$W/x.raw" "$T/cap_sigterm" 5000 "$W/ready" &
wait_file "$W/ready"
kill -KILL "$(cat "$W/ready")" 2>/dev/null
wait
o=$(dump "$W/x.raw" --min 60000 --max 70000)
fa=$(key f_alloc "$o")
if grep -qx "truncated 1" "$o" && [ "${fa:-0}" -gt 0 ] && [ "${fa:-0}" -lt 5000 ]; then
    ok "SIGKILL: whole blocks read, reported as cut ($fa of 5000)"
else not_ok "SIGKILL: whole blocks read, reported as cut"; sed 's/^/#   /' "$o"; fi

head -c 200 "$W/x.raw" > "$W/cut.raw" # inside the first block's payload
o=$(dump "$W/cut.raw" --min 60000 --max 70000)
if grep -q "^truncation block at offset .* cut after [0-9]* of [0-9]* records" "$o"; then
    ok "file cut mid-block: read up to the last whole record"
else not_ok "file cut mid-block"; sed 's/^/#   /' "$o"; fi

for m in exit _exit return abort exec; do
    cap "$W/e.raw" "$T/cap_exits" $m 2>/dev/null
    o=$(dump "$W/e.raw" --min 80001 --max 80002)
    want="exit"; [ $m = _exit ] && want="_exit"; [ $m = abort ] && want="signal 6 (buffers flushed)"
    o2=$("$DUMP" "$W/e.raw" --min 80002 --max 80003 | sed -n 's/^f_alloc //p')
    if grep -qx "f_alloc 1" "$o" && grep -qx "ended $want" "$o" && [ "$o2" = 0 ]; then
        ok "ends by $m: recorded, END record says '$want'"
    else not_ok "ends by $m"; sed 's/^/#   /' "$o"; fi
done

cap "$W/n.raw" "$T/cap_annotate"
check_dump "annotations recorded in order" "$(dump "$W/n.raw" --min 70001 --max 70002)" \
    "annots push:level mark:loaded frame:1 frame:2 frame:3 pop:level" "f_alloc 1" "f_peak 70001"
if "$T/cap_annotate"; then ok "annotations are no-ops without the library"; else not_ok "annotations without the library"; fi

# A signal handler that allocates while the main loop is inside the hooks
# (cap_sigalloc, SIGALRM every 50 us): every pair of the handler is in the
# log. The handler's pairs plus the one warm-up pair of the same size.
for how in sigaction signal; do
    rm -f "$W/sa.raw"
    pairs=$(HEAPREPLAY_CAPTURE_FILE="$W/sa.raw" LD_PRELOAD=$LIB "$T/cap_sigalloc" 500 $how |
        sed -n 's/^handler_pairs //p')
    o=$(dump "$W/sa.raw" --min 777 --max 778)
    if [ "${pairs:-0}" -ge 500 ] && grep -qx "f_alloc $((pairs + 1))" "$o" &&
        grep -qx "f_free $((pairs + 1))" "$o" && grep -qx "duplicates 0" "$o"; then
        ok "allocations in a SIGALRM handler ($how): all $pairs pairs recorded"
    else not_ok "allocations in a SIGALRM handler ($how): ${pairs:-no} pairs"; sed 's/^/#   /' "$o"; fi
done

# heaptrack: same programs, imported; allocation count and peak of the distinctive sizes agree.
if command -v heaptrack >/dev/null 2>&1; then
    for p in "single 10000 40000 s" "threads 20000 24000 t"; do
        set -- $p
        rm -f "$W/ht_$1".*
        if heaptrack -o "$W/ht_$1" "$T/cap_$1" >/dev/null 2>&1; then
            h=$(ls "$W/ht_$1".* | grep -v '\.out$' | head -n 1)
            o=$(dump "$h" --min $2 --max $3)
            ours="$W/$4.raw.out"
            hc=$(( $(key f_alloc "$o") + $(key f_calloc "$o") )); oc=$(( $(key f_alloc "$ours") + $(key f_calloc "$ours") ))
            if [ "$hc" = "$oc" ] && [ "$(key f_peak "$o")" = "$(key f_peak "$ours")" ] && [ "$hc" -gt 0 ]; then
                ok "heaptrack agrees on cap_$1: $hc allocations, peak $(key f_peak "$o")"
            else not_ok "heaptrack agrees on cap_$1 (heaptrack $hc/$(key f_peak "$o"), ours $oc/$(key f_peak "$ours"))"; fi
        else skip "heaptrack agrees on cap_$1" "heaptrack failed to run"; fi
    done
else
    skip "heaptrack agrees on cap_single" "heaptrack not installed"
    skip "heaptrack agrees on cap_threads" "heaptrack not installed"
fi

# The summary's overhead lines (docs/CAPTURE.md "Overhead"): the library's
# figure, and with --time-runs the measured one, whose verdict must follow
# from the figures the line itself prints: within the runs' spread when
# |difference| <= spread, "the faster" when the difference is negative,
# within the spread of it when |estimate - difference| <= spread, else the
# ratio estimate / difference (to the 2 decimals printed).
OVH_RE='^overhead: ~[0-9]+\.[0-9] ms in the capture library \([0-9]+ ns/event; timed by the library: its hooks, flushes, start-up and exit\)(: CPU [0-9.]+ s with it, ~[0-9.]+ s without, \+[0-9]+%)?$'
MEAS_RE='^overhead measured: CPU [0-9.]+ s with the library, [0-9.]+ s without \(median of [0-9]+ runs?, min [0-9.]+, max [0-9.]+\), [+-][0-9]+% \([+-][0-9]+\.[0-9] ms\); '
# verdict_ok LINE: 0 when the line's verdict is the one its figures call for
# (they are rounded: to 1 ms, the difference to 0.1 ms, the ratio to 0.01)
verdict_ok() {
    echo "$1" | awk '{
        match($0, /\([+-][0-9]+\.[0-9] ms\)/); diff = substr($0, RSTART + 1, RLENGTH - 5) / 1000
        line = $0; gsub(/[(),;~]/, " "); n = split($0, f, " ")
        for (i = 1; i <= n; i++) {
            if (f[i] == "min") lo = f[i + 1]; if (f[i] == "max") hi = f[i + 1]
            if (f[i] == "without" && med == "") med = f[i - 2]
            if (f[i] == "library'"'"'s") est = f[i + 1] / 1000
        }
        noise = med - lo > hi - med ? med - lo : hi - med; slack = 0.0011
        ad = diff < 0 ? -diff : diff; de = est - diff; de = de < 0 ? -de : de
        if (index(line, "too small to measure")) ok = ad <= noise + slack
        else if (index(line, "was the faster")) ok = ad > noise - slack && diff <= 0
        else if (index(line, "is within the runs'"'"' spread")) ok = ad > noise - slack && de <= noise + slack
        else if (match(line, /is [0-9.]+x it/)) {
            r = substr(line, RSTART + 3, RLENGTH - 7) + 0
            # est and diff are printed to 0.1 ms: the ratio lies between
            # the extremes of their rounding, the ratio itself to 0.01
            h = 0.00005; rlo = (est - h) / (diff + h)
            rhi = diff > h ? (est + h) / (diff - h) : 1e18
            ok = ad > noise - slack && de > noise - slack && diff > 0 &&
                 r >= rlo - 0.005 && r <= rhi + 0.005
        }
        exit ok ? 0 : 1 }'
}
overhead_lines() {
    "$HR" capture -o "$W/o.hrt" -- "$T/cap_single" > "$W/o.log" 2>&1
    if grep -Eq "$OVH_RE" "$W/o.log"; then ok "heapreplay capture: the overhead line's form"
    else not_ok "heapreplay capture: the overhead line's form" "$(grep overhead "$W/o.log" || echo "no overhead line")"; fi
    "$HR" capture --time-runs 3 -o "$W/o.hrt" -- "$T/cap_single" < /dev/null > "$W/o3.log" 2>&1
    line=$(grep '^overhead measured: ' "$W/o3.log")
    if echo "$line" | grep -Eq "${MEAS_RE}" && echo "$line" | grep -q "median of 3 runs" &&
        verdict_ok "$line"; then ok "heapreplay capture: overhead measured: form and verdict (3 runs)"
    else not_ok "heapreplay capture: overhead measured: form and verdict (3 runs)" "${line:-no line}"; fi
    "$HR" capture --time-runs 1 -o "$W/o.hrt" -- "$T/cap_single" < /dev/null > "$W/o1.log" 2>&1
    line=$(grep '^overhead measured: ' "$W/o1.log")
    if echo "$line" | grep -Eq "${MEAS_RE}one run without: its noise is unknown\$"; then
        ok "heapreplay capture: overhead measured: one run, noise unknown"
    else not_ok "heapreplay capture: overhead measured: one run, noise unknown" "${line:-no line}"; fi
}

# The CLI: heapreplay capture (when the lead's binary is built).
HR="$B/heapreplay"
if [ -x "$HR" ] && "$HR" capture --help >/dev/null 2>&1; then
    if "$HR" capture -o "$W/c.hrt" -- "$T/cap_single" > "$W/c.log" 2>&1 &&
        grep -q "^trace: .*peak live" "$W/c.log" && grep -q "exited with status 0" "$W/c.log"; then
        check_dump "heapreplay capture: trace written, counts exact" "$(dump "$W/c.hrt" --trace --min 10000 --max 40000)" \
            "f_alloc 100" "f_calloc 1" "f_free 101" "f_peak 1038283"
    else not_ok "heapreplay capture: trace written"; sed 's/^/#   /' "$W/c.log"; fi
    [ -e "$W/c.hrt.raw" ] && not_ok "heapreplay capture: raw log removed" || ok "heapreplay capture: raw log removed"
    rm -f "$W/ready"
    "$HR" capture --no-timestamps --keep-raw -o "$W/k.hrt" -- "$T/cap_sigterm" 200 "$W/ready" > "$W/k.log" 2>&1 &
    wait_file "$W/ready"
    kill -TERM "$(cat "$W/ready")" 2>/dev/null
    wait $!
    rc=$?
    if [ $rc = 0 ] && grep -q "killed by signal 15" "$W/k.log" && [ -f "$W/k.hrt.raw" ]; then
        check_dump "heapreplay capture: program killed by SIGTERM, trace kept" \
            "$(dump "$W/k.hrt" --trace --min 60000 --max 70000)" "f_alloc 200" "f_peak 12019900"
    else not_ok "heapreplay capture: program killed by SIGTERM (rc $rc)"; sed 's/^/#   /' "$W/k.log"; fi
    "$HR" capture -o "$W/z.hrt" > /dev/null 2>&1
    [ $? = 2 ] && ok "heapreplay capture: usage error exits 2" || not_ok "heapreplay capture: usage error exits 2"
    overhead_lines
    cli_signals
else
    skip "heapreplay capture: trace written" "heapreplay not built"
    skip "heapreplay capture: raw log removed" "heapreplay not built"
    skip "heapreplay capture: program killed by SIGTERM" "heapreplay not built"
    skip "heapreplay capture: usage error exits 2" "heapreplay not built"
    for t in "the overhead line's form" "overhead measured: form and verdict (3 runs)" \
        "overhead measured: one run, noise unknown"; do
        skip "heapreplay capture: $t" "heapreplay not built"
    done
    for t in "SIGTERM to capture" "SIGTERM to capture of a launcher" "^C at the terminal" \
        "^Z and fg" "relative -o through cd && exec" \
        "launcher without --follow-forks" "launcher with --follow-forks"; do
        skip "heapreplay capture: $t" "heapreplay not built"
    done
fi

tap_done
