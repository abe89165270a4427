#!/usr/bin/env python3
"""Writes a small, seeded C project into DIR: the input of the make_build
program of bench/fidelity/fidelity.sh (a multi-process build).

  c_project.py DIR [UNITS] [FUNCS]      (defaults 20 units, 40 functions each)

UNITS files u00.c ... with FUNCS functions each (loops, switches, structs,
calls into the previous unit), a header, main.c and a Makefile that compiles
every unit with `gcc -O2 -g` and links them into `prog`. `make -j2` in DIR
then runs make, the shell, gcc's driver and per unit cc1 and as, and at the
end collect2 and ld: many short processes. The same arguments give the same
files, byte for byte."""
import os
import random
import sys


def func(rng, u, i):
    body = []
    body.append("int u%02d_f%02d(struct rec *r, int n)\n{\n    int acc = %d;\n" % (u, i, rng.randint(1, 99)))
    for k in range(rng.randint(3, 7)):
        kind = rng.randrange(3)
        if kind == 0:
            body.append("    for (int j = 0; j < n; j++)\n        acc += r[j %% 8].v[%d] * %d ^ (acc >> %d);\n"
                        % (rng.randrange(4), rng.randint(2, 50), rng.randint(1, 7)))
        elif kind == 1:
            body.append("    switch (acc & 7) {\n")
            for c in range(rng.randint(3, 8)):
                body.append("    case %d: acc = acc * %d + r[%d].k; break;\n" % (c, rng.randint(3, 31), c))
            body.append("    default: acc -= n;\n    }\n")
        else:
            callee = "u%02d_f%02d" % (u - 1, rng.randrange(i + 1)) if u > 0 else None
            if callee:
                body.append("    if (n > %d)\n        acc += %s(r, n - %d);\n" % (rng.randint(2, 9), callee, rng.randint(1, 3)))
            else:
                body.append("    acc = (acc << 3) | (n & 7);\n")
    body.append("    return acc;\n}\n\n")
    return "".join(body)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: c_project.py DIR [UNITS] [FUNCS]\n")
        return 2
    d = argv[1]
    units = int(argv[2]) if len(argv) > 2 else 20
    funcs = int(argv[3]) if len(argv) > 3 else 40
    rng = random.Random(20261128)
    os.makedirs(d, exist_ok=True)
    hdr = ["struct rec { int k; int v[4]; const char *name; };\n"]
    for u in range(units):
        hdr += ["int u%02d_f%02d(struct rec *r, int n);\n" % (u, i) for i in range(funcs)]
        src = '#include "proj.h"\n\n' + "".join(func(rng, u, i) for i in range(funcs))
        with open(os.path.join(d, "u%02d.c" % u), "w") as f:
            f.write(src)
    with open(os.path.join(d, "proj.h"), "w") as f:
        f.writelines(hdr)
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write('#include <stdio.h>\n#include "proj.h"\n\nint main(void)\n{\n'
                '    struct rec r[8] = {{0}};\n    printf("%%d\\n", u%02d_f00(r, 8));\n'
                '    return 0;\n}\n' % (units - 1))
    objs = " ".join("u%02d.o" % u for u in range(units)) + " main.o"
    with open(os.path.join(d, "Makefile"), "w") as f:
        f.write("CC = gcc\nCFLAGS = -O2 -g\n\nprog: %s\n\t$(CC) -o $@ $^\n\n"
                "%%.o: %%.c proj.h\n\t$(CC) $(CFLAGS) -c -o $@ $<\n\n"
                "clean:\n\trm -f prog *.o\n" % objs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
