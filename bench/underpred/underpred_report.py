#!/usr/bin/env python3
"""The tables of results/underpred-*.md from bench/underpred/underpred.sh's
raw values.

  underpred_report.py REAL_TSV REPLAY_TSV "ALLOCATORS"

REAL_TSV: program allocator round cpu_s max_rss_kb minflt (one real run).
REPLAY_TSV: program model round allocator ops cold_cpu_s warm_cpu_s change_s
startup_s real lo_s hi_s cold_samples warm_samples (one replay's row).

Per program and allocator against glibc:
- real: the Hodges-Lehmann change of the rounds' paired differences (round
  r's run on the allocator minus round r's on glibc) with its exact
  signed-rank 95 % interval, as bench/fidelity/fidelity_report.py computes
  it; beyond noise when the interval excludes 0
- per model: the median over the rounds of the replay's predicted change
  (predict.change_s: the cold laps' paired difference plus start-up), its
  range over the rounds (the stability of one replay's prediction), and
  the share of the base model's gap to the real change that the model
  closes: (model - base) / (real - base)
- from the base replays: `warm` (the warm laps' median CPU instead of the
  cold lap's, plus the same start-up), `mix` (their mean) and `pool3` (the
  median of the paired cold-lap differences of three consecutive rounds'
  replays: what one replay with three times the repeats gives)
- rho: Spearman between the real and the predicted order of the allocators
  (glibc at 0 in both)
- (a) agrees: the report's answer "is the change real?" (saving, cost or
  none from the replay's interval) against the real one, over the rounds
"""
import math
import os
import statistics as st
import sys
from collections import defaultdict

# the fidelity benchmark's paired test and rank correlation, so that both
# benchmarks call a change real by the same rule
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fidelity"))
from fidelity_report import paired_change, spearman  # noqa: E402


def ms(x, sign=True):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return ("%+.0f" if sign else "%.0f") % (x * 1e3)


def verdict(lo, hi):
    return "saving" if hi < 0 else "cost" if lo > 0 else "none"


