#!/usr/bin/env bash
# bench/sites/plan.sh [HEAPREPLAY] [OUT.md]: a routing plan by call site,
# proven by replay (docs/SITES.md), on a synthetic game trace with stacks
# (tests/cli/sites_game.awk at 3000 frames: 40 LIFO temporaries and 6
# 48-byte entities living 90 frames per frame, 2000 blocks of level data).
# For each general allocator X: X alone, X behind the plan, X behind the
# oracle composition stack+marker+bank+X; allocator time (cold lap and warm
# laps, ns/op), peak footprint and peak RSS, and the plan's saving over X
# alone. Also the bytes the stacks add per event to the binary trace.
set -eu
HR=${1:-./heapreplay}
OUT=${2:-results/sites-plan-vm.md}
ALLOCS=${ALLOCS:-glibc,mimalloc,jemalloc,tcmalloc}
REPEAT=${REPEAT:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_sites_bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
awk -v FRAMES=3000 -v TEMPS=40 -v ENTS=6 -v LIFE=90 -v LEVEL=2000 \
    -f "$here/tests/cli/sites_game.awk" > "$T/game.txt"
grep -v '^at \|^stack ' "$T/game.txt" | sed 's/ s=[0-9]*//' > "$T/plain.txt"
"$HR" convert "$T/game.txt" -o "$T/game.hrt" > /dev/null
"$HR" convert "$T/plain.txt" -o "$T/plain.hrt" > /dev/null
"$HR" sites "$T/game.hrt" -f md > "$T/sites.md"
"$HR" plan "$T/game.hrt" -o "$T/game.plan" > "$T/plan.txt"
"$HR" replay -q --plan="$T/game.plan" -a "$ALLOCS" -r "$REPEAT" "$T/game.hrt" -o "$T/r.json" > /dev/null
events=$("$HR" info "$T/plain.hrt" | awk '$1 == "events" {print $2}')
with=$(stat -c %s "$T/game.hrt")
without=$(stat -c %s "$T/plain.hrt")
python3 - "$T/r.json" "$OUT" "$events" "$with" "$without" "$T/sites.md" "$T/game.plan" "$REPEAT" "$ALLOCS" << 'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
out, events, with_, without = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rows = doc["results"]
m = doc.get("machine", {})
def fig(r):
    t, mem = r.get("time", {}), r.get("memory", {})
    return (t.get("cold_ns_per_op"), t.get("ns_per_op"), mem.get("peak_footprint"), mem.get("peak_rss"))
lines = []
w = lines.append
w("# A routing plan by call site, proven by replay (synthetic game trace)\n")
w("Command: `bench/sites/plan.sh` (ALLOCS=%s, REPEAT=%s): `heapreplay plan game.hrt -o game.plan`, "
  "then `heapreplay replay --plan=game.plan -a %s -r %s game.hrt`; game.hrt from "
  "`awk -v FRAMES=3000 -v TEMPS=40 -v ENTS=6 -v LIFE=90 -v LEVEL=2000 -f tests/cli/sites_game.awk`.\n"
  % (sys.argv[9], sys.argv[8], sys.argv[9], sys.argv[8]))
w("Machine: %s; created %s. A shared 2-core VM: compare ratios within this file.\n"
  % (m.get("cpu", m.get("model", "?")), doc.get("created", "?")))
w("## Stacks in the trace\n")
w("%d events; binary trace %d bytes with stacks, %d without: %.3f bytes per event for the "
  "stacks block (site ids delta-coded per allocating event).\n"
  % (events, with_, without, (with_ - without) / events))
w("## Sites (heapreplay sites)\n")
w(open(sys.argv[6]).read())
w("\n## The plan (heapreplay plan)\n\n```")
w("".join(l for l in open(sys.argv[7]) if not l.startswith("skip ")).rstrip())
w("```\n")
w("## Replay: each allocator alone, behind the plan, behind the oracle composition\n")
w("| allocator | row | cold ns/op | warm ns/op | peak footprint | peak RSS | violations |")
w("|---|---|---:|---:|---:|---:|---:|")
savings = []
for i in range(0, len(rows) - 2, 3):
    base, plan, orc = rows[i], rows[i + 1], rows[i + 2]
    for name, r in (("alone", base), ("plan", plan), ("oracle", orc)):
        c, wn, fp, rss = fig(r)
        viol = sum(x["violations"] for x in r.get("routing", {}).get("rules", [])) if name == "plan" else ""
        w("| %s | %s | %s | %s | %s | %s | %s |" % (base["allocator"], name,
          "%.1f" % c if c else "-", "%.1f" % wn if wn else "-", fp if fp is not None else "-",
          rss if rss is not None else "-", viol))
    cb, wb, fb, _ = fig(base)
    cp, wp, fpn, _ = fig(plan)
    co, wo, fo, _ = fig(orc)
    if cb and cp and co and wb and wp and wo:
        savings.append((base["allocator"], 1 - cp / cb, 1 - co / cb, 1 - wp / wb, 1 - wo / wb))
w("\n## Saving over the allocator alone\n")
w("| allocator | plan, cold | oracle, cold | plan, warm | oracle, warm |")
w("|---|---:|---:|---:|---:|")
for a, pc, oc, pw, ow in savings:
    w("| %s | %+.0f%% | %+.0f%% | %+.0f%% | %+.0f%% |" % (a, 100 * pc, 100 * oc, 100 * pw, 100 * ow))
w("\nA positive saving is less allocator time than the allocator alone. Peak footprint of a "
  "composition row ending in an external allocator counts the external allocator's own "
  "footprint plus the in-house parts' (docs/METRICS.md, Compositions).")
open(out, "w").write("\n".join(lines) + "\n")
PY
echo "wrote $OUT"
