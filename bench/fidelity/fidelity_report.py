#!/usr/bin/env python3
"""The arithmetic of bench/fidelity/fidelity.sh: reads its real.tsv and replay.tsv and
prints the Markdown body of results/fidelity-<host>.md.

  fidelity_report.py REAL_TSV REPLAY_TSV "glibc jemalloc mimalloc tcmalloc" [VERDICT_TSV]

real.tsv:   program allocator round cpu_s max_rss_kb wall_s
replay.tsv: program policy allocator ops cold_ns cold_min cold_max warm_ns
            peak_footprint status peak_rss_above_baseline [change_s lo_s hi_s
            real runs_to_see: the report's own predicted change and its two
            answers, docs/METRICS.md [rss_baseline: the worker's RSS before
            the replay]]
verdict.tsv: program policy the report's verdict paragraph (`heapreplay report`'s
            "ship X: ..." / "keep glibc: ..." / "no allocator changes ..." line)

Per program: the real CPU time and max RSS per allocator (median [min-max]
over the rounds), the real change against glibc and whether it exceeds the
noise: the rounds are interleaved, so round r of an allocator and of glibc ran
side by side and their difference is one paired sample; the change is the
Hodges-Lehmann estimate of those differences with its 95 % interval from the
exact Wilcoxon signed-rank distribution, and it is beyond noise when that
interval excludes 0 (at least 6 rounds are needed for a 95 % interval). A
range-overlap test was used before: its ranges widen as rounds are added, so
more rounds made fewer differences visible. The report's prediction gives
two answers, each scored against the same question asked of the real rounds:
(a) "is the change real?" (predict.real: saving / cost / none) against the
real paired test (faster / slower beyond noise, or not); (b) "will one run
show it?" (predict.runs_to_see 1, or more) against whether one real run
shows it: the real change (Hodges-Lehmann) exceeds 1.96 x 1.4826 x the MAD
of the rounds' paired differences (1.4826 x MAD: a robust sd of the
difference of two single runs; 1.96: the report's own z, HR_PREDICT_Z); (b)
is not scored where the report has no runs_to_see (its noise unknown; a
multi-process program's is its whole_program answer's). The
interval width ratio of a row is the width of the report's (a) interval over
the width of the real paired 95 % interval (needs 6 rounds or more): how much
wider than the truth the report's uncertainty is (target: at most 3). Per
row also the predicted change in ms and the predicted max RSS change in MiB
(predict.rss_change_bytes) beside the real paired changes. The totals over
all programs (per policy) count the rows whose (a), and (b), agree. Per program and touch
policy: the predicted allocator time (cold ns/op x ops; a program runs its
allocations once), the predicted saving against glibc in seconds and in % of
glibc's real CPU time, with the range from the repeats' cold min/max, and
Spearman's rho between real and predicted rankings for time (CPU time vs
predicted allocator time) and memory (max RSS vs peak footprint, and vs the
replay's peak RSS above its baseline). With the report's own prediction (the
"predict" object): its two answers per allocator beside the real ones, and
how many agree. The policy column is the --touch
policy, followed by " --access MODEL" when the replay used an access model.
At the end, a summary: one line per program and policy (rho for time and
memory, verdicts agreeing, predicted against real change per allocator)."""
import re
import sys
from collections import defaultdict


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2) if n else float("nan")


