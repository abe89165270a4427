#!/usr/bin/env python3
"""The arithmetic of bench/startup/startup.sh.

  startup.py real ROUNDS NLIBS ALLOC=LIB... PROG=ARGV...   rounds of real runs:
      "program allocator round cpu_s" lines (ARGV: words ended by \\x1f)
  startup.py replay PROG REPORT.json    "program allocator processes change_s lo_s
      hi_s laps_s startup_s" lines from a replay's report (its whole_program
      section when the capture made several processes)
  startup.py report REAL.tsv REPLAY.tsv "ALLOCS"   the results' tables (Markdown)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fidelity"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from fidelity_report import median, paired_change  # noqa: E402
from hr_run import run_preloaded  # noqa: E402


def run_once(argv, lib):
    """CPU seconds (user + system, wait4: the process and what it waited for)."""
    code, ru = run_preloaded(argv, lib)
    if code != 0:
        sys.exit("startup.py: %s under %s failed (exit %d)" % (argv[0], lib or "glibc", code))
    return ru.ru_utime + ru.ru_stime


def real(args):
    rounds, nlibs = int(args[0]), int(args[1])
    libs = [a.split("=", 1) for a in args[2:2 + nlibs]]
    progs = [(p.split("=", 1)[0], p.split("=", 1)[1].split("\x1f")[:-1]) for p in args[2 + nlibs:]]
    for r in range(1, rounds + 1):
        for name, argv in progs:
            # the allocators' order turns by one each round: on programs of a
            # few ms the first run after another program's is the slower
            # (caches), which a fixed order would charge to one allocator
            k = r % len(libs)
            for alloc, lib in libs[k:] + libs[:k]:
                print("%s\t%s\t%d\t%.6f" % (name, alloc, r, run_once(argv, lib)), flush=True)


def replay(args):
    prog, path = args
    doc = json.load(open(path))
    whole = doc.get("whole_program") or []
    if whole:
        w = whole[0]
        for a in w["allocators"]:
            st = a.get("startup_s") or 0
            print("%s\t%s\t%d\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f" % (
                prog, a["allocator"], w["processes"], a["change_s"], a["interval_s_lo"],
                a["interval_s_hi"], a["change_s"] - st, st))
        return
    for r in doc["results"]:
        p = r.get("predict")
        if not p:
            continue
        st = p.get("startup_s") or 0
        print("%s\t%s\t1\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f" % (
            prog, r["allocator"], p["change_s"], p["interval_s_lo"], p["interval_s_hi"],
            p["change_s"] - st, st))


def ms(x):
    return "%+.2f" % (x * 1e3)


def report(args):
    real_path, replay_path, allocs = args[0], args[1], args[2].split()
    runs = {}
    for line in open(real_path):
        p, a, r, cpu = line.split("\t")
        runs.setdefault(p, {}).setdefault(a, {})[int(r)] = float(cpu)
    rep = {}
    for line in open(replay_path):
        f = line.rstrip("\n").split("\t")
        rep[(f[0], f[1])] = (int(f[2]),) + tuple(float(x) for x in f[3:])
    probe, inside, total = {}, 0, 0
    print("Real: the program's CPU (user + system, wait4) under `LD_PRELOAD`, median over the")
    print("rounds, and its change against glibc: the Hodges-Lehmann estimate of the rounds' paired")
    print("differences with its exact signed-rank 95 % interval. Predicted: the replay's report")
    print("(`predict.change_s`, or `whole_program` for several processes), its laps' part and")
    print("its start-up part (the probe's term once per process). *Real less laps*: the real")
    print("change less the replay's laps' part, the start-up the program really paid as far as")
    print("the laps hold its allocations; *per process* that over the processes; */ probe*: that")
    print("over the probe's own measured change in this run (1: the term fits the program).")
    print()
    print("| program | allocator | processes | real CPU ms | real change ms [95 %] | predicted ms [interval] "
          "| laps ms | start-up ms | real less laps ms | per process ms | / probe |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in runs:
        g = runs[p].get("glibc", {})
        for a in allocs:
            x = runs[p].get(a, {})
            rounds = sorted(set(x) & set(g))
            if a == "glibc" or not rounds:
                continue
            est, lo, hi = paired_change([x[r] for r in rounds], [g[r] for r in rounds])
            ci = "[%s, %s]" % (ms(lo), ms(hi)) if lo is not None else "[-]"
            if p == "probe":
                probe[a] = est
                print("| probe | %s | 1 | %.2f | %s %s | - | - | - | - | %s | 1 |" % (
                    a, median(list(x.values())) * 1e3, ms(est), ci, ms(est)))
                continue
            pr = rep.get((p, a))
            if not pr:
                continue
            n, ch, plo, phi, laps, st = pr
            rest = est - laps
            total += 1
            inside += plo <= est <= phi
            # a term under 50 us (mimalloc's) gives no ratio worth reading
            ratio = "%.2f" % (rest / n / probe[a]) if abs(probe.get(a, 0)) >= 50e-6 else "-"
            print("| %s | %s | %d | %.2f | %s %s | %s [%s, %s] | %s | %s | %s | %s | %s |" % (
                p, a, n, median(list(x.values())) * 1e3, ms(est), ci, ms(ch), ms(plo), ms(phi),
                ms(laps), ms(st), ms(rest), ms(rest / n), ratio))
    print()
    print("The real change lies inside the report's interval for %d of %d (program, allocator) rows." %
          (inside, total))


def main(argv):
    cmds = {"real": real, "replay": replay, "report": report}
    if len(argv) < 2 or argv[1] not in cmds:
        sys.stderr.write(__doc__)
        return 2
    cmds[argv[1]](argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
