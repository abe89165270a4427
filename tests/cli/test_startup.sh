#!/usr/bin/env bash
# Process start-up (docs/METRICS.md, "Process start-up"): a replay whose
# allocators include a preloaded library measures each library's start-up
# against the C library's, once per run, in the report's "startup" section.
# A library whose constructor burns 40 ms of CPU must show at least ~35 ms
# over glibc (CPU time from wait4 is the kernel's exact runtime, so this
# lower bound holds on a loaded machine); a replay of in-house allocators and
# glibc alone has no section.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup startup jget
skip_all_if_asan "$HR" "a preloaded malloc"
CC=${CC:-cc}
command -v "$CC" > /dev/null 2>&1 || skip_all "no C compiler ($CC)"

# slowstart.so: the C library's malloc under its own names (the worker checks
# that the preloaded file provides malloc), and a constructor that spins until
# the process has used 40 ms of CPU.
cat > "$T/slowstart.c" <<'C'
#include <stddef.h>
#include <time.h>
extern void *__libc_malloc(size_t), *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t),
    *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
void *malloc(size_t n) { return __libc_malloc(n); }
void free(void *p) { __libc_free(p); }
void *calloc(size_t n, size_t m) { return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    void *p = __libc_memalign(a, n);
    if (!p)
        return 12;
    *out = p;
    return 0;
}
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
__attribute__((constructor)) static void spin(void) {
    double t0 = cpu_s();
    while (cpu_s() - t0 < 0.040)
        ;
}
C
if ! "$CC" -O1 -fPIC -shared -o "$T/slowstart.so" "$T/slowstart.c" 2> "$T/cc.err"; then
    skip_all "cannot build the test library: $(head -1 "$T/cc.err")"
fi

cat > "$T/t.txt" <<'TRACE'
heapreplay-trace 1
alloc 0 100
alloc 1 200
free 0
free 1
TRACE

# 1. glibc and an in-house allocator: no preloaded library, no section
"$HR" replay "$T/t.txt" -a glibc,block -r 1 --warm-time 0 -q -f json > "$T/a.json" 2> "$T/err"
if [ "$(jget results.0.status "$T/a.json")" = ok ] && ! grep -q '"startup"' "$T/a.json"; then
    ok "glibc and block alone: no startup section"
else not_ok "glibc and block alone: no startup section" "$(jget startup "$T/a.json")"; fi

# 2. a preloaded library: the section, glibc first at 0, the library's own
#    start-up at least most of its constructor's 40 ms
"$HR" replay "$T/t.txt" -a "glibc,preload:$T/slowstart.so" -r 1 --warm-time 0 -q -f json \
    > "$T/b.json" 2> "$T/err"
runs=$(jget startup.runs "$T/b.json")
got="$(jget startup.allocators.0.allocator "$T/b.json") $(jget startup.allocators.0.cpu_s_over_glibc "$T/b.json")"
got="$got $(jget startup.allocators.1.allocator "$T/b.json")"
if [ "$got" = "glibc 0 preload" ] && [ "$runs" -ge 7 ] && [ "$runs" -le 41 ] &&
   [ "$(jget startup.allocators.1.lib "$T/b.json")" = "$T/slowstart.so" ]; then
    ok "startup section: 7-41 rounds ($runs), glibc first at 0, the preloaded library named"
else not_ok "startup section: 7-41 rounds, glibc first at 0, the preloaded library named" \
    "rounds $runs, got $got" "$(cat "$T/err")"; fi
over=$(jget startup.allocators.1.cpu_s_over_glibc "$T/b.json")
q1=$(jget startup.allocators.1.cpu_s_q1 "$T/b.json")
q3=$(jget startup.allocators.1.cpu_s_q3 "$T/b.json")
med=$(jget startup.allocators.1.cpu_s "$T/b.json")
if awk -v o="$over" -v a="$q1" -v m="$med" -v b="$q3" \
       'BEGIN { exit !(o >= 0.035 && o < 10 && a <= m && m <= b) }'; then
    ok "a 40 ms constructor shows as >= 35 ms of start-up over glibc ($over s)"
else not_ok "a 40 ms constructor shows as >= 35 ms of start-up over glibc" \
    "over $over, q1 $q1, median $med, q3 $q3"; fi
