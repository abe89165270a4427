#!/usr/bin/env python3
"""frame_temps.py IN.txt OUT.txt — the stack allocator's home pattern, cut
from a text trace (heapreplay convert X.hrt -o X.txt): only the blocks made
and freed inside one frame (no `frame` event between their alloc and their
free), every other block dropped with its events; frames and marks kept.

Why: Box2D's stack allocator serves strictly LIFO temporaries inside a step.
traces/frame_loop.hrt has them (its solver temporaries) plus a few
long-lived objects allocated between them; those sit in stack entries for
good, so on the whole trace the stack runs out of entries and serves 95 % of
its ops by fallback: the figure of a misuse, not of the design. The cut
keeps exactly the ops `stack+block` routes to its stack part. Prints the
blocks kept and dropped, and how many kept frees were not of the newest live
kept block (0 for a LIFO pattern), to stderr."""
import sys

src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().splitlines()
frame_no = 0
born = {}        # id -> (frame, index of its alloc line) while live
keep = set()     # indexes of the lines kept
for i, line in enumerate(lines):
    f = line.split()
    if not f:
        continue
    if f[0] == "frame":
        frame_no += 1
    elif f[0] == "alloc":
        born[f[1]] = (frame_no, i)
    elif f[0] == "free":
        fr, at = born.pop(f[1])
        if fr == frame_no:
            keep.update((at, i))
    elif f[0] not in ("heapreplay-trace", "mark"):
        sys.exit("%s:%d: expected alloc, free, frame or mark (a single-thread trace without "
                 "realloc or heaps), got '%s'" % (src, i + 1, f[0]))
out, live, non_lifo, kept = [], [], 0, 0
for i, line in enumerate(lines):
    f = line.split()
    if f and f[0] in ("alloc", "free"):
        if i not in keep:
            continue
        if f[0] == "alloc":
            live.append(f[1])
            kept += 1
        else:
            non_lifo += live[-1] != f[1]
            live.remove(f[1])
    out.append(line)
open(dst, "w").write("\n".join(out) + "\n")
print("frame_temps: %d blocks kept, %d dropped, %d non-LIFO frees"
      % (kept, sum(1 for l in lines if l.startswith("alloc ")) - kept, non_lifo), file=sys.stderr)