def ranks(vals):
    order = sorted(range(len(vals)), key=lambda i: vals[i])
    r = [0.0] * len(vals)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and vals[order[j + 1]] == vals[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    if len(a) < 3:
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else float("nan")


def report_prediction(f, rss=None):
    """The report's predict fields (change_s, lo, hi, real, runs_to_see) or
    None; runs_to_see None when the report's noise is unknown; rss: its
    predicted max RSS change in bytes (None: none)."""
    if len(f) < 5 or "null" in f[:4]:
        return None
    return dict(change=float(f[0]), lo=float(f[1]), hi=float(f[2]), real=f[3],
                runs=float(f[4]) if f[4] != "null" else None,
                rss=float(rss) if rss not in (None, "null", "") else None)


def signed_rank_counts(n):
    """counts[t]: how many of the 2^n sign patterns give a signed-rank sum T+ = t."""
    counts = [1]
    for k in range(1, n + 1):
        nxt = counts + [0] * k
        for t, c in enumerate(counts):
            nxt[t + k] += c
        counts = nxt
    return counts


def paired_change(x, g, level=0.95):
    """The Hodges-Lehmann change of x against g, paired by round (x[i] - g[i]),
    and its `level` interval (lo, hi) from the Walsh averages' order statistics
    at the exact signed-rank critical value; lo/hi are None when the rounds are
    too few for that level (n < 6 at 95 %)."""
    d = [a - b for a, b in zip(x, g)]
    n = len(d)
    if n == 0:
        return float("nan"), None, None
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    est = median(walsh)
    counts, total = signed_rank_counts(n), 2 ** n
    # the largest C with P(T+ <= C - 1) <= (1 - level) / 2: [walsh[C-1], walsh[N-C]]
    c, cum = 0, 0
    while c < len(counts) and (cum + counts[c]) / total <= (1 - level) / 2:
        cum += counts[c]
        c += 1
    if c == 0:
        return est, None, None
    return est, walsh[c - 1], walsh[len(walsh) - c]


def paired_rounds(real_p, a, col=1):
    """The CPU times (col 1; col 2: max RSS KiB) of a and of glibc from the
    rounds both ran, in round order."""
    mine = {row[0]: row[col] for row in real_p.get(a, [])}
    base = {row[0]: row[col] for row in real_p.get("glibc", [])}
    rounds = sorted(set(mine) & set(base))
    return [mine[r] for r in rounds], [base[r] for r in rounds]


def real_change(real_p, a):
    """a's real change against glibc, once per program: the paired change
    `est` with its 95 % interval (lo, hi), the verdict `v` (faster / slower
    when that interval excludes 0, else within noise) and `one`, what one run
    of each would show: faster / slower when the change exceeds one run's
    noise, 1.96 x the robust sd of the rounds' differences (1.4826 x their
    MAD; the difference of two single runs), as the report's interval is
    widened by the program's noise; else within noise."""
    x, g = paired_rounds(real_p, a)
    est, lo, hi = paired_change(x, g)
    if lo is not None and hi < 0:
        v = "faster"
    elif lo is not None and lo > 0:
        v = "slower"
    else:
        v = "within noise"
    d = [u - w for u, w in zip(x, g)]
    one = "within noise"
    if len(d) >= 3:
        m = median(d)
        if abs(est) > 1.96 * 1.4826 * median([abs(w - m) for w in d]):
            one = "faster" if est < 0 else "slower"
    rx, rg = paired_rounds(real_p, a, 2)
    rss = paired_change(rx, rg)[0] / 1024  # MiB
    return dict(v=v, est=est, lo=lo, hi=hi, one=one, rss=rss)


# (a): the report's word -> the real paired test's
REAL_OF = {"saving": "faster", "cost": "slower", "none": "within noise"}


def one_run_words(pred):
    """(b) in the report's words, and whether it says one run shows it
    (None: noise unknown)."""
    k = pred["runs"]
    if k is None:
        return "no runs_to_see", None
    if k <= 1:
        return "one run shows it", True
    return ("needs ~%.0f runs" % k if k <= 100 else "not in 100 runs"), False


def verdict_lines(both, rows, rc, has_base):
    """The report's predicted change and its two answers beside the real ones
    (rc: real_change per allocator), one table row per allocator: (a) its
    real / not real against the paired test, (b) its one-run answer against
    whether the real change exceeds one run's noise, the interval width
    ratio, the predicted and real change in ms and MiB. Returns the counts
    (a agree, a rows, b agree, b rows, inside, width ratios)."""
    agree_a = agree_b = nb = n = inside = 0
    ratios = []
    out = []
    for a in both:
        pred = rows[a].get("pred")
        if a == "glibc" or not pred or not has_base:
            continue
        c = rc[a]
        rv, est, ov = c["v"], c["est"], c["one"]
        words, seen = one_run_words(pred)
        n += 1
        ok_a = REAL_OF.get(pred["real"]) == rv
        agree_a += ok_a
        if seen is not None:
            nb += 1
            ok_b = seen == (ov != "within noise")
            agree_b += ok_b
            b = "%s / %s: %s" % (words, "one run shows it" if ov != "within noise" else
                                 "not in one run", "yes" if ok_b else "no")
        else:
            b = "%s: -" % words
        inside += pred["lo"] <= est <= pred["hi"]
        if c["lo"] is not None and c["hi"] > c["lo"]:
            ratio = (pred["hi"] - pred["lo"]) / (c["hi"] - c["lo"])
            ratios.append(ratio)
            wr = "%.1f" % ratio
        else:
            wr = "-"
        real_iv = "[%+.0f, %+.0f]" % (1000 * c["lo"], 1000 * c["hi"]) if c["lo"] is not None else ""
        out.append("| %s | %+.0f [%+.0f, %+.0f] | %+.0f %s | %s / %s: %s | %s | %s | %s / %+.1f |" % (
            a, 1000 * pred["change"], 1000 * pred["lo"], 1000 * pred["hi"], 1000 * est, real_iv,
            {"saving": "real saving", "cost": "real cost"}.get(pred["real"], "no real change"),
            rv, "yes" if ok_a else "no", b, wr,
            "%+.1f" % (pred["rss"] / 1048576) if pred.get("rss") is not None else "-", c["rss"]))
    if n:
        print()
        print("The report's two answers (ms: change of the program's CPU time vs glibc; MiB: of its max RSS):")
        print()
        print("| allocator | predicted ms [interval] | real ms [95 %] | (a) report / real: agree |"
              " (b) report / real: agree | width ratio | MiB predicted / real |")
        print("|---|---:|---:|---|---|---:|---:|")
        print("\n".join(out))
        print()
        print("- (a) agrees for %d of %d; (b) for %s; the real change is inside the report's interval"
              " for %d of %d" % (agree_a, n, "%d of %d" % (agree_b, nb) if nb else "- (not answered)",
                                  inside, n))
    return agree_a, n, agree_b, nb, inside, ratios


def shipped_of(verdict):
    """The allocator the verdict tells the user to use: "ship X" -> X,
    "keep glibc" or "no allocator changes this program ..." -> "glibc"; None
    when the line is none of those."""
    m = re.match(r"ship (\S+?):", verdict)
    if m:
        return m.group(1)
    if verdict.startswith("keep glibc") or verdict.startswith("no allocator"):
        return "glibc"
    return None


def headline_lines(verdict, present, rc):
    """The report's one answer beside the real outcome, and whether it was
    right: shipping X is right when X is really faster beyond noise and its
    real change is not beyond noise worse than the really fastest one's (their
    intervals overlap); keeping glibc is right when no allocator is really
    faster beyond noise. Returns "yes" / "no" / "-" (no verdict)."""
    faster = sorted((a for a in present if a in rc and rc[a]["v"] == "faster"),
                    key=lambda a: rc[a]["est"])
    slower = [a for a in present if a in rc and rc[a]["v"] == "slower"]
    real = "; ".join("%s %+.0f ms [%+.0f, %+.0f]" % (a, 1000 * rc[a]["est"], 1000 * rc[a]["lo"],
                                                      1000 * rc[a]["hi"]) for a in faster)
    print("- the report's verdict: \u00ab%s\u00bb" % (verdict or "(none)"))
    print("- really (paired rounds, beyond noise): %s%s" % (
        ("faster than glibc: " + real) if faster else "no allocator faster than glibc",
        ("; slower: " + ", ".join(slower)) if slower else ""))
    shipped = shipped_of(verdict or "")
    if shipped is None:
        return "-"
    if shipped == "glibc":
        ok = not faster
        why = "no allocator is really faster" if ok else "%s is really faster" % faster[0]
    else:
        best = faster[0] if faster else None
        ok = shipped in faster and rc[shipped]["lo"] <= rc[best]["hi"]
        why = ("%s is really faster%s" % (shipped, "" if shipped == best else
                                          ", within noise of the fastest, " + best)) if ok else \
              ("%s is not really faster (%+.0f ms, %s)" % (shipped, 1000 * rc[shipped]["est"], rc[shipped]["v"])
               if shipped not in faster else "%s is really slower than %s" % (shipped, best))
    print("- verdict right: %s (%s)" % ("yes" if ok else "no", why))
    return "yes" if ok else "no"


def pct(k, n):
    return "%d of %d (%.0f %%)" % (k, n, 100.0 * k / n) if n else "-"


def print_summary(summary, totals):
    """One line per (policy, program): the figures the default is chosen on;
    then, per policy, the totals over all programs."""
    print()
    print("## Summary")
    print()
    print("Change against glibc in ms, predicted (the report's predict.change_s; a multi-process")
    print("program: its whole_program change) / real (paired Hodges-Lehmann, CPU).")
    print("*Real beyond noise*: the allocators whose real change's 95 % interval excludes 0. *Rho,")
    print("report*: Spearman's rho of the report's predicted changes (CPU time: predict.change_s or")
    print("whole_program; memory: predict.rss_change_bytes; glibc 0) against the real ones (paired")
    print("change; median max RSS), the figures the report's reader is given. *Rho, replay table*:")
    print("the replay's cold allocator time against the real change, and memory against the real max")
    print("RSS by the replay's peak footprint / peak RSS above its baseline / peak RSS (baseline +")
    print("above: with the allocator's own start-up). *(a) agrees*: the report's")
    print("\"is the change real?\" (real saving / real cost / no real change) against the paired test")
    print("(faster / slower beyond noise / within noise). *(b) agrees*: the report's \"will one run")
    print("show it?\" against whether the real change exceeds 1.96 x 1.4826 x the MAD of the rounds'")
    print("paired differences (\"-\" where the report gives no runs_to_see). *Inside*: the real change")
    print("lies in the report's interval. *Width ratio*: median over the allocators of the report's")
    print("interval width / the real paired 95 % interval's (\"-\" under 6 rounds). *Headline right*:")
    print("the report's one answer (ship X / keep glibc) against the real paired rounds.")
    print()
    print("| policy | program | real beyond noise | rho time, report | rho memory, report | rho time, replay table | rho memory, replay table (footprint / RSS above base / RSS) | (a) agrees | (b) agrees | inside | width ratio | headline right | predicted / real change, ms |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for s in summary:
        print("| `%s` | %s | %s | %.2f | %.2f | %.2f | %.2f / %.2f / %.2f | %s | %s | %s | %s | %s | %s |" % s)
    print()
    print("Over all programs (targets: (a) at least 90 %; width ratio at most 3):")
    print()
    for t, (na, n, nbb, nb, ratios, progs) in totals.items():
        print("- `%s` (%d programs): (a) agrees %s; (b) agrees %s; width ratio %s" % (
            t, len(progs), pct(na, n), pct(nbb, nb),
            "median %.1f [%.1f-%.1f], at most 3 for %d of %d" % (
                median(ratios), min(ratios), max(ratios), sum(r <= 3 for r in ratios), len(ratios))
            if ratios else "- (under 6 rounds: no real 95 % interval)"))


def fmt_range(v, f="%.3f"):
    return (f + " [" + f + "-" + f + "]") % (median(v), min(v), max(v))


def main(real_path, replay_path, allocators, verdict_path=None):
    allocs = allocators.split()
    verdicts = {}
    if verdict_path:
        for line in open(verdict_path):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 3:
                verdicts[(f[0], f[1])] = f[2]
    real = defaultdict(lambda: defaultdict(list))  # program -> alloc -> [(round, cpu, rss)]
    programs = []
    for line in open(real_path):
        p, a, r, cpu, rss = line.rstrip("\n").split("\t")[:5]
        if p not in programs:
            programs.append(p)
        real[p][a].append((int(r), float(cpu), int(rss)))
    rep = defaultdict(dict)  # (program, policy) -> alloc -> row
    summary = []
    totals = {}  # policy -> [a agree, a rows, b agree, b rows, width ratios, programs]
    touches = []
    for line in open(replay_path):
        f = line.rstrip("\n").split("\t")
        p, t, a = f[0], f[1], f[2]
        if t not in touches:
            touches.append(t)
        if f[9] != "ok" or "null" in f[4:7]:
            continue
        rep[(p, t)][a] = dict(ops=int(f[3]), cold=float(f[4]), lo=float(f[5]), hi=float(f[6]),
                              warm=float(f[7]) if f[7] != "null" else float("nan"),
                              fp=int(f[8]) if f[8] != "null" else 0,
                              rss=int(f[10]) if len(f) > 10 and f[10] != "null" else 0,
                              pred=report_prediction(f[11:16], f[17] if len(f) > 17 else None),
                              base=int(f[16]) if len(f) > 16 and f[16] != "null" else 0)
    print("Real: the program under `LD_PRELOAD` (user+sys CPU s, max RSS MiB; median [min-max] over")
    print("the rounds). Change vs glibc: the Hodges-Lehmann estimate of the rounds' paired differences")
    print("with its 95 % interval; *beyond noise*: that interval excludes 0.")
    print("Predicted: allocator time from the replay's cold lap (cold ns/op x ops), saving against")
    print("glibc with the range from the repeats' fastest and slowest cold laps; % of glibc's real")
    print("CPU time. rho: Spearman between the real and the predicted order (time: CPU vs")
    print("predicted allocator time; memory: max RSS vs peak footprint).")
    for p in programs:
        base = [c for _, c, _ in real[p].get("glibc", [])]
        print()
        print("## %s" % p)
        print()
        print("| allocator | real CPU s | real max RSS MiB | change vs glibc (real, s) | beyond noise |")
        print("|---|---:|---:|---:|---|")
        present = [a for a in allocs if real[p].get(a)]
        rc = {a: real_change(real[p], a) for a in present if a != "glibc"}
        for a in present:
            cpu = [c for _, c, _ in real[p][a]]
            rss = [r / 1024 for _, _, r in real[p][a]]
            if a == "glibc" or not base:
                d, noise = "-", "-"
            else:
                c = rc[a]
                d = "%+.3f [%+.3f, %+.3f]" % (c["est"], c["lo"], c["hi"]) if c["lo"] is not None \
                    else "%+.3f (too few rounds)" % c["est"]
                noise = "yes" if c["v"] != "within noise" else "no"
            print("| %s | %s | %s | %s | %s |" % (a, fmt_range(cpu), fmt_range(rss, "%.1f"), d, noise))
        for t in touches:
            rows = rep.get((p, t), {})
            both = [a for a in present if a in rows]
            if not both:
                continue
            print()
            print("`--touch %s`:" % t)  # the policy, with " --access MODEL" when one ran
            print()
            print("| allocator | cold ns/op | warm ns/op | predicted alloc time s | predicted saving vs glibc, s | % of glibc's CPU | peak footprint MiB | peak RSS above baseline MiB | peak RSS MiB |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
            g = rows.get("glibc")
            for a in both:
                x = rows[a]
                pt = x["cold"] * x["ops"] / 1e9
                if g and a != "glibc":
                    s_med = (g["cold"] - x["cold"]) * x["ops"] / 1e9
                    s_lo = (g["lo"] - x["hi"]) * x["ops"] / 1e9
                    s_hi = (g["hi"] - x["lo"]) * x["ops"] / 1e9
                    sav = "%+.3f [%+.3f, %+.3f]" % (s_med, s_lo, s_hi)
                    pct = "%+.1f %%" % (100 * s_med / median(base)) if base else "-"
                else:
                    sav, pct = "-", "-"
                print("| %s | %.1f | %.1f | %.3f | %s | %s | %.1f | %.1f | %.1f |" % (
                    a, x["cold"], x["warm"], pt, sav, pct, x["fp"] / 1048576, x["rss"] / 1048576,
                    (x["rss"] + x["base"]) / 1048576))
            # real time order: each allocator's paired change against glibc (0)
            rt = [0.0 if a == "glibc" else rc[a]["est"] for a in both]
            pt = [rows[a]["cold"] for a in both]
            rm = [median([r for _, _, r in real[p][a]]) for a in both]
            pm = [rows[a]["fp"] for a in both]
            pr = [rows[a]["rss"] for a in both]
            pa = [rows[a]["rss"] + rows[a]["base"] for a in both]
            order = lambda names, v: " < ".join(n for _, n in sorted(zip(v, names)))
            print()
            print("- time: real %s; predicted %s; rho = %.2f" % (order(both, rt), order(both, pt), spearman(rt, pt)))
            print("- memory: real %s; predicted by peak footprint %s, rho = %.2f; by peak RSS above"
                  " baseline %s, rho = %.2f; by peak RSS %s, rho = %.2f" % (
                      order(both, rm), order(both, pm), spearman(rm, pm), order(both, pr),
                      spearman(rm, pr), order(both, pa), spearman(rm, pa)))
            # the report's own predictions (what its reader sees): the change of
            # the CPU time and of the max RSS against glibc (glibc: 0)
            preds = [rows[a].get("pred") for a in both]
            rho_rt = rho_rm = float("nan")
            if base and all(a == "glibc" or x for a, x in zip(both, preds)):
                qt = [0.0 if a == "glibc" else x["change"] for a, x in zip(both, preds)]
                rho_rt = spearman(rt, qt)
                if all(a == "glibc" or x["rss"] is not None for a, x in zip(both, preds)):
                    qm = [0.0 if a == "glibc" else x["rss"] for a, x in zip(both, preds)]
                    rho_rm = spearman(rm, qm)
                    print("- the report's predictions: time %s, rho = %.2f; memory (max RSS) %s,"
                          " rho = %.2f" % (order(both, qt), rho_rt, order(both, qm), rho_rm))
                else:
                    print("- the report's predictions: time %s, rho = %.2f" % (order(both, qt), rho_rt))
            na, n, nbb, nb, inside, ratios = verdict_lines(both, rows, rc, bool(real[p].get("glibc")))
            right = headline_lines(verdicts.get((p, t), ""), present, rc) if verdict_path else "-"
            beyond = [a for a in both if a != "glibc" and rc[a]["v"] != "within noise"]
            changes = []
            for a in both:
                pred = rows[a].get("pred")
                if a != "glibc" and pred and base:
                    changes.append("%s %+.0f / %+.0f" % (a, 1000 * pred["change"], 1000 * rc[a]["est"]))
            tot = totals.setdefault(t, [0, 0, 0, 0, [], []])
            tot[0] += na
            tot[1] += n
            tot[2] += nbb
            tot[3] += nb
            tot[4] += ratios
            tot[5].append(p)
            summary.append((t, p, ", ".join(beyond) or "none", rho_rt, rho_rm, spearman(rt, pt),
                            spearman(rm, pm), spearman(rm, pr), spearman(rm, pa),
                            "%d of %d" % (na, n) if n else "-", "%d of %d" % (nbb, nb) if nb else "-",
                            "%d of %d" % (inside, n) if n else "-",
                            "%.1f" % median(ratios) if ratios else "-", right,
                            "; ".join(changes)))
    print_summary(summary, totals)
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.stderr.write("usage: fidelity_report.py REAL_TSV REPLAY_TSV ALLOCATORS [VERDICT_TSV]\n")
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