# the paired rounds' interval holds the estimate, at 95 % at least; glibc has none
lo=$(jget startup.allocators.1.cpu_s_over_glibc_lo "$T/b.json")
hi=$(jget startup.allocators.1.cpu_s_over_glibc_hi "$T/b.json")
conf=$(jget startup.allocators.1.confidence "$T/b.json")
if awk -v o="$over" -v l="$lo" -v h="$hi" -v c="$conf" \
       'BEGIN { exit !(l <= o && o <= h && l >= 0.030 && c >= 0.95 && c < 1) }' &&
   [ "$(jget startup.allocators.0.cpu_s_over_glibc_lo "$T/b.json")" = null ]; then
    ok "start-up: a signed-rank interval of the paired rounds ($lo..$hi s, $conf)"
else not_ok "start-up: a signed-rank interval of the paired rounds" "lo $lo over $over hi $hi conf $conf"; fi

# 3. the rows themselves are unaffected: both replayed ok
if [ "$(jget results.0.status "$T/b.json") $(jget results.1.status "$T/b.json")" = "ok ok" ]; then
    ok "the rows replay as before"
else not_ok "the rows replay as before" "$(cat "$T/err")"; fi

# 4. in the prediction: a trace with a program time gets the library's
#    start-up in its change (change_s = laps_s + startup_s), glibc none
printf 'heapreplay-trace 1 runs=5 timed=plain wall_ns=1000000000 cpu_ns=900000000 ' > "$T/p.txt"
printf 'cpu_min_ns=890000000 cpu_max_ns=910000000 max_rss=10485760\n' >> "$T/p.txt"
printf 'alloc 0 100\nalloc 1 200\nfree 0\nfree 1\n' >> "$T/p.txt"
"$HR" replay "$T/p.txt" -a "glibc,preload:$T/slowstart.so" -r 1 --warm-time 0 -q -f json \
    > "$T/p.json" 2> "$T/err"
st=$(jget results.1.predict.startup_s "$T/p.json")
laps=$(jget results.1.predict.laps_s "$T/p.json")
ch=$(jget results.1.predict.change_s "$T/p.json")
over=$(jget startup.allocators.1.cpu_s_over_glibc "$T/p.json")
if [ "$st" = "$over" ] && [ "$(jget results.0.predict.startup_s "$T/p.json")" = null ] &&
   awk -v s="$st" -v l="$laps" -v c="$ch" 'BEGIN { d = c - (l + s); exit !(s >= 0.035 && d * d < 1e-18) }'; then
    ok "prediction: change = laps + the library's start-up ($st s), glibc has none"
else not_ok "prediction: change = laps + the library's start-up" "startup_s $st over $over laps $laps change $ch" \
    "$(cat "$T/err")"; fi
# its range: one sample's laps (a point) shifted by the paired interval's ends
rlo=$(jget results.1.predict.replay_s_lo "$T/p.json")
rhi=$(jget results.1.predict.replay_s_hi "$T/p.json")
slo=$(jget startup.allocators.1.cpu_s_over_glibc_lo "$T/p.json")
shi=$(jget startup.allocators.1.cpu_s_over_glibc_hi "$T/p.json")
if awk -v a="$rlo" -v b="$rhi" -v l="$laps" -v x="$slo" -v y="$shi" \
       'BEGIN { exit !((a - (l + x)) ^ 2 < 1e-18 && (b - (l + y)) ^ 2 < 1e-18 && x < y) }'; then
    ok "prediction: the replay's range carries the start-up interval ($slo..$shi s)"
else not_ok "prediction: the replay's range carries the start-up interval" \
    "replay range $rlo..$rhi, laps $laps, start-up $slo..$shi"; fi
# the prediction's interval: the laps scaled (0.8x..2x), the start-up interval
# scaled by its own model error (0.9x..1.3x), the model's error on each side
ilo=$(jget results.1.predict.interval_s_lo "$T/p.json")
ihi=$(jget results.1.predict.interval_s_hi "$T/p.json")
me=$(jget results.1.predict.model_error_s "$T/p.json")
if awk -v a="$ilo" -v b="$ihi" -v l="$laps" -v x="$slo" -v y="$shi" -v m="$me" '
       function mn(p, q) { return p < q ? p : q } function mx(p, q) { return p > q ? p : q }
       BEGIN { lo = mn(0.8 * l, 2 * l) + mn(0.9 * x, 1.3 * x) - m
               hi = mx(0.8 * l, 2 * l) + mx(0.9 * y, 1.3 * y) + m
               exit !((a - lo) ^ 2 < 1e-18 && (b - hi) ^ 2 < 1e-18) }'; then
    ok "prediction: the interval scales the start-up term by its model error ($ilo..$ihi s)"
