#!/usr/bin/env python3
"""The arithmetic of bench/paced/paced.sh: reads its rows (program, allocator,
round, real max RSS KiB, paced-lap peak RSS bytes, fast-lap peak RSS bytes,
memory lap) and prints, per program, a Markdown table: each allocator's real
change of max RSS against glibc and the change each lap predicts (medians of
the per-round differences, rounds paired), with each prediction's error.

  paced_report.py ROWS.tsv"""
import statistics
import sys

MIB = 1024.0 * 1024.0


def load(path):
    rows = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 7 or f[4] in ("", "null") or f[5] in ("", "null"):
            continue
        prog, alloc, rnd = f[0], f[1], int(f[2])
        rows.setdefault(prog, {}).setdefault(alloc, {})[rnd] = (
            int(f[3]) * 1024.0, float(f[4]), float(f[5]), f[6])
    return rows


def diffs(per, base, k):
    """The per-round differences of figure k against the baseline's, MiB."""
    return [(per[r][k] - base[r][k]) / MIB for r in sorted(per) if r in base]


def fmt(v):
    return "%+.1f" % v


def table(prog, allocs):
    base = allocs.get("glibc")
    if not base:
        print("%s: no glibc rows, nothing to compare\n" % prog)
        return
    laps = sorted({v[3] for a in allocs.values() for v in a.values()})
    print("## %s (memory lap of the rows: %s)\n" % (prog, ", ".join(laps)))
    print("| allocator | real max RSS MiB (median) | real change | paced predicts "
          "| error | fast predicts | error | rounds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    errs = {"paced": [], "fast": []}
    signs = {"paced": 0, "fast": 0}
    for a in sorted(allocs, key=lambda x: (x != "glibc", x)):
        per = allocs[a]
        real_abs = statistics.median(v[0] for v in per.values()) / MIB
        if a == "glibc":
            print("| glibc | %.1f | baseline | | | | | %d |" % (real_abs, len(per)))
            continue
        real = statistics.median(diffs(per, base, 0))
        paced = statistics.median(diffs(per, base, 1))
        fast = statistics.median(diffs(per, base, 2))
        rr = diffs(per, base, 0)
        for name, v in (("paced", paced), ("fast", fast)):
            errs[name].append(abs(v - real))
            signs[name] += (v > 0) == (real > 0)
        print("| %s | %.1f | %s (%s..%s) | %s | %.1f | %s | %.1f | %d |" % (
            a, real_abs, fmt(real), fmt(min(rr)), fmt(max(rr)), fmt(paced),
            abs(paced - real), fmt(fast), abs(fast - real), len(rr)))
    n = len(errs["paced"])
    print()
    for name in ("paced", "fast"):
        if n:
            print("- %s lap: mean absolute error %.1f MiB, right sign %d of %d" % (
                name, sum(errs[name]) / n, signs[name], n))
    print()


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: paced_report.py ROWS.tsv\n")
        return 2
    rows = load(argv[1])
    for prog in rows:
        table(prog, rows[prog])
    print("Changes are MiB against glibc, the median of the per-round differences "
          "(real: range of the rounds in brackets). The paced and fast figures come "
          "from the same measure worker of each row (memory.peak_rss and "
          "memory.peak_rss_fast).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
