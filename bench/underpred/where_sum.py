#!/usr/bin/env python3
"""The split of bench/underpred/where.sh: perf cpu-clock samples per round
and allocator, summed into where the time went, as Markdown.

    where_sum.py SAMPLES.tsv FREQ TOP

SAMPLES.tsv: allocator, round, samples, dso, symbol (perf report's "[.] name"
or "[k] name"). Categories:
  allocator  the allocator's own library (libjemalloc, libmimalloc,
             libtcmalloc), and the C library's malloc family (glibc's
             allocator lives in libc.so: malloc, free, _int_malloc, ...)
  libc other the C library's other functions (memmove, memset, strlen...)
  kernel     [kernel.kallsyms] (page faults, zeroing, system calls)
  program    everything else: the program's own code and its libraries
The first allocator named is the base; changes are the median of the
rounds' per-round differences against it (rounds are interleaved, so a slow
stretch of the host hits both sides of a pair)."""
import collections
import re
import statistics
import sys

ALLOC_DSO = re.compile(r"lib(jemalloc|mimalloc|tcmalloc)")
# glibc's allocator inside libc.so (malloc/malloc.c and its entry points)
LIBC_MALLOC = re.compile(
    r"^(malloc|free|cfree|calloc|realloc|__libc_(malloc|free|calloc|realloc|memalign)|"
    r"_int_(malloc|free|realloc|memalign)|malloc_consolidate|unlink_chunk|sysmalloc|"
    r"systrim|tcache_\w+|_mid_memalign|__posix_memalign|posix_memalign|aligned_alloc|"
    r"memalign|malloc_usable_size|__malloc_\w+|alloc_perturb|checked_request2size)(@.*)?$")
CATS = ("allocator", "libc other", "kernel", "program")


def category(dso, sym):
    name = sym.split("] ", 1)[-1].strip()
    if ALLOC_DSO.search(dso):
        return "allocator"
    if dso.startswith("libc.so") or dso.startswith("libc-"):
        return "allocator" if LIBC_MALLOC.match(name) else "libc other"
    if dso.startswith("[kernel"):
        return "kernel"
    return "program"


def med_range(v):
    return "%.0f [%.0f..%.0f]" % (statistics.median(v), min(v), max(v))


def main():
    path, freq, top = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    ms = 1000.0 / freq
    per = collections.defaultdict(lambda: collections.Counter())  # (alloc, round) -> cat
    spot = collections.defaultdict(lambda: collections.Counter())  # alloc -> "dso sym"
    order = []
    for line in open(path):
        a, r, n, dso, sym = line.rstrip("\n").split("\t", 4)
        if a not in order:
            order.append(a)
        c = category(dso, sym)
        per[(a, r)][c] += int(n)
        per[(a, r)]["total"] += int(n)
        if c == "program":
            spot[a]["%s %s" % (dso, sym)] += int(n)
    rounds = sorted({r for (_, r) in per}, key=int)
    base = order[0]
    print("CPU ms per run by where it was spent: median [min..max] over %d rounds;" % len(rounds))
    print("change: the median of the rounds' differences against %s (same round)." % base)
    print()
    print("| allocator | " + " | ".join(CATS + ("total",)) + " |")
    print("|---|" + "---:|" * (len(CATS) + 1))
    for a in order:
        cells = []
        for c in CATS + ("total",):
            v = [per[(a, r)][c] * ms for r in rounds if (a, r) in per]
            cell = med_range(v)
            if a != base:
                d = [(per[(a, r)][c] - per[(base, r)][c]) * ms for r in rounds
                     if (a, r) in per and (base, r) in per]
                cell += " (%+.0f)" % statistics.median(d)
            cells.append(cell)
        print("| %s | %s |" % (a, " | ".join(cells)))
    print()
    n = len(rounds)
    for a in order[1:]:
        print("Program spots that grew most under %s against %s (samples summed over the rounds," % (a, base))
        print("ms per run = the sum / %d rounds; perf's skid puts a load's stall on the next instruction):" % n)
        print()
        print("| spot | %s ms | %s ms | change ms |" % (base, a))
        print("|---|---:|---:|---:|")
        keys = set(spot[a]) | set(spot[base])
        grow = sorted(keys, key=lambda k: -(spot[a][k] - spot[base][k]))[:top]
        for k in grow:
            print("| `%s` | %.1f | %.1f | %+.1f |" % (k, spot[base][k] * ms / n, spot[a][k] * ms / n,
                                                   (spot[a][k] - spot[base][k]) * ms / n))
        print()


if __name__ == "__main__":
    main()