else not_ok "prediction: the interval scales the start-up term by its model error" \
    "interval $ilo..$ihi, laps $laps, start-up $slo..$shi, model error $me"; fi
"$HR" report "$T/p.json" > "$T/p.out" 2>&1
if grep -q "Process start-up, in the change" "$T/p.out" && grep -q "preload:.*+[34][0-9]\.[0-9] ms" "$T/p.out"; then
    ok "the report's prediction notes the start-up term"
else not_ok "the report's prediction notes the start-up term" "$(grep -i -A2 start-up "$T/p.out")"; fi

# 6. a --follow-forks capture's processes together: the parent (the whole
#    run's time) and two children named as capture names them; the whole
#    program's change is the sum of the three, with three start-up terms
mkdir -p "$T/ff"
for f in p.hrtt p.101.hrtt p.102.hrtt; do cp "$T/p.txt" "$T/ff/$f"; done
"$HR" replay "$T/ff" -a "glibc,preload:$T/slowstart.so" -r 1 --warm-time 0 -q -f json \
    > "$T/ff.json" 2> "$T/err"
w="$(jget whole_program.0.processes "$T/ff.json") $(jget whole_program.0.allocators.1.allocator "$T/ff.json")"
sum=$(for i in 0 1 2 3 4 5; do
    [ "$(jget results.$i.allocator "$T/ff.json")" = glibc ] || jget results.$i.predict.change_s "$T/ff.json"
done | awk '$1 != "null" { s += $1 } END { printf "%.9f", s }')
wc=$(jget whole_program.0.allocators.1.change_s "$T/ff.json")
wst=$(jget whole_program.0.allocators.1.startup_s "$T/ff.json")
ov=$(jget startup.allocators.1.cpu_s_over_glibc "$T/ff.json")
if [ "$w" = "3 preload:$T/slowstart.so" ] && awk -v a="$sum" -v b="$wc" -v s="$wst" -v o="$ov" \
       'BEGIN { exit !((a - b) ^ 2 < 1e-12 && (s - 3 * o) ^ 2 < 1e-12) }'; then
    ok "whole program: 3 processes, the sum of their changes, 3 start-up terms"
else not_ok "whole program: 3 processes, the sum of their changes, 3 start-up terms" \
    "got '$w', sum $sum vs $wc, start-up $wst vs 3 x $ov" "$(cat "$T/err")"; fi
"$HR" report "$T/ff.json" > "$T/ff.out" 2>&1
if grep -q "^Whole program: $T/ff/p.hrtt and its 2 child processes" "$T/ff.out"; then
    ok "the report shows the whole program"
else not_ok "the report shows the whole program" "$(grep -A3 Whole "$T/ff.out")"; fi
# its two answers: (b) from the whole change against the parent's noise (the
# whole tree's runs: the parent's own rows carry the same noise_s), and the
# largest process's peak RSS against glibc's; the parent's verdict is the
# whole program's (a real cost of three start-ups: keep glibc)
pn=null
for i in 0 1 2 3 4 5; do
    [ "$(jget results.$i.trace "$T/ff.json")" = "$T/ff/p.hrtt" ] &&
        [ "$(jget results.$i.allocator "$T/ff.json")" != glibc ] && pn=$(jget results.$i.predict.noise_s "$T/ff.json")
done
wn=$(jget whole_program.0.allocators.1.noise_s "$T/ff.json")
wr=$(jget whole_program.0.allocators.1.runs_to_see "$T/ff.json")
m0=$(jget whole_program.0.allocators.0.max_rss "$T/ff.json")
m1=$(jget whole_program.0.allocators.1.max_rss "$T/ff.json")
dm=$(jget whole_program.0.allocators.1.max_rss_change_bytes "$T/ff.json")
if [ "$pn" != null ] && [ "$wn" = "$pn" ] && [ "$(jget whole_program.0.allocators.1.noise_basis "$T/ff.json")" = range ] &&
   awk -v c="$wc" -v n="$wn" -v r="$wr" -v a="$m0" -v b="$m1" -v d="$dm" '
       BEGIN { k = (n / c) ^ 2; k = k < 1 ? 1 : int(k) + (k > int(k))
               exit !(r == k && a > 0 && b > 0 && d == b - a) }'; then
    ok "whole program: (b) against the parent's noise ($wn s: $wr run), the largest process's RSS"
