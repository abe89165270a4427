#!/usr/bin/env python3
"""Writes a git fast-import stream of a made-up, seeded project history to
stdout: the input of the git_pack program of bench/fidelity/fidelity.sh.

  git_history.py [COMMITS] [FILES]      (defaults 3000, 300)

FILES source-like text files of 150-250 lines; each of COMMITS commits edits
three of them (replaces, inserts or deletes a few lines) at a fixed date, so
the same arguments give the same objects, byte for byte, and the same commit
ids on every machine: `git pack-objects` then has the same fixed work to do
(every blob version is a delta candidate of its neighbours)."""
import random
import sys

WORDS = ("alloc free block size page arena heap span class bin chunk list node "
         "tree lock thread cache slab map trace event replay lap cold warm time "
         "peak live bytes count index table hash key value next prev head tail").split()


def line(rng):
    n = rng.randint(3, 12)
    ind = "    " * rng.randint(0, 3)
    return ind + " ".join(rng.choice(WORDS) for _ in range(n)) + ";"


def main(argv):
    commits = int(argv[1]) if len(argv) > 1 else 3000
    nfiles = int(argv[2]) if len(argv) > 2 else 300
    rng = random.Random(20261128)
    files = [[line(rng) for _ in range(rng.randint(150, 250))] for _ in range(nfiles)]
    out = sys.stdout.buffer
    for c in range(commits):
        changed = range(nfiles) if c == 0 else sorted(rng.sample(range(nfiles), 3))
        for f in ([] if c == 0 else changed):
            lines = files[f]
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(len(lines))
                op = rng.random()
                if op < 0.5:
                    lines[at] = line(rng)
                elif op < 0.8 or len(lines) < 100:
                    lines.insert(at, line(rng))
                else:
                    del lines[at]
        msg = ("change %d\n" % c).encode()
        out.write(b"commit refs/heads/main\n")
        out.write(b"committer Fidelity <fidelity@example.org> %d +0000\n" % (1700000000 + c * 60))
        out.write(b"data %d\n%s" % (len(msg), msg))
        for f in changed:
            body = ("\n".join(files[f]) + "\n").encode()
            out.write(b"M 100644 inline src/f%03d.c\ndata %d\n%s\n" % (f, len(body), body))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
