#!/usr/bin/env python3
"""Runs one command and writes its resource use, at the kernel's resolution,
to a file: the real-program side of bench/fidelity/fidelity.sh.

  rusage_run.py OUT CMD [ARGS...]

OUT gets one line: "cpu_s max_rss_kb wall_s exit minflt", where cpu_s is the
child's user + system time from wait4 (microseconds; Linux splits the
scheduler's nanosecond runtime into the two, so the sum is exact), max_rss_kb
its peak resident set and minflt its minor page faults. /usr/bin/time prints
CPU time in 10 ms steps, which is the size of the effects fidelity.sh looks
for (a 1.2 s program changing by 20-40 ms), so it is not used for them.

The command's stdin, stdout and stderr are the caller's; this process sets no
LD_PRELOAD of its own, so the allocator under test is in the child only. A
command that cannot start gives exit 127, as a shell would."""
import os
import sys
import time


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: rusage_run.py OUT CMD [ARGS...]\n")
        return 2
    out, cmd = argv[1], argv[2:]
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        except OSError as e:
            sys.stderr.write("rusage_run.py: %s: %s\n" % (cmd[0], e.strerror))
        os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    with open(out, "w") as f:
        f.write("%.6f %d %.6f %d %d\n" % (ru.ru_utime + ru.ru_stime, ru.ru_maxrss, wall,
                                          code, ru.ru_minflt))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
