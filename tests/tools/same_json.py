#!/usr/bin/env python3
"""same_json.py OLD.json OLD2.json NEW.json NEW2.json — does NEW measure like OLD?

OLD and OLD2 are two reports of the same command by the old build, NEW and
NEW2 by the new build. NEW must have OLD's shape: the same keys in the same
order, arrays of the same length and the same JSON type at every path (number,
string, null, boolean, array, object) wherever the runs of each build agree on
it. Every value that is not a measurement must be the same value of the same
type (integer or real) in both builds: op counts, peak live, in-house
footprints and stats (exact), statuses, digests, options, program time. A
measurement (MEASURED below: times, latencies, RSS, stalls, the predictions
made from times, an external allocator's footprint and stats) is not compared,
nor is any value on which the two runs of one build disagree. Prints the first
differences and exits 1, or prints how many values were compared and exits 0.
"""
import json
import re
import sys

# Paths (inside one result) whose values are measurements in every row, and
# those that are measurements unless the row's footprint is exact (in-house).
MEASURED = re.compile(r"^\.(time|ns_per_op|latency_ns|worst_frame|stalls|unstable|samples|predict"
                      r"|series\.(frames|latency)|series\.memory\.(rss_bytes|time_s)"
                      r"|memory\.(peak_rss|peak_rss_above_baseline|rss_baseline)"
                      r"|threads\.(ops_per_s|cold_ops_per_s|waits|wait_s|spin_s)"
                      r"|per_thread\[\d+\]\.(ns_per_op|cpu_s|waits|wait_s))")
MEASURED_EXTERNAL = re.compile(r"^\.(memory|native|series\.memory)\b")
RESULT = re.compile(r"^\.results\[\d+\]")


def kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return "array"
    return "object"


class Walk:
    def __init__(self):
        self.diffs = []
        self.compared = 0
        self.skipped = 0
        self.exact = True  # the current result's footprint is exact

    def measured(self, path):
        if path in (".created", ".command"):
            return True
        m = RESULT.match(path)
        if not m:
            return False
        inner = path[m.end():]
        if MEASURED.match(inner):
            return True
        return not self.exact and bool(MEASURED_EXTERNAL.match(inner)) \
            and not inner.startswith(".memory.peak_live") \
            and not inner.startswith(".memory.footprint_source")

    def diff(self, path, what):
        if len(self.diffs) < 30:
            self.diffs.append(f"{path or '/'}: {what}")
        else:
            self.diffs.append(None)

    def walk(self, path, a, a2, b, b2):
        """a, a2: the old runs' values at path; b, b2: the new runs'."""
        ka, ka2, kb, kb2 = kind(a), kind(a2), kind(b), kind(b2)
        if ka == "object" and RESULT.fullmatch(path):
            mem = a.get("memory")
            self.exact = isinstance(mem, dict) and mem.get("footprint_source") == "exact"
        if ka != kb:
            # a measurement may be null in one run (frag_jw3 with nothing
            # live at the peak) and a number in the next
            if ka == ka2 and kb == kb2 and not self.measured(path):
                self.diff(path, f"type {ka} became {kb} ({a!r} -> {b!r})")
            else:
                self.skipped += 1
            return
        if ka == "object":
            if list(a.keys()) != list(b.keys()):
                self.diff(path, f"keys {list(a.keys())} became {list(b.keys())}")
                return
            for k in a:
                self.walk(f"{path}.{k}", a[k], a2.get(k) if ka2 == "object" else None,
                          b[k], b2.get(k) if kb2 == "object" else None)
        elif ka == "array":
            if len(a) != len(b):
                if ka2 == kb2 == "array" and len(a2) == len(a) and len(b2) == len(b) \
                        and not self.measured(path):
                    self.diff(path, f"length {len(a)} became {len(b)}")
                else:
                    self.skipped += 1
                return
            for i in range(len(a)):
                self.walk(f"{path}[{i}]", a[i],
                          a2[i] if ka2 == "array" and len(a2) == len(a) else None, b[i],
                          b2[i] if kb2 == "array" and len(b2) == len(b) else None)
        elif exact(a, a2) and exact(b, b2) and not self.measured(path):
            self.compared += 1
            if not exact(a, b):
                self.diff(path, f"{a!r} became {b!r} (each build's two runs agree)")
        else:
            self.skipped += 1


def exact(x, y):
    """Equal values of the same JSON type (1 and 1.0 differ in a report)."""
    return type(x) is type(y) and x == y


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    docs = []
    for p in sys.argv[1:]:
        try:
            with open(p, encoding="utf-8") as f:
                docs.append(json.load(f))
        except (OSError, ValueError) as e:
            print(f"{p}: {e}", file=sys.stderr)
            return 2
    w = Walk()
    w.walk("", *docs)
    if w.diffs:
        more = sum(1 for d in w.diffs if d is None)
        print("\n".join(d for d in w.diffs if d is not None))
        if more:
            print(f"... and {more} more")
        return 1
    print(f"({w.compared} values equal, {w.skipped} measured values skipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