def load(real_path, rep_path):
    real = defaultdict(dict)  # (prog, alloc) -> round -> (cpu, rss, flt)
    for line in open(real_path):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 6:
            real[(f[0], f[1])][int(f[2])] = (float(f[3]), float(f[4]), float(f[5]))
    rep = defaultdict(dict)  # (prog, model, alloc) -> round -> row
    for line in open(rep_path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 14:
            continue
        cold = [float(x) for x in f[12].split(",") if x]
        warm = [float(x) for x in f[13].split(",") if x]
        rep[(f[0], f[1], f[3])][int(f[2])] = {
            "cold": float(f[5]), "warm": float(f[6]), "change": float(f[7]),
            "startup": float(f[8]), "real": f[9], "cold_s": cold, "warm_s": warm}
    return real, rep


def derived(rep, prog, alloc):
    """warm, mix and pool3 predictions per round from the base replays."""
    a, g = rep.get((prog, "base", alloc), {}), rep.get((prog, "base", "glibc"), {})
    warm, mix, pool = {}, {}, {}
    rounds = sorted(set(a) & set(g))
    for r in rounds:
        w = a[r]["warm"] - g[r]["warm"] + a[r]["startup"]
        warm[r] = w
        mix[r] = (w + a[r]["change"]) / 2
    for i in range(len(rounds) - 2):
        d = []
        for r in rounds[i:i + 3]:
            ca, cg = a[r]["cold_s"], g[r]["cold_s"]
            d += [x - y for x, y in zip(ca, cg)] if len(ca) == len(cg) else []
        if d:
            pool[rounds[i + 1]] = st.median(d) + a[rounds[i + 1]]["startup"]
    return {"warm": warm, "mix": mix, "pool3": pool}


def main(argv):
    real, rep = load(argv[1], argv[2])
    allocs = argv[3].split()
    progs = list(dict.fromkeys(p for p, _ in real))
    models = list(dict.fromkeys(m for _, m, _ in rep))
    preds = models + (["warm", "mix", "pool3"] if "base" in models else [])
    # per predictor: [sum of closed gap, sum of base gap, rho list, agree, n, spreads]
    tot = {m: [0.0, 0.0, [], 0, 0, []] for m in preds}
    print("Real: the program's CPU (user + system, wait4), median over the rounds; change: the "
          "Hodges-Lehmann change of the rounds' paired differences to glibc [exact signed-rank "
          "95 % interval]. "
          "Predicted (ms): the median over the rounds of one replay's change, "
          "[min .. max over the rounds]; closes: (predicted - base) / (real - base), for the "
          "rows whose real change is beyond noise and at least 10 ms from base.\n")
    for p in progs:
        g = real.get((p, "glibc"), {})
        print("## %s\n" % p)
        print("| allocator | real CPU s | minor faults | real change ms [95 %] | beyond noise | "
              + " | ".join(preds) + " |")
        print("|---|---:|---:|---:|---|" + "---:|" * len(preds))
        realch, predch = {"glibc": 0.0}, {m: {"glibc": 0.0} for m in preds}
        beyond = {}
        for a in allocs:
            x = real.get((p, a), {})
            if not x:
                continue
            cpu = st.median(v[0] for v in x.values())
            flt = st.median(v[2] for v in x.values())
            if a == "glibc":
                print("| glibc | %.3f | %.0f | - | - |%s" % (cpu, flt, " - |" * len(preds)))
                continue
            rounds = [r for r in sorted(x) if r in g]
            med, lo, hi = paired_change([x[r][0] for r in rounds], [g[r][0] for r in rounds])
            lo, hi = (math.nan, math.nan) if lo is None else (lo, hi)
            realch[a] = med
            beyond[a] = verdict(lo, hi)
            cells = []
            der = derived(rep, p, a) if "base" in models else {}
            base = rep.get((p, "base", a), {})
            base_med = st.median(v["change"] for v in base.values()) if base else math.nan
            for m in preds:
                per = der[m] if m in der else {r: v["change"] for r, v in rep.get((p, m, a), {}).items()}
                if not per:
                    cells.append("-")
                    continue
                v = list(per.values())
                pm = st.median(v)
                predch[m][a] = pm
                tot[m][5].append(max(v) - min(v))
                c = "%s [%s .. %s]" % (ms(pm), ms(min(v)), ms(max(v)))
                if beyond[a] != "none" and abs(med - base_med) >= 0.010:
                    share = (pm - base_med) / (med - base_med)
                    tot[m][0] += pm - base_med
                    tot[m][1] += med - base_med
                    c += ", closes %.0f %%" % (share * 100)
                if m in models:  # (a): the replay's own verdict, per round
                    for r, row in rep[(p, m, a)].items():
                        tot[m][3] += row["real"] == beyond[a]
                        tot[m][4] += 1
                cells.append(c)
            print("| %s | %.3f | %.0f | %s [%s, %s] | %s | %s |" % (
                a, cpu, flt, ms(med), ms(lo), ms(hi), beyond[a], " | ".join(cells)))
        names = [a for a in allocs if a in realch]
        rhos = []
        for m in preds:
            if all(a in predch[m] for a in names):
                rho = spearman([realch[a] for a in names], [predch[m][a] for a in names])
                tot[m][2].append(rho)
                rhos.append("%s %.2f" % (m, rho))
        print("\n- time rho (real vs predicted order, %s): %s\n" % (", ".join(names), "; ".join(rhos)))
    print("## Summary over the programs\n")
    print("| predictor | gap closed (rows beyond noise) | rho per program | (a) agrees (rounds x allocators) "
          "| median range of one replay's prediction over the rounds, ms |")
    print("|---|---:|---|---:|---:|")
    for m in preds:
        s, b, rh, ag, n, sp = tot[m]
        gap = "%.0f %%" % (s / b * 100) if b else "-"
        agree = "%d of %d" % (ag, n) if n else "-"
        print("| %s | %s | %s | %s | %s |" % (m, gap, " / ".join("%.2f" % r for r in rh), agree,
                                             ms(st.median(sp), False) if sp else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
