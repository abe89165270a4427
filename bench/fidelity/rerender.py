#!/usr/bin/env python3
"""Re-renders the tables of a results/fidelity-*.md from its own raw values,
with this tree's fidelity_report.py: for a change in how the figures are
summed up, without running the programs again.

    python3 bench/fidelity/rerender.py results/fidelity-vm.md

In place: the header (command, machine, date), any hand-written reading
before the tables and the raw values stay; the tables (from the line
"Real: the program under" to the raw values) are replaced, and a line under
the header names the re-render. The allocators come from the command's
ALLOCATORS; the report's verdicts from the file's "# verdict:" block, or,
in files written before it, from the "the report's verdict: «...»" lines.
Exit 2 with a one-line message when the file has no raw values."""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = "Real: the program under"
RAW = "<details><summary>Raw values</summary>"


def blocks(lines):
    """The raw values' real, replay and verdict rows."""
    out = {"real": [], "replay": [], "verdict": []}
    cur = None
    for ln in lines:
        m = re.match(r"# (real|replay|verdict):", ln)
        if m:
            cur = m.group(1)
        elif ln.startswith("```"):
            cur = None
        elif cur:
            out[cur].append(ln)
    return out


def verdicts_from_tables(lines):
    """program, policy, verdict rows from the rendered sections."""
    rows, prog, pol = [], None, None
    for ln in lines:
        if ln.startswith("## ") and ln != "## Summary":
            prog = ln[3:].strip()
        m = re.match(r"`--touch (.*)`:$", ln)
        if m:
            pol = m.group(1)
        m = re.match(r"- the report's verdict: \u00ab(.*)\u00bb$", ln)
        if m and prog and pol and m.group(1) != "(none)":
            rows.append("%s\t%s\t%s" % (prog, pol, m.group(1)))
    return rows


def main(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    try:
        t0 = next(i for i, ln in enumerate(lines) if ln.startswith(TABLES))
        t1 = lines.index(RAW)
    except (StopIteration, ValueError):
        sys.stderr.write("%s: no tables and raw values (expected a fidelity.sh results file)\n" % path)
        return 2
    raw = blocks(lines[t1:])
    cmd = next((ln for ln in lines[:t0] if ln.startswith("Command:")), "")
    m = re.search(r"ALLOCATORS='([^']*)'", cmd)
    if not raw["real"] or not raw["replay"] or not m:
        sys.stderr.write("%s: raw values or the command's ALLOCATORS missing\n" % path)
        return 2
    verdict = raw["verdict"] or verdicts_from_tables(lines[t0:t1])
    with tempfile.TemporaryDirectory() as d:
        files = []
        for name, rows in (("real", raw["real"]), ("replay", raw["replay"]), ("verdict", verdict)):
            f = os.path.join(d, name + ".tsv")
            open(f, "w").write("\n".join(rows) + ("\n" if rows else ""))
            files.append(f)
        tables = subprocess.run([sys.executable, os.path.join(HERE, "fidelity_report.py")] + files[:2]
                                + [m.group(1)] + files[2:], check=True, capture_output=True,
                                text=True).stdout.rstrip("\n").split("\n")
    head = lines[:t0]
    note = "- tables re-rendered from the raw values below by `python3 bench/fidelity/rerender.py`"
    if note not in "\n".join(head):
        at = next((i + 1 for i, ln in enumerate(head) if ln.startswith("- heapreplay:")), len(head))
        head = head[:at] + [note + " (the runs are as dated above)"] + head[at:]
    open(path, "w", encoding="utf-8").write("\n".join(head + tables + [""] + lines[t1:]))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: rerender.py RESULTS_MD\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
