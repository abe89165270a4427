#!/usr/bin/env python3
"""Mutants of seed files for bench/hostile/hostile.sh: deterministic (seeded)
byte-level damage of the kinds a broken disk, a bad transfer or a hostile
user makes.

usage: mutate.py SEED OUTDIR COUNT RNGSEED [report]

Trace mutants: bytes flipped, cut short, random bytes inserted, header bytes
overwritten, a span zeroed, a span repeated, a varint run set to 0xff.
Report mutants (`report`): the JSON cut short, a number replaced by a huge,
negative, NaN-like or string value, an object or array emptied, keys
renamed, deep nesting appended; or any of the byte damages above.
"""
import os
import random
import re
import sys


def byte_mutant(data, rng):
    d = bytearray(data)
    kind = rng.randrange(7)
    if not d:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64))), "random bytes"
    if kind == 0:
        for _ in range(rng.randrange(1, 9)):
            d[rng.randrange(len(d))] ^= 1 << rng.randrange(8)
        return bytes(d), "bits flipped"
    if kind == 1:
        return bytes(d[: rng.randrange(len(d))]), "cut short"
    if kind == 2:
        at = rng.randrange(len(d) + 1)
        return bytes(d[:at] + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 32))) + d[at:]), "bytes inserted"
    if kind == 3:
        for _ in range(rng.randrange(1, 5)):
            d[rng.randrange(min(len(d), 96))] = rng.choice([0, 0xFF, 0x7F, 0x80, rng.randrange(256)])
        return bytes(d), "header overwritten"
    if kind == 4:
        at = rng.randrange(len(d))
        n = rng.randrange(1, 256)
        d[at : at + n] = bytes(len(d[at : at + n]))
        return bytes(d), "span zeroed"
    if kind == 5:
        at = rng.randrange(len(d))
        n = rng.randrange(1, 512)
        return bytes(d[: at + n] + d[at : at + n] + d[at + n :]), "span repeated"
    at = rng.randrange(len(d))
    n = rng.randrange(1, 16)
    d[at : at + n] = b"\xff" * len(d[at : at + n])
    return bytes(d), "0xff run"


def report_mutant(text, rng):
    kind = rng.randrange(6)
    nums = [m for m in re.finditer(rb"-?\d+(\.\d+)?([eE][-+]?\d+)?", text)]
    if kind == 0 and nums:
        m = rng.choice(nums)
        val = rng.choice([b"1e309", b"-1", b"-1e308", b"18446744073709551616", b'"x"', b"null",
                          b"true", b"[]", b"{}", b"0.0000000001", b"9" * 400])
        return text[: m.start()] + val + text[m.end() :], "number replaced"
    if kind == 1:
        spans = [m for m in re.finditer(rb"\[[^\[\]{}]*\]|\{[^\[\]{}]*\}", text)]
        if spans:
            m = rng.choice(spans)
            return text[: m.start()] + text[m.start() : m.start() + 1] + text[m.end() - 1 : m.end()] + text[m.end() :], "container emptied"
    if kind == 2:
        keys = [m for m in re.finditer(rb'"([a-z_]+)":', text)]
        if keys:
            m = rng.choice(keys)
            return text[: m.start(1)] + b"renamed_" + text[m.start(1) :], "key renamed"
    if kind == 3:
        depth = rng.choice([100, 300, 5000])
        at = text.rfind(b"}")
        if at > 0:
            return text[:at] + b',"deep":' + b"[" * depth + b"]" * depth + text[at:], "deep nesting"
    if kind == 4:
        return text[: rng.randrange(len(text))], "cut short"
    return byte_mutant(text, rng)


def main():
    seed, outdir, count, rngseed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    report = len(sys.argv) > 5 and sys.argv[5] == "report"
    data = open(seed, "rb").read()
    rng = random.Random(rngseed)
    base = os.path.basename(seed)
    stem, ext = os.path.splitext(base)
    for i in range(count):
        out, what = report_mutant(data, rng) if report else byte_mutant(data, rng)
        name = os.path.join(outdir, "%s.m%03d%s" % (stem, i, ext))
        with open(name, "wb") as f:
            f.write(out)
        print("%s\t%s" % (name, what))


if __name__ == "__main__":
    main()
