#!/usr/bin/env bash
# The table across traces (docs/REPORTS.md, "Across traces"): its geometric
# means equal those computed here, independently, with python3 from the
# report's results: per trace, each ranked allocator's cold ns/op and peak
# RSS divided by glibc's, an unstable or mostly-fallback row left out; the
# geometric mean over the traces. Checked on the hand-made report
# tests/data/reports/crosstrace.json (text and Markdown tables) and on a
# replay of two shipped traces (the report's "cross_trace" section). A
# report of one trace has neither. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
HR="$top_builddir/heapreplay"
FX="$srcdir/tests/data/reports/crosstrace.json"
[ -x "$HR" ] || skip_all "$HR not built"
command -v python3 >/dev/null || skip_all "no python3 to compute the means independently"
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_crosstrace.XXXXXX") || exit 1
[ -n "${HR_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT

# expected REPORT: "allocator time_geomean rss_geomean" per allocator with a
# cell, from the results alone (all traces here rank by the cold lap)
expected() {
    python3 - "$1" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
by = {}
for r in d["results"]:
    by.setdefault(r["trace"], []).append(r)
t_logs, m_logs = {}, {}
for trace, rows in by.items():
    ref = [r for r in rows if r["allocator"] == "glibc" and r["status"] == "ok"]
    if not ref:
        continue
    g = ref[0]
    for r in rows:
        ranked = (r["status"] == "ok" and not r.get("unstable") and not r.get("mostly_fallback")
                  and "cold_ns_per_op" in r.get("time", {}))
        if r is not g and not ranked:
            continue
        a = r["allocator"]
        t_logs.setdefault(a, []).append(math.log(r["time"]["cold_ns_per_op"] / g["time"]["cold_ns_per_op"]))
        m_logs.setdefault(a, []).append(math.log(r["memory"]["peak_rss"] / g["memory"]["peak_rss"]))
for a in sorted(t_logs):
    print(a, repr(math.exp(sum(t_logs[a]) / len(t_logs[a]))), repr(math.exp(sum(m_logs[a]) / len(m_logs[a]))))
EOF
}

"$HR" report "$FX" > "$T/fx.txt" 2> "$T/err"
expected "$FX" > "$T/exp"
# the text table's geomean column is the third field from the end
# ("0.79  0.74..0.84  1 of 3"), or second ("1.00  -  reference", "unknown")
python3 - "$T/fx.txt" "$T/exp" > "$T/cmp" 2>&1 <<'EOF'
import sys
text = open(sys.argv[1]).read().split("\n")
exp = {l.split()[0]: (float(l.split()[1]), float(l.split()[2])) for l in open(sys.argv[2]) if l.strip()}
def geomeans(title):
    out, on = {}, False
    for line in text:
        if line.startswith(title):
            on = True
            continue
        if on and not line:
            break
        if on and not line.startswith(("allocator", "---")):
            f = line.split()
            i = -3 if f[-1] in ("reference", "unknown") else -5
            out[f[0]] = f[i]
    return out
bad = 0
for title, k in (("Across traces: time", 0), ("Across traces: peak RSS", 1)):
    got = geomeans(title)
    for a, v in exp.items():
        want = "%.2f" % v[k]
        if got.get(a) != want:
            print("%s %s: table %s, computed %s" % (title, a, got.get(a), want))
            bad += 1
    if set(got) != set(exp):
        print("%s: rows %s, computed %s" % (title, sorted(got), sorted(exp)))
        bad += 1
print("bad", bad)
EOF
if grep -q '^bad 0$' "$T/cmp" && [ "$(wc -l < "$T/exp")" = 3 ]; then
    ok "hand-made report: the text table's geomeans are the independently computed ones"
else
    not_ok "hand-made report: geomeans" "$(cat "$T/cmp" "$T/err")" "$(sed -n '/^Across/,$p' "$T/fx.txt")"
fi
# a: (0.6 * 0.9 * 0.9)^(1/3) = 0.7862; b: unstable on t2, (1.5 * 1.6)^(1/2) = 1.5492
if grep -q '^a 0\.786' "$T/exp" && grep -q '^b 1\.549' "$T/exp"; then
    ok "hand-made report: the computation itself (a 0.786, b 1.549 over its 2 ranked traces)"
else
    not_ok "hand-made report: the computation itself" "$(cat "$T/exp")"
fi

"$HR" report -f md "$FX" > "$T/fx.md"
if grep -q '^| a | 0.60 | ≈0.90 | 0.90 | 0.79 | 0.74..0.84 | 1 of 3 |$' "$T/fx.md" &&
   grep -q '^| b | 1.50 | - | 1.60 | 1.55 |' "$T/fx.md"; then
    ok "Markdown: the same table (a cell within noise marked, an unranked one empty)"
else
    not_ok "Markdown table" "$(grep -A6 'Across traces: time' "$T/fx.md")"
fi

# a replay of two shipped traces: the JSON section against the results
set -- "$srcdir/traces/particles.hrt" "$srcdir/traces/strings.hrt"
if [ -f "$1" ] && [ -f "$2" ]; then
    "$HR" replay -a glibc,block,bank -r 3 --warm-time 0 -q -o "$T/r.json" "$@" > /dev/null 2> "$T/err"
    rc=$?
    expected "$T/r.json" > "$T/exp2"
    python3 - "$T/r.json" "$T/exp2" > "$T/cmp2" 2>&1 <<'EOF'
import json, sys
x = json.load(open(sys.argv[1])).get("cross_trace") or {}
exp = {l.split()[0]: (float(l.split()[1]), float(l.split()[2])) for l in open(sys.argv[2]) if l.strip()}
got = {a["allocator"]: (a["time"]["geomean"], a["peak_rss"]["geomean"]) for a in x.get("allocators", [])}
bad = 0 if set(got) == set(exp) and x.get("reference") == "glibc" and len(x.get("traces", [])) == 2 else 1
for a, v in exp.items():
    g = got.get(a, (float("nan"),) * 2)
    bad += any(not abs(g[k] - v[k]) <= 1e-9 * v[k] for k in (0, 1))
print("bad", bad, got, exp)
EOF
    if [ "$rc" = 0 ] && grep -q '^bad 0 ' "$T/cmp2"; then
        ok "replay of 2 traces: the report's cross_trace geomeans equal the computed ones"
    else
        not_ok "replay: cross_trace geomeans (exit $rc)" "$(cat "$T/cmp2" "$T/err" | head -5)"
    fi
    "$HR" replay -a glibc,block -r 1 --warm-time 0 -q -o "$T/one.json" "$1" > "$T/one.txt" 2> "$T/err"
    if ! grep -q '"cross_trace"' "$T/one.json" && ! grep -q '^Across traces' "$T/one.txt"; then
        ok "a report of one trace has no table across traces"
    else
        not_ok "one trace: no table across traces"
    fi
else
    skip "replay of shipped traces" "traces/particles.hrt or traces/strings.hrt missing"
    skip "one trace" "traces/particles.hrt missing"
fi
tap_done
