#!/usr/bin/env python3
"""Writes series.json, the chart tests' fixture: a real report of 2 traces x 3
allocators with hand-made "series" (docs/REPORT_SCHEMA.md) small enough for
golden SVG files.

Input: a report made by
  heapreplay replay traces/game_session.hrt traces/frame_loop.hrt \
      -a glibc,block,jemalloc -r 3 --warm-time 0 -q -o IN.json
Usage: make_series_fixture.py IN.json > tests/data/reports/series.json

The series are synthetic but consistent with each row: max(live_bytes) is
the row's peak live, max(footprint_bytes) its peak footprint, the frame
series' max its worst frame and the latency histogram ends at its max.
game_session.hrt gets time_s and frames merged 2 per point; frame_loop.hrt
has no time_s, one point per frame, and its jemalloc row has no series at
all (a row the charts must note, not draw). Deterministic: no randomness."""
import json
import math
import sys

N_MEM = 40
N_FRAMES = 30


def memory(r, timed):
    ev = r["ops"]["events"]
    live_pk = r["memory"]["peak_live"]
    fp_pk = r["memory"]["peak_footprint"]
    rss_pk = r["memory"]["peak_rss_above_baseline"]
    pts = {"points": N_MEM, "event": [], "live_bytes": [], "footprint_bytes": [],
           "rss_bytes": []}
    if timed:
        pts["time_s"] = []
    for i in range(N_MEM):
        f = i / (N_MEM - 1)
        # a ramp with a sawtooth, peaking at 3/4 of the trace
        shape = min(1.0, f / 0.75) * (0.8 + 0.2 * ((i * 7) % 5) / 4)
        if i == int(0.75 * (N_MEM - 1)):
            shape = 1.0
        live = int(live_pk * shape)
        pts["event"].append(int(ev * f))
        if timed:
            pts["time_s"].append(round(2.5 * f, 4))
        pts["live_bytes"].append(live)
        pts["footprint_bytes"].append(int(fp_pk * shape) if i else 0)
        pts["rss_bytes"].append(int(rss_pk * shape) if i else 0)
    pts["footprint_bytes"][int(0.75 * (N_MEM - 1))] = fp_pk
    pts["rss_bytes"][int(0.75 * (N_MEM - 1))] = rss_pk
    return pts


def frames(r, per_point):
    worst = r["worst_frame"]["ns"]
    count = r["worst_frame"]["frames"]
    fr = {"count": count, "per_point": per_point, "first_frame": [], "ns_mean": [],
          "ns_min": [], "ns_max": []}
    for i in range(N_FRAMES):
        base = worst * (0.02 + 0.01 * ((i * 5) % 7))
        spike = worst if i == N_FRAMES // 3 else base * 1.8
        fr["first_frame"].append(i * per_point)
        fr["ns_mean"].append(round(base, 1))
        fr["ns_min"].append(round(base * 0.6, 1))
        fr["ns_max"].append(round(spike, 1))
    return fr


def latency(r):
    mx = r["latency_ns"]["max"]
    p50 = max(r["latency_ns"]["p50"], 8)
    le, count = [], []
    b = 8
    while b < mx * 2:
        le.append(b)
        d = math.log2(b / p50)
        count.append(int(100000 * math.exp(-d * d / 1.5)) + (3 if b >= 1024 else 0))
        b *= 2
    return {"le_ns": le, "count": count}


def main():
    rep = json.load(open(sys.argv[1]))
    rep["schema_version"] = 2
    rep["created"] = "2026-11-26T12:00:00Z"
    rep["machine"]["hostname"] = "fixture"
    rep["command"] = ("heapreplay replay traces/game_session.hrt traces/frame_loop.hrt "
                      "-a glibc,block,jemalloc -r 3 --warm-time 0 (series by "
                      "tests/data/reports/make_series_fixture.py)")
    for r in rep["results"]:
        timed = r["trace"].endswith("game_session.hrt")
        if r["trace"].endswith("frame_loop.hrt") and r["allocator"] == "jemalloc":
            r.pop("series", None)
            continue
        r["series"] = {"memory": memory(r, timed), "frames": frames(r, 2 if timed else 1),
                       "latency": latency(r)}
    json.dump(rep, sys.stdout, indent=1)
    sys.stdout.write("\n")


main()
