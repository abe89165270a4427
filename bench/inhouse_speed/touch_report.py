#!/usr/bin/env python3
"""touch_order.sh's table from its raw lines (round, trace, touch, allocator,
warm ns/op): per trace and allocator, the warm ns/op with --touch first and
--touch none, each over mimalloc's in the same replay call, and the first
write's cost per op (first - none of the same allocator in the same round);
median [min-max] over the rounds."""
import collections
import statistics
import sys


def cell(xs, fmt="%.2f"):
    if not xs:
        return "-"
    return (fmt + " [" + fmt + "-" + fmt + "]") % (statistics.median(xs), min(xs), max(xs))


def main():
    ns = {}  # (round, trace, touch, alloc) -> ns/op
    order = []
    for line in open(sys.argv[1]):
        rnd, trace, touch, alloc, v = line.rstrip("\n").split("\t")
        ns[(rnd, trace, touch, alloc)] = float(v)
        if (trace, alloc) not in order:
            order.append((trace, alloc))
    rounds = sorted({k[0] for k in ns}, key=int)
    print("| trace | allocator | first ns/op | first / mimalloc | none ns/op | none / mimalloc "
          "| the write's cost, ns/op |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for trace, alloc in order:
        row = collections.defaultdict(list)
        for r in rounds:
            got = {t: ns.get((r, trace, t, alloc)) for t in ("first", "none")}
            base = {t: ns.get((r, trace, t, "mimalloc")) for t in ("first", "none")}
            for t in ("first", "none"):
                if got[t] is not None:
                    row[t].append(got[t])
                    if base[t]:
                        row[t + "/m"].append(got[t] / base[t])
            if got["first"] is not None and got["none"] is not None:
                row["cost"].append(got["first"] - got["none"])
        ratio = (lambda k: "1" if alloc == "mimalloc" else cell(row[k]))
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            trace, alloc, cell(row["first"], "%.1f"), ratio("first/m"), cell(row["none"], "%.1f"),
            ratio("none/m"), cell(row["cost"])))
    print()
    print("%d rounds. ns/op: CPU ns of the median warm lap per op (time.ns_per_op); "
          "`/ mimalloc`: over mimalloc's in the same replay call; the write's cost: first - none "
          "of one allocator in one round. Median [min-max] over the rounds." % len(rounds))


if __name__ == "__main__":
    main()
