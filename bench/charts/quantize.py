#!/usr/bin/env python3
# Reduces a PNG screenshot (8-bit RGB or RGBA, as chromium writes it) to a
# palette of its 256 most used colours, each other colour mapped to the
# nearest of them: a page of text and charts stays a few hundred KB. Pure
# python3 (no Pillow or ImageMagick needed).
# usage: quantize.py IN.png OUT.png
import struct, sys, zlib
from collections import Counter
def chunks(d):
    p = 8
    while p < len(d):
        n, k = struct.unpack(">I4s", d[p:p + 8]); yield k, d[p + 8:p + 8 + n]; p += 12 + n
d = open(sys.argv[1], "rb").read()
idat = b""
for k, b in chunks(d):
    if k == b"IHDR": w, h, depth, ct = struct.unpack(">IIBB", b[:10])
    elif k == b"IDAT": idat += b
assert depth == 8 and ct in (2, 6), "8-bit RGB(A) expected"
bpp = 3 if ct == 2 else 4
raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
px = [[r[i:i + 3] for i in range(0, stride, bpp)] for r in rows]
count = Counter(c for r in px for c in r)
pal = [c for c, _ in count.most_common(256)]
idx = {c: i for i, c in enumerate(pal)}
def near(c):
    return min(range(len(pal)), key=lambda i: sum((pal[i][k] - c[k]) ** 2 for k in range(3)))
for c in count:
    if c not in idx: idx[c] = near(c)
data = b"".join(b"\0" + bytes(idx[c] for c in r) for r in px)
def chunk(k, b): return struct.pack(">I", len(b)) + k + b + struct.pack(">I", zlib.crc32(k + b))
open(sys.argv[2], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0))
    + chunk(b"PLTE", b"".join(pal)) + chunk(b"IDAT", zlib.compress(data, 9)) + chunk(b"IEND", b""))
