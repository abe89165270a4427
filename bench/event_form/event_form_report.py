#!/usr/bin/env python3
"""Table of bench/event_form/event_form.sh: per trace and allocator, packed / decoded
ns/op (warm and cold) per round, as median [min-max] over the rounds.

usage: event_form_report.py WORKDIR TRACE...   (reads WORKDIR/NAME.FORM.R.json)"""
import glob
import json
import os
import statistics
import sys


def rows(path):
    out = {}
    with open(path) as f:
        for r in json.load(f)["results"]:
            t = r.get("time", {})
            out[r["allocator"]] = (t.get("ns_per_op"), t.get("cold_ns_per_op"), r.get("event_form"))
    return out


def fmt(v):
    if not v:
        return "-"
    return "%.3f [%.3f-%.3f]" % (statistics.median(v), min(v), max(v))


def main():
    work, traces = sys.argv[1], sys.argv[2:]
    print("Ratio = packed / decoded ns/op of the same round (1.000: no difference);")
    print("median [min-max] over the rounds. *within noise*: the range holds 1.")
    print()
    for tr in traces:
        name = os.path.basename(tr)
        rounds = sorted(glob.glob(os.path.join(work, name + ".decoded.*.json")))
        print("## %s (%d rounds)" % (name, len(rounds)))
        print()
        print("| allocator | decoded warm ns/op | packed warm ns/op | warm ratio | cold ratio | within noise |")
        print("|---|---:|---:|---:|---:|---|")
        per = {}
        for d in rounds:
            r = d.rsplit(".", 2)[1]
            p = os.path.join(work, "%s.packed.%s.json" % (name, r))
            if not os.path.exists(p):
                continue
            a, b = rows(d), rows(p)
            for alloc in a:
                if alloc not in b or None in a[alloc][:2] or None in b[alloc][:2]:
                    continue
                e = per.setdefault(alloc, {"dw": [], "pw": [], "w": [], "c": []})
                e["dw"].append(a[alloc][0])
                e["pw"].append(b[alloc][0])
                e["w"].append(b[alloc][0] / a[alloc][0])
                e["c"].append(b[alloc][1] / a[alloc][1])
        for alloc, e in per.items():
            noise = all(min(v) <= 1.0 <= max(v) for v in (e["w"], e["c"]))
            print("| %s | %.2f | %.2f | %s | %s | %s |" % (
                alloc, statistics.median(e["dw"]), statistics.median(e["pw"]),
                fmt(e["w"]), fmt(e["c"]), "yes" if noise else "no"))
        print()


if __name__ == "__main__":
    main()