else not_ok "whole program: (b) against the parent's noise, the largest process's RSS" \
    "noise $wn (parent's $pn), runs $wr for $wc, max_rss $m0 / $m1, change $dm"; fi
if awk -v t="trace $T/ff/p.hrtt:" 'index($0, t) == 1 { on = 1 } on && /^keep / { print; exit }' "$T/ff.out" |
       grep -q "^keep glibc: no allocator's saving is real (the whole program: 3 processes)" &&
   head -n 12 "$T/ff.out" | grep -q "^keep glibc: no allocator's saving is real (the whole program"; then
    ok "the parent's verdict answers for the whole program, and opens the report"
else not_ok "the parent's verdict answers for the whole program, and opens the report" \
    "$(grep -E "^(keep|ship|no allocator)|^  preload" "$T/ff.out")"; fi

# every format carries the whole program's answers: the CSV its own section
# (one row per allocator), Markdown and the HTML page its block
"$HR" report "$T/ff.json" -f csv > "$T/ff.csv" 2> "$T/err"
"$HR" report "$T/ff.json" -f md > "$T/ff.md" 2>> "$T/err"
"$HR" report "$T/ff.json" -f html > "$T/ff.html" 2>> "$T/err"
rows=$(awk '/^# whole_program$/ { on = 1; next } on && /^trace,processes,cpu_s,allocator,change_s,/ { hd = 1; next }
            on && hd && NF { n++ } END { print n + 0 }' "$T/ff.csv")
if [ "$rows" = 2 ] && grep -q ",preload:.*,cost,[0-9.e-]*,1,[0-9]*,[0-9-]*$" "$T/ff.csv" &&
   grep -q "^### Whole program: $T/ff/p.hrtt" "$T/ff.md" && grep -q "^- preload:.* real cost; one run shows it$" "$T/ff.md" &&
   grep -q "Whole program: $T/ff/p.hrtt and its 2 child processes" "$T/ff.html" &&
   grep -q "keep glibc: no allocator[^ ]*s saving is real (the whole program: 3 processes)" "$T/ff.html"; then
    ok "the whole program in CSV (its section), Markdown and HTML"
else not_ok "the whole program in CSV (its section), Markdown and HTML" "csv rows $rows" \
    "$(grep -A3 whole_program "$T/ff.csv")" "$(cat "$T/err")"; fi

# 6b. the same family compressed after the capture (gzip keeps the names'
#     .PID part before .hrt.gz): still one whole program of 2 processes
mkdir -p "$T/fz"
"$HR" convert "$T/p.txt" -o "$T/fz/q.hrt" > /dev/null 2>&1
cp "$T/fz/q.hrt" "$T/fz/q.101.hrt"
gzip "$T/fz/q.hrt" "$T/fz/q.101.hrt"
"$HR" replay "$T/fz/q.hrt.gz" "$T/fz/q.101.hrt.gz" -a "glibc,preload:$T/slowstart.so" -r 1 \
    --warm-time 0 -q -f json > "$T/fz.json" 2> "$T/err"
w="$(jget whole_program.0.trace "$T/fz.json") $(jget whole_program.0.processes "$T/fz.json")"
if [ "$w" = "$T/fz/q.hrt.gz 2" ]; then ok "whole program: compressed traces pair as the plain ones do"
else not_ok "whole program: compressed traces pair as the plain ones do" "got '$w'" "$(cat "$T/err")"; fi

# 7. an unreadable library: its row fails on its own, no probe of it
"$HR" replay "$T/t.txt" -a "glibc,preload:$T/none.so" -r 1 --warm-time 0 -q -f json \
    > "$T/c.json" 2> "$T/err"
if ! grep -q '"startup"' "$T/c.json"; then ok "an unreadable library: no start-up probe"
else not_ok "an unreadable library: no start-up probe" "$(jget startup "$T/c.json")"; fi
tap_done
