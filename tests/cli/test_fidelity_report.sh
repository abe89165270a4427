#!/usr/bin/env bash
# bench/fidelity/rerender.py and fidelity_report.py on a made-up results file:
# one program, four allocators, six paired rounds. The real changes against
# glibc are jemalloc +0.20 s, mimalloc +0.10, tcmalloc -0.10 (CPU) and the
# max RSS rises glibc < tcmalloc < mimalloc < jemalloc; the report predicted
# the time in that order and the memory in the reverse one. The summary's
# "rho, report" columns must say 1.00 and -1.00 (the replay table's own
# columns use other figures); the hand-written reading and the raw values
# stay; a second re-render changes nothing; a file without raw values is
# refused with one line naming it (exit 2). Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
S=${srcdir:-.}
command -v python3 > /dev/null || skip_all "python3 not installed"
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_fidrep.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
RR="$S/bench/fidelity/rerender.py"

{
    echo "# Fidelity: replays against the real programs"
    echo
    echo "Command: \`env ROUNDS=6 ALLOCATORS='glibc jemalloc mimalloc tcmalloc' PROGRAMS='prog' bench/fidelity/fidelity.sh\`"
    echo
    echo "- heapreplay: heapreplay 0.1.0 (test)"
    echo
    echo "### Reading"
    echo
    echo "A hand-written reading that must stay."
    echo
    echo "Real: the program under \`LD_PRELOAD\` (old tables, replaced)"
    echo
    echo "<details><summary>Raw values</summary>"
    echo
    echo '```'
    echo "# real: program allocator round cpu_s max_rss_kb wall_s minflt"
    for r in 1 2 3 4 5 6; do
        j=$(( r % 3 )) # a little round-to-round spread, the same for every allocator
        printf 'prog\tglibc\t%d\t1.00%d\t10000\t1.0\t100\n' $r $j
        printf 'prog\tjemalloc\t%d\t1.20%d\t14000\t1.2\t100\n' $r $j
        printf 'prog\tmimalloc\t%d\t1.10%d\t13000\t1.1\t100\n' $r $j
        printf 'prog\ttcmalloc\t%d\t0.90%d\t12000\t0.9\t100\n' $r $j
    done
    echo "# replay: program policy allocator ops cold_ns cold_min cold_max warm_ns peak_footprint status rss_above_base change_s lo_s hi_s real runs_to_see rss_baseline"
    printf 'prog\trecorded\tglibc\t1000000\t50\t49\t51\t40\t1000000\tok\t900000\tnull\tnull\tnull\tnull\tnull\t1000\tnull\n'
    printf 'prog\trecorded\tjemalloc\t1000000\t60\t59\t61\t45\t1000000\tok\t900000\t0.15\t0.10\t0.20\tcost\t1\t1000\t-3000000\n'
    printf 'prog\trecorded\tmimalloc\t1000000\t40\t39\t41\t30\t1000000\tok\t900000\t0.05\t0.01\t0.09\tcost\t2\t1000\t-2000000\n'
    printf 'prog\trecorded\ttcmalloc\t1000000\t45\t44\t46\t35\t1000000\tok\t900000\t-0.05\t-0.09\t-0.01\tsaving\t2\t1000\t-1000000\n'
    echo "# verdict: program policy the report's verdict (bench/fidelity/rerender.py reads all three)"
    printf 'prog\trecorded\tship tcmalloc: it saves 50 ms\n'
    echo '```'
    echo
    echo "</details>"
} > "$T/f.md"

if python3 "$RR" "$T/f.md" 2> "$T/err"; then
    ok "rerender.py re-renders a results file"
else
    not_ok "rerender.py re-renders a results file" "$(cat "$T/err")"
fi
row=$(grep '^| `recorded` | prog |' "$T/f.md")
rho_t=$(printf '%s\n' "$row" | awk -F' [|] ' '{ print $4 }')
rho_m=$(printf '%s\n' "$row" | awk -F' [|] ' '{ print $5 }')
[ "$rho_t" = 1.00 ] && ok "time rho by the report's predictions: 1.00" ||
    not_ok "time rho by the report's predictions" "got '$rho_t' in: $row"
[ "$rho_m" = -1.00 ] && ok "memory rho by the report's predictions: -1.00" ||
    not_ok "memory rho by the report's predictions" "got '$rho_m' in: $row"
grep -q "^- the report's predictions: time tcmalloc < glibc < mimalloc < jemalloc, rho = 1.00; memory (max RSS) jemalloc < mimalloc < tcmalloc < glibc, rho = -1.00$" "$T/f.md" &&
    ok "the program's section names both orders" || not_ok "the program's section names both orders" \
    "$(grep "report's predictions" "$T/f.md")"
grep -q "^A hand-written reading that must stay.$" "$T/f.md" && ! grep -q "old tables, replaced" "$T/f.md" &&
    grep -q "^prog	recorded	verdict\|^prog	recorded	ship tcmalloc" "$T/f.md" &&
    grep -q "report's verdict: «ship tcmalloc: it saves 50 ms»" "$T/f.md" &&
    ok "reading and raw values kept, tables replaced, the verdict read" ||
    not_ok "reading and raw values kept, tables replaced, the verdict read"
cp "$T/f.md" "$T/once.md"
python3 "$RR" "$T/f.md" 2> /dev/null
cmp -s "$T/f.md" "$T/once.md" && [ "$(grep -c 're-rendered from the raw values' "$T/f.md")" = 1 ] &&
    ok "a second re-render changes nothing" || not_ok "a second re-render changes nothing" \
    "$(diff "$T/once.md" "$T/f.md" | head -n 5)"
printf '# not a results file\n' > "$T/bad.md"
python3 "$RR" "$T/bad.md" > /dev/null 2> "$T/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "bad.md" "$T/err" &&
    ok "a file without raw values: exit 2, one line naming it" ||
    not_ok "a file without raw values: exit 2, one line naming it" "rc=$rc" "$(cat "$T/err")"
tap_done
