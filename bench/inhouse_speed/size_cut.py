#!/usr/bin/env python3
"""size_cut.py IN.txt OUT.txt MAX — the part of a text trace (heapreplay
convert X.hrt -o X.txt) that an in-house allocator serves itself: only the
blocks whose every size (alloc, calloc's count * size, each realloc of the
block) is at most MAX bytes, every other block dropped with its events (and
the `touched` hint before a dropped one); frames, marks, heap pushes and pops
kept.

Why: block serves 1..640 B itself (Box2D's b2_maxBlockSize; larger blocks go
to malloc, by design), bank cells of up to 4 KiB, sizeclass up to 128 B.
traces/frame_loop.hrt has 64 % of its ops above 640 B and 35 % above 4 KiB:
on the whole trace block and bank time mostly glibc, the figure of a pattern
they are not for. The cut keeps exactly the ops they serve (an allocator's
home pattern on that trace); the benchmark reports both. Prints the blocks
kept and dropped and the share of memory ops kept, to stderr."""
import sys

src, dst, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(src).read().splitlines()


def args(f):
    """The numeric fields of an event (no @timestamp or other tags)."""
    return [x for x in f[1:] if x.isdigit()]


fam_of = {}      # live id -> family (the block and what it was realloc'd into)
biggest = []     # family -> largest size
event_fam = {}   # line index -> family of the block it acts on
for i, line in enumerate(lines):
    f = line.split()
    if not f:
        continue
    op, a = f[0], args(f)
    if op in ("alloc", "calloc"):
        size = int(a[1]) if op == "alloc" else int(a[1]) * int(a[2])
        fam_of[a[0]] = len(biggest)
        biggest.append(size)
    elif op == "realloc":
        fam = fam_of.pop(a[0], None)
        if fam is None:  # realloc of no live block: a new one
            fam = len(biggest)
            biggest.append(0)
        biggest[fam] = max(biggest[fam], int(a[2]))
        fam_of[a[1]] = fam
    elif op == "free":
        fam = fam_of.pop(a[0], None)
        if fam is None:
            continue
    elif op in ("palloc", "pfree", "prealloc"):
        sys.exit("%s:%d: pool ops are not cut (expected a trace without them)" % (src, i + 1))
    else:
        continue
    event_fam[i] = fam if op in ("free", "realloc") else fam_of[a[0]]

out, kept_ops, ops = [], 0, 0
for i, line in enumerate(lines):
    f = line.split()
    if f and f[0] == "touched":
        j = i + 1  # the hint describes the next memory event
        while j < len(lines) and lines[j].split()[:1] == ["touched"]:
            j += 1
        if j in event_fam and biggest[event_fam[j]] > limit:
            continue
    if i in event_fam:
        ops += 1
        if biggest[event_fam[i]] > limit:
            continue
        kept_ops += 1
    out.append(line)
open(dst, "w").write("\n".join(out) + "\n")
kept = sum(1 for b in biggest if b <= limit)
print("size_cut <= %d B: %d blocks kept, %d dropped; %.1f %% of the memory ops kept"
      % (limit, kept, len(biggest) - kept, 100.0 * kept_ops / max(ops, 1)), file=sys.stderr)
