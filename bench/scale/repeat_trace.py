#!/usr/bin/env python3
"""Writes a binary trace that is K copies of IN's records, for scale runs
beyond what `heapreplay gen` can hold in memory (a 1 G-event trace from a
100 M-event one: gen keeps every event decoded, 24 bytes each).

usage: repeat_trace.py IN OUT K LAST_ID

IN must be a plain binary trace (64-byte header, no program time) that ends
with nothing live and on thread 0 without timestamps (`gen session` does);
LAST_ID is the last id its records code (the id of its last memory event:
`heapreplay convert IN -o - | tail`). Records are delta-coded: after a copy
the id chain stands at LAST_ID, so each copy but the first is preceded by a
canonical bridge, `alloc 0 1` coded from LAST_ID and `free 0`, which brings
the chain back to 0 as at the start of the file. Frame numbers keep counting
up across copies (their chain is not reset). The header's counts are those
of the copies plus the bridges; n_ids, n_threads and the peak are IN's."""
import struct
import sys


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zigzag(v):
    return (v << 1) ^ (v >> 63) if v < 0 else v << 1


def main():
    src, dst, k, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(src, "rb") as f:
        data = f.read()
    if data[:8] != b"HRTRACE\0":
        sys.exit("%s: not a binary trace" % src)
    flags, n_events = struct.unpack_from("<IQ", data, 12)
    hsize = struct.unpack_from("<I", data, 36)[0]
    strings_len, records_len = struct.unpack_from("<QQ", data, 48)
    if hsize != 64 or flags != 0:
        sys.exit("%s: needs a 64-byte header and no timestamps" % src)
    records = data[hsize + strings_len:hsize + strings_len + records_len]
    bridge = bytes([0x00]) + varint(zigzag(-last)) + varint(1) + bytes([0x03]) + varint(0)
    header = bytearray(data[:hsize])
    struct.pack_into("<Q", header, 16, n_events * k + 2 * (k - 1))
    struct.pack_into("<Q", header, 56, records_len * k + len(bridge) * (k - 1))
    with open(dst, "wb") as f:
        f.write(header)
        f.write(data[hsize:hsize + strings_len])
        for i in range(k):
            if i:
                f.write(bridge)
            f.write(records)


if __name__ == "__main__":
    main()
