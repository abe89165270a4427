#!/usr/bin/env python3
"""Splits a callgrind profile's instructions (Ir) into the allocator's and
the rest of the program's: the instruction side of bench/underpred/.

  cg_split.py CALLGRIND_OUT...   one line per file: file total alloc rest

The allocator's: every function of a library whose file name has malloc in
it (libjemalloc, libmimalloc, libtcmalloc_minimal), and in the C library the
functions of its malloc, or of no object callgrind can name (malloc, free, realloc, calloc and their internals:
_int_*, tcache*, sysmalloc, systrim, malloc_consolidate, unlink_chunk,
arena_*, the __libc_ entry points). Self cost (callgrind_annotate
--inclusive=no), so memcpy or memset called by realloc and calloc count in
the rest."""
import re
import subprocess
import sys

GLIBC_MALLOC = re.compile(r"^(?:__libc_|__GI___libc_|__GI_)?(?:malloc|free|cfree|realloc|calloc|"
                          r"_int_\w+|tcache\w*|sysmalloc|systrim|malloc_\w+|unlink_chunk|arena_\w+|"
                          r"_mid_memalign|alloc_perturb|__malloc_\w+|ptmalloc_\w+|memalign|posix_memalign|"
                          r"aligned_alloc|malloc_usable_size)$")
LINE = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(.*)\s+\[([^\]]*)\]\s*$")


def split(path):
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    total = alloc = 0
    for line in out.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
            continue
        m = LINE.match(line)
        if not m:
            continue
        ir, obj = int(m.group(1).replace(",", "")), m.group(3)
        fn = m.group(2).split(":", 1)[-1]  # FILE:FUNCTION (C++ names have spaces)
        fn = fn.split("@")[0].split(".")[0]  # unlink_chunk.constprop.0, fn@@GLIBC_2.2.5
        lib = obj.rsplit("/", 1)[-1]
        # tcmalloc's malloc, free and realloc resolve to no object ([???])
        if "malloc" in lib or ((lib.startswith("libc.so") or lib == "???") and GLIBC_MALLOC.match(fn)):
            alloc += ir
    return total, alloc


def main(argv):
    for p in argv[1:]:
        t, a = split(p)
        print("%s %d %d %d" % (p, t, a, t - a))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
