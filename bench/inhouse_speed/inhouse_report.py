#!/usr/bin/env python3
"""Table of bench/inhouse_speed/inhouse_speed.sh: reads its raw lines
(round, trace, side, allocator, warm ns/op) and prints, per trace and
in-house allocator, the median [min-max] over rounds of ns/op and of the
ratio to mimalloc's ns/op in the same replay call, old and new side.
With --count the figure is callgrind's instructions per op (one round)."""
import statistics
import sys
from collections import defaultdict

count = sys.argv[1] == "--count"
unit = "instr/op" if count else "ns/op"
ns = {}                    # (round, trace, side, alloc) -> ns/op
for line in open(sys.argv[-1]):
    rnd, trace, side, alloc, v = line.rstrip("\n").split("\t")
    if v:
        ns[(rnd, trace, side, alloc)] = float(v)

cells = defaultdict(list)  # (trace, alloc, side, "ns"|"ratio") -> values
order = []
for (rnd, trace, side, alloc), v in ns.items():
    if alloc == "mimalloc":
        continue
    if (trace, alloc) not in order:
        order.append((trace, alloc))
    cells[(trace, alloc, side, "ns")].append(v)
    m = ns.get((rnd, trace, side, "mimalloc"))
    if m:
        cells[(trace, alloc, side, "ratio")].append(v / m)
    mm = cells[(trace, "mimalloc", side, "ns")]
    if m and len(mm) < len(cells[(trace, alloc, side, "ns")]):
        mm.append(m)


def fmt(vals, digits):
    if not vals:
        return "-"
    f = "%%.%df" % digits
    if min(vals) == max(vals):
        return f % vals[0]
    return (f + " [" + f + "-" + f + "]") % (statistics.median(vals), min(vals), max(vals))


sides = [s for s in ("old", "new") if any(k[2] == s for k in cells)]
head = ["trace", "allocator"]
for s in sides:
    head += [s + " " + unit, s + " / mimalloc"]
if len(sides) == 2:
    head.append("new / old (median ratio)")
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for trace in dict.fromkeys(t for t, _ in order):
    for alloc in ["mimalloc"] + [a for t, a in order if t == trace]:
        row = [trace, alloc]
        for s in sides:
            row.append(fmt(cells[(trace, alloc, s, "ns")], 1))
            row.append("1" if alloc == "mimalloc" else fmt(cells[(trace, alloc, s, "ratio")], 2))
        if len(sides) == 2:
            o, n = cells[(trace, alloc, "old", "ratio")], cells[(trace, alloc, "new", "ratio")]
            row.append("%.2f" % (statistics.median(n) / statistics.median(o)) if o and n else "")
        print("| " + " | ".join(row) + " |")
n = len({k[0] for k in ns})
print()
if count:
    print("instr/op: instructions of the allocator's calls per op under callgrind"
          " (count.per_op of --count callgrind; one replay, deterministic);"
          " `/ mimalloc`: that figure over mimalloc's in the same replay call."
          " It does not include the replay loop around the calls.")
else:
    print("%d rounds. ns/op: CPU ns of the median warm lap per op (time.ns_per_op);"
          " `/ mimalloc`: that figure over mimalloc's in the same replay call;"
          " median [min-max] over the rounds. A ratio at or below 1 is at or"
          " below mimalloc's warm cost." % n)
